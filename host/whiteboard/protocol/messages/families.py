"""Message families beyond the core, each in its own module; add a family's PAIRS here."""

from __future__ import annotations

from .base import Reply, Request

PAIRS: dict[str, tuple[type[Request], type[Reply]]] = {}
