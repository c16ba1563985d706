"""Train the meaning adapter (host/whiteboard/memory/meaning/adapter.py) for the bundled model and write
host/whiteboard/memory/data/meaning_adapter.npz. Run:

    PYTHONPATH=tests python tests/bench/train_adapter.py [--validate]

Data, never the test sets: LoCoMo conversations 1-4 (each question against its
conversation's turns, the evidence turns its positives) and tests/bench/data/paraphrase_train.json
(each request against its fact among 600 LoCoMo observations not used by the paraphrase test
set). Conversation 5 is kept out for choosing the penalty (`--validate` prints it for each);
6-10 and paraphrase_recall.json are only ever measured (bench_memory.py).

The model: W = I + A, applied to both sides and normalised again; a softmax over each
question's candidates with temperature TAU, the mean log-probability of its positives
(the paraphrase set weighted PARAPHRASE_WEIGHT), and PENALTY * |A|^2 pulling W towards the
identity. Full-batch Adam from A = 0 for STEPS steps, float64: no randomness, and the loss
has converged by then (the penalty, not an early stop, keeps it from fitting the training
conversations too closely).
"""

from __future__ import annotations

import json
import sys

import numpy as np

from bench.bench_memory import LOCOMO, PARAPHRASES_TRAIN, embed_cached, evidence_of, observations, turns_of
from whiteboard.memory.meaning.adapter import WEIGHTS
from whiteboard.memory.meaning.embedder import local_embedder

TRAIN_CONVERSATIONS, VALIDATION_CONVERSATION = range(0, 4), 4
CATEGORIES = (1, 2, 3, 4)
# PENALTY: the best sum of R@5 on conversation 5 and held-out paraphrase hit@5 (--validate)
PENALTY, PENALTIES = 1.0, (0.3, 1.0, 3.0, 10.0)
TAU, PARAPHRASE_WEIGHT, STEPS, RATE = 0.05, 2.0, 100, 1e-3

# (questions, candidates, positives (bool, questions x candidates), weight): one softmax each
Group = tuple[np.ndarray, np.ndarray, np.ndarray, float]


def _unit(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    norms = np.linalg.norm(z, axis=1, keepdims=True)
    norms = np.where(norms == 0, 1, norms)
    return z / norms, norms


def loss_and_gradient(a: np.ndarray, groups: list[Group], penalty: float, tau: float = TAU) -> tuple[float, np.ndarray]:
    w = np.eye(a.shape[0]) + a
    loss, grad = penalty * float((a * a).sum()), 2 * penalty * a
    for queries, candidates, positives, weight in groups:
        nq, q_norms = _unit(queries @ w)
        nc, c_norms = _unit(candidates @ w)
        s = nq @ nc.T / tau
        s -= s.max(axis=1, keepdims=True)
        log_p = s - np.log(np.exp(s).sum(axis=1, keepdims=True))
        target = positives / positives.sum(axis=1, keepdims=True)
        loss += weight * float(-(log_p * target).sum(axis=1).mean())
        ds = weight * (np.exp(log_p) - target) / len(queries) / tau
        dq, dc = ds @ nc, ds.T @ nq
        dzq = (dq - nq * (dq * nq).sum(axis=1, keepdims=True)) / q_norms
        dzc = (dc - nc * (dc * nc).sum(axis=1, keepdims=True)) / c_norms
        grad += queries.T @ dzq + candidates.T @ dzc
    return loss, grad


def fit(groups: list[Group], dim: int, penalty: float = PENALTY, steps: int = STEPS, rate: float = RATE) -> np.ndarray:
    """W (dim x dim) by full-batch Adam from the identity."""
    a, m, v = np.zeros((dim, dim)), np.zeros((dim, dim)), np.zeros((dim, dim))
    beta1, beta2 = 0.9, 0.999
    for t in range(1, steps + 1):
        _, g = loss_and_gradient(a, groups, penalty)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        a -= rate * (m / (1 - beta1 ** t)) / (np.sqrt(v / (1 - beta2 ** t)) + 1e-8)
    return np.eye(dim) + a


def locomo_group(model, sample: dict) -> Group:
    turns = turns_of(sample)
    ids = [d for d, _ in turns]
    asked = [(qa["question"], evidence_of(qa, set(ids))) for qa in sample["qa"] if qa["category"] in CATEGORIES]
    asked = [(q, ev) for q, ev in asked if ev]
    positives = np.array([[d in ev for d in ids] for _, ev in asked], dtype=bool)
    return (embed_cached(model, "query", [q for q, _ in asked]).astype(np.float64),
            embed_cached(model, "passage", [t for _, t in turns]).astype(np.float64), positives, 1.0)


def paraphrase_group(model) -> Group:
    pairs = json.loads(PARAPHRASES_TRAIN.read_text(encoding="utf-8"))["pairs"]
    facts = [p["fact"] for p in pairs] + observations(start=600)
    positives = np.zeros((len(pairs), len(facts)), dtype=bool)
    positives[np.arange(len(pairs)), np.arange(len(pairs))] = True
    return (embed_cached(model, "query", [p["request"] for p in pairs]).astype(np.float64),
            embed_cached(model, "passage", facts).astype(np.float64), positives, PARAPHRASE_WEIGHT)


def evidence_recall(w: np.ndarray, group: Group, k: int) -> float:
    queries, candidates, positives, _ = group
    s = _unit(queries @ w)[0] @ _unit(candidates @ w)[0].T
    top = np.argsort(-s, axis=1)[:, :k]
    return float((np.take_along_axis(positives, top, axis=1).sum(axis=1) / positives.sum(axis=1)).mean())


def held_out_hits(groups: list[Group], dim: int, penalty: float, folds: int = 5) -> float:
    """Share of the paraphrase pairs whose fact is in the top 5 for their request, each
    scored by an adapter trained without it."""
    *locomo, (requests, facts, positives, weight) = groups
    fold = np.arange(len(requests)) % folds
    hits = []
    for f in range(folds):
        keep = fold != f
        w = fit([*locomo, (requests[keep], facts, positives[keep], weight)], dim, penalty)
        s = _unit(requests[~keep] @ w)[0] @ _unit(facts @ w)[0].T
        own = s[positives[~keep]]
        hits += list((s > own[:, None]).sum(axis=1) < 5)
    return float(np.mean(hits))


def main(argv: list[str]) -> int:
    model = local_embedder()
    if model is None or not LOCOMO.exists():
        print("The bundled model or the LoCoMo data is not available here: nothing to train.")
        return 1
    data = json.loads(LOCOMO.read_text(encoding="utf-8"))
    groups = [locomo_group(model, data[c]) for c in TRAIN_CONVERSATIONS] + [paraphrase_group(model)]
    validation = locomo_group(model, data[VALIDATION_CONVERSATION])
    identity = np.eye(model.dim)
    print(f"conversation {VALIDATION_CONVERSATION + 1} (held out) without the adapter: "
          f"R@5 {evidence_recall(identity, validation, 5):.3f}, R@10 {evidence_recall(identity, validation, 10):.3f}")
    if "--validate" in argv:
        for penalty in PENALTIES:
            w = fit(groups, model.dim, penalty)
            print(f"penalty {penalty}: conversation 5 R@5 {evidence_recall(w, validation, 5):.3f}, "
                  f"R@10 {evidence_recall(w, validation, 10):.3f}; paraphrase pairs, 5-fold held out, "
                  f"hit@5 {held_out_hits(groups, model.dim, penalty):.3f}")
        return 0
    w = fit(groups, model.dim)
    WEIGHTS.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(WEIGHTS, model=np.array(model.model_id), matrix=w.astype(np.float32))
    print(f"wrote {WEIGHTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
