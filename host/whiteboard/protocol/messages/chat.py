"""chat.*: what the chat-site adapters ask of the host (send interception, turn capture)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from .base import Reply, Request
from .core import MAX_CONTENT_CHARS, Role, SessionKey

# The chat sites with an adapter in the extension; anything else is a bad_request.
Site = Literal["chatgpt", "claude"]
PartKind = Literal["selection", "background", "memory"]
Content = Annotated[str, Field(max_length=MAX_CONTENT_CHARS)]


class ChatPrepareSend(Request):
    type: Literal["chat.prepare_send"]
    reply_model = "ChatPrepareSendReply"
    key: SessionKey
    site: Site
    draft: Content
    # The page shows no earlier turns: the tab's earlier content goes in as background.
    conversation_new: bool = False
    # Tokens for everything injected; None means the host's default budget.
    budget: Annotated[int, Field(ge=1, le=200_000)] | None = None
    # False leaves long-term memories out of this one send (the preview's switch).
    memories: bool = True
    # Wall-clock time (Unix seconds) after which the page has sent the draft unchanged:
    # a reply finished later injects nothing and leaves the selections for the next send.
    answer_by: float | None = None


class InjectedPart(BaseModel):
    kind: PartKind
    tokens: int
    # How many selections / memories the block holds (1 for background).
    items: int


class ChatPrepareSendReply(Reply):
    text: str
    injected: bool
    parts: list[InjectedPart]
    # Messages in the tab's session after recording the draft.
    count: int
    redacted: int = 0
    # True when the reply came after answer_by: nothing injected, nothing used up.
    late: bool = False
    # The site has long-term memory on and not paused (the extension shows its preview).
    memory_on: bool


class Turn(BaseModel):
    role: Role
    content: Content


class ChatAttach(Request):
    type: Literal["chat.attach"]
    reply_model = "ChatAttachReply"
    key: SessionKey
    site: Site
    turns: Annotated[list[Turn], Field(max_length=500)]


class ChatAttachReply(Reply):
    # Turns recorded now; turns the session already held (e.g. after a reload) are skipped.
    recorded: int
    count: int
    memory_on: bool


class ChatPreview(Request):
    """What long-term memory would add to this draft; records nothing, changes nothing."""
    type: Literal["chat.preview"]
    reply_model = "ChatPreviewReply"
    key: SessionKey
    site: Site
    draft: Content


class PreviewMemory(BaseModel):
    memory_id: str
    type: str
    text: str


class ChatPreviewReply(Reply):
    # Long-term memory is on (and not paused) for the tab's site.
    enabled: bool
    memories: list[PreviewMemory]
    # The block a send of this draft would carry ("" when none), and its tokens.
    block: str
    tokens: int
    # Why recall gave nothing or fell back (names no content).
    note: str | None = None
