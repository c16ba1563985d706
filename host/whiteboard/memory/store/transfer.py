"""The export/import document (JSON) shared by memory.export/import and the CLI.

    {"format": "whiteboard.memories", "version": 1, "exported_at": 1763900000.0,
     "memories": [{"memory_id", "type", "text", "tags", "keywords", "confidence", "site",
                   "created_at", "updated_at", "usage_count", "last_used_at", "pinned", "pinned_at",
                   "old_texts": [{"text", "replaced_at"}]}]}

Import is all or nothing: every entry is checked first and the first bad one is named
(memories[3].text: ...) with nothing stored; then the whole import is one transaction, so an
entry the vault refuses, a failed write or a crash at any point stores none of it. The
privacy filter runs on every text. An entry whose id exists with other text updates it (the
old text kept); one whose text is already kept is unchanged; the rest are added with their
own times and counts.
"""

from __future__ import annotations

import json
import time
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter, ValidationError

from ... import text as T
from ...privacy import redact
from ...protocol.bounds import Count, UnixSeconds
from ...protocol.errors import BadRequest
from ...sites import check_site
from ...text import clean_words
from ..model import MAX_OLD_TEXTS, MAX_TEXT_CHARS, Memory, OldText, new_memory_id

FORMAT, VERSION = "whiteboard.memories", 1
PAGE_BYTES = 900_000  # a host -> browser message is at most 1 MiB


class _Old(BaseModel):
    model_config = ConfigDict(extra="ignore")
    text: Annotated[str, Field(min_length=1, max_length=MAX_TEXT_CHARS)]
    replaced_at: UnixSeconds


class _Entry(BaseModel):
    model_config = ConfigDict(extra="ignore")
    memory_id: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_\-]{1,64}$")] | None = None
    type: Literal["skill", "preference", "objective", "context"]
    text: Annotated[str, Field(min_length=1, max_length=MAX_TEXT_CHARS)]
    tags: Annotated[list[Annotated[str, Field(max_length=40)]], Field(max_length=20)] = []
    keywords: Annotated[list[Annotated[str, Field(max_length=40)]], Field(max_length=20)] = []
    confidence: Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)] = 1.0
    site: Annotated[str, Field(max_length=253)] | None = None
    # Times and counts in the ranges of protocol/bounds.py (docs/memory.md, Export and import).
    created_at: UnixSeconds | None = None
    updated_at: UnixSeconds | None = None
    usage_count: Count = 0
    last_used_at: UnixSeconds | None = None
    pinned: bool = False
    pinned_at: UnixSeconds | None = None
    old_texts: Annotated[list[_Old], Field(max_length=MAX_OLD_TEXTS)] = []
    origin: Annotated[str, Field(max_length=40)] | None = None  # "imported 2024-03-01" (a chat export)


class _Document(BaseModel):
    model_config = ConfigDict(extra="ignore")
    format: Literal["whiteboard.memories"]
    version: Literal[1]
    # Checked VALIDATE_CHUNK entries at a time (parse): one validation call holds the GIL
    # throughout, and a whole 30k-entry document would keep the reader thread from ping.
    memories: list[dict]


_ENTRIES = TypeAdapter(list[_Entry])
VALIDATE_CHUNK = 500


def entry(m: Memory) -> dict:
    e = {"memory_id": m.id, "type": m.type, "text": m.text, "tags": m.tags, "keywords": m.keywords,
            "confidence": m.confidence, "site": m.site, "created_at": m.created_at, "updated_at": m.updated_at,
            "usage_count": m.usage_count, "last_used_at": m.last_used_at, "pinned": m.pinned,
            "pinned_at": m.pinned_at,
            "old_texts": [{"text": o.text, "replaced_at": o.replaced_at} for o in m.old_texts]}
    if m.origin:
        e["origin"] = m.origin
    return e


def document(memories: list[Memory]) -> dict:
    return {"format": FORMAT, "version": VERSION, "exported_at": time.time(), "memories": [entry(m) for m in memories]}


def page(memories: list[Memory], offset: int, max_bytes: int = PAGE_BYTES) -> tuple[dict, int | None]:
    """A document holding memories[offset:...] up to max_bytes of JSON; and the next offset."""
    out, size, i = [], 200, offset
    while i < len(memories):
        e = entry(memories[i])
        cost = len(json.dumps(e, ensure_ascii=False).encode()) + 2
        if out and size + cost > max_bytes:
            break
        out.append(e)
        size += cost
        i += 1
    doc = {"format": FORMAT, "version": VERSION, "exported_at": time.time(), "memories": out}
    return doc, (i if i < len(memories) else None)


def parse(raw: dict) -> list[Memory]:
    """Check a whole document; BadRequest naming the first problem, nothing stored."""
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise BadRequest(f'document: not a Whiteboard memories export (its "format" must be "{FORMAT}")')
    entries: list[_Entry] = []
    try:
        doc = _Document.model_validate(raw)
        for start in range(0, len(doc.memories), VALIDATE_CHUNK):
            try:
                entries += _ENTRIES.validate_python(doc.memories[start:start + VALIDATE_CHUNK])
            except ValidationError as exc:
                raise _at(exc, ("memories",), start) from None
    except ValidationError as exc:
        raise _at(exc, (), 0) from None
    now = time.time()
    out = []
    seen_ids: set[str] = set()
    for i, e in enumerate(entries):
        if e.memory_id is not None:
            if e.memory_id in seen_ids:
                raise BadRequest(f"document.memories.{i}.memory_id: the same id appears twice in the document")
            seen_ids.add(e.memory_id)
        try:
            site = check_site(e.site) if e.site else None  # as memory.add's: a host name, lowercased
        except BadRequest as exc:
            raise BadRequest(f"document.memories.{i}.{exc.message}") from None
        text = redact(e.text).text.strip()
        if not text:
            raise BadRequest(f"document.memories.{i}.text: empty once secrets and <private> spans are removed")
        old = [OldText(t, o.replaced_at) for o in e.old_texts if (t := redact(o.text).text.strip())]
        out.append(Memory(id=e.memory_id or new_memory_id(), type=e.type, text=text,
                          created_at=e.created_at or now, updated_at=e.updated_at or e.created_at or now,
                          tags=clean_words(e.tags), keywords=clean_words(e.keywords) or T.keywords(text),
                          confidence=e.confidence,
                          site=site, usage_count=e.usage_count, last_used_at=e.last_used_at, old_texts=old,
                          pinned_at=(e.pinned_at or now) if e.pinned else None, origin=e.origin))
    return out


def _at(exc: ValidationError, prefix: tuple, offset: int) -> BadRequest:
    """The first problem, by its place in the document; never the offending value."""
    err = exc.errors(include_input=False, include_url=False, include_context=False)[0]
    loc = list(err["loc"])
    if prefix and loc:
        loc[0] += offset
    where = ".".join(str(p) for p in (*prefix, *loc))
    return BadRequest(f"document.{where}: {err['msg']}")
