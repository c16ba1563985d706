"""`whiteboard install` over an earlier install, and `whiteboard uninstall` with and without
--purge, run as the user runs them (the real command) in a throwaway HOME."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from support.host import HostProcess, isolated_env, key_path, socket_of, vault_path
from whiteboard.config import EXTENSION_ID

WHITEBOARD = str(Path(sys.executable).with_name("whiteboard"))
STORE_ID = "a" * 32

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX paths")


def run(env, *args, answer: str | None = None):
    return subprocess.run([WHITEBOARD, *args], capture_output=True, text=True, env=env, input=answer or "",
                          timeout=120)


def manifest(env) -> Path:
    return Path(env["XDG_CONFIG_HOME"], "chromium", "NativeMessagingHosts", "com.whiteboard.host.json")


def with_user_data(root: Path) -> dict:
    """A registered install whose user has a vault (real, encrypted), its key and settings."""
    env = isolated_env(root, PYTHONIOENCODING="utf-8")
    assert run(env, "install", "--browser", "chromium").returncode == 0
    made = subprocess.run([sys.executable, "-c",
                           "from whiteboard.memory.store.vault import Vault; Vault.open().close()"],
                          env=env, capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    settings = Path(env["XDG_CONFIG_HOME"], "whiteboard")
    (settings / "sites.json").write_text("{}")
    (settings / "memory.json").write_text("{}")
    (settings / "mcp.json").write_text("{}")
    # Not Whiteboard's to delete: install.sh's virtualenv lives in the same data dir.
    venv = Path(env["XDG_DATA_HOME"], "whiteboard", "venv")
    venv.mkdir()
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    assert vault_path(root).exists() and key_path(root).exists()
    return env


def test_uninstall_unregisters_and_keeps_the_vault_saying_where(tmp_path):
    env = with_user_data(tmp_path)
    result = run(env, "uninstall")
    assert result.returncode == 0, result.stderr
    assert not manifest(env).exists()
    assert vault_path(tmp_path).exists() and key_path(tmp_path).exists()
    assert str(vault_path(tmp_path)) in result.stdout and "whiteboard uninstall --purge" in result.stdout


def test_purge_asks_first_and_a_no_changes_nothing(tmp_path):
    env = with_user_data(tmp_path)
    for answer in ("n\n", ""):  # a no, and no terminal at all
        result = run(env, "uninstall", "--purge", answer=answer)
        assert result.returncode == 1 and "Aborted" in result.stderr, result.stdout + result.stderr
        assert str(vault_path(tmp_path)) in result.stdout  # it said what it would delete
        assert manifest(env).exists() and vault_path(tmp_path).exists() and key_path(tmp_path).exists()


@pytest.mark.parametrize("how", [("--purge",), ("--purge", "--yes")])
def test_purge_deletes_memories_key_and_settings_and_nothing_else(tmp_path, how):
    env = with_user_data(tmp_path)
    result = run(env, "uninstall", *how, answer="y\n" if "--yes" not in how else None)
    assert result.returncode == 0, result.stdout + result.stderr
    assert not manifest(env).exists()
    config = Path(env["XDG_CONFIG_HOME"], "whiteboard")
    assert not vault_path(tmp_path).exists() and not key_path(tmp_path).exists()
    assert not (config / "sites.json").exists() and not (config / "memory.json").exists()
    assert not (config / "mcp.json").exists()  # the desktop apps switch goes too: a new install starts off
    assert list(vault_path(tmp_path).parent.glob("memories.db*")) == []
    assert Path(env["XDG_DATA_HOME"], "whiteboard", "venv", "pyvenv.cfg").exists()
    again = run(env, "uninstall", "--purge", "--yes")
    assert again.returncode == 0 and "No memories, key or settings to delete" in again.stdout


def test_purge_refuses_while_a_host_runs(tmp_path):
    env = with_user_data(tmp_path)
    host = HostProcess(env=env)
    try:
        socket_of(host, env)
        result = run(env, "uninstall", "--purge", "--yes")
        assert result.returncode == 1 and f"host pid {host.proc.pid}" in result.stderr, result.stderr
        assert manifest(env).exists() and vault_path(tmp_path).exists()
    finally:
        host.close()


def test_yes_without_purge_is_a_usage_error(tmp_path):
    env = isolated_env(tmp_path)
    result = run(env, "uninstall", "--yes")
    assert result.returncode == 2 and "--yes goes with --purge" in result.stderr


def test_install_again_keeps_the_ids_an_earlier_install_allowed(tmp_path):
    env = isolated_env(tmp_path)
    first = run(env, "install", "--browser", "chromium", "--extension-id", EXTENSION_ID, "--extension-id", STORE_ID)
    assert first.returncode == 0, first.stderr
    both = sorted(f"chrome-extension://{i}/" for i in (EXTENSION_ID, STORE_ID))
    assert json.loads(manifest(env).read_text())["allowed_origins"] == both
    # What the popup tells a user with an old helper to run after upgrading.
    again = run(env, "install", "--browser", "chromium")
    assert again.returncode == 0, again.stderr
    assert json.loads(manifest(env).read_text())["allowed_origins"] == both
    launcher = Path(json.loads(manifest(env).read_text())["path"]).read_text()
    assert all(origin in launcher for origin in both)
    # Named ids are exactly what is allowed.
    assert run(env, "install", "--browser", "chromium", "--extension-id", EXTENSION_ID).returncode == 0
    assert json.loads(manifest(env).read_text())["allowed_origins"] == [f"chrome-extension://{EXTENSION_ID}/"]


def test_install_over_an_older_install_whose_python_is_gone(tmp_path):
    env = isolated_env(tmp_path, PYTHONIOENCODING="utf-8")
    assert run(env, "install", "--browser", "chromium").returncode == 0
    launcher = Path(json.loads(manifest(env).read_text())["path"])
    # As an earlier version left it: another layout, an interpreter in a venv since deleted.
    launcher.write_text("#!/bin/sh\n# Whiteboard native-messaging host launcher, written by the Whiteboard installer.\n"
                        "exec /old/venv/bin/python -m whiteboard.server.main \"$@\"\n")
    assert run(env, "doctor", "--browser", "chromium").returncode == 1
    again = run(env, "install", "--browser", "chromium")
    assert again.returncode == 0 and "updated" in again.stdout, again.stdout
    doctor = run(env, "doctor", "--browser", "chromium")
    assert doctor.returncode == 0 and "host answers ping through that path" in doctor.stdout, doctor.stdout


def test_the_data_folder_is_created_private(tmp_path):
    """Issue 28: the launcher's folder made the data folder 0755 though the docs say 0700."""
    env = isolated_env(tmp_path)
    assert run(env, "install", "--browser", "chromium").returncode == 0
    assert Path(env["XDG_DATA_HOME"], "whiteboard").stat().st_mode & 0o777 == 0o700


@pytest.mark.parametrize("variable", ["XDG_CONFIG_HOME", "XDG_DATA_HOME", "WHITEBOARD_DATA_DIR"])
@pytest.mark.parametrize("command", [("install", "--browser", "chromium"), ("doctor",)])
def test_a_relative_directory_variable_is_refused(tmp_path, variable, command):
    """Issue 28: a relative XDG_CONFIG_HOME wrote the manifest relative to the current folder
    while doctor said ✓. Nothing is written anywhere."""
    env = {**isolated_env(tmp_path), variable: "relative/dir"}
    work = tmp_path / "cwd"
    work.mkdir()
    result = subprocess.run([WHITEBOARD, *command], capture_output=True, text=True, env=env, cwd=work, timeout=120)
    assert result.returncode != 0
    assert f"{variable}='relative/dir' is a relative path" in result.stderr and "absolute" in result.stderr
    assert list(work.iterdir()) == []


def test_purge_finds_a_host_of_this_vault_without_a_control_socket(tmp_path):
    """Issue 28: purge looked for hosts by control socket only, so a host without one kept
    writing into the deleted vault."""
    env = with_user_data(tmp_path)
    host = HostProcess(env={**env, "WHITEBOARD_CONTROL_SOCKET": "0"})
    try:
        assert host.request("ping")["ok"]
        result = run(env, "uninstall", "--purge", "--yes")
        assert result.returncode == 1 and f"host pid {host.proc.pid}" in result.stderr, result.stderr
        assert vault_path(tmp_path).exists()
    finally:
        host.close()
    done = run(env, "uninstall", "--purge", "--yes")  # its host gone: the purge goes through
    assert done.returncode == 0, done.stderr
    assert not vault_path(tmp_path).exists()
    assert not Path(env["XDG_DATA_HOME"], "whiteboard", "hosts").exists()  # no stale lock left behind


def test_purge_is_not_blocked_by_a_host_of_another_vault(tmp_path):
    """Issue 28: another HOME's host (the same runtime folder, another data folder) blocked it."""
    env = with_user_data(tmp_path / "mine")
    # One short runtime folder for both: under a long tmp_path (pytest-xdist's) a socket path
    # would be over the 107 bytes a Unix socket takes, and the host would listen nowhere.
    shared = tempfile.mkdtemp(prefix="wb-run-")
    env["WHITEBOARD_RUNTIME_DIR"] = shared
    other = isolated_env(tmp_path / "other", WHITEBOARD_RUNTIME_DIR=shared)
    host = HostProcess(env=other)
    try:
        socket_of(host, other)
        result = run(env, "uninstall", "--purge", "--yes")
        assert result.returncode == 0, result.stderr
        assert not vault_path(tmp_path / "mine").exists()
    finally:
        host.close()
        shutil.rmtree(shared, ignore_errors=True)


def test_purge_refuses_while_a_desktop_apps_server_runs(tmp_path):
    """Audit: `whiteboard mcp` (a desktop app's server) kept the vault open and held no lock, so
    purge deleted the vault under it and the app went on serving and writing it."""
    env = with_user_data(tmp_path)
    server = subprocess.Popen([sys.executable, "-m", "whiteboard.mcp"], env=env, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        hosts = Path(env["XDG_DATA_HOME"], "whiteboard", "hosts")
        deadline = time.monotonic() + 20
        while not (hosts.is_dir() and any(hosts.iterdir())):
            assert server.poll() is None, server.stderr.read().decode()
            if time.monotonic() > deadline:
                break  # no lock: purge is asked anyway
            time.sleep(0.05)
        result = run(env, "uninstall", "--purge", "--yes")
        assert result.returncode == 1, result.stdout + result.stderr
        assert f"desktop apps' server pid {server.pid}" in result.stderr, result.stderr
        assert "quit the desktop apps" in result.stderr and "whiteboard mcp disable" in result.stderr
        assert manifest(env).exists() and vault_path(tmp_path).exists()
    finally:
        server.stdin.close()
        assert server.wait(30) == 0
    done = run(env, "uninstall", "--purge", "--yes")  # the app quit: the purge goes through
    assert done.returncode == 0, done.stderr
    assert not vault_path(tmp_path).exists()
    assert not Path(env["XDG_DATA_HOME"], "whiteboard", "hosts").exists()
