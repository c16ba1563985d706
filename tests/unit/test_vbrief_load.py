"""Progressive loading: tier 0 always, then tiers in order while they fit; never over the budget."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from whiteboard.config import Limits
from whiteboard.privacy import redact
from whiteboard.sessions.store import SessionStore
from whiteboard.tokens import TokenCounter
from whiteboard.vbrief.export import copy_session, export_session
from whiteboard.vbrief.load import load_tiers
from whiteboard.vbrief.models import MemoryTier

COUNTER = TokenCounter().load_now()
SENTENCES = [
    "We decided to ship version 2 on March 3.", "I prefer Python for the host.", "Should we use Redis?",
    "The budget is 2000 tokens.", "Next step: write the tests.", "ok", "Thanks, that helps a lot!",
    "Claude and ChatGPT both work.", "我们决定用SQLite。", "下一步需要写测试。", "Let's keep modules short.",
    "The vault uses AES-GCM with a 256-bit key.", "Remember to rotate the key every 90 days.",
]

conversations = st.lists(
    st.tuples(st.sampled_from(["user", "assistant"]), st.sampled_from(["chat", "chat", "selection"]),
              st.lists(st.sampled_from(SENTENCES), min_size=1, max_size=30).map(" ".join)),
    min_size=1, max_size=40)


def document_for(conversation):
    store = SessionStore(Limits())
    for role, source, text in conversation:
        store.add("claude.ai:3", role, redact(text).text, source)
    return export_session(copy_session(store.get("claude.ai:3")), COUNTER)


def check_load(tiers, budget):
    result = load_tiers(tiers, budget, COUNTER)
    by_tier = {t.tier: t for t in tiers}
    assert result.used_tokens <= budget and result.budget == budget
    assert result.used_tokens == sum(t.token_cost for t in result.loaded)
    assert [t.tier for t in result.loaded] == list(range(len(result.loaded)))  # tier 0 first, in order
    assert [t.tier for t in result.remaining] == list(range(len(result.loaded), len(tiers)))
    for t in result.loaded:
        assert t.token_cost == COUNTER.count(t.content)
        if t.tier > 0:
            assert t.content == by_tier[t.tier].content
    for t in result.remaining:
        assert t.token_cost == COUNTER.count(by_tier[t.tier].content)
    if result.remaining:  # it stopped only because the next tier did not fit
        assert result.used_tokens + result.remaining[0].token_cost > budget
    return result


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conversation=conversations, budget=st.integers(min_value=1, max_value=4000))
def test_an_exported_session_never_loads_over_the_budget(conversation, budget):
    check_load(document_for(conversation).session_snapshot.memory_tiers, budget)


@settings(max_examples=150, deadline=None)
@given(contents=st.lists(st.text(max_size=400), min_size=1, max_size=5),
       budget=st.integers(min_value=1, max_value=300))
def test_any_tiers_never_load_over_the_budget(contents, budget):
    # Tiers from a document the user may have edited: costs come from the text, never the document.
    tiers = [MemoryTier(tier=n, label=f"t{n}", content=text, token_cost=0) for n, text in enumerate(contents)]
    result = check_load(tiers, budget)
    zero = COUNTER.count(contents[0])
    assert result.loaded[0].tier == 0
    if zero <= budget:
        assert result.loaded[0].content == contents[0]


def test_the_budget_boundary_is_exact():
    tiers = [MemoryTier(tier=n, label=f"t{n}", content=text, token_cost=0)
             for n, text in enumerate(["summary text here", "fact one and fact two", "- [ ] write tests"])]
    cost = [COUNTER.count(t.content) for t in tiers]
    assert [t.tier for t in load_tiers(tiers, cost[0] + cost[1], COUNTER).loaded] == [0, 1]
    fewer = load_tiers(tiers, cost[0] + cost[1] - 1, COUNTER)
    assert [t.tier for t in fewer.loaded] == [0]
    assert [(t.tier, t.token_cost) for t in fewer.remaining] == [(1, cost[1]), (2, cost[2])]
    everything = load_tiers(tiers, sum(cost), COUNTER)
    assert everything.remaining == [] and everything.used_tokens == sum(cost)


def test_tier_zero_is_cut_to_a_tiny_budget():
    tiers = [MemoryTier(tier=0, label="summary", content="A long summary of the whole session " * 5, token_cost=0),
             MemoryTier(tier=1, label="key facts", content="- fact", token_cost=0)]
    result = load_tiers(tiers, 5, COUNTER)
    assert result.loaded[0].token_cost <= 5 and result.loaded[0].content.endswith("…")
    assert [t.tier for t in result.remaining] == [1]


@pytest.mark.parametrize("budget", [1, 20, 70, 300, 1200, 3070])
def test_tier_costs_are_shown_for_what_was_not_loaded(budget):
    conversation = [("user", "chat", " ".join(SENTENCES))] * 12
    tiers = document_for(conversation).session_snapshot.memory_tiers
    result = check_load(tiers, budget)
    costs = {t.tier: t.token_cost for t in tiers}
    assert {t.tier: t.token_cost for t in result.remaining} == {n: costs[n] for n in costs
                                                                if n >= len(result.loaded)}
