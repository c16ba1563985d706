"""Does a draft ask for personal context at all? A fixed logistic model over the draft's vector
(mapped by the meaning adapter, adapter.py, as recall compares it).

An unrelated request ("What is the capital of Australia?") can come as close to some memory
as a real paraphrase comes to its fact, so no cosine floor alone both keeps unrelated
requests out and lets paraphrases in (docs/memory.md).
What tells them apart is the request itself: one that wants something for the user ("Which
language should I pick for my web app?") against one about the world. This gate scores
that from the draft's vector alone, with weights trained once on
tests/bench/data/paraphrase_train.json (`python -m training.gate` writes context_gate.json)
and shipped with the package. It looks at no memory, so it means the same in a vault of 5
memories or of 100,000.

Weights belong to one embedding model and its adapter (`ranking_id`): for another (an
endpoint, a newer bundled model, other adapter weights) `load` gives None and recall uses
that model's plain cosine floor.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np

log = logging.getLogger("whiteboard.memory.meaning.context_gate")
WEIGHTS = Path(__file__).with_name("context_gate.json")
# The fallback's gate: the same model over e5's own vectors, for when the adapter is missing.
FALLBACK_WEIGHTS = Path(__file__).with_name("context_gate_e5.json")
# A draft scoring under a gate's `world_below` is about the world: `python -m training.gate`
# chooses it under every training request wanting context (docs/memory.md, "Floors"). Gates
# of before 2026-11-29 (the benchmark reads them) have none: this.
WORLD_BELOW = 0.02


@dataclass(frozen=True)
class ContextGate:
    model: str  # the ranking id (model and adapter) whose mapped query vectors the weights read
    weights: np.ndarray
    bias: float
    threshold: float  # a draft scoring at least this wants personal context
    world_below: float = WORLD_BELOW  # a draft scoring under this is about the world

    def score(self, query_vector: np.ndarray) -> float | None:
        """The probability that the draft wants personal context, 0..1; None for a vector of
        another shape (another model's)."""
        if query_vector.shape != self.weights.shape:
            return None
        z = float(np.dot(self.weights, query_vector)) + self.bias
        return float(1.0 / (1.0 + np.exp(-np.clip(z, -50.0, 50.0))))

    def wants_context(self, query_vector: np.ndarray) -> bool:
        score = self.score(query_vector)
        return score is not None and score >= self.threshold

    def about_the_world(self, query_vector: np.ndarray) -> bool:
        score = self.score(query_vector)
        return score is not None and score < self.world_below


def load(model_id: str, path: Path = WEIGHTS) -> ContextGate | None:
    """The gate trained for `model_id`, or None (no file, another model's, unreadable)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        gate = ContextGate(str(data["model"]), np.asarray(data["weights"], dtype=np.float32),
                           float(data["bias"]), float(data["threshold"]), float(data.get("world_below", WORLD_BELOW)))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("the context gate did not load (%s); recall by meaning uses its plain floor", type(exc).__name__)
        return None
    if (gate.model != model_id or gate.weights.ndim != 1 or not np.isfinite(gate.weights).all()
            or not 0 <= gate.world_below < gate.threshold):
        return None
    return gate
