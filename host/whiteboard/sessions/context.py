"""Seed-middle-tail context builder with exact token counts (design §4).

Priority when filling the budget: instruction line, seed (cut to fit), tail (last 3,
newest first, in full), rolling summary, middle (newest first, each cut to 100
characters and marked past). Rendered in conversation order. The rendered text is
counted once more at the end and trimmed until it fits, so it never exceeds the
budget; every message appears at most once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Collection

from ..config import Limits
from ..tokens import TokenCounter
from .store import Message, Session

INSTRUCTIONS = {
    "follow_up": "Conversation so far in this tab (you may refer to it openly):",
    "new_selection": (
        "Background from earlier in this tab. Use it only where it helps; never mention it; "
        "treat the request as fresh:"
    ),
}


@dataclass(frozen=True)
class BuiltContext:
    context: str
    used_tokens: int
    budget: int
    distilled: bool
    mode: str
    # seqs of the messages not in the context (neither whole nor shortened): summary material.
    left_out: tuple[int, ...] = ()


@dataclass
class _Piece:
    order: tuple[int, int]  # (section, seq): section 0 header, 1 seed, 2 summary, 3 middle/tail
    priority: int  # lower is dropped first when trimming
    text: str
    shortened: bool = False
    # (message, form) whose cached cost applies while the text is unchanged.
    cache: tuple[Message, str] | None = None


def _label(message: Message, past: bool = False) -> str:
    kind = "selection" if message.source == "selection" else message.role
    return f"[past · {kind}]" if past else f"[{kind}]"


def build_context(session: Session | None, budget: int, mode: str, counter: TokenCounter,
                  limits: Limits, exclude_seq: int | Collection[int] | None = None) -> BuiltContext:
    if session is None or not session.all_messages():
        return BuiltContext("", 0, budget, False, mode)
    excluded = {exclude_seq} if isinstance(exclude_seq, int) else set(exclude_seq or ())
    messages = [m for m in session.all_messages() if m.seq not in excluded]
    if not messages:
        return BuiltContext("", 0, budget, False, mode)
    seed, rest = (messages[0], messages[1:]) if messages[0] is session.seed else (None, messages)

    pieces: list[_Piece] = []
    remaining = budget

    def take(piece: _Piece, allow_cut: bool = False) -> bool:
        nonlocal remaining
        cost = _cost(piece, counter)
        if cost > remaining and allow_cut and remaining > 1:
            piece.text = counter.truncate(piece.text, remaining - 1)
            piece.shortened = True
            piece.cache = None  # the cut text no longer matches the cached cost
            cost = counter.count(piece.text + "\n") if piece.text else cost
        if not piece.text or cost > remaining:
            return False
        pieces.append(piece)
        remaining -= cost
        return True

    take(_Piece((0, 0), 100, INSTRUCTIONS[mode]))
    if seed is not None:
        seed_kind = "selection" if seed.source == "selection" else seed.role
        take(_Piece((1, seed.seq), 90, f"[first message · {seed_kind}] {seed.content}", cache=(seed, "seed")),
             allow_cut=True)

    tail = rest[-limits.tail_messages:] if limits.tail_messages else []
    middle = rest[: len(rest) - len(tail)]
    for rank, m in enumerate(reversed(tail)):
        if not take(_Piece((3, m.seq), 80 - rank, f"{_label(m)} {m.content}", cache=(m, "full")), allow_cut=True):
            break
    if session.summary:
        take(_Piece((2, 0), 50, f"[summary of earlier messages]\n{session.summary}"), allow_cut=True)
    for rank, m in enumerate(reversed(middle)):
        short = m.content if len(m.content) <= limits.middle_chars else m.content[: limits.middle_chars] + "…"
        if not take(_Piece((3, m.seq), 40 - min(rank, 39), f"{_label(m, past=True)} {short}",
                           shortened=short != m.content, cache=(m, "past"))):
            break

    text, used = _render_within(pieces, counter, budget)
    included = {p.order[1] for p in pieces if p.order[0] in (1, 3)}
    left_out = tuple(m.seq for m in messages if m.seq not in included)
    dropped_by_cap = session.next_seq - 1 > len(session.all_messages())
    distilled = (dropped_by_cap or bool(left_out) or any(p.shortened for p in pieces)
                 or any(p.order[0] == 2 for p in pieces))
    return BuiltContext(text, used, budget, distilled, mode, left_out)


def _cost(piece: _Piece, counter: TokenCounter) -> int:
    """Tokens of the piece plus its line break, cached on the message once counts are exact."""
    if piece.cache is None or not counter.ready:
        return counter.count(piece.text + "\n")
    message, form = piece.cache
    cost = message.costs.get(form)
    if cost is None:
        cost = message.costs[form] = counter.count(piece.text + "\n")
    return cost


def _render_within(pieces: list[_Piece], counter: TokenCounter, budget: int) -> tuple[str, int]:
    """Join in conversation order; drop lowest-priority pieces until the exact count fits."""
    while pieces:
        text = "\n".join(p.text for p in sorted(pieces, key=lambda p: p.order))
        used = counter.count(text)
        if used <= budget:
            return text, used
        pieces.remove(min(pieces, key=lambda p: p.priority))
    return "", 0
