"""llm.*: model settings for the options page, and a quick round trip to check them.

The API key goes in (write-only) and never comes back: replies say only whether one is set.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from ..bounds import TimeoutSeconds
from .base import Reply, Request


class LlmSettingsGet(Request):
    type: Literal["llm.settings.get"]
    reply_model = "LlmSettingsReply"


class PresetOut(BaseModel):
    name: str
    label: str
    base_url: str
    default_model: str
    needs_key: bool
    note: str  # where it runs and what it needs, for the options page


class LlmSettingsReply(Reply):
    configured: bool
    preset: str
    base_url: str
    model: str
    api_key_set: bool
    api_key_source: Literal["env", "stored", "none"]
    overridden_by_env: list[str]
    read_timeout: float
    total_timeout: float
    presets: list[PresetOut]


class LlmSettingsSet(Request):
    type: Literal["llm.settings.set"]
    reply_model = "LlmSettingsReply"
    preset: str | None = None
    base_url: Annotated[str, Field(max_length=2000)] | None = None
    model: Annotated[str, Field(max_length=300)] | None = None
    api_key: Annotated[str, Field(max_length=1000)] | None = None
    clear_api_key: bool = False
    read_timeout: TimeoutSeconds | None = None
    total_timeout: TimeoutSeconds | None = None
    # The user's explicit consent to an http:// base URL to another computer (the options page
    # asks after an `insecure_url` refusal); without it such a URL is refused.
    allow_insecure: bool = False


class LlmTest(Request):
    type: Literal["llm.test"]
    reply_model = "LlmTestReply"


class LlmTestReply(Reply):
    model: str
    endpoint: str
    latency_ms: int
    sample: str
