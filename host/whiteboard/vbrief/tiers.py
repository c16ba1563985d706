"""The five memory tiers of an exported session, each within its token cap.

0 summary (who, how long, the topic), 1 key facts (best-scoring facts, newest first),
2 todos (what is still to be done, open questions), 3 learnings (the session
compressed: one line per exchange from each observation's compressed form, after the
rolling summary of messages the session no longer holds), 4 raw (the newest
observations in full). tokenCost is the exact count of the content.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..tokens import TokenCounter
from .extract import fact_score, fit_newest, is_todo, key_sentences, scrub, sentences
from .models import MemoryTier, Observation

CAPS = {0: 20, 1: 50, 2: 200, 3: 800, 4: 2000}
LABELS = {0: "summary", 1: "key facts", 2: "todos", 3: "learnings", 4: "raw"}
NO_TODOS = "(no open items found)"
# A verbatim observation's share of the learnings: its key sentences within this many tokens.
VERBATIM_FACT_TOKENS = 60


@dataclass(frozen=True)
class Tiers:
    tiers: list[MemoryTier]
    todos: list[str]
    learnings: list[str]


def who(obs: Observation) -> str:
    return {"chat.user": "user", "chat.assistant": "assistant"}.get(obs.tool, "selection")


def exchange_of(obs: Observation) -> str:
    return next((t for t in obs.tags if t.startswith("exchange:")), "exchange:0")


def build_tiers(observations: list[Observation], agent: str, rolling_summary: str,
                counter: TokenCounter) -> Tiers:
    facts = {o.id: _facts(o, counter) for o in observations}
    todos = _todos(observations, counter)
    learnings = _learnings(observations, facts, rolling_summary, counter)
    contents = {
        0: _summary(observations, agent, counter),
        1: "\n".join(f"- {f}" for f in _key_facts(observations, facts, counter)),
        2: "\n".join(f"- [ ] {t}" for t in todos) or NO_TODOS,
        3: "\n".join(f"- {line}" for line in learnings),
        4: "\n\n".join(fit_newest([f"[{who(o)}] {o.text}" for o in observations], counter, CAPS[4],
                                  sep="\n\n", contiguous=True)),
    }
    tiers = []
    for n, text in contents.items():
        text = counter.truncate(scrub(text), CAPS[n])
        tiers.append(MemoryTier(tier=n, label=LABELS[n], content=text, token_cost=counter.count(text),
                                loaded=False, next_tier=n + 1 if n < 4 else None))
    return Tiers(tiers, todos, learnings)


def _facts(obs: Observation, counter: TokenCounter) -> list[str]:
    if obs.compressed is not None:
        return list(obs.compressed.key_facts)
    return key_sentences(obs.text, counter, VERBATIM_FACT_TOKENS)


def _summary(observations: list[Observation], agent: str, counter: TokenCounter) -> str:
    first = next((o for o in observations if o.tool == "chat.user"), observations[0])
    topic = key_sentences(first.text, counter, CAPS[0])
    head = f"{agent} chat, {len(observations)} messages"
    return counter.truncate(f"{head}: {topic[0]}" if topic else head, CAPS[0])


def _key_facts(observations: list[Observation], facts: dict[str, list[str]],
               counter: TokenCounter) -> list[str]:
    # Best score first, newest first among equals; only facts that carry a signal.
    ranked = [(fact_score(f), age, f) for age, o in enumerate(reversed(observations)) for f in facts[o.id]]
    ranked = sorted((r for r in ranked if r[0] > 0), key=lambda r: (-r[0], r[1]))
    kept: list[str] = []
    for _, _, fact in ranked:
        line = counter.truncate(fact, CAPS[1] // 2)
        if line not in kept and counter.count("\n".join(f"- {f}" for f in [*kept, line])) <= CAPS[1]:
            kept.append(line)
    return kept


def _todos(observations: list[Observation], counter: TokenCounter) -> list[str]:
    found = []
    for o in observations:
        for s in sentences(o.text):
            if is_todo(s) or (who(o) != "assistant" and s.endswith(("?", "？"))):
                found.append(s)
    lines = fit_newest([f"- [ ] {s}" for s in found], counter, CAPS[2])
    return [line[len("- [ ] "):] for line in lines]


def _learnings(observations: list[Observation], facts: dict[str, list[str]], rolling_summary: str,
               counter: TokenCounter) -> list[str]:
    earlier = [line.lstrip("- ").strip() for line in rolling_summary.splitlines() if line.strip()]
    # A fact repeated across the conversation is kept where it was said last.
    seen: set[str] = set()
    fresh: dict[str, list[str]] = {}
    for o in reversed(observations):
        fresh[o.id] = [f for f in reversed(facts[o.id]) if not (f in seen or seen.add(f))][::-1]
    exchanges: dict[str, list[str]] = {}
    for o in observations:
        if fresh[o.id]:
            exchanges.setdefault(exchange_of(o), []).append(f"{who(o)}: {' '.join(fresh[o.id])}")
    lines = [f"earlier: {line}" for line in earlier] + [" / ".join(parts) for parts in exchanges.values()]
    kept = fit_newest([f"- {line}" for line in lines], counter, CAPS[3])
    return [line[2:] for line in kept]
