"""The search index, in RAM only: SQLite `:memory:` with FTS5 (design §5).

`words` (SQLite's porter stemmer over unicode61, accents folded) finds candidates by
bm25; `grams` (trigram) holds
the CJK runs of memories that have any, so Chinese and Japanese text is found without
spaces. Two-character words are below the trigram size, so each CJK bigram is also
stored followed by PAIR_MARK, which makes it a trigram the index can look up.

Candidates are then scored with BM25 again in Python (whiteboard/ranking.py, the idf
smoothed by a fixed background): that keeps a score, and so the threshold, meaning the same
in a 5-memory vault (where FTS5 clamps the idf of any word in half the rows to zero) and in
a 100k one, and puts word and trigram matches on one scale.
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass

from ... import text as T
from ...ranking import MAX_GRAMS, MAX_TERMS, bm25, length_norm, smoothed_idf
from ..model import Memory

CANDIDATES = 60
SEED_TERMS, SEED_MAX_SHARE = 8, 0.05
PAIR_MARK = "\u2063"  # invisible separator: never typed, so "東京" + mark only comes from us


def _gram_body(runs: list[str]) -> str:
    pairs = [run[i:i + 2] + PAIR_MARK for run in runs for i in range(len(run) - 1)]
    return "\n".join(runs) + "\n" + " ".join(pairs)


def _gram_term(gram: str) -> str:
    return gram if len(gram) == 3 else gram + PAIR_MARK


@dataclass(frozen=True)
class Hit:
    memory: Memory
    score: float


def _body(m: Memory) -> str:
    return " ".join([m.text, *m.tags, *m.keywords])


class MemoryIndex:
    def __init__(self) -> None:
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        # detail=none: only which rows hold a term. Queries are ORs of single terms, scores
        # are recomputed below, and the index builds about a third faster at start.
        self._db.executescript(f"""
            CREATE VIRTUAL TABLE words USING fts5(body, tokenize = '{T.PORTER}', detail = none);
            CREATE VIRTUAL TABLE words_v USING fts5vocab(words, row);
            CREATE VIRTUAL TABLE grams USING fts5(body, tokenize = 'trigram', detail = none);
            CREATE VIRTUAL TABLE grams_v USING fts5vocab(grams, row);
        """)
        self.lock = threading.RLock()
        self.memories: dict[str, Memory] = {}
        self.pinned: dict[str, Memory] = {}  # kept here so a send need not scan every memory
        self._rowid: dict[str, int] = {}
        self._by_rowid: dict[int, str] = {}
        self._lengths: dict[str, int] = {}
        self._total_length = 0
        self._next_rowid = 1

    def __len__(self) -> int:
        return len(self.memories)

    # ---- keeping it in step with the vault -------------------------------------------

    def put(self, memories: list[Memory]) -> None:
        """Add memories, or replace those already indexed under the same id."""
        with self.lock:
            self.remove([m.id for m in memories if m.id in self.memories])
            word_rows, gram_rows = [], []
            for m in memories:
                rowid = self._next_rowid
                self._next_rowid += 1
                body = _body(m)
                self.memories[m.id] = m
                if m.pinned:
                    self.pinned[m.id] = m
                self._rowid[m.id], self._by_rowid[rowid] = rowid, m.id
                length = max(1, T.length(body))
                self._lengths[m.id] = length
                self._total_length += length
                word_rows.append((rowid, body))
                runs = T.cjk_runs(body)
                if runs:
                    gram_rows.append((rowid, _gram_body(runs)))
            self._db.executemany("INSERT INTO words (rowid, body) VALUES (?, ?)", word_rows)
            self._db.executemany("INSERT INTO grams (rowid, body) VALUES (?, ?)", gram_rows)

    def remove(self, memory_ids: list[str]) -> None:
        with self.lock:
            rowids = []
            for memory_id in memory_ids:
                rowid = self._rowid.pop(memory_id, None)
                if rowid is None:
                    continue
                self.memories.pop(memory_id)
                self.pinned.pop(memory_id, None)
                del self._by_rowid[rowid]
                self._total_length -= self._lengths.pop(memory_id)
                rowids.append((rowid,))
            self._db.executemany("DELETE FROM words WHERE rowid = ?", rowids)
            self._db.executemany("DELETE FROM grams WHERE rowid = ?", rowids)

    def clear(self) -> None:
        with self.lock:
            self.remove(list(self.memories))

    # ---- search ----------------------------------------------------------------------

    def search(self, query: str, limit: int = 10, min_score: float = 0.0) -> list[Hit]:
        """Memories matching query, best first, each with its BM25 score (smoothed idf)."""
        written = T.content_words(query, MAX_TERMS)  # stem -> the word as written
        terms = list(written)
        grams = T.cjk_query_grams(query)[:MAX_GRAMS]
        with self.lock:
            if not self.memories or not (terms or grams):
                return []
            idf = {t: self._idf(self._word_df(t)) for t in terms}
            idf.update({g: self._idf(self._gram_df(g)) for g in grams})
            candidates: set[int] = set()
            seeds = self._seed_terms(terms, idf)
            if seeds:  # the words as written: FTS5 stems them as it stemmed the memories
                expr = " OR ".join(f'"{written[t]}"' for t in seeds)
                candidates.update(r for (r,) in self._db.execute(
                    "SELECT rowid FROM words WHERE words MATCH ? ORDER BY rank LIMIT ?", (expr, CANDIDATES)))
            if grams:
                expr = " OR ".join('"' + _gram_term(g).replace('"', '""') + '"' for g in grams)
                candidates.update(r for (r,) in self._db.execute(
                    "SELECT rowid FROM grams WHERE grams MATCH ? ORDER BY rank LIMIT ?", (expr, CANDIDATES)))
            if not candidates:
                return []
            hits = []
            for rowid in candidates:
                memory = self.memories[self._by_rowid[rowid]]
                score = self._score(memory, terms, grams, idf)
                if score > min_score:
                    hits.append(Hit(memory, score))
        hits.sort(key=lambda h: (-h.score, -h.memory.updated_at))
        return hits[:limit]

    def _score(self, memory: Memory, terms: list[str], grams: list[str], idf: dict[str, float]) -> float:
        body = _body(memory)
        norm = length_norm(self._lengths[memory.id], self._total_length / len(self.memories))
        doc_stems = T.stems(T.words(body)) if terms else []
        tf = {t: doc_stems.count(t) for t in terms}
        if grams:
            cjk = "\n".join(T.cjk_runs(body))
            tf.update({g: cjk.count(g) for g in grams})
        return bm25(tf, idf, norm)

    def _seed_terms(self, terms: list[str], idf: dict[str, float]) -> list[str]:
        """The rarer terms find the candidates: ranking every row that holds a word found in
        half the vault costs far more than it can add (such a word scores little anyway)."""
        present = sorted((t for t in terms if idf[t] < self._idf(0)), key=lambda t: -idf[t])
        common_df = max(CANDIDATES, int(len(self.memories) * SEED_MAX_SHARE))
        rare = [t for t in present if idf[t] >= self._idf(common_df)]
        return (rare or present[:1])[:SEED_TERMS]

    def _idf(self, df: int) -> float:
        return smoothed_idf(df, len(self.memories))

    def _word_df(self, stem: str) -> int:
        row = self._db.execute("SELECT doc FROM words_v WHERE term = ?", (stem,)).fetchone()
        return int(row[0]) if row else 0

    def _gram_df(self, gram: str) -> int:
        row = self._db.execute("SELECT doc FROM grams_v WHERE term = ?", (_gram_term(gram),)).fetchone()
        return int(row[0]) if row else 0
