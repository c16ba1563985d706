"""Extraction quality on the held-out fifth of the labelled set (issue 14), per language:
the learned extractor (classifier over the bundled model's vectors, rules overriding where
they match) beside the rule extractor alone, and the LoCoMo observation check.

    python tests/bench/bench_extract.py [heldout|crossval|timing|locomo] ...
    WB_BENCH_CACHE=DIR keeps sentence vectors between runs; WB_EXTRACT_LOCOMO=all reads all
    ten LoCoMo conversations (default: the first two).

Per language, on the `test` rows of tests/data/extraction/turns.jsonl (never trained on):
- lasting recall: lasting turns that make a memory (confidence >= the keep threshold);
  "+ suggested" also counts those kept as suggestions (>= the extraction floor);
- one-off: turns with nothing lasting that make a memory (suggestions apart);
- type accuracy: of the lasting turns that made a memory, the type right;
- text F1: the memory text against the labelled one (words; characters for CJK);
crossval: the same figures from 5-fold cross-validation over the whole set (every row is
judged by weights trained without its fold): five times the rows per language, so steadier
than the held-out fifth alone (9 rows per language), though the folds were not kept out
while the rules and features were written.
timing: one extraction per held-out turn with the bare model (no cache), wall time.
LoCoMo: an observation about a speaker is recovered when the turn it cites (a turn of that
speaker) makes a memory sharing at least half of its content words (CJK: grams) with the
observation; "cited turn kept" is the looser share where that turn made any memory. Turns in
the labelled set's training rows are left out.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

from training.extractor import load_rows
from training.locomo import LOCOMO
from whiteboard import text as T
from whiteboard.memory.extract.classifier import LearnedExtractor, candidate_sentences, load_weights
from whiteboard.memory.extract.extract import Thresholds, rule_extract
from whiteboard.memory.meaning.embedder import local_embedder
from whiteboard.memory.store.settings import SUGGEST_BELOW

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "extraction" / "turns.jsonl"
LANGS = ("en", "zh", "ja", "ko", "fr", "es", "de", "pt")
FLOOR = Thresholds(min_confidence=0.5, max_facts=8)  # what a run proposes at all (memories and suggestions)


class CachedEmbedder:
    """The bundled model with a vector cache (WB_BENCH_CACHE) so reruns measure quality fast."""

    def __init__(self, model, cache: Path | None):
        self.model, self.query_model_id, self.dim = model, model.query_model_id, model.dim
        self.file = cache / "extract_vectors.json" if cache else None
        self.known = json.loads(self.file.read_text()) if self.file and self.file.exists() else {}
        self.fresh = 0

    def embed_queries(self, texts):
        import numpy as np

        missing = [t for t in dict.fromkeys(texts) if t not in self.known]
        if missing:
            self.known.update(zip(missing, self.model.embed_queries(missing).tolist()))
            self.fresh += len(missing)
        return np.array([self.known[t] for t in texts], dtype=np.float32)

    def save(self):
        if self.file and self.fresh:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            self.file.write_text(json.dumps(self.known))


def text_f1(got: str, want: str) -> float:
    if T.cjk_runs(want):
        a, b = list(T.normalized(got).replace(" ", "")), list(T.normalized(want).replace(" ", ""))
    else:
        a, b = T.words(got), T.words(want)
    if not a or not b:
        return 0.0
    common = sum(min(a.count(x), b.count(x)) for x in set(b))
    if not common:
        return 0.0
    p, r = common / len(a), common / len(b)
    return 2 * p * r / (p + r)


def heldout(learned: LearnedExtractor | None) -> None:
    rows = [r for r in load_rows(DATA) if r["split"] == "test"]
    methods = {"rules alone": lambda r: rule_extract([r["text"]], FLOOR)}
    if learned is not None:
        methods["classifier"] = lambda r: learned.extract([r["text"]], FLOOR, manual=True)
    print(f"held-out rows: {len(rows)} ({sum(r['lasting'] for r in rows)} lasting); a memory from confidence "
          f"{SUGGEST_BELOW} (suggest_below), a suggestion from {FLOOR.min_confidence}\n")
    table(rows, methods)


def crossval(embedder) -> None:
    """Each fold's rows judged by weights trained on the other four (rows as `train`)."""
    from training.extractor import FOLDS, embed, examples, train

    rows = load_rows(DATA)
    fold_of = {r["id"]: i % FOLDS for i, r in enumerate(sorted(rows, key=lambda r: (r["lang"], r["lasting"],
                                                                                   r["split"], r["id"])))}
    extractors = {}
    for k in range(FOLDS):
        subset = [dict(r, split="test" if fold_of[r["id"]] == k else "train") for r in rows]
        sentences, _, _ = examples(subset)
        weights = train(subset, embed(embedder, sentences), embedder.query_model_id)
        extractors[k] = LearnedExtractor(embedder, weights)
    print(f"5-fold cross-validation over all {len(rows)} rows ({sum(r['lasting'] for r in rows)} lasting)\n")
    table(rows, {"rules alone": lambda r: rule_extract([r["text"]], FLOOR),
                 "classifier": lambda r: extractors[fold_of[r["id"]]].extract([r["text"]], FLOOR, manual=True)},
)


def timing(model) -> None:
    learned = LearnedExtractor(model, load_weights(model.query_model_id))
    learned.extract(["I live in Berlin."], FLOOR)  # the first call loads the engine
    rows = [r for r in load_rows(DATA) if r["split"] == "test"]
    times = []
    for r in rows:
        start = time.perf_counter()
        learned.extract([r["text"]], FLOOR, manual=True)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    sentences = sum(len(candidate_sentences(r["text"])) for r in rows)
    print(f"\nms per turn, bare model, {len(rows)} held-out turns ({sentences} sentences embedded): "
          f"median {times[len(times) // 2]:.1f}, p90 {times[int(len(times) * 0.9)]:.1f}, "
          f"mean {sum(times) / len(times):.1f}")


def table(rows, methods) -> None:
    print("| method | language | lasting turns | recall | + suggested | one-off turns | one-off making a memory "
          "| + suggested | type accuracy | text F1 |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, extract in methods.items():
        stats = defaultdict(lambda: defaultdict(float))
        for r in rows:
            found = extract(r)
            kept = [c for c in found if c.confidence >= SUGGEST_BELOW]
            for lang in (r["lang"], "all"):
                s = stats[lang]
                if r["lasting"]:
                    s["lasting"] += 1
                    s["found"] += bool(kept)
                    s["suggested"] += bool(found)
                    if kept:
                        best = max(kept, key=lambda c: c.confidence)
                        s["typed"] += best.type == r["type"]
                        s["f1"] += text_f1(best.text, r["memory"])
                else:
                    s["negative"] += 1
                    s["false"] += bool(kept)
                    s["false_suggested"] += bool(found)
        for lang in (*LANGS, "all"):
            s = stats[lang]
            found = s["found"] or float("nan")
            print(f"| {name} | {lang} | {int(s['lasting'])} | {s['found'] / s['lasting']:.2f} | "
                  f"{s['suggested'] / s['lasting']:.2f} | {int(s['negative'])} | {s['false'] / s['negative']:.0%} | "
                  f"{s['false_suggested'] / s['negative']:.0%} | {s['typed'] / found:.2f} | {s['f1'] / found:.2f} |")


def locomo(learned: LearnedExtractor | None, trained_on: set[str]) -> None:
    data = json.loads(LOCOMO.read_text())
    if os.environ.get("WB_EXTRACT_LOCOMO") != "all":
        data = data[:2]
    methods = {"rules alone": (lambda t: rule_extract([t], FLOOR), SUGGEST_BELOW)}
    if learned is not None:
        methods["classifier"] = (lambda t: learned.extract([t], FLOOR, manual=True), SUGGEST_BELOW)
    print(f"\nLoCoMo observations about the speaker ({len(data)} conversations):\n")
    print("| method | observations | recovered | cited turn kept | memories made | turns read |")
    print("|---|---|---|---|---|---|")
    for name, (extract, keep) in methods.items():
        observations = recovered = cited_kept = memories = turns_read = 0
        for conv in data:
            turns = {t["dia_id"]: t for k, v in conv["conversation"].items()
                     if k.startswith("session_") and isinstance(v, list) for t in v}
            made: dict[str, list[str]] = {}
            for dia_id, turn in turns.items():
                if f"locomo:{conv['sample_id']}:{dia_id}" in trained_on:
                    continue
                made[dia_id] = [c.text for c in extract(turn["text"]) if c.confidence >= keep]
                memories += len(made[dia_id])
                turns_read += 1
            for session in conv["observation"].values():
                for speaker, facts in session.items():
                    for fact, evidence in facts:
                        turn = turns.get(evidence) if isinstance(evidence, str) else None
                        if turn is None or turn["speaker"] != speaker or evidence not in made:
                            continue
                        observations += 1
                        cited_kept += bool(made[evidence])
                        recovered += any(T.containment(m, fact) >= 0.5 for m in made[evidence])
        print(f"| {name} | {observations} | {recovered / observations:.3f} | {cited_kept / observations:.3f} | "
              f"{memories} | {turns_read} |")


def main(parts: list[str]) -> None:
    parts = parts or ["heldout", "crossval", "timing", "locomo"]
    cache = Path(os.environ["WB_BENCH_CACHE"]) if os.environ.get("WB_BENCH_CACHE") else None
    model = local_embedder()
    learned = None
    embedder = None
    if model is None:
        print("the bundled embedding model is missing: the rule extractor alone is measured")
    else:
        embedder = CachedEmbedder(model, cache)
        learned = LearnedExtractor(embedder, load_weights(model.query_model_id))
    try:
        if "heldout" in parts:
            heldout(learned)
        if "crossval" in parts and embedder is not None:
            crossval(embedder)
        if "timing" in parts and model is not None:
            timing(model)
        if "locomo" in parts:
            trained_on = {r["source"] for r in load_rows(DATA) if r["split"] == "train"}
            locomo(learned, trained_on)
    finally:
        if embedder is not None:
            embedder.save()


if __name__ == "__main__":
    main(sys.argv[1:])
