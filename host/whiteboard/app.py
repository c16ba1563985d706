"""The host's services, created once per process and shared by every action."""

from __future__ import annotations

import threading
from collections.abc import Callable

from .config import HostConfig
from .llm.layer import ModelLayer
from .llm.summary import RefiningSummarizer
from .sessions.store import SessionStore
from .sessions.summary import fold_pending
from .sites import SiteStore
from .tokens import TokenCounter


class App:
    def __init__(self, config: HostConfig | None = None, tokens: TokenCounter | None = None):
        self.config = config or HostConfig.from_env()
        self.tokens = tokens or TokenCounter()
        self.sessions = SessionStore(self.config.limits)
        self.sites = SiteStore()  # per-site settings, the memory service's too
        # The configured model, if any; the summary is extractive at once, refined by the model later.
        self.llm = ModelLayer()
        self.summarizer = RefiningSummarizer(self.tokens, self.sessions, self.llm)
        self.sessions.fold = lambda session: fold_pending(
            session, self.summarizer, self.tokens, self.config.limits.summary_max_tokens)
        self.stopping = threading.Event()
        # Run by close() at exit (the control socket's file): the host leaves with os._exit.
        self.on_close: list[Callable[[], None]] = []
        # Requests running off the reader thread, by request id (for cancellation).
        self.inflight: dict[object, RequestContext] = {}
        self.inflight_lock = threading.Lock()

    @property
    def memory(self):
        """Long-term memory (design §5): vault, index, extraction; created on first use."""
        from .memory.hub import service_for

        return service_for(self)

    def memory_at_start(self) -> None:
        """Open the vault and build its index now (design §5) if the user turned long-term
        memory on for any site; otherwise no memory code is even imported (design §1)."""
        if any(site.memory_on for site in self.sites.all()):
            from .memory.hub import open_at_start

            open_at_start(self)

    def forget_draft(self, key: str | None = None) -> None:
        """Drop the vector of the tab's draft (chat.draft; every tab's when `key` is None) at
        once: it was sent, or the tab closed or left its site. Never opens the memory service
        for it, nor loads memory's code (design §1)."""
        service = self.__dict__.get("_memory_service")
        if service is not None:
            service.forget_draft(key)

    def close(self, timeout: float = 1.0) -> None:
        """At exit: write the usage counts still queued. Bounded, because the browser kills
        the host 2 s after it closes the port; nothing else here needs saving."""
        service = self.__dict__.get("_memory_service")
        if service is not None:
            service.usage.flush(timeout)
        for close in self.on_close:
            close()


# An inline action runs to its end before the next frame is read, so nothing can cancel
# it: it shares this event, which is never set, instead of paying for one per request.
_NOT_CANCELLABLE = threading.Event()


class RequestContext:
    """What an action sees of the server: the app, its request id, events and cancellation."""

    def __init__(self, app: App, request_id, emit, cancellable: bool = True):
        self.app = app
        self.request_id = request_id
        self._emit = emit
        self.cancelled = threading.Event() if cancellable else _NOT_CANCELLABLE

    def emit(self, event: str, **fields) -> None:
        self._emit({"event": event, "ref": self.request_id, **fields})
