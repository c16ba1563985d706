"""session.summary: the tab's rolling summary of messages that left the context."""

from __future__ import annotations

from typing import Literal

from .base import Reply, Request
from .core import SessionKey


class SessionSummary(Request):
    type: Literal["session.summary"]
    reply_model = "SessionSummaryReply"
    key: SessionKey


class SessionSummaryReply(Reply):
    summary: str
    tokens: int
    method: Literal["none", "extractive", "model", "imported"]
    # A model summary of the latest fold is on its way and will replace this one.
    refining: bool = False
