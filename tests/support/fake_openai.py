"""A real OpenAI-compatible HTTP server on 127.0.0.1 for tests (stdlib, one thread per request).

Speaks the real wire format: POST /v1/chat/completions (JSON, or server-sent events
over chunked HTTP/1.1 when "stream": true) and POST /v1/embeddings. Every request is
recorded (method, path, headers, body). Behaviour is scripted per path with Steps,
used in order (each `times` times); when the script is empty the default answers:
`chat_answer` (a string or a function of the request body) and hashed bag-of-words
embeddings of `embedding_dim` dimensions (similar texts get similar vectors). An
embeddings request holding a text in `refused_inputs` is answered with its status (a
provider that refuses one input, e.g. too long or against its policy, refuses the batch).

    fake.script(fail(500), reply("Hello there", chunk_delay=0.05))
    fake.script(garbage(b"not json"), path="/v1/embeddings")
    fake.script(flood(100_000_000))  # 100 MB of one line, never buffered whole

Usage: the `fake_openai` fixture (tests/conftest.py loads this module as a plugin), or
`with FakeOpenAI() as fake: ...`. As a process (e.g. for a demo
or a screenshot): `python tests/support/fake_openai.py --answer "..." --chunk-delay 0.05`
prints its base URL and serves until killed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

import pytest

CHAT_PATH = "/v1/chat/completions"
EMBEDDINGS_PATH = "/v1/embeddings"


@dataclass
class Step:
    """One scripted behaviour. Only the fields that matter for its kind are used."""

    text: str | None = None  # answer text (chat) - None: the default answer
    status: int = 200
    first_delay: float = 0.0  # seconds before anything is sent (a hanging server)
    chunk_delay: float = 0.0  # seconds between stream chunks, or between bytes of a raw body (a slow one)
    chunks: list[str] | None = None  # explicit stream chunks; default: word by word
    cut_after: int | None = None  # close the connection after this many chunks, mid-body
    end_without_done: bool = False  # end the body cleanly without finish_reason or [DONE]
    body: bytes | None = None  # raw body instead of a well-formed reply (garbage)
    flood: int | None = None  # stream this many bytes of one event line that never ends (no newline)
    content_type: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    times: int = 1


def reply(text: str | None = None, **kw) -> Step:
    return Step(text=text, **kw)


def fail(status: int = 500, times: int = 1, retry_after: float | None = None) -> Step:
    headers = {"Retry-After": f"{retry_after:g}"} if retry_after is not None else {}
    body = json.dumps({"error": {"message": "scripted failure", "type": "server_error", "code": status}})
    return Step(status=status, body=body.encode(), content_type="application/json", headers=headers, times=times)


def garbage(body: bytes, content_type: str = "text/event-stream", status: int = 200) -> Step:
    return Step(body=body, content_type=content_type, status=status)


def flood(size: int) -> Step:
    """An SSE body of `size` bytes without a single newline, generated as it is sent."""
    return Step(flood=size)


def hang(seconds: float) -> Step:
    return Step(first_delay=seconds)


def cut(text: str, after: int, chunk_delay: float = 0.0) -> Step:
    return Step(text=text, cut_after=after, chunk_delay=chunk_delay)


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    client: tuple[str, int] = ("", 0)  # the client's address and port: one per connection

    @property
    def json(self):
        return json.loads(self.body) if self.body else None


def words(text: str) -> list[str]:
    """Stream chunks the way real servers do: short pieces keeping their spaces."""
    return re.findall(r"\S+\s*|\s+", text) or [""]


def hashed_embedding(text: str, dim: int) -> list[float]:
    vec = [0.0] * dim
    for token in re.findall(r"\w+", text.lower()):
        h = int.from_bytes(hashlib.sha256(token.encode()).digest()[:8], "big")
        vec[h % dim] += 1.0 if (h >> 63) & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vec)) or 1.0
    return [v / norm for v in vec]


class FakeOpenAI:
    def __init__(self, model: str = "fake-model", embedding_dim: int = 64, host: str = "127.0.0.1"):
        self.model = model
        self.embedding_dim = embedding_dim
        # The default embeddings answer, a function of one input text (a test may give its own).
        self.embedding_for: Callable[[str], list[float]] = lambda text: hashed_embedding(text, self.embedding_dim)
        self.chat_answer: str | Callable[[dict], str] = "This is the fake model's answer."
        self.require_api_key: str | None = None
        self.refused_inputs: dict[str, int] = {}  # input text -> the HTTP status a request holding it gets
        self.requests: list[Recorded] = []
        self._scripts: dict[str, list[Step]] = {}
        self._lock = threading.Lock()
        self.closing = threading.Event()
        # host: another of this machine's addresses stands in for "another computer" (not loopback).
        self.host = host
        self._server = ThreadingHTTPServer((host, 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02},
                                        name="fake-openai", daemon=True)

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def start(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def close(self) -> None:
        self.closing.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    def script(self, *steps: Step, path: str = CHAT_PATH) -> None:
        with self._lock:
            self._scripts.setdefault(path, []).extend(steps)

    def unscript(self, path: str = CHAT_PATH) -> None:
        """Drop what is left of `path`'s script: the default answers from now on."""
        with self._lock:
            self._scripts.pop(path, None)

    def chat_requests(self) -> list[Recorded]:
        return [r for r in self.requests if r.path == CHAT_PATH]

    def next_step(self, path: str) -> Step:
        with self._lock:
            queue = self._scripts.get(path) or []
            if not queue:
                return Step()
            step = queue[0]
            step.times -= 1
            if step.times <= 0:
                queue.pop(0)
            return step

    def answer_for(self, body: dict) -> str:
        return self.chat_answer(body) if callable(self.chat_answer) else self.chat_answer


def _handler_for(fake: FakeOpenAI):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go in separate writes: with Nagle's algorithm the body waited for
        # the client's delayed ACK, 40 ms on every answer.
        disable_nagle_algorithm = True

        def log_message(self, *args) -> None:  # keep test output quiet
            pass

        def handle(self) -> None:
            try:
                super().handle()
            except (BrokenPipeError, ConnectionResetError):
                pass  # a client dropped its kept-alive connection between requests: fine

        def do_GET(self) -> None:
            self._record(b"")
            if self.path.rstrip("/") == "/v1/models":
                self._json(200, {"object": "list", "data": [{"id": fake.model, "object": "model"}]})
            else:
                self._json(404, {"error": {"message": "not found"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            self._record(raw)
            step = fake.next_step(self.path)
            try:
                if step.first_delay and fake.closing.wait(step.first_delay):
                    return
                if fake.require_api_key and self.headers.get("Authorization") != f"Bearer {fake.require_api_key}":
                    self._json(401, {"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}})
                elif step.flood is not None:
                    self._flood(step.flood)
                elif step.body is not None:
                    self._raw(step.status, step.body, step.content_type or "application/json", step.headers,
                              trickle=step.chunk_delay)
                elif self.path == CHAT_PATH:
                    self._chat(json.loads(raw), step)
                elif self.path == EMBEDDINGS_PATH:
                    self._embeddings(json.loads(raw))
                else:
                    self._json(404, {"error": {"message": "not found"}})
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client went away: fine

        def _record(self, raw: bytes) -> None:
            headers = {k.lower(): v for k, v in self.headers.items()}
            fake.requests.append(Recorded(self.command, self.path, headers, raw, self.client_address[:2]))

        def _chat(self, body: dict, step: Step) -> None:
            text = step.text if step.text is not None else fake.answer_for(body)
            model = body.get("model", fake.model)
            if not body.get("stream"):
                self._json(step.status, {
                    "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()), "model": model,
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                 "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": len(text.split()),
                              "total_tokens": 1 + len(text.split())}})
                return
            self.send_response(step.status)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            pieces = step.chunks if step.chunks is not None else words(text)
            for i, piece in enumerate(pieces):
                if step.cut_after is not None and i >= step.cut_after:
                    self._drop_connection()
                    return
                delta = {"role": "assistant", "content": piece} if i == 0 else {"content": piece}
                self._event(_chunk(model, delta, None))
                if step.chunk_delay and fake.closing.wait(step.chunk_delay):
                    return
            if not step.end_without_done:
                self._event(_chunk(model, {}, "stop"))
                self._chunked(b"data: [DONE]\n\n")
            self._chunked(b"")

        def _flood(self, size: int) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self._chunked(b"data: ")
            piece = b"x" * 65536
            for _ in range(size // len(piece)):
                if fake.closing.is_set():
                    return
                self._chunked(piece)
            self._chunked(b"")

        def _embeddings(self, body: dict) -> None:
            inputs = body.get("input")
            inputs = [inputs] if isinstance(inputs, str) else list(inputs or [])
            refused = [fake.refused_inputs[t] for t in inputs if t in fake.refused_inputs]
            if refused:
                self._json(refused[0], {"error": {"message": "this input is refused", "type": "invalid_request_error"}})
                return
            data = [{"object": "embedding", "index": i, "embedding": fake.embedding_for(str(t))}
                    for i, t in enumerate(inputs)]
            tokens = sum(len(str(t).split()) for t in inputs)
            self._json(200, {"object": "list", "data": data, "model": body.get("model", fake.model),
                             "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})

        def _event(self, obj: dict) -> None:
            self._chunked(f"data: {json.dumps(obj)}\n\n".encode())

        def _chunked(self, data: bytes) -> None:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

        def _drop_connection(self) -> None:
            self.close_connection = True
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)

        def _json(self, status: int, obj: dict) -> None:
            self._raw(status, json.dumps(obj).encode(), "application/json", {})

        def _raw(self, status: int, body: bytes, content_type: str, headers: dict[str, str],
                 trickle: float = 0.0) -> None:
            """The body at once, or (trickle > 0) one byte every `trickle` seconds."""
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            if not trickle:
                self.wfile.write(body)
                self.wfile.flush()
                return
            for i in range(len(body)):
                self.wfile.write(body[i:i + 1])
                self.wfile.flush()
                if fake.closing.wait(trickle):
                    return

    return Handler


def _chunk(model: str, delta: dict, finish_reason: str | None) -> dict:
    return {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}


@pytest.fixture
def fake_openai():
    with FakeOpenAI() as server:
        yield server


def main() -> None:
    parser = argparse.ArgumentParser(description="OpenAI-compatible test server on 127.0.0.1")
    parser.add_argument("--answer", default="This is the fake model's answer.")
    parser.add_argument("--chunk-delay", type=float, default=0.0, help="seconds between streamed chunks")
    parser.add_argument("--embedding-dim", type=int, default=64, help="dimensions of the embeddings answered")
    args = parser.parse_args()
    fake = FakeOpenAI(embedding_dim=args.embedding_dim)
    fake.script(reply(args.answer, chunk_delay=args.chunk_delay, times=10**9))
    print(fake.base_url, flush=True)
    fake.start()
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        fake.close()


if __name__ == "__main__":
    main()
