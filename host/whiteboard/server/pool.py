"""The bounded pools that run requests off the reader thread (design §3).

A fixed number of threads take jobs from a queue bounded both in jobs and in the bytes of
the requests waiting in it; when either bound is reached a request is refused at once
with `unavailable` (reason "busy") rather than queued: a burst can neither spawn a thread
per request nor hold unbounded RAM, and the reader thread (which answers ping) never waits.

A job may carry a key (a tab's session key): jobs with the same key run one at a time, in
the order they were submitted; jobs with other keys, or none, run beside them.
"""

from __future__ import annotations

import collections
import logging
import threading
from collections.abc import Callable, Hashable

from ..protocol.errors import Unavailable

log = logging.getLogger("whiteboard.pool")

THREADS = 8  # blocking work: disk, network, models
TAB_THREADS = 4  # a tab's ordered requests (sends, captures, its session): quick, or bounded by their size
QUEUE_JOBS = 256
QUEUE_BYTES = 64 * 1024 * 1024  # one request of the largest size Chrome sends still fits an empty queue

Job = tuple[Callable[[], None], int, Hashable]


class Busy(Unavailable):
    def __init__(self, why: str):
        super().__init__(f"the host is busy ({why}); try again shortly")
        self.reason = "busy"


class WorkerPool:
    def __init__(self, threads: int = THREADS, queue_jobs: int = QUEUE_JOBS, queue_bytes: int = QUEUE_BYTES,
                 name: str = "worker"):
        self.threads, self.queue_jobs, self.queue_bytes, self.name = threads, queue_jobs, queue_bytes, name
        self._runnable: collections.deque[Job] = collections.deque()  # no earlier job of its key is left
        self._waiting: dict[Hashable, collections.deque[Job]] = {}  # key -> its jobs behind the one out
        self._queued = self._queued_bytes = 0
        self._ready = threading.Condition()
        self._workers: list[threading.Thread] = []
        self._idle = 0
        self._running = 0
        self._closed = False

    def submit(self, job: Callable[[], None], size: int = 0, key: Hashable = None) -> None:
        """Queue job (after the earlier ones with its key, if it has one); Busy, and nothing
        queued, when the queue is full."""
        with self._ready:
            if self._queued >= self.queue_jobs:
                raise Busy(f"{self.queue_jobs} requests are waiting")
            if self._queued and self._queued_bytes + size > self.queue_bytes:
                raise Busy(f"{self._queued_bytes} bytes of requests are waiting")
            item = (job, size, key)
            self._queued += 1
            self._queued_bytes += size
            if key is not None and key in self._waiting:
                self._waiting[key].append(item)  # its key's earlier job is queued or running
                return
            if key is not None:
                self._waiting[key] = collections.deque()
            self._runnable.append(item)
            if len(self._runnable) > self._idle and len(self._workers) < self.threads:  # on demand, bounded
                self._start_worker()
            self._ready.notify()

    def idle(self) -> bool:
        """No job queued or running."""
        with self._ready:
            return not self._queued and not self._running

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no job is queued or running (or timeout seconds): whether it is so."""
        with self._ready:
            return self._ready.wait_for(lambda: not self._queued and not self._running, timeout)

    def close(self) -> None:
        """No more jobs will come (the channel has ended): the workers end once the queue is empty."""
        with self._ready:
            self._closed = True
            self._ready.notify_all()

    def _start_worker(self) -> None:
        worker = threading.Thread(target=self._work, name=f"{self.name}-{len(self._workers)}", daemon=True)
        try:
            worker.start()
        except RuntimeError:  # the OS refused a thread (a process limit): serve with those there are
            if not self._workers:
                _, size, key = self._runnable.pop()  # the job just queued: it has no job behind it yet
                self._waiting.pop(key, None)
                self._queued -= 1
                self._queued_bytes -= size
                raise Busy("no thread could be started") from None
            return
        self._workers.append(worker)

    def _work(self) -> None:
        while True:
            with self._ready:
                self._idle += 1
                while not self._runnable and not self._closed:
                    self._ready.wait()
                self._idle -= 1
                if not self._runnable:
                    return
                job, size, key = self._runnable.popleft()
                self._queued -= 1
                self._queued_bytes -= size
                self._running += 1
            try:
                job()
            except BaseException as exc:  # noqa: BLE001 - jobs report their own errors; this one must not end the worker
                log.error("a pooled job raised %s", type(exc).__name__)
            finally:
                self._done(key)

    def _done(self, key: Hashable) -> None:
        """A job has finished: the next one of its key may run."""
        with self._ready:
            self._running -= 1
            if key is not None:
                behind = self._waiting[key]
                if behind:
                    self._runnable.append(behind.popleft())
                else:
                    del self._waiting[key]
            self._ready.notify_all()  # a worker for the next job, or wait_idle
