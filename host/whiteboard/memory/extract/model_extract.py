"""The model extractor: asks the configured OpenAI-compatible model (whiteboard.llm) for
lasting facts, as JSON. Used when a model is configured; the rule extractor is the
fallback whenever it is not, or the call fails or answers garbage.

The prompt lives here rather than in llm/prompts.py because only this module reads
its answer format.
"""

from __future__ import annotations

import json
import threading
from typing import Callable

from ...text import clean_words
from ..model import MEMORY_TYPES
from .candidate import Candidate
from .extract import Thresholds, finish, user_statements

MESSAGE_CHARS = 1500
SYSTEM = (
    "You pick out lasting facts about the user from what the user wrote in a chat. Keep only facts that will "
    "still be true and useful in later, unrelated conversations: preferences, skills and tools, goals and "
    "ongoing projects, personal context (where they live, work, family). Leave out one-off requests, questions, "
    "anything about the current task only, and anything the user quoted or pasted. Merge related facts into one; "
    "give at most {max_facts}. Write each fact as a short phrase without a subject, in the user's language, e.g. "
    "\"Prefers TypeScript for frontend work\". Reply with only a JSON object: {{\"memories\": [{{\"type\": one of "
    "\"skill\", \"preference\", \"objective\", \"context\"; \"text\": the fact; \"tags\": 1-3 short topic words; "
    "\"keywords\": search words in English and in Chinese; \"confidence\": 0 to 1}}]}}. Reply {{\"memories\": []}} "
    "when there is nothing lasting."
)


def extraction_messages(messages: list[str], max_facts: int) -> list[dict]:
    # Only the user's own sentences go to the model: no code blocks, quotes or pasted chunks.
    said = [" ".join(user_statements(m))[:MESSAGE_CHARS] for m in messages]
    body = "\n".join(f"- {s}" for s in said if s)
    return [{"role": "system", "content": SYSTEM.format(max_facts=max_facts)},
            {"role": "user", "content": f"What the user wrote:\n{body}"}]


def parse_answer(answer: str) -> list[Candidate]:
    """Candidates from the model's answer; ValueError when it holds no usable JSON."""
    # From the first "{" to the last "}" (what `\{.*\}` found, without its quadratic search).
    start, end = answer.find("{"), answer.rfind("}")
    if start < 0 or end < start:
        raise ValueError("no JSON object in the answer")
    items = json.loads(answer[start:end + 1]).get("memories")
    if not isinstance(items, list):
        raise ValueError("no memories list in the answer")
    found = []
    for item in items:
        if not isinstance(item, dict) or item.get("type") not in MEMORY_TYPES or not isinstance(item.get("text"), str):
            continue
        try:
            confidence = min(1.0, max(0.0, float(item.get("confidence", 0.7))))
        except (TypeError, ValueError):
            confidence = 0.7
        words = clean_words(str(w)[:40] for w in item.get("keywords") or [] if isinstance(w, (str, int)))
        tags = clean_words(t[:30] for t in item.get("tags") or [] if isinstance(t, str))
        found.append(Candidate(item["type"], item["text"].strip(), confidence, tags=tags[:3],
                               keywords=[w for w in words if w][:12]))
    return found


def model_extract(complete: Callable[[list[dict]], str], messages: list[str],
                  thresholds: Thresholds) -> list[Candidate]:
    """complete(messages) -> the model's answer text; raises what the client raises."""
    if not any(user_statements(m) for m in messages):
        return []
    found = parse_answer(complete(extraction_messages(messages, thresholds.max_facts)))
    model_keywords = {id(c): c.keywords for c in found}
    kept = finish(found, thresholds)
    for c in kept:
        # finish() derives keywords from the text; the model's (with Chinese ones) come first.
        c.keywords = list(dict.fromkeys(model_keywords.get(id(c), []) + c.keywords))[:12]
    return kept


def model_from(llm, cancel: threading.Event) -> Callable[[], Callable[[list[dict]], str] | None]:
    """For ConversationExtractor: gives a `complete` function for the model configured in
    the host's model layer (app.llm) at call time, or None when there is none."""

    def pick() -> Callable[[list[dict]], str] | None:
        if llm is None or not llm.configured():
            return None
        client = llm.client()
        return lambda messages: client.complete(messages, cancel)

    return pick
