"""`whiteboard-host`: what the browser launches (DESIGN §2).

stdout is reserved for frames: the real fd 1 is duplicated for the writer and fd 1
is pointed at stderr, so a stray print or a library's output can never corrupt a frame.
"""

from __future__ import annotations

import logging
import os
import signal
import sys

from ..actions import load_all
from ..app import App
from ..config import HostConfig
from ..sessions.store import start_cleanup_timer
from .loop import Server
from .origin import caller_origin


def disable_core_dumps() -> None:
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (ImportError, ValueError, OSError):
        pass  # Windows has no core dumps to disable.


def _no_content_excepthook(exc_type, exc, tb) -> None:
    # An uncaught exception's message may hold session content: log its type only.
    logging.getLogger("whiteboard").critical("host crashed: %s", exc_type.__name__)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv if argv is None else argv
    disable_core_dumps()
    sys.excepthook = _no_content_excepthook
    logging.basicConfig(stream=sys.stderr, level=os.environ.get("WHITEBOARD_LOG_LEVEL", "WARNING"),
                        format="whiteboard-host %(levelname)s %(name)s: %(message)s")
    frames_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    frames_in = os.fdopen(os.dup(sys.stdin.fileno()), "rb", buffering=0)

    config = HostConfig.from_env()
    origin = caller_origin(argv)
    allowed = origin in config.allowed_origins
    if not allowed:
        logging.getLogger("whiteboard").error("refusing caller %r: not an allowed origin", origin)

    app = App(config)
    app.tokens.start_loading()
    load_all()
    start_cleanup_timer(app.sessions, app.stopping)

    def on_term(signum, frame):
        app.stopping.set()
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, on_term)
    try:
        Server(app, frames_in, frames_out, origin_allowed=allowed).serve()
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        app.stopping.set()
    return 0


if __name__ == "__main__":
    sys.exit(main())
