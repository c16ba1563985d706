"""Answers `ping` while the rest of the host is still importing.

Importing pydantic and building every message schema takes longer than the 150 ms a
first reply is allowed, so main() loads that stack on a thread and this module, which
needs only the standard library, answers pings meanwhile, through the same framing,
decoding and id rules as the dispatch core. The reply has exactly the fields of
protocol.messages.core.PingReply (a test validates it against that model). Framing
errors are answered here too; any other frame waits for the full stack.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from .. import version
from ..protocol import PROTOCOL_VERSION
from ..protocol.errors import WhiteboardError, error_reply
from ..protocol.framing import FrameWriter, decode_body
from ..protocol.request_id import is_request_id


def early_ping_reply(body: bytes) -> dict | None:
    """The reply to a well-formed ping, or None when the full stack must handle the frame."""
    try:
        raw = decode_body(body)
    except WhiteboardError:
        return None
    if not isinstance(raw, dict) or raw.keys() != {"id", "type"} or raw["type"] != "ping":
        return None
    if not is_request_id(raw["id"]):
        return None
    return {"id": raw["id"], "ok": True, "version": version(), "protocol": PROTOCOL_VERSION,
            "tokenizer_ready": False}


def answer_early(frames: Iterable[bytes | WhiteboardError], loaded, writer: FrameWriter,
                 pings: bool) -> Iterator[bytes | WhiteboardError]:
    """Pass frames on; until `loaded` is set, answer framing errors and (when `pings`) pings here."""
    for item in frames:
        if not loaded.is_set():
            if isinstance(item, WhiteboardError):
                writer.write(error_reply(None, item))
                continue
            reply = early_ping_reply(item) if pings else None
            if reply is not None:
                writer.write(reply)
                continue
        yield item
