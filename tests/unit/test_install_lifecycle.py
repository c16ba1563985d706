"""Install / uninstall on Linux and macOS layouts in a temporary home: idempotent, and
uninstall removes only what install wrote."""

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from whiteboard.config import EXTENSION_ID, FIREFOX_ADDON_ID
from whiteboard.install import BROWSERS, InstallError, Platform, Target, detected_browsers, install, uninstall

OTHER_ID = "a" * 32
ORIGIN = f"chrome-extension://{EXTENSION_ID}/"


@pytest.fixture(params=["linux", "darwin"])
def target(request, tmp_path):
    p = Platform(os=request.param, home=tmp_path / "home", data_dir=tmp_path / "data" / "whiteboard",
                 env={}, system_root=tmp_path / "root")
    return Target(p)


def manifest(target, browser):
    return target.manifest_path(BROWSERS[browser])


def test_install_writes_manifest_and_executable_launcher(target):
    changes = install(target, ["chrome", "brave"], [EXTENSION_ID])
    for b in ("chrome", "brave"):
        data = json.loads(manifest(target, b).read_text())
        assert data["path"] == str(target.launcher_path) and data["allowed_origins"] == [ORIGIN]
    assert not manifest(target, "edge").exists()
    mode = target.launcher_path.stat().st_mode
    assert mode & stat.S_IXUSR and not mode & stat.S_IWOTH
    assert stat.S_IMODE(manifest(target, "chrome").stat().st_mode) == 0o644
    assert [c.action for c in changes] == ["created"] * 3


def test_install_twice_is_harmless_and_says_so(target):
    install(target, ["chrome"], [EXTENSION_ID])
    before = manifest(target, "chrome").read_bytes(), target.launcher_path.read_bytes()
    again = install(target, ["chrome"], [EXTENSION_ID])
    assert {c.action for c in again} == {"unchanged"}
    assert (manifest(target, "chrome").read_bytes(), target.launcher_path.read_bytes()) == before
    leftovers = [p for p in manifest(target, "chrome").parent.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


def test_uninstall_twice_is_harmless(target):
    install(target, ["chrome", "vivaldi"], [EXTENSION_ID])
    first = uninstall(target, list(BROWSERS))
    assert {(c.who, c.action) for c in first if c.action == "removed"} == {("chrome", "removed"),
                                                                          ("vivaldi", "removed"), ("", "removed")}
    assert not manifest(target, "chrome").exists() and not target.launcher_path.exists()
    second = uninstall(target, list(BROWSERS))
    assert {c.action for c in second} == {"absent"}


def test_uninstall_leaves_other_hosts_and_foreign_manifests(target):
    install(target, ["chrome", "chromium"], [EXTENSION_ID])
    hosts = manifest(target, "chrome").parent
    neighbour = hosts / "org.keepassxc.keepassxc_browser.json"
    neighbour.write_text('{"name": "org.keepassxc.keepassxc_browser"}')
    # Someone else's manifest under our host name (e.g. another checkout's install): not ours.
    foreign = manifest(target, "chromium")
    foreign.write_text(json.dumps({"name": "com.whiteboard.host", "path": "/elsewhere/host", "type": "stdio",
                                   "description": "x", "allowed_origins": [ORIGIN]}))
    target.launcher_path.parent.joinpath("notes.txt").write_text("mine")
    changes = uninstall(target, ["chrome", "chromium"])
    assert neighbour.read_text() == '{"name": "org.keepassxc.keepassxc_browser"}'
    assert foreign.exists() and not manifest(target, "chrome").exists()
    kept = [c for c in changes if c.who == "chromium"][0]
    assert kept.action == "kept" and "/elsewhere/host" in kept.note
    assert not target.launcher_path.exists()
    assert target.launcher_path.parent.joinpath("notes.txt").read_text() == "mine"


def test_uninstall_keeps_unreadable_manifest_and_says_why(target):
    path = manifest(target, "edge")
    path.parent.mkdir(parents=True)
    path.write_text("{broken")
    change = uninstall(target, ["edge"])[0]
    assert path.exists() and change.action == "kept" and "not valid JSON" in change.note


def test_uninstall_of_one_browser_keeps_the_shared_launcher(target):
    install(target, ["chrome", "edge"], [EXTENSION_ID])
    changes = uninstall(target, ["edge"])
    assert target.launcher_path.exists() and manifest(target, "chrome").exists()
    assert any(c.what == "launcher" and c.action == "kept" and "chrome" in c.note for c in changes)


def test_launcher_allows_every_id_a_manifest_of_ours_names(target):
    install(target, ["chrome"], [EXTENSION_ID])
    install(target, ["brave"], [OTHER_ID])
    text = target.launcher_path.read_text()
    assert ORIGIN in text and f"chrome-extension://{OTHER_ID}/" in text
    assert json.loads(manifest(target, "chrome").read_text())["allowed_origins"] == [ORIGIN]
    # Reinstalling Chrome alone with the bundled id keeps Brave's id allowed.
    install(target, ["chrome"], [EXTENSION_ID])
    assert f"chrome-extension://{OTHER_ID}/" in target.launcher_path.read_text()


def test_firefox_manifest_names_add_on_ids_and_shares_the_launcher(target):
    install(target, ["chrome", "firefox"], [EXTENSION_ID, FIREFOX_ADDON_ID])
    firefox = json.loads(manifest(target, "firefox").read_text())
    assert firefox["allowed_extensions"] == [FIREFOX_ADDON_ID] and "allowed_origins" not in firefox
    assert firefox["path"] == str(target.launcher_path)
    assert json.loads(manifest(target, "chrome").read_text())["allowed_origins"] == [ORIGIN]
    launcher = target.launcher_path.read_text()
    assert ORIGIN in launcher and FIREFOX_ADDON_ID in launcher
    # Chrome goes: the launcher stays for Firefox, and still allows its add-on.
    uninstall(target, ["chrome"])
    assert manifest(target, "firefox").exists() and FIREFOX_ADDON_ID in target.launcher_path.read_text()
    # Reinstalling Chrome alone keeps the add-on id the Firefox manifest names.
    install(target, ["chrome"], [EXTENSION_ID])
    assert FIREFOX_ADDON_ID in target.launcher_path.read_text()
    uninstall(target, ["firefox", "chrome"])
    assert not manifest(target, "firefox").exists() and not target.launcher_path.exists()


def test_install_replaces_a_stale_manifest_and_reports_it(target):
    path = manifest(target, "chrome")
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"name": "com.whiteboard.host", "path": "/old/venv/host"}))
    change = install(target, ["chrome"], [EXTENSION_ID])[1]
    assert change.action == "updated" and "/old/venv/host" in change.note
    assert json.loads(path.read_text())["path"] == str(target.launcher_path)


def test_system_scope_writes_under_system_dirs(target):
    system = Target(target.platform, system=True)
    install(system, ["chrome"], [EXTENSION_ID])
    root = target.platform.system_root
    assert system.manifest_path(BROWSERS["chrome"]).is_relative_to(root)
    assert system.launcher_path.is_relative_to(root) and system.launcher_path.exists()
    assert not manifest(target, "chrome").exists()  # the user-level file is untouched


def test_detected_browsers_are_those_with_a_profile(target):
    assert detected_browsers(target) == []
    target.profile_dir(BROWSERS["vivaldi"]).mkdir(parents=True)
    target.profile_dir(BROWSERS["chromium"]).mkdir(parents=True)
    assert detected_browsers(target) == ["chromium", "vivaldi"]


def test_a_browser_installed_but_never_run_is_detected(tmp_path):
    commands = tmp_path / "bin"
    commands.mkdir()
    (commands / "chromium-browser").write_text("#!/bin/sh\n")
    (commands / "google-chrome").write_text("not executable")
    (commands / "chromium-browser").chmod(0o755)
    linux = Target(Platform(os="linux", home=tmp_path / "home", data_dir=tmp_path / "data",
                            env={"PATH": str(commands)}, system_root=tmp_path / "root"))
    assert detected_browsers(linux) == ["chromium"]
    mac = Target(Platform(os="darwin", home=tmp_path / "home", data_dir=tmp_path / "data", env={},
                          system_root=tmp_path / "root"))
    assert detected_browsers(mac) == []
    (tmp_path / "root" / "Applications" / "Vivaldi.app").mkdir(parents=True)
    (tmp_path / "home" / "Applications" / "Brave Browser.app").mkdir(parents=True)
    assert detected_browsers(mac) == ["brave", "vivaldi"]


@pytest.mark.parametrize("browsers, ids, python, message", [
    (["safari"], [EXTENSION_ID], None, "unknown browser 'safari'"),
    (["firefox"], [EXTENSION_ID], None, "no Firefox add-on id"),
    (["chrome"], ["nope"], None, "32 letters a-p"),
    (["chrome"], [EXTENSION_ID], "python3", "not absolute"),
    (["chrome"], [EXTENSION_ID], "/no/such/python", "does not exist"),
])
def test_bad_input_is_a_clear_error_and_writes_nothing(target, browsers, ids, python, message):
    with pytest.raises(InstallError, match=message):
        install(target, browsers, ids, python=python)
    assert not manifest(target, "chrome").exists() and not target.launcher_path.exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_unwritable_location_is_a_clear_error(target):
    system = Target(target.platform, system=True)
    root = target.platform.system_root
    root.mkdir()
    root.chmod(0o555)
    try:
        with pytest.raises(InstallError, match="no permission.*sudo"):
            install(system, ["chrome"], [EXTENSION_ID])
    finally:
        root.chmod(0o755)


def test_unwritable_location_as_root_via_a_file_in_the_way(target):
    # Works even as root: a regular file where a directory must go.
    system = Target(target.platform, system=True)
    root = target.platform.system_root
    root.parent.mkdir(parents=True, exist_ok=True)
    root.write_text("not a directory")
    with pytest.raises(InstallError, match="cannot write"):
        install(system, ["chrome"], [EXTENSION_ID], python=sys.executable)
    assert Path(root).read_text() == "not a directory"
