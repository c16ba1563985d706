"""A memory read from the vault, its times and counts moved into the ranges of
protocol/bounds.py. An older version imported any number (`updated_at: 1e300`), and one
such row made recall, the preview and the CLI fail; clamped, it is served like any other."""

from __future__ import annotations

import math

from ...protocol.bounds import clamp_count, clamp_time
from ..model import Memory, OldText


def _time(value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError("a stored time is not a finite number")
    return clamp_time(value)


def _optional_time(value: float | None) -> float | None:
    return None if value is None else _time(value)


def clamped_memory(memory_id: str, type_: str, text: str, tags: list, keywords: list, confidence: float,
                   site: str | None, rev: int, created, updated, usage, last_used, pinned_at, old,
                   origin: str | None = None) -> Memory:
    """The memory a row holds, every time and count in range (ValueError for a time that is
    no number): built once, as decoding the vault builds one per row when the host starts."""
    return Memory(id=memory_id, type=type_, text=text, created_at=_time(created), updated_at=_time(updated),
                  tags=tags, keywords=keywords, confidence=confidence, site=site, usage_count=clamp_count(usage),
                  last_used_at=_optional_time(last_used), rev=rev, pinned_at=_optional_time(pinned_at),
                  old_texts=[OldText(t, _time(at)) for t, at in old] if old else [],
                  origin=origin if isinstance(origin, str) else None)
