"""Train the context gate (host/whiteboard/memory/meaning/context_gate.py) for the bundled model and
write host/whiteboard/memory/meaning/context_gate.json. Run: python tests/bench/train_gate.py

Data: tests/bench/data/paraphrase_train.json only (never the test set, paraphrase_recall.json):
its pairs' requests and its `personal` requests want personal context (1), its `unrelated`
requests do not (0). Each is embedded as a draft is (the model's query vector, mapped by the
meaning adapter as recall maps it: the weights are bound to both, `ranking_id`). The model is
a logistic regression with an L2 penalty and the two classes weighted equally, fitted by
plain gradient descent from zeros (no randomness: the same data gives the same weights). It
prints 5-fold held-out accuracy too.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from whiteboard.memory.meaning.context_gate import WEIGHTS
from whiteboard.memory.meaning.embedder import local_embedder
from whiteboard.memory.meaning.vectors import ranking_space

TRAIN = Path(__file__).resolve().parent / "data" / "paraphrase_train.json"
PENALTY, STEPS, RATE, SCALE, THRESHOLD = 1.0, 2000, 0.5, 10.0, 0.5


def fit(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    """Weights and bias over the raw vectors (centred and scaled inside, folded back out).
    Each class weighs the same in the loss, however many examples it has."""
    mean = x.mean(axis=0)
    z = (x - mean) * SCALE
    balance = np.where(y == 1, len(y) / (2 * y.sum()), len(y) / (2 * (len(y) - y.sum())))
    w, b = np.zeros(x.shape[1]), 0.0
    for _ in range(STEPS):
        p = 1 / (1 + np.exp(-(z @ w + b)))
        w -= RATE * (z.T @ ((p - y) * balance) + PENALTY * w) / len(y)
        b -= RATE * float(((p - y) * balance).mean())
    return w * SCALE, b - float(SCALE * w @ mean)


def examples(model) -> tuple[np.ndarray, np.ndarray]:
    data = json.loads(TRAIN.read_text(encoding="utf-8"))
    wanting = [p["request"] for p in data["pairs"]] + data["personal"]
    x = ranking_space(model, model.embed_queries(wanting + data["unrelated"])).astype(np.float64)
    return x, np.r_[np.ones(len(wanting)), np.zeros(len(data["unrelated"]))]


def held_out(x: np.ndarray, y: np.ndarray, folds: int = 5) -> tuple[float, float]:
    """Share of wanting requests passed and of unrelated ones passed, each scored by a model
    that did not see it."""
    fold = np.arange(len(y)) % folds
    scores = np.zeros(len(y))
    for f in range(folds):
        w, b = fit(x[fold != f], y[fold != f])
        scores[fold == f] = 1 / (1 + np.exp(-(x[fold == f] @ w + b)))
    passed = scores >= THRESHOLD
    return float(passed[y == 1].mean()), float(passed[y == 0].mean())


def main() -> int:
    model = local_embedder()
    if model is None:
        print("The bundled model is not available here: nothing to train.")
        return 1
    x, y = examples(model)
    wanting, unrelated = held_out(x, y)
    print(f"{int(y.sum())} requests wanting context, {int(len(y) - y.sum())} unrelated; 5-fold held out: "
          f"{wanting:.0%} of the first and {unrelated:.0%} of the second pass the gate")
    w, b = fit(x, y)
    WEIGHTS.write_text(json.dumps({
        "about": "Context gate weights (whiteboard.memory.meaning.context_gate), written by tests/bench/train_gate.py "
                 "from tests/bench/data/paraphrase_train.json.",
        "model": model.ranking_id, "threshold": THRESHOLD, "bias": round(b, 6),
        "weights": [round(float(v), 6) for v in w]}) + "\n", encoding="utf-8")
    print(f"wrote {WEIGHTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
