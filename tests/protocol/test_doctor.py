"""`whiteboard doctor` against real installs: it launches the real host through the
manifest's path over real pipes, passes a good install and names each broken case."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.host import isolated_env
from whiteboard.config import EXTENSION_ID, FIREFOX_ADDON_ID
from whiteboard.install import BROWSERS, Platform, Target, diagnose, diagnose_profile, install, register_for_profile
from whiteboard.install.doctor import exit_code

ORIGIN = f"chrome-extension://{EXTENSION_ID}/"
OTHER_ID = "a" * 32

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX launchers")


@pytest.fixture
def target(tmp_path):
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    return Target(Platform(os="linux", home=tmp_path / "home", data_dir=tmp_path / "data", env=env))


def labels(report):
    return [(c.ok, c.label) for c in report.checks]


def failed(report):
    return [c for c in report.checks if c.ok is False]


def test_good_install_passes_every_check(target):
    install(target, ["chrome"], [EXTENSION_ID])
    report = diagnose(target, ORIGIN, ["chrome"])[0]
    assert report.ready and not report.failed, labels(report)
    assert [c.label.split(":")[0].split(" (")[0] for c in report.checks] == [
        "manifest present", "valid JSON", "host path is absolute", "host path is executable", "origin allowed",
        "host answers ping through that path"]
    assert "version 0.1.0" in report.checks[-1].label


def test_missing_manifest_named_browser_fails_with_install_command(target):
    report = diagnose(target, ORIGIN, ["edge"])[0]
    [check] = failed(report)
    assert "not registered" in check.label and check.fix == "Run: whiteboard install --browser edge"
    assert exit_code([report]) == 1


def test_installed_but_unregistered_browser_is_a_warning_not_a_failure(target):
    install(target, ["chrome"], [EXTENSION_ID])
    target.profile_dir(BROWSERS["brave"]).mkdir(parents=True)
    reports = {r.who: r for r in diagnose(target, ORIGIN)}
    warning = reports["brave"].checks[0]
    assert warning.ok is None and "whiteboard install --browser brave" in warning.fix
    assert reports["edge"].skipped and not reports["edge"].checks
    assert exit_code(list(reports.values())) == 0


def test_nothing_registered_anywhere_fails(target):
    assert exit_code(diagnose(target, ORIGIN)) == 1


def test_bad_json(target):
    install(target, ["chrome"], [EXTENSION_ID])
    target.manifest_path(BROWSERS["chrome"]).write_text('{"name": "com.whiteboard.host",')
    [check] = failed(diagnose(target, ORIGIN, ["chrome"])[0])
    assert "not valid JSON" in check.fix and "whiteboard install --browser chrome" in check.fix


def test_wrong_fields(target):
    install(target, ["chrome"], [EXTENSION_ID])
    path = target.manifest_path(BROWSERS["chrome"])
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "type": "socket", "allowed_origins": ["chrome-extension://*/"]}))
    [check] = failed(diagnose(target, ORIGIN, ["chrome"])[0])
    assert '"stdio"' in check.label and "no wildcards" in check.label


def _edit(target, browser="chrome", **changes):
    path = target.manifest_path(BROWSERS[browser])
    path.write_text(json.dumps({**json.loads(path.read_text()), **changes}))


def test_relative_path(target):
    install(target, ["chrome"], [EXTENSION_ID])
    _edit(target, path="bin/whiteboard-host")
    report = diagnose(target, ORIGIN, ["chrome"])[0]
    [check] = failed(report)
    assert "not absolute" in check.label and "Browsers need an absolute path" in check.fix
    assert not any("ping" in c.label for c in report.checks)  # no launch through a path Chrome refuses


def test_missing_launcher(target):
    install(target, ["chrome"], [EXTENSION_ID])
    target.launcher_path.unlink()
    [check] = failed(diagnose(target, ORIGIN, ["chrome"])[0])
    assert "does not exist" in check.label


def test_not_executable(target):
    install(target, ["chrome"], [EXTENSION_ID])
    target.launcher_path.chmod(0o644)
    [check] = failed(diagnose(target, ORIGIN, ["chrome"])[0])
    assert "not executable" in check.label and f"chmod +x {target.launcher_path}" in check.fix


def test_wrong_origin(target):
    install(target, ["chrome"], [OTHER_ID])
    report = diagnose(target, ORIGIN, ["chrome"])[0]
    origin_check, ping_check = failed(report)
    assert "origin not allowed" in origin_check.label and f"--extension-id {EXTENSION_ID}" in origin_check.fix
    assert "refused the origin" in ping_check.label  # and the launcher would refuse it too


def test_launcher_that_refuses_an_origin_the_manifest_allows(target):
    install(target, ["chrome"], [EXTENSION_ID])
    _edit(target, allowed_origins=[ORIGIN, f"chrome-extension://{OTHER_ID}/"])
    [check] = failed(diagnose(target, f"chrome-extension://{OTHER_ID}/", ["chrome"])[0])
    assert "refused the origin" in check.label and "forbidden" in check.label


def _fake_host(path: Path, body: str) -> Path:
    path.write_text(f"#!{sys.executable}\n{body}\n")
    path.chmod(0o755)
    return path


@pytest.mark.slow
def test_host_that_does_not_answer(target, tmp_path):
    install(target, ["chrome"], [EXTENSION_ID])
    _edit(target, path=str(_fake_host(tmp_path / "silent-host", "import time; time.sleep(60)")))
    [check] = failed(diagnose(target, ORIGIN, ["chrome"], timeout=1.5)[0])
    assert "no reply within 1.5 s" in check.label and "Run it by hand" in check.fix


def test_host_that_crashes_shows_its_stderr(target, tmp_path):
    install(target, ["chrome"], [EXTENSION_ID])
    crash = "import sys; sys.stderr.write('ModuleNotFoundError: pydantic\\n'); sys.exit(3)"
    _edit(target, path=str(_fake_host(tmp_path / "crashing-host", crash)))
    [check] = failed(diagnose(target, ORIGIN, ["chrome"])[0])
    assert "exit code 3" in check.label and "ModuleNotFoundError: pydantic" in check.label


def test_host_that_prints_to_stdout(target, tmp_path):
    install(target, ["chrome"], [EXTENSION_ID])
    chatty = "import sys, time; print('hello from the host'); sys.stdout.flush(); time.sleep(60)"
    _edit(target, path=str(_fake_host(tmp_path / "chatty-host", chatty)))
    [check] = failed(diagnose(target, ORIGIN, ["chrome"], timeout=5)[0])
    assert "not a frame" in check.label


def test_host_with_a_broken_shebang(target, tmp_path):
    install(target, ["chrome"], [EXTENSION_ID])
    bad = tmp_path / "bad-host"
    bad.write_text("#!/no/such/interpreter\n")
    bad.chmod(0o755)
    _edit(target, path=str(bad))
    [check] = failed(diagnose(target, ORIGIN, ["chrome"])[0])
    assert "could not start it" in check.label


def test_profile_registration_checks_out(tmp_path):
    register_for_profile(tmp_path / "profile")
    report = diagnose_profile(tmp_path / "profile", ORIGIN)
    assert report.ready, labels(report)
    missing = diagnose_profile(tmp_path / "other", ORIGIN)
    assert missing.failed and "register_for_profile" in missing.checks[0].fix


def run_cli(env, *args):
    code = "import sys; from whiteboard.cli import main; main(sys.argv[1:], prog_name='whiteboard')"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env,
                          timeout=120)


def test_cli_install_doctor_uninstall_round_trip(tmp_path):
    env = isolated_env(tmp_path / "env", PYTHONIOENCODING="utf-8")
    Path(env["XDG_CONFIG_HOME"], "chromium").mkdir()
    first = run_cli(env, "install")
    assert first.returncode == 0, first.stderr
    assert "chromium" in first.stdout and "created" in first.stdout and "Load unpacked" in first.stdout
    assert EXTENSION_ID in first.stdout
    again = run_cli(env, "install", "--browser", "chromium")
    assert again.returncode == 0 and "already in place" in again.stdout

    good = run_cli(env, "doctor")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "✓ host answers ping through that path" in good.stdout and "All good" in good.stdout

    manifest = Path(env["XDG_CONFIG_HOME"], "chromium", "NativeMessagingHosts", "com.whiteboard.host.json")
    manifest.write_text("{oops")
    broken = run_cli(env, "doctor")
    assert broken.returncode == 1
    assert "✗ manifest readable" in broken.stdout and "next step:" in broken.stdout

    manifest.unlink()
    gone = run_cli(env, "uninstall")
    assert gone.returncode == 0 and "removed" in gone.stdout
    assert not any(Path(env["XDG_DATA_HOME"]).rglob("whiteboard-host"))
    assert "Nothing to remove" in run_cli(env, "uninstall").stdout


def test_cli_install_without_any_browser_is_a_clear_error(tmp_path):
    env = isolated_env(tmp_path / "env", PATH=str(tmp_path / "no-commands"))
    result = run_cli(env, "install")
    assert result.returncode == 1 and "no supported browser found" in result.stderr
    assert "--browser chrome" in result.stderr


def test_cli_install_registers_a_browser_installed_but_never_run(tmp_path):
    commands = tmp_path / "commands"
    commands.mkdir()
    (commands / "brave-browser").write_text("#!/bin/sh\n")
    (commands / "brave-browser").chmod(0o755)
    env = isolated_env(tmp_path / "env", PATH=str(commands), PYTHONIOENCODING="utf-8")
    result = run_cli(env, "install")
    assert result.returncode == 0, result.stderr
    assert "with: Brave" in result.stdout
    manifest = Path(env["XDG_CONFIG_HOME"], "BraveSoftware", "Brave-Browser", "NativeMessagingHosts",
                    "com.whiteboard.host.json")
    assert json.loads(manifest.read_text())["allowed_origins"] == [ORIGIN]


def test_cli_rejects_a_bad_extension_id(tmp_path):
    result = run_cli(isolated_env(tmp_path / "env"), "install", "--browser", "chrome", "--extension-id", "xyz")
    assert result.returncode == 2 and "32 letters a-p" in result.stderr


def test_cli_firefox_install_doctor_uninstall_in_a_fresh_home(tmp_path):
    env = isolated_env(tmp_path / "env", PYTHONIOENCODING="utf-8", PATH=str(tmp_path / "no-commands"))
    Path(env["HOME"], ".mozilla", "firefox").mkdir(parents=True)  # Firefox has run here: detected
    first = run_cli(env, "install")
    assert first.returncode == 0, first.stderr
    assert "with: Firefox" in first.stdout and "Load Temporary Add-on" in first.stdout
    manifest = Path(env["HOME"], ".mozilla", "native-messaging-hosts", "com.whiteboard.host.json")
    data = json.loads(manifest.read_text())
    assert data["allowed_extensions"] == [FIREFOX_ADDON_ID] and "allowed_origins" not in data

    good = run_cli(env, "doctor", "--browser", "firefox")
    assert good.returncode == 0, good.stdout + good.stderr
    assert f"✓ origin allowed: {FIREFOX_ADDON_ID}" in good.stdout
    assert "✓ host answers ping through that path" in good.stdout

    # An add-on the manifest does not name: doctor says so and how to allow it.
    other = run_cli(env, "doctor", "--browser", "firefox", "--extension-id", "other@example.org")
    assert other.returncode == 1 and "✗ origin not allowed: other@example.org" in other.stdout
    assert "--extension-id other@example.org" in other.stdout

    gone = run_cli(env, "uninstall", "--browser", "firefox")
    assert gone.returncode == 0 and "removed" in gone.stdout and not manifest.exists()
    assert not any(Path(env["XDG_DATA_HOME"]).rglob("whiteboard-host"))


def test_doctor_names_a_launcher_that_refuses_the_firefox_add_on(target):
    install(target, ["firefox"], [FIREFOX_ADDON_ID])
    launcher = target.launcher_path
    launcher.write_text(launcher.read_text().replace(FIREFOX_ADDON_ID, "someone@else.org"))
    [check] = failed(diagnose(target, ORIGIN, ["firefox"])[0])
    assert "refused" in check.label and f"--extension-id {FIREFOX_ADDON_ID}" in check.fix


def test_doctor_checks_each_extension_id_given(tmp_path):
    """Issue 28: --extension-id was checked for its first id only; a second id the install
    does not allow passed unseen."""
    env = isolated_env(tmp_path)
    whiteboard = str(Path(sys.executable).with_name("whiteboard"))
    assert subprocess.run([whiteboard, "install", "--browser", "chromium", "--extension-id", EXTENSION_ID],
                          env=env, capture_output=True, timeout=120).returncode == 0
    both = subprocess.run([whiteboard, "doctor", "--browser", "chromium", "--extension-id", EXTENSION_ID,
                           "--extension-id", OTHER_ID], env=env, capture_output=True, text=True, timeout=120)
    assert both.returncode == 1, both.stdout
    assert f"origin allowed: {ORIGIN}" in both.stdout
    assert f"origin not allowed: chrome-extension://{OTHER_ID}/" in both.stdout
    assert f"--extension-id {EXTENSION_ID} --extension-id {OTHER_ID}" in both.stdout  # the fix names both
