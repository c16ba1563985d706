"""Train the learned extractor's weights from the labelled set (issue 14).

    python -m training.extractor [--data tests/data/extraction/turns.jsonl]
        [--out host/whiteboard/memory/data/extractor.npz] [--cache DIR] [--check]

Reads the `train` rows only (the `test` fifth is the benchmark's), all written by us (a row
from any other source is refused: sources.rows_licence), embeds their sentences
with the bundled model, and fits two logistic regressions with numpy: lasting fact or not
(Newton's method) and the type (softmax, gradient descent), the L2 strength of each picked
by 5-fold cross-validation on the training rows. Deterministic on one CPU; `--check` compares
with the shipped file by behaviour (same_weights): the model's vectors differ slightly between CPUs.
`--cache DIR` keeps the sentence vectors between runs (they describe the labelled set, not a user).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

from whiteboard import text as T
from whiteboard.memory.extract.classifier import WEIGHTS_FILE, Weights, candidate_sentences, features
from whiteboard.memory.model import MEMORY_TYPES

from . import sources as S

DEFAULT_DATA = S.EXTRACTION
DEFAULT_OUT = S.REPO / "host" / "whiteboard" / "memory" / "data" / WEIGHTS_FILE
COMMAND = "python -m training.extractor"
LAMBDAS = (0.3, 1.0, 3.0, 10.0, 30.0, 100.0)
FOLDS = 5
# --check: two CPUs' rebuilds measured 0.006 apart on the lasting probability and 0.023 on a type's
# (one near-tie changed its type); a change of data changes the recorded hash instead.
PROBABILITY_TOLERANCE = 0.05


def load_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _trained_body(rows: list[dict]) -> str:
    return json.dumps([[r["text"], r["lasting"], r["type"], r["memory"]] for r in rows if r["split"] == "train"],
                      ensure_ascii=False)


def data_hash(rows: list[dict]) -> str:
    """Of the training rows as trained on: a changed label or text changes the weights."""
    return hashlib.sha256(_trained_body(rows).encode()).hexdigest()


def sources_record(rows: list[dict], path: Path = DEFAULT_DATA) -> dict:
    """What the weights are trained on (training/sources.py); refuses a row that is not ours."""
    trained = [r for r in rows if r["split"] == "train"]
    licences = {S.rows_licence(r) for r in trained}
    return S.record(COMMAND, [S.source("Whiteboard labelled user turns (written rows, train split)", path,
                                       len(trained), "/".join(sorted(licences)), _trained_body(rows))])


def examples(rows: list[dict], split: str = "train") -> tuple[list[str], np.ndarray, list[str | None]]:
    """(sentence, lasting, type) per sentence. A lasting turn gives the one sentence closest to
    its memory text as the positive (its other sentences are left out: they may hold a second
    fact or none); every sentence of a turn with nothing lasting is a negative."""
    sentences, lasting, types = [], [], []
    for r in rows:
        if r["split"] != split:
            continue
        found = candidate_sentences(r["text"])
        if not found:
            continue
        if r["lasting"]:
            found = [max(found, key=lambda s: (_overlap(s, r["memory"]), -found.index(s)))]
        for s in found:
            sentences.append(s)
            lasting.append(1.0 if r["lasting"] else 0.0)
            types.append(r["type"] if r["lasting"] else None)
    return sentences, np.array(lasting), types


def _overlap(sentence: str, memory: str) -> float:
    """Shared words and CJK grams, and shared characters for text with neither."""
    score = T.similarity(sentence, memory)
    a, b = set(sentence.lower()), set(memory.lower())
    return score + 0.01 * len(a & b) / max(1, len(a | b))


def embed(embedder, sentences: list[str], cache: Path | None = None) -> np.ndarray:
    """Vectors of the sentences, from the cache file where it has them."""
    known: dict[str, np.ndarray] = {}
    cache_file = None
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        cache_file = cache / (hashlib.sha256(embedder.query_model_id.encode()).hexdigest()[:16] + ".npz")
        if cache_file.exists():
            with np.load(cache_file) as z:
                known = dict(zip((str(k) for k in z["keys"]), z["vectors"]))
    missing = [s for s in dict.fromkeys(sentences) if s not in known]
    for i in range(0, len(missing), 32):
        batch = missing[i:i + 32]
        known.update(zip(batch, embedder.embed_queries(batch)))
    if cache_file is not None and missing:
        np.savez(cache_file, keys=np.array(list(known)), vectors=np.array(list(known.values()), dtype=np.float32))
    return np.array([known[s] for s in sentences], dtype=np.float32)


# ---- the two regressions --------------------------------------------------------------

def standardise(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean = vectors.mean(axis=0, dtype=np.float64)
    scale = vectors.std(axis=0, dtype=np.float64)
    return mean, np.where(scale < 1e-6, 1.0, scale)


def _design(vectors: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
    return np.hstack([(vectors.astype(np.float64) - mean) / scale, np.ones((len(vectors), 1))])


def fit_binary(x: np.ndarray, y: np.ndarray, lam: float, steps: int = 25) -> np.ndarray:
    """L2-regularised logistic regression by Newton's method (the bias is not penalised),
    with the classes weighted to count equally."""
    w = np.zeros(x.shape[1])
    penalty = np.full(x.shape[1], lam)
    penalty[-1] = 0.0
    pos = y.sum()
    weight = np.where(y > 0, len(y) / (2 * max(pos, 1)), len(y) / (2 * max(len(y) - pos, 1)))
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        gradient = x.T @ (weight * (p - y)) + penalty * w
        hessian = (x * (weight * p * (1 - p))[:, None]).T @ x + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-10:
            break
    return w


def fit_softmax(x: np.ndarray, labels: np.ndarray, classes: int, lam: float, steps: int = 1500,
                rate: float = 0.5) -> np.ndarray:
    """Multinomial logistic regression by full-batch gradient descent from zero."""
    w = np.zeros((classes, x.shape[1]))
    onehot = np.eye(classes)[labels]
    penalty = np.full(x.shape[1], lam)
    penalty[-1] = 0.0
    n = len(x)
    for _ in range(steps):
        z = x @ w.T
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        w -= rate * (((p - onehot).T @ x) / n + penalty * w / n)
    return w


def _folds(n: int) -> list[np.ndarray]:
    return [np.arange(n) % FOLDS == k for k in range(FOLDS)]


def pick_lambda(vectors: np.ndarray, fit, score) -> float:
    """The L2 strength with the best mean score over deterministic folds (ties: the stronger)."""
    best = None
    for lam in LAMBDAS:
        results = []
        for held in _folds(len(vectors)):
            mean, scale = standardise(vectors[~held])
            w = fit(_design(vectors[~held], mean, scale), ~held, lam)
            results.append(score(_design(vectors[held], mean, scale), held, w))
        value = float(np.mean(results))
        if best is None or value >= best[0]:
            best = (value, lam)
    return best[1]


def train(rows: list[dict], vectors: np.ndarray, model_id: str) -> Weights:
    """vectors: one per sentence of examples(rows), in that order."""
    sentences, lasting, types = examples(rows)
    if len(vectors) != len(sentences):
        raise ValueError("one vector per training sentence is needed")
    vectors = features(vectors, sentences)
    type_index = np.array([MEMORY_TYPES.index(t) if t else -1 for t in types])
    positive = lasting > 0

    def binary_score(x, held, w):
        y = lasting[held]
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        eps = 1e-9
        return float(np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps)))

    lam_lasting = pick_lambda(vectors, lambda x, train_rows, lam: fit_binary(x, lasting[train_rows], lam),
                              binary_score)
    typed = vectors[positive]
    typed_labels = type_index[positive]

    def type_score(x, held, w):
        return float(np.mean(np.argmax(x @ w.T, axis=1) == typed_labels[held]))

    lam_type = pick_lambda(typed, lambda x, train_rows, lam: fit_softmax(x, typed_labels[train_rows],
                                                                           len(MEMORY_TYPES), lam), type_score)
    mean, scale = standardise(vectors)
    x = _design(vectors, mean, scale)
    lasting_w = fit_binary(x, lasting, lam_lasting)
    type_w = fit_softmax(_design(typed, mean, scale), typed_labels, len(MEMORY_TYPES), lam_type)
    return Weights(model_id=model_id, mean=mean, scale=scale, lasting=lasting_w, types=MEMORY_TYPES,
                   type_weights=type_w, data_sha256=data_hash(rows))


def same_weights(a: Weights, b: Weights, x: np.ndarray) -> bool:
    """The same model, labels and data, and the same behaviour on the training sentences' features x:
    every probability within PROBABILITY_TOLERANCE. Not the same bits: the quantised model's vectors
    differ in the fifth decimal between CPUs, which Newton's method turns into weights ~1e-2 apart."""
    return a.model_id == b.model_id and a.types == b.types and a.data_sha256 == b.data_sha256 and all(
        float(np.abs(p - q).max()) <= PROBABILITY_TOLERANCE for p, q in
        ((a.lasting_probability(x), b.lasting_probability(x)), (a.type_probabilities(x), b.type_probabilities(x))))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND,
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--cache", type=Path, default=None, help="keep the sentence vectors here between runs")
    parser.add_argument("--check", action="store_true", help="compare with --out instead of writing it")
    args = parser.parse_args(argv)
    if not args.data.is_file():
        print(f"no labelled set at {args.data}: give --data (it is tests/data/extraction/turns.jsonl in the "
              "repository)", file=sys.stderr)
        return 2
    from whiteboard.memory.extract.classifier import load_weights

    embedder = S.bundled_model()
    if embedder is None:
        return 2
    rows = load_rows(args.data)
    record = sources_record(rows, args.data)
    sentences, lasting, _ = examples(rows)
    vectors = embed(embedder, sentences, args.cache)
    weights = train(rows, vectors, embedder.query_model_id)
    if args.check:
        shipped = load_weights(embedder.query_model_id, args.out)
        same = same_weights(weights, shipped, features(vectors, sentences)) and S.read(args.out) == record
        print("the weights match" if same else f"the weights (or their recorded sources) differ from {args.out}")
        return 0 if same else 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    weights.save(args.out, json.dumps(record, ensure_ascii=False))
    print(f"trained on {len(sentences)} sentences ({int(lasting.sum())} lasting) -> {args.out} "
          f"({args.out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
