"""Long-term memory benchmarks (issue 6). Run: python tests/bench/run.py memory

1. Recall latency p50/p99 (the whole recall: freshness check, search, block, token
   count) and vault open time (open + decrypt every row + build the RAM index) at 1k,
   10k and 100k memories, in this process, on a real encrypted vault file.
2. Recall quality on LoCoMo (../shared/data/locomo, categories 1-4): each conversation's
   turns stored as memories; evidence recall@5 and @10 of the Whiteboard index beside a
   last-N-turns window and the rank-bm25 package, measured in the same run.
"""

from __future__ import annotations

import itertools
import json
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rank_bm25 import BM25Okapi

from whiteboard.memory import text as T
from whiteboard.memory.index import MemoryIndex
from whiteboard.memory.model import Memory, new_memory_id
from whiteboard.memory.recall import recall
from whiteboard.memory.service import MemoryService
from whiteboard.memory.sites import SiteStore
from whiteboard.tokens import TokenCounter

ROOT = Path(__file__).resolve().parents[2]
LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "locomo10.json"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
TYPES = ("skill", "preference", "objective", "context")
TEMPLATES = ("Prefers {a} for {b} work", "Uses {a} and {b} every day", "Is learning {a} to build {b}",
             "Lives near {a} with a {b}", "Works on {a} at {b}", "Wants to visit {a} before {b}",
             "Likes {a} more than {b}", "Has been writing {a} for {b} years")


def percentile(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


class Corpus:
    """Memories and drafts from a Zipf-distributed vocabulary of real and made-up words."""

    def __init__(self, seed: int = 7):
        self.rng = random.Random(seed)
        real = ("typescript python rust kotlin berlin tokyo lisbon chess hiking coffee tea guitar piano marathon "
                "startup kubernetes postgres react garden novel cats dogs cycling photography japanese french "
                "kyoto oolong climbing sourdough budget podcast telescope sailing vegan thesis robotics").split()
        made = {"".join(self.rng.choice("bcdfghklmnprstvz") + self.rng.choice("aeiou") for _ in range(3))
                for _ in range(30000)}
        self.vocab = real + sorted(made)
        self.cumulative = list(itertools.accumulate(1 / (i + 1) ** 0.9 for i in range(len(self.vocab))))

    def words(self, n: int) -> list[str]:
        return self.rng.choices(self.vocab, cum_weights=self.cumulative, k=n)

    def memory_text(self) -> str:
        a, b, *extra = self.words(2 + self.rng.randint(0, 6))
        return " ".join([self.rng.choice(TEMPLATES).format(a=a, b=b), *extra])

    def draft(self) -> str:
        filler = "please can you help me with my the a for and how do i".split()
        words = self.words(self.rng.randint(2, 8)) + self.rng.sample(filler, self.rng.randint(3, 8))
        self.rng.shuffle(words)
        return " ".join(words).capitalize() + "?"


def bench_scale(sizes=(1_000, 10_000, 100_000), queries: int = 1000) -> list[tuple]:
    tokens = TokenCounter().load_now()
    corpus = Corpus()
    rows = []
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            paths = (tmp / "data" / "memories.db", tmp / "config" / "secret.key")
            writer = MemoryService(*paths, sites=SiteStore(tmp / "config"))
            now = time.time()
            t = time.perf_counter()
            for start in range(0, size, 5000):
                writer.store([Memory(new_memory_id(), corpus.rng.choice(TYPES), corpus.memory_text(), now, now)
                              for _ in range(min(5000, size - start))])
            write_s = time.perf_counter() - t
            writer.close()
            opens = []
            for _ in range(3):
                service = MemoryService(*paths, sites=SiteStore(tmp / "config"))
                t = time.perf_counter()
                assert service.ready() and len(service.index) == size
                opens.append(time.perf_counter() - t)
                if len(opens) < 3:
                    service.close()
            drafts = [corpus.draft() for _ in range(queries)]
            latencies, injected = [], 0
            for draft in drafts:
                t = time.perf_counter()
                result = recall(service, tokens, draft)
                latencies.append((time.perf_counter() - t) * 1000)
                injected += len(result.memories)
            service.close()
            rows.append((size, percentile(latencies, 50), percentile(latencies, 99), statistics.median(opens),
                         write_s, injected / queries))
    return rows


# ---- LoCoMo ----------------------------------------------------------------------------

def turns_of(sample: dict) -> list[tuple[str, str]]:
    """(dia_id, text as a memory) for every turn, in order."""
    conv = sample["conversation"]
    sessions = sorted((int(k.split("_")[1]), k) for k in conv if re.fullmatch(r"session_\d+", k))
    out = []
    for _, key in sessions:
        for turn in conv[key]:
            text = f"{turn['speaker']}: {turn['text']}"
            if turn.get("blip_caption"):
                text += f" [shared an image: {turn['blip_caption']}]"
            out.append((turn["dia_id"], text))
    return out


def evidence_of(qa: dict, known: set[str]) -> set[str]:
    ids = set()
    for item in qa.get("evidence") or []:
        ids.update(part for part in re.split(r"[;,\s]+", item) if part in known)
    return ids


def bench_locomo(path: Path = LOCOMO, ks=(5, 10)) -> tuple[dict, int, int]:
    data = json.loads(path.read_text())
    methods = ("Whiteboard index", "Whiteboard recall as injected (threshold, at most 5)", "rank-bm25 (BM25Okapi)",
               "last-N turns window")
    scores = {m: {c: {k: [] for k in ks} for c in CATEGORIES} for m in methods}
    used, skipped = 0, 0
    for sample in data:
        turns = turns_of(sample)
        ids = [d for d, _ in turns]
        now = time.time()
        memories = [Memory(d, "context", text, now, now) for d, text in turns]
        index = MemoryIndex()
        index.put(memories)
        service = _IndexOnly(index)
        bm25 = BM25Okapi([T.words(text) or ["_"] for _, text in turns])
        tokens = _ByteTokens()
        for qa in sample["qa"]:
            if qa["category"] not in CATEGORIES:
                continue
            evidence = evidence_of(qa, set(ids))
            if not evidence:
                skipped += 1
                continue
            used += 1
            question = qa["question"]
            ranked = [h.memory.id for h in index.search(question, limit=max(ks))]
            injected = [m.id for m in recall(service, tokens, question).memories]
            bm = bm25.get_scores(T.words(question))
            by_bm25 = [ids[i] for i in sorted(range(len(ids)), key=lambda i: -bm[i])[:max(ks)]]
            for k in ks:
                for method, got in ((methods[0], ranked[:k]), (methods[1], injected[:k]),
                                    (methods[2], by_bm25[:k]), (methods[3], ids[-k:])):
                    scores[method][qa["category"]][k].append(len(evidence & set(got)) / len(evidence))
    return scores, used, skipped


class _IndexOnly:
    """Just enough of MemoryService for recall() over a bare index (no vault, no embeddings)."""

    def __init__(self, index: MemoryIndex):
        self.index, self.semantic = index, None

    def ready(self) -> bool:
        return True


class _ByteTokens:
    """Token counts do not matter for evidence recall; skip the tokenizer's cost."""

    def count(self, text: str) -> int:
        return len(text) // 4

    def truncate(self, text: str, n: int) -> str:
        return text[: n * 4]


def main() -> None:
    print("| memories | recall p50 | recall p99 | vault open (decrypt + index) | write (encrypt + commit) "
          "| memories per recall |\n|---|---|---|---|---|---|")
    for size, p50, p99, open_s, write_s, per in bench_scale():
        print(f"| {size:,} | {p50:.2f} ms | {p99:.2f} ms | {open_s * 1000:,.0f} ms | {write_s:.1f} s | {per:.2f} |")
    print("\nTargets: recall p99 < 10 ms at 10k and < 50 ms at 100k; open 100k < 2 s.\n")
    if not LOCOMO.exists():
        print(f"LoCoMo data not found at {LOCOMO}: quality benchmark skipped.")
        return
    scores, used, skipped = bench_locomo()
    print(f"LoCoMo evidence recall (categories 1-4: {used} questions; {skipped} without usable evidence left out)\n")
    header = " | ".join(f"{CATEGORIES[c]} @5 | @10" for c in CATEGORIES)
    print(f"| method | overall @5 | overall @10 | {header} |\n|---|" + "---|" * (2 + 2 * len(CATEGORIES)))
    for method, per_cat in scores.items():
        overall = {k: [v for c in per_cat for v in per_cat[c][k]] for k in (5, 10)}
        cells = [f"{statistics.mean(overall[k]):.3f}" for k in (5, 10)]
        cells += [f"{statistics.mean(per_cat[c][k]):.3f}" for c in CATEGORIES for k in (5, 10)]
        print(f"| {method} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    sys.exit(main())
