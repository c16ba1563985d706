"""The host applies what other computers wrote to the sync folder by itself, in the
background, and memory.status tells the popup that memories arrived (issue 33): a real
host process on one "computer", the CLI on another, separate HOMEs, one folder."""

from __future__ import annotations

import json
import subprocess
import sys
import time

from support.host import HostProcess, isolated_env, ok

PASSPHRASE = "correct horse battery"


def whiteboard(env, *args) -> None:
    done = subprocess.run([sys.executable, "-c", "from whiteboard.cli import main; main()", *args], env=env,
                          input="", capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_a_running_host_takes_in_memories_from_another_computer_and_says_so(tmp_path):
    folder = tmp_path / "Sync"
    folder.mkdir()
    secret = tmp_path / "passphrase.txt"
    secret.write_text(PASSPHRASE + "\n")
    laptop = isolated_env(tmp_path / "laptop")
    desktop = isolated_env(tmp_path / "desktop", WHITEBOARD_SYNC_SECONDS="0.5")
    whiteboard(laptop, "sync", "enable", str(folder), "--passphrase-file", str(secret), "--name", "laptop")
    whiteboard(desktop, "sync", "join", str(folder), "--passphrase-file", str(secret), "--name", "desktop")
    with HostProcess(env=desktop) as host:
        ok(host.request("memory.add", text="Works as a nurse", memory_type="context"))
        assert ok(host.request("memory.status")).get("synced") is None
        whiteboard(laptop, "memories", "import", str(_doc(tmp_path)))
        whiteboard(laptop, "sync", "now")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            listed = ok(host.request("memory.list"))["memories"]
            if len(listed) == 3:
                break
            time.sleep(0.3)
        assert sorted(m["text"] for m in listed) == ["Has two cats", "Prefers green tea", "Works as a nurse"]
        synced = ok(host.request("memory.status"))["synced"]
        assert synced["arrived"] == 2 and synced["computers"] == ["laptop"]
        assert ok(host.request("ping"))  # the host serves on meanwhile
    # and the host's own memory went the other way
    deadline = time.monotonic() + 30
    while True:
        whiteboard(laptop, "sync", "now")
        done = subprocess.run([sys.executable, "-c", "from whiteboard.cli import main; main()", "memories", "list"],
                              env=laptop, input="", capture_output=True, text=True, timeout=120)
        if "Works as a nurse" in done.stdout or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert "Works as a nurse" in done.stdout


def _doc(tmp_path):
    path = tmp_path / "memories.json"
    path.write_text(json.dumps({"format": "whiteboard.memories", "version": 1, "memories": [
        {"type": "context", "text": "Has two cats"}, {"type": "preference", "text": "Prefers green tea"}]}))
    return path
