"""The bundled model's vectors of the training texts, kept between runs when WB_TRAIN_CACHE
names a folder (they describe the training data, not a user), and of the benchmarks' public
texts (WB_BENCH_CACHE)."""

from __future__ import annotations

import contextlib
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
    benchmarks use it with WB_BENCH_CACHE (tests/bench/bench_memory.py); the test suite's
    processes share one folder (tests/conftest.py), so a file is written whole and, where the
    platform locks files, made by one process while the others wait for it."""
    embed = model.embed_passages if kind == "passage" else model.embed_queries
    where = os.environ.get(cache_var)
    if not where:
        return embed_all(embed, texts, batch).astype(np.float32)
    digest = hashlib.sha256("\n\0".join([model.model_id, kind, *texts]).encode()).hexdigest()[:24]
    path = Path(where) / f"{digest}.npy"
    path.parent.mkdir(parents=True, exist_ok=True)
    with _locked(path.with_suffix(".lock")):
        if path.exists():
            return np.load(path)
        vectors = embed_all(embed, texts, batch).astype(np.float32)
        partial = path.with_suffix(f".{os.getpid()}.partial")
        with partial.open("wb") as out:
            np.save(out, vectors)
        os.replace(partial, path)
    return vectors


@contextlib.contextmanager
def _locked(path: Path):
    try:
        import fcntl
    except ImportError:  # Windows: at worst two processes embed the same texts
        yield
        return
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
