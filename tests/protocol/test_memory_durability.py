"""The vault through the real host: kill -9 in the middle of writes loses nothing that was
acknowledged, an import killed at any point stores all of it or none, usage counted just
before the browser closes the port is written at exit, and no file anywhere holds a
memory's text."""

import json
import os
import random
import re
import select
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from support.host import HostProcess, files_under, isolated_env, key_path, vault_path
from whiteboard.memory.store.vault import Vault
from whiteboard.server.pool import QUEUE_JOBS

MARKERS = ["PANGOLIN-MEMORY-4242", "walrus-preference-plan", "記憶マーカー", "tag-marker-5150", "edited-marker-99"]


def test_kill_9_during_writes_loses_nothing_acknowledged(tmp_path):
    env = isolated_env(tmp_path)
    host = HostProcess(env=env)
    total = 200  # pipelined at once, within the worker pool's queue, so none is answered busy
    assert total < QUEUE_JOBS
    for i in range(total):
        host.send({"id": i, "type": "memory.add", "text": f"Durable fact {i} about gliders",
                   "memory_type": "context"})
    acknowledged = {}
    while len(acknowledged) < 60:
        reply = host.recv(timeout=30)
        assert reply["ok"], reply
        acknowledged[reply["id"]] = reply["memory_id"]
    os.kill(host.proc.pid, signal.SIGKILL)
    host.proc.wait(10)
    assert host.proc.returncode == -signal.SIGKILL
    db = tmp_path / "data" / "whiteboard" / "memories.db"
    check = sqlite3.connect(db)
    assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    check.close()
    with HostProcess(env=env) as again:
        kept, offset = {}, 0
        while True:
            page = again.request("memory.list", offset=offset, limit=200)
            assert page["ok"] and page["damaged"] == []
            kept.update({m["memory_id"]: m["text"] for m in page["memories"]})
            offset += 200
            if offset >= page["total"]:
                break
    for request_id, memory_id in acknowledged.items():
        assert kept.get(memory_id) == f"Durable fact {request_id} about gliders"
    assert len(acknowledged) <= len(kept) < total  # more: committed, reply not read yet; fewer than all: killed mid-way


def _import(env, document, kill_at: float | None = None) -> tuple[int, str]:
    """Run `whiteboard memories import`; with kill_at, SIGKILL it as soon as its progress bar
    shows that fraction of the entries done (1.0: the bar is full, the import commits).
    Returns its exit status and what it printed."""
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from whiteboard.cli import main; sys.exit(main())",
                             "memories", "import", str(document)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    total = len(json.loads(document.read_text())["memories"])
    err, deadline = b"", time.monotonic() + 120
    while kill_at is not None and time.monotonic() < deadline:
        if select.select([proc.stderr], [], [], 0.5)[0]:
            chunk = os.read(proc.stderr.fileno(), 65536)
            err += chunk
            done = [int(n) for n in re.findall(rb"(\d+)/%d " % total, err)]
            if done and done[-1] >= kill_at * total:
                proc.send_signal(signal.SIGKILL)
                break
            if not chunk:
                break
    out, rest = proc.communicate(timeout=120)
    return proc.returncode, (out + err + rest).decode(errors="replace")


def _count(root) -> int:
    vault = Vault.open(vault_path(root), key_path(root))
    try:
        assert vault._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return vault.count()
    finally:
        vault.close()


@pytest.mark.slow  # five CLI processes importing 20,000 memories each
def test_kill_9_at_any_point_of_an_import_stores_all_of_it_or_none(tmp_path):
    total = 20_000
    document = tmp_path / "export.json"
    document.write_text(json.dumps({"format": "whiteboard.memories", "version": 1, "memories": [
        {"type": "context", "text": f"Visited city number {i} on the long trip"} for i in range(total)]}))
    rng = random.Random(20)

    def fresh(trial):
        root = tmp_path / str(trial)
        env = isolated_env(root)
        with HostProcess(env=env) as host:
            assert host.request("memory.add", text="Prefers tea", memory_type="preference")["ok"]
        return root, env

    root, env = fresh("whole")
    status, printed = _import(env, document)
    assert status == 0 and f"{total} added" in printed and _count(root) == 1 + total
    # Seeded points along the progress bar (it moves every 0.1 s), then the full bar: the commit.
    points = [rng.uniform(0.05, 0.6) for _ in range(3)] + [1.0]
    outcomes = []
    for trial, kill_at in enumerate(points):
        root, env = fresh(trial)
        status, printed = _import(env, document, kill_at)
        count = _count(root)
        assert count in (1, 1 + total), (trial, kill_at, count, status, printed[-300:])
        outcomes.append((status, count))
    assert (-signal.SIGKILL, 1) in outcomes[:3], outcomes  # at least one kill landed mid-import


def test_no_file_holds_memory_text(tmp_path):
    env = isolated_env(tmp_path)
    with HostProcess(env=env) as host:
        assert host.request("site.settings", site="claude.ai", long_term=True)["ok"]
        first = host.request("memory.add", text=f"Prefers {MARKERS[0]}", memory_type="preference",
                             tags=[MARKERS[3]])
        host.request("memory.add", text=f"{MARKERS[2]} を覚えている", memory_type="context")
        host.request("memory.update", memory_id=first["memory_id"], text=f"Prefers {MARKERS[4]} instead")
        host.request("session.add", key="claude.ai:1", role="user", content=f"I prefer the {MARKERS[1]}.")
        extracted = host.request("memory.extract", key="claude.ai:1", manual=True)
        assert extracted["ok"] and extracted["added"] == 1
        assert host.request("memory.recall", query=MARKERS[1])["memories"]
        exported = host.request("memory.export")
        assert all(m in json.dumps(exported, ensure_ascii=False) for m in MARKERS)
        host.send({"id": "bad", "type": "memory.add", "text": MARKERS[0], "memory_type": "nonsense"})
        assert host.recv()["ok"] is False
        time.sleep(0.2)
        # Also while the host runs, with the WAL in place.
        scanned = [p for p in files_under(tmp_path)]
        assert any(p.name == "memories.db-wal" for p in scanned)
        for path in scanned:
            data = open(path, "rb").read()
            for marker in MARKERS:
                assert marker.encode() not in data, f"{path} holds {marker}"
    for path in files_under(tmp_path):
        data = open(path, "rb").read()
        for marker in MARKERS:
            assert marker.encode() not in data, f"{path} holds {marker}"
    for marker in MARKERS:
        assert marker not in host.stderr_text


def test_usage_queued_when_the_browser_closes_the_port_is_written(tmp_path):
    env = isolated_env(tmp_path)
    host = HostProcess(env=env)
    assert host.request("site.settings", site="chatgpt.com", long_term=True)["ok"]
    memory_id = host.request("memory.add", text="Prefers TypeScript for all projects",
                             memory_type="preference")["memory_id"]
    # The send and the end of input arrive together: the host exits right after replying.
    host.send({"id": "send", "type": "chat.prepare_send", "key": "chatgpt.com:7", "site": "chatgpt.com",
               "draft": "Help me set up a new frontend project, TypeScript or not?"})
    assert host.close() == 0
    with HostProcess(env=env) as again:
        assert again.request("memory.get", memory_id=memory_id)["memory"]["usage_count"] == 1
