"""Choose recall's cosine floors (host/whiteboard/memory/meaning/embedder.py) for the shipped meaning
adapter and context gate, and for the fallback without them, on the training split of our own
request -> fact data (training/recall_data.py) and the paraphrase training set's unrelated
requests: never LoCoMo, never a held-out pair. Run after training the adapter and the gate
(the floors are cosines in the adapter's space, so they move with it):

    python -m training.floors

1. The personal floor (a draft the gate passes): the training domains in 4 groups, each
   group's requests ranked by a map trained on the other three, among the facts and
   third-person sentences of its own group; a request finds a fact when fewer than 5
   negatives score above it and the fact is at least the floor close. The highest floor
   within 0.02 of the best hit@5 (a higher floor lets less through for a draft the gate
   passes wrongly).
2. The other floors (a draft the gate does not pass; a full-text hit's confirmation): every
   training fact and third-person sentence as a vault, the unrelated requests recalled as a
   send recalls them (full text, gate, floors): the lowest meaning floor, then the lowest
   confirm floor, with at most 10% of them pulling a memory.
3. The fallback (no adapter, no gate: e5's own cosines) the same way as 2, its one meaning
   floor then serving every draft.
The floors are a choice, not weights: nothing here is shipped or checked by `--check`.
"""

from __future__ import annotations

import copy
import json
import sys
import time

import numpy as np

from whiteboard.memory.meaning import embedder as bundled
from whiteboard.memory.meaning.vectors import VectorIndex
from whiteboard.memory.model import Memory
from whiteboard.memory.recall.index import MemoryIndex
from whiteboard.memory.recall.recall import recall

from . import adapter as A
from . import recall_data as R
from . import recall_eval as E
from . import sources as S
from .recall_stand_ins import ByteTokens, FixedMeanings, IndexOnly
from .vectors import embed_cached

PERSONAL = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4)
OTHER = (0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6)
CONFIRM = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35)
UNMAPPED = (0.8, 0.82, 0.84, 0.85, 0.86, 0.88, 0.9)
MAX_PULLED = 0.10


def personal_floor(space: E.Space, dim: int, folds: int = 4) -> dict[float, float]:
    names = A.training_domains()
    hits: dict[float, list[bool]] = {f: [] for f in PERSONAL}
    for f in range(folds):
        held = {n for i, n in enumerate(names) if i % folds == f}
        w = A.fit([A.domain_group(space, set(names) - held)], dim)
        queries, candidates, positives, _ = A.domain_group(space, held)
        s = A._unit(queries @ w)[0] @ A._unit(candidates @ w)[0].T
        for i in range(len(queries)):
            negatives = s[i][~positives[i]]
            for own in s[i][positives[i]]:
                for floor in PERSONAL:
                    hits[floor].append(bool((negatives > own).sum() < 5 and own >= floor))
    return {floor: float(np.mean(h)) for floor, h in hits.items()}


def pulled_share(model, unrelated: list[str], vectors_of: dict, index, vectors) -> float:
    return float(np.mean([bool(recall(IndexOnly(index, FixedMeanings(vectors, vectors_of[q], model)), ByteTokens(),
                                      q).memories) for q in unrelated]))


def main() -> int:
    model = bundled.local_embedder()
    if model is None or model.gate is None:
        print("The bundled model, its adapter and its gate are needed.", file=sys.stderr)
        return 2
    space = E.embedded(model)
    by_floor = personal_floor(space, model.dim)
    best = max(by_floor.values())
    personal = max(f for f, hit in by_floor.items() if hit >= best - 0.02)
    print("personal floor, training domains 4-fold, pair hit@5: "
          + ", ".join(f"{f} {hit:.2f}" for f, hit in by_floor.items()) + f" -> {personal}")

    unrelated = json.loads(S.PARAPHRASES_TRAIN.read_text(encoding="utf-8"))["unrelated"] + R.world(held_out=False)
    raw = dict(zip(unrelated, embed_cached(model, "query", unrelated)))
    domains = set(A.training_domains())
    texts = [f for d, _, f in R.facts() if d in domains] + [s for d, s in R.third_person() if d in domains]
    now = time.time()
    memories = [Memory(f"m{i}", "context", text, now, now, rev=1) for i, text in enumerate(texts)]
    index = MemoryIndex()
    index.put(memories)
    own = space.p(texts).astype(np.float32)

    def choose(view, others, confirms) -> tuple[float, float] | None:
        vectors = VectorIndex()
        vectors.put([(m.id, 1, v) for m, v in zip(memories, view.map_vectors(own))])
        drafts = {q: view.map_vectors(raw[q][None, :])[0] for q in unrelated}
        for other in others:
            for confirm in confirms:
                view.min_cosine, view.confirm_cosine = other, confirm
                pulled = pulled_share(view, unrelated, drafts, index, vectors)
                print(f"| {other} | {confirm} | {pulled:.0%} |")
                if pulled <= MAX_PULLED:
                    return other, confirm
        return None

    saved = bundled.PERSONAL_MIN_COSINE
    try:
        bundled.PERSONAL_MIN_COSINE = personal
        print("| other floor | confirm floor | unrelated pulling a memory |")
        chosen = choose(copy.copy(model), OTHER, CONFIRM)
        plain = copy.copy(model)
        plain.adapter, plain.gate = None, None
        print("without the adapter (no gate):\n| meaning floor | confirm floor | unrelated pulling a memory |")
        fallback = choose(plain, UNMAPPED, UNMAPPED)
    finally:
        bundled.PERSONAL_MIN_COSINE = saved
    print(f"chosen: personal {personal}, other {chosen[0] if chosen else '-'}, "
          f"confirm {chosen[1] if chosen else '-'}; without the adapter: meaning "
          f"{fallback[0] if fallback else '-'}, confirm {fallback[1] if fallback else '-'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
