"""installers/install.sh, run for real in a temporary HOME: venv, pip install, registration,
doctor through the registered launcher, and a second run that changes nothing."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support.host import isolated_env, path_without_browsers
from whiteboard.config import EXTENSION_ID, FIREFOX_ADDON_ID

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "installers" / "install.sh"

pytestmark = pytest.mark.skipif(os.name == "nt" or not shutil.which("bash"), reason="bash installer")


def run(env, *args, timeout=600):
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, env=env, cwd=env["HOME"],
                          timeout=timeout)


def test_help_and_bad_options(tmp_path):
    env = isolated_env(tmp_path / "env")
    assert run(env, "--help").returncode == 0 and "--no-register" in run(env, "--help").stdout
    bad = run(env, "--frobnicate")
    assert bad.returncode == 1 and "unknown option: --frobnicate" in bad.stderr


def test_a_python_too_old_or_missing_is_explained(tmp_path):
    env = isolated_env(tmp_path / "env")
    result = run(env, "--python", "/bin/false", "--venv", str(tmp_path / "venv"))
    assert result.returncode == 1 and "not a working Python 3.11+" in result.stderr
    assert "Install Python 3.11 or newer" in result.stderr
    assert not (tmp_path / "venv").exists()


def _index_reachable(env) -> bool:
    probe = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d",
                            env["TMPDIR"], "setuptools"], capture_output=True, env=env, timeout=120)
    return probe.returncode == 0


@pytest.mark.slow
def test_fresh_home_install_register_doctor_and_rerun(tmp_path):
    env = isolated_env(tmp_path / "env", PYTHONIOENCODING="utf-8")
    if not _index_reachable(env):
        pytest.skip("no Python package index reachable: install.sh needs one to install dependencies")
    Path(env["XDG_CONFIG_HOME"], "chromium").mkdir()  # a browser that has been run once
    Path(env["HOME"], ".mozilla", "firefox").mkdir(parents=True)  # and Firefox, found the same way
    venv = Path(env["XDG_DATA_HOME"]) / "whiteboard" / "venv"

    first = run(env)
    assert first.returncode == 0, first.stdout + first.stderr
    assert f"Creating the environment {venv}" in first.stdout
    assert f'choose: {REPO / "extension"}' in first.stdout and f"must be: {EXTENSION_ID}" in first.stdout
    manifest = Path(env["XDG_CONFIG_HOME"], "chromium", "NativeMessagingHosts", "com.whiteboard.host.json")
    launcher = Path(json.loads(manifest.read_text())["path"])
    assert f"exec {venv}/bin/python -P -m whiteboard.server.main" in launcher.read_text()
    firefox = Path(env["HOME"], ".mozilla", "native-messaging-hosts", "com.whiteboard.host.json")
    assert json.loads(firefox.read_text())["allowed_extensions"] == [FIREFOX_ADDON_ID]
    assert "Load Temporary Add-on" in first.stdout

    linked = Path(env["HOME"], ".local", "bin", "whiteboard")
    assert linked.resolve() == (venv / "bin" / "whiteboard").resolve()
    assert "not on your PATH" in first.stdout  # the isolated PATH lacks ~/.local/bin
    doctor = subprocess.run([str(linked), "doctor", "--browser", "chromium"],
                            capture_output=True, text=True, env={**env, "PATH": ""}, timeout=120)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert "host answers ping through that path" in doctor.stdout

    second = run(env)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "Using the existing environment" in second.stdout and "already in place" in second.stdout

    # Same environment, a home with no browser: installed, told what to do, exit status 3.
    bare = isolated_env(tmp_path / "bare")
    bare["PATH"] = path_without_browsers(tmp_path / "bare")  # this machine may have Chromium installed
    third = run(bare, "--venv", str(venv))
    assert third.returncode == 3, third.stdout + third.stderr
    assert "not registered with a browser yet" in third.stdout and "Load unpacked" in third.stdout
