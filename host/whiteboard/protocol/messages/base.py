"""Base classes shared by every message schema (design §3)."""

from __future__ import annotations

from typing import Annotated, ClassVar

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

from ..request_id import MAX_ID_CHARS, MAX_SAFE_INTEGER

RequestId = (Annotated[StrictInt, Field(ge=-MAX_SAFE_INTEGER, le=MAX_SAFE_INTEGER)]
             | Annotated[StrictStr, Field(max_length=MAX_ID_CHARS)])


class Request(BaseModel):
    """A browser -> host request. A message subclass fixes `type` with a one-value Literal and
    names its reply: `reply_model = "XReply"` (a Reply class of its module; a name, so the reply
    may be defined below) or the class itself. The registry (messages/__init__.py) resolves it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    reply_model: ClassVar[type[Reply] | str]

    id: RequestId
    type: str

    @classmethod
    def message_type(cls) -> str | None:
        """The one `type` this model accepts; None for a base shared by several messages."""
        args = getattr(cls.model_fields["type"].annotation, "__args__", ())
        return args[0] if len(args) == 1 and isinstance(args[0], str) else None


class Reply(BaseModel):
    """The fields of a successful reply beyond `id` and `ok`."""

    model_config = ConfigDict(extra="forbid")


class Event(BaseModel):
    """A host-initiated message tied to a request: `{"event", "ref", ...}`."""

    model_config = ConfigDict(extra="forbid")

    event: str
    ref: RequestId
