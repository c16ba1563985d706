"""What a memory is (design §5): the record kept in the vault and shown to the user."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

MEMORY_TYPES = ("skill", "preference", "objective", "context")
MAX_TEXT_CHARS = 1000
MAX_OLD_TEXTS = 20  # undo history kept per memory; the oldest goes first


def new_memory_id() -> str:
    return "mem_" + secrets.token_hex(8)


@dataclass(frozen=True)
class OldText:
    text: str
    replaced_at: float


@dataclass
class Memory:
    id: str
    type: str
    text: str
    created_at: float
    updated_at: float
    tags: list[str] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)
    confidence: float = 1.0
    site: str | None = None
    usage_count: int = 0
    last_used_at: float | None = None
    old_texts: list[OldText] = field(default_factory=list)
    # Bumped on every content change; the index compares it to see what changed underneath.
    rev: int = 0
    pinned_at: float | None = None  # set: goes with every send on an opted-in site
    # Not from a live chat: "imported 2024-03-01" (from a chat export, that conversation's date).
    origin: str | None = None

    @property
    def pinned(self) -> bool:
        return self.pinned_at is not None

    def content(self) -> dict:
        """The encrypted part: everything a reader could learn about the user from."""
        content = {"text": self.text, "tags": self.tags, "keywords": self.keywords,
                   "old_texts": [[o.text, o.replaced_at] for o in self.old_texts]}
        if self.origin:
            content["origin"] = self.origin
        return content


@dataclass
class Suggestion:
    """A fact extracted with too little confidence to keep: it waits, encrypted in the vault,
    until the user accepts it (it becomes a memory) or discards it. Never recalled or sent."""

    id: str
    type: str
    text: str
    confidence: float
    created_at: float
    site: str | None = None
    tags: list[str] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)
    origin: str | None = None  # as Memory.origin


def new_suggestion_id() -> str:
    return "sug_" + secrets.token_hex(8)


@dataclass(frozen=True)
class Damaged:
    """A row that cannot be read: kept on disk untouched and reported, never skipped silently."""

    memory_id: str
    problem: str
