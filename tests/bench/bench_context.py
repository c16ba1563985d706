"""Context builder on LoCoMo (issue 11). Run: python tests/bench/run.py context
(or `PYTHONPATH=tests python -m bench.bench_context`).

Each question of categories 1-4 is asked QUESTION_GAP turns after its last evidence turn;
the 50 turns before it (fewer at a conversation's start) are a tab's session, alternating
user / assistant, each turn's text as said. Questions whose evidence is not all in that
window are left out (1,256 remain). Measured: the share of questions whose evidence turns
all appear in full in the context, the tokens used, and the build time (in-process), for
the old rule (kept here only, as the baseline, built as the issue measured it: no rolling
summary) and the new builder as session.context runs it (actions/session.py: the messages
the budget leaves out folded into the rolling summary, which then takes its share), with
and without the question as query, at budgets 2000 and 800; then the same with long assistant messages
(each assistant turn repeated, as paragraphs, to about LONG_REPLY_TOKENS, as chat replies
are). Last, session.context over real pipes with a query (bench_host).
"""

from __future__ import annotations

import json
import re
import statistics
import time
from pathlib import Path

from bench.bench_host import QUERY, percentile
from bench.bench_host import bench_context as round_trip
from bench.bench_memory import CATEGORIES
from training.locomo import LOCOMO, evidence_of
from whiteboard.actions.session import context_for
from whiteboard.config import HostConfig, Limits
from whiteboard.sessions.context import INSTRUCTIONS
from whiteboard.sessions.store import Session, SessionStore
from whiteboard.sessions.summary import ExtractiveSummarizer
from whiteboard.tokens import TokenCounter

WINDOW = 50
QUESTION_GAP = 5  # the question comes this many turns after its last evidence
LONG_REPLY_TOKENS = 300
BUDGETS = (2000, 800)
OLD_MIDDLE_CHARS = 100  # the old rule's cut



def turns_of(sample: dict) -> list[tuple[str, str]]:
    """(dia_id, text) of every turn in order, the text as said (no speaker name)."""
    conv = sample["conversation"]
    sessions = sorted((int(k.split("_")[1]), k) for k in conv if re.fullmatch(r"session_\d+", k))
    return [(t["dia_id"], t["text"]) for _, key in sessions for t in conv[key]]


def cases(path: Path = LOCOMO) -> list[tuple[list[str], str, set[int]]]:
    """(window texts, question, indexes of the evidence turns in the window)."""
    out = []
    for sample in json.loads(path.read_text()):
        turns = turns_of(sample)
        position = {d: i for i, (d, _) in enumerate(turns)}
        for qa in sample["qa"]:
            if qa["category"] not in CATEGORIES:
                continue
            evidence = {position[d] for d in evidence_of(qa, set(position))}
            if not evidence:
                continue
            end = min(len(turns), max(evidence) + QUESTION_GAP)
            start = max(0, end - WINDOW)
            if min(evidence) >= start:
                out.append(([text for _, text in turns[start:end]], qa["question"], {i - start for i in evidence}))
    return out


def lengthen(text: str, counter: TokenCounter) -> str:
    """The turn repeated as paragraphs until about LONG_REPLY_TOKENS tokens."""
    times = max(1, round(LONG_REPLY_TOKENS / max(1, counter.count(text) + 1)))
    return "\n\n".join([text] * times)


KEY = "locomo:1"


class App:
    """What context_for needs of the host: its session store, tokenizer, limits and summarizer."""

    def __init__(self, texts: list[str], counter: TokenCounter):
        self.sessions, self.tokens, self.config = SessionStore(Limits()), counter, HostConfig()
        self.summarizer = ExtractiveSummarizer(counter)
        for i, text in enumerate(texts):
            self.sessions.add(KEY, "user" if i % 2 == 0 else "assistant", text)


def old_rule(session: Session, budget: int, counter: TokenCounter) -> str:
    """The builder before issue 11 (the baseline): instruction, seed, the last 3 in full, then
    every middle message cut to 100 characters, newest first while it fits; trimmed to fit."""
    messages = session.all_messages()
    seed, rest = messages[0], messages[1:]
    tail, middle = rest[-3:], rest[:-3]
    chosen: list[tuple[int, int, str]] = []  # (priority, seq, text)
    remaining = budget

    def take(priority: int, seq: int, text: str, cut: bool) -> bool:
        nonlocal remaining
        cost = counter.count(text + "\n")
        if cost > remaining and cut and remaining > 1:
            text = counter.truncate(text, remaining - 1)
            cost = counter.count(text + "\n")
        if not text or cost > remaining:
            return False
        chosen.append((priority, seq, text))
        remaining -= cost
        return True

    take(100, -1, INSTRUCTIONS["follow_up"], False)
    take(90, 0, f"[first message · {seed.role}] {seed.content}", True)
    for n, m in enumerate(reversed(tail)):
        if not take(80 - n, m.seq, f"[{m.role}] {m.content}", True):
            break
    for n, m in enumerate(reversed(middle)):
        short = m.content if len(m.content) <= OLD_MIDDLE_CHARS else m.content[:OLD_MIDDLE_CHARS] + "…"
        if not take(40 - min(n, 39), m.seq, f"[past · {m.role}] {short}", False):
            break
    while chosen:
        text = "\n".join(t for _, _, t in sorted(chosen, key=lambda c: c[1]))
        if counter.count(text) <= budget:
            return text
        chosen.remove(min(chosen, key=lambda c: c[0]))
    return ""


def measure(all_cases, counter: TokenCounter, long_replies: bool) -> list[dict]:
    rows = {(name, budget): {"full": 0, "used": [], "fill": [], "first": [], "again": []}
            for name in ("old rule", "new, no query", "new, question as query") for budget in BUDGETS}
    for texts, question, evidence in all_cases:
        said = [texts[i] for i in evidence]
        if long_replies:
            texts = [lengthen(t, counter) if i % 2 else t for i, t in enumerate(texts)]
        holds = counter.count("\n".join(texts))
        for budget in BUDGETS:
            for name, query in (("old rule", None), ("new, no query", None), ("new, question as query", question)):
                app = App(texts, counter)  # a fresh session: building folds into its summary
                row = rows[(name, budget)]
                # The first build folds what it leaves out into the summary, the second what the
                # summary's room then leaves out; later builds find nothing new to fold.
                for times in (row["first"], [], row["again"]):
                    started = time.perf_counter()
                    if name == "old rule":
                        context = old_rule(app.sessions.get(KEY), budget, counter)
                    else:
                        context = context_for(app, KEY, budget, "follow_up", query=query).context
                    times.append((time.perf_counter() - started) * 1000)
                used = counter.count(context)
                assert used <= budget
                row["used"].append(used)
                if holds > budget:
                    row["fill"].append(used / budget)
                # In full: the turn's text as said (of a long reply, one whole paragraph).
                row["full"] += all(t in context for t in said)
    out = []
    for (name, budget), row in rows.items():
        fill = row["fill"]
        out.append({"method": name, "budget": budget, "full": row["full"] / len(all_cases),
                    "used": statistics.mean(row["used"]), "over": len(fill),
                    "within2": sum(f >= 0.98 for f in fill) / len(fill) if fill else None,
                    "min_fill": min(fill) if fill else None,
                    "first": statistics.median(row["first"]),
                    "p50": statistics.median(row["again"]), "p99": percentile(row["again"], 99)})
    return out


def print_table(title: str, rows: list[dict], n: int) -> None:
    print(f"\n{title} ({n} questions)\n")
    print("| builder | budget | evidence in full | tokens used (mean) | sessions over budget: used >= 98% "
          "(lowest) | first build p50 ms | later builds p50 / p99 ms |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        fill = f"{r['within2']:.3f} of {r['over']} ({r['min_fill']:.3f})" if r["over"] else "none over"
        print(f"| {r['method']} | {r['budget']} | {r['full']:.3f} | {r['used']:,.0f} | {fill} | "
              f"{r['first']:.2f} | {r['p50']:.2f} / {r['p99']:.2f} |")


def main() -> None:
    if not LOCOMO.exists():
        print(f"LoCoMo data not found at {LOCOMO}: skipped.")
        return
    counter = TokenCounter().load_now()
    all_cases = cases()
    print_table("LoCoMo turns as said", measure(all_cases, counter, long_replies=False), len(all_cases))
    print_table(f"Long assistant messages (each repeated to ~{LONG_REPLY_TOKENS} tokens)",
                measure(all_cases, counter, long_replies=True), len(all_cases))
    rt = round_trip(query=QUERY)
    print(f"\nsession.context over real pipes, 50 messages, budget 2000, with a query: "
          f"p50 {rt['p50_ms']:.3f} ms, p99 {rt['p99_ms']:.3f} ms (target p99 < 5 ms)")


if __name__ == "__main__":
    main()
