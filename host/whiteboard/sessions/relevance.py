"""How relevant a tab's messages, and the passages inside long ones, are to a question
(issue 11), for the context builder.

Full text, scored as long-term memory scores (memory/index.py: BM25 with the idf smoothed
by a fixed background, content-word stems, CJK grams); the session's messages are the
documents. A message scores as well as its best passage, so one relevant paragraph in a
long reply is not drowned by the rest. No embeddings here: the session's messages have no
vectors, and embedding them on a send would take tens of milliseconds per message.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from ..memory import text as T
from ..memory.index import MAX_GRAMS, MAX_TERMS, bm25, length_norm, match_weight, smoothed_idf
from .store import Message

# A passage is a paragraph; a longer paragraph is split into runs of whole sentences.
PASSAGE_CHARS = 600
# Messages scoring under this share of the best one are not treated as relevant.
RELATIVE = 0.35
# A query is read up to here (a pasted draft may be megabytes; its start says what it is about).
QUERY_CHARS = 2000
SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+")

Span = tuple[int, int]


def passages(text: str) -> list[Span]:
    """(start, end) of each passage of text, in order: paragraphs (runs of non-blank lines),
    each split into runs of whole sentences of at most PASSAGE_CHARS (a longer sentence is
    cut at a space)."""
    spans: list[Span] = []
    start = end = pos = 0
    inside = False
    for line in text.split("\n"):
        if line.strip():
            if not inside:
                start, inside = pos, True
            end = pos + len(line)
        elif inside:
            spans += _split(text, start, end)
            inside = False
        pos += len(line) + 1
    if inside:
        spans += _split(text, start, end)
    return spans


def _split(text: str, start: int, end: int) -> list[Span]:
    out: list[Span] = []
    while end - start > PASSAGE_CHARS:
        limit = start + PASSAGE_CHARS
        cut = max((m.end() for m in SENTENCE_END.finditer(text, start + 1, limit)), default=-1)
        if cut <= start:
            cut = text.rfind(" ", start + 1, limit) + 1 or limit
        out.append((start, cut))
        start = cut
    out.append((start, end))
    return out


@dataclass(frozen=True)
class Ranking:
    """Messages relevant to the question, most relevant first, and for a message of more
    than one passage the passage that matched best."""

    order: tuple[int, ...]  # seqs
    best_passage: dict[int, Span]


def rank(messages: list[Message], query: str) -> Ranking:
    query = query[:QUERY_CHARS]
    terms = T.content_terms(query)[:MAX_TERMS]
    grams = T.cjk_query_grams(query)[:MAX_GRAMS]
    if not messages or not (terms or grams):
        return Ranking((), {})
    docs = [_Doc(m.content, bool(grams)) for m in messages]
    # Each term's matching words, looked up once in the session's vocabulary, not per document.
    vocabulary = set().union(*(d.counts for d in docs))
    weights = {t: [(w, x) for w in vocabulary if (x := match_weight(w, t))] for t in terms}
    tf = [d.frequencies(weights, grams) for d in docs]
    idf = {t: smoothed_idf(sum(1 for f in tf if f[t]), len(docs)) for t in [*terms, *grams]}
    average = sum(d.length for d in docs) / len(docs)
    scores: dict[int, float] = {}
    best_passage: dict[int, Span] = {}
    for m, d, f in zip(messages, docs, tf):
        score = bm25(f, idf, length_norm(d.length, average))
        if not score:
            continue
        spans = passages(m.content)
        if len(spans) > 1:  # only now: most messages match nothing
            parts = [_Doc(m.content[a:b], bool(grams)) for a, b in spans]
            best, span = max(((bm25(p.frequencies(weights, grams), idf, length_norm(p.length, average)), span)
                              for p, span in zip(parts, spans)), key=lambda s: s[0])
            if best > 0:
                best_passage[m.seq] = span
                score = max(score, best)
        scores[m.seq] = score
    if not scores:
        return Ranking((), {})
    floor = max(scores.values()) * RELATIVE
    order = tuple(sorted((s for s in scores if scores[s] >= floor), key=lambda s: -scores[s]))
    return Ranking(order, {s: best_passage[s] for s in order if s in best_passage})


class _Doc:
    """A text's words (and CJK runs) as BM25 reads them."""

    def __init__(self, text: str, cjk: bool):
        self.counts = Counter(T.words(text))
        self.cjk = "\n".join(T.cjk_runs(text)) if cjk else ""
        self.length = max(1, T.length(text))

    def frequencies(self, weights: dict[str, list[tuple[str, float]]], grams: list[str]) -> dict[str, float]:
        tf = {t: sum(self.counts.get(w, 0) * x for w, x in matches) for t, matches in weights.items()}
        tf.update({g: self.cjk.count(g) for g in grams})
        return tf
