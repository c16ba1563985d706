"""What a request id may be: small enough to echo in any reply, exact in JavaScript.

Standard library only: the early ping responder checks ids before pydantic loads.
"""

from __future__ import annotations

MAX_ID_CHARS = 256
MAX_SAFE_INTEGER = 2**53 - 1  # JavaScript's Number.MAX_SAFE_INTEGER
ID_RULE = f"id: must be an integer within ±{MAX_SAFE_INTEGER} or a string of at most {MAX_ID_CHARS} characters"


def is_request_id(value: object) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER
    return isinstance(value, str) and len(value) <= MAX_ID_CHARS
