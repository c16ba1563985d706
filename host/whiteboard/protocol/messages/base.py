"""Base classes shared by every message schema (DESIGN §3)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr

RequestId = StrictInt | StrictStr


class Request(BaseModel):
    """A browser -> host request. Subclasses fix `type` with a Literal."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: RequestId
    type: str


class Reply(BaseModel):
    """The fields of a successful reply beyond `id` and `ok`."""

    model_config = ConfigDict(extra="forbid")


class Event(BaseModel):
    """A host-initiated message tied to a request: `{"event", "ref", ...}`."""

    model_config = ConfigDict(extra="forbid")

    event: str
    ref: RequestId
