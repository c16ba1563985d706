"""Answers `ping` while the rest of the host is still importing.

Importing pydantic and building every message schema takes longer than the 150 ms a
first reply is allowed, so main() loads that stack on a thread and this module, which
needs only the standard library, answers pings meanwhile. The reply has exactly the
fields of protocol.messages.core.PingReply (a test validates it against that model).
Any other frame waits for the full stack.
"""

from __future__ import annotations

import json

from .. import PROTOCOL_VERSION, __version__


def early_ping_reply(body: bytes) -> dict | None:
    """The reply to a well-formed ping, or None when the full stack must handle the frame."""
    try:
        raw = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if not isinstance(raw, dict) or raw.keys() != {"id", "type"} or raw["type"] != "ping":
        return None
    request_id = raw["id"]
    if isinstance(request_id, bool) or not isinstance(request_id, (int, str)):
        return None
    return {"id": request_id, "ok": True, "version": __version__, "protocol": PROTOCOL_VERSION,
            "tokenizer_ready": False}
