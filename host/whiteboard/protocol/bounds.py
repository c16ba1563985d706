"""The ranges of every number that enters the host (issue 20 item 4; docs/protocol.md, Numbers).

A number from the page, an import or a vBRIEF document is checked against these before it
is used or stored, and a value outside gets `bad_request` naming the field. Values already
stored by an older version are clamped into the same ranges when read (clamp_time,
clamp_count), so one bad row never breaks recall, the preview or the CLI.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated

from pydantic import AfterValidator, AwareDatetime, Field

from .request_id import MAX_SAFE_INTEGER

# Unix seconds from 1970-01-01 to 9999-12-31T00:00:00Z: a day short of the last that
# datetime can hold, so that every local time zone can still show the date.
MIN_UNIX_SECONDS = 0
MAX_UNIX_SECONDS = 253_402_214_400
# Counts (uses, tokens, offsets): whole numbers JavaScript holds exactly, and SQLite too.
MAX_COUNT = MAX_SAFE_INTEGER
# A vBRIEF date's offset from UTC: the real ones span -12:00..+14:00.
MAX_UTC_OFFSET = timedelta(hours=18)
_FIRST = datetime.fromtimestamp(MIN_UNIX_SECONDS, UTC)
_LAST = datetime.fromtimestamp(MAX_UNIX_SECONDS, UTC)

# The memory settings (memory.settings, `whiteboard memories pinned-tokens`, memory.json): the
# pinned memories' token cap in one send, and the confidence under which an extracted fact
# waits as a suggestion; below the extraction floor (memory/extract/extract.py) it would mean nothing.
MAX_PINNED_TOKENS = 2000
MIN_SUGGEST_BELOW = 0.5
# A model request's timeouts (llm.settings, `whiteboard config`, the settings file, the
# environment): over 0, at most an hour (NaN, 1e300 or 0 would hang or fail every call).
MAX_TIMEOUT_SECONDS = 3600

UnixSeconds = Annotated[float, Field(ge=MIN_UNIX_SECONDS, le=MAX_UNIX_SECONDS, allow_inf_nan=False)]
Count = Annotated[int, Field(ge=0, le=MAX_COUNT)]
PinnedTokens = Annotated[int, Field(ge=0, le=MAX_PINNED_TOKENS)]
SuggestBelow = Annotated[float, Field(ge=MIN_SUGGEST_BELOW, le=1.0)]
TimeoutSeconds = Annotated[float, Field(gt=0, le=MAX_TIMEOUT_SECONDS)]


def _in_range(value: datetime) -> datetime:
    offset = value.utcoffset()
    if offset is not None and abs(offset) > MAX_UTC_OFFSET:
        raise ValueError("the offset from UTC must be within ±18:00")
    try:
        utc = value.astimezone(UTC)
    except OverflowError:
        utc = None
    if utc is None or not _FIRST <= utc <= _LAST:
        raise ValueError(f"must be from {_FIRST:%Y-%m-%d} to {_LAST:%Y-%m-%d} (UTC)")
    return value


# A date with its offset (RFC 3339), within the range of UnixSeconds.
BoundedDatetime = Annotated[AwareDatetime, AfterValidator(_in_range)]


def clamp_time(value: float) -> float:
    """A stored time (finite, checked by the reader) moved into the range."""
    return float(min(max(value, MIN_UNIX_SECONDS), MAX_UNIX_SECONDS))


def clamp_count(value: int) -> int:
    return min(max(value, 0), MAX_COUNT)
