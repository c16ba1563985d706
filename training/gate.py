"""Train the context gate (host/whiteboard/memory/meaning/context_gate.py) for the bundled model and
write host/whiteboard/memory/meaning/context_gate.json, and the fallback's gate, the same model over
e5's own vectors (no adapter), to context_gate_e5.json. Run: python -m training.gate [--check]

Data: tests/bench/data/paraphrase_train.json only, written by us (MIT; never the test set,
paraphrase_recall.json): its pairs' requests and its `personal` requests want personal context
(1), its `unrelated` requests do not (0). Each is embedded as a draft is (the model's query
vector, mapped by the shipped meaning adapter as recall maps it: the weights are bound to
both, `ranking_id`; train the adapter first; the fallback's gate reads the vector as e5 made it,
bound to the model id alone). The model is a logistic regression with an L2
penalty and the two classes weighted equally, fitted by plain gradient descent from zeros
(no randomness: the same data gives the same weights). It prints 5-fold held-out accuracy too.

`--check` trains again and compares with the shipped file by behaviour: every training request's
probability within PROBABILITY_TOLERANCE, the rest (model, threshold, sources) exactly. Not the
same bits: the quantised model's vectors differ in the fifth decimal between CPUs, and the
gate sits behind the adapter, which carries that drift too; a change of data changes the
sources' hashes.
"""

from __future__ import annotations

import json
import sys

import numpy as np

from whiteboard.memory.meaning.context_gate import FALLBACK_WEIGHTS, WEIGHTS

from . import recall_data as R
from . import sources as S
from .vectors import embed_cached

COMMAND = "python -m training.gate"
PENALTY, STEPS, RATE, SCALE, THRESHOLD = 1.0, 2000, 0.5, 10.0, 0.5
# The "about the world" band's top: the highest of these under WORLD_MARGIN x the lowest score of
# a training request wanting context (a word hit on a draft under it needs a close meaning too)
WORLD_BELOWS, WORLD_MARGIN = (0.01, 0.02, 0.03, 0.05, 0.1), 0.9
PROBABILITY_TOLERANCE = 0.05


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


def training_data() -> tuple[list[str], list[str], dict]:
    data = json.loads(S.PARAPHRASES_TRAIN.read_text(encoding="utf-8"))
    ours = list(dict.fromkeys(p.request for p in R.pairs() if not p.held_out))
    wanting = [p["request"] for p in data["pairs"]] + data["personal"] + ours
    unrelated = data["unrelated"] + R.world(held_out=False)
    record = S.record(COMMAND, [
        S.source("Whiteboard paraphrase training requests (pairs, personal, unrelated)", S.PARAPHRASES_TRAIN,
                 len(data["pairs"]) + len(data["personal"]) + len(data["unrelated"]), S.OURS,
                 json.dumps([wanting[:-len(ours)], data["unrelated"]], ensure_ascii=False)),
        S.source("Whiteboard request -> fact data (training requests and world questions)", S.RECALL_DATA,
                 len(ours) + len(R.world(held_out=False)), S.OURS, R.digest())])
    return wanting, unrelated, record


def examples(model, wanting: list[str], unrelated: list[str], mapped: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The requests' vectors as recall compares them (mapped: through the adapter; else as e5
    made them, the fallback's space), and their labels."""
    from whiteboard.memory.meaning.vectors import ranking_space

    x = embed_cached(model, "query", wanting + unrelated).astype(np.float64)
    if mapped:
        x = ranking_space(model, x).astype(np.float64)
    return x, np.r_[np.ones(len(wanting)), np.zeros(len(unrelated))]


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


def world_below(x: np.ndarray, y: np.ndarray, w: np.ndarray, b: float) -> float:
    """The band's top for the gate (w, b): the highest of WORLD_BELOWS under WORLD_MARGIN x
    the lowest score of the requests wanting context (y == 1), else the lowest of them."""
    lowest = float((1 / (1 + np.exp(-(x[y == 1] @ w + b)))).min())
    return max((t for t in WORLD_BELOWS if t < WORLD_MARGIN * lowest), default=WORLD_BELOWS[0])


def document(model_id: str, w: np.ndarray, b: float, record: dict, below: float) -> dict:
    return {"about": "Context gate weights (whiteboard.memory.meaning.context_gate), written by "
                     "python -m training.gate from tests/bench/data/paraphrase_train.json.",
            "model": model_id, "threshold": THRESHOLD, "world_below": below, "bias": round(b, 6),
            "weights": [round(float(v), 6) for v in w], "sources": record}


def same_document(a: dict, b: dict, x: np.ndarray) -> bool:
    """The same model, threshold and sources, and the same behaviour on the requests x."""
    rest = ("about", "model", "threshold", "world_below", "sources")
    if not all(a.get(k) == b.get(k) for k in rest) or len(a["weights"]) != len(b["weights"]):
        return False
    p, q = (1 / (1 + np.exp(-(x @ np.asarray(d["weights"]) + d["bias"]))) for d in (a, b))
    return float(np.abs(p - q).max()) <= PROBABILITY_TOLERANCE


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    model = S.bundled_model()
    if model is None:
        return 2
    wanting, unrelated, record = training_data()
    status = 0
    # (the space's name, whether drafts are mapped by the adapter, the ranking id, the file)
    for name, mapped, ranking_id, path in (("adapted", True, model.ranking_id, WEIGHTS),
                                           ("e5's own (the fallback)", False, model.model_id, FALLBACK_WEIGHTS)):
        x, y = examples(model, wanting, unrelated, mapped)
        w, b = fit(x, y)
        made = document(ranking_id, w, b, record, world_below(x, y, w, b))
        if "--check" in argv:
            same = same_document(made, json.loads(path.read_text(encoding="utf-8")), x)
            print(f"the {name} gate matches" if same
                  else f"the {name} gate (or its recorded sources) differs from {path}")
            status = status if same else 1
            continue
        passed, pulled = held_out(x, y)
        print(f"{name}: {len(wanting)} requests wanting context, {len(unrelated)} unrelated; 5-fold held out: "
              f"{passed:.0%} of the first and {pulled:.0%} of the second pass the gate; about the world under "
              f"{made['world_below']}")
        path.write_text(json.dumps(made, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {path}")
    return status


if __name__ == "__main__":
    sys.exit(main())
