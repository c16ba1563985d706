"""Native-messaging framing: 4-byte little-endian length + UTF-8 JSON (design §2).

The reader is ours rather than `nativemessaging`'s: that package reads with a single
`read(n)` (a short read on a pipe silently yields a truncated frame), has no inbound
cap (a hostile length allocates up to 4 GiB) and no outbound limit. We do use its
encoder, which is correct: length in native byte order, then the bytes.
"""

from __future__ import annotations

import json
import logging
import math
import struct
import threading
from collections.abc import Iterator
from typing import BinaryIO

import nativemessaging

from .errors import BadJson, TooLarge

HEADER = struct.Struct("<I")
MAX_OUTBOUND = 1024 * 1024  # Chrome closes the port on a larger host->browser message.
DEFAULT_INBOUND_CAP = 8 * 1024 * 1024
HARD_INBOUND_CAP = 64 * 1024 * 1024  # Chrome's own browser->host maximum.
MAX_JSON_DEPTH = 64
# Longer integers are refused before int() runs: past 4,300 digits int() raises, and no
# number JavaScript sends (its integers are exact only to 16 digits) comes near this.
MAX_INT_DIGITS = 32

log = logging.getLogger("whiteboard.framing")


class ShortRead(EOFError):
    """The stream ended inside a frame: the peer went away mid-message."""


class OversizeFrame(Exception):
    """A frame's declared length exceeds the cap; its body has been skipped."""

    def __init__(self, length: int, cap: int):
        super().__init__(f"message of {length} bytes exceeds the {cap}-byte limit")
        self.length = length
        self.cap = cap


def read_exact(stream: BinaryIO, n: int) -> bytes:
    """Read exactly n bytes, looping over short reads; ShortRead if the stream ends first."""
    chunks = []
    remaining = n
    while remaining:
        chunk = stream.read(remaining)
        if not chunk:
            raise ShortRead(f"stream ended with {remaining} of {n} bytes unread")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def skip_exact(stream: BinaryIO, n: int, chunk_size: int = 1 << 16) -> None:
    """Discard n bytes without holding them: keeps the stream in sync after an oversize frame."""
    remaining = n
    while remaining:
        chunk = stream.read(min(chunk_size, remaining))
        if not chunk:
            raise ShortRead(f"stream ended while skipping {remaining} bytes")
        remaining -= len(chunk)


def read_frame(stream: BinaryIO, cap: int = DEFAULT_INBOUND_CAP) -> bytes | None:
    """One frame's body; None on a clean EOF between frames.

    The cap is checked from the header alone, before any allocation; the oversize body
    is skipped so the next frame still parses.
    """
    first = stream.read(HEADER.size)
    if not first:
        return None
    header = first if len(first) == HEADER.size else first + read_exact(stream, HEADER.size - len(first))
    (length,) = HEADER.unpack(header)
    if length > cap:
        skip_exact(stream, length)
        raise OversizeFrame(length, cap)
    return read_exact(stream, length)


def iter_frames(stream: BinaryIO, cap: int = DEFAULT_INBOUND_CAP) -> Iterator[bytes | TooLarge]:
    """Frame bodies until EOF; a TooLarge in place of a frame longer than cap.

    The TooLarge is yielded before its body is skipped, so its reply goes out at once. A
    header past Chrome's own 64 MiB maximum ends the stream after its TooLarge: no browser
    wrote it, and skipping gigabytes would hold the reader. A stream ending inside a
    frame ends it too.
    """
    while True:
        try:
            first = stream.read(HEADER.size)
            if not first:
                return
            header = first if len(first) == HEADER.size else first + read_exact(stream, HEADER.size - len(first))
            (length,) = HEADER.unpack(header)
            if length > HARD_INBOUND_CAP:
                yield TooLarge(f"message of {length} bytes exceeds the {HARD_INBOUND_CAP}-byte limit of the "
                               "browser; closing")
                return
            if length > cap:
                yield TooLarge(str(OversizeFrame(length, cap)))
                skip_exact(stream, length)
                continue
            body = read_exact(stream, length)
        except ShortRead:
            log.warning("input ended inside a frame; stopping")
            return
        yield body


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise BadJson(f"message has a number longer than {MAX_INT_DIGITS} digits")
    return int(digits)


def _not_a_number(name: str) -> float:
    raise BadJson(f"message has {name}, which JSON does not allow")


def _finite_float(digits: str) -> float:
    value = float(digits)
    if math.isinf(value):
        raise BadJson("message has a number too large for a 64-bit float")
    return value


def decode_body(body: bytes) -> object:
    """UTF-8 JSON -> Python value; BadJson for invalid UTF-8, invalid JSON or deep nesting."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadJson(f"message is not valid UTF-8 (byte {exc.start})") from None
    if _nesting_depth(text) > MAX_JSON_DEPTH:
        raise BadJson(f"message nests deeper than {MAX_JSON_DEPTH} levels")
    try:
        # NaN and Infinity are not JSON (Python reads them): no field ever sees one.
        return json.loads(text, parse_int=_bounded_int, parse_float=_finite_float, parse_constant=_not_a_number)
    except json.JSONDecodeError as exc:
        raise BadJson(f"message is not valid JSON ({exc.msg} at position {exc.pos})") from None
    except RecursionError:
        raise BadJson(f"message nests deeper than {MAX_JSON_DEPTH} levels") from None


def _nesting_depth(text: str) -> int:
    """Upper bound on bracket depth (ignores strings): cheap guard before json.loads."""
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return 0
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def encode_frame(message: dict, limit: int = MAX_OUTBOUND) -> bytes:
    """Header + JSON body via `nativemessaging`; TooLarge when over limit (Chrome's 1 MiB).

    Its encoder escapes non-ASCII (ensure_ascii), so the body is pure ASCII and the
    byte count is the one Chrome sees.
    """
    encoded = nativemessaging.encode_message(message)
    body = encoded["content"]
    if len(body) > limit:
        raise TooLarge(f"reply of {len(body)} bytes exceeds the {limit}-byte limit")
    return encoded["length"] + body


class FrameWriter:
    """The single writer to a channel: whole frames under one lock, flushed each time."""

    def __init__(self, stream: BinaryIO, limit: int = MAX_OUTBOUND):
        self._stream = stream
        self._limit = limit
        self._lock = threading.Lock()

    def write(self, message: dict) -> None:
        frame = encode_frame(message, self._limit)
        with self._lock:
            self._stream.write(frame)
            self._stream.flush()
