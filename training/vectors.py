"""The bundled model's vectors of the training texts, kept between runs when WB_TRAIN_CACHE
names a folder (they describe the training data, not a user)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np


def embed_cached(model, kind: str, texts: list[str], batch: int = 32) -> np.ndarray:
    """(n, dim) float32: "query" or "passage" vectors as the model makes them."""
    embed = model.embed_passages if kind == "passage" else model.embed_queries
    where = os.environ.get("WB_TRAIN_CACHE")
    path = None
    if where:
        digest = hashlib.sha256("\n\0".join([model.model_id, kind, *texts]).encode()).hexdigest()[:24]
        path = Path(where) / f"{digest}.npy"
        if path.exists():
            return np.load(path)
    vectors = np.concatenate([embed(texts[i:i + batch]) for i in range(0, len(texts), batch)]).astype(np.float32)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, vectors)
    return vectors
