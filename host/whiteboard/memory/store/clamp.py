"""A memory read from the vault, its times and counts moved into the ranges of
protocol/bounds.py. An older version imported any number (`updated_at: 1e300`), and one
such row made recall, the preview and the CLI fail; clamped, it is served like any other."""

from __future__ import annotations

import math
from dataclasses import replace

from ...protocol.bounds import clamp_count, clamp_time
from ..model import Memory, OldText


def _time(value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError("a stored time is not a finite number")
    return clamp_time(value)


def clamped(m: Memory) -> Memory:
    """The memory with every time and count in range (ValueError for a time that is no number)."""
    return replace(m, created_at=_time(m.created_at), updated_at=_time(m.updated_at),
                   usage_count=clamp_count(m.usage_count),
                   last_used_at=None if m.last_used_at is None else _time(m.last_used_at),
                   pinned_at=None if m.pinned_at is None else _time(m.pinned_at),
                   old_texts=[OldText(o.text, _time(o.replaced_at)) for o in m.old_texts])
