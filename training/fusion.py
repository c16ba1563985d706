"""Choose how recall fuses full text with meanings (host/whiteboard/memory/recall/recall.py,
STRONG_WORDS) on the training split of our own request -> fact data (training/recall_data.py):
never LoCoMo (CC BY-NC, a benchmark only), never a held-out pair. Run:

    python -m training.fusion [--check]

The training domains in 4 groups, as for the personal floor (floors.py): each group's training
requests ranked by a map trained on the other three, so the meanings are as good as they are on
unseen subjects. Per (request, fact) pair, two vaults, as the held-out table has them
(recall_eval.py): the fact among the same user's facts of every other training domain in the
fact's language, and among the training domains' sentences about named other people. Full text
is recall's own index (one per fact language, and one of every fact and sentence) searched
with the request, its hits kept to the vault; meanings the top 50 by cosine. Both are fused by
recall.fuse_hybrid and hit@5 counted.

Our requests share no content word with their facts (written so), so here words can only cost:
a full-text hit is almost always another fact. The rule: the lowest STRONG grid score at which
keeping a full-text hit's rank costs at most TOLERANCE of hit@5 on either vault against plain
fusion (the most say words can have at no cost on our data). Whether words that strong help is
measured elsewhere only (LoCoMo 6-10, held out: docs/memory.md). `--check` chooses again and
fails when recall ships another value.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from whiteboard.memory.model import Memory
from whiteboard.memory.recall import recall as RC
from whiteboard.memory.recall.index import MemoryIndex

from . import adapter as A
from . import recall_data as R
from . import recall_eval as E
from . import sources as S

STRONG = (4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 16.0)
TOLERANCE = 0.005
DEPTH = 50

# (vault kind, full-text ids best first, their scores, meaning ids best first, the fact's id)
Case = tuple[str, list[str], list[float], list[str], str]


def _index(texts: list[str], ids: dict[str, str]) -> MemoryIndex:
    now = time.time()
    index = MemoryIndex()
    index.put([Memory(ids[t], "context", t, now, now, rev=1) for t in texts])
    return index


def cases(space: E.Space, model_id: str) -> list[Case]:
    names = A.training_domains()
    domains = set(names)
    facts = [(d, lang, f) for d, lang, f in R.facts(held_out=False) if d in domains]
    others = [s for d, s in R.third_person() if d in domains]
    stored = list(dict.fromkeys([f for _, _, f in facts] + others))
    ids = {t: f"m{i}" for i, t in enumerate(stored)}
    by_language = {lang: _index(list(dict.fromkeys(f for _, fl, f in facts if fl == lang)), ids)
                   for lang in R.LANGUAGES}
    everything = _index(stored, ids)
    out: list[Case] = []
    for held, adapter in A.by_domain_groups(space, model_id):
        mapped = dict(zip(stored, adapter.apply(space.p(stored)).astype(np.float64)))
        pairs = [p for p in R.pairs() if not p.held_out and p.domain in held]
        requests = list(dict.fromkeys(p.request for p in pairs))
        drafts = dict(zip(requests, adapter.apply(space.q(requests)).astype(np.float64)))
        for p in pairs:
            own = [p.fact] + [x for d, lang, x in facts if lang == p.fact_language and d != p.domain]
            for kind, vault, index in (("own", own, by_language[p.fact_language]),
                                       ("third", [p.fact] + others, everything)):
                allowed = {ids[t] for t in vault}
                hits = [h for h in index.search(p.request, limit=len(stored)) if h.memory.id in allowed][:DEPTH]
                cosines = np.array([mapped[t] for t in vault]) @ drafts[p.request]
                near = [ids[vault[i]] for i in np.argsort(-cosines, kind="stable")[:DEPTH]]
                out.append((kind, [h.memory.id for h in hits], [h.score for h in hits], near, ids[p.fact]))
    return out


def hit_at_5(found: list[Case], strong: float | None) -> dict[str, float]:
    hits: dict[str, list[bool]] = {"own": [], "third": []}
    for kind, full_text, scores, near, fact in found:
        hits[kind].append(fact in RC.fuse_hybrid(full_text, near, scores, strong)[:5])
    return {kind: float(np.mean(h)) for kind, h in hits.items()}


def choose(found: list[Case]) -> tuple[float | None, dict]:
    plain = hit_at_5(found, None)
    table = {None: plain}
    chosen = None
    for strong in STRONG:
        table[strong] = hit_at_5(found, strong)
        if chosen is None and all(table[strong][k] >= plain[k] - TOLERANCE for k in plain):
            chosen = strong
    return chosen, table


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    model = S.bundled_model()
    if model is None:
        return 2
    found = cases(E.embedded(model), model.model_id)
    words = sum(1 for c in found if c[4] in c[1][:5])
    print(f"{len(found)} cases (training split, 4-fold maps); the fact in full text's top 5 in {words}")
    chosen, table = choose(found)
    print("| strong words at | own vault hit@5 | third person hit@5 |\n|---|---|---|")
    for strong, r in table.items():
        print(f"| {'plain fusion' if strong is None else strong} | {r['own']:.4f} | {r['third']:.4f} |")
    print(f"chosen: {chosen}; recall ships {RC.STRONG_WORDS}")
    # Plain fusion (None) may always ship: it is the baseline the rule measures against.
    if "--check" in argv and RC.STRONG_WORDS not in (None, chosen):
        print(f"recall's STRONG_WORDS ({RC.STRONG_WORDS}) is not what the rule chooses ({chosen})")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
