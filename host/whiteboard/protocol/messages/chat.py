"""chat.*: what the chat-site adapters ask of the host (send interception, turn capture)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, ValidationInfo, field_validator

from ..bounds import UnixSeconds
from .base import Reply, Request
from .core import MAX_CONTENT_CHARS, Role, SessionKey

# The site ids chat.* carried before host names ("chatgpt", "claude"): accepted in place
# of the host name until the next release, so the previous extension keeps working.
LEGACY_SITE_IDS = frozenset({"chatgpt", "claude"})
PartKind = Literal["selection", "background", "memory"]
Content = Annotated[str, Field(max_length=MAX_CONTENT_CHARS)]


class ChatRequest(Request):
    """A request from a chat site's page. On the wire a site is its host name ("claude.ai"),
    as in session keys and site.settings. The extension's sites table decides which host
    names are chat sites, so the host takes any; `site` must be the key's host name."""

    key: SessionKey
    site: Annotated[str, Field(min_length=1, max_length=253)]

    @field_validator("site")
    @classmethod
    def _site_is_the_keys_host(cls, site: str, info: ValidationInfo) -> str:
        key = info.data.get("key")
        if key is None or site in LEGACY_SITE_IDS:
            return site  # a bad key has its own error
        host = key.split(":", 1)[0].lower()
        if site.lower() != host:
            raise ValueError(f"must be the host name of the tab's site ({host[:253]!r} for this key)")
        return site.lower()


class ChatPrepareSend(ChatRequest):
    type: Literal["chat.prepare_send"]
    reply_model = "ChatPrepareSendReply"
    draft: Content
    # The page shows no earlier turns: the tab's earlier content goes in as background.
    conversation_new: bool = False
    # Tokens for everything injected; None means the host's default budget.
    budget: Annotated[int, Field(ge=1, le=200_000)] | None = None
    # False leaves long-term memories out of this one send (the preview's switch).
    memories: bool = True
    # Wall-clock time (Unix seconds) after which the page has sent the draft unchanged:
    # a reply finished later injects nothing and leaves the selections for the next send.
    answer_by: UnixSeconds | None = None
    # False on a shared or public conversation's page: the message is context for the tab,
    # never learned as a long-term memory.
    learn: bool = True


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
    # Why this send's memories were found by full text only, or none recalled (names no
    # content; the preview says it after the send).
    memory_note: str | None = None


class Turn(BaseModel):
    role: Role
    content: Content


class ChatAttach(ChatRequest):
    type: Literal["chat.attach"]
    reply_model = "ChatAttachReply"
    turns: Annotated[list[Turn], Field(max_length=500)]
    # False for turns that were on the page before the user's first send there, and for
    # every turn of a shared or public conversation's page: context for the tab, never
    # learned as long-term memories (only the user's own words teach the memory).
    learn: bool = True


class ChatAttachReply(Reply):
    # Turns recorded now; turns the session already held (e.g. after a reload) are skipped.
    recorded: int
    count: int
    memory_on: bool


class ChatPreview(ChatRequest):
    """What long-term memory would add to this draft; records nothing, changes nothing."""
    type: Literal["chat.preview"]
    reply_model = "ChatPreviewReply"
    draft: Content


class PreviewMemory(BaseModel):
    memory_id: str
    type: str
    text: str
    pinned: bool = False  # goes with every send (listed first)


class ChatPreviewReply(Reply):
    # Long-term memory is on (and not paused) for the tab's site.
    enabled: bool
    memories: list[PreviewMemory]
    # The block a send of this draft would carry ("" when none), and its tokens.
    block: str
    tokens: int
    # Why recall gave nothing or fell back (names no content).
    note: str | None = None


DraftState = Literal["queued", "ready", "busy", "sent", "off", "empty"]


class ChatDraft(ChatRequest):
    """The composer's text when the user's typing pauses, on a site with long-term memory
    on: embedded now, off the send path, kept in RAM for this tab until its send."""
    type: Literal["chat.draft"]
    reply_model = "ChatDraftReply"
    draft: Content


class ChatDraftReply(Reply):
    # "queued": to be embedded; "ready": embedded already; "busy": too many drafts waiting
    # (nothing kept); "sent": the tab sent within the last 2 s, this is an earlier draft
    # overtaken by its send (nothing kept); "off": long-term memory off or paused here, or no meanings to compare
    # with; "empty": nothing left once the privacy filter ran (nothing kept).
    state: DraftState
    memory_on: bool
    # The same states for the draft's rewrite by the configured model (memory.settings'
    # `rewrite_drafts`): "off" also when that switch is off or no model is configured.
    rewrite: DraftState = "off"
