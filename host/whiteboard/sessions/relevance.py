"""How relevant a tab's messages, and the passages inside long ones, are to a question
(issue 11), for the context builder.

Full text, scored as long-term memory scores (ranking.py: BM25 with the idf smoothed
by a fixed background, over porter stems of the content words and CJK grams); the
session's messages are the documents. A message scores as well as its best passage, so one relevant paragraph in a
long reply is not drowned by the rest. No embeddings here: the session's messages have no
vectors, and embedding them on a send would take tens of milliseconds per message.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from itertools import chain

from .. import text as T
from ..ranking import MAX_GRAMS, MAX_TERMS, bm25, length_norm, smoothed_idf
from .store import Message

# A passage is a paragraph; a longer paragraph is split into runs of whole sentences.
PASSAGE_CHARS = 600
# Messages scoring under this share of the best one are not treated as relevant.
RELATIVE = 0.35
# A query is read up to here (a pasted draft may be megabytes; its start says what it is about).
QUERY_CHARS = 2000
# And a message up to here: a send must not wait on the words of a pasted megabyte.
MESSAGE_CHARS = 20_000
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
            end = pos + len(line.rstrip())
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
        gap = max((m.span() for m in SENTENCE_END.finditer(text, start + 1, limit)), default=None)
        if gap is None:  # no sentence ends in time: a space, else a hard cut
            space = text.rfind(" ", start + 1, limit)
            gap = (space, space + 1) if space > 0 else (limit, limit)
        out.append((start, gap[0]))
        start = gap[1]
    out.append((start, end))
    return out


@dataclass(frozen=True)
class Ranking:
    """Messages relevant to the question, most relevant first, and for a message of more
    than one passage the passage that matched best."""

    order: tuple[int, ...]  # seqs
    best_passage: dict[int, Span]


def rank(messages: list[Message], query: str, read: dict[int, _Doc] | None = None) -> Ranking:
    """`read`: the messages already read, by seq (a session's, kept with it): each is read once."""
    query = query[:QUERY_CHARS]
    terms = T.content_terms(query)[:MAX_TERMS]
    grams = T.cjk_query_grams(query)[:MAX_GRAMS]
    if not messages or not (terms or grams):
        return Ranking((), {})
    read = {} if read is None else read
    docs = [read.get(m.seq) or read.setdefault(m.seq, _Doc(m.content[:MESSAGE_CHARS])) for m in messages]
    tf = [d.whole.frequencies(terms, grams) for d in docs]
    idf = {t: smoothed_idf(sum(1 for f in tf if f[t]), len(docs)) for t in [*terms, *grams]}
    average = sum(d.whole.length for d in docs) / len(docs)
    scores: dict[int, float] = {}
    best_passage: dict[int, Span] = {}
    for m, d, f in zip(messages, docs, tf):
        score = bm25(f, idf, length_norm(d.whole.length, average))
        if score and len(d.spans) > 1:  # passage bags only for the messages that match
            best, span = max(((bm25(p.frequencies(terms, grams), idf, length_norm(p.length, average)), span)
                              for p, span in zip(d.passages(), d.spans)), key=lambda s: s[0])
            if best > 0:
                best_passage[m.seq] = span
                score = max(score, best)
        if score:
            scores[m.seq] = score
    if not scores:
        return Ranking((), {})
    floor = max(scores.values()) * RELATIVE
    order = tuple(sorted((s for s in scores if scores[s] >= floor), key=lambda s: -scores[s]))
    return Ranking(order, {s: best_passage[s] for s in order if s in best_passage})


class _Bag:
    """Word stems (and CJK runs) as BM25 reads them; the length is their number (CJK characters count one each)."""

    def __init__(self, stems: list[str], cjk: str):
        self.counts, self.cjk = Counter(stems), cjk
        self.length = max(1, len(stems) + len(cjk))

    def frequencies(self, terms: list[str], grams: list[str]) -> dict[str, float]:
        tf = {t: self.counts.get(t, 0) for t in terms}
        tf.update({g: self.cjk.count(g) for g in grams})
        return tf


class _Doc:
    """A message read passage by passage: the whole as one bag, the passages' bags on demand."""

    def __init__(self, text: str):
        self.spans = passages(text)
        self._stems = [T.stems(T.words(text[a:b])) for a, b in self.spans]
        self._cjk = ["\n".join(T.cjk_runs(text[a:b])) for a, b in self.spans]
        self.whole = _Bag(list(chain.from_iterable(self._stems)), "\n".join(self._cjk))

    def passages(self) -> list[_Bag]:
        return [_Bag(s, c) for s, c in zip(self._stems, self._cjk)]
