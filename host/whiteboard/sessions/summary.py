"""Rolling summary of messages that left the context (design §4).

Folding is incremental: only messages newer than `folded_through` are added. The
extractive method keeps the sentences that carry names, numbers, decisions and
preferences, newest first, within the token cap; it is the fallback for a model.
"""

from __future__ import annotations

import re
from typing import Iterable, Protocol

from ..tokens import TokenCounter
from .store import Message, Session

_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|\n+")
_SIGNALS = [
    re.compile(r"\d"),
    # A capitalised word that does not start the sentence: likely a name or product.
    re.compile(r"(?<=[a-z,;:]\s)[A-Z][a-zA-Z]+"),
    re.compile(
        r"(?i)\b(decid\w*|agree\w*|chose|choose|plan\w*|will|going to|let's|must|should|need\w*"
        r"|deadline|budget|prefer\w*|like|love|hate|always|never|want\w*|favou?rite|use|using)\b"
    ),
    re.compile(r"[决定选择计划喜欢偏好需要必须总是从不想要]"),
]
_MAX_SENTENCE_CHARS = 300


class Summarizer(Protocol):
    """Folds newly dropped messages into the previous summary; returns the new text."""

    method: str

    def fold(self, previous: str, messages: list[Message], max_tokens: int) -> str: ...


def _sentences(messages: Iterable[Message]) -> list[tuple[str, str]]:
    out = []
    for m in messages:
        for s in _SENTENCE.split(m.content):
            s = " ".join(s.split())
            if s:
                out.append((m.role, s[:_MAX_SENTENCE_CHARS]))
    return out


def _score(sentence: str) -> int:
    return sum(1 for p in _SIGNALS if p.search(sentence))


class ExtractiveSummarizer:
    method = "extractive"

    def __init__(self, counter: TokenCounter):
        self.counter = counter

    def fold(self, previous: str, messages: list[Message], max_tokens: int) -> str:
        # Newest first: the latest dropped sentences outrank older ones and the old summary.
        candidates = _sentences(reversed(messages))
        picked = [f"- {role}: {s}" for role, s in candidates if _score(s) > 0]
        if not picked and candidates:
            # Never empty while dropped content exists: keep the newest sentence.
            role, s = candidates[0]
            picked = [f"- {role}: {s}"]
        lines = picked + [line for line in previous.splitlines() if line.strip()]
        return fit_lines(lines, self.counter, max_tokens)


def fit_lines(lines: list[str], counter: TokenCounter, max_tokens: int) -> str:
    """Lines in order while they fit; the first line is cut to fit rather than lost."""
    kept: list[str] = []
    seen: set[str] = set()
    for line in lines:
        if line in seen:
            continue
        candidate = "\n".join([*kept, line])
        if counter.count(candidate) <= max_tokens:
            kept.append(line)
            seen.add(line)
        elif not kept:
            kept.append(counter.truncate(line, max_tokens))
            break
        else:
            break
    return "\n".join(kept)


def hold_to_cap(text: str, counter: TokenCounter, max_tokens: int) -> str:
    """Enforce the summary cap on any text, a model's output included."""
    return fit_lines([l for l in text.splitlines() if l.strip()], counter, max_tokens)


def fold_pending(session: Session, summarizer: Summarizer, counter: TokenCounter, max_tokens: int,
                 extra: list[Message] = ()) -> bool:
    """Fold the session's unfolded messages (and `extra`) newer than folded_through."""
    new = [m for m in [*session.unfolded, *extra] if m.seq > session.folded_through]
    session.unfolded.clear()
    session.unfolded_bytes = 0
    if not new:
        return False
    new.sort(key=lambda m: m.seq)
    previous = session.summary
    try:
        text = summarizer.fold(previous, new, max_tokens)
        method = summarizer.method
    except Exception:  # noqa: BLE001 - a failing summarizer never stalls the chat
        text, method = "", "extractive"
    text = hold_to_cap(text, counter, max_tokens)
    if not text:
        text = ExtractiveSummarizer(counter).fold(session.summary, new, max_tokens)
        method = "extractive"
    session.summary = text
    session.summary_method = method
    session.folded_through = new[-1].seq
    # A slow summarizer (a model) may refine this fold off the request path (llm/summary.py).
    refine_later = getattr(summarizer, "refine_later", None)
    if refine_later is not None:
        refine_later(session, previous, new, max_tokens)
    return True
