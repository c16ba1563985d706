"""The reader thread never waits (design §3): a ping is answered within 100 ms while the host
imports, opens or wipes a large vault, takes in a multi-MiB vBRIEF document or sends with
thousands of pinned memories, and a send meanwhile is not held up by the vault's lock.

The real host over real pipes; a ping goes every 50 ms from its own thread and each one's
answer is timed. Sizes are the smallest that took well over a second on the reader thread
before it stopped doing such work."""

from __future__ import annotations

import json
import select
import statistics
import subprocess
import sys
import threading
import time

import pytest

from support.host import FramedPeer, HostProcess, key_path, ok, vault_path
from support.waiting import wait_for

PING_EVERY = 0.05
PING_BOUND = 0.1  # seconds from a ping's frame written to its answer read
PING_WORST = 1.0
SEND_BOUND = 1.0  # the extension gives up on a send after about 1 s and sends the draft unchanged
SITE = "chatgpt.com"


class Wire:
    """Requests from several threads over one host's pipes: one thread reads every frame and
    hands each reply to whoever waits for it, with the time it was read."""

    def __init__(self, host: HostProcess, start: bool = True):
        self.host = host
        self._write = threading.Lock()
        self._next = 0
        self._sent: dict[int, float] = {}
        self._got: dict[int, tuple[float, dict]] = {}
        self._arrived = threading.Condition()
        self._stop = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        if start:
            self._reader.start()

    def send(self, type_: str, **fields) -> int:
        with self._write:
            self._next += 1
            rid = self._next
            self._sent[rid] = time.monotonic()
            self.host.send({"id": rid, "type": type_, **fields})
        return rid

    def wait(self, rid: int, timeout: float = 120) -> tuple[float, dict]:
        """(seconds from written to read, the reply)."""
        with self._arrived:
            assert self._arrived.wait_for(lambda: rid in self._got, timeout), f"no reply to request {rid}"
            at, reply = self._got[rid]
        return at - self._sent[rid], reply

    def request(self, type_: str, timeout: float = 120, **fields) -> dict:
        return ok(self.wait(self.send(type_, **fields), timeout)[1])

    def _read(self) -> None:
        fd = self.host.proc.stdout.fileno()
        while not self._stop.is_set():
            if not select.select([fd], [], [], 0.2)[0]:
                continue
            try:
                reply = self.host.recv(timeout=60)  # a frame has begun: the whole of it
            except (EOFError, OSError, TimeoutError):
                return
            at = time.monotonic()
            if "id" in reply:
                with self._arrived:
                    self._got[reply["id"]] = (at, reply)
                    self._arrived.notify_all()

    def close(self) -> None:
        self._stop.set()
        self._reader.join()


ECHO = """
import os, struct
while True:
    head = os.read(0, 4)
    if len(head) < 4:
        break
    (n,) = struct.unpack("<I", head)
    body = b""
    while len(body) < n:
        body += os.read(0, n - len(body))
    os.write(1, head + body)
"""


class Echo(Wire):
    """A process that only echoes frames: pinged beside the host, it says how late the loaded
    machine itself answered at that moment."""

    def __init__(self):
        super().__init__(HostProcess.__new__(HostProcess), start=False)
        self.host.proc = subprocess.Popen([sys.executable, "-c", ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        FramedPeer.__init__(self.host, self.host.proc.stdin, self.host.proc.stdout.fileno())
        self._reader.start()

    def close(self) -> None:
        super().close()
        self.host.proc.stdin.close()
        self.host.proc.wait(5)


class Pings:
    """A ping every 50 ms from its own thread while the block runs, to the host and, at the
    same moment, to an echo process; then every answer's delay, the host's and the echo's."""

    def __init__(self, wire: Wire):
        self.wire, self.echo = wire, Echo()
        self.ids: list[tuple[int, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(PING_EVERY):
            self.ids.append((self.wire.send("ping"), self.echo.send("ping")))

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def delays(self) -> list[tuple[float, float]]:
        try:
            return [(self.wire.wait(rid)[0], self.echo.wait(echo)[0]) for rid, echo in self.ids]
        finally:
            self.echo.close()


def assert_pings_prompt(pings: Pings, during: str, at_least: int = 5) -> None:
    """Pings never queue behind the work. Each ping's delay is counted beyond the echo
    process's at the same moment (a loaded 2-core runner stalls every process at times). A
    ping queued behind work waits as long as the work: most pings over 100 ms, some over a
    second. A host that does no work on its reader still loses the CPU at times while
    another of its threads holds the GIL (measured on a runner shared by seven test
    suites: up to 6 in 60 pings over 100 ms, none over 0.45 s; in a full parallel run beside
    Chromium, 9 in 50, none over 0.56 s); so: at most one ping in four over 100 ms, every one
    within a second."""
    delays = pings.delays()
    assert len(delays) >= at_least, f"too few pings during {during} to say anything"
    beyond = sorted(max(0.0, host - echo) for host, echo in delays)
    slow = [round(d * 1000) for d in beyond if d > PING_BOUND]
    detail = (f"{len(slow)} of {len(delays)} pings over {PING_BOUND * 1000:.0f} ms beyond the echo's "
              f"(ms: {slow[-10:]}; the host's median {statistics.median(h for h, _ in delays) * 1000:.1f} ms)")
    assert len(slow) <= max(1, len(delays) // 4) and beyond[-1] <= PING_WORST, f"during {during}, {detail}"


def started(wire: Wire) -> None:
    wait_for(lambda: wire.request("ping")["tokenizer_ready"], timeout=30, what="the host to finish starting")


@pytest.fixture
def wire(host_env):
    with HostProcess(env=host_env) as host:
        w = Wire(host)
        started(w)
        yield w
        w.close()


def send_draft(wire: Wire, tab: int, draft: str = "How should I structure the build for this project?") -> int:
    return wire.send("chat.prepare_send", key=f"{SITE}:{tab}", site=SITE, draft=draft, conversation_new=False,
                     memories=True)


def sends_during(wire: Wire, busy_id: int, what: str, at_least: int = 5) -> list[dict]:
    """Sends every 200 ms on an opted-in site until request busy_id answers, pinging all
    along: each send is answered well within the extension's deadline and no ping waits."""
    replies = []
    with Pings(wire) as pings:
        tab = 0
        while True:
            tab += 1
            took, reply = wire.wait(send_draft(wire, tab))
            assert reply["ok"], reply
            assert took < SEND_BOUND, f"a send during {what} took {took:.2f} s"
            replies.append(reply)
            with wire._arrived:
                if wire._arrived.wait_for(lambda: busy_id in wire._got, 0.2):
                    break
    assert_pings_prompt(pings, what, at_least)
    return replies


def memories_document(n: int, pinned: bool = False) -> dict:
    words = ["typescript", "sqlite", "kyoto", "violin", "marathon", "rust", "gardening", "chess", "espresso", "linux"]
    memories = [{"type": "preference", "text": f"Fact {i}: prefers {words[i % 10]} and {words[(i // 10) % 10]} "
                                               f"over option {i // 100}", "created_at": 1_700_000_000 + i,
                 "pinned": pinned} for i in range(n)]
    return {"format": "whiteboard.memories", "version": 1, "memories": memories}


@pytest.mark.slow
def test_pings_and_sends_are_answered_through_an_import_and_sends_with_many_pins(wire):
    wire.request("site.settings", site=SITE, long_term=True)
    n = 20_000
    doc = memories_document(n, pinned=True)
    assert len(json.dumps(doc)) < 8 * 1024 * 1024  # within the host's default inbound cap
    importing = wire.send("memory.import", document=doc)
    time.sleep(0.3)  # the import has the vault's lock by now
    replies = sends_during(wire, importing, f"an import of {n} memories")
    assert ok(wire.wait(importing)[1])["added"] == n
    # A send the vault's lock would have held up goes without memories and says why.
    assert any("busy" in (r.get("memory_note") or "") and not r["injected"] for r in replies), \
        "no send overlapped the import"

    # Every one of the 20k memories is pinned: each send tries only a bounded few of them.
    with Pings(wire) as pings:
        took = []
        for tab in range(100, 120):
            t, reply = wire.wait(send_draft(wire, tab))
            assert ok(reply)["injected"] and reply["parts"][0]["kind"] == "memory"
            took.append(t)
            time.sleep(0.05)
    assert_pings_prompt(pings, f"sends with {n} pinned memories")
    # Loose: a loaded runner; counting all 20k took 0.3 s on an idle one (unit test: fit_pinned's bound).
    assert statistics.median(took) < 0.25, f"a send with {n} pinned memories took {statistics.median(took):.3f} s"


@pytest.mark.slow
def test_pings_and_sends_are_answered_while_a_large_vault_opens_at_start_and_is_wiped(host_env, tmp_path):
    from whiteboard.memory.model import Memory, new_memory_id
    from whiteboard.memory.store.vault import Vault
    from whiteboard.sites import SiteStore

    n = 40_000
    root = tmp_path / "env"
    vault = Vault.open(vault_path(root), key_path(root))
    for start in range(0, n, 5000):
        vault.insert([Memory(id=new_memory_id(), type="context", text=f"Memory number {i} about project {i % 97}",
                             created_at=1_700_000_000 + i, updated_at=1_700_000_000 + i)
                      for i in range(start, start + 5000)])
    vault.close()
    SiteStore(root / "config" / "whiteboard").update(SITE, long_term=True)
    with HostProcess(env=host_env) as host:
        wire = Wire(host)
        try:
            started(wire)  # the tokenizer first, then the vault opens on the same thread
            opening = wire.send("memory.status")  # answers once the vault is open
            replies = sends_during(wire, opening, f"opening a vault of {n} memories")
            assert ok(wire.wait(opening)[1])["memories"] == n
            assert any(r.get("memory_note") for r in replies), "no send overlapped the opening"
            wiping = wire.send("memory.wipe", confirm=True)
            sends_during(wire, wiping, f"a wipe of {n} memories", at_least=1)  # a wipe of 40k is quick
            assert ok(wire.wait(wiping)[1])["deleted"] == n
        finally:
            wire.close()


def vbrief_document(wire: Wire, observations: int, chars: int) -> dict:
    key = f"{SITE}:900"
    wire.request("session.add", key=key, role="user", content="seed", source="chat")
    doc = wire.request("vbrief.export", key=key)["document"]
    snap = doc["sessionSnapshot"]
    base = snap["observations"][0]
    text = ("The long design note explains every module in detail, with the reasons for each. " * chars)[:chars]
    snap["observations"] = [{**base, "id": f"obs-{i}", "input": f"{i} {text}"} for i in range(observations)]
    snap["sessionInfo"]["totalObservations"] = observations
    doc["vBRIEFInfo"].pop("sessionInfo", None)
    return doc


def test_pings_are_answered_while_a_large_vbrief_document_is_imported(wire):
    doc = vbrief_document(wire, 1000, 6000)
    assert len(json.dumps(doc)) > 6 * 1024 * 1024
    with Pings(wire) as pings:
        time.sleep(0.2)
        took, reply = wire.wait(wire.send("vbrief.import", key=f"{SITE}:901", document=doc))
        time.sleep(0.2)
    assert ok(reply)["count"] == 50
    assert_pings_prompt(pings, "a vBRIEF import of 6 MiB")
