"""Recall (DESIGN §5): a query -> at most 5 memories, the injection block, its tokens.

Hybrid: full-text hits above an absolute BM25 floor (idf smoothed by a fixed background,
so it means the same in a 5-memory vault and a 100k one) and meaning hits above an
absolute cosine floor, fused by reciprocal rank (a full-text hit whose meaning is far from
the draft's, under the model's `confirm_cosine`, is dropped: one shared word such as
"Berlin" in "When did the Berlin Wall fall?" is not enough); then near-duplicate removal, at most 5,
and a token cap on the block. Each floor is absolute, not a rank: a request unrelated to
every memory injects nothing. Memories not yet embedded, a draft not embedded within its
deadline, or no model at all: full text alone (`method` says which, `note` why).

For the chat flow (actions/chat.py): `recall_for_send` (empty unless the site opted in;
never raises), `count_use` (usage of the memories a send really carried) and
`note_message` (restarts the site's 30 s extraction timer).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from ..privacy import redact
from ..protocol.errors import WhiteboardError
from . import text as T
from .inject import BlockLine, format_block, strip_blocks
from .model import Memory

log = logging.getLogger("whiteboard.memory.recall")
RRF_K = 60


@dataclass(frozen=True)
class RecallSettings:
    max_results: int = 5
    token_cap: int = 300  # the whole block, header and footer included
    min_score: float = 2.0  # BM25 with smoothed idf: one word found in under ~15% of memories
    relative: float = 0.35  # of the best hit's score
    min_cosine: float = 0.45  # for a model without its own calibrated floor (an endpoint)
    duplicate: float = 0.8  # results this similar to a better one are dropped
    depth: int = 20


DEFAULT = RecallSettings()


@dataclass(frozen=True)
class RecallResult:
    memories: tuple[Memory, ...] = ()
    block: str = ""
    tokens: int = 0
    method: str = "none"  # "fts", "hybrid" or "none"
    note: str | None = None  # why recall fell back or gave nothing (names no content)


def recall(service, tokens, query: str, limit: int = 5, settings: RecallSettings = DEFAULT) -> RecallResult:
    query = redact(strip_blocks(query)).text
    if not query.strip() or not service.ready():
        return RecallResult()
    hits = service.index.search(query, limit=settings.depth, min_score=settings.min_score)
    if hits:
        floor = hits[0].score * settings.relative
        hits = [h for h in hits if h.score >= floor]
    ranked = [h.memory for h in hits]
    method, note = "fts", None
    meanings = service.meanings
    if meanings is not None:
        vector, note = meanings.query_vector(query)
        if vector is not None:
            min_cosine = getattr(meanings.embedder, "min_cosine", settings.min_cosine)
            confirm = getattr(meanings.embedder, "confirm_cosine", None)
            if confirm is not None:  # a shared word alone is not enough when the meanings disagree
                cosines = meanings.vectors.cosines([m.id for m in ranked], vector)
                ranked = [m for m in ranked if cosines.get(m.id, 1.0) >= confirm]
            near = meanings.vectors.search(vector, settings.depth, min_cosine)
            with service.index.lock:  # another thread may be changing the index
                found = [service.index.memories.get(i) for i, _ in near]
            ranked = fuse(ranked, [m for m in found if m is not None])
            method = "hybrid"
        elif meanings.reason and note is None:
            note = f"semantic search unavailable, used full text: {meanings.reason}"
    chosen: list[Memory] = []
    for memory in ranked:
        if len(chosen) >= min(limit, settings.max_results):
            break
        if all(T.similarity(memory.text, c.text) < settings.duplicate for c in chosen):
            chosen.append(memory)
    block, used, kept = fit_block(chosen, tokens, settings.token_cap)
    return RecallResult(tuple(chosen[:kept]), block, used, method, note)


def fuse(*rankings: list) -> list:
    """Reciprocal-rank fusion of rankings of memories (or ids): best first."""
    scores: dict = {}
    by_key: dict = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking):
            key = getattr(item, "id", item)
            scores[key] = scores.get(key, 0.0) + 1.0 / (RRF_K + rank + 1)
            by_key[key] = item
    return [by_key[k] for k in sorted(scores, key=lambda k: -scores[k])]


def block_line(memory: Memory) -> BlockLine:
    return BlockLine(memory.type, datetime.fromtimestamp(memory.updated_at).month, memory.text)


def fit_block(memories: list[Memory], tokens, cap: int) -> tuple[str, int, int]:
    """The block for the best memories that fit the cap; a single memory too long alone is
    cut to fit. Returns (block, its tokens, how many memories it holds)."""
    lines = [block_line(m) for m in memories]
    while len(lines) > 1 and tokens.count(format_block(lines)) > cap:
        lines.pop()
    if not lines:
        return "", 0, 0
    block = format_block(lines)
    if tokens.count(block) > cap:
        first = lines[0]
        room = cap - tokens.count(format_block([BlockLine(first.type, first.month, "x")]))
        cut = tokens.truncate(first.text, room) if room > 0 else ""
        block = format_block([BlockLine(first.type, first.month, cut)]) if cut else ""
        if not block or tokens.count(block) > cap:
            return "", 0, 0
    return block, tokens.count(block), len(lines)


def recall_for_send(app, site: str, draft: str) -> RecallResult:
    """What to append to a draft being sent on `site`: empty unless long-term memory is on
    (and not paused) there. Never raises: a problem gives an empty result with a note, and
    the send goes on. Counts no usage: the caller does, once the block really goes (count_use)."""
    try:
        service = app.memory
        if not service.sites.get(site).memory_on:
            return RecallResult()
        result = recall(service, app.tokens, draft)
    except WhiteboardError as exc:
        log.warning("recall skipped: %s", type(exc).__name__)
        return RecallResult(note=exc.message)
    return result


def count_use(app, memory_ids: list[str]) -> None:
    """Memories that went with a send: their usage count and last use are queued for a
    background thread (DESIGN §5), off the send path."""
    if memory_ids:
        app.memory.usage.record(memory_ids)


def note_message(app, key: str, site: str) -> None:
    """Call on every captured chat message: (re)starts the conversation's extraction timer
    when the site has long-term memory on. Never raises."""
    try:
        app.memory.extractor.note_message(key, site)
    except WhiteboardError as exc:
        log.warning("extraction timer not started: %s", type(exc).__name__)
