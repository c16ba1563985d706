"""When extraction runs: after DELAY seconds without a new message in a conversation.

Every captured message restarts its conversation's timer (note). A worker thread runs
what is due; `run_pending` does the same on demand, so a test can drive the window with
a fake clock at the real 30 s default without waiting.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Callable

log = logging.getLogger("whiteboard.memory.extract.schedule")
DEFAULT_DELAY = 30.0
ENV_DELAY = "WHITEBOARD_MEMORY_EXTRACT_DELAY"


def delay_from_env() -> float:
    raw = os.environ.get(ENV_DELAY)
    try:
        value = float(raw) if raw else DEFAULT_DELAY
    except ValueError:
        value = -1
    if not 0 < value <= 24 * 3600:
        log.warning("%s must be seconds between 0 and 86400; using %g", ENV_DELAY, DEFAULT_DELAY)
        return DEFAULT_DELAY
    return value


class ExtractionScheduler:
    def __init__(self, run: Callable[[str], None], delay: float = DEFAULT_DELAY,
                 clock: Callable[[], float] = time.monotonic, stop: threading.Event | None = None,
                 worker: bool = True):
        """worker=False: no thread; the caller drives run_pending (with a fake clock, say)."""
        self._run = run
        self.delay = delay
        self._clock = clock
        self._stop = stop or threading.Event()
        self._last: dict[str, float] = {}
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._worker = worker

    def note(self, key: str) -> None:
        """A message arrived in this conversation: (re)start its quiet-time timer."""
        with self._cond:
            self._last[key] = self._clock()
            if self._worker and (self._thread is None or not self._thread.is_alive()):
                self._thread = threading.Thread(target=self._loop, name="memory-extract", daemon=True)
                self._thread.start()
            self._cond.notify()

    def forget(self, key: str) -> None:
        with self._cond:
            self._last.pop(key, None)

    def pending(self) -> dict[str, float]:
        """Seconds left per waiting conversation."""
        now = self._clock()
        with self._cond:
            return {k: max(0.0, t + self.delay - now) for k, t in self._last.items()}

    def run_pending(self) -> list[str]:
        """Run extraction for every conversation quiet for at least `delay`; returns their keys."""
        now = self._clock()
        with self._cond:
            due = [k for k, t in self._last.items() if now - t >= self.delay]
            for k in due:
                del self._last[k]
        for key in due:
            try:
                self._run(key)
            except Exception as exc:  # noqa: BLE001 - one conversation's failure must not stop the others
                log.warning("memory extraction failed (%s)", type(exc).__name__)
        return due

    def stop(self) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify()

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.run_pending()
            with self._cond:
                if self._stop.is_set():
                    return
                waits = [t + self.delay - self._clock() for t in self._last.values()]
                self._cond.wait(timeout=max(0.01, min(waits)) if waits else None)
