"""Blocking work runs on a bounded pool: a burst gets `busy` at once, never a thread per request."""

import json
import struct
import threading
import time
from pathlib import Path

import pytest

from support.fake_openai import fake_openai, hang  # noqa: F401
from whiteboard.server.pool import QUEUE_JOBS, THREADS

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
    assert watch.peak <= THREADS + OTHER_THREADS, f"{watch.peak} threads"
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
