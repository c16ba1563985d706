"""The browser's pipe: stdin's frames through the dispatch core, the work on bounded pools.

The reader thread reads frames and runs only the inline actions (ping, so it is always
answered at once, and ask.cancel); every other request runs on a pool (dispatch.Channel).
All output goes through one FrameWriter.
"""

from __future__ import annotations

from typing import BinaryIO, Iterable

from ..app import App
from ..protocol.errors import Forbidden, WhiteboardError
from ..protocol.framing import FrameWriter, iter_frames
from .dispatch import Channel
from .pool import WorkerPool

FINISH_WITHIN = 1.0  # seconds for the tabs' requests read before EOF; Chrome kills the host 2 s after closing


class Server:
    def __init__(self, app: App, stdin: BinaryIO, writer: FrameWriter, origin_allowed: bool = True,
                 pool: WorkerPool | None = None):
        self.app = app
        self.stdin = stdin
        self.origin_allowed = origin_allowed
        # A write to a closed pipe stops the host: the browser has gone.
        self.channel = Channel(app, writer, name="pipe", admit=self._admit, pool=pool or WorkerPool(),
                               on_closed=app.stopping.set)

    def serve(self, frames: Iterable[bytes | WhiteboardError] | None = None) -> None:
        """Serve until EOF (the browser closed the port), a stream no browser writes, or app.stopping."""
        self.channel.serve(iter_frames(self.stdin, self.app.config.inbound_cap) if frames is None else frames)
        self.channel.close(finish_within=FINISH_WITHIN)
        self.app.stopping.set()

    def handle_body(self, body: bytes) -> None:
        self.channel.handle(body)

    def _admit(self, raw: dict) -> WhiteboardError | None:
        return None if self.origin_allowed else Forbidden("this host serves only the Whiteboard extension")
