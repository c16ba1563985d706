"""memory.* and site.settings: long-term memory over the wire (design §5, docs/memory.md).

A memory's id is `memory_id` and its type `memory_type` in requests, since `id` and
`type` are the request's own; a memory in a reply has `memory_id` and `type`.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, StringConstraints

from ..bounds import Count, PinnedTokens, SuggestBelow
from .base import Reply, Request
from .core import SessionKey

MemoryId = Annotated[str, StringConstraints(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_\-]+$")]
MemoryType = Literal["skill", "preference", "objective", "context"]
SuggestionId = Annotated[str, StringConstraints(min_length=1, max_length=64, pattern=r"^sug_[A-Za-z0-9_\-]+$")]
Site = Annotated[str, StringConstraints(min_length=1, max_length=253)]
Tag = Annotated[str, StringConstraints(min_length=1, max_length=40)]
Text = Annotated[str, Field(min_length=1, max_length=4000)]


class MemoryOut(BaseModel):
    memory_id: str
    type: MemoryType
    text: str
    tags: list[str]
    keywords: list[str]
    confidence: float
    site: str | None
    created_at: float
    updated_at: float
    usage_count: int
    last_used_at: float | None
    pinned: bool  # goes with every send on an opted-in site
    rev: int  # changes with every change to the memory (memory.update/delete compare it)
    origin: str | None = None  # "imported 2024-03-01": from a chat export, that conversation's date


class OldTextOut(BaseModel):
    text: str
    replaced_at: float


class MemoryDetail(MemoryOut):
    old_texts: list[OldTextOut]


class DamagedOut(BaseModel):
    memory_id: str
    problem: str


class MemoryAdd(Request):
    type: Literal["memory.add"]
    reply_model = "MemoryAddReply"
    text: Text
    memory_type: MemoryType
    site: Site | None = None
    tags: Annotated[list[Tag], Field(max_length=10)] = []


class MemoryAddReply(Reply):
    memory_id: str
    created: bool
    redacted: int = 0


class MemoryExtract(Request):
    type: Literal["memory.extract"]
    reply_model = "MemoryExtractReply"
    key: SessionKey
    manual: bool = True


class SuggestionOut(BaseModel):
    """A fact extracted with less confidence than the user's `suggest_below`: it waits for
    the user (memory.accept / memory.discard) and is never recalled or sent meanwhile."""

    suggestion_id: str
    type: MemoryType
    text: str
    confidence: float
    site: str | None
    created_at: float
    origin: str | None = None  # "imported 2024-03-01": from a chat export, that conversation's date


class MemoryExtractReply(Reply):
    added: int
    updated: int
    unchanged: int
    memories: list[MemoryOut]
    suggested: list[SuggestionOut]  # new suggestions this run
    # model: the configured model; classifier: the learned extractor on the bundled
    # embedding model; rules: neither is there (or both failed)
    method: Literal["rules", "classifier", "model"]


class MemorySuggestions(Request):
    type: Literal["memory.suggestions"]
    reply_model = "MemorySuggestionsReply"


class MemorySuggestionsReply(Reply):
    suggestions: list[SuggestionOut]  # oldest first
    damaged: list[DamagedOut]  # suggestions that do not decrypt (memory_id: the suggestion's id)


class MemoryAccept(Request):
    """Keep a suggestion as a memory, maybe edited first; ADD / UPDATE / NOOP as extraction does."""
    type: Literal["memory.accept"]
    reply_model = "MemoryReply"
    suggestion_id: SuggestionId
    text: Text | None = None
    memory_type: MemoryType | None = None


class MemoryDiscard(Request):
    """Drop a suggestion; the same fact is not suggested again."""
    type: Literal["memory.discard"]
    reply_model = "MemoryDiscardReply"
    suggestion_id: SuggestionId


class MemoryDiscardReply(Reply):
    discarded: bool


class MemoryRecall(Request):
    type: Literal["memory.recall"]
    reply_model = "MemoryRecallReply"
    query: Annotated[str, Field(max_length=100_000)]
    limit: Annotated[int, Field(ge=1, le=5)] = 5


class MemoryRecallReply(Reply):
    memories: list[MemoryOut]
    block: str
    tokens: int
    method: Literal["fts", "hybrid", "none"]
    note: str | None = None


class MemoryList(Request):
    type: Literal["memory.list"]
    reply_model = "MemoryListReply"
    query: Annotated[str, Field(max_length=1000)] | None = None
    memory_type: MemoryType | None = None
    site: Site | None = None
    offset: Count = 0
    limit: Annotated[int, Field(ge=1, le=200)] = 100


class MemoryListReply(Reply):
    memories: list[MemoryOut]
    total: int
    damaged: list[DamagedOut]


class MemoryGet(Request):
    type: Literal["memory.get"]
    reply_model = "MemoryReply"
    memory_id: MemoryId


class MemoryReply(Reply):
    memory: MemoryDetail


class MemoryUpdate(Request):
    type: Literal["memory.update"]
    reply_model = "MemoryReply"
    memory_id: MemoryId
    text: Text | None = None
    memory_type: MemoryType | None = None
    pinned: bool | None = None
    # The memory's rev the change was based on (the text the user edited): when it has
    # changed since, bad_request with reason "conflict" and nothing is changed.
    rev: Count | None = None


class MemoryDelete(Request):
    type: Literal["memory.delete"]
    reply_model = "MemoryDeleteReply"
    memory_id: MemoryId
    rev: Count | None = None  # as memory.update's


class MemoryDeleteReply(Reply):
    deleted: bool


class MemoryExport(Request):
    type: Literal["memory.export"]
    reply_model = "MemoryExportReply"
    offset: Count = 0


class MemoryExportReply(Reply):
    document: dict
    total: int
    next_offset: int | None
    damaged: list[DamagedOut]


class MemoryImport(Request):
    type: Literal["memory.import"]
    reply_model = "MemoryImportReply"
    document: dict


class MemoryImportReply(Reply):
    added: int
    updated: int
    unchanged: int


ImportId = Annotated[str, StringConstraints(min_length=8, max_length=64, pattern=r"^[A-Za-z0-9_\-]+$")]
# A chunk of an export, as text: 512 Ki characters is at most 2 MiB of UTF-8 (with JSON's
# escapes up to 6 bytes a character, 3 MiB), far under the host's 8 MiB inbound cap.
MAX_CHUNK_CHARS = 512 * 1024


class MemoryImportChats(Request):
    """One chunk of a chat export (ChatGPT's or Claude's conversations.json, Takeout's
    MyActivity.json) that the memory page streams, in order from seq 0; `last` on the final
    one. Facts found all wait as suggestions (docs/memory.md "Importing your history")."""

    type: Literal["memory.import_chats"]
    reply_model = "MemoryImportChatsReply"
    import_id: ImportId  # chosen by the page, one per file
    seq: Count
    text: Annotated[str, Field(max_length=MAX_CHUNK_CHARS)]
    last: bool = False


class MemoryImportChatsReply(Reply):
    import_id: str
    turns: int  # the user's turns read so far
    facts: int  # facts found so far
    done: bool  # the last chunk was read and what was found stored as suggestions
    format: Literal["chatgpt", "claude", "gemini"] | None = None
    conversations: int = 0  # read (when done)
    already: int = 0  # imported before, skipped (when done)
    suggested: list[SuggestionOut] = []  # stored now (when done)
    stopped: Literal["suggestions_full"] | None = None  # the rest waits for the next import


class MemoryImportChatsCancel(Request):
    """Stop an import: what it found and did not store yet is dropped; nothing is written."""

    type: Literal["memory.import_chats_cancel"]
    reply_model = "MemoryImportChatsCancelReply"
    import_id: ImportId


class MemoryImportChatsCancelReply(Reply):
    cancelled: bool  # false: no such import was under way


class MemoryWipe(Request):
    type: Literal["memory.wipe"]
    reply_model = "MemoryWipeReply"
    confirm: Literal[True]


class MemoryWipeReply(Reply):
    deleted: int


class MemorySettingsRequest(Request):
    """Read (no field) or change the memory settings shared by every browser and the CLI."""
    reply_model = "MemorySettingsReply"
    type: Literal["memory.settings"]
    pinned_tokens: PinnedTokens | None = None
    suggest_below: SuggestBelow | None = None
    rewrite_drafts: bool | None = None


class MemorySettingsReply(Reply):
    pinned_tokens: int  # the token cap of the pinned memories in one send (0: none sent)
    suggest_below: float  # extracted facts under this confidence wait as suggestions
    rewrite_drafts: bool  # drafts go to the configured model as the user types, to be rewritten (off by default)


class MemoryDesktopRequest(Request):
    """Read (no field) or change whether desktop apps may read memories over MCP (docs/mcp.md)."""
    reply_model = "MemoryDesktopReply"
    type: Literal["memory.desktop"]
    enabled: bool | None = None


class DesktopClientOut(BaseModel):
    name: str  # as the app gave it when it started `whiteboard mcp`
    last_read: float | None  # when it last read memories (epoch seconds); None: never


class MemoryDesktopReply(Reply):
    enabled: bool
    clients: list[DesktopClientOut]  # the last to read first


class MemoryStatus(Request):
    type: Literal["memory.status"]
    reply_model = "MemoryStatusReply"


class MeaningsOut(BaseModel):
    """Progress of the meaning (embedding) index: "meanings indexed 3,200 / 10,000"."""

    state: Literal["off", "loading", "indexing", "retrying", "ready"]
    indexed: int
    total: int
    model: str | None
    reason: str | None  # why it is off, or why the last indexing run failed (retrying)
    set_aside: int = 0  # memories the model refused (not in total): found by full text
    # Tabs whose draft's meaning the host holds ready in RAM (chat.draft).
    drafts: int = 0


class SetAsideOut(BaseModel):
    """A memory the embedding model refused: its id and why (never its text)."""

    memory_id: str
    problem: str


class SyncedOut(BaseModel):
    """When memories last arrived here from other computers through sync (docs/sync.md):
    how many changed, when, and the computers' names; never what they say."""

    arrived: int
    at: float
    computers: list[str]


class MemoryStatusReply(Reply):
    memories: int
    suggestions: int = 0  # extracted facts waiting for the user's accept or discard
    meanings: MeaningsOut
    damaged: list[DamagedOut]
    damaged_vectors: list[DamagedOut]
    set_aside: list[SetAsideOut] = []  # the first SET_ASIDE_LISTED by id; meanings.set_aside counts all
    synced: SyncedOut | None = None  # None: sync is off, or nothing has arrived yet


class SiteSettingsRequest(Request):
    type: Literal["site.settings"]
    reply_model = "SiteSettingsReply"
    site: Site
    long_term: bool | None = None
    paused: bool | None = None


class SiteSettingsReply(Reply):
    site: str
    long_term: bool
    paused: bool
