"""The real dispatch core in this process, for tests whose subject is an action's logic.

`InProcessHost` has HostProcess's API (send/recv/request/close, stderr_text) and sends the
same bytes: requests are framed into a pipe that server.loop.Server reads with
iter_frames, the replies come back through its FrameWriter. It skips only what needs a
process (the early responder, argv's origin, fd 1 kept for frames, signals, exit on EOF,
the control socket): tests/protocol covers those over real pipes with HostProcess.

The host reads its dirs and settings from the environment (WHITEBOARD_*, XDG_*, HOME):
the environment is the given one while the host is open and restored at close. The only
state kept between hosts is what holds no user data and costs time to load: the
tokenizer and the bundled embedding model.
"""

from __future__ import annotations

import io
import logging
import os
import select
import tempfile
import threading
import time

import pytest

from whiteboard.actions import load_all
from whiteboard.app import App
from whiteboard.config import HostConfig
from whiteboard.protocol.framing import FrameWriter
from whiteboard.server.loop import Server
from whiteboard.sessions.store import start_cleanup_timer
from whiteboard.tokens import TokenCounter

from .host import FramedPeer

_tokens: list[TokenCounter] = []


def loaded_tokens() -> TokenCounter:
    """One loaded tokenizer for every in-process host (the host process loads its own)."""
    if not _tokens:
        _tokens.append(TokenCounter().load_now())
    return _tokens[0]


class InProcessHost(FramedPeer):
    def __init__(self, env: dict[str, str] | None = None):
        self._env = pytest.MonkeyPatch()
        if env is not None:
            for name in set(os.environ) - set(env):
                self._env.delenv(name)
            for name, value in env.items():
                self._env.setenv(name, value)
            self._env.setattr(tempfile, "tempdir", None)  # it caches TMPDIR
        # The host's log, as its stderr would have it (main.py's level and format).
        self._log = io.StringIO()
        self._handler = logging.StreamHandler(self._log)
        self._handler.setFormatter(logging.Formatter("whiteboard-host %(levelname)s %(name)s: %(message)s"))
        logger = logging.getLogger("whiteboard")
        self._log_level = logger.level
        logger.setLevel(os.environ.get("WHITEBOARD_LOG_LEVEL", "WARNING"))
        logger.addHandler(self._handler)
        try:
            self._start()
        except BaseException:
            self._restore()
            raise
        self.closed = False

    def _start(self) -> None:
        load_all()
        self.app = App(HostConfig.from_env(), tokens=loaded_tokens())
        start_cleanup_timer(self.app.sessions, self.app.stopping)
        requests_in, requests_out = os.pipe()
        replies_in, replies_out = os.pipe()
        # The server's end of the replies stays open: once the test has closed its end, a
        # late reply meets a broken pipe, as in a host whose browser has gone.
        self.server = Server(self.app, os.fdopen(requests_in, "rb"), FrameWriter(os.fdopen(replies_out, "wb", 0)))
        super().__init__(os.fdopen(requests_out, "wb"), replies_in)
        self._thread = threading.Thread(target=self._serve, name="inprocess-host", daemon=True)
        self._thread.start()
        self.app.memory_at_start()  # as the host does once its stack has loaded

    def _serve(self) -> None:
        try:
            self.server.serve()
        finally:
            self.server.stdin.close()

    def close(self, timeout: float = 5.0) -> int:
        """End the input (the browser closed the port), wait for the server, restore the environment."""
        if self.closed:
            return 0
        self.closed = True
        try:
            self._to_host.close()
            # Read what is left meanwhile: a server blocked writing a reply could not reach the end.
            deadline = time.monotonic() + timeout
            while self._thread.is_alive() and time.monotonic() < deadline:
                if select.select([self._from_host], [], [], 0.02)[0]:
                    os.read(self._from_host, 1 << 16)
            assert not self._thread.is_alive(), "the in-process server did not stop at the end of its input"
            self.app.close()
        finally:
            self.app.stopping.set()
            os.close(self._from_host)
            self._restore()
        return 0

    def _restore(self) -> None:
        logger = logging.getLogger("whiteboard")
        logger.removeHandler(self._handler)
        logger.setLevel(self._log_level)
        self.stderr_text = self._log.getvalue()
        self._env.undo()
