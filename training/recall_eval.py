"""The held-out split of our request -> fact data (training/recall_data.py), ranked by cosine
alone: what `python -m training.adapter --validate` compares and `--check` guards (a weight file
that ranks worse than plain e5 on it fails), and what the memory benchmark's table reads.

Two vaults per held-out pair, both ranked by cosine only (no floor, no gate: the map and the
floors are judged apart):
- own vault: the fact among the same user's other facts (every fact of every other domain in
  the fact's language; the issue's "user's other facts as distractors");
- third person: the fact among the sentences about named other people, every domain's.
A pair counts as found when its fact is in the top 5.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import recall_data as R
from .vectors import embed_cached

K = 5


@dataclass
class Space:
    """The bundled model's own vectors of every text of recall_data, by text."""
    queries: dict[str, np.ndarray]
    passages: dict[str, np.ndarray]

    def q(self, texts: list[str]) -> np.ndarray:
        return np.array([self.queries[t] for t in texts], dtype=np.float64)

    def p(self, texts: list[str]) -> np.ndarray:
        return np.array([self.passages[t] for t in texts], dtype=np.float64)


def embedded(model) -> Space:
    """Requests and world questions as drafts ("query"), facts and third-person sentences as
    memories ("passage": both prefixes summed, as the vault stores them)."""
    requests = list(dict.fromkeys(p.request for p in R.pairs()))
    stored = [f for _, _, f in R.facts()] + [s for _, s in R.third_person()]
    world = R.world(False) + R.world(True)
    queries = dict(zip(requests, embed_cached(model, "query", requests)))
    queries.update(zip(world, embed_cached(model, "query", world)))
    return Space(queries, dict(zip(stored, embed_cached(model, "passage", stored))))


# A ranking: (request vectors (n, d), candidate vectors (m, d)) -> scores (n, m), higher first.
Scorer = Callable[[np.ndarray, np.ndarray], np.ndarray]


def unit(z: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(z, axis=1, keepdims=True)
    return z / np.where(norms == 0, 1, norms)


def by_map(w: np.ndarray | None) -> Scorer:
    """Cosine after the linear map W on both sides (None: plain e5)."""
    if w is None:
        return lambda q, c: unit(q) @ unit(c).T
    w = w.astype(np.float64)
    return lambda q, c: unit(q @ w) @ unit(c @ w).T


def _found(scores: np.ndarray, own: np.ndarray) -> np.ndarray:
    """Per row, is the candidate at index own[i] within the top K (ties count against it)?"""
    mine = scores[np.arange(len(own)), own]
    return (scores > mine[:, None]).sum(axis=1) < K


def held_out(space: Space, scorer: Scorer, split_held: bool = True) -> dict:
    """hit@5 by cosine alone on the held-out pairs (or the training pairs): own vault per
    request language and in all, third person in all."""
    pairs = [p for p in R.pairs() if p.held_out == split_held]
    facts_by_lang: dict[str, list[tuple[str, str]]] = {}
    for domain, lang, fact in R.facts():
        facts_by_lang.setdefault(lang, []).append((domain, fact))
    others = [s for _, s in R.third_person()]
    other_vectors = space.p(others)
    own_hits: dict[str, list[bool]] = {}
    third_hits: list[bool] = []
    for (lang_r, lang_f), group in _grouped(pairs).items():
        requests = space.q([p.request for p in group])
        for domain in sorted({p.domain for p in group}):
            rows = [p for p in group if p.domain == domain]
            vault = [f for d, f in facts_by_lang[lang_f] if d != domain]
            q = space.q([p.request for p in rows])
            facts = space.p([p.fact for p in rows])
            # own vault: each row's fact appended as candidate 0 before the user's other facts
            vault_v = space.p(vault)
            for i, p in enumerate(rows):
                s = scorer(q[i:i + 1], np.vstack([facts[i:i + 1], vault_v]))
                own_hits.setdefault(lang_r, []).append(bool(_found(s, np.array([0]))[0]))
                t = scorer(q[i:i + 1], np.vstack([facts[i:i + 1], other_vectors]))
                third_hits.append(bool(_found(t, np.array([0]))[0]))
        del requests
    every = [h for hs in own_hits.values() for h in hs]
    return {"own": {lang: float(np.mean(hs)) for lang, hs in sorted(own_hits.items())},
            "own_all": float(np.mean(every)), "third": float(np.mean(third_hits)), "pairs": len(pairs)}


def _grouped(pairs: list[R.Pair]) -> dict[tuple[str, str], list[R.Pair]]:
    out: dict[tuple[str, str], list[R.Pair]] = {}
    for p in pairs:
        out.setdefault((p.request_language, p.fact_language), []).append(p)
    return out


def worse_than_plain(ours: dict, plain: dict) -> list[str]:
    """The held-out columns where the map ranks below plain e5."""
    out = [f"own vault {lang} {ours['own'][lang]:.3f} < {plain['own'][lang]:.3f}"
           for lang in plain["own"] if ours["own"][lang] < plain["own"][lang]]
    if ours["own_all"] < plain["own_all"]:
        out.append(f"own vault {ours['own_all']:.3f} < {plain['own_all']:.3f}")
    if ours["third"] < plain["third"]:
        out.append(f"third person {ours['third']:.3f} < {plain['third']:.3f}")
    return out


def line(name: str, r: dict) -> str:
    langs = " ".join(f"{lang} {v:.2f}" for lang, v in r["own"].items())
    return f"{name}: own vault {r['own_all']:.3f} ({langs}); third person {r['third']:.3f}"
