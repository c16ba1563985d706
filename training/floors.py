"""Choose recall's cosine floors (host/whiteboard/memory/meaning/embedder.py) for the shipped meaning
adapter and context gate, on our own data only (the adapter's training data, training/adapter.py):
never LoCoMo, never the paraphrase test set. Run after training the adapter
and the gate (the floors are cosines in the adapter's space, so they move with it):

    python -m training.floors

1. The personal floor (a draft the gate passes): 5-fold cross-validation of the adapter over
   the training pairs; a held-out request finds its fact when the fact is in its top 5 and at
   least the floor close. The highest floor within 0.02 of the best hit@5 is chosen (a higher
   floor lets less through for drafts the gate passes wrongly).
2. The other floors (a draft the gate does not pass; a full-text hit's confirmation): the
   training facts and the distractors as a vault, the training set's unrelated requests
   recalled as a send recalls them (full text, gate, floors): the lowest meaning floor, then
   the lowest confirm floor, with at most 10% of them pulling a memory (lower floors find
   more; unrelated requests are what they keep out).
The floors are a choice, not weights: nothing here is shipped or checked by `--check`.
"""

from __future__ import annotations

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
from . import sources as S
from .recall_stand_ins import ByteTokens, FixedMeanings, IndexOnly

PERSONAL = (0.05, 0.075, 0.1, 0.125, 0.15, 0.2, 0.25)
OTHER = (0.3, 0.35, 0.4, 0.45, 0.5)
CONFIRM = (0.1, 0.15, 0.2, 0.25, 0.3)
MAX_PULLED = 0.10


def personal_floor(group: A.Group, dim: int) -> dict[float, float]:
    requests, facts, positives, weight = group
    fold = np.arange(len(requests)) % 5
    own, rank = np.zeros(len(requests)), np.zeros(len(requests), dtype=int)
    for f in range(5):
        keep = fold != f
        w = A.fit([(requests[keep], facts, positives[keep], weight)], dim)
        s = A._unit(requests[~keep] @ w)[0] @ A._unit(facts @ w)[0].T
        own[~keep] = s[positives[~keep]]
        rank[~keep] = (s > own[~keep][:, None]).sum(axis=1)
    return {floor: float(np.mean((rank < 5) & (own >= floor))) for floor in PERSONAL}


def main() -> int:
    model = bundled.local_embedder()
    if model is None or model.gate is None:
        print("The bundled model, its adapter and its gate are needed.", file=sys.stderr)
        return 2
    pairs, distractors, _ = A.training_data()
    group = A.paraphrase_group(model, pairs, distractors)
    by_floor = personal_floor(group, model.dim)
    best = max(by_floor.values())
    personal = max(f for f, hit in by_floor.items() if hit >= best - 0.02)
    print("personal floor, training pairs 5-fold held out, hit@5: "
          + ", ".join(f"{f} {hit:.2f}" for f, hit in by_floor.items()) + f" -> {personal}")

    unrelated = json.loads(S.PARAPHRASES_TRAIN.read_text(encoding="utf-8"))["unrelated"]
    facts = [p["fact"] for p in pairs] + [d for d in distractors if d not in {p["fact"] for p in pairs}]
    now = time.time()
    memories = [Memory(f"m{i}", "context", text, now, now, rev=1) for i, text in enumerate(facts)]
    index = MemoryIndex()
    index.put(memories)
    vectors = VectorIndex()
    vectors.put([(m.id, 1, v) for m, v in zip(memories, model.map_vectors(group[1].astype(np.float32)))])
    drafts = {q: model.map_vectors(model.embed_queries([q]))[0] for q in [p["request"] for p in pairs] + unrelated}
    saved = (bundled.PERSONAL_MIN_COSINE, model.min_cosine, model.confirm_cosine)
    chosen = None
    try:
        bundled.PERSONAL_MIN_COSINE = personal
        print("| other floor | confirm floor | unrelated pulling a memory | training pairs hit@5 as injected |")
        for other in OTHER:
            for confirm in CONFIRM:
                model.min_cosine, model.confirm_cosine = other, confirm
                found = {q: recall(IndexOnly(index, FixedMeanings(vectors, v, model)), ByteTokens(), q)
                         for q, v in drafts.items()}
                got = {q: [m.id for m in result.memories] for q, result in found.items()}
                pulled = float(np.mean([bool(got[q]) for q in unrelated]))
                hits = float(np.mean([f"m{i}" in got[p["request"]] for i, p in enumerate(pairs)]))
                print(f"| {other} | {confirm} | {pulled:.0%} | {hits:.2f} |")
                if chosen is None and pulled <= MAX_PULLED:
                    chosen = (other, confirm)
    finally:
        bundled.PERSONAL_MIN_COSINE, model.min_cosine, model.confirm_cosine = saved
    print(f"chosen: personal {personal}, other {chosen[0] if chosen else '-'}, confirm {chosen[1] if chosen else '-'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
