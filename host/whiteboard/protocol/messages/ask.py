"""ask.*: a question to the configured model about the tab (and a selection), streamed."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from .base import Reply, Request, RequestId
from .core import MAX_CONTENT_CHARS, PromptMode, SessionKey

MAX_QUESTION_CHARS = 20_000


class AskStart(Request):
    type: Literal["ask.start"]
    reply_model = "AskStartReply"
    key: SessionKey
    question: Annotated[str, Field(min_length=1, max_length=MAX_QUESTION_CHARS)]
    selection: Annotated[str, Field(max_length=MAX_CONTENT_CHARS)] | None = None
    mode: PromptMode = "follow_up"
    # Tokens of tab context sent with the question (design §4 builder).
    budget: Annotated[int, Field(ge=1, le=200_000)] = 2000


class AskStartReply(Reply):
    answer: str
    used_tokens: int
    budget: int
    distilled: bool
    cancelled: bool = False


class AskCancel(Request):
    type: Literal["ask.cancel"]
    reply_model = "AskCancelReply"
    ref: RequestId


class AskCancelReply(Reply):
    cancelled: bool
