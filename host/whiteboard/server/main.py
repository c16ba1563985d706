"""`whiteboard-host`: what the browser launches (design §2).

stdout is reserved for frames: the real fd 1 is duplicated for the writer and fd 1
is pointed at stderr, so a stray print or a library's output can never corrupt a frame.
The message stack loads on a thread while bootstrap answers early pings; then every
frame goes through the dispatch core (dispatch.py).
"""

from __future__ import annotations

import itertools
import logging
import os
import signal
import sys
import threading
from typing import NoReturn

from ..config import HostConfig
from ..protocol.framing import FrameWriter, iter_frames
from . import presence
from .bootstrap import answer_early
from .origin import caller_origin, describe_refused

STACK_CLOSE_WAIT = 1.0  # seconds; Chrome kills the host 2 s after closing the port
log = logging.getLogger("whiteboard")


def disable_core_dumps() -> None:
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (ImportError, ValueError, OSError):
        pass  # Windows has no core dumps to disable.


def _no_content_excepthook(exc_type, exc, tb) -> None:
    # An uncaught exception's message may hold session content: log its type only.
    log.critical("host crashed: %s", exc_type.__name__)


def _no_content_thread_excepthook(args) -> None:
    log.critical("thread %s crashed: %s", args.thread.name if args.thread else "?", args.exc_type.__name__)


class StackLoader(threading.Thread):
    """Imports the message schemas and actions, builds the App, then loads the tokenizer: all
    off the reader thread."""

    def __init__(self, config: HostConfig, allowed: bool, frames_in, writer: FrameWriter):
        super().__init__(name="stack-load", daemon=True)
        self.config, self.allowed, self.frames_in, self.writer = config, allowed, frames_in, writer
        self.app = None
        self.server = None
        self.error: BaseException | None = None
        self.done = threading.Event()

    def run(self) -> None:
        try:
            from ..actions import load_all
            from ..app import App
            from ..sessions.store import start_cleanup_timer
            from .loop import Server

            app = self.app = App(self.config)
            load_all()
            start_cleanup_timer(app.sessions, app.stopping)
            if self.allowed:
                from .control import start_control_socket

                start_control_socket(app)  # local read-only channel for `whiteboard export`
            self.server = Server(app, self.frames_in, self.writer, origin_allowed=self.allowed)
        except BaseException as exc:  # noqa: BLE001 - reported by main, which exits non-zero
            self.error = exc
        finally:
            self.done.set()
        if self.server is not None:
            # After the stack, on this same thread: the loads do not fight for the GIL, and
            # the tokenizer's freed scratch memory goes back to the OS from one arena.
            self.server.app.tokens.load_now()
            self.server.app.memory_at_start()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv if argv is None else argv
    disable_core_dumps()
    sys.excepthook = _no_content_excepthook
    threading.excepthook = _no_content_thread_excepthook
    logging.basicConfig(stream=sys.stderr, level=os.environ.get("WHITEBOARD_LOG_LEVEL", "WARNING"),
                        format="whiteboard-host %(levelname)s %(name)s: %(message)s")
    writer = FrameWriter(os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0))
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    # Buffered: one read syscall usually brings a whole frame, header and body.
    frames_in = os.fdopen(os.dup(sys.stdin.fileno()), "rb")

    try:
        config = HostConfig.from_env()
        _running_here = presence.hold()  # this data folder's lock, held (open) until the process exits
    except ValueError as exc:  # a WHITEBOARD_* limit out of range, a relative folder: said, not a traceback
        log.error("%s", exc)
        return 2
    origin = caller_origin(argv)
    allowed = origin in config.allowed_origins
    if not allowed:
        log.error("%s", describe_refused(argv))

    loader = StackLoader(config, allowed, frames_in, writer)
    stop = threading.Event()

    def on_term(signum, frame):
        stop.set()
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, on_term)
    try:
        loader.start()
        frames = answer_early(iter_frames(frames_in, config.inbound_cap), loader.done, writer, pings=allowed)
        first = next(frames, None)  # the first frame the early responder cannot answer
        if first is None:
            return 0
        loader.done.wait()
        if loader.error is not None:
            log.critical("host failed to start: %s", type(loader.error).__name__)
            return 1
        loader.server.serve(itertools.chain([first], frames))
    except (KeyboardInterrupt, SystemExit, BrokenPipeError, ConnectionResetError):
        pass  # asked to stop, or the browser closed the port
    finally:
        # A port closed at once may find the stack half-built (the control socket bound, the
        # server not yet): wait for it briefly, so that what it opened is closed too.
        loader.done.wait(STACK_CLOSE_WAIT)
        if loader.app is not None:
            loader.app.stopping.set()
            loader.app.close()
    return 0


def run() -> NoReturn:
    """The host's entry point: main(), then leave without interpreter finalization. A daemon
    thread still inside native code then (the stack still loading when the port closes at
    once) would be unwound through it and abort the process ("exception not rethrown");
    everything that must outlive the loop was done by main's cleanup."""
    code = main()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    run()
