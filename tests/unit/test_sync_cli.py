"""`whiteboard sync` as a user runs it: two computers (separate HOMEs) sharing a folder,
each a process of its own, killed with SIGKILL in the middle of exchanges; the passphrase
from a file, never from the command line."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time

import pytest

from support.host import isolated_env, vault_path
from whiteboard.memory.store.sync_rows import LOCK_FILE

fcntl = pytest.importorskip("fcntl", reason="POSIX: flock, a pseudo-terminal, SIGKILL")
pty = pytest.importorskip("pty")
PASSPHRASE = "correct horse battery"


def whiteboard(env, *args, timeout=120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from whiteboard.cli import main; main()", *args], env=env,
                          input="", capture_output=True, text=True, timeout=timeout)


def started(env, *args) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", "from whiteboard.cli import main; main()", *args], env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def import_memories(env, tmp_path, name: str, texts: list[str]) -> None:
    doc = tmp_path / f"{name}.json"
    doc.write_text(json.dumps({"format": "whiteboard.memories", "version": 1,
                               "memories": [{"type": "context", "text": t} for t in texts]}))
    done = whiteboard(env, "memories", "import", str(doc))
    assert done.returncode == 0, done.stderr


def listed(env) -> list[tuple]:
    done = whiteboard(env, "memories", "list", "--json")
    assert done.returncode == 0, done.stderr
    return sorted((m["memory_id"], m["text"], m["type"], m["pinned"]) for m in json.loads(done.stdout))


@pytest.fixture
def setup(tmp_path):
    folder = tmp_path / "Sync"
    folder.mkdir()
    secret = tmp_path / "passphrase.txt"
    secret.write_text(PASSPHRASE + "\n")
    return folder, secret, isolated_env(tmp_path / "laptop"), isolated_env(tmp_path / "desktop")


def test_two_computers_converge_though_exchanges_are_killed_midway(setup, tmp_path):
    folder, secret, laptop, desktop = setup
    import_memories(laptop, tmp_path, "laptop", [f"Knows laptop fact {i}" for i in range(300)])
    import_memories(desktop, tmp_path, "desktop", [f"Knows desktop fact {i}" for i in range(5)] + ["Has two cats"])
    enabled = whiteboard(laptop, "sync", "enable", str(folder), "--passphrase-file", str(secret), "--name", "laptop")
    assert enabled.returncode == 0, enabled.stderr
    assert PASSPHRASE not in enabled.stdout + enabled.stderr
    import_memories(laptop, tmp_path, "more", [f"Knows later fact {i}" for i in range(700)] + ["Has two cats"])
    joining = started(desktop, "sync", "join", str(folder), "--passphrase-file", str(secret), "--name", "desktop")
    killed_midway = 0
    for delay in (0.0, 0.05, 0.2, 0.5):  # killed at several points of an exchange, on both sides
        exchange = started(laptop, "sync", "now")
        killed_midway += _exchanging(tmp_path / "laptop", exchange)
        time.sleep(delay)
        exchange.send_signal(signal.SIGKILL)
        exchange.wait()
        if joining.poll() is None:
            joining.send_signal(signal.SIGKILL)
            joining.wait()
    assert killed_midway  # at least one kill came while an exchange held its lock
    status = json.loads(whiteboard(desktop, "sync", "status", "--json").stdout or "null")
    if status is None:  # killed before the join was kept: join again
        joined = whiteboard(desktop, "sync", "join", str(folder), "--passphrase-file", str(secret), "--name",
                            "desktop")
        assert joined.returncode == 0, joined.stderr
    for env in (laptop, desktop, laptop, desktop):
        done = whiteboard(env, "sync", "now")
        assert done.returncode == 0, done.stderr
    on_laptop, on_desktop = listed(laptop), listed(desktop)
    assert on_laptop == on_desktop
    assert len(on_laptop) == 300 + 6 + 700  # the same fact on both computers is kept once
    shown = whiteboard(laptop, "sync", "status")
    assert "desktop: last change" in shown.stdout and "Skipped" not in shown.stdout, shown.stdout


def _exchanging(root, process: subprocess.Popen, timeout: float = 60) -> bool:
    """Wait until the process holds the exchange's lock file (it is exchanging); False if it ended first."""
    lock = vault_path(root).with_name(LOCK_FILE)
    deadline = time.monotonic() + timeout
    while process.poll() is None and time.monotonic() < deadline:
        if lock.exists():
            fd = os.open(lock, os.O_RDWR)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(fd, fcntl.LOCK_UN)
            except BlockingIOError:
                return True
            finally:
                os.close(fd)
        time.sleep(0.01)
    return False


def test_the_passphrase_never_comes_from_the_command_line_and_a_wrong_one_changes_nothing(setup, tmp_path):
    folder, secret, laptop, desktop = setup
    refused = whiteboard(laptop, "sync", "enable", str(folder))  # no terminal, no file
    assert refused.returncode == 1 and "no terminal" in refused.stderr
    assert list(folder.iterdir()) == []
    assert whiteboard(laptop, "sync", "enable", str(folder), "--passphrase", PASSPHRASE).returncode == 2
    assert whiteboard(laptop, "sync", "enable", str(folder), "--passphrase-file", str(secret)).returncode == 0
    import_memories(desktop, tmp_path, "desktop", ["Has two cats"])
    wrong = tmp_path / "wrong.txt"
    wrong.write_text("not the passphrase\n")
    before = listed(desktop)
    denied = whiteboard(desktop, "sync", "join", str(folder), "--passphrase-file", str(wrong))
    assert denied.returncode == 1 and "does not open" in denied.stderr and "nothing was changed" in denied.stderr
    assert "not the passphrase" not in denied.stderr
    assert listed(desktop) == before
    assert whiteboard(desktop, "sync", "status").stdout.strip() == "Sync is off."
    assert whiteboard(desktop, "sync", "now").returncode == 1


def _on_a_terminal(env, args: list[str], answers: list[str], timeout: float = 120) -> tuple[int, str]:
    """Run the CLI with a pseudo-terminal as its controlling terminal; answer each prompt."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: its stdin, stdout and /dev/tty are the terminal
        os.execve(sys.executable, [sys.executable, "-c", "from whiteboard.cli import main; main()", *args], env)
    seen, deadline, answered = b"", time.monotonic() + timeout, 0
    try:
        while time.monotonic() < deadline:
            # Answer a prompt once getpass shows it (click writes "Sync passphrase:", getpass turns
            # echo off, flushes what was typed ahead and writes " "), and only once.
            if answers and len(seen) > answered and seen.endswith(b": "):
                os.write(fd, answers.pop(0).encode() + b"\n")
                answered = len(seen)
            ready, _, _ = select.select([fd], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:  # the child closed the terminal
                    break
                if not chunk:
                    break
                seen += chunk
    finally:
        if time.monotonic() >= deadline:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    return os.waitstatus_to_exitcode(status), seen.decode(errors="replace")


def test_the_passphrase_is_asked_on_a_terminal_without_echo(setup):
    folder, _, laptop, _ = setup
    code, screen = _on_a_terminal(laptop, ["sync", "enable", str(folder), "--name", "laptop"], [PASSPHRASE, PASSPHRASE])
    assert code == 0, screen
    assert "Sync passphrase" in screen and "Sync is on" in screen
    assert PASSPHRASE not in screen  # not echoed
    assert (folder / "whiteboard-sync.key").exists()
