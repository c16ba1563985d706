"""Core messages every protocol version keeps: ping and the session.* family."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, Field, StringConstraints

from .base import Reply, Request

# A host name such as chatgpt.com (lowercase): how the wire names a site everywhere.
HOST_NAME = re.compile(r"^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
                       r"(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$")
# "domain:tabId", e.g. "chatgpt.com:412". Bounded so a key can never carry content.
SessionKey = Annotated[str, StringConstraints(min_length=3, max_length=300, pattern=r"^[^:\s]+:[^:\s]+$")]
Role = Literal["user", "assistant"]
PromptMode = Literal["follow_up", "new_selection"]
MAX_CONTENT_CHARS = 2_000_000
# Only its words are read (relevance.py keeps at most 24 terms); a draft may be long.
MAX_QUERY_CHARS = 100_000


class Ping(Request):
    type: Literal["ping"]
    reply_model = "PingReply"


class PingReply(Reply):
    version: str
    protocol: int
    tokenizer_ready: bool


class SessionAdd(Request):
    type: Literal["session.add"]
    reply_model = "SessionAddReply"
    key: SessionKey
    role: Role
    content: Annotated[str, Field(max_length=MAX_CONTENT_CHARS)]
    # "selection" marks text the user captured from a page rather than a chat turn.
    source: Literal["chat", "selection"] = "chat"


class SessionAddReply(Reply):
    count: int
    redacted: int = 0
    redacted_kinds: list[str] = []


class SessionContext(Request):
    type: Literal["session.context"]
    reply_model = "SessionContextReply"
    key: SessionKey
    budget: Annotated[int, Field(ge=1, le=200_000)] = 2000
    mode: PromptMode = "follow_up"
    # What the context is for (a question, a draft): the messages relevant to it go in first.
    query: Annotated[str, Field(max_length=MAX_QUERY_CHARS)] | None = None


class Kept(BaseModel):
    """How many of the tab's messages the context holds in full, shortened, or not at all
    (those are in the rolling summary, or left out for this query)."""

    full: int = 0
    shortened: int = 0
    summarised: int = 0


class SessionContextReply(Reply):
    context: str
    used_tokens: int
    budget: int
    distilled: bool
    mode: PromptMode
    kept: Kept


class SessionGet(Request):
    type: Literal["session.get"]
    reply_model = "SessionGetReply"
    key: SessionKey


class MessageOut(BaseModel):
    role: Role
    content: str
    timestamp: float
    source: Literal["chat", "selection"] = "chat"


class SessionGetReply(Reply):
    messages: list[MessageOut]
    summary: str = ""
    used_tokens: int = 0
    budget: int = 2000
    kept: Kept = Kept()
    distilled: bool = False


class SessionClear(Request):
    type: Literal["session.clear"]
    reply_model = "SessionClearReply"
    key: SessionKey


class SessionClearReply(Reply):
    cleared: bool


class SessionClearAll(Request):
    type: Literal["session.clear_all"]
    reply_model = "SessionClearAllReply"


class SessionClearAllReply(Reply):
    cleared: int


class SessionList(Request):
    type: Literal["session.list"]
    reply_model = "SessionListReply"


class SessionInfo(BaseModel):
    key: str
    count: int
    started_at: float


class SessionListReply(Reply):
    sessions: list[SessionInfo]
