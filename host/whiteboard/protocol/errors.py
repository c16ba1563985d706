"""One error model: every failure the host reports is a WhiteboardError with a code.

Library errors are translated to these at the edge (the action or the server loop);
messages are written for a person and never carry session content. Where the extension
must branch on a failure, the error also has a machine-readable `reason` (REASONS): the
UI reads that, never the message.
"""

from __future__ import annotations

from typing import ClassVar


class WhiteboardError(Exception):
    code: ClassVar[str] = "internal"
    # One of REASONS where the UI must branch: set by a subclass (NoModel) or per raise.
    reason: str | None = None

    def __init__(self, message: str, reason: str | None = None):
        super().__init__(message)
        self.message = message
        if reason is not None:
            self.reason = reason

    def to_wire(self) -> dict:
        wire = {"code": self.code, "message": self.message}
        if self.reason:
            wire["reason"] = self.reason
        return wire


class BadJson(WhiteboardError):
    code = "bad_json"


class BadRequest(WhiteboardError):
    code = "bad_request"


class UnknownType(WhiteboardError):
    code = "unknown_type"


class TooLarge(WhiteboardError):
    code = "too_large"


class NotFound(WhiteboardError):
    code = "not_found"


class Forbidden(WhiteboardError):
    code = "forbidden"


class Unavailable(WhiteboardError):
    code = "unavailable"


class Internal(WhiteboardError):
    code = "internal"


# error.reason values, all of them, documented in docs/protocol.md ("Reasons"; a test keeps the two
# and every reason the host raises in step): the model layer's (llm/errors.py, llm/settings.py),
# the worker pool's (server/pool.py), and the key's, the vault's and our files' (crypto.py,
# memory/store/vault.py, files.py).
REASONS = (
    "no_model", "model_unavailable", "reply_too_large", "insecure_url",
    "busy",
    "key_missing", "key_unreadable", "key_wrong", "read_only", "write_failed", "locked", "damaged", "newer_vault",
    "migration_failed",
    "conflict",
)

ERROR_CODES = tuple(
    cls.code
    for cls in (BadJson, BadRequest, UnknownType, TooLarge, NotFound, Forbidden, Unavailable, Internal)
)


def error_reply(request_id, error: WhiteboardError) -> dict:
    """The wire form of a failed request; request_id None when no usable id was read."""
    return {"id": request_id, "ok": False, "error": error.to_wire()}
