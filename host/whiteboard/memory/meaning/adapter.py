"""The meaning adapter: a fixed linear map that recall applies to the bundled model's vectors.

e5-small ranks a request's own fact below facts about other people on the same topic too
often (docs/memory.md). One 384x384 matrix W, applied to both sides (a memory's vector and
the draft's, each normalised again), moves what a request needs closer to it: trained by
`python -m training.adapter` (not shipped) on our own request/fact pairs among our own memory
texts (contrastive, an L2 penalty pulling W towards the identity; docs/memory.md has the
figures).

The vault keeps the model's own vectors: the adapter is applied as they enter the index
(vectors.MeaningIndexer), so a new adapter needs no re-embedding. Weights belong to one
model: for another (an endpoint, a newer bundled model) `load` gives None and the vectors
are compared as the model made them.
"""

from __future__ import annotations

import hashlib
import logging
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

log = logging.getLogger("whiteboard.memory.meaning.adapter")
WEIGHTS = Path(__file__).parents[1] / "data" / "meaning_adapter.npz"


@dataclass(frozen=True)
class Adapter:
    model: str  # the model id whose vectors it maps
    matrix: np.ndarray  # (dim, dim) float32

    @property
    def name(self) -> str:
        """Names these weights (the context gate is trained on vectors mapped by them)."""
        return "adapter-" + hashlib.sha256(self.matrix.tobytes()).hexdigest()[:12]

    def apply(self, vectors: np.ndarray) -> np.ndarray:
        """(n, dim) unit vectors -> (n, dim) unit vectors in the adapted space."""
        return unit_rows(np.asarray(vectors, dtype=np.float32) @ self.matrix)


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Each row scaled to length 1 (a zero row stays zero)."""
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)


def load(model_id: str, dim: int, path: Path | None = None) -> Adapter | None:
    """The adapter trained for `model_id`'s `dim`-wide vectors (from `path`, else the
    shipped WEIGHTS), or None (no file, another model's, unreadable, another size)."""
    try:
        with np.load(path or WEIGHTS, allow_pickle=False) as data:
            adapter = Adapter(str(data["model"]), np.ascontiguousarray(data["matrix"], dtype=np.float32))
    except (OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile) as exc:
        log.warning("the meaning adapter did not load (%s); vectors are compared as the model made them",
                    type(exc).__name__)
        return None
    if adapter.model != model_id:
        log.warning("the meaning adapter was trained for %s, not %s; vectors are compared as the model made them",
                    adapter.model, model_id)
        return None
    if adapter.matrix.shape != (dim, dim) or not np.isfinite(adapter.matrix).all():
        return None
    return adapter
