"""One client for OpenAI-compatible /v1/chat/completions, streamed or not (httpx).

Time limits: connect, read (longest silence) and total (the whole call, retries
included). Cancellation: a threading.Event; a watchdog thread shuts the socket down
when it is set or the total time runs out, which wakes a read blocked on a silent
server at once. Retries: connect errors, a dropped connection, 429 and 5xx, with
exponential backoff (Retry-After honoured), only before any answer text arrived.
httpx errors become ModelUnavailable here; messages name the endpoint's origin only,
never the API key, the prompt or the endpoint's reply body.
"""

from __future__ import annotations

import random
import re
import socket
import ssl
import threading
import time
from typing import Iterator

import httpx

from .endpoint import Endpoint, Timeouts
from .errors import Cancelled, ModelUnavailable, ReplyTooLarge
from .sse import DONE, StreamState, chunk_text, completion_text, sse_data

MAX_REPLY_BYTES = 8 * 1024 * 1024  # the whole reply, a line not ended yet included
_LINE_END = re.compile(r"\r\n|\r|\n")
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_tls_lock = threading.Lock()
_tls_context: ssl.SSLContext | None = None


def _tls() -> ssl.SSLContext:
    # Loading the CA bundle takes ~30 ms: once per process, not once per request.
    global _tls_context
    with _tls_lock:
        if _tls_context is None:
            _tls_context = httpx.create_ssl_context()
        return _tls_context


class _Watchdog:
    """Shuts the request's socket down when the caller cancels or the total time is up."""

    def __init__(self, cancel: threading.Event, deadline: float):
        self.cancel = cancel
        self.deadline = deadline
        self.reason: str | None = None  # "cancelled" or "deadline"
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()
        self._done = threading.Event()
        threading.Thread(target=self._watch, name="llm-watchdog", daemon=True).start()

    def trace(self, name: str, info: dict) -> None:
        # httpcore reports each new connection (and its TLS wrapper): remember its socket.
        if name in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            with self._lock:
                self._sock = info["return_value"].get_extra_info("socket")
                if self.reason:
                    self._shutdown()

    def _watch(self) -> None:
        while not self._done.is_set():
            remaining = self.deadline - time.monotonic()
            if self.cancel.wait(max(0.0, min(remaining, 0.05))):
                self._fire("cancelled")
                return
            if remaining <= 0:
                self._fire("deadline")
                return

    def _fire(self, reason: str) -> None:
        with self._lock:
            if not self._done.is_set():
                self.reason = reason
                self._shutdown()

    def _shutdown(self) -> None:
        if self._sock is not None:
            try:
                self._sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already closed

    def stop(self) -> None:
        with self._lock:
            self._done.set()


class ChatClient:
    def __init__(self, endpoint: Endpoint, timeouts: Timeouts = Timeouts(), retries: int = 2,
                 backoff: float = 0.5, max_backoff: float = 8.0, max_reply_bytes: int = MAX_REPLY_BYTES):
        self.endpoint = endpoint
        self.max_reply_bytes = max_reply_bytes  # a caller that reads a short answer caps it lower
        self.timeouts = timeouts
        self.retries = retries
        self.backoff = backoff
        self.max_backoff = max_backoff

    def stream(self, messages: list[dict], cancel: threading.Event | None = None) -> Iterator[str]:
        """Yield the answer's text as it streams. Raises Cancelled or ModelUnavailable."""
        return self._call(messages, cancel or threading.Event(), streaming=True)

    def complete(self, messages: list[dict], cancel: threading.Event | None = None) -> str:
        return "".join(self._call(messages, cancel or threading.Event(), streaming=False))

    def _call(self, messages: list[dict], cancel: threading.Event, streaming: bool) -> Iterator[str]:
        body = {"model": self.endpoint.model, "messages": messages, "stream": streaming}
        # No content encoding: the caps count the bytes that arrive, and a compressed body
        # (46 KB of gzip can be 1000 MiB) is refused unread rather than inflated (_read).
        headers = {"Accept": "text/event-stream" if streaming else "application/json", "Accept-Encoding": "identity"}
        if self.endpoint.api_key:
            headers["Authorization"] = f"Bearer {self.endpoint.api_key}"
        url = self.endpoint.base_url.rstrip("/") + "/chat/completions"
        t = self.timeouts
        watchdog = _Watchdog(cancel, time.monotonic() + t.total)
        state = StreamState()
        attempt = 0
        try:
            with httpx.Client(timeout=httpx.Timeout(t.read, connect=t.connect), verify=_tls(),
                              follow_redirects=False, headers={"User-Agent": "whiteboard-host"}) as http:
                while True:
                    try:
                        with http.stream("POST", url, json=body, headers=headers,
                                         extensions={"trace": watchdog.trace}) as response:
                            status = response.status_code
                            if status not in RETRY_STATUSES or attempt >= self.retries:
                                self._check_status(status)
                                try:
                                    yield from self._read(response, state, cancel, streaming)
                                except ModelUnavailable as exc:
                                    # A shut-down socket can look like a cut stream or a bad body.
                                    raise (self._interruption(watchdog, state) or exc) from None
                                return
                            delay = self._delay(attempt, response.headers.get("retry-after"))
                    except httpx.HTTPError as exc:
                        if watchdog.reason or state.text_chars or not _retryable(exc) or attempt >= self.retries:
                            raise self._translate(exc, watchdog, state) from None
                        delay = self._delay(attempt, None)
                    attempt += 1
                    if time.monotonic() + delay >= watchdog.deadline:
                        raise ModelUnavailable(f"the model endpoint at {self.endpoint.origin} kept failing "
                                               f"and the {t.total:g} s time limit would pass before a retry")
                    if cancel.wait(delay):
                        raise Cancelled()
        finally:
            watchdog.stop()

    def _read(self, response: httpx.Response, state: StreamState, cancel: threading.Event,
              streaming: bool) -> Iterator[str]:
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if encoding not in ("", "identity"):
            named = "".join(c for c in encoding[:40] if c.isalnum() or c in "-_,")  # a header, not content
            raise ModelUnavailable(f"the model endpoint at {self.endpoint.origin} sent a {named}-encoded reply "
                                   "though asked for none; Whiteboard does not inflate replies (check the proxy "
                                   "in front of the model)")
        is_sse = "text/event-stream" in response.headers.get("content-type", "")
        if not (streaming and is_sse):
            # Also for a server that ignores stream=true and answers with one JSON body.
            text = self._json_answer(response)
            state.text_chars = len(text)
            yield text
            return
        for data in sse_data(self._lines(response)):
            text = chunk_text(data, state)
            if text is DONE:
                break
            if text:
                yield text
            if cancel.is_set():
                raise Cancelled()
        origin = self.endpoint.origin
        if state.error:
            raise ModelUnavailable(f"the model endpoint at {origin} reported an error in mid-stream",
                                   partial=state.text_chars)
        if not state.finished:
            if not state.text_chars and (state.unreadable or not state.events):
                raise ModelUnavailable(f"the model endpoint at {origin} sent a stream that is not "
                                       "chat-completion events")
            raise ModelUnavailable(f"the model's answer was cut short ({state.text_chars} characters arrived)",
                                   partial=state.text_chars)
        if not state.text_chars and state.unreadable:
            raise ModelUnavailable(f"the model endpoint at {origin} sent no readable answer")

    def _lines(self, response: httpx.Response) -> Iterator[str]:
        """The body's lines, the cap checked per chunk read: httpx's iter_lines would buffer a
        line that never ends (100 MB without a newline) before any check could run."""
        pending: list[str] = []  # the line not ended yet
        for chunk in response.iter_text():
            if response.num_bytes_downloaded > self.max_reply_bytes:
                raise ReplyTooLarge(self.max_reply_bytes)
            pending.append(chunk)
            if "\n" not in chunk and "\r" not in chunk:
                continue
            text = "".join(pending)
            held = "\r" if text.endswith("\r") else ""  # its "\n" may come in the next chunk
            *lines, rest = _LINE_END.split(text[:-1] if held else text)
            yield from lines
            pending = [rest + held]
        text = "".join(pending)
        if text:
            yield from _LINE_END.split(text.removesuffix("\n").removesuffix("\r"))

    def _json_answer(self, response: httpx.Response) -> str:
        body = b""
        for chunk in response.iter_bytes():
            body += chunk
            if len(body) > self.max_reply_bytes:
                raise ReplyTooLarge(self.max_reply_bytes)
        origin = self.endpoint.origin
        try:
            text = completion_text(body)
        except ValueError:
            raise ModelUnavailable(f"the model endpoint at {origin} answered with something that is not JSON") \
                from None
        if text is None:
            raise ModelUnavailable(f"the model endpoint at {origin} answered without a completion (no choices)")
        return text

    def _check_status(self, status: int) -> None:
        origin = self.endpoint.origin
        if 200 <= status < 300:
            return
        if status in (401, 403):
            raise ModelUnavailable(f"the model endpoint at {origin} refused the API key (HTTP {status}); "
                                   "set it again on the options page or with `whiteboard config set --api-key`")
        if status == 404:
            raise ModelUnavailable(f"the model endpoint at {origin} has no such model or path (HTTP 404); "
                                   "check the base URL and the model name")
        if status == 429:
            raise ModelUnavailable(f"the model endpoint at {origin} is rate limiting (HTTP 429); try again later")
        if status >= 500:
            raise ModelUnavailable(f"the model endpoint at {origin} failed (HTTP {status})")
        raise ModelUnavailable(f"the model endpoint at {origin} rejected the request (HTTP {status})")

    def _delay(self, attempt: int, retry_after: str | None) -> float:
        try:
            wanted = float(retry_after) if retry_after is not None else None
        except ValueError:
            wanted = None  # an HTTP date: use our own backoff
        delay = wanted if wanted is not None and wanted >= 0 else self.backoff * 2 ** attempt
        delay = min(delay, self.max_backoff)
        return delay + random.uniform(0, delay / 4)

    def _interruption(self, watchdog: _Watchdog, state: StreamState) -> Exception | None:
        if watchdog.reason == "cancelled":
            return Cancelled()
        if watchdog.reason == "deadline":
            return ModelUnavailable(f"the model took longer than the {self.timeouts.total:g} s time limit",
                                    partial=state.text_chars)
        return None

    def _translate(self, exc: httpx.HTTPError, watchdog: _Watchdog, state: StreamState) -> Exception:
        origin, t = self.endpoint.origin, self.timeouts
        interrupted = self._interruption(watchdog, state)
        if interrupted:
            return interrupted
        if isinstance(exc, httpx.ConnectTimeout):
            return ModelUnavailable(f"cannot reach the model endpoint at {origin}: no connection "
                                    f"within {t.connect:g} s")
        if isinstance(exc, httpx.ConnectError):
            return ModelUnavailable(f"cannot reach the model endpoint at {origin} (connection refused or "
                                    "unknown host); is the server running?")
        if isinstance(exc, httpx.TimeoutException):
            return ModelUnavailable(f"the model endpoint at {origin} sent nothing for {t.read:g} s",
                                    partial=state.text_chars)
        if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError)):
            if state.text_chars:
                return ModelUnavailable(f"the model's answer was cut short ({state.text_chars} characters "
                                        "arrived)", partial=state.text_chars)
            return ModelUnavailable(f"the model endpoint at {origin} closed the connection without an answer")
        if isinstance(exc, (httpx.UnsupportedProtocol, httpx.InvalidURL)):
            return ModelUnavailable("the model base URL is not a valid http(s) URL")
        return ModelUnavailable(f"the request to the model endpoint at {origin} failed ({type(exc).__name__})")


def _retryable(exc: httpx.HTTPError) -> bool:
    return isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout, httpx.RemoteProtocolError, httpx.ReadError))
