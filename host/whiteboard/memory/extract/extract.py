"""Extraction: lasting facts the user states about themself (design §5).

The rule extractor works offline: first-person statements of preferences, skills,
goals and personal context. It skips one-off requests, questions, quoted or pasted text
(code blocks, `>` lines, text in quotes, long pasted chunks) and anything about the
exchange itself ("I like this answer"). Related facts are merged; the most confident
few are kept. A manual "extract now" lowers the confidence threshold and the cap.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ... import text as T
from ...blocks import strip_blocks
from ...privacy import redact
from ..model import MAX_TEXT_CHARS
from .candidate import Candidate
from .rules import (
    CJK_COMPILED,
    CJK_ONE_OFF,
    CJK_ROLE_WORDS,
    CLAUSE_END,
    DEICTIC_OBJECT,
    EN_COMPILED,
    HEDGE,
    LEAD_IN,
    ONE_OFF,
    QUESTION_END,
    REMEMBER,
    REQUEST,
    ROLE_WORDS,
)


@dataclass(frozen=True)
class Thresholds:
    min_confidence: float
    max_facts: int


# What a run proposes at all; what is kept at once and what waits as a suggestion is the
# user's `suggest_below` (settings.py).
AUTOMATIC = Thresholds(min_confidence=0.5, max_facts=5)
MANUAL = Thresholds(min_confidence=0.5, max_facts=8)

_FENCE = re.compile(r"(?:```|~~~).*?(?:```|~~~|\Z)", re.DOTALL)
_QUOTED = re.compile(r"[\"“«「『][^\"”»」』]{12,}[\"”»」』]")
# A Latin full stop ends a sentence only before a space ("VW ID.3", ".NET" stay whole).
# The spaces before "and" are tried from the start of their run, or of their line after a
# newline: tried from each of their spaces, a run of spaces was quadratic (issue 20).
_SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])\s*|\n+"
                       r"|(?:,\s*|(?<!\s)\s+|(?<=\n)[^\S\n]+)(?:and|but|so|also)\s+(?=(?:i|my)\b|i')|，(?=我)",
                       re.IGNORECASE)
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_QUOTE_OR_CODE_LINE = re.compile(r"^\s*(?:>|\|)|^(?: {4}|\t)")
_CONSONANT_Y = re.compile(r"[^aeiou]y$")
_SIBILANT_END = re.compile(r"(?:s|sh|ch|x|z)$")
PASTED_CHARS = 700  # a paragraph longer than this was pasted, not said
PASTED_LINES = 8
MAX_FACT_CHARS = 200


def user_statements(message: str) -> list[str]:
    """The sentences of a user message that the user wrote themself."""
    message = _FENCE.sub("\n", strip_blocks(message))
    kept = []
    for paragraph in _PARAGRAPH_BREAK.split(message):
        lines = [l for l in paragraph.splitlines() if l.strip()]
        if len(paragraph) > PASTED_CHARS or len(lines) > PASTED_LINES:
            continue
        lines = [l for l in lines if not _QUOTE_OR_CODE_LINE.match(l)]
        kept.append(_QUOTED.sub(" ", "\n".join(lines)))
    sentences = []
    for part in kept:
        sentences += [s.strip() for s in _SENTENCE.split(part) if s and s.strip()]
    return sentences


def third_person(verb: str) -> str:
    words = verb.split()
    head = words[0].lower()
    if head in ("have",):
        head = "has"
    elif head in ("do", "go"):
        head += "es"
    elif _CONSONANT_Y.search(head):
        head = head[:-1] + "ies"
    elif _SIBILANT_END.search(head):
        head += "es"
    else:
        head += "s"
    return " ".join([head, *words[1:]])


def _clean_object(x: str) -> str | None:
    x = CLAUSE_END.split(x, 1)[0].strip().rstrip(".,!;:。！，")
    if len(x) < 2 or DEICTIC_OBJECT.search(x.lower()):
        return None
    return x[:MAX_FACT_CHARS]


def _capital(s: str) -> str:
    return s[:1].upper() + s[1:]


def _match_en(sentence: str) -> Candidate | None:
    original = sentence.strip().replace("’", "'")
    hedged = bool(HEDGE.search(original.lower()))
    asked_to_keep = bool(REMEMBER.match(original))
    original = LEAD_IN.sub("", REMEMBER.sub("", original))
    lower = original.lower()
    if lower.endswith("?") or REQUEST.search(lower) or ONE_OFF.search(lower):
        return None
    for type_, pattern, template, confidence, tag in EN_COMPILED:
        m = pattern.match(lower)
        if not m:
            continue
        # Groups index the lowercased copy; the fact keeps the user's own casing.
        x = _clean_object(original[m.start("x"):m.end("x")])
        if x is None:
            return None
        groups = m.groupdict()
        verb = groups.get("verb") or ""
        fact = template.format(x=x, X=_capital(x), v=third_person(verb) if verb else "", verb=verb,
                               adv=groups.get("adv") or "")
        if tag == "identity":
            type_ = "skill" if ROLE_WORDS.search(x.lower()) else "context"
        confidence += (-0.2 if hedged else 0) + (0.1 if asked_to_keep else 0)
        return Candidate(type_, _capital(" ".join(fact.split())), round(min(confidence, 0.95), 2), tags=[tag])
    return None


def _match_cjk(sentence: str) -> Candidate | None:
    s = sentence.strip().rstrip("。！!.")
    if s.endswith(QUESTION_END) or CJK_ONE_OFF.search(s):
        return None
    for type_, pattern, template, confidence, tag in CJK_COMPILED:
        m = pattern.match(s)
        if m:
            x = m.group("x").strip()[:MAX_FACT_CHARS]
            if len(x) < 2:
                return None
            if tag == "identity":
                type_ = "skill" if CJK_ROLE_WORDS.search(x) else "context"
            return Candidate(type_, template.format(x=x), confidence, tags=[tag])
    return None


def rule_candidate(sentence: str) -> Candidate | None:
    """What the rules make of one sentence, if anything."""
    # "Pythonを勉強しています" starts in ASCII; "I live in 東京" is English all the same.
    return (_match_cjk(sentence) if T.cjk_runs(sentence) else None) or _match_en(sentence)


def rule_extract(messages: list[str], thresholds: Thresholds = AUTOMATIC) -> list[Candidate]:
    """Candidates from the user's own messages (already privacy-filtered at capture)."""
    found: list[Candidate] = []
    for message in messages:
        for sentence in user_statements(message):
            candidate = rule_candidate(sentence)
            if candidate is not None:
                found.append(candidate)
    return finish(found, thresholds)


def finish(found: list[Candidate], thresholds: Thresholds) -> list[Candidate]:
    """Privacy-filter, merge related facts (a restated fact gains confidence), apply the
    threshold and keep the most confident few."""
    merged: list[Candidate] = []
    for c in found:
        c.text = redact(c.text).text.strip()[:MAX_TEXT_CHARS]
        if not c.text:
            continue
        twin = next((m for m in merged if m.type == c.type and T.similarity(m.text, c.text) >= 0.5), None)
        if twin is None:
            merged.append(c)
            continue
        # The longer statement usually says more; the repetition makes it surer.
        if len(c.text) > len(twin.text):
            twin.text = c.text
        twin.confidence = round(min(0.95, max(twin.confidence, c.confidence) + 0.1), 2)
        twin.tags = list(dict.fromkeys(twin.tags + c.tags))
    for c in merged:
        c.keywords = T.keywords(c.text)
        c.tags = list(dict.fromkeys([c.type, *c.tags]))
    kept = [c for c in merged if c.confidence >= thresholds.min_confidence]
    kept.sort(key=lambda c: -c.confidence)
    return kept[:thresholds.max_facts]
