"""A small scorer over (request, memory) pairs, measured against recall as shipped (issue 29,
item 3): a reranker of the shipped hybrid's top K candidates, and the same scorer's ranking
fused with full text and meanings as one more ranked list (RRF). Run:

    python -m training.scorer [--locomo]

Trained on the training split of our own request -> fact data only (training/recall_data.py,
MIT): each training pair's fact in two vaults, as the held-out table has them (the same user's
facts of every other training domain in the fact's language; the training domains' sentences
about named other people), so the negatives are of every shape the issue names (the user's
other facts, other domains, third-person narrative). The meanings of a training request come
from a map trained on the other training domains (4 groups, as training/fusion.py), so the
scorer learns how far to trust a cosine on an unseen subject, not on a request the map saw.

Features, each cheap at send time over the K candidates: the cosine in the adapted space and in
e5's own, each also less the best candidate's; BM25 (smoothed idf, as recall scores it), the
full-text rank, the meaning rank and the fused rank as reciprocals; the content words shared
with the draft (and CJK grams); the memory's length; the gate's personal probability times the
adapted cosine; and, as a variant, a low-rank bilinear term u^T W v over the adapted vectors.
Models: a linear score (conditional logit), a one-hidden-layer MLP (8 tanh units) and the
linear score plus the bilinear term, each with every feature and without the memory's length;
a softmax over each case's K candidates, full-batch Adam, numpy only, a fixed seed. The variant
to ship would be the one with the best hit@5 (own vault + third person) with the training
domains cross-validated in the same 4 groups ("chosen"); every variant is then trained on every
training case and measured beside recall as shipped, in the same run, on the held-out split
(ranking without floors / recall as a send runs it: full text, gate, floors, at most 5), on the
world questions and, with --locomo, on LoCoMo conversations 6-10 (CC BY-NC: a benchmark only,
never trained on or used to choose). Each as a reranker of the hybrid's top K and as one more
ranked list fused by RRF. Nothing is written: no variant won (docs/memory.md, "A pair scorer").
"""

from __future__ import annotations

import functools
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from whiteboard import text as T
from whiteboard.memory.meaning.vectors import VectorIndex, ranking_space
from whiteboard.memory.model import Memory
from whiteboard.memory.recall import recall as RC
from whiteboard.memory.recall.index import MemoryIndex

from . import adapter as A
from . import recall_data as R
from . import recall_eval as E
from . import sources as S
from .locomo import LOCOMO, evidence_of, turns_of
from .recall_stand_ins import ByteTokens, FixedMeanings, IndexOnly
from .vectors import embed_cached

K = 20  # candidates reranked: the shipped hybrid's top K
DEPTH = 50  # of each ranking before fusion, as recall
FOLDS = 4
HIDDEN = 8
RANK = 8
STEPS, RATE, L2 = 300, 0.03, 1e-3
BILINEAR_RATE = 0.1  # of RATE, for the 2 x 384 x RANK bilinear weights (at RATE they ran away: the first run)
FUSED_WEIGHT = 1.5  # the scorer's ranking in RRF, as heavy as the meanings'
FEATURES = ("cos_adapted", "cos_e5", "cos_adapted_rel", "cos_e5_rel", "bm25", "words_rank", "meaning_rank",
            "fused_rank", "shared_words", "length", "gate_x_cos", "strong")
ROOT = Path(__file__).resolve().parents[1]
UNRELATED = ROOT / "tests" / "bench" / "data" / "paraphrase_recall.json"


@functools.cache
def _terms(text: str) -> frozenset[str]:
    return frozenset(T.content_terms(text)) | frozenset(T.cjk_grams(text))


@dataclass
class Context:
    """What a send knows about its draft when it reranks: its text, its vector in the adapted
    space and in e5's own, the gate's probability; and every candidate's two vectors."""
    query: str
    q_adapted: np.ndarray
    q_e5: np.ndarray
    gate: float
    adapted: dict  # memory id -> unit vector (adapted space)
    e5: dict  # memory id -> unit vector (e5's own)
    text: dict  # memory id -> text


def features(ctx: Context, fused: list[str], words: list[str], scores: list[float], near: list[str]) -> np.ndarray:
    """(len(fused[:K]), len(FEATURES)) for the fused ranking's top K ids."""
    top = fused[:K]
    ca = np.array([float(ctx.adapted[i] @ ctx.q_adapted) for i in top])
    ce = np.array([float(ctx.e5[i] @ ctx.q_e5) for i in top])
    bm = dict(zip(words, scores))
    wr = {m: r for r, m in enumerate(words)}
    mr = {m: r for r, m in enumerate(near)}
    q_terms = _terms(ctx.query)
    rows = []
    for pos, m in enumerate(top):
        t = _terms(ctx.text[m])
        rows.append([ca[pos], ce[pos], ca[pos] - ca.max(), ce[pos] - ce.max(), np.log1p(bm.get(m, 0.0)),
                     1 / (1 + wr[m]) if m in wr else 0.0, 1 / (1 + mr[m]) if m in mr else 0.0, 1 / (1 + pos),
                     len(q_terms & t) / np.sqrt(1 + len(t)), np.log1p(len(ctx.text[m].split())),
                     ctx.gate * ca[pos], float(bm.get(m, 0.0) >= (RC.STRONG_WORDS or 1e9))])
    return np.array(rows, dtype=np.float64).reshape(len(top), len(FEATURES))


# ---- the models -------------------------------------------------------------------------------

@dataclass
class Cases:
    x: np.ndarray  # (n, K, F), zero-padded
    mask: np.ndarray  # (n, K) bool
    pos: np.ndarray  # (n,) the fact's place among the candidates
    qv: np.ndarray  # (n, d) the draft's adapted vector
    cv: np.ndarray  # (n, K, d) the candidates' adapted vectors


def _pack(rows: list[tuple[np.ndarray, int, np.ndarray, np.ndarray]]) -> Cases:
    n, d = len(rows), rows[0][2].shape[0]
    x, mask = np.zeros((n, K, len(FEATURES))), np.zeros((n, K), dtype=bool)
    cv = np.zeros((n, K, d))
    for i, (f, _, _, c) in enumerate(rows):
        x[i, :len(f)], mask[i, :len(f)], cv[i, :len(f)] = f, True, c
    return Cases(x, mask, np.array([r[1] for r in rows]), np.array([r[2] for r in rows]), cv)


class Scorer:
    """kind: "linear", "mlp" or "bilinear" (linear plus (U^T q) . (V^T c), rank RANK)."""

    def __init__(self, kind: str, mean: np.ndarray, std: np.ndarray, d: int, keep: np.ndarray, seed: int = 0):
        rng = np.random.default_rng(seed)
        f = len(mean)
        self.kind, self.mean, self.std, self.keep = kind, mean, std, keep
        self.p = {"w": np.zeros(f)}
        if kind == "mlp":
            self.p.update(h=rng.normal(0, 0.3, (f, HIDDEN)), b=np.zeros(HIDDEN), v=rng.normal(0, 0.3, HIDDEN))
        if kind == "bilinear":
            self.p.update(u=rng.normal(0, 0.05, (d, RANK)), vv=rng.normal(0, 0.05, (d, RANK)))

    def _z(self, x):
        return (x - self.mean) / self.std * self.keep

    def scores(self, x: np.ndarray, qv: np.ndarray | None = None, cv: np.ndarray | None = None) -> np.ndarray:
        return self._forward(self._z(x), qv, cv)[0]

    def _forward(self, z, qv, cv):
        s = z @ self.p["w"]
        cache = {}
        if self.kind == "mlp":
            a = np.tanh(z @ self.p["h"] + self.p["b"])
            s = s + a @ self.p["v"]
            cache["a"] = a
        if self.kind == "bilinear":
            uq = qv @ self.p["u"]  # (..., r)
            vc = cv @ self.p["vv"]  # (..., K, r)
            s = s + (vc * uq[..., None, :]).sum(-1)
            cache.update(uq=uq, vc=vc)
        return s, cache

    def fit(self, c: Cases, steps: int = STEPS, rate: float = RATE) -> Scorer:
        z = self._z(c.x)
        m = {k: np.zeros_like(v) for k, v in self.p.items()}
        v2 = {k: np.zeros_like(v) for k, v in self.p.items()}
        n = len(c.pos)
        target = np.zeros(c.mask.shape)
        target[np.arange(n), c.pos] = 1
        for t in range(1, steps + 1):
            s, cache = self._forward(z, c.qv, c.cv)
            s = np.where(c.mask, s, -1e9)
            s -= s.max(axis=1, keepdims=True)
            p = np.exp(s) * c.mask
            p /= p.sum(axis=1, keepdims=True)
            ds = (p - target) / n  # d loss / d score
            g = {"w": np.einsum("nk,nkf->f", ds, z)}
            if self.kind == "mlp":
                a = cache["a"]
                g["v"] = np.einsum("nk,nkh->h", ds, a)
                da = ds[..., None] * self.p["v"] * (1 - a * a)
                g["h"] = np.einsum("nkh,nkf->fh", da, z)
                g["b"] = da.sum(axis=(0, 1))
            if self.kind == "bilinear":
                uq, vc = cache["uq"], cache["vc"]
                g["u"] = c.qv.T @ np.einsum("nk,nkr->nr", ds, vc)
                g["vv"] = np.einsum("nk,nkd->nd", ds, c.cv).T @ uq
            for k in self.p:
                g[k] = g[k] + 2 * L2 * self.p[k]
                m[k] = 0.9 * m[k] + 0.1 * g[k]
                v2[k] = 0.999 * v2[k] + 0.001 * g[k] * g[k]
                step = rate * BILINEAR_RATE if k in ("u", "vv") else rate
                self.p[k] -= step * (m[k] / (1 - 0.9 ** t)) / (np.sqrt(v2[k] / (1 - 0.999 ** t)) + 1e-8)
        return self

    def rerank(self, fused: list[str], x: np.ndarray, qv=None, cv=None) -> list[str]:
        """The fused ranking with its top K in the scorer's order (the rest after, as they were)."""
        s = self.scores(x, qv, cv)
        order = np.argsort(-s, kind="stable")
        return [fused[i] for i in order] + fused[K:]


# Feature sets: every feature, and every one but the memory's length (in our data the third-person
# sentences are longer than the user's facts, so length may learn how we wrote them, not relevance).
FEATURE_SETS = {"all": (), "no length": ("length",)}


def scorer_for(kind: str, train: Cases, dropped: tuple[str, ...] = ()) -> Scorer:
    flat = train.x[train.mask]
    std = flat.std(axis=0)
    keep = np.array([f not in dropped for f in FEATURES], dtype=np.float64)
    return Scorer(kind, flat.mean(axis=0), np.where(std == 0, 1, std), train.qv.shape[1], keep).fit(train)


def order_of(scorer: Scorer | None, mode: str, ctx: Context, fused: list[str], words: list[str],
             scores: list[float], near: list[str]) -> list[str]:
    """mode "reranked": the shipped hybrid's top K in the scorer's order; "fused": the scorer's
    ranking of those K fused with full text and meanings by RRF. Either way a strong full-text hit
    keeps its rank, as recall guarantees. No scorer: the shipped order."""
    if scorer is None or not fused:
        return fused
    x = features(ctx, fused, words, scores, near)
    cv = np.array([ctx.adapted[m] for m in fused[:K]])
    reranked = scorer.rerank(fused, x, ctx.q_adapted, cv)
    if mode == "fused":
        reranked = RC.rrf((words, 1.0), (near, RC.MEANING_WEIGHT), (reranked[:K], FUSED_WEIGHT))
    return RC.keep_strong(reranked, words, scores, RC.STRONG_WORDS)


# ---- the training cases (training split, 4-fold maps) ------------------------------------------

def _index(texts: list[str], ids: dict[str, str]) -> MemoryIndex:
    now = time.time()
    index = MemoryIndex()
    index.put([Memory(ids[t], "context", t, now, now, rev=1) for t in texts])
    return index


def training_cases(model, space: E.Space) -> list[tuple[int, str, tuple]]:
    """(fold, vault kind, (features, the fact's place, the draft's adapted vector, the candidates'))
    for every training pair whose fact is among the shipped hybrid's top K."""
    gate = model.gate
    names = A.training_domains()
    domains = set(names)
    facts = [(d, lang, f) for d, lang, f in R.facts(held_out=False) if d in domains]
    others = [s for d, s in R.third_person() if d in domains]
    stored = list(dict.fromkeys([f for _, _, f in facts] + others))
    ids = {t: f"m{i}" for i, t in enumerate(stored)}
    text = {i: t for t, i in ids.items()}
    by_language = {lang: _index(list(dict.fromkeys(f for _, fl, f in facts if fl == lang)), ids)
                   for lang in R.LANGUAGES}
    everything = _index(stored, ids)
    e5 = dict(zip((ids[t] for t in stored), E.unit(space.p(stored))))
    out = []
    for fold, (held, adapter) in enumerate(A.by_domain_groups(space, model.model_id)):
        adapted = dict(zip((ids[t] for t in stored), adapter.apply(space.p(stored)).astype(np.float64)))
        pairs = [p for p in R.pairs() if not p.held_out and p.domain in held]
        for p in pairs:
            qe = E.unit(space.q([p.request]))[0]
            qa = adapter.apply(space.q([p.request])).astype(np.float64)[0]
            g = gate.score(qa.astype(np.float32)) if gate is not None else 1.0
            ctx = Context(p.request, qa, qe, g, adapted, e5, text)
            own = [p.fact] + [x for d, lang, x in facts if lang == p.fact_language and d != p.domain]
            for kind, vault, index in (("own", own, by_language[p.fact_language]),
                                       ("third", [p.fact] + others, everything)):
                allowed = {ids[t] for t in vault}
                hits = [h for h in index.search(p.request, limit=len(stored)) if h.memory.id in allowed][:DEPTH]
                words, scores = [h.memory.id for h in hits], [h.score for h in hits]
                vids = [ids[t] for t in vault]
                cos = np.array([adapted[i] for i in vids]) @ qa
                near = [vids[i] for i in np.argsort(-cos, kind="stable")[:DEPTH]]
                fused = RC.fuse_hybrid(words, near, scores)
                fact = ids[p.fact]
                if fact not in fused[:K]:
                    continue
                x = features(ctx, fused, words, scores, near)
                cv = np.array([adapted[m] for m in fused[:K]])
                out.append((fold, kind, (x, fused[:K].index(fact), qa, cv)))
    return out


KINDS = ("linear", "mlp", "bilinear")


def cross_validated(cases: list) -> dict:
    """hit@5 on each fold's cases by a scorer trained on the other folds, per (kind, feature set)
    (only cases whose fact is in the top K: the same for every variant, the shipped order too)."""
    out = {}
    for name, kind, dropped in [("shipped", None, ())] + [
            (f"{kind}, {fs}", kind, d) for fs, d in FEATURE_SETS.items() for kind in KINDS]:
        hits: dict[str, list[bool]] = {"own": [], "third": []}
        for fold in range(FOLDS):
            test = [c for c in cases if c[0] == fold]
            if kind is None:
                hits["own"] += [c[2][1] < 5 for c in test if c[1] == "own"]
                hits["third"] += [c[2][1] < 5 for c in test if c[1] == "third"]
                continue
            scorer = scorer_for(kind, _pack([c[2] for c in cases if c[0] != fold]), dropped)
            for c in test:
                x, pos, qv, cv = c[2]
                s = scorer.scores(x, qv, cv)
                hits[c[1]].append(bool((s > s[pos]).sum() < 5))
        out[name] = {k: float(np.mean(v)) for k, v in hits.items()}
        print(f"  {name}: own vault {out[name]['own']:.4f}, third person {out[name]['third']:.4f}", flush=True)
    return out


# ---- the held-out measure -----------------------------------------------------------------------

class Patched:
    """recall() as a send runs it, with its fused ranking replaced by one variant's order."""

    def __init__(self):
        self.scorer, self.mode, self.ctx = None, "", None
        self._orig = RC.fuse_hybrid

    def __call__(self, full_text, meanings, scores=None, strong=RC.STRONG_WORDS, extra=()):
        fused = self._orig(full_text, meanings, scores, strong, extra)
        if self.scorer is None or self.ctx is None:
            return fused
        by_id = {m.id: m for m in [*full_text, *meanings]}
        words, near = [m.id for m in full_text], [m.id for m in meanings]
        order = order_of(self.scorer, self.mode, self.ctx, [m.id for m in fused], words, list(scores or []), near)
        return [by_id[i] for i in order]

    def __enter__(self):
        RC.fuse_hybrid = self
        return self

    def __exit__(self, *exc):
        RC.fuse_hybrid = self._orig


def rows_of(scorers: dict[str, Scorer]) -> dict[str, tuple[Scorer | None, str]]:
    out: dict[str, tuple[Scorer | None, str]] = {"shipped": (None, "")}
    for name, scorer in scorers.items():
        out[f"reranked ({name})"] = (scorer, "reranked")
        out[f"fused as a list ({name})"] = (scorer, "fused")
    return out


def held_out(model, space: E.Space, scorers: dict[str, Scorer]) -> dict:
    gate = model.gate
    facts = R.facts()
    others = [s for _, s in R.third_person()]
    stored = list(dict.fromkeys([f for _, _, f in facts] + others))
    ids = {t: f"m{i}" for i, t in enumerate(stored)}
    text = {i: t for t, i in ids.items()}
    memory = {t: Memory(ids[t], "context", t, time.time(), time.time(), rev=1) for t in stored}
    e5 = dict(zip((ids[t] for t in stored), E.unit(space.p(stored))))
    mapped_rows = ranking_space(model, space.p(stored).astype(np.float32))
    adapted = dict(zip((ids[t] for t in stored), mapped_rows.astype(np.float64)))
    rows = rows_of(scorers)
    found = {n: {"own": {}, "own_inj": {}, "third": [], "third_inj": []} for n in rows}
    patched = Patched()

    def context(query: str, raw: np.ndarray) -> tuple[Context, np.ndarray]:
        qa = ranking_space(model, raw[None, :].astype(np.float32))[0]
        g = gate.score(qa) if gate is not None else 1.0
        return Context(query, qa.astype(np.float64), E.unit(raw[None, :].astype(np.float64))[0], g, adapted, e5,
                       text), qa

    for p in (p for p in R.pairs() if p.held_out):
        ctx, qa = context(p.request, space.q([p.request])[0])
        vault = [p.fact] + [f for d, lang, f in facts if lang == p.fact_language and d != p.domain]
        for texts, kind in ((vault, "own"), ([p.fact] + others, "third")):
            mems = [memory[t] for t in texts]
            index = MemoryIndex()
            index.put(mems)
            vids = [m.id for m in mems]
            hits = index.search(p.request, limit=DEPTH)
            words, scores = [h.memory.id for h in hits], [h.score for h in hits]
            cos = np.array([adapted[i] for i in vids]) @ qa
            near = [vids[i] for i in np.argsort(-cos, kind="stable")[:DEPTH]]
            fused = patched._orig(words, near, scores)
            vectors = VectorIndex()
            vectors.put([(i, 1, adapted[i].astype(np.float32)) for i in vids])
            service = IndexOnly(index, FixedMeanings(vectors, qa, model))
            for n, (scorer, mode) in rows.items():
                ranked = order_of(scorer, mode, ctx, fused, words, scores, near)
                patched.ctx, patched.scorer, patched.mode = ctx, scorer, mode
                with patched:
                    got = [m.id for m in RC.recall(service, ByteTokens(), p.request).memories]
                hit, inj = ids[p.fact] in ranked[:5], ids[p.fact] in got
                r = found[n]
                if kind == "own":
                    r["own"].setdefault(p.request_language, []).append(hit)
                    r["own_inj"].setdefault(p.request_language, []).append(inj)
                else:
                    r["third"].append(hit)
                    r["third_inj"].append(inj)
    # World questions against a vault of every fact and sentence, recalled as a send recalls.
    world = R.world(True) + json.loads(UNRELATED.read_text())["unrelated"]
    world_raw = dict(zip(world, embed_cached(model, "query", world)))
    index = MemoryIndex()
    index.put(list(memory.values()))
    vectors = VectorIndex()
    vectors.put([(ids[t], 1, adapted[ids[t]].astype(np.float32)) for t in stored])
    pulled = {n: 0 for n in rows}
    for q in world:
        ctx, qa = context(q, world_raw[q])
        service = IndexOnly(index, FixedMeanings(vectors, qa, model))
        for n, (scorer, mode) in rows.items():
            patched.ctx, patched.scorer, patched.mode = ctx, scorer, mode
            with patched:
                pulled[n] += bool(RC.recall(service, ByteTokens(), q).memories)
    out = {}
    for n in rows:
        r = found[n]
        out[n] = {"own": {k: float(np.mean(v)) for k, v in sorted(r["own"].items())},
                  "own_all": float(np.mean([h for v in r["own"].values() for h in v])),
                  "own_inj": {k: float(np.mean(v)) for k, v in sorted(r["own_inj"].items())},
                  "own_inj_all": float(np.mean([h for v in r["own_inj"].values() for h in v])),
                  "third": float(np.mean(r["third"])), "third_inj": float(np.mean(r["third_inj"])),
                  "world": pulled[n] / len(world)}
    return out


# ---- LoCoMo 6-10: measured, never trained on or chosen by --------------------------------------

def locomo(model, scorers: dict[str, Scorer], conversations=range(5, 10)) -> dict:
    gate = model.gate
    data = json.loads(LOCOMO.read_text())
    data = [data[i] for i in conversations if i < len(data)]
    rows = rows_of(scorers)
    got: dict[str, list[float]] = {"words alone": [], **{n: [] for n in rows}}
    for sample in data:
        turns = turns_of(sample)
        vids = [d for d, _ in turns]
        texts = [t for _, t in turns]
        raw = embed_cached(model, "passage", texts, cache_var="WB_BENCH_CACHE")
        e5 = dict(zip(vids, E.unit(raw.astype(np.float64))))
        adapted = dict(zip(vids, ranking_space(model, raw).astype(np.float64)))
        text = dict(zip(vids, texts))
        now = time.time()
        index = MemoryIndex()
        index.put([Memory(d, "context", t, now, now, rev=1) for d, t in turns])
        questions = [qa for qa in sample["qa"] if qa["category"] in (1, 2, 3, 4)]
        qraw = embed_cached(model, "query", [qa["question"] for qa in questions], cache_var="WB_BENCH_CACHE")
        matrix = np.array([adapted[d] for d in vids])
        for qa, qr in zip(questions, qraw):
            evidence = evidence_of(qa, set(text))
            if not evidence:
                continue
            qv = ranking_space(model, qr[None, :])[0].astype(np.float64)
            ctx = Context(qa["question"], qv, E.unit(qr[None, :].astype(np.float64))[0],
                          gate.score(qv.astype(np.float32)) if gate is not None else 1.0, adapted, e5, text)
            hits = index.search(qa["question"], limit=DEPTH)
            words, scores = [h.memory.id for h in hits], [h.score for h in hits]
            near = [vids[i] for i in np.argsort(-(matrix @ qv), kind="stable")[:DEPTH]]
            fused = RC.fuse_hybrid(words, near, scores)
            orders = {"words alone": words, **{n: order_of(scorer, mode, ctx, fused, words, scores, near)
                                               for n, (scorer, mode) in rows.items()}}
            for n, order in orders.items():
                got[n].append(len(evidence & set(order[:5])) / len(evidence))
    return {n: float(np.mean(v)) for n, v in got.items()}


def _cell(r: dict, lang=None) -> str:
    if lang is None:
        return f"{r['own_all']:.3f} / {r['own_inj_all']:.3f}"
    return f"{r['own'][lang]:.2f} / {r['own_inj'][lang]:.2f}"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    model = S.bundled_model()
    if model is None:
        return 2
    started = time.time()
    space = E.embedded(model)
    cases = training_cases(model, space)
    print(f"{len(cases)} training cases with the fact in the hybrid's top {K} ({time.time() - started:.0f} s)",
          flush=True)
    print("training domains, 4-fold by domain, hit@5 of the cases (ranking, no floors):")
    cv = cross_validated(cases)
    chosen = max((k for k in cv if k != "shipped"), key=lambda k: cv[k]["own"] + cv[k]["third"])
    print(f"chosen by cross-validation: {chosen}", flush=True)
    every = _pack([c[2] for c in cases])
    scorers = {}
    for name in cv:
        if name != "shipped":
            kind, fs = name.split(", ")
            scorers[name] = scorer_for(kind, every, FEATURE_SETS[fs])
            print(f"{name} weights (standardised features): "
                  + ", ".join(f"{f} {w:+.2f}" for f, w in zip(FEATURES, scorers[name].p["w"])))
    result = held_out(model, space, scorers)
    langs = R.LANGUAGES
    print(f"\nHeld-out split, same run: hit@5 ranking (no floors) / as injected; K {K}; chosen: {chosen}\n")
    print("| method | own vault, all | " + " | ".join(langs) + " | third person | world questions carrying a fact |")
    print("|---|" + "---|" * (len(langs) + 3))
    for n, r in result.items():
        print(f"| {n} | {_cell(r)} | " + " | ".join(_cell(r, lang) for lang in langs)
              + f" | {r['third']:.3f} / {r['third_inj']:.3f} | {r['world']:.0%} |")
    if "--locomo" in argv:
        lo = locomo(model, scorers)
        print("\nLoCoMo 6-10 R@5 (benchmark only): " + ", ".join(f"{n} {v:.3f}" for n, v in lo.items()))
    print(f"\n{time.time() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
