"""BM25 as long-term memory and a session's context both score text (design §4, §5).

The idf is smoothed by a fixed background of BACKGROUND_DOCS documents, so a score, and
so a threshold, means the same over 5 documents as over 100k, and word and CJK-gram
matches share one scale. A query is read up to MAX_TERMS words and MAX_GRAMS CJK grams.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

BACKGROUND_DOCS = 1000
# Chosen on LoCoMo conversations 1-5 (docs/memory.md): less length normalisation than the
# textbook 0.75 (b 0.2 did a hair better there; 0.3 still favours the shorter of two equal matches).
K1, B = 0.9, 0.3
MAX_TERMS, MAX_GRAMS = 24, 48


def smoothed_idf(df: int, docs: int) -> float:
    """BM25's idf over `docs` documents plus the fixed background (see the module's note)."""
    n = docs + BACKGROUND_DOCS
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def length_norm(length: int, average: float) -> float:
    return K1 * (1 - B + B * length / max(1.0, average))


def bm25(tf: Mapping[str, float], idf: Mapping[str, float], norm: float) -> float:
    """A document's BM25 score from its frequency of each query term (or CJK gram) and its length_norm."""
    return sum(idf[t] * f * (K1 + 1) / (f + norm) for t, f in tf.items() if f)
