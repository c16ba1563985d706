"""Recall (design §5): a query -> at most 5 memories, the injection block, its tokens.

Hybrid: full-text hits above an absolute BM25 floor (idf smoothed by a fixed background,
so it means the same in a 5-memory vault and a 100k one) and meaning hits above a cosine
floor (for the bundled model, a lower one when its context gate says the draft wants
personal context: context_gate.py), fused by reciprocal rank (a full-text hit whose
meaning is far from the draft's, under the model's confirm floor, is dropped: one shared
word such as "Berlin" in "When did the Berlin Wall fall?" is not enough); then
near-duplicate removal, at most 5, and a token cap on the block. No floor depends on the
other memories or their number: a request unrelated to every memory injects nothing in
any vault. Memories not yet embedded, a draft not embedded within its deadline, or no
model at all: full text alone (`method` says which, `note` why). With the user's switch on,
the configured model's rewrite of the tab's draft into kinds of fact (meaning/rewrite.py), if
ready at the send, adds one more ranked list: what its phrases' vector found when it arrived.

A send's memories (`send_memories`: the pinned ones, then those recalled) are asked for
through the service (MemoryService.for_send), which holds the vault for them; the chat
flow's calls are memory/hub.py's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from ... import text as T
from ...blocks import strip_blocks
from ...privacy import redact
from ..model import Memory
from .inject import BlockLine, format_block, format_line

# Reciprocal-rank fusion: k and the meaning ranking's weight (full text's is 1) were chosen on
# LoCoMo conversation 5 before it was kept to benchmarking only; not chosen again on our own
# data, whose requests share no content word with their facts, so there more weight to meanings
# always wins (docs/memory.md, "Fusion").
RRF_K = 5
MEANING_WEIGHT = 1.5
# A full-text hit scoring at least this (BM25, smoothed idf) keeps its full-text rank in the
# fused ranking (None: plain fusion). `python -m training.fusion` chooses it: the lowest score
# costing the training split of our data nothing. On the 28 domains of 2026-11-27 that was 6,
# withdrawn: in a vault of 190 facts "Which programming language should I pick for my new web
# app?" put "Native Hindi speaker, English is second language" (8.5) above "Prefers TypeScript
# over JavaScript" (test_draft_meaning.py). On the 44 domains of 2026-11-28 it is 10, which keeps
# the hybrid above words alone on LoCoMo 6-10 (0.546 against 0.539; 0.523 with plain fusion); with
# the profile's power of 2026-11-29, 12; with twice the requests and the profile's hidden layer
# (the same day), 10 again.
STRONG_WORDS: float | None = 10.0
# The weight of the ranking found with the configured model's rewrite of the draft into kinds of
# fact (meaning/rewrite.py), when the user turned it on and it was ready at Enter: full text's
# weight, not chosen on data (no real model is reachable where it was built; docs/memory.md).
REWRITE_WEIGHT = 1.0
# Pinned memories tried per send, however many there are: at the largest pinned cap (2000
# tokens) fewer lines than this fit; and no line is shorter than LINE_TOKENS_MIN.
PINNED_TRIED = 256
LINE_TOKENS_MIN = 5


@dataclass(frozen=True)
class RecallSettings:
    max_results: int = 5
    token_cap: int = 300  # the whole block, header and footer included
    min_score: float = 2.0  # BM25 with smoothed idf: one word found in under ~15% of memories
    relative: float = 0.35  # of the best hit's score
    min_cosine: float = 0.45  # for a model without its own calibrated floor (an endpoint)
    duplicate: float = 0.8  # results this similar to a better one are dropped
    depth: int = 50  # of each ranking before fusion


DEFAULT = RecallSettings()


@dataclass(frozen=True)
class RecallResult:
    memories: tuple[Memory, ...] = ()  # pinned ones first (a send's), then recalled ones
    block: str = ""
    tokens: int = 0
    method: str = "none"  # "fts", "hybrid" or "none"
    note: str | None = None  # why recall fell back or gave nothing (names no content)
    lines: tuple[BlockLine, ...] = ()  # the block's lines, a memory each (the first may be cut)
    pinned: int = 0  # how many of `memories` are pinned ones


def draft_query(draft: str) -> str:
    """A draft as recall reads it (and as chat.draft's vectors are keyed): Whiteboard blocks
    stripped, privacy-filtered."""
    return redact(strip_blocks(draft)).text


def recall(service, tokens, query: str, limit: int = 5, settings: RecallSettings = DEFAULT,
           exclude: frozenset[str] = frozenset(), key: str | None = None, rewrite: bool = False) -> RecallResult:
    """Memories for `query` (those in `exclude` never: a send's pinned ones are there
    already); `key`: the tab's, whose draft may have been embedded while the user typed and,
    with `rewrite` (the user's switch), rewritten by the configured model: used only if ready
    now, never waited for."""
    query = draft_query(query)
    if not query.strip() or not service.ready():
        return RecallResult()
    meanings = service.meanings
    # The draft is embedded (off the GIL) while full text runs: the deadline covers both.
    query_vector = meanings.begin_query(query, key) if meanings is not None else None
    hits = service.index.search(query, limit=settings.depth + len(exclude), min_score=settings.min_score)
    hits = [h for h in hits if h.memory.id not in exclude]
    if hits:
        floor = hits[0].score * settings.relative
        hits = [h for h in hits if h.score >= floor]
    ranked = [h.memory for h in hits]
    found: list[Memory] = []  # the draft's meaning hits
    method, note = "fts", None
    if query_vector is not None:
        vector, note = query_vector()
        if vector is not None:
            confirm = confirm_floor(meanings.embedder, vector)
            if confirm is not None:  # a shared word alone is not enough when the meanings disagree
                # A vector made from an older text (an edit not yet embedded again) says nothing.
                current = [m.id for m in ranked if meanings.vectors.is_current(m)]
                cosines = meanings.vectors.cosines(current, vector)
                ranked = [m for m in ranked if cosines.get(m.id, 1.0) >= confirm]
            found = _near(service, vector, settings)
            method = "hybrid"
        elif meanings.reason and note is None:
            note = f"semantic search unavailable, used full text: {meanings.reason}"
    kinds = _rewrite_hits(service, query, key) if rewrite and key is not None else []
    if method == "hybrid" or kinds:
        scores = {h.memory.id: h.score for h in hits}
        ranked = fuse_hybrid(ranked, found, [scores[m.id] for m in ranked],
                             extra=((kinds, REWRITE_WEIGHT),) if kinds else ())
    chosen: list[Memory] = []
    for memory in (m for m in ranked if m.id not in exclude):
        if len(chosen) >= min(limit, settings.max_results):
            break
        if all(T.similarity(memory.text, c.text) < settings.duplicate for c in chosen):
            chosen.append(memory)
    lines = fit_lines(chosen, tokens, settings.token_cap)
    block = format_block(lines)
    return RecallResult(tuple(chosen[:len(lines)]), block, tokens.count(block) if block else 0, method, note,
                        tuple(lines))


def _near(service, vector, settings: RecallSettings) -> list[Memory]:
    """The memories whose current vectors are within the floor `vector` gets (the gate decides
    for the bundled model), best first."""
    meanings = service.meanings
    near = meanings.vectors.search(vector, settings.depth, cosine_floor(meanings.embedder, vector, settings))
    with service.index.lock:  # another thread may be changing the index
        found = [service.index.memories.get(i) for i, _ in near]
    return [m for m in found if m is not None and meanings.vectors.is_current(m)]


def near_ids(service, vector, settings: RecallSettings = DEFAULT) -> tuple[str, ...]:
    """What `_near` finds, as ids: a draft's rewrite searches with its phrases' vector when it
    arrives, off the send path (meaning/rewrite.py)."""
    return tuple(m.id for m in _near(service, vector, settings))


def _rewrite_hits(service, query: str, key: str) -> list[Memory]:
    """The memories the tab's rewrite of this draft found, if it is ready now for this text
    or a small edit of it (a look-up: it searched when it arrived); else none, at once:
    nothing waits for the model. One deleted or edited since is left out."""
    meanings = service.meanings
    embedder = meanings.embedder if meanings is not None else None
    if embedder is None:
        return []
    ready = meanings.rewrites.lookup(key, query, embedder.model_id).vector
    if ready is None or not ready.found:
        return []
    with service.index.lock:  # another thread may be changing the index
        found = [service.index.memories.get(i) for i in ready.found]
    return [m for m in found if m is not None and meanings.vectors.is_current(m)]


def cosine_floor(embedder, vector, settings: RecallSettings) -> float:
    """The cosine a memory needs for this draft: the model's own decision (the bundled model
    asks its context gate), else its fixed floor, else the settings' (an endpoint)."""
    decide = getattr(embedder, "cosine_floor", None)
    if decide is not None:
        return decide(vector)
    return getattr(embedder, "min_cosine", settings.min_cosine)


def confirm_floor(embedder, vector) -> float | None:
    """The cosine a full-text hit must also have for this draft (the bundled model decides
    per draft), or None: an endpoint's full-text hits need none."""
    decide = getattr(embedder, "confirm_floor", None)
    return decide(vector) if decide is not None else None


def rrf(*rankings: tuple[list, float]) -> list:
    """Reciprocal-rank fusion of weighted rankings of memories (or ids): best first."""
    fused: dict = {}
    by_key: dict = {}
    for ranking, weight in rankings:
        for rank, item in enumerate(ranking):
            key = getattr(item, "id", item)
            fused[key] = fused.get(key, 0.0) + weight / (RRF_K + rank + 1)
            by_key[key] = item
    return [by_key[k] for k in sorted(fused, key=lambda k: -fused[k])]


def keep_strong(order: list, full_text: list, scores: list[float] | None, strong: float | None) -> list:
    """`order` with each full-text hit scoring at least `strong` (`scores`, in `full_text`'s
    order) moved up to its full-text rank when it sits lower; None: `order` as it is."""
    order = list(order)
    if strong is None or not scores:
        return order
    keys = [getattr(item, "id", item) for item in order]
    # In full-text order, each strong hit put lower moves up to its full-text rank: the ones
    # moved before it sit higher still, so none ends below its rank.
    for rank, (item, score) in enumerate(zip(full_text, scores)):
        key = getattr(item, "id", item)
        if score >= strong and key in keys and (at := keys.index(key)) > rank:
            keys.insert(rank, keys.pop(at))
            order.insert(rank, order.pop(at))
    return order


def fuse_hybrid(full_text: list, meanings: list, scores: list[float] | None = None,
                strong: float | None = STRONG_WORDS, extra: Sequence[tuple[list, float]] = ()) -> list:
    """Reciprocal-rank fusion of a full-text ranking and a meaning ranking of memories (or
    ids), and of any `extra` (ranking, weight): best first. `scores`: the full-text hits'
    scores, in their order; a hit scoring at least `strong` ends no lower than its full-text
    rank (a better fused rank it keeps)."""
    fused = rrf((full_text, 1.0), (meanings, MEANING_WEIGHT), *extra)
    return keep_strong(fused, full_text, scores, strong)


def block_line(memory: Memory) -> BlockLine:
    return BlockLine(memory.type, datetime.fromtimestamp(memory.updated_at).month, memory.text)


def fit_lines(memories: list[Memory], tokens, cap: int) -> list[BlockLine]:
    """The lines of the best memories whose block fits the cap; a single memory too long
    alone is cut to fit."""
    lines = [block_line(m) for m in memories]
    while len(lines) > 1 and tokens.count(format_block(lines)) > cap:
        lines.pop()
    if not lines or tokens.count(format_block(lines)) <= cap:
        return lines
    first = lines[0]
    room = cap - tokens.count(format_block([BlockLine(first.type, first.month, "x")]))
    cut = tokens.truncate(first.text, room) if room > 0 else ""
    lines = [BlockLine(first.type, first.month, cut)] if cut else []
    return lines if lines and tokens.count(format_block(lines)) <= cap else []


def fit_pinned(pinned: list[Memory], tokens, cap: int) -> list[Memory]:
    """Pinned memories in pin order whose lines fit `cap` tokens together (each line
    counted as it appears in the block); one that does not fit is left out, the next
    still tried. Never cut: a pinned instruction goes whole or not at all. Bounded however
    many are pinned: the first PINNED_TRIED are tried, and none once no line can fit."""
    kept, used = [], 0
    for memory in pinned[:PINNED_TRIED]:
        if cap - used < LINE_TOKENS_MIN:
            break
        cost = tokens.count(format_line(block_line(memory)))
        if used + cost <= cap:
            kept.append(memory)
            used += cost
    return kept


def send_memories(service, tokens, draft: str, pinned_cap: int, room: int | None = None,
                  key: str | None = None, rewrite: bool = False) -> RecallResult:
    """What goes with a send (and its preview): the pinned memories within their own cap,
    first, then those recalled for the draft within recall's cap, none twice; all of it
    within `room` tokens, dropping the recalled ones first. `rewrite`: the user's switch for
    the model's rewrite of the draft (used only if ready)."""
    pinned = fit_pinned(service.pinned(PINNED_TRIED), tokens, pinned_cap) if pinned_cap > 0 else []
    found = recall(service, tokens, draft, exclude=frozenset(m.id for m in pinned), key=key, rewrite=rewrite)
    pinned_lines = [block_line(m) for m in pinned]
    for lines, recalled in (([*pinned_lines, *found.lines], found.memories), (pinned_lines, ())):
        block = format_block(lines)
        cost = tokens.count(block) if block else 0
        if room is None or cost <= room:
            return RecallResult((*pinned, *recalled), block, cost, found.method, found.note, tuple(lines), len(pinned))
    return RecallResult(method=found.method, note=found.note)
