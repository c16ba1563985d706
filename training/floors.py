"""Choose recall's cosine floors (host/whiteboard/memory/meaning/embedder.py) for the shipped meaning
adapter and context gate, and for the fallback without them, on the training split of our own
request -> fact data (training/recall_data.py) and the paraphrase training set's unrelated
requests: never LoCoMo, never a held-out pair. Run after training the adapter and the gate
(the floors are cosines in the adapter's space, so they move with it):

    python -m training.floors

1. The personal floor (a draft the gate passes): the adapter's cross-validation folds
   (adapter.py --validate: a quarter of the domains, and a quarter of the other domains'
   requests and facts, left out in turn), each left-out request ranked by an adapter trained on
   the rest in a 40-fact vault of left-out facts; a request finds its fact when fewer than 5
   others score above it and the fact is at least the floor close. The highest floor within
   0.02 of the best hit@5 (a higher floor lets less through for a draft the gate passes
   wrongly).
2. The other floors (a draft the gate does not pass; a full-text hit's confirmation): every
   training fact and third-person sentence as a vault, the unrelated requests recalled as a
   send recalls them (full text, gate, floors): the lowest meaning floor, then the lowest
   confirm floor, with at most 10% of them pulling a memory.
3. The fallback (no adapter: e5's own cosines, its own gate, context_gate_e5.json): its personal
   floor as in 1 with e5's own ranking (no map to cross-validate), then its other floors as in 2.
`--check` chooses all six again and fails when host/whiteboard/memory/meaning/embedder.py ships
other values (train the adapter and both gates first: `python -m training.gate --check`).
"""

from __future__ import annotations

import copy
import json
import sys
import time

import numpy as np

from whiteboard.memory.meaning import context_gate
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

PERSONAL = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)
OTHER = (0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8)
CONFIRM = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35)
UNMAPPED = (0.8, 0.82, 0.84, 0.85, 0.86, 0.87, 0.88, 0.9)
UNMAPPED_PERSONAL = (0.7, 0.72, 0.74, 0.76, 0.78, 0.8, 0.82, 0.84)
MAX_PULLED = 0.10


def personal_floor(space: E.Space, model_id: str, mapped: bool = True,
                   grid: tuple[float, ...] = PERSONAL) -> dict[float, tuple[float, float]]:
    """(own vault, third person) hit@5 per floor in the cross-validation folds of the adapter
    (adapter.folds), ranked by an adapter trained on the rest (mapped) or by e5's own cosines:
    each left-out request among its fact and 39 left-out facts of other domains (the held-out
    split's own vault), and its fact among every training domain's sentences about other people
    (its third-person vault). A request finds its fact when fewer than 5 others score above it
    and it is at least the floor close."""
    others = A.training_sentences()
    hits: dict[float, tuple[list[bool], list[bool]]] = {f: ([], []) for f in grid}
    for train, cases in A.folds():
        score = E.by_adapter(A.fitted(space, model_id, train) if mapped else None)
        for own, in_vault, in_third in A.ranked(space, score, cases, others):
            for floor in grid:
                hits[floor][0].append(in_vault < E.K and own >= floor)
                hits[floor][1].append(in_third < E.K and own >= floor)
    return {floor: (float(np.mean(own)), float(np.mean(third))) for floor, (own, third) in hits.items()}


def highest_within(by_floor: dict[float, tuple[float, ...]], margin: float = 0.02) -> float:
    """The highest floor within `margin` of the best hit@5 on every vault: a floor that costs the
    own vault nothing can still cost the fact among sentences about other people, which score
    lower in the adapter's space."""
    best = [max(vault) for vault in zip(*by_floor.values())]
    return max(f for f, hits in by_floor.items() if all(h >= b - margin for h, b in zip(hits, best)))


def pulled_share(model, unrelated: list[str], vectors_of: dict, index, vectors) -> float:
    return float(np.mean([bool(recall(IndexOnly(index, FixedMeanings(vectors, vectors_of[q], model)), ByteTokens(),
                                      q).memories) for q in unrelated]))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    model = bundled.local_embedder()
    if model is None or model.gate is None or model.adapter is None:
        print("The bundled model, its adapter and its gate are needed.", file=sys.stderr)
        return 2
    fallback_gate = context_gate.load(model.model_id, context_gate.FALLBACK_WEIGHTS)
    if fallback_gate is None:
        print(f"The fallback's gate ({context_gate.FALLBACK_WEIGHTS}) is needed: python -m training.gate",
              file=sys.stderr)
        return 2
    space = E.embedded(model)
    by_floor = personal_floor(space, model.model_id)
    personal = highest_within(by_floor)
    print("personal floor, 4-fold, hit@5 in a 40-fact vault / among sentences about others: "
          + ", ".join(f"{f} {own:.2f} / {third:.2f}" for f, (own, third) in by_floor.items()) + f" -> {personal}")
    by_floor = personal_floor(space, model.model_id, mapped=False, grid=UNMAPPED_PERSONAL)
    unmapped_personal = highest_within(by_floor)
    print("without the adapter, personal floor, the same folds (e5's own cosines): "
          + ", ".join(f"{f} {own:.2f} / {third:.2f}" for f, (own, third) in by_floor.items())
          + f" -> {unmapped_personal}")

    # Not the world questions the adapter's profile learnt "the world" from: it would know them.
    unrelated = json.loads(S.PARAPHRASES_TRAIN.read_text(encoding="utf-8"))["unrelated"] + R.world_for_floors()
    raw = dict(zip(unrelated, embed_cached(model, "query", unrelated)))
    domains = set(A.training_domains())
    texts = [f for d, _, f in R.facts(held_out=False) if d in domains]
    texts += [s for d, s in R.third_person() if d in domains]
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

    adapted = copy.copy(model)
    adapted.personal_cosine = personal
    print("| other floor | confirm floor | unrelated pulling a memory |")
    chosen = choose(adapted, OTHER, CONFIRM)
    plain = copy.copy(model)
    plain.adapter, plain.gate, plain.personal_cosine = None, fallback_gate, unmapped_personal
    print("without the adapter (its own gate):\n| meaning floor | confirm floor | unrelated pulling a memory |")
    fallback = choose(plain, UNMAPPED, UNMAPPED)
    made = (personal, *(chosen or (None, None)), unmapped_personal, *(fallback or (None, None)))
    shipped = (bundled.PERSONAL_MIN_COSINE, bundled.MIN_COSINE, bundled.CONFIRM_COSINE,
               bundled.UNMAPPED_PERSONAL_MIN_COSINE, bundled.UNMAPPED_MIN_COSINE, bundled.UNMAPPED_CONFIRM_COSINE)
    print("chosen (personal, other, confirm; without the adapter: personal, meaning, confirm): "
          f"{made}; shipped: {shipped}")
    if "--check" in argv and made != shipped:
        print("the floors embedder.py ships are not what the rules choose")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
