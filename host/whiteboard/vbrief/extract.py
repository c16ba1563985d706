"""Offline extraction for the export: sentences scored for facts, decisions and todos.

The extractive ("semantic-extract") method keeps the sentences that carry names,
numbers, decisions and preferences and drops the rest, within a token target. Todo
sentences are the ones that say something is still to be done.
"""

from __future__ import annotations

import re

from ..privacy import redact
from ..tokens import TokenCounter

_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？])|\n+")
_MAX_SENTENCE_CHARS = 300
_FACT_SIGNALS = [
    re.compile(r"\d"),
    # A capitalised word that does not start the sentence: likely a name or product.
    re.compile(r"(?<=[a-z,;:]\s)[A-Z][a-zA-Z]+"),
    re.compile(r"(?i)\b(decid\w*|agree\w*|chose|choose|going with|settled|prefer\w*|like|love|hate|always"
               r"|never|favou?rite|use|using|uses|works? with|deadline|budget|because|must|important)\b"),
    re.compile(r"[决定选择喜欢偏好必须总是从不预算截止重要]"),
]
_TODO = re.compile(
    r"(?i)\b(todo|to-do|to do|need to|needs to|have to|has to|should|must|next step|next,|will|going to"
    r"|let's|plan to|remember to|don't forget|follow up|still|pending|open question)\b"
    r"|[需要必须下一步待办计划]"
)


def scrub(text: str) -> str:
    """The privacy filter once more over text about to be exported (defence in depth)."""
    return redact(text).text


def sentences(text: str) -> list[str]:
    out = []
    for part in _SENTENCE.split(text):
        s = " ".join(part.split())
        if len(s) > 1:
            out.append(s[:_MAX_SENTENCE_CHARS])
    return out


def fact_score(sentence: str) -> int:
    return sum(1 for p in _FACT_SIGNALS if p.search(sentence))


def is_todo(sentence: str) -> bool:
    return bool(_TODO.search(sentence))


def key_sentences(text: str, counter: TokenCounter, max_tokens: int) -> list[str]:
    """The best-scoring sentences, in their original order, whose joined text fits max_tokens.

    Without any scoring sentence the lead sentences stand in; when not even one fits
    whole, the best one is cut to fit, so the result is empty only for empty text.
    """
    found = sentences(text)
    if not found or max_tokens <= 0:
        return []
    ranked = sorted(range(len(found)), key=lambda i: (-fact_score(found[i]), i))
    if fact_score(found[ranked[0]]) == 0:
        ranked = list(range(len(found)))  # nothing stands out: keep the lead
    chosen: list[int] = []
    for i in ranked:
        trial = sorted([*chosen, i])
        if counter.count(" ".join(found[j] for j in trial)) <= max_tokens:
            chosen = trial
    if not chosen:
        cut = counter.truncate(found[ranked[0]], max_tokens)
        return [cut] if cut else []
    return [found[i] for i in chosen]


def fit_newest(lines: list[str], counter: TokenCounter, max_tokens: int, sep: str = "\n",
               contiguous: bool = False) -> list[str]:
    """The newest lines (the end of the list) whose joined text fits, kept in their order.

    A line that does not fit is skipped (older, shorter ones may still fit) unless
    contiguous; the newest line is cut to fit rather than lost.
    """
    kept: list[str] = []
    for line in reversed(lines):
        if line in kept:
            continue
        # Counting the line alone first keeps a huge message from being counted once per line.
        if counter.count(line) <= max_tokens and counter.count(sep.join([line, *kept])) <= max_tokens:
            kept.insert(0, line)
        elif not kept:
            cut = counter.truncate(line, max_tokens)
            return [cut] if cut else []
        elif contiguous:
            break
    return kept
