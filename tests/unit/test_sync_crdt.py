"""Sync's merge converges (issue 33): three replicas make random changes to a few memories
with skewed clocks, receive one another's ops in random order, some twice, some before
making their own; once every op has reached every replica, all three hold the same
elements and show the same memories. Plus the documented rules, one by one."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from whiteboard.memory.sync import crdt

IDS = ("mem_a", "mem_b", "mem_c")
TEXTS = ("Has two cats", "Has three cats", "Prefers tea", "Lives in Lyon", "Prefers coffee")

action = st.one_of(
    st.tuples(st.just("text"), st.sampled_from(IDS), st.sampled_from(TEXTS)),
    st.tuples(st.just("type"), st.sampled_from(IDS), st.sampled_from(("skill", "preference", "context"))),
    st.tuples(st.just("pin"), st.sampled_from(IDS), st.one_of(st.none(), st.integers(1, 10 ** 9))),
    st.tuples(st.just("del"), st.sampled_from(IDS), st.none()),
)
step = st.one_of(
    st.tuples(st.just("local"), st.integers(0, 2), action, st.integers(0, 5000)),  # a change after the clock moved
    st.tuples(st.just("deliver"), st.integers(0, 2), st.integers(0, 10 ** 6), st.just(None)),
)


class Replica:
    def __init__(self, node: str, skew_ms: int):
        self.now = 1_800_000_000_000 + skew_ms
        self.clock = crdt.Clock(node, wall=lambda: self.now / 1000)
        self.elements: dict[str, dict] = {}

    def receive(self, op: list) -> None:
        self.clock.receive(op[2])
        crdt.apply(self.elements.setdefault(op[0], crdt.new_element()), *op[1:])

    def act(self, kind: str, element_id: str, value) -> list:
        value = [value, [], []] if kind == "text" else value
        op = [element_id, kind, self.clock.tick(), value]
        crdt.apply(self.elements.setdefault(element_id, crdt.new_element()), *op[1:])
        return op

    def shown(self) -> dict:
        return {i: crdt.view(e) for i, e in sorted(self.elements.items())}


@settings(max_examples=300, deadline=None)
@given(steps=st.lists(step, max_size=60), skews=st.tuples(*[st.integers(-3 * 3600_000, 3 * 3600_000)] * 3),
       seed=st.integers(0, 2 ** 32))
def test_three_replicas_converge_whatever_the_delivery_order(steps, skews, seed):
    replicas = [Replica(f"node{i}", skew) for i, skew in enumerate(skews)]
    log: list[tuple[int, list]] = []
    for kind, r, what, advance in steps:
        if kind == "local":
            replicas[r].now += advance
            log.append((r, replicas[r].act(*what)))
        elif log:
            origin, op = log[what % len(log)]
            if origin != r:
                replicas[r].receive(op)
    rng = random.Random(seed)
    for r, replica in enumerate(replicas):
        others = [op for origin, op in log if origin != r]
        delivery = others + rng.sample(others, k=len(others) // 2)  # some twice
        rng.shuffle(delivery)
        for op in delivery:
            replica.receive(op)
    assert replicas[0].elements == replicas[1].elements == replicas[2].elements
    assert replicas[0].shown() == replicas[1].shown() == replicas[2].shown()


@given(ops=st.lists(st.tuples(st.sampled_from(("text", "type", "pin", "del")), st.integers(0, 50),
                              st.integers(0, 2)), max_size=30), seed=st.integers(0, 2 ** 32))
def test_applying_an_op_twice_or_in_another_order_changes_nothing(ops, seed):
    values = {"text": ["Has two cats", [], []], "type": "skill", "pin": 5.0, "del": None}
    stamped = [[ "mem_a", kind, [ms, 0, f"n{node}"], values[kind]] for kind, ms, node in ops]
    once, shuffled = crdt.new_element(), crdt.new_element()
    for op in stamped:
        crdt.apply(once, *op[1:])
    order = stamped * 2
    random.Random(seed).shuffle(order)
    for op in order:
        crdt.apply(shuffled, *op[1:])
    assert once == shuffled


def test_the_later_text_wins_and_the_other_is_kept_as_an_old_text():
    element = crdt.new_element()
    crdt.apply(element, "text", [10, 0, "a"], ["Prefers tea", [], []])
    crdt.apply(element, "text", [20, 0, "b"], ["Prefers green tea", [], []])
    crdt.apply(element, "text", [19, 5, "a"], ["Prefers black tea", [], []])  # concurrent, older
    view = crdt.view(element)
    assert view["text"] == "Prefers green tea"
    assert [t for t, _ in view["old_texts"]] == ["Prefers tea", "Prefers black tea"]


def test_a_delete_wins_over_an_older_edit_and_not_over_a_newer_one():
    element = crdt.new_element()
    crdt.apply(element, "text", [10, 0, "a"], ["Prefers tea", [], []])
    crdt.apply(element, "del", [30, 0, "b"], None)
    crdt.apply(element, "text", [20, 0, "a"], ["Prefers green tea", [], []])  # made before the delete
    assert crdt.view(element) is None and element["texts"] == []  # and no text is kept after a delete
    crdt.apply(element, "text", [40, 0, "a"], ["Prefers oolong", [], []])  # made after it
    assert crdt.view(element)["text"] == "Prefers oolong"
    assert crdt.view(element)["old_texts"] == []


def test_the_clock_orders_a_change_after_what_it_saw_even_when_its_wall_clock_is_hours_behind():
    ahead = crdt.Clock("a", wall=lambda: 1_800_010_000.0)  # hours ahead
    behind = crdt.Clock("b", wall=lambda: 1_800_000_000.0)
    seen = ahead.tick()
    behind.receive(seen)
    assert behind.tick() > seen


def test_ops_of_rebuilds_the_element():
    element = crdt.new_element()
    for op in (["text", [10, 0, "a"], ["Prefers tea", ["drinks"], ["tea"]]], ["type", [11, 0, "a"], "preference"],
               ["pin", [12, 0, "a"], 12.5], ["meta", [13, 0, "a"], ["claude.ai", 0.9, 10.0]],
               ["text", [14, 0, "b"], ["Prefers green tea", [], ["tea"]]]):
        crdt.apply(element, *op)
    rebuilt = crdt.new_element()
    for op in crdt.ops_of("mem_a", element):
        assert crdt.op_problem(op, 1000) == ""
        crdt.apply(rebuilt, *op[1:])
    assert rebuilt == element
