"""Seed-middle-tail context builder with exact token counts (design §4, issue 11).

Priority when filling the budget: instruction line, seed (cut to fit), tail (last 3,
newest first, in full, cut to fit), rolling summary (its newest lines, within a quarter of
the room left), then the middle:
1. with a query, the messages relevant to it (sessions/relevance.py), most relevant first,
   within RELEVANT_SHARE of the room: in full, or a long one (over LONG_TOKENS) as its best
   passage;
2. the rest in full, newest first, while they fit;
3. then, newest first while they fit, shortened: the passage that matched the query, or the
   opening sentences;
4. what room is left: the newest message not shown, its opening cut at a word to fill it;
5. room still left (a short session): shortened messages go in full where they fit, or
   longer, from where their excerpt starts.
The others are left to the rolling summary. Rendered in conversation order, each omitted
stretch marked (`[… 7 earlier messages, summarised above …]`). The rendered text is
counted once more at the end and trimmed until it fits, so it never exceeds the budget;
every message appears at most once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Collection

from ..config import Limits
from ..tokens import TokenCounter
from .relevance import SENTENCE_END, Ranking, rank
from .store import Message, Session
from .summary import fit_lines

INSTRUCTIONS = {
    "follow_up": "Conversation so far in this tab (you may refer to it openly):",
    "new_selection": (
        "Background from earlier in this tab. Use it only where it helps; never mention it; "
        "treat the request as fresh:"
    ),
}
# A relevant message longer than this goes in as its best passage first (step 1).
LONG_TOKENS = 150
# A shortened message keeps its opening sentences up to this many characters (step 3).
LEAD_CHARS = 200
# Step 1 may use this share of the middle's room; the rest is kept for the newest messages.
RELEVANT_SHARE = 0.4
# Step 4 adds no cut message with fewer tokens of content than this.
MIN_FILL = 6
# The rolling summary gets at most this share of the room the seed and tail leave.
SUMMARY_SHARE = 0.25


# Marker texts hold only numbers: their costs are kept across builds (until counts are exact, by byte estimate).
_MARKER_COSTS: dict[tuple[str, bool], int] = {}


@dataclass(frozen=True)
class Kept:
    full: int = 0
    shortened: int = 0
    summarised: int = 0  # not in the context itself: in the rolling summary, or left out for this query


@dataclass(frozen=True)
class BuiltContext:
    context: str
    used_tokens: int
    budget: int
    distilled: bool
    mode: str
    # seqs of the messages not in the context (neither whole nor shortened): summary material.
    left_out: tuple[int, ...] = ()
    kept: Kept = field(default_factory=Kept)


@dataclass
class _Piece:
    order: tuple[int, int]  # (section, seq): section 0 header, 1 seed, 2 summary, 3 middle/tail
    priority: int  # lower is dropped first when trimming
    text: str
    shortened: bool = False
    # (message, form) whose cached cost applies while the text is unchanged.
    cache: tuple[Message, str] | None = None
    slot: int | None = None  # a middle message's index
    start: int = 0  # where in the message a shortened middle one's text starts


def _label(message: Message, shortened: bool = False) -> str:
    kind = "selection" if message.source == "selection" else message.role
    return f"[excerpt · {kind}]" if shortened else f"[{kind}]"


def _in_full(message: Message) -> tuple[str, tuple[Message, str]]:
    """A message's line in full, and the key its token cost is cached under."""
    return f"{_label(message)} {message.content}", (message, "full")


def build_context(session: Session | None, budget: int, mode: str, counter: TokenCounter, limits: Limits,
                  exclude_seq: int | Collection[int] | None = None, query: str | None = None) -> BuiltContext:
    if session is None or not session.all_messages():
        return BuiltContext("", 0, budget, False, mode)
    excluded = {exclude_seq} if isinstance(exclude_seq, int) else set(exclude_seq or ())
    messages = [m for m in session.all_messages() if m.seq not in excluded]
    if not messages:
        return BuiltContext("", 0, budget, False, mode)
    seed, rest = (messages[0], messages[1:]) if messages[0] is session.seed else (None, messages)
    dropped = session.next_seq - 1 - len(session.all_messages())  # by the message cap

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
    for n, m in enumerate(reversed(tail)):
        text, cache = _in_full(m)
        if not take(_Piece((3, m.seq), 80 - n, text, cache=cache), allow_cut=True):
            break
    # The summary's newest lines, within a share of the room: it must not starve the middle.
    key = (session.summary, int(remaining * SUMMARY_SHARE), counter.ready)
    if session.summary_fit[:3] != key:
        session.summary_fit = (*key, fit_lines(session.summary.splitlines(), counter, key[1]))
    summary = session.summary_fit[3]
    summarised_above = bool(summary) and take(_Piece((2, 0), 50, f"[summary of earlier messages]\n{summary}"))

    fill = _Middle(middle, dropped, session.folded_through if summarised_above else 0, counter)
    # Ranking can only reorder what does not all fit.
    ranking = Ranking((), {})
    if query and middle and sum(fill.full_cost(m) for m in middle) > remaining:
        session.read = {m.seq: session.read[m.seq] for m in middle if m.seq in session.read}  # only kept ones
        ranking = rank(middle, query, session.read)
    fill.choose(remaining, ranking)
    text, used = _render_within(pieces, fill, counter, budget)

    shown = {p.order[1]: p.shortened for p in [*pieces, *fill.chosen.values()] if p.order[0] in (1, 3)}
    left_out = tuple(m.seq for m in messages if m.seq not in shown)
    shortened = sum(shown.values())
    kept = Kept(len(shown) - shortened, shortened, len(left_out) + dropped)
    distilled = bool(dropped or left_out or shortened or summarised_above)
    return BuiltContext(text, used, budget, distilled, mode, left_out, kept)


class _Middle:
    """The middle messages chosen so far (by index), and the markers of the stretches between them."""

    def __init__(self, messages: list[Message], dropped: int, summarised_through: int, counter: TokenCounter):
        self.messages, self.dropped, self.summarised_through = messages, dropped, summarised_through
        self.counter = counter
        self.chosen: dict[int, _Piece] = {}
        self.marked = False

    def choose(self, room: int, ranking: Ranking) -> None:
        # With nothing chosen, everything is one omitted stretch; no room for its marker, no markers.
        initial = self._marker_cost(0, len(self.messages))
        self.marked = initial <= room
        if not self.marked:
            return
        room -= initial
        by_seq = {m.seq: i for i, m in enumerate(self.messages)}
        taken = 0

        def take(i: int, text: str, cache: tuple[Message, str] | None, shortened: bool, held_back: int = 0,
                 start: int = 0) -> bool:
            nonlocal room, taken
            if i in self.chosen:
                return False
            piece = _Piece((3, self.messages[i].seq), 40 - min(taken, 39), text, shortened, cache, i, start)
            cost = _cost(piece, self.counter) + self._marker_delta(i)
            if cost > room - held_back:
                return False
            self.chosen[i] = piece
            room -= cost
            taken += 1
            return True

        held_back = room - int(room * RELEVANT_SHARE)  # for the newest messages
        for seq in ranking.order:  # 1: relevant first
            i, m = by_seq[seq], self.messages[by_seq[seq]]
            span = ranking.best_passage.get(seq)
            if span is not None and self.full_cost(m) > LONG_TOKENS:
                take(i, *_excerpt(m, span), True, held_back, span[0])
            else:
                take(i, *_in_full(m), False, held_back)
        for i in reversed(range(len(self.messages))):  # 2: newest first, in full, while they fit
            m = self.messages[i]
            if i not in self.chosen and not take(i, *_in_full(m), False):
                break
        # 3 and 4 go newest first and stop at the first that does not fit: without a query what is
        # left out is then always the oldest stretch, which the rolling summary folds in order.
        for i in reversed(range(len(self.messages))):  # 3: the rest shortened (a short one whole)
            m = self.messages[i]
            if i in self.chosen:
                continue
            span = ranking.best_passage.get(m.seq)
            text, cache = _excerpt(m, span) if span else _lead(m)
            if not (take(i, *_in_full(m), False) if cache is None
                    else take(i, text, cache, True, start=span[0] if span else 0)):
                break
        left = [i for i in range(len(self.messages)) if i not in self.chosen]
        if left:  # 4: the newest not shown fills the room left
            i, m = left[-1], self.messages[left[-1]]
            label = f"{_label(m, True)} "
            room_for_text = room - self._marker_delta(i) - self.counter.count(label + "\n")
            cut = _opening(self.counter, m.content, room_for_text) if room_for_text > MIN_FILL else ""
            if cut:
                take(i, f"{label}{cut} …", None, True)
        relevant = [by_seq[seq] for seq in ranking.order]
        for i in dict.fromkeys([*relevant, *reversed(range(len(self.messages)))]):  # 5: room left? more of them
            piece = self.chosen.get(i)
            if piece is not None and piece.shortened:
                room -= self._grow(i, piece, room)

    def _grow(self, i: int, piece: _Piece, room: int) -> int:
        """A shortened message in full if that fits in `room` more tokens, else as much more
        as fits from where its excerpt starts, cut at a word; returns the tokens it took."""
        m = self.messages[i]
        now = _cost(piece, self.counter)
        text, cache = _in_full(m)
        full = _Piece(piece.order, piece.priority, text, False, cache, i)
        if _cost(full, self.counter) - now <= room:
            self.chosen[i] = full
            return _cost(full, self.counter) - now
        label = f"{_label(m, True)} " + ("…" if piece.start else "")
        cut = _opening(self.counter, m.content, now + room - self.counter.count(label + "\n"), piece.start)
        grown = _Piece(piece.order, piece.priority, f"{label}{cut} …", True, None, i, piece.start)
        extra = _cost(grown, self.counter) - now
        if len(cut) <= len(piece.text) or extra > room:
            return 0
        self.chosen[i] = grown
        return extra

    def without(self, slot: int) -> None:
        del self.chosen[slot]

    def full_cost(self, m: Message) -> int:
        text, cache = _in_full(m)
        return _cost(_Piece((3, m.seq), 0, text, cache=cache), self.counter)

    def _stretch(self, i: int) -> tuple[int, int]:
        lo, hi = i, i + 1
        while lo > 0 and lo - 1 not in self.chosen:
            lo -= 1
        while hi < len(self.messages) and hi not in self.chosen:
            hi += 1
        return lo, hi

    def _marker_delta(self, i: int) -> int:
        """What choosing message i changes in the markers' cost (it splits its stretch in two)."""
        lo, hi = self._stretch(i)
        return self._marker_cost(lo, i) + self._marker_cost(i + 1, hi) - self._marker_cost(lo, hi)

    def _marker(self, lo: int, hi: int) -> str:
        n = hi - lo + (self.dropped if lo == 0 else 0)
        if not n:
            return ""
        noun = "message" if n == 1 else "messages"
        last_seq = self.messages[hi - 1].seq if hi > lo else 0
        if self.summarised_through and last_seq <= self.summarised_through:
            return f"[… {n} earlier {noun}, summarised above …]"
        return f"[… {n} {noun} left out …]"

    def _marker_cost(self, lo: int, hi: int) -> int:
        text = self._marker(lo, hi)
        if not text:
            return 0
        key = (text, self.counter.ready)
        if key not in _MARKER_COSTS:
            if len(_MARKER_COSTS) > 1000:
                _MARKER_COSTS.clear()
            _MARKER_COSTS[key] = self.counter.count(text + "\n")
        return _MARKER_COSTS[key]

    def markers(self) -> list[_Piece]:
        """A piece per stretch of messages not chosen (the ones the cap dropped included)."""
        if not self.marked:
            return []
        out = []
        if self.dropped and (not self.messages or 0 in self.chosen):
            out.append(_Piece((3, 0), 100, self._marker(0, 0)))
        i = 0
        while i < len(self.messages):
            if i in self.chosen:
                i += 1
                continue
            _, hi = self._stretch(i)
            out.append(_Piece((3, self.messages[i].seq if i else 0), 100, self._marker(i, hi)))
            i = hi
        return out


def _excerpt(m: Message, span: tuple[int, int]) -> tuple[str, tuple[Message, str]]:
    a, b = span
    text = ("…" if a else "") + m.content[a:b].strip() + ("…" if b < len(m.content.rstrip()) else "")
    return f"{_label(m, True)} {text}", (m, f"passage {a}:{b}")


def _lead(m: Message) -> tuple[str, tuple[Message, str] | None]:
    """The opening sentences within LEAD_CHARS (a first sentence longer than that is cut at
    a space); no cache key when the message is no longer than that (it has no shorter form)."""
    text = m.content.strip()
    if len(text) <= LEAD_CHARS:
        return "", None
    head = text[:LEAD_CHARS]
    end = max((s.start() for s in SENTENCE_END.finditer(head)), default=0)
    if end < LEAD_CHARS // 4:
        end = head.rfind(" ") if " " in head[LEAD_CHARS // 4:] else LEAD_CHARS
    return f"{_label(m, True)} {head[:end].rstrip()} …", (m, "lead")


def _opening(counter: TokenCounter, text: str, tokens: int, start: int = 0) -> str:
    """text from `start` within `tokens` (two spare for " …"), cut at a word (a token prefix
    may end inside one). Only 32 characters per token are read: a huge message costs no more,
    and a text with fewer tokens than that in it is just cut shorter."""
    cut = counter.truncate(text[start: start + tokens * 32], tokens - 2).removesuffix("…")
    return cut[: cut.rfind(" ")].rstrip() if " " in cut else ""


def _cost(piece: _Piece, counter: TokenCounter) -> int:
    """Tokens of the piece plus its line break, cached on the message once counts are exact."""
    if piece.cache is None or not counter.ready:
        return counter.count(piece.text + "\n")
    message, form = piece.cache
    cost = message.costs.get(form)
    if cost is None:
        cost = message.costs[form] = counter.count(piece.text + "\n")
    return cost


def _render_within(pieces: list[_Piece], fill: _Middle, counter: TokenCounter, budget: int) -> tuple[str, int]:
    """Join in conversation order, the markers between; drop lowest-priority pieces until the exact count fits."""
    while pieces or fill.chosen:
        shown = [*pieces, *fill.chosen.values()]
        text = "\n".join(p.text for p in sorted([*shown, *fill.markers()], key=lambda p: p.order))
        used = counter.count(text)
        if used <= budget:
            return text, used
        lowest = min(shown, key=lambda p: p.priority)
        if lowest.slot is None:
            pieces.remove(lowest)
        else:
            fill.without(lowest.slot)
    return "", 0
