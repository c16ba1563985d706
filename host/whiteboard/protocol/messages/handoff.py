"""handoff.summary: the tab's conversation as a six-section note to continue elsewhere (design §7)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from .base import Reply, Request
from .core import SessionKey

SectionId = Literal["user_background", "project_topic", "current_status", "key_information", "open_items",
                    "continuation_point"]


class HandoffSummary(Request):
    type: Literal["handoff.summary"]
    reply_model = "HandoffSummaryReply"
    key: SessionKey
    # Token cap for the rendered note (what goes into the other site's composer).
    budget: Annotated[int, Field(ge=200, le=20_000)] = 1500


class HandoffSection(BaseModel):
    id: SectionId
    title: str
    text: str


class HandoffSummaryReply(Reply):
    sections: list[HandoffSection]
    text: str
    language: str
    method: Literal["model", "extractive"]
    tokens: int
