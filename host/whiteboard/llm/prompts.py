"""Every prompt the host sends to a model, in one place (design §4, §10).

Two ask modes: follow_up (the tab's conversation may be referred to openly) and
new_selection (background only: use it, never mention it, treat the request as fresh).
Session context goes in the system message so it is never taken for the user's words.
"""

from __future__ import annotations

from typing import Sequence

from ..sessions.store import Message

ASSISTANT = "You are the assistant inside Whiteboard, a browser extension. Answer clearly and concisely."
MODE_RULES = {
    "follow_up": ("The conversation so far in this browser tab is below. You may refer to it openly, "
                  "for example to what was said earlier."),
    "new_selection": ("Background from earlier in this browser tab is below. Use it only where it helps. "
                      "Never mention it, quote it or say that you were given it. Treat the request as a "
                      "fresh one about the selected text."),
}
# Long messages are cut before they go into a summary prompt; the summary keeps gist, not text.
SUMMARY_MESSAGE_CHARS = 1500
PING_PROMPT = "Reply with the single word OK."


def ask_messages(mode: str, context: str, question: str, selection: str | None) -> list[dict]:
    system = ASSISTANT
    if context:
        system += f"\n\n{MODE_RULES[mode]}\n\n<tab_context>\n{context}\n</tab_context>"
    user = question
    if selection:
        user = f"Selected text:\n<selection>\n{selection}\n</selection>\n\n{question}"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def summary_messages(previous: str, messages: Sequence[Message], max_tokens: int) -> list[dict]:
    words = max_tokens * 3 // 5  # ~0.6 words per cl100k token leaves headroom under the cap
    system = (
        "You keep a rolling summary of the older part of a conversation. Fold the new messages into "
        "the current summary. Keep names, numbers, decisions, preferences and open questions; drop "
        "small talk. Write short lines starting with '- ', newest information first, in the "
        f"conversation's own language. At most {words} words. Reply with the summary only."
    )
    lines = [f"[{m.role}] {_cut(m.content, SUMMARY_MESSAGE_CHARS)}" for m in messages]
    user = f"Current summary:\n{previous or '(empty)'}\n\nNew messages:\n" + "\n".join(lines)
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def handoff_messages(transcript: str, language_name: str, sections: Sequence[tuple[str, str]]) -> list[dict]:
    """sections: (json key, what it holds) in order."""
    keys = "\n".join(f"- {key}: {meaning}" for key, meaning in sections)
    system = (
        "You write a handoff note so that the conversation below can be continued in another AI chat by "
        "someone who has not seen it. Reply with only a JSON object with exactly these keys:\n"
        f"{keys}\n"
        "Each value is plain text: a sentence or a few short lines starting with '- '. "
        f"Write every value in {language_name}. Do not invent facts; use an empty string where the "
        "conversation says nothing."
    )
    return [{"role": "system", "content": system},
            {"role": "user", "content": f"<conversation>\n{transcript}\n</conversation>"}]


def ping_messages() -> list[dict]:
    return [{"role": "user", "content": PING_PROMPT}]


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "…"
