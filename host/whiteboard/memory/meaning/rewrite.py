"""A draft rewritten by the configured model into the kinds of personal fact it may need
(issue 29 item 5), while the user types, never on the send path: "What should I order at the
sushi place tonight?" -> "diet", "allergies", "pregnancy", "food preferences". Recall searches
with those phrases by meaning as one more ranked list (recall.py) when the rewrite of the tab's
draft is ready at Enter (searched when the rewrite arrives: a send only looks up what was
found); when it is not, recall is the offline path, unchanged.

Only with the user's own switch on (`rewrite_drafts`, memory.settings; off by default), an
endpoint configured and long-term memory on for the site: the draft, privacy-filtered and cut
to its first drafts.KEPT_CHARS characters, goes to that endpoint. The answer is read
defensively: at most MAX_ANSWER_BYTES, JSON or a plain list, at most MAX_PHRASES phrases of at
most MAX_PHRASE_CHARS characters each; anything else gives no phrases, and recall stays offline.
Nothing here is logged or written: the phrases live in RAM with the draft (drafts.py).

The prompt lives here rather than in llm/prompts.py because only this module reads its answer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable

from ...llm.endpoint import Timeouts

MAX_PHRASES = 6
MAX_PHRASE_CHARS = 40
MAX_ANSWER_BYTES = 4096  # a short list; a longer reply is refused unread past this
# One try, five seconds in all: a rewrite that comes later than the user's next pause is
# worth nothing, and the next draft asks again.
TIMEOUTS = Timeouts(connect=2.0, read=5.0, total=5.0)

SYSTEM = (
    "A user is typing a message to an AI assistant. Their assistant keeps short facts the user told it earlier "
    "(diet, health, family, pets, home, work, skills, tools, goals, tastes, money, travel, and so on). Name the "
    "kinds of personal fact about the user that would change a good answer to this message, as short phrases "
    f"(one to four words each), at most {MAX_PHRASES}, most useful first, in English. Reply with only a JSON "
    "object: {\"kinds\": [\"...\"]}. Reply {\"kinds\": []} when the message is about the world and no personal "
    "fact would change the answer. Do not answer the message."
)


class RewriteOff(Exception):
    """The switch was turned off, or the endpoint or the model went, before the draft's turn."""


@dataclass(frozen=True)
class Rewrite:
    """The model's phrases for one draft, and the memories their vector found when the rewrite
    arrived (ids, best first; searched then, on the rewrites' thread, so that a send only looks
    them up). No phrases: the model found the draft needs no personal fact."""
    phrases: tuple[str, ...]
    found: tuple[str, ...] = ()


def rewrite_messages(draft: str) -> list[dict]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": f"<message>\n{draft}\n</message>"}]


def parse_phrases(answer: str) -> tuple[str, ...]:
    """The phrases of the model's answer: `{"kinds": [...]}` or a bare JSON list, anywhere in
    the answer (a model may wrap it in prose or a code fence); only strings are kept, stripped,
    cut to MAX_PHRASE_CHARS, without repeats, at most MAX_PHRASES. Anything else: none."""
    if len(answer) > MAX_ANSWER_BYTES:
        return ()
    found = None
    for start, end in ((answer.find("{"), answer.rfind("}")), (answer.find("["), answer.rfind("]"))):
        if 0 <= start < end:
            try:
                found = json.loads(answer[start:end + 1])
            except ValueError:
                continue
            break
    if isinstance(found, dict):
        found = found.get("kinds")
    if not isinstance(found, list):
        return ()
    phrases: dict[str, None] = {}
    for item in found:
        if isinstance(item, str):
            phrase = " ".join(item.split())[:MAX_PHRASE_CHARS].strip()
            if phrase:
                phrases.setdefault(phrase, None)
        if len(phrases) >= MAX_PHRASES:
            break
    return tuple(phrases)


def ask(complete: Callable[[list[dict]], str], draft: str) -> tuple[str, ...]:
    """The phrases for `draft` (already privacy-filtered and cut by the caller); raises what
    the client raises."""
    return parse_phrases(complete(rewrite_messages(draft)))


def query_text(phrases: tuple[str, ...]) -> str:
    """What is embedded for the phrases: one query, as a draft is."""
    return "; ".join(phrases)


def model_from(llm, cancel) -> Callable[[], Callable[[list[dict]], str] | None]:
    """For the memory service: the configured model's `complete(messages)` for a rewrite (one
    try, TIMEOUTS, an answer of at most MAX_ANSWER_BYTES), from the host's model layer
    (app.llm) at call time, or None when there is none. `cancel`: the host stopping."""

    def pick() -> Callable[[list[dict]], str] | None:
        if llm is None or not llm.configured():
            return None
        client = llm.client(TIMEOUTS, retries=0, max_reply_bytes=MAX_ANSWER_BYTES)
        return lambda messages: client.complete(messages, cancel)

    return pick
