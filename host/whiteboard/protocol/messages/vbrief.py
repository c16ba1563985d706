"""vbrief.*: export a tab's session as a vBRIEF document, load its tiers, import it back."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ...vbrief.models import Label, VBriefDocument, VModel
from .base import Reply, Request
from .core import SessionKey


class VbriefExport(Request):
    type: Literal["vbrief.export"]
    reply_model = "VbriefExportReply"
    key: SessionKey
    # The chat site's name for sessionInfo.agent ("ChatGPT"), from the extension's sites
    # table; without it the agent is the key's host name.
    agent: Annotated[str, Field(min_length=1, max_length=80)] | None = None


class VbriefExportReply(Reply):
    document: VBriefDocument


class VbriefLoad(Request):
    type: Literal["vbrief.load"]
    reply_model = "VbriefLoadReply"
    document: VBriefDocument
    budget: Annotated[int, Field(ge=1, le=200_000)] = 2000


class LoadedTier(VModel):
    tier: int
    label: Label
    content: str
    token_cost: int


class RemainingTier(VModel):
    tier: int
    label: Label
    token_cost: int


class VbriefLoadReply(Reply):
    loaded: list[LoadedTier]
    remaining: list[RemainingTier]
    used_tokens: int
    budget: int


class VbriefImport(Request):
    type: Literal["vbrief.import"]
    reply_model = "VbriefImportReply"
    key: SessionKey
    document: VBriefDocument
    # Overwrite the tab's existing session; without it an existing session is an error.
    replace: bool = False


class VbriefImportReply(Reply):
    count: int
    redacted: int = 0
