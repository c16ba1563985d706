"""Where a model is and how long to wait for it (kept apart from the client so importing
settings does not import httpx: the host starts faster)."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit


@dataclass(frozen=True)
class Endpoint:
    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)

    @property
    def origin(self) -> str:
        """scheme://host:port, safe to show: a URL's path or query could hold a token."""
        parts = urlsplit(self.base_url)
        return f"{parts.scheme}://{parts.hostname}" + (f":{parts.port}" if parts.port else "")


@dataclass(frozen=True)
class Timeouts:
    connect: float = 5.0
    read: float = 60.0  # the longest silence while waiting for the answer to start or go on
    total: float = 180.0  # the whole call, retries included
