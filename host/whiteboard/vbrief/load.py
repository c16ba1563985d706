"""Progressive loading (design §7): tier 0 always, then each next tier while it fits.

Costs are counted again here, never taken from the document (it may come from a
file the user edited), so the running total is exact and never exceeds the budget.
Tier 0 is cut to fit when the budget is smaller than it. Loading stops at the first
tier that does not fit; it and every later tier are left with their costs.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..tokens import TokenCounter
from .models import MemoryTier


@dataclass(frozen=True)
class Loaded:
    tier: int
    label: str
    content: str
    token_cost: int


@dataclass(frozen=True)
class Left:
    tier: int
    label: str
    token_cost: int


@dataclass(frozen=True)
class LoadResult:
    loaded: list[Loaded]
    remaining: list[Left]
    used_tokens: int
    budget: int


def load_tiers(tiers: list[MemoryTier], budget: int, counter: TokenCounter) -> LoadResult:
    ordered = sorted(tiers, key=lambda t: t.tier)
    loaded: list[Loaded] = []
    remaining: list[Left] = []
    used = 0
    for t in ordered:
        cost = counter.count(t.content)
        if remaining:
            remaining.append(Left(t.tier, t.label, cost))
        elif not loaded:
            # Tier 0 (the models require it) is always loaded, cut to the budget when it alone exceeds it.
            content = t.content if cost <= budget else counter.truncate(t.content, budget)
            cost = counter.count(content)
            loaded.append(Loaded(t.tier, t.label, content, cost))
            used += cost
        elif used + cost <= budget:
            loaded.append(Loaded(t.tier, t.label, t.content, cost))
            used += cost
        else:
            remaining.append(Left(t.tier, t.label, cost))
    return LoadResult(loaded, remaining, used, budget)
