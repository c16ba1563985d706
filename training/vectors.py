"""The bundled model's vectors of the training texts, kept between runs when WB_TRAIN_CACHE
names a folder (they describe the training data, not a user), and of the benchmarks' public
texts (WB_BENCH_CACHE)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np


def embed_all(embed, texts: list[str], batch: int = 32) -> np.ndarray:
    """`embed` (a model's embed_queries or embed_passages) over `texts`, `batch` at a time."""
    return np.concatenate([embed(texts[i:i + batch]) for i in range(0, len(texts), batch)])


def embed_cached(model, kind: str, texts: list[str], batch: int = 32, cache_var: str = "WB_TRAIN_CACHE") -> np.ndarray:
    """(n, dim) float32: "query" or "passage" vectors as the model makes them, kept in the
    folder $`cache_var` names (when set) under the model id and a hash of the texts. The
    benchmarks use it with WB_BENCH_CACHE (tests/bench/bench_memory.py)."""
    embed = model.embed_passages if kind == "passage" else model.embed_queries
    where = os.environ.get(cache_var)
    path = None
    if where:
        digest = hashlib.sha256("\n\0".join([model.model_id, kind, *texts]).encode()).hexdigest()[:24]
        path = Path(where) / f"{digest}.npy"
        if path.exists():
            return np.load(path)
    vectors = embed_all(embed, texts, batch).astype(np.float32)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, vectors)
    return vectors
