"""Reading an OpenAI-style chat-completions reply: server-sent events or one JSON body.

Garbage is expected: lines that are not SSE, `data:` that is not JSON, chunks without
choices (usage-only chunks are normal), an `error` object mid-stream. Unreadable
events are counted rather than fatal; the client decides what a stream amounts to.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Iterable, Iterator

DONE = object()


@dataclass
class StreamState:
    events: int = 0
    text_chars: int = 0
    unreadable: int = 0
    finished: bool = False  # [DONE] or a finish_reason arrived
    error: bool = False  # the endpoint put an error object in the stream


def sse_data(lines: Iterable[str]) -> Iterator[str]:
    """The data of each event: `data:` lines joined until a blank line (per the SSE spec)."""
    pending: list[str] = []
    for line in lines:
        if not line:
            if pending:
                yield from _split_if_needed(pending)
                pending = []
            continue
        if line.startswith(":"):
            continue  # comment / keep-alive
        field, _, value = line.partition(":")
        if field == "data":
            pending.append(value[1:] if value.startswith(" ") else value)
        # event:, id:, retry: and non-SSE lines carry nothing we use
    if pending:
        yield from _split_if_needed(pending)


def _split_if_needed(lines: list[str]) -> Iterator[str]:
    # Some servers omit the blank line between events: then each line is its own JSON.
    joined = "\n".join(lines)
    if len(lines) > 1 and not _is_json(joined):
        yield from lines
    else:
        yield joined


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def chunk_text(data: str, state: StreamState) -> str | object:
    """The answer text in one event's data ("" when none), or DONE."""
    state.events += 1
    if data.strip() == "[DONE]":
        state.finished = True
        return DONE
    try:
        obj = json.loads(data)
    except ValueError:
        state.unreadable += 1
        return ""
    if not isinstance(obj, dict):
        state.unreadable += 1
        return ""
    if obj.get("error"):
        state.error = True
        return DONE
    choices = obj.get("choices")
    if not isinstance(choices, list) or not choices:
        return ""  # e.g. the final usage chunk
    choice = choices[0]
    if not isinstance(choice, dict):
        state.unreadable += 1
        return ""
    if choice.get("finish_reason"):
        state.finished = True
    delta = choice.get("delta")
    content = delta.get("content") if isinstance(delta, dict) else None
    if not isinstance(content, str):
        return ""
    state.text_chars += len(content)
    return content


def completion_text(body: bytes) -> str | None:
    """choices[0].message.content of a non-streamed reply; None when the body has none.

    Raises ValueError when the body is not JSON at all.
    """
    obj = json.loads(body)
    if not isinstance(obj, dict) or obj.get("error"):
        return None
    choices = obj.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    message = choices[0].get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, str) else None
