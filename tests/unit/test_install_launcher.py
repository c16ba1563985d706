"""The launcher, run for real: any working directory, an empty PATH, a ping over pipes."""

import json
import os
import shlex
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from support.host import isolated_env
from whiteboard.config import EXTENSION_ID
from whiteboard.install import register_for_profile
from whiteboard.install.launcher import render_posix, write_launcher

ORIGIN = f"chrome-extension://{EXTENSION_ID}/"
OTHER = f"chrome-extension://{'a' * 32}/"

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX launcher")


def ping_via(launcher: Path, origin: str, cwd: Path, env: dict) -> dict:
    """What Chrome does: exec the path with the origin as argv[1], one frame in, one out."""
    body = json.dumps({"id": 1, "type": "ping"}).encode()
    proc = subprocess.run([str(launcher), origin], input=struct.pack("<I", len(body)) + body,
                          capture_output=True, cwd=cwd, env=env, timeout=30)
    assert proc.returncode == 0, proc.stderr.decode()
    (n,) = struct.unpack("<I", proc.stdout[:4])
    assert len(proc.stdout) == 4 + n, "stdout must carry exactly one frame"
    return json.loads(proc.stdout[4:])


@pytest.fixture
def bare_env(tmp_path):
    env = isolated_env(tmp_path / "env")
    # Nothing to find on PATH, no Python hints: the launcher has to carry it all.
    env = {k: v for k, v in env.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "PYENV"))}
    env["PATH"] = ""
    return env


def test_launcher_answers_a_ping_from_another_cwd_with_empty_path(tmp_path, bare_env):
    launcher = tmp_path / "bin" / "whiteboard-host"
    write_launcher(launcher, sys.executable, [ORIGIN])
    elsewhere = tmp_path / "somewhere" / "else"
    elsewhere.mkdir(parents=True)
    reply = ping_via(launcher, ORIGIN, elsewhere, bare_env)
    assert reply["ok"] is True and reply["id"] == 1 and reply["protocol"] >= 1


def test_a_whiteboard_folder_in_the_cwd_cannot_shadow_the_package(tmp_path, bare_env):
    launcher = tmp_path / "bin" / "whiteboard-host"
    write_launcher(launcher, sys.executable, [ORIGIN])
    trap = tmp_path / "cwd" / "whiteboard" / "server"
    trap.mkdir(parents=True)
    for pkg in (trap.parent, trap):
        (pkg / "__init__.py").write_text("")
    (trap / "main.py").write_text("import sys; sys.stdout.write('shadowed'); sys.exit(7)")
    assert ping_via(launcher, ORIGIN, tmp_path / "cwd", bare_env)["ok"] is True


def test_launcher_exports_the_allowed_origins(tmp_path, bare_env):
    launcher = tmp_path / "whiteboard-host"
    write_launcher(launcher, sys.executable, [OTHER])
    assert ping_via(launcher, OTHER, tmp_path, bare_env)["ok"] is True
    refused = ping_via(launcher, ORIGIN, tmp_path, bare_env)  # the bundled id is not in this launcher
    assert refused["ok"] is False and refused["error"]["code"] == "forbidden"


def test_launcher_overrides_an_inherited_origins_variable(tmp_path, bare_env):
    launcher = tmp_path / "whiteboard-host"
    write_launcher(launcher, sys.executable, [ORIGIN])
    reply = ping_via(launcher, OTHER, tmp_path, {**bare_env, "WHITEBOARD_ALLOWED_ORIGINS": OTHER})
    assert reply["ok"] is False


def test_launcher_quotes_paths_with_spaces_and_quotes(tmp_path, bare_env):
    odd = tmp_path / "it's a \"dir\" $HOME"
    odd.mkdir()
    # A wrapper, not a symlink: a venv's python symlinked elsewhere no longer finds its
    # pyvenv.cfg, so the package would be missing on a fresh machine. What is tested is
    # the launcher quoting this folder's name.
    python = odd / "python"
    python.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} \"$@\"\n")
    python.chmod(0o755)
    launcher = odd / "whiteboard-host"
    write_launcher(launcher, str(python), [ORIGIN], {"WHITEBOARD_LOG_LEVEL": "ERROR"})
    assert ping_via(launcher, ORIGIN, tmp_path, bare_env)["ok"] is True


def test_launcher_text_is_absolute_and_marked():
    text = render_posix("/venv/bin/python", {"WHITEBOARD_ALLOWED_ORIGINS": ORIGIN})
    assert text.startswith("#!/bin/sh\n")
    assert "exec /venv/bin/python -P -m whiteboard.server.main \"$@\"" in text
    assert "export WHITEBOARD_ALLOWED_ORIGINS" in text


def test_bad_env_name_is_refused(tmp_path):
    with pytest.raises(ValueError, match="not a valid environment variable name"):
        write_launcher(tmp_path / "h", sys.executable, [ORIGIN], {"BAD-NAME": "x"})


def test_register_for_profile_writes_manifest_and_launcher_a_browser_can_use(tmp_path, bare_env):
    profile = tmp_path / "profile"
    manifest_path = register_for_profile(profile, env={"WHITEBOARD_DATA_DIR": str(tmp_path / "vault")})
    assert manifest_path == profile.resolve() / "NativeMessagingHosts" / "com.whiteboard.host.json"
    data = json.loads(manifest_path.read_text())
    assert data["allowed_origins"] == [ORIGIN] and data["type"] == "stdio"
    launcher = Path(data["path"])
    assert launcher.is_absolute() and launcher.parent == manifest_path.parent
    assert f"WHITEBOARD_DATA_DIR={tmp_path / 'vault'}" in launcher.read_text()
    assert ping_via(launcher, ORIGIN, tmp_path, bare_env)["ok"] is True
    assert register_for_profile(profile) == manifest_path  # again: harmless


def test_register_for_profile_with_a_relative_dir_still_writes_absolute_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    manifest_path = register_for_profile("rel-profile", "a" * 32)
    data = json.loads(manifest_path.read_text())
    assert Path(data["path"]).is_absolute() and data["allowed_origins"] == [OTHER]
