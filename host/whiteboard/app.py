"""The host's services, created once per process and shared by every action."""

from __future__ import annotations

import threading

from .config import HostConfig
from .sessions.store import SessionStore
from .sessions.summary import ExtractiveSummarizer
from .tokens import TokenCounter


class App:
    def __init__(self, config: HostConfig | None = None, tokens: TokenCounter | None = None):
        self.config = config or HostConfig.from_env()
        self.tokens = tokens or TokenCounter()
        self.sessions = SessionStore(self.config.limits)
        self.summarizer = ExtractiveSummarizer(self.tokens)
        self.stopping = threading.Event()
        # Requests running off the reader thread, by request id (for cancellation).
        self.inflight: dict[object, "RequestContext"] = {}
        self.inflight_lock = threading.Lock()


class RequestContext:
    """What an action sees of the server: the app, its request id, events and cancellation."""

    def __init__(self, app: App, request_id, emit):
        self.app = app
        self.request_id = request_id
        self._emit = emit
        self.cancelled = threading.Event()

    def emit(self, event: str, **fields) -> None:
        self._emit({"event": event, "ref": self.request_id, **fields})
