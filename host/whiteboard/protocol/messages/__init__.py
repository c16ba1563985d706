"""Every message the host understands, defined once (see docs/protocol.md).

Each module holds one family; REQUESTS maps a `type` to its request and reply models
and `parse_request` validates through one discriminated union built from it.
"""

from __future__ import annotations

from typing import Annotated, Union

from pydantic import Field, TypeAdapter, ValidationError

from ..errors import BadRequest, UnknownType
from . import core
from .base import Event, Reply, Request

# type -> (request model, reply model). Families add their pairs here.
REQUESTS: dict[str, tuple[type[Request], type[Reply]]] = {
    "ping": (core.Ping, core.PingReply),
    "session.add": (core.SessionAdd, core.SessionAddReply),
    "session.context": (core.SessionContext, core.SessionContextReply),
    "session.get": (core.SessionGet, core.SessionGetReply),
    "session.clear": (core.SessionClear, core.SessionClearReply),
    "session.clear_all": (core.SessionClearAll, core.SessionClearAllReply),
    "session.list": (core.SessionList, core.SessionListReply),
}


def _register_families() -> None:
    # Imported late so each family module stays independent of this registry.
    from . import families

    for type_name, pair in families.PAIRS.items():
        if type_name in REQUESTS:
            raise RuntimeError(f"message type {type_name!r} defined twice")
        REQUESTS[type_name] = pair


_register_families()

_request_union = TypeAdapter(
    Annotated[Union[tuple(model for model, _ in REQUESTS.values())], Field(discriminator="type")]
)


def parse_request(raw: dict) -> Request:
    """Validate a decoded request; UnknownType / BadRequest say what is wrong, never echo content."""
    if not isinstance(raw.get("type"), str):
        raise BadRequest("type: must be a string naming the message")
    try:
        return _request_union.validate_python(raw)
    except ValidationError as exc:
        first = exc.errors(include_input=False, include_url=False)[0]
        if first["type"] == "union_tag_invalid":
            raise UnknownType(f"unknown message type {str(raw.get('type'))[:64]!r}") from None
        raise BadRequest(describe_validation_error(exc)) from None


def describe_validation_error(exc: ValidationError) -> str:
    """'field: problem; ...' without the offending values (they may be message content)."""
    parts = []
    for err in exc.errors(include_input=False, include_url=False, include_context=False)[:5]:
        where = ".".join(str(p) for p in err["loc"][1:] if p is not None) or "message"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)


__all__ = ["REQUESTS", "Event", "Reply", "Request", "parse_request", "describe_validation_error"]
