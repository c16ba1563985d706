"""The dispatch loop: one reply per request, whatever arrives; the host keeps serving.

The reader thread reads frames and runs quick actions inline; blocking actions get a
thread of their own. All output goes through one FrameWriter. Nothing from a
message's content is ever logged: only types, ids' kinds and error classes.
"""

from __future__ import annotations

import logging
import threading
import traceback
from typing import BinaryIO

from ..actions import HANDLERS, Action
from ..app import App, RequestContext
from ..protocol.envelope import Rejected, read_request
from ..protocol.errors import Forbidden, Internal, TooLarge, WhiteboardError
from ..protocol.framing import FrameWriter, OversizeFrame, ShortRead, read_frame
from ..protocol.messages import REQUESTS, Request

log = logging.getLogger("whiteboard.server")


class Server:
    def __init__(self, app: App, stdin: BinaryIO, writer: FrameWriter, origin_allowed: bool = True):
        self.app = app
        self.stdin = stdin
        self.writer = writer
        self.origin_allowed = origin_allowed

    def serve(self) -> None:
        """Serve until EOF (the browser closed the port) or app.stopping."""
        cap = self.app.config.inbound_cap
        while not self.app.stopping.is_set():
            try:
                body = read_frame(self.stdin, cap)
            except OversizeFrame as exc:
                self._send_error(None, TooLarge(str(exc)))
                continue
            except ShortRead:
                log.warning("input ended inside a frame; stopping")
                break
            if body is None:
                break
            self.handle_body(body)
        self.app.stopping.set()

    def handle_body(self, body: bytes) -> None:
        try:
            request = read_request(body, self._admit)
        except Rejected as rejected:
            self._send_error(rejected.request_id, rejected.error)
            return
        action = HANDLERS[request.type]
        ctx = RequestContext(self.app, request.id, self._send_event, cancellable=action.blocking)
        if action.blocking:
            # Registered before the thread starts, so a cancel sent right after always finds it.
            with self.app.inflight_lock:
                self.app.inflight[request.id] = ctx
            threading.Thread(target=self.run, args=(action, request, ctx), name=f"action-{request.type}",
                             daemon=True).start()
        else:
            self.run(action, request, ctx)

    def _admit(self, raw: dict) -> WhiteboardError | None:
        return None if self.origin_allowed else Forbidden("this host serves only the Whiteboard extension")

    def run(self, action: Action, request: Request, ctx: RequestContext) -> None:
        try:
            reply = action.handler(request, ctx)
            expected = REQUESTS[request.type][1]
            if not isinstance(reply, expected):
                raise TypeError(f"{action.type} handler returned {type(reply).__name__}")
            message = {"id": request.id, "ok": True, **reply.model_dump(mode="json", by_alias=True)}
        except WhiteboardError as exc:
            self._send_error(request.id, exc)
            return
        except Exception as exc:  # noqa: BLE001 - a failing request never takes the host down
            self._log_failure(action.type, exc)
            self._send_error(request.id, Internal(f"{action.type} failed ({type(exc).__name__}); see the host log"))
            return
        finally:
            if action.blocking:
                with self.app.inflight_lock:
                    self.app.inflight.pop(request.id, None)
        try:
            self._write(message)
        except TooLarge as exc:
            self._send_error(request.id, exc)

    def _send_event(self, event: dict) -> None:
        try:
            self._write(event)
        except TooLarge:
            log.warning("dropped an oversize %s event", event.get("event"))

    def _send_error(self, request_id, error: WhiteboardError) -> None:
        self._write({"id": request_id, "ok": False, "error": error.to_wire()})

    def _write(self, message: dict) -> None:
        try:
            self.writer.write(message)
        except (BrokenPipeError, ConnectionResetError):
            # The browser closed the port: nobody is left to answer.
            self.app.stopping.set()

    @staticmethod
    def _log_failure(type_name: str, exc: BaseException) -> None:
        # The traceback's frames name code lines only; the exception's message may hold content.
        frames = "".join(traceback.format_tb(exc.__traceback__))
        log.error("%s raised %s\n%s", type_name, type(exc).__name__, frames)
