"""The configured model as the rest of the host sees it.

Settings are resolved once and re-read whenever the settings file changes (the CLI
may change it while the host runs). httpx is imported only when a client is needed.
"""

from __future__ import annotations

import threading
from typing import Mapping

from ..protocol.errors import WhiteboardError
from .endpoint import Timeouts
from .errors import NoModel
from .settings import Resolved, SettingsStore, resolve


class ModelLayer:
    def __init__(self, store: SettingsStore | None = None, env: Mapping[str, str] | None = None):
        self._store = store
        self._env = env
        self._lock = threading.Lock()
        self._cached: Resolved | None = None
        self._signature: object = object()

    @property
    def store(self) -> SettingsStore:
        # Created on first use so WHITEBOARD_CONFIG_DIR set after App() still counts.
        if self._store is None:
            self._store = SettingsStore()
        return self._store

    def settings(self) -> Resolved:
        with self._lock:
            signature = self.store.signature()
            if self._cached is None or signature != self._signature:
                self._cached = resolve(self.store, self._env)
                self._signature = signature
            return self._cached

    def invalidate(self) -> None:
        with self._lock:
            self._cached = None

    def configured(self) -> bool:
        try:
            return self.settings().configured
        except WhiteboardError:  # broken settings count as none here; asking says what is wrong
            return False

    def client(self, timeouts: Timeouts | None = None, retries: int = 2, max_reply_bytes: int | None = None):
        """A ChatClient for the configured endpoint (its own time limits unless `timeouts`;
        `retries` and `max_reply_bytes` for a caller that wants a short answer fast or none);
        NoModel when there is none."""
        from .client import MAX_REPLY_BYTES, ChatClient

        settings = self.settings()
        if not settings.configured:
            raise NoModel()
        return ChatClient(settings.endpoint(), timeouts or settings.timeouts, retries=retries,
                          max_reply_bytes=max_reply_bytes or MAX_REPLY_BYTES)
