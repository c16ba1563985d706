"""The vBRIEF session-memory types (draft 0.1 of the proposal), camelCase on the wire.

A document is `{"vBRIEFInfo": {...}, "sessionSnapshot": {...}}`. The header repeats the
snapshot's sessionInfo, compressionStats and memoryTiers (the proposal's vBRIEFInfo
additions) so a reader can show tier costs without reading the observations; the
document is valid only when both copies agree. Every size is bounded, unknown fields
are refused, and the cross-field rules below name the problem without quoting content.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator
from pydantic.alias_generators import to_camel

from ..protocol.bounds import MAX_COUNT, BoundedDatetime, Count

VERSION = "0.2"
MAX_TEXT_CHARS = 2_000_000  # as protocol.messages.core.MAX_CONTENT_CHARS: one captured message
MAX_TIER_CHARS = 200_000
MAX_OBSERVATIONS = 1000

Tool = Literal["chat.user", "chat.assistant", "selection"]
CompressionLevel = Literal["verbatim", "semantic", "aggregated", "reference"]
CompressionMethod = Literal["llm-summarize", "semantic-extract", "template"]
Status = Literal["active", "completed", "abandoned"]

Name = Annotated[str, StringConstraints(max_length=300)]
Label = Annotated[str, StringConstraints(max_length=64)]
Text = Annotated[str, StringConstraints(max_length=MAX_TEXT_CHARS)]
# Counts: bounds.Count (0..2**53-1). A ratio of two counts, finite. Dates: bounds.BoundedDatetime
# (1970-01-01 to 9999-12-31 in UTC, offset within ±18:00), so that every imported date
# exports again (docs/vbrief.md).
Ratio = Annotated[float, Field(ge=0.0, le=MAX_COUNT, allow_inf_nan=False)]


class VModel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


class SessionInfo(VModel):
    id: Name
    start_time: BoundedDatetime
    end_time: BoundedDatetime | None = None
    agent: Name
    # The rolling summary of messages the session no longer holds ("" when none were dropped).
    context: Annotated[str, StringConstraints(max_length=MAX_TIER_CHARS)] = ""
    total_observations: Count
    compression_ratio: Annotated[float, Field(ge=0.0, le=1.0)]
    tokens_saved: Count
    tools: Annotated[list[Tool], Field(max_length=3)]
    status: Status


class RedactionInfo(VModel):
    type: Literal["remove"] = "remove"
    reason: Name
    redacted_by: Name
    redacted_at: BoundedDatetime
    recoverable: bool = False
    patterns: Annotated[list[Label], Field(max_length=20)]


class CompressedObservation(VModel):
    summary: Text
    key_facts: Annotated[list[Text], Field(max_length=200)]
    original_tokens: Count
    compressed_tokens: Count
    compression_ratio: Ratio
    compression_method: CompressionMethod
    lossy_indicator: bool
    reconstructible: bool


class Observation(VModel):
    id: Name
    session_id: Name
    timestamp: BoundedDatetime
    tool: Tool
    # chat.user and selection carry the text as input, chat.assistant as output.
    input: Text | None = None
    output: Text | None = None
    reasoning: Text | None = None
    tokens: Count
    tags: Annotated[list[Label], Field(max_length=20)]
    compression_level: CompressionLevel
    compressed: CompressedObservation | None = None
    redaction_info: RedactionInfo | None = None

    @property
    def text(self) -> str:
        return (self.output if self.tool == "chat.assistant" else self.input) or ""


class MemoryTier(VModel):
    tier: Annotated[int, Field(ge=0, le=4)]
    label: Label
    content: Annotated[str, StringConstraints(max_length=MAX_TIER_CHARS)]
    token_cost: Count
    loaded: bool = False
    next_tier: Annotated[int, Field(ge=1, le=4)] | None = None


Tiers = Annotated[list[MemoryTier], Field(min_length=1, max_length=5)]


class CompressionStats(VModel):
    total_observations: Count
    original_tokens: Count
    compressed_tokens: Count
    tokens_saved: Count
    compression_ratio: Ratio
    # tier number ("0".."4") -> that tier's cost / the original tokens.
    average_ratio_by_tier: dict[Annotated[str, StringConstraints(pattern=r"^[0-4]$")], Ratio]
    method_usage: dict[CompressionMethod, Count]


class SessionSnapshot(VModel):
    session_info: SessionInfo
    observations: Annotated[list[Observation], Field(min_length=1, max_length=MAX_OBSERVATIONS)]
    generated_todos: Annotated[list[Text], Field(max_length=200)] | None = None
    generated_learnings: Annotated[list[Text], Field(max_length=500)] | None = None
    memory_tiers: Tiers
    compression_stats: CompressionStats

    @model_validator(mode="after")
    def _consistent(self) -> SessionSnapshot:
        info = self.session_info
        if info.total_observations != len(self.observations):
            raise ValueError(f"sessionInfo.totalObservations is {info.total_observations} "
                             f"but there are {len(self.observations)} observations")
        seen: set[str] = set()
        for n, obs in enumerate(self.observations):
            if obs.id in seen:
                raise ValueError(f"observations.{n}: id repeats an earlier observation's")
            seen.add(obs.id)
            if obs.session_id != info.id:
                raise ValueError(f"observations.{n}: sessionId does not match sessionInfo.id")
            carrier, other = ("output", "input") if obs.tool == "chat.assistant" else ("input", "output")
            if getattr(obs, carrier) is None or getattr(obs, other) is not None:
                raise ValueError(f"observations.{n}: a {obs.tool} observation carries its text in "
                                 f"'{carrier}' only")
        tiers = [t.tier for t in self.memory_tiers]
        if len(set(tiers)) != len(tiers) or 0 not in tiers:
            raise ValueError("memoryTiers: each tier at most once, and tier 0 present")
        return self


class VBriefInfo(VModel):
    version: Literal["0.2"]
    author: Name | None = None
    description: Name | None = None
    created: BoundedDatetime | None = None
    updated: BoundedDatetime | None = None
    auto_generated: bool = False
    session_info: SessionInfo | None = None
    compression_stats: CompressionStats | None = None
    memory_tiers: Tiers | None = None


class VBriefDocument(VModel):
    vbrief_info: VBriefInfo = Field(alias="vBRIEFInfo")
    session_snapshot: SessionSnapshot

    @model_validator(mode="after")
    def _header_matches_snapshot(self) -> VBriefDocument:
        head, snap = self.vbrief_info, self.session_snapshot
        for name, value in (("sessionInfo", head.session_info), ("compressionStats", head.compression_stats),
                            ("memoryTiers", head.memory_tiers)):
            if value is not None and value != getattr(snap, to_snake(name)):
                raise ValueError(f"vBRIEFInfo.{name} differs from sessionSnapshot.{name}")
        return self


def to_snake(camel: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in camel)
