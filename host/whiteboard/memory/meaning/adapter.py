"""The meaning adapter: what recall applies to the bundled model's vectors before comparing them.

e5-small ranks a request's own fact below the user's other facts and facts about other people
too often (docs/memory.md). Two parts, both trained by `python -m training.adapter` (not
shipped) on our own request -> fact data, applied to both sides (a memory's vector and the
draft's):
- a linear map: one 384x384 matrix W (contrastive, an L2 penalty pulling W towards the
  identity), the vector normalised again;
- a life-domain profile: a softmax over the training data's life domains (diet, work, pets,
  ...) read off the vector by a small network (one hidden ReLU layer; weights of before
  2026-11-29 read it by a linear model), each probability raised to a power (below 1 it lets a
  request read as two domains match the facts of both), normalised. A request and the
  facts it needs share a profile even when they share neither words nor a close e5 vector
  ("What should I order at the sushi place tonight?" and "Is vegetarian" both read as diet).
The two are joined into one vector, the profile's part weighted so that the dot product of two
joined vectors is (cosine of the maps + SHARE x the profiles' product) / (1 + SHARE), the
profiles' product being their cosine scaled by how surely each is about the user's life: recall
still compares one vector per memory by a dot product.

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
# The profile's arrays in the weights file, in Profile.arrays()'s order (the last three only
# when the profile has them: weights of before have none)
PROFILE_KEYS = ("profile_mean", "profile_scale", "profile_weights", "profile_bias", "profile_mine", "profile_share",
                "profile_power", "profile_hidden_weights", "profile_hidden_bias")


@dataclass(frozen=True)
class Profile:
    """Life-domain probabilities from a vector: softmax(h @ weights + bias), h the standardised
    vector (v - mean) / scale, or with a hidden layer relu(that @ hidden_weights + hidden_bias);
    over the user's domains and classes that are none of them (other people, the world); each
    raised to `power` before the direction is taken."""
    mean: np.ndarray  # (dim,)
    scale: np.ndarray  # (dim,)
    weights: np.ndarray  # (dim, classes)
    bias: np.ndarray  # (classes,)
    mine: np.ndarray  # (classes,) 1 for a domain of the user's life, 0 for the others
    share: float  # the profile's cosine counts this much beside the map's
    power: float = 1.0  # weights of before 2026-11-29 (the benchmark reads them) have none: 1
    hidden_weights: np.ndarray | None = None  # (dim, hidden); None: a linear read (weights of before)
    hidden_bias: np.ndarray | None = None  # (hidden,)

    def apply(self, vectors: np.ndarray) -> np.ndarray:
        """(n, dim) -> (n, domains): the user's domains' probabilities, to the power, as a
        direction, as long as their sum (the chance that the text is about the user's life at
        all): a sentence about someone else or a question about the world has almost no profile
        to match."""
        z = (np.asarray(vectors, dtype=np.float32) - self.mean) / self.scale
        if self.hidden_weights is not None:
            z = np.maximum(z @ self.hidden_weights + self.hidden_bias, 0)
        z = z @ self.weights + self.bias
        z = np.exp(z - z.max(axis=-1, keepdims=True))
        domains = (z / z.sum(axis=-1, keepdims=True))[:, self.mine > 0]
        return unit_rows(domains ** np.float32(self.power)) * domains.sum(axis=-1, keepdims=True)

    def arrays(self) -> tuple[np.ndarray, ...]:
        """Every weight; the power only when it is not 1 and the hidden layer only when there is
        one (so weights of before keep their name)."""
        return tuple(self.saved().values())

    def saved(self) -> dict[str, np.ndarray]:
        """The arrays as the weights file names them (PROFILE_KEYS)."""
        power = np.array([self.power], dtype=np.float32)
        share = np.array([self.share], dtype=np.float32)
        values = (self.mean, self.scale, self.weights, self.bias, self.mine, share,
                  None if self.power == 1.0 else power, self.hidden_weights, self.hidden_bias)
        return {k: v for k, v in zip(PROFILE_KEYS, values) if v is not None}


@dataclass(frozen=True)
class Adapter:
    model: str  # the model id whose vectors it maps
    matrix: np.ndarray  # (dim, dim) float32
    profile: Profile | None = None

    @property
    def name(self) -> str:
        """Names these weights (the context gate is trained on vectors mapped by them)."""
        parts = [self.matrix, *(self.profile.arrays() if self.profile else ())]
        return "adapter-" + hashlib.sha256(b"".join(a.tobytes() for a in parts)).hexdigest()[:12]

    def apply(self, vectors: np.ndarray) -> np.ndarray:
        """(n, dim) unit vectors -> vectors in the adapted space: (n, dim) unit vectors without a
        profile; (n, dim + domains) of length at most 1 with one."""
        mapped = unit_rows(np.asarray(vectors, dtype=np.float32) @ self.matrix)
        if self.profile is None:
            return mapped
        share = self.profile.share
        return np.concatenate([mapped * np.float32(np.sqrt(1 / (1 + share))),
                               self.profile.apply(vectors) * np.float32(np.sqrt(share / (1 + share)))], axis=-1)


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Each row scaled to length 1 (a zero row stays zero)."""
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)


def load(model_id: str, dim: int, path: Path | None = None) -> Adapter | None:
    """The adapter trained for `model_id`'s `dim`-wide vectors (from `path`, else the
    shipped WEIGHTS), or None (no file, another model's, unreadable, another size)."""
    try:
        with np.load(path or WEIGHTS, allow_pickle=False) as data:
            arrays = {k: np.ascontiguousarray(data[k], dtype=np.float32) for k in data.files
                      if k not in ("model", "sources")}
            model = str(data["model"])
        profile = None
        if "profile_weights" in arrays:
            profile = Profile(arrays["profile_mean"], arrays["profile_scale"], arrays["profile_weights"],
                              arrays["profile_bias"], arrays["profile_mine"], float(arrays["profile_share"][0]),
                              float(arrays["profile_power"][0]) if "profile_power" in arrays else 1.0,
                              arrays.get("profile_hidden_weights"), arrays.get("profile_hidden_bias"))
        adapter = Adapter(model, arrays["matrix"], profile)
    except (OSError, EOFError, ValueError, KeyError, IndexError, zipfile.BadZipFile) as exc:
        log.warning("the meaning adapter did not load (%s); vectors are compared as the model made them",
                    type(exc).__name__)
        return None
    if adapter.model != model_id:
        log.warning("the meaning adapter was trained for %s, not %s; vectors are compared as the model made them",
                    adapter.model, model_id)
        return None
    if not _well_formed(adapter, dim):
        return None
    return adapter


def _well_formed(adapter: Adapter, dim: int) -> bool:
    arrays = [adapter.matrix, *(adapter.profile.arrays() if adapter.profile else ())]
    if adapter.matrix.shape != (dim, dim) or not all(np.isfinite(a).all() for a in arrays):
        return False
    p = adapter.profile
    if p is None:
        return True
    if (p.hidden_weights is None) != (p.hidden_bias is None):
        return False
    read = dim if p.hidden_bias is None else (p.hidden_bias.shape[0] if p.hidden_bias.ndim == 1 else -1)
    return (p.mean.shape == p.scale.shape == (dim,) and p.weights.ndim == 2 and p.weights.shape[0] == read
            and p.bias.shape == p.mine.shape == (p.weights.shape[1],)
            and (p.hidden_weights is None or p.hidden_weights.shape == (dim, read))
            and bool((p.scale > 0).all()) and bool((p.mine > 0).any()) and p.share >= 0 and p.power > 0)
