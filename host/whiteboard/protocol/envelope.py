"""From a frame's body to a validated request, or the error reply's id and error.

Used by the dispatch core (server/dispatch.py) for the browser's pipe and the control
socket, so both reject the same bad input the same way (design §3).
"""

from __future__ import annotations

from typing import Callable

from .errors import BadRequest, WhiteboardError
from .framing import decode_body
from .messages import Request, parse_request
from .request_id import ID_RULE, is_request_id


class Rejected(Exception):
    """The frame gets an error reply: `request_id` is None when no usable id was read."""

    def __init__(self, request_id, error: WhiteboardError):
        super().__init__(error.message)
        self.request_id = request_id
        self.error = error


def read_request(body: bytes, admit: Callable[[dict], WhiteboardError | None] = lambda raw: None) -> Request:
    """The request in `body`; `admit` may refuse a well-formed one (origin, allowlist)."""
    try:
        raw = decode_body(body)
    except WhiteboardError as exc:
        raise Rejected(None, exc) from None
    if not isinstance(raw, dict):
        raise Rejected(None, BadRequest("a message must be a JSON object"))
    request_id = raw.get("id")
    if not is_request_id(request_id):
        raise Rejected(None, BadRequest(ID_RULE))
    refusal = admit(raw)
    if refusal is not None:
        raise Rejected(request_id, refusal)
    try:
        return parse_request(raw)
    except WhiteboardError as exc:
        raise Rejected(request_id, exc) from None
