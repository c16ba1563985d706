"""The one dispatch core: frames in, exactly one reply per frame out, on every channel.

The browser's pipe (loop.py), the control socket (control.py) and, once the stack has
loaded, what the early responder hands on (main.py) all go through a Channel: the same
decoding and admission, the same reply-type check, the same size limits and error
translation, the same logging. Nothing from a message's content is ever logged: only
types, error classes and the traceback's code lines (design §3, §14).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import traceback
from collections.abc import Callable, Iterable

from ..actions import HANDLERS, Action
from ..app import App, RequestContext
from ..protocol.envelope import Rejected, read_request
from ..protocol.errors import Internal, TooLarge, WhiteboardError, error_reply
from ..protocol.framing import FrameWriter
from ..protocol.messages import Request
from .pool import TAB_THREADS, Busy, WorkerPool

log = logging.getLogger("whiteboard.server")

Admit = Callable[[dict], "WhiteboardError | None"]


def dispatch(request: Request, ctx: RequestContext, action: Action | None = None) -> dict:
    """Run the request's handler; its reply message or its error reply. Never raises."""
    action = action or HANDLERS[request.type]
    try:
        reply = action.handler(request, ctx)
        if not isinstance(reply, request.reply_model):
            raise TypeError(f"{request.type} handler returned {type(reply).__name__}")
        return {"id": request.id, "ok": True, **reply.model_dump(mode="json", by_alias=True)}
    except WhiteboardError as exc:
        return error_reply(request.id, exc)
    except Exception as exc:  # noqa: BLE001 - a failing request never takes the host down
        log_failure(request.type, exc)
        return error_reply(request.id, Internal(f"{request.type} failed ({type(exc).__name__}); see the host log"))


def log_failure(what: str, exc: BaseException) -> None:
    # The traceback's frames name code lines only; the exception's message may hold content.
    frames = "".join(traceback.format_tb(exc.__traceback__))
    log.error("%s raised %s\n%s", what, type(exc).__name__, frames)


# A frame this small is decoded and validated on the reader thread in about a millisecond;
# a larger one (up to the inbound cap) is decoded on the intake thread.
DECODE_ON_READER = 64 * 1024


class Channel:
    """One connection's side of the core: where its replies go, what it admits, where its work runs.

    Without a pool (the control socket, whose connections are few and whose ids are not
    the browser's) every action runs on the channel's own thread. With one (the browser's
    pipe) the reader thread runs only the `inline` actions (ping, ask.cancel: bounded, no
    lock that work holds) and routes every other request in arrival order, through the
    intake thread when a large frame is ahead of it (the intake decodes those):

    - an ordered action (the default) to `tabs`, one at a time per tab key in arrival
      order, so a send sees the turns and selections sent before it for its tab;
    - a `blocking` one to `pool` (registered in app.inflight for ask.cancel), once its
      tab's earlier ordered requests have finished, as when those ran on the reader.

    A full queue answers `unavailable`/"busy" at once (design §3).
    """

    def __init__(self, app: App, writer: FrameWriter, *, name: str, admit: Admit | None = None,
                 pool: WorkerPool | None = None, on_closed: Callable[[], None] | None = None):
        self.app, self.writer, self.name, self.pool = app, writer, name, pool
        self.admit = admit or (lambda raw: None)
        self.on_closed = on_closed
        self.closed = threading.Event()  # the peer went away: nobody is left to answer
        if pool is not None:
            self.intake = WorkerPool(threads=1, name="intake")
            self.tabs = WorkerPool(threads=TAB_THREADS, name="tab")

    def serve(self, frames: Iterable[bytes | WhiteboardError]) -> None:
        """Handle frames until they end, the peer goes away or the app stops."""
        for item in frames:
            self.handle(item)
            if self.closed.is_set() or self.app.stopping.is_set():
                break

    def close(self, finish_within: float = 0.0) -> None:
        """No more frames: the pools' threads end once their queues are empty. The requests
        of tabs already read get up to finish_within seconds to finish (a send's usage
        count, a captured turn), as they did when they ran on the reader thread."""
        if self.pool is None:
            return
        for pool in (self.intake, self.tabs, self.pool):
            pool.close()
        deadline = time.monotonic() + finish_within
        for pool in (self.intake, self.tabs):
            pool.wait_idle(max(0.0, deadline - time.monotonic()))

    def handle(self, item: bytes | WhiteboardError) -> None:
        """One frame's body (or the framing error in its place): one reply, now or from a pool."""
        with self._guard("frame"):
            if isinstance(item, WhiteboardError):
                self.send(error_reply(None, item))
            elif self.pool is not None and len(item) > DECODE_ON_READER:
                self._submit(self.intake, lambda: self._read_and_route(item), len(item))
            else:
                request = self._read(item)
                if request is not None:
                    self._start(request, len(item))

    def _read(self, body: bytes) -> Request | None:
        """The frame's request; None when it was refused (and answered)."""
        try:
            return read_request(body, self.admit)
        except Rejected as rejected:
            self.send(error_reply(rejected.request_id, rejected.error))
            return None

    def _start(self, request: Request, size: int, on_intake: bool = False) -> None:
        action = HANDLERS[request.type]
        if action.inline or self.pool is None:
            self.send(dispatch(request, RequestContext(self.app, request.id, self.send,
                                                       cancellable=action.blocking), action))
            return
        ctx = RequestContext(self.app, request.id, self.send, cancellable=action.blocking)
        if action.blocking:
            # Registered before the job is queued, so a cancel sent right after always finds it.
            with self.app.inflight_lock:
                self.app.inflight[request.id] = ctx
        # Routed now when nothing before it waits on the intake (only this thread queues there):
        # still in arrival order, without a second hand-off on a send's way.
        if on_intake or self.intake.idle():
            self._route(action, request, ctx, size)
        else:
            self._submit(self.intake, lambda: self._route(action, request, ctx, size), size, ctx)

    def _read_and_route(self, body: bytes) -> None:
        with self._guard("frame"):
            request = self._read(body)
            if request is not None:
                self._start(request, len(body), on_intake=True)

    def _route(self, action: Action, request: Request, ctx: RequestContext, size: int) -> None:
        """On the reader or the intake thread, in arrival order: each request to the pool it runs on."""
        with self._guard(request.type):
            key = getattr(request, "key", None)
            run = lambda: self._finish(action, request, ctx)  # noqa: E731
            if not action.blocking:
                self._submit(self.tabs, run, size, ctx, key)
            elif key is None:
                self._submit(self.pool, run, size, ctx)
            else:  # it may read what its tab's earlier requests recorded (a selection, captured turns)
                self._submit(self.tabs, lambda: self._submit(self.pool, run, size, ctx), size, ctx, key)

    def _submit(self, pool: WorkerPool, job: Callable[[], None], size: int, ctx: RequestContext | None = None,
                key=None) -> None:
        """`ctx`: the request's, when it has been read (a frame still to be decoded has none)."""
        try:
            pool.submit(job, size, key)
        except Busy as busy:
            if ctx is not None:
                self._forget(ctx.request_id, ctx)
            self.send(error_reply(ctx.request_id if ctx is not None else None, busy))

    def _finish(self, action: Action, request: Request, ctx: RequestContext) -> None:
        try:
            message = dispatch(request, ctx, action)
        finally:
            self._forget(request.id, ctx)
        self.send(message)

    def _forget(self, request_id, ctx: RequestContext) -> None:
        with self.app.inflight_lock:
            if self.app.inflight.get(request_id) is ctx:
                del self.app.inflight[request_id]

    @contextlib.contextmanager
    def _guard(self, what: str):
        """The last guard: no frame ends a channel or a pool's thread without its reply."""
        try:
            yield
        except Exception as exc:  # noqa: BLE001
            log_failure(f"{self.name} {what}", exc)
            self.send(error_reply(None, Internal("the host could not handle a message; see the host log")))

    def send(self, message: dict) -> None:
        """Write a reply or an event; a reply too large becomes its too_large error, an event is dropped."""
        try:
            try:
                self.writer.write(message)
            except TooLarge as exc:
                if "ok" not in message:
                    log.warning("dropped an oversize %s event", message.get("event"))
                    return
                self.writer.write(error_reply(message["id"], exc))  # ids are bounded: this one fits
        except OSError:
            self.closed.set()
            if self.on_closed is not None:
                self.on_closed()
