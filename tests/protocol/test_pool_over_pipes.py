"""Blocking work runs on a bounded pool: a burst gets `busy` at once, never a thread per request."""

import json
import os
import resource
import site
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import whiteboard
from support.fake_openai import hang
from support.host import HostProcess, isolated_env
from whiteboard.server.pool import QUEUE_JOBS, TAB_THREADS, THREADS

# Reader, main, stack loader, cleanup timer, control socket, memory's own background threads:
# a generous allowance beyond the pool, far below a thread per request.
OTHER_THREADS = 16


def thread_count(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    raise AssertionError("no Threads line")


class ThreadWatch(threading.Thread):
    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.peak, self.stop = pid, 0, threading.Event()

    def run(self):
        while not self.stop.is_set():
            try:
                self.peak = max(self.peak, thread_count(self.pid))
            except (OSError, AssertionError):
                return
            time.sleep(0.005)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
@pytest.mark.parametrize("count", [10_000])
def test_pipelined_blocking_requests_stay_within_the_pool(host, count):
    assert host.request("ping")["ok"]
    watch = ThreadWatch(host.proc.pid)
    watch.start()
    bodies = (json.dumps({"id": i, "type": "memory.add", "text": f"fact number {i} about the build",
                          "memory_type": "context"}).encode() for i in range(count))
    payload = b"".join(struct.pack("<I", len(b)) + b for b in bodies)
    writer = threading.Thread(target=lambda: (host.proc.stdin.write(payload), host.proc.stdin.flush()))
    writer.start()
    replies = {}
    while len(replies) < count:
        reply = host.recv(timeout=120)
        assert reply["id"] not in replies, "two replies to one request"
        replies[reply["id"]] = reply
    writer.join()
    watch.stop.set()
    watch.join()
    assert set(replies) == set(range(count))
    busy = [r for r in replies.values() if not r["ok"]]
    assert all(r["error"] == {"code": "unavailable", "reason": "busy", "message": r["error"]["message"]}
               for r in busy)
    assert count - len(busy) >= QUEUE_JOBS  # at least a queue's worth was served
    assert watch.peak <= THREADS + TAB_THREADS + 1 + OTHER_THREADS, f"{watch.peak} threads"  # 1: the intake
    assert host.request("ping")["ok"]
    assert host.request("memory.add", text="still serving", memory_type="context")["ok"]


def test_ping_is_answered_at_once_while_every_worker_waits_on_a_hanging_model(host, fake_openai):
    assert host.request("llm.settings.set", base_url=fake_openai.base_url, model="fake-model",
                        read_timeout=60, total_timeout=120)["ok"]
    fake_openai.script(*[hang(60)] * (THREADS + QUEUE_JOBS + 20))
    count = THREADS + QUEUE_JOBS + 5
    payload = b"".join(struct.pack("<I", len(b)) + b for b in (
        json.dumps({"id": f"t{i}", "type": "llm.test"}).encode() for i in range(count)))
    host.proc.stdin.write(payload)
    host.send({"id": "p", "type": "ping"})
    start = time.monotonic()
    busy = []
    while True:
        reply = host.recv(timeout=10)
        if reply["id"] == "p":
            break
        assert reply["error"]["reason"] == "busy"
        busy.append(reply["id"])
    assert reply["ok"] and time.monotonic() - start < 5
    assert 5 <= len(busy) <= THREADS + 5  # the requests past the pool's bound, refused at once
    assert thread_count(host.proc.pid) <= THREADS + OTHER_THREADS


NOBODY = 65534


def as_nobody_with_a_process_limit(limit: int):
    def drop():
        resource.setrlimit(resource.RLIMIT_NPROC, (limit, limit))
        os.setgid(NOBODY)
        os.setuid(NOBODY)  # the limit binds only a non-root user
    return drop


def runs_as_nobody(python: str, env: dict, limit: int) -> bool:
    try:
        subprocess.run([python, "-c", "import whiteboard.server.main"], env=env, check=True, capture_output=True,
                       preexec_fn=as_nobody_with_a_process_limit(limit), timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return True


def user_tasks(uid: int) -> int:
    count = 0
    for task in Path("/proc").glob("[0-9]*/task/[0-9]*"):
        try:
            count += task.stat().st_uid == uid
        except OSError:
            pass
    return count


@pytest.mark.skipif(not hasattr(os, "setuid") or os.getuid() != 0 or not Path("/proc").exists(),
                    reason="needs root (to become another user) and /proc")
def test_a_burst_under_a_process_limit_does_not_crash_the_host(tmp_path):
    limit = 150
    if user_tasks(NOBODY) > limit // 3:
        pytest.skip("the nobody user already runs too many tasks here")
    root = tmp_path / "env"
    env = isolated_env(root)
    for path in [tmp_path, *root.rglob("*"), root]:
        os.chown(path, NOBODY, NOBODY)
    # This Python may sit where another user cannot reach it (a venv over /root/.pyenv): then the
    # system's Python of the same version runs the same code, found through PYTHONPATH.
    env["PYTHONPATH"] = os.pathsep.join([str(Path(whiteboard.__file__).parents[1]), *site.getsitepackages()])
    python = next((p for p in (sys.executable, f"/usr/bin/python3.{sys.version_info.minor}")
                   if runs_as_nobody(p, env, limit)), None)
    if python is None:
        pytest.skip("another user cannot run a Python that imports the package here")
    with HostProcess(env, python=python, preexec_fn=as_nobody_with_a_process_limit(limit)) as host:
        assert host.request("ping")["ok"]
        count = 1000
        payload = b"".join(struct.pack("<I", len(b)) + b for b in (
            json.dumps({"id": i, "type": "vbrief.export", "key": f"claude.ai:{i}"}).encode() for i in range(count)))
        writer = threading.Thread(target=lambda: (host.proc.stdin.write(payload), host.proc.stdin.flush()))
        writer.start()
        replies = [host.recv(timeout=60) for _ in range(count)]
        writer.join()
        assert sorted(r["id"] for r in replies) == list(range(count))
        assert {r["error"]["code"] for r in replies} <= {"not_found", "unavailable"}
        assert host.request("ping")["ok"]
        assert host.request("session.add", key="claude.ai:1", role="user", content="still here")["ok"]
