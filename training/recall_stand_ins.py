"""Just enough of the memory service for recall() over a bare index, with meanings made
beforehand: the floors trainer (training/floors.py) and the memory benchmark
(tests/bench/bench_memory.py) measure ranking this way, not this machine's load."""

from __future__ import annotations

import numpy as np


class FixedMeanings:
    """Just enough of vectors.MeaningIndexer for recall(): vectors and a query vector made
    beforehand."""

    def __init__(self, vectors, query_vector: np.ndarray, embedder):
        self.vectors, self._query_vector, self.embedder = vectors, query_vector, embedder
        self.reason = None

    def begin_query(self, text: str, key: str | None = None):
        return lambda: (self._query_vector, None)


class IndexOnly:
    """Just enough of MemoryService for recall() over a bare index (no vault)."""

    def __init__(self, index, meanings=None):
        self.index, self.meanings = index, meanings

    def ready(self) -> bool:
        return True


class ByteTokens:
    """Token counts do not matter for evidence recall; skip the tokenizer's cost."""

    def count(self, text: str) -> int:
        return len(text) // 4

    def truncate(self, text: str, n: int) -> str:
        return text[: n * 4]
