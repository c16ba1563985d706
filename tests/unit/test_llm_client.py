"""The OpenAI-compatible client against a real HTTP server on loopback (tests/support/fake_openai.py):
streaming, retries, time limits, cancellation, garbage, and errors that never leak."""

import socket
import threading
import time

import psutil
import pytest

from support.fake_openai import Step, cut, fail, flood, garbage, hang, reply
from whiteboard.llm.client import MAX_REPLY_BYTES, ChatClient
from whiteboard.llm.endpoint import Endpoint, Timeouts
from whiteboard.llm.errors import Cancelled, ModelUnavailable, ReplyTooLarge

KEY = "sk-test-KEY-0123456789abcdef"
PROMPT = [{"role": "user", "content": "PROMPT-MARKER-7781 what is up?"}]


def client(fake, timeouts=Timeouts(connect=2, read=5, total=10), retries=2, key=KEY):
    return ChatClient(Endpoint(fake.base_url, "fake-model", key), timeouts, retries=retries, backoff=0.05)


def assert_clean(exc: Exception):
    text = str(exc)
    assert KEY not in text and "PROMPT-MARKER" not in text and "scripted failure" not in text


def test_stream_yields_deltas_and_speaks_the_wire_format(fake_openai):
    fake_openai.script(reply("Hello there, friend."))
    deltas = list(client(fake_openai).stream(PROMPT))
    assert deltas == ["Hello ", "there, ", "friend."]
    [req] = fake_openai.chat_requests()
    assert req.method == "POST" and req.path == "/v1/chat/completions"
    assert req.json == {"model": "fake-model", "messages": PROMPT, "stream": True}
    assert req.headers["authorization"] == f"Bearer {KEY}"
    # The key travels in the Authorization header only.
    assert KEY.encode() not in req.body and KEY not in req.path
    assert all(KEY not in v for k, v in req.headers.items() if k != "authorization")


def test_no_key_means_no_authorization_header(fake_openai):
    assert client(fake_openai, key=None).complete(PROMPT) == "This is the fake model's answer."
    assert "authorization" not in fake_openai.requests[0].headers


def test_complete_reads_a_json_reply(fake_openai):
    fake_openai.script(reply("Whole answer."))
    assert client(fake_openai).complete(PROMPT) == "Whole answer."
    assert fake_openai.requests[0].json["stream"] is False


def test_a_server_that_ignores_stream_true_is_still_read(fake_openai):
    body = b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": "one piece"}}]}'
    fake_openai.script(garbage(body, content_type="application/json"))
    assert list(client(fake_openai).stream(PROMPT)) == ["one piece"]


@pytest.mark.parametrize("first", [fail(500), fail(502), fail(503), fail(429, retry_after=0)])
def test_retryable_failures_are_retried(fake_openai, first):
    fake_openai.script(first, reply("after retry"))
    assert "".join(client(fake_openai).stream(PROMPT)) == "after retry"
    assert len(fake_openai.chat_requests()) == 2


def test_retry_after_is_honoured(fake_openai):
    fake_openai.script(fail(429, retry_after=0.6), reply("late"))
    started = time.monotonic()
    assert client(fake_openai).complete(PROMPT) == "late"
    assert time.monotonic() - started >= 0.6


def test_retries_are_bounded(fake_openai):
    fake_openai.script(fail(503, times=10))
    with pytest.raises(ModelUnavailable) as err:
        client(fake_openai, retries=2).complete(PROMPT)
    assert "HTTP 503" in str(err.value)
    assert_clean(err.value)
    assert len(fake_openai.chat_requests()) == 3


@pytest.mark.parametrize("status,words", [(401, "refused the API key"), (403, "refused the API key"),
                                          (404, "no such model"), (400, "rejected the request")])
def test_client_errors_are_not_retried(fake_openai, status, words):
    fake_openai.script(fail(status))
    with pytest.raises(ModelUnavailable) as err:
        client(fake_openai).complete(PROMPT)
    assert words in str(err.value)
    assert_clean(err.value)
    assert len(fake_openai.chat_requests()) == 1


def test_wrong_key_is_refused_without_echoing_it(fake_openai):
    fake_openai.require_api_key = "sk-the-right-one-000000000000"
    with pytest.raises(ModelUnavailable) as err:
        client(fake_openai).complete(PROMPT)
    assert "refused the API key" in str(err.value)
    assert_clean(err.value)


def test_nothing_is_retried_once_text_has_streamed(fake_openai):
    fake_openai.script(cut("one two three four", after=2), reply("second try"))
    got = []
    with pytest.raises(ModelUnavailable) as err:
        for text in client(fake_openai).stream(PROMPT):
            got.append(text)
    assert got == ["one ", "two "]
    assert "cut short" in str(err.value) and err.value.partial == len("one two ")
    assert len(fake_openai.chat_requests()) == 1


def test_connection_refused_is_retried_then_unavailable():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again below: nothing listens there
    c = ChatClient(Endpoint(f"http://127.0.0.1:{port}/v1", "m", KEY), Timeouts(1, 1, 5), retries=2, backoff=0.05)
    with pytest.raises(ModelUnavailable) as err:
        c.complete(PROMPT)
    assert "cannot reach" in str(err.value) and f"127.0.0.1:{port}" in str(err.value)
    assert_clean(err.value)


def test_a_silent_server_hits_the_read_limit(fake_openai):
    fake_openai.script(hang(10))
    started = time.monotonic()
    with pytest.raises(ModelUnavailable) as err:
        client(fake_openai, Timeouts(connect=1, read=0.5, total=10)).complete(PROMPT)
    assert "sent nothing for 0.5 s" in str(err.value)
    assert time.monotonic() - started < 2.5


def test_a_slow_stream_hits_the_total_limit(fake_openai):
    fake_openai.script(reply(" ".join(["word"] * 40), chunk_delay=0.2))
    started = time.monotonic()
    got = []
    with pytest.raises(ModelUnavailable) as err:
        for text in client(fake_openai, Timeouts(connect=1, read=5, total=1.0)).stream(PROMPT):
            got.append(text)
    elapsed = time.monotonic() - started
    assert "longer than the 1 s time limit" in str(err.value)
    assert 0.9 <= elapsed < 2.0 and 0 < len(got) < 40


def test_cancel_mid_stream_stops_at_once(fake_openai):
    fake_openai.script(reply(" ".join(["word"] * 40), chunk_delay=0.3))
    cancel = threading.Event()
    got = []
    with pytest.raises(Cancelled):
        for text in client(fake_openai).stream(PROMPT, cancel=cancel):
            got.append(text)
            cancel.set()
    assert got == ["word "]


def test_cancel_wakes_a_read_blocked_on_a_silent_server(fake_openai):
    fake_openai.script(hang(10))
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    started = time.monotonic()
    with pytest.raises(Cancelled):
        client(fake_openai, Timeouts(connect=1, read=30, total=60)).complete(PROMPT, cancel=cancel)
    assert time.monotonic() - started < 1.0


def test_cancel_during_backoff(fake_openai):
    fake_openai.script(fail(429, retry_after=5), reply("never"))
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    started = time.monotonic()
    with pytest.raises(Cancelled):
        ChatClient(Endpoint(fake_openai.base_url, "m"), Timeouts(1, 5, 30), max_backoff=10).complete(PROMPT, cancel)
    assert time.monotonic() - started < 1.5


GARBAGE = {
    "not SSE at all": garbage(b"<html>502 Bad Gateway</html>"),
    "data that is not JSON": garbage(b"data: {not json\n\ndata: also bad\n\ndata: [DONE]\n\n"),
    "events without the end": garbage(b'data: {"choices": [{"delta": {"content": "half"}}]}\n\n'),
    "error object mid-stream": garbage(b'data: {"choices": [{"delta": {"content": "a"}}]}\n\n'
                                       b'data: {"error": {"message": "overloaded PROMPT-MARKER-7781"}}\n\n'),
    "stream cut mid-body": cut("one two three", after=1),
    "ends without [DONE] or finish_reason": reply("a b c", end_without_done=True),
}


@pytest.mark.parametrize("name", GARBAGE)
def test_garbage_streams_are_unavailable_with_a_clear_message(fake_openai, name):
    fake_openai.script(GARBAGE[name])
    with pytest.raises(ModelUnavailable) as err:
        list(client(fake_openai).stream(PROMPT))
    assert_clean(err.value)
    assert "model" in str(err.value)


@pytest.mark.parametrize("body,words", [(b"not json", "not JSON"), (b"[1, 2]", "without a completion"),
                                        (b'{"object": "chat.completion"}', "without a completion"),
                                        (b'{"choices": [{"message": {}}]}', "without a completion")])
def test_garbage_json_replies(fake_openai, body, words):
    fake_openai.script(garbage(body, content_type="application/json"))
    with pytest.raises(ModelUnavailable) as err:
        client(fake_openai).complete(PROMPT)
    assert words in str(err.value)


def test_bad_lines_are_skipped_when_real_chunks_follow(fake_openai):
    body = (b": keep-alive\n\nevent: message\ndata: {broken\n\n"
            b'data: {"choices": []}\n\n'  # a usage-only chunk has no choices: normal
            b'data: {"choices": [{"delta": {"role": "assistant", "content": "Hi"}}]}\n\n'
            b'data: {"choices": [{"delta": {"content": " you"}, "finish_reason": "stop"}]}\n\n'
            b'data: {"choices": [], "usage": {"total_tokens": 3}}\n\ndata: [DONE]\n\n')
    fake_openai.script(garbage(body))
    assert "".join(client(fake_openai).stream(PROMPT)) == "Hi you"


def test_events_without_blank_lines_between_them(fake_openai):
    body = (b'data: {"choices": [{"delta": {"content": "A"}}]}\n'
            b'data: {"choices": [{"delta": {"content": "B"}, "finish_reason": "stop"}]}\n')
    fake_openai.script(garbage(body))
    assert "".join(client(fake_openai).stream(PROMPT)) == "AB"


def test_a_stream_line_that_never_ends_is_capped(fake_openai):
    """Issue 12 item 5: 100 MB of SSE without a newline once held 385 MB; the partial line counts too."""
    fake_openai.script(flood(100_000_000))
    call = client(fake_openai, timeouts=Timeouts(connect=2, read=10, total=60))
    exc, grown = failure_and_peak_growth(lambda: list(call.stream(PROMPT)))
    assert isinstance(exc, ReplyTooLarge) and exc.to_wire()["reason"] == "reply_too_large"
    assert exc.code == "unavailable" and f"{MAX_REPLY_BYTES}" in str(exc)
    assert_clean(exc)
    assert grown < 64 * 1024 * 1024


def failure_and_peak_growth(run) -> tuple[BaseException, int]:
    """What `run()` raised (it must raise), and how far this process's RSS grew above where
    it was at the start while it ran (sampled every 10 ms)."""
    process = psutil.Process()
    baseline = process.memory_info().rss
    peak = baseline
    failure: list[BaseException] = []

    def call() -> None:
        try:
            run()
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            failure.append(exc)

    worker = threading.Thread(target=call)
    worker.start()
    while worker.is_alive():
        peak = max(peak, process.memory_info().rss)
        worker.join(0.01)
    [exc] = failure
    return exc, peak - baseline


def gzip_bomb(prefix: bytes, size: int) -> bytes:
    """`prefix` and `size` bytes of "x" without a newline, gzip-compressed (about 1000:1)."""
    import zlib

    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    piece = b"x" * (1 << 20)
    parts = [packer.compress(prefix)] + [packer.compress(piece) for _ in range(size // len(piece))]
    return b"".join([*parts, packer.flush()])


@pytest.mark.parametrize("streaming", [True, False], ids=["streamed", "whole"])
def test_a_compressed_reply_cannot_exhaust_memory(fake_openai, streaming):
    """Issue 28 item 3: 46 KB of gzip expanding to one 1000 MiB line took the host to 4.24 GB,
    the cap counting compressed bytes. The client asks for no encoding and refuses an encoded
    body unread; nothing is decompressed."""
    prefix = b"data: " if streaming else b'{"choices": [{"message": {"content": "'
    bomb = gzip_bomb(prefix, 256 << 20)
    assert len(bomb) < 512 * 1024
    fake_openai.script(Step(body=bomb, content_type="text/event-stream" if streaming else "application/json",
                            headers={"Content-Encoding": "gzip"}))
    call = client(fake_openai, timeouts=Timeouts(connect=2, read=10, total=60))
    exc, grown = failure_and_peak_growth(lambda: list(call.stream(PROMPT)) if streaming else call.complete(PROMPT))
    assert isinstance(exc, ModelUnavailable) and "gzip" in str(exc)
    assert_clean(exc)
    assert grown < 32 * 1024 * 1024
    [req] = fake_openai.chat_requests()
    assert req.headers["accept-encoding"] == "identity"
