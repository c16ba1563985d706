"""The held-out split of our request -> fact data (training/recall_data.py), ranked by cosine
alone: what `python -m training.adapter --validate` compares and `--check` guards (a weight file
that ranks worse than plain e5 on it fails), and what the memory benchmark's table reads.

Two vaults per held-out pair, both ranked by cosine only (no floor, no gate: the adapter and the
floors are judged apart):
- own vault: the fact among 39 of the same user's other facts (held-out facts of other domains
  in the fact's language: recall_data.own_vault; the issue's "user's other facts as distractors");
- third person: the fact among the sentences about named other people, every domain's;
- within a subject: a labelled request (recall_data.specific) with each fact it needs, among its
  domain's facts it does not need in its language and other domains' held-out facts (40 in all:
  recall_data.subject_vault), the shape of a vault that holds years of one subject.
A pair counts as found when its fact is in the top 5. Beside them, the held-out questions about
other people (recall_data.questions): each question's sentence among every third-person sentence
but its namesakes, the shape of a diary-like vault such as LoCoMo's.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from whiteboard.memory.meaning.adapter import Adapter

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

    @property
    def dim(self) -> int:
        return len(next(iter(self.queries.values())))


@functools.cache
def embedded(model) -> Space:
    """Requests and world questions as drafts ("query"), facts and third-person sentences as
    memories ("passage": both prefixes summed, as the vault stores them). Once per process:
    the trainers and their tests share them."""
    requests = list(dict.fromkeys([p.request for p in R.pairs()] + [s.request for s in R.specific()]))
    stored = [f for _, _, f in R.facts()] + [s for _, s in R.third_person()]
    world = R.world(False) + R.world(True)
    asked = [q.question for q in R.questions()]
    queries = dict(zip(requests, embed_cached(model, "query", requests)))
    queries.update(zip(world, embed_cached(model, "query", world)))
    if asked:
        queries.update(zip(asked, embed_cached(model, "query", asked)))
    return Space(queries, dict(zip(stored, embed_cached(model, "passage", stored))))


# A ranking: (request vectors (n, d), candidate vectors (m, d)) -> scores (n, m), higher first.
Scorer = Callable[[np.ndarray, np.ndarray], np.ndarray]


def unit(z: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(z, axis=1, keepdims=True)
    return z / np.where(norms == 0, 1, norms)


def by_adapter(adapter: Adapter | None) -> Scorer:
    """Cosine in the adapter's space (None: plain e5)."""
    if adapter is None:
        return lambda q, c: unit(q) @ unit(c).T
    return lambda q, c: adapter.apply(q).astype(np.float64) @ adapter.apply(c).astype(np.float64).T


def _hit(scores: list[np.ndarray]) -> bool:
    """Is candidate 0 within the top K (ties count against it)? One score row per ranking; more
    than one are fused by reciprocal rank (k 5, as recall fuses)."""
    if len(scores) == 1:
        return bool((scores[0] > scores[0][0]).sum() < K)
    fused = sum(1 / (5 + 1 + np.argsort(np.argsort(-s, kind="stable"), kind="stable")) for s in scores)
    return bool((fused > fused[0]).sum() < K)


def held_out(space: Space, *scorers: Scorer, split_held: bool = True) -> dict:
    """hit@5 by cosine alone on the held-out pairs (or the training pairs): own vault per
    request language and in all, third person in all. Several scorers: their rankings fused."""
    pairs = [p for p in R.pairs() if p.held_out == split_held]
    labelled = [s for s in R.specific() if s.held_out == split_held]
    stored = [f for _, _, f in R.facts()] + [s for _, s in R.third_person()]
    column = {t: i for i, t in enumerate(stored)}
    requests = list(dict.fromkeys([p.request for p in pairs] + [s.request for s in labelled]))
    row = {t: i for i, t in enumerate(requests)}
    scores = [scorer(space.q(requests), space.p(stored)) for scorer in scorers]
    others = np.array([column[s] for _, s in R.third_person()])
    own_hits: dict[str, list[bool]] = {}
    third_hits: list[bool] = []
    for p in pairs:
        vault = np.array([column[t] for t in R.own_vault(p)])
        r, f = row[p.request], column[p.fact]
        own_hits.setdefault(p.request_language, []).append(_hit([s[r, vault] for s in scores]))
        third_hits.append(_hit([s[r, np.r_[f, others]] for s in scores]))
    subject_hits = [_hit([s[row[x.request], [column[t] for t in R.subject_vault(x, fact)]] for s in scores])
                    for x in labelled for fact in x.needs]
    every = [h for hs in own_hits.values() for h in hs]
    return {"own": {lang: float(np.mean(hs)) for lang, hs in sorted(own_hits.items())},
            "own_all": float(np.mean(every)), "third": float(np.mean(third_hits)), "pairs": len(pairs),
            "subject": float(np.mean(subject_hits)) if subject_hits else None,
            "questions": asked_about_others(space, scorers, split_held)}


def asked_about_others(space: Space, scorers: tuple[Scorer, ...], split_held: bool = True) -> float | None:
    """hit@5 of the held-out (or training) questions about other people (recall_data.questions)
    among every third-person sentence. None without questions."""
    asked = [q for q in R.questions() if q.held_out == split_held]
    return float(np.mean(question_hits(space, scorers, asked, [s for _, s in R.third_person()]))) if asked else None


def question_hits(space: Space, scorers: tuple[Scorer, ...], asked: list[R.Question], stored: list[str]) -> list[bool]:
    """Per question: is its sentence in the top 5 of `stored` but its namesakes (a diary-like
    vault, where every memory is about someone)?"""
    if not asked:
        return []
    column = {t: i for i, t in enumerate(stored)}
    scores = [scorer(space.q([q.question for q in asked]), space.p(stored)) for scorer in scorers]
    hits = []
    for n, q in enumerate(asked):
        rest = np.array([i for t, i in column.items() if t != q.sentence and t not in q.namesakes])
        hits.append(_hit([s[n, np.r_[column[q.sentence], rest]] for s in scores]))
    return hits


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
    if ours.get("subject") is not None and ours["subject"] < plain["subject"]:
        out.append(f"within a subject {ours['subject']:.3f} < {plain['subject']:.3f}")
    if ours.get("questions") is not None and ours["questions"] < plain["questions"]:
        out.append(f"questions about others {ours['questions']:.3f} < {plain['questions']:.3f}")
    return out


def line(name: str, r: dict) -> str:
    langs = " ".join(f"{lang} {v:.2f}" for lang, v in r["own"].items())
    asked = "" if r.get("questions") is None else f"; questions about others {r['questions']:.3f}"
    within = "" if r.get("subject") is None else f"; within a subject {r['subject']:.3f}"
    return f"{name}: own vault {r['own_all']:.3f} ({langs}); third person {r['third']:.3f}{asked}{within}"
