"""The bounded worker pool's rules, in process: a fixed number of threads, a queue bounded in jobs and bytes."""

import threading
import time

import pytest

from support.waiting import wait_for
from whiteboard.server.pool import Busy, WorkerPool


def test_a_full_pool_refuses_at_once_and_serves_again_when_drained():
    pool = WorkerPool(threads=2, queue_jobs=3, queue_bytes=1000)
    release, started = threading.Event(), threading.Semaphore(0)
    done = []

    def job(i):
        def run():
            started.release()
            release.wait(10)
            done.append(i)
        return run

    for i in range(2):
        pool.submit(job(i))
    for _ in range(2):
        assert started.acquire(timeout=5)  # both threads busy
    for i in range(2, 5):
        pool.submit(job(i))  # queued
    before = threading.active_count()
    start = time.monotonic()
    with pytest.raises(Busy) as refused:
        pool.submit(job(99))
    assert time.monotonic() - start < 0.1
    assert refused.value.to_wire()["reason"] == "busy" and refused.value.code == "unavailable"
    assert threading.active_count() == before
    release.set()
    wait_for(lambda: len(done) >= 5, timeout=5, interval=0.01, what="the five jobs")
    assert sorted(done) == [0, 1, 2, 3, 4]
    pool.submit(job(5))  # room again
    wait_for(lambda: len(done) >= 6, timeout=5, interval=0.01, what="the sixth job")
    assert 5 in done and len(pool._workers) == 2


def test_the_queue_is_bounded_in_bytes_too():
    pool = WorkerPool(threads=1, queue_jobs=100, queue_bytes=1000)
    release = threading.Event()
    pool.submit(lambda: release.wait(10))
    time.sleep(0.05)  # the worker took it: the queue is empty
    pool.submit(lambda: None, size=5000)  # larger than the bound, but alone in the queue
    with pytest.raises(Busy):
        pool.submit(lambda: None, size=1)
    release.set()


def test_when_the_os_refuses_a_thread_the_request_is_busy_not_lost(monkeypatch):
    pool = WorkerPool(threads=2)

    def refuse(self):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", refuse)
    with pytest.raises(Busy):
        pool.submit(lambda: None)
    monkeypatch.undo()
    done = threading.Event()
    pool.submit(done.set)
    assert done.wait(5) and len(pool._workers) == 1


def test_jobs_with_one_key_run_one_at_a_time_in_order_and_others_beside_them():
    pool = WorkerPool(threads=2, queue_jobs=2, queue_bytes=1000)
    log, release = [], threading.Event()

    def job(name, wait=False):
        def run():
            log.append(f"start {name}")
            if wait:
                release.wait(5)
            log.append(f"end {name}")
        return run

    pool.submit(job("a1", wait=True), key="a")
    wait_for(lambda: "start a1" in log, timeout=5, interval=0.01, what="a1 started")
    pool.submit(job("a2"), key="a")
    pool.submit(job("a3"), key="a")
    with pytest.raises(Busy):  # jobs waiting behind their key count against the queue too
        pool.submit(job("a4"), key="a")
    assert not pool.idle()
    release.set()
    wait_for(lambda: "end a3" in log, timeout=5, interval=0.01, what="a3 done")
    pool.submit(job("b1", wait=False), key="b")
    wait_for(lambda: "end b1" in log, timeout=5, interval=0.01, what="b1 done")
    assert [e for e in log if e.endswith(("a1", "a2", "a3"))] == \
        ["start a1", "end a1", "start a2", "end a2", "start a3", "end a3"]
    wait_for(pool.idle, timeout=5, interval=0.01, what="the pool idle")


def test_another_keys_job_runs_while_one_key_waits():
    pool = WorkerPool(threads=2)
    release, other = threading.Event(), threading.Event()
    pool.submit(lambda: release.wait(5), key="a")
    pool.submit(other.set, key="a")
    pool.submit(other.set, key="b")
    assert other.wait(2)  # b's job ran while a's second waited for its first
    release.set()
