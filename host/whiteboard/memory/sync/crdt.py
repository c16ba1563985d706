"""The merge: one element per memory, each field a last-writer-wins register stamped with a
hybrid logical clock (HLC), the texts a bounded set. Pure functions over plain dicts, so
the property tests (tests/unit/test_sync_crdt.py) check convergence directly.

An HLC is [wall milliseconds, counter, node id]; compared as a tuple, so every two differ
(the node breaks ties) and a change made after seeing another is always later than it,
whatever the two computers' clocks say.

An element: {"f": {field: [hlc, value]}, "texts": [[hlc, text, tags, keywords], ...], "del": hlc|None}.
- fields "type", "pin" (pinned_at or None), "meta" ([site, confidence, created_at], and the
  memory's origin as a fourth item when it has one: a meta of three items is read as no
  origin, so records written before origin travelled merge unchanged): the value with the
  greatest HLC wins;
- "texts": every text op is kept (the newest TEXTS_KEPT of them): the newest is the text,
  the others are the memory's old texts, so a text that lost a concurrent edit is kept;
- "del": the greatest delete HLC. Texts older than it are dropped; the memory is alive
  while a text newer than the delete is left (an edit made after a delete revives it, one
  made before does not).
Every step is a join (max, or the top-k of a union), so applying the same ops in any
order, any number of times, gives the same element.
"""

from __future__ import annotations

import time
from typing import Any

from ..model import MAX_OLD_TEXTS, MEMORY_TYPES

TEXTS_KEPT = MAX_OLD_TEXTS + 1  # the text and its old texts
ORIGIN_CHARS = 40  # as an export's origin (store/transfer.py)
REGISTERS = ("type", "pin", "meta")
FIELDS = ("text", *REGISTERS, "del")


def new_element() -> dict:
    return {"f": {}, "texts": [], "del": None}


def _key(hlc) -> tuple:
    return (hlc[0], hlc[1], hlc[2])


class Clock:
    """A hybrid logical clock for one node (this computer's device id)."""

    def __init__(self, node: str, last: tuple[int, int] = (0, 0), wall=time.time):
        self.node, self.wall = node, wall
        self.ms, self.counter = last

    def tick(self, at: float | None = None) -> list:
        """A stamp for a change made now, or at `at` (seconds; never later than now): a change
        found at an exchange is stamped when it was made, so an edit made before a delete on
        another computer stays older than it even if this computer exchanged later."""
        now = int(self.wall() * 1000)
        if at is not None:
            now = min(now, int(at * 1000))
        if now > self.ms:
            self.ms, self.counter = now, 0
        else:
            self.counter += 1
        return [self.ms, self.counter, self.node]

    def receive(self, hlc) -> None:
        """Move past a stamp seen from another node, so what this node does next is later."""
        if (hlc[0], hlc[1]) > (self.ms, self.counter):
            self.ms, self.counter = hlc[0], hlc[1]

    def state(self) -> tuple[int, int]:
        return self.ms, self.counter


def apply(element: dict, field: str, hlc: list, value: Any) -> bool:
    """Merge one op into the element; True when it changed anything."""
    if field == "text":
        if element["del"] is not None and _key(hlc) <= _key(element["del"]):
            return False
        if any(_key(t[0]) == _key(hlc) for t in element["texts"]):
            return False
        before = element["texts"]
        texts = sorted([*before, [list(hlc), *value]], key=lambda t: _key(t[0]), reverse=True)[:TEXTS_KEPT]
        element["texts"] = texts
        return texts != before
    if field == "del":
        if element["del"] is not None and _key(hlc) <= _key(element["del"]):
            return False
        element["del"] = list(hlc)
        element["texts"] = [t for t in element["texts"] if _key(t[0]) > _key(hlc)]
        return True
    current = element["f"].get(field)
    if current is not None and _key(hlc) <= _key(current[0]):
        return False
    element["f"][field] = [list(hlc), value]
    return True


def alive(element: dict) -> bool:
    return bool(element["texts"])


def view(element: dict) -> dict | None:
    """What the vault shows of the element (None when deleted): the newest text, the others
    oldest first as old texts (without repeats of the text), each register's value."""
    if not element["texts"]:
        return None
    (hlc, text, tags, keywords), *older = element["texts"]
    old, seen = [], {text}
    for o in sorted(older, key=lambda t: _key(t[0])):
        if o[1] not in seen:
            seen.add(o[1])
            old.append((o[1], o[0][0] / 1000))
    registers = element["f"]
    site, confidence, created, *rest = registers.get("meta", [None, [None, 1.0, hlc[0] / 1000]])[1]
    stamps = [hlc[0], *(r[0][0] for r in registers.values())]
    return {"text": text, "tags": list(tags), "keywords": list(keywords),
            "type": registers.get("type", [None, "context"])[1], "pinned_at": registers.get("pin", [None, None])[1],
            "site": site, "confidence": confidence, "created_at": created, "origin": rest[0] if rest else None,
            "updated_at": max(stamps) / 1000,
            "old_texts": old[-MAX_OLD_TEXTS:]}


def ops_of(element_id: str, element: dict) -> list[list]:
    """The ops that rebuild the element from nothing (a snapshot, when change files compact)."""
    ops = [[element_id, "text", t[0], t[1:]] for t in element["texts"]]
    ops += [[element_id, name, hlc, value] for name, (hlc, value) in sorted(element["f"].items())]
    if element["del"] is not None:
        ops.append([element_id, "del", element["del"], None])
    return ops


def op_problem(op: Any, max_text: int) -> str:
    """Why an op (from a record that authenticated, so written by a holder of the key) is not
    one this version can apply ('' when it is): a newer version's field or type."""
    if not (isinstance(op, list) and len(op) == 4 and isinstance(op[0], str) and 0 < len(op[0]) <= 64):
        return "an operation of an unknown shape"
    _, field, hlc, value = op
    if not (isinstance(hlc, list) and len(hlc) == 3 and all(isinstance(x, int) and not isinstance(x, bool)
                                                            for x in hlc[:2]) and isinstance(hlc[2], str)):
        return "an operation with an unknown clock"
    if field == "text":
        ok = (isinstance(value, list) and len(value) == 3 and isinstance(value[0], str)
              and 0 < len(value[0]) <= max_text and all(isinstance(v, list) and all(isinstance(w, str) for w in v)
                                                         for v in value[1:]))
    elif field == "type":
        ok = value in MEMORY_TYPES
    elif field == "pin":
        ok = value is None or _number(value)
    elif field == "meta":
        ok = (isinstance(value, list) and len(value) in (3, 4) and (value[0] is None or isinstance(value[0], str))
              and _number(value[1]) and 0 <= value[1] <= 1 and _number(value[2])
              and (len(value) == 3 or isinstance(value[3], str) and 0 < len(value[3]) <= ORIGIN_CHARS))
    elif field == "del":
        ok = value is None
    elif field == "discard":  # not an element: op[0] is the discarded suggestion's text hash
        ok = value is None and len(op[0]) == 64 and all(c in "0123456789abcdef" for c in op[0])
    else:
        return f"an operation on a field this version does not know ({field!r:.40})"
    return "" if ok else f"a {field} operation with a value this version cannot store"


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value \
        and abs(value) < 1e13
