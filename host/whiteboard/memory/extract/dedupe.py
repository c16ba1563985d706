"""Dedupe (design §5): full-text candidates, then ADD / UPDATE / NOOP.

There is no DELETE: a new fact never removes an old one. UPDATE replaces a memory's
text with the new statement of the same fact and keeps the old text for undo.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ... import text as T
from ..model import Memory
from ..recall.index import MemoryIndex
from .candidate import Candidate

NOOP_SIMILARITY = 0.8  # the same fact said again
NOOP_CONTAINED = 0.9  # nothing in the new text that the old one lacks
UPDATE_SIMILARITY = 0.5  # the same fact, said differently or with more
UPDATE_CONTAINS_OLD = 0.8  # the new text restates the old one and adds to it
SEARCH_DEPTH = 10


@dataclass(frozen=True)
class Decision:
    action: Literal["add", "update", "noop"]
    candidate: Candidate
    target: Memory | None = None


def decide(candidate: Candidate, index: MemoryIndex) -> Decision:
    best: tuple[float, Decision] | None = None
    for hit in index.search(candidate.text, limit=SEARCH_DEPTH):
        old = hit.memory
        same = T.similarity(candidate.text, old.text)
        if T.normalized(candidate.text) == T.normalized(old.text) or same >= NOOP_SIMILARITY \
                or T.containment(candidate.text, old.text) >= NOOP_CONTAINED:
            return Decision("noop", candidate, old)
        if old.type == candidate.type and (same >= UPDATE_SIMILARITY
                                           or T.containment(old.text, candidate.text) >= UPDATE_CONTAINS_OLD):
            if best is None or same > best[0]:
                best = (same, Decision("update", candidate, old))
    return best[1] if best else Decision("add", candidate)
