"""The bounded pool that runs blocking actions (disk, network, models) off the reader thread.

A fixed number of threads take jobs from a queue bounded both in jobs and in the bytes of
the requests waiting in it; when either bound is reached a request is refused at once
with `unavailable` (reason "busy") rather than queued: a burst can neither spawn a thread
per request nor hold unbounded RAM, and the reader thread (which answers ping) never waits.
"""

from __future__ import annotations

import collections
import logging
import threading
from collections.abc import Callable

from ..protocol.errors import Unavailable

log = logging.getLogger("whiteboard.pool")

THREADS = 8
QUEUE_JOBS = 256
QUEUE_BYTES = 64 * 1024 * 1024  # one request of the largest size Chrome sends still fits an empty queue


class Busy(Unavailable):
    def __init__(self, why: str):
        super().__init__(f"the host is busy ({why}); try again shortly")
        self.reason = "busy"


class WorkerPool:
    def __init__(self, threads: int = THREADS, queue_jobs: int = QUEUE_JOBS, queue_bytes: int = QUEUE_BYTES):
        self.threads, self.queue_jobs, self.queue_bytes = threads, queue_jobs, queue_bytes
        self._jobs: collections.deque[tuple[Callable[[], None], int]] = collections.deque()
        self._queued_bytes = 0
        self._ready = threading.Condition()
        self._workers: list[threading.Thread] = []
        self._idle = 0
        self._closed = False

    def submit(self, job: Callable[[], None], size: int = 0) -> None:
        """Queue job; Busy (and nothing queued) when the queue is full."""
        with self._ready:
            if len(self._jobs) >= self.queue_jobs:
                raise Busy(f"{self.queue_jobs} requests are waiting")
            if self._jobs and self._queued_bytes + size > self.queue_bytes:
                raise Busy(f"{self._queued_bytes} bytes of requests are waiting")
            self._jobs.append((job, size))
            self._queued_bytes += size
            if len(self._jobs) > self._idle and len(self._workers) < self.threads:  # on demand, bounded
                self._start_worker()
            self._ready.notify()

    def close(self) -> None:
        """No more jobs will come (the channel has ended): the workers end once the queue is empty."""
        with self._ready:
            self._closed = True
            self._ready.notify_all()

    def _start_worker(self) -> None:
        worker = threading.Thread(target=self._work, name=f"worker-{len(self._workers)}", daemon=True)
        try:
            worker.start()
        except RuntimeError:  # the OS refused a thread (a process limit): serve with those there are
            if not self._workers:
                self._jobs.pop()
                raise Busy("no thread could be started") from None
            return
        self._workers.append(worker)

    def _work(self) -> None:
        while True:
            with self._ready:
                self._idle += 1
                while not self._jobs and not self._closed:
                    self._ready.wait()
                self._idle -= 1
                if not self._jobs:
                    return
                job, size = self._jobs.popleft()
                self._queued_bytes -= size
            try:
                job()
            except BaseException as exc:  # noqa: BLE001 - jobs report their own errors; this one must not end the worker
                log.error("a pooled job raised %s", type(exc).__name__)
