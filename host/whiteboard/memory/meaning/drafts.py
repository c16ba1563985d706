"""Drafts' meanings made while the user types (design §14, the one case where the host
hears of a draft before the user acts): when typing pauses, a tab on a site with long-term
memory on sends its composer's text (chat.draft); it is embedded here, off the send path,
so that at Enter recall finds the vector ready instead of embedding within 30 ms on a
machine that may be busy.

RAM only, per tab (the session key), keyed by the draft's exact text as recall reads it
(privacy-filtered, Whiteboard blocks stripped). Per tab: one vector kept and the latest
draft waiting, nothing more. A vector goes after its send, after IDLE_SECONDS unused, when
the tab's session is cleared (the tab closed or left the site) and when the vault closes.
Bounds the host keeps whatever the extension does: only a draft's first KEPT_CHARS
characters (what is embedded), at most MAX_PENDING tabs waiting (more
are refused as busy), MAX_TABS vectors kept (the least recently used dropped), and one
thread that embeds for at most CPU_SHARE of one core (it measures its own CPU time and
rests in proportion), so a page typing without end costs a bounded share of a core.

The same class, with its own thread, holds each tab's draft rewritten by the configured model
(rewrite.py: the value is the phrases and their vector instead of the draft's vector), under
the same bounds and for as long.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable

import numpy as np

IDLE_SECONDS = 60.0
MAX_TABS = 32  # tabs with a vector kept
MAX_PENDING = 8  # tabs with a draft waiting to be embedded, in all
CPU_SHARE = 0.25  # of one core, at most, for embedding drafts ahead of Enter
# A draft edited after its vector was made: that vector stands in for the new text's when
# this one is not embedded within the send's deadline and the edit is small (one changed
# stretch of at most SMALL_EDIT_CHARS characters and SMALL_EDIT_SHARE of the draft). Chosen
# on the paraphrase sets: better than full text alone, worse than the exact vector
# (tests/bench/bench_draft.py; docs/benchmarks.md has the figures).
SMALL_EDIT_CHARS = 12
SMALL_EDIT_SHARE = 0.25
# A draft that arrives within this long after its tab's send is an earlier one overtaken by
# the send (chat.draft runs on the worker pool, the send may be answered first): not kept.
SENT_GRACE_SECONDS = 2.0
# What is kept of a draft, waiting or with its vector: the start the model embeds (the
# bundled model reads a query's first 300 characters, embedder.MAX_QUERY_CHARS), never the
# whole text (up to 2 M characters a tab). All drafts held are bounded by MAX_TABS +
# MAX_PENDING of these and a vector each.
KEPT_CHARS = 300


@dataclass
class _Vector:
    text: str
    model_id: str
    vector: np.ndarray  # or what `embed` made instead (a rewrite.Rewrite)
    used: float  # monotonic time of the offer or lookup that last touched it


@dataclass(frozen=True)
class Lookup:
    vector: np.ndarray | None = None  # ready: this text's vector, or a small edit's
    reused: bool = False  # the vector is an earlier version's of this draft (a small edit)
    running: threading.Event | None = None  # this very text is being embedded now: set when done


def changed_chars(old: str, new: str) -> int:
    """The length of the one stretch that differs between the two texts (the longer side
    of it), after their common start and end: linear time."""
    shortest = min(len(old), len(new))
    start = 0
    while start < shortest and old[start] == new[start]:
        start += 1
    end = 0
    while end < shortest - start and old[-1 - end] == new[-1 - end]:
        end += 1
    return max(len(old), len(new)) - start - end


def small_edit(old: str, new: str) -> bool:
    changed = changed_chars(old, new)
    return changed <= SMALL_EDIT_CHARS and changed <= SMALL_EDIT_SHARE * len(new)


class DraftVectors:
    """`embed(text) -> (model id, vector as recall compares it)` runs on this object's own
    thread (named `name`), started on the first offer; it may raise: nothing is kept then."""

    def __init__(self, embed: Callable[[str], tuple[str, object]], clock: Callable[[], float] = time.monotonic,
                 name: str = "draft-embed"):
        self._embed = embed
        self._clock = clock
        self._name = name
        self._lock = threading.Condition()
        self._ready: OrderedDict[str, _Vector] = OrderedDict()  # key -> vector, least recently used first
        self._pending: OrderedDict[str, str] = OrderedDict()  # key -> latest draft, oldest offer first
        self._running: tuple[str, str, threading.Event] | None = None  # (key, text, done)
        self._running_dropped = False  # its tab sent or closed meanwhile: its vector is not kept
        self._sent_at: dict[str, float] = {}  # key -> when its tab last sent or closed (within SENT_GRACE_SECONDS)
        self._rest_until = 0.0
        self._thread: threading.Thread | None = None
        self.cpu_seconds = 0.0  # spent embedding drafts, for the bench and the cap's test

    # ---- from the actions -----------------------------------------------------------

    def offer(self, key: str, text: str, model_id: str) -> str:
        """The tab's latest draft: "ready" (its vector is here), "queued", "busy" (too many
        tabs waiting; nothing kept) or "sent" (the tab sent a moment ago: an earlier draft
        arriving late, or the tab's session was cleared a moment ago; nothing kept). A newer
        draft replaces the tab's waiting one."""
        text = text[:KEPT_CHARS]
        with self._lock:
            now = self._clock()
            self._expire(now)
            if now < self._sent_at.get(key, -1.0) + SENT_GRACE_SECONDS:
                return "sent"
            held = self._ready.get(key)
            if held is not None and held.text == text and held.model_id == model_id:
                held.used = now
                self._ready.move_to_end(key)
                return "ready"
            running = self._running
            if running is not None and running[0] == key and running[1] == text:
                self._pending.pop(key, None)
                return "queued"
            if key not in self._pending and len(self._pending) >= MAX_PENDING:
                return "busy"
            self._pending[key] = text
            self._pending.move_to_end(key)
            self._start()
            self._lock.notify_all()
            return "queued"

    def lookup(self, key: str, text: str, model_id: str) -> Lookup:
        """What the send path may use for this tab's draft, at once (a dict look-up and, for
        an edited draft, one linear comparison)."""
        text = text[:KEPT_CHARS]
        with self._lock:
            now = self._clock()
            held = self._ready.get(key)
            if held is not None and now - held.used > IDLE_SECONDS:
                del self._ready[key]
                held = None
            running = self._running
            if held is not None and held.model_id == model_id:
                if held.text == text:
                    held.used = now
                    return Lookup(held.vector)
            if running is not None and running[0] == key and running[1] == text:
                return Lookup(running=running[2])
            if held is not None and held.model_id == model_id and small_edit(held.text, text):
                held.used = now
                return Lookup(held.vector, reused=True)
            return Lookup()

    def drop(self, key: str) -> None:
        """The tab sent, closed or left its site: forget its draft and vector at once
        (one being embedded now is not kept, nor one arriving just after: a chat.draft still
        on the worker pool when the send or session.clear was answered)."""
        with self._lock:
            self._expire(self._clock())  # keeps _sent_at to the last SENT_GRACE_SECONDS
            self._sent_at[key] = self._clock()
            self._ready.pop(key, None)
            self._pending.pop(key, None)
            if self._running is not None and self._running[0] == key:
                self._running_dropped = True

    def clear(self) -> None:
        with self._lock:
            self._ready.clear()
            self._pending.clear()
            self._running_dropped = self._running is not None

    def counts(self) -> tuple[int, int]:
        """(vectors kept, drafts waiting): for tests and the bench (no content)."""
        with self._lock:
            return len(self._ready), len(self._pending)

    # ---- the embedding thread -------------------------------------------------------

    def _start(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._loop, name=self._name, daemon=True)
            self._thread.start()

    def _expire(self, now: float) -> None:
        for key in [k for k, v in self._ready.items() if now - v.used > IDLE_SECONDS]:
            del self._ready[key]
        if self._sent_at:
            self._sent_at = {k: t for k, t in self._sent_at.items() if now < t + SENT_GRACE_SECONDS}

    def _next(self) -> tuple[str, str, threading.Event] | None:
        """The oldest waiting draft once the rest is over; None to stop (nothing left to
        do or expire). Waits meanwhile."""
        with self._lock:
            while True:
                now = self._clock()
                self._expire(now)
                if self._pending and time.monotonic() >= self._rest_until:
                    key, text = self._pending.popitem(last=False)
                    self._running, self._running_dropped = (key, text, threading.Event()), False
                    return self._running
                if not self._pending and not self._ready:
                    self._thread = None
                    return None
                if self._pending:
                    wait = self._rest_until - time.monotonic()
                else:
                    wait = min(v.used for v in self._ready.values()) + IDLE_SECONDS - now + 0.01
                self._lock.wait(max(0.01, wait))

    def _loop(self) -> None:
        while True:
            job = self._next()
            if job is None:
                return
            key, text, done = job
            started = time.thread_time()
            try:
                model_id, vector = self._embed(text)
            except Exception:  # noqa: BLE001 - no vector: the send embeds it (or uses full text) as before
                model_id, vector = None, None
            spent = time.thread_time() - started
            with self._lock:
                self.cpu_seconds += spent
                # Rest so that embedding drafts takes at most CPU_SHARE of a core.
                self._rest_until = time.monotonic() + spent * (1 / CPU_SHARE - 1)
                kept = not self._running_dropped  # not dropped (sent, tab closed) meanwhile
                self._running = None
                if vector is not None and kept:
                    self._ready[key] = _Vector(text, model_id, vector, self._clock())
                    self._ready.move_to_end(key)
                    while len(self._ready) > MAX_TABS:
                        self._ready.popitem(last=False)
                done.set()
