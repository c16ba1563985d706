"""The one dispatch core, in process: the same checks, limits and logging for every channel."""

import io
import json
import logging
import struct
import threading
import time

import pytest

from support.waiting import wait_for
from whiteboard import actions
from whiteboard.actions import Action, load_all
from whiteboard.app import App
from whiteboard.protocol.errors import NotFound, TooLarge
from whiteboard.protocol.framing import MAX_OUTBOUND, FrameWriter, iter_frames
from whiteboard.protocol.messages.core import SessionAddReply, SessionListReply
from whiteboard.server.dispatch import Channel
from whiteboard.server.pool import WorkerPool

SECRET = "TOPSECRET-CONTENT"


class Sink:
    def __init__(self):
        self.messages, self.lock = [], threading.Lock()

    def write(self, message: dict) -> None:
        body = json.dumps(message)
        if len(body) > MAX_OUTBOUND:
            raise TooLarge("too large")
        with self.lock:
            self.messages.append(message)


@pytest.fixture
def app(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    load_all()
    return App()


def replace_handler(monkeypatch, type_name, handler, blocking=False):
    monkeypatch.setitem(actions.HANDLERS, type_name, Action(type_name, handler, blocking))


@pytest.mark.parametrize("pooled", [False, True], ids=["inline", "on the pool"])
def test_a_reply_of_the_wrong_type_is_internal_and_logged_with_its_traceback_not_its_content(
        app, monkeypatch, caplog, pooled):
    def wrong(request, ctx):
        raise_here = SessionListReply  # noqa: F841 - a line the traceback shows
        return {"content": SECRET}

    replace_handler(monkeypatch, "session.list", wrong, blocking=pooled)
    sink = Sink()
    channel = Channel(app, sink, name="test", pool=WorkerPool(threads=1) if pooled else None)
    with caplog.at_level(logging.ERROR):
        channel.handle(b'{"id": 1, "type": "session.list"}')
        for _ in range(200):
            if sink.messages:
                break
            threading.Event().wait(0.01)
    assert sink.messages == [{"id": 1, "ok": False, "error": {
        "code": "internal", "message": "session.list failed (TypeError); see the host log"}}]
    assert "session.list raised TypeError" in caplog.text and "Traceback" not in caplog.text
    assert "dispatch.py" in caplog.text and SECRET not in caplog.text


def test_a_handler_raising_anything_is_internal_and_the_channel_serves_on(app, monkeypatch, caplog):
    def boom(request, ctx):
        raise ValueError(SECRET)

    replace_handler(monkeypatch, "session.list", boom)
    sink = Sink()
    channel = Channel(app, sink, name="test")
    channel.handle(b'{"id": 1, "type": "session.list"}')
    channel.handle(b'{"id": 2, "type": "ping"}')
    assert sink.messages[0]["error"]["code"] == "internal" and sink.messages[1]["ok"]
    assert SECRET not in caplog.text and SECRET not in json.dumps(sink.messages)


def test_a_reply_too_large_becomes_too_large_with_its_id_and_an_event_too_large_is_dropped(app, monkeypatch):
    def big(request, ctx):
        ctx.emit("progress", text="e" * (MAX_OUTBOUND + 1))
        return SessionListReply(sessions=[{"key": "k" * (MAX_OUTBOUND + 1), "count": 1, "started_at": 0}])

    replace_handler(monkeypatch, "session.list", big)
    sink = Sink()
    Channel(app, sink, name="test").handle(b'{"id": "x", "type": "session.list"}')
    assert sink.messages == [{"id": "x", "ok": False, "error": {"code": "too_large", "message": "too large"}}]


def test_a_failure_outside_any_handler_is_answered_without_an_id(app, monkeypatch, caplog):
    def broken_admit(raw):
        raise RecursionError(SECRET)

    sink = Sink()
    channel = Channel(app, sink, name="test", admit=broken_admit)
    channel.handle(b'{"id": 1, "type": "ping"}')
    assert sink.messages[0]["id"] is None and sink.messages[0]["error"]["code"] == "internal"
    assert "test frame raised RecursionError" in caplog.text and SECRET not in caplog.text


def test_a_closed_peer_closes_the_channel_and_calls_its_hook(app):
    class Closed:
        def write(self, message):
            raise BrokenPipeError

    called = threading.Event()
    channel = Channel(app, Closed(), name="test", on_closed=called.set)
    channel.serve(iter([b'{"id": 1, "type": "ping"}', b'{"id": 2, "type": "ping"}']))
    assert channel.closed.is_set() and called.is_set()


def test_iter_frames_answers_an_oversize_frame_before_its_body_is_read():
    body = b"x" * 100
    stream = io.BytesIO(struct.pack("<I", len(body)) + body + struct.pack("<I", 2) + b"{}")
    frames = iter_frames(stream, cap=10)
    first = next(frames)
    assert isinstance(first, TooLarge) and stream.tell() == 4  # nothing of the body read yet
    assert next(frames) == b"{}"


def test_iter_frames_stops_after_a_header_past_64_mib():
    stream = io.BytesIO(struct.pack("<I", 64 * 1024 * 1024 + 1) + b"{}" * 10)
    items = list(iter_frames(stream, cap=1024))
    assert len(items) == 1 and isinstance(items[0], TooLarge) and "67108864" in items[0].message


def test_the_pipe_writer_and_the_control_writer_share_one_encoder():
    out = io.BytesIO()
    FrameWriter(out, limit=64).write({"id": 1, "ok": True})
    with pytest.raises(TooLarge):
        FrameWriter(out, limit=64).write({"id": 1, "pad": "x" * 100})


def test_only_ping_and_ask_cancel_run_on_the_reader_thread():
    """The reader thread must always answer ping: what runs on it is declared `inline`, and
    each one here is bounded and waits on no lock that work holds (the next test)."""
    assert {a.type for a in load_all().values() if a.inline} == {"ping", "ask.cancel"}


def replies(sink, n, timeout=5.0) -> list[dict]:
    """The sink's messages once it has `n`."""
    wait_for(lambda: len(sink.messages) >= n, timeout=timeout, interval=0.005, what=f"{n} replies")
    return sink.messages


def test_the_reader_answers_inline_and_hands_on_the_rest_at_once_while_work_holds_every_lock(app):
    """Work holds the sessions' lock and the memory service's (an import, a wipe, a vault
    opening) and every pool thread is busy: ping and ask.cancel are answered at once on the
    reader thread, and a send is handed on without waiting."""
    release = threading.Event()
    holding = threading.Barrier(3)

    def hold(lock):
        with lock:
            holding.wait(5)
            release.wait(10)

    for lock in (app.sessions.lock, app.memory.lock):
        threading.Thread(target=hold, args=(lock,), daemon=True).start()
    holding.wait(5)
    sink = Sink()
    channel = Channel(app, sink, name="test", pool=WorkerPool(threads=1))
    try:
        started = time.monotonic()
        channel.handle(b'{"id": 1, "type": "ping"}')
        channel.handle(b'{"id": 2, "type": "ask.cancel", "ref": 99}')
        for i in range(3, 6):
            channel.handle(json.dumps({"id": i, "type": "chat.prepare_send", "key": f"chatgpt.com:{i}",
                                       "site": "chatgpt.com", "draft": "hello"}).encode())
        assert time.monotonic() - started < 0.5
        assert [m["id"] for m in sink.messages] == [1, 2] and all(m["ok"] for m in sink.messages)
    finally:
        release.set()
    # Generous: each send first waits up to 5 s for this App's tokenizer, loading on a busy machine.
    assert {m["id"] for m in replies(sink, 5, timeout=30)} == {1, 2, 3, 4, 5}
    channel.close()


def test_a_tabs_requests_run_in_the_order_sent_and_a_blocking_one_after_them(app, monkeypatch):
    """Ordered actions of one tab run one at a time in arrival order; a blocking one of that
    tab starts once they are done (it may read what they recorded); another tab's go beside."""
    log, lock = [], threading.Lock()

    def slow_add(request, ctx):
        with lock:
            log.append(("start", request.key, request.content))
        time.sleep(0.05)
        with lock:
            log.append(("end", request.key, request.content))
        return SessionAddReply(count=0, redacted=0, redacted_kinds=[])

    def export(request, ctx):
        with lock:
            log.append(("export", request.key, None))
        raise NotFound("nothing to export here")

    replace_handler(monkeypatch, "session.add", slow_add)
    replace_handler(monkeypatch, "vbrief.export", export, blocking=True)
    sink = Sink()
    channel = Channel(app, sink, name="test", pool=WorkerPool(threads=2))
    for i, key in enumerate(["chatgpt.com:1", "chatgpt.com:1", "claude.ai:2", "chatgpt.com:1"]):
        channel.handle(json.dumps({"id": i, "type": "session.add", "key": key, "role": "user",
                                   "content": str(i)}).encode())
    channel.handle(b'{"id": 9, "type": "vbrief.export", "key": "chatgpt.com:1"}')
    replies(sink, 5)
    channel.close()
    tab = [e for e in log if e[1] == "chatgpt.com:1"]
    assert tab == [("start", "chatgpt.com:1", "0"), ("end", "chatgpt.com:1", "0"),
                   ("start", "chatgpt.com:1", "1"), ("end", "chatgpt.com:1", "1"),
                   ("start", "chatgpt.com:1", "3"), ("end", "chatgpt.com:1", "3"), ("export", "chatgpt.com:1", None)]
    other = log.index(("start", "claude.ai:2", "2"))
    assert other < log.index(("end", "chatgpt.com:1", "1"))  # the other tab did not wait for this one
