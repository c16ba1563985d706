"""RAM store limits (design §4): cap, seed, session count, TTL, cleanup."""

import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from whiteboard.config import Limits
from whiteboard.sessions.store import SessionStore, start_cleanup_timer


class Clock:
    def __init__(self):
        self.now = 1_000_000.0

    def __call__(self):
        return self.now


def test_cap_keeps_the_last_messages_and_the_seed():
    store = SessionStore(Limits(max_messages=50))
    for i in range(120):
        store.add("a:1", "user", f"m{i}")
    session = store.get("a:1")
    assert session.count == 50
    assert [m.content for m in session.messages][0] == "m70"
    assert session.seed.content == "m0"
    assert session.all_messages()[0].content == "m0"
    # The dropped ones (except the seed) wait to be folded into the summary.
    assert [m.content for m in session.unfolded] == [f"m{i}" for i in range(1, 70)]


def test_oldest_session_goes_first_over_the_session_limit():
    clock = Clock()
    store = SessionStore(Limits(max_sessions=100), clock=clock)
    for i in range(101):
        clock.now += 1
        store.add(f"site:{i}", "user", "hi")
    assert len(store) == 100
    assert store.get("site:0") is None
    assert store.get("site:100") is not None


def test_ttl_expires_from_session_start():
    clock = Clock()
    store = SessionStore(Limits(ttl_seconds=24 * 3600), clock=clock)
    store.add("a:1", "user", "hi")
    clock.now += 24 * 3600 - 1
    store.add("a:1", "assistant", "still here")
    assert store.get("a:1").count == 2
    clock.now += 1
    assert store.get("a:1") is None


def test_cleanup_removes_only_expired_sessions():
    clock = Clock()
    store = SessionStore(Limits(ttl_seconds=100), clock=clock)
    store.add("old:1", "user", "x")
    clock.now += 50
    store.add("new:1", "user", "y")
    clock.now += 60
    assert store.cleanup() == 1
    assert [s.key for s in store.list()] == ["new:1"]


def test_cleanup_timer_runs_on_its_interval():
    clock = Clock()
    store = SessionStore(Limits(ttl_seconds=10, cleanup_interval=0.05), clock=clock)
    store.add("a:1", "user", "x")
    clock.now += 11
    stop = threading.Event()
    thread = start_cleanup_timer(store, stop)
    try:
        for _ in range(100):
            if len(store) == 0:
                break
            stop.wait(0.02)
        assert len(store) == 0
    finally:
        stop.set()
        thread.join(1)


def test_clear_and_clear_all():
    store = SessionStore(Limits())
    store.add("a:1", "user", "x")
    store.add("b:2", "user", "y")
    assert store.clear("a:1") is True
    assert store.clear("a:1") is False
    assert store.clear_all() == 1
    assert store.list() == []


@settings(max_examples=80, deadline=None)
@given(n=st.integers(min_value=0, max_value=200), cap=st.integers(min_value=1, max_value=60))
def test_property_cap_and_seed(n, cap):
    store = SessionStore(Limits(max_messages=cap))
    for i in range(n):
        store.add("a:1", "user", f"m{i}")
    session = store.get("a:1")
    if n == 0:
        assert session is None
        return
    assert session.count == min(n, cap)
    assert session.all_messages()[0].content == "m0"
    assert [m.content for m in session.messages] == [f"m{i}" for i in range(max(0, n - cap), n)]


def held_bytes(session) -> int:
    """Bytes of text the session references (the seed once, pending selections are kept messages)."""
    held = {id(m): m.size for m in [*session.messages, *session.unfolded, *session.pending_selections]}
    if session.seed is not None:
        held[id(session.seed)] = session.seed.size
    return sum(held.values())


@pytest.mark.slow
def test_two_hundred_megabyte_messages_stay_within_the_byte_bounds():
    """The audit's case: 200 x 1 MB to one tab held 268 MB while the count read 50."""
    from whiteboard.app import App

    app = App()
    store, limits = app.sessions, app.sessions.limits
    big = "x" * (1 << 20)
    worst = 0
    for i in range(200):
        source = "selection" if i % 3 == 0 else "chat"
        session = store.add("t:1", "user", f"{i} {big}", source=source)
        worst = max(worst, held_bytes(session))
        assert session.kept_bytes == sum(m.size for m in session.messages)
        assert session.unfolded_bytes == sum(m.size for m in session.unfolded)
    assert worst <= 2 * limits.max_session_bytes + 2 * (len(big) + 8)
    assert session.kept_bytes <= limits.max_session_bytes
    assert session.summary  # what went is folded, not silently lost
    assert session.seed.content.startswith("0 ")
    kept = {m.seq for m in session.messages}
    assert all(m.seq in kept for m in session.pending_selections)


def test_pending_selections_go_with_their_messages_past_the_count_cap():
    store = SessionStore(Limits(max_messages=3))
    for i in range(6):
        store.add("t:1", "user", f"selection {i}", source="selection")
    session = store.get("t:1")
    assert [m.content for m in session.pending_selections] == ["selection 3", "selection 4", "selection 5"]


def test_one_message_over_the_byte_cap_is_still_kept_as_the_newest():
    store = SessionStore(Limits(max_session_bytes=10))
    store.add("t:1", "user", "short")
    session = store.add("t:1", "user", "a message longer than ten bytes")
    assert [m.content for m in session.messages] == ["a message longer than ten bytes"]
    assert [m.content for m in session.unfolded] == []  # the first message is the seed, kept apart
    assert session.seed.content == "short"
