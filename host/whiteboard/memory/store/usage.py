"""Usage count and last use, recorded off the send path (design §5).

A send only queues the ids (hub.count_use); a worker thread writes them to the vault (a
commit with fsync) and updates the in-RAM copies, so a send never waits on disk.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from typing import Callable

log = logging.getLogger("whiteboard.memory.store.usage")


class UsageRecorder:
    def __init__(self, write: Callable[[list[str], float], None], clock: Callable[[], float] = time.time):
        self._write = write
        self._clock = clock
        self._queue: queue.Queue[tuple[list[str], float] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def record(self, memory_ids: list[str]) -> None:
        if not memory_ids:
            return
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="memory-usage", daemon=True)
                self._thread.start()
        self._queue.put((list(memory_ids), self._clock()))

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until everything queued so far is written (tests, CLI, shutdown)."""
        done = threading.Event()
        self._queue.put(done)  # type: ignore[arg-type]
        with self._lock:
            alive = self._thread is not None and self._thread.is_alive()
        return done.wait(timeout) if alive else True

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if isinstance(item, threading.Event):
                item.set()
                continue
            ids, when = item
            try:
                self._write(ids, when)
            except Exception as exc:  # noqa: BLE001 - a lost usage tick must not stop the worker
                log.warning("could not record memory usage (%s)", type(exc).__name__)
