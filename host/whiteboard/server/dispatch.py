"""The one dispatch core: frames in, exactly one reply per frame out, on every channel.

The browser's pipe (loop.py), the control socket (control.py) and, once the stack has
loaded, what the early responder hands on (main.py) all go through a Channel: the same
decoding and admission, the same reply-type check, the same size limits and error
translation, the same logging. Nothing from a message's content is ever logged: only
types, error classes and the traceback's code lines (design §3, §14).
"""

from __future__ import annotations

import logging
import threading
import traceback
from collections.abc import Callable, Iterable

from ..actions import HANDLERS, Action
from ..app import App, RequestContext
from ..protocol.envelope import Rejected, read_request
from ..protocol.errors import Internal, TooLarge, WhiteboardError, error_reply
from ..protocol.framing import FrameWriter
from ..protocol.messages import Request
from .pool import Busy, WorkerPool

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


class Channel:
    """One connection's side of the core: where its replies go, what it admits, where blocking work runs.

    With a pool, blocking actions run on it (registered in app.inflight for ask.cancel)
    and a full pool answers `unavailable`/"busy" at once; without one (the control socket,
    whose connections are few and whose ids are not the browser's) they run inline.
    """

    def __init__(self, app: App, writer: FrameWriter, *, name: str, admit: Admit | None = None,
                 pool: WorkerPool | None = None, on_closed: Callable[[], None] | None = None):
        self.app, self.writer, self.name, self.pool = app, writer, name, pool
        self.admit = admit or (lambda raw: None)
        self.on_closed = on_closed
        self.closed = threading.Event()  # the peer went away: nobody is left to answer

    def serve(self, frames: Iterable[bytes | WhiteboardError]) -> None:
        """Handle frames until they end, the peer goes away or the app stops."""
        for item in frames:
            self.handle(item)
            if self.closed.is_set() or self.app.stopping.is_set():
                break

    def handle(self, item: bytes | WhiteboardError) -> None:
        """One frame's body (or the framing error in its place): one reply, now or from the pool."""
        try:
            if isinstance(item, WhiteboardError):
                self.send(error_reply(None, item))
                return
            try:
                request = read_request(item, self.admit)
            except Rejected as rejected:
                self.send(error_reply(rejected.request_id, rejected.error))
                return
            self._start(request, len(item))
        except Exception as exc:  # noqa: BLE001 - the last guard: no frame ends a channel
            log_failure(f"{self.name} frame", exc)
            self.send(error_reply(None, Internal("the host could not handle a message; see the host log")))

    def _start(self, request: Request, size: int) -> None:
        action = HANDLERS[request.type]
        if not action.blocking or self.pool is None:
            self.send(dispatch(request, RequestContext(self.app, request.id, self.send,
                                                       cancellable=action.blocking), action))
            return
        ctx = RequestContext(self.app, request.id, self.send)
        # Registered before the job is queued, so a cancel sent right after always finds it.
        with self.app.inflight_lock:
            self.app.inflight[request.id] = ctx
        try:
            self.pool.submit(lambda: self._finish(action, request, ctx), size)
        except Busy as busy:
            self._forget(request.id, ctx)
            self.send(error_reply(request.id, busy))

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
