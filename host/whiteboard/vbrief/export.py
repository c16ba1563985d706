"""A RAM session as a vBRIEF document (design §7, docs/vbrief.md).

Each captured message or selection becomes an Observation with its exact token count
and, unless it stays verbatim, its compressed form; CompressionStats add up over the
observations; the five tiers come from tiers.py. The privacy filter ran at capture;
it runs once more over every text that goes into the document, and what it removed
(then or now) is named in redactionInfo, kinds only.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime

from .. import version
from ..privacy import redact
from ..tokens import TokenCounter
from .compress import Compressor, ModelSummary, planned_level
from .extract import scrub
from .models import (
    VERSION,
    CompressionStats,
    MemoryTier,
    Observation,
    RedactionInfo,
    SessionInfo,
    SessionSnapshot,
    VBriefDocument,
    VBriefInfo,
)
from .tiers import build_tiers

TOOL_ORDER = ("chat.user", "chat.assistant", "selection")
METHODS = ("llm-summarize", "semantic-extract", "template")
FILTER_NAME = "Whiteboard privacy filter"


@dataclass(frozen=True)
class Captured:
    """One message as the export sees it, copied out of the store under its lock."""

    role: str
    source: str
    content: str
    timestamp: float
    redacted: tuple[str, ...] = ()
    # Already folded into the rolling summary (tagged "summarised" in the document).
    summarised: bool = False


@dataclass(frozen=True)
class SessionCopy:
    key: str
    started_at: float
    messages: list[Captured]
    summary: str


def copy_session(session) -> SessionCopy:
    """Call with the store's lock held: everything the export needs, detached from the store."""
    return SessionCopy(session.key, session.started_at,
                       [Captured(m.role, m.source, m.content, m.timestamp, m.redacted,
                                 m is not session.seed and m.seq <= session.folded_through)
                        for m in session.all_messages()],
                       session.summary)


def utc(ts: float) -> datetime:
    return datetime.fromtimestamp(ts, tz=UTC)


def agent_for(key: str) -> str:
    """The site's host name, the agent when the caller names none (the host keeps no list of
    chat sites: the extension's sites table names them, and sends the label)."""
    return key.split(":", 1)[0].lower().removeprefix("www.")


def tool_for(m: Captured) -> str:
    return "selection" if m.source == "selection" else f"chat.{m.role}"


def export_session(copy: SessionCopy, counter: TokenCounter, model: ModelSummary | None = None,
                   now: datetime | None = None, agent: str | None = None) -> VBriefDocument:
    session_id = "wb-" + hashlib.sha256(f"{copy.key}|{copy.started_at!r}".encode()).hexdigest()[:16]
    compressor = Compressor(counter, model)
    observations = []
    exchange, previous_role = 0, None
    n = len(copy.messages)
    for i, m in enumerate(copy.messages):
        filtered = redact(m.content)
        text = filtered.text
        caught_now = text != m.content  # re-matching an earlier [REDACTED] is not a new finding
        if m.role == "user" and previous_role != "user":
            exchange += 1
        previous_role = m.role
        tool, when = tool_for(m), utc(m.timestamp)
        tokens = counter.count(text)
        level, compressed = compressor.compress(text, tokens, planned_level(n - 1 - i, i == 0), tool, when)
        kinds = list(dict.fromkeys([*m.redacted, *(filtered.kinds if caught_now else ())]))
        tags = [m.role, f"exchange:{max(exchange, 1)}", *(["seed"] if i == 0 else []),
                *(["summarised"] if m.summarised else []), *(["redacted"] if kinds else [])]
        observations.append(Observation(
            id=f"obs-{i + 1}", session_id=session_id, timestamp=when, tool=tool,
            input=None if tool == "chat.assistant" else text, output=text if tool == "chat.assistant" else None,
            tokens=tokens, tags=tags, compression_level=level, compressed=compressed,
            redaction_info=_redaction(kinds, when, caught_now, now) if kinds else None))

    agent = agent or agent_for(copy.key)
    context = scrub(copy.summary)
    made = build_tiers(observations, agent, context, counter)
    stats = _stats(observations, made.tiers)
    info = SessionInfo(id=session_id, start_time=utc(copy.started_at), agent=agent, context=context,
                       total_observations=len(observations), compression_ratio=stats.compression_ratio,
                       tokens_saved=stats.tokens_saved,
                       tools=[t for t in TOOL_ORDER if any(o.tool == t for o in observations)], status="active")
    snapshot = SessionSnapshot(session_info=info, observations=observations, generated_todos=made.todos,
                               generated_learnings=made.learnings, memory_tiers=made.tiers,
                               compression_stats=stats)
    header = VBriefInfo(version=VERSION, author=f"Whiteboard {version()}",
                        description="One browser tab's chat session (vBRIEF session-memory extension)",
                        created=now or datetime.now(UTC), auto_generated=True, session_info=info,
                        compression_stats=stats, memory_tiers=made.tiers)
    return VBriefDocument(vbrief_info=header, session_snapshot=snapshot)


def _redaction(kinds: list[str], captured_at: datetime, caught_now: bool, now: datetime | None) -> RedactionInfo:
    return RedactionInfo(
        reason="secrets and private spans removed " + ("at export" if caught_now else "at capture"),
        redacted_by=FILTER_NAME, redacted_at=(now or datetime.now(UTC)) if caught_now else captured_at,
        recoverable=False, patterns=kinds)


def _stats(observations: list[Observation], tiers: list[MemoryTier]) -> CompressionStats:
    original = sum(o.tokens for o in observations)
    compressed = sum(o.compressed.compressed_tokens if o.compressed else o.tokens for o in observations)
    used = Counter(o.compressed.compression_method for o in observations if o.compressed)
    return CompressionStats(
        total_observations=len(observations), original_tokens=original, compressed_tokens=compressed,
        tokens_saved=original - compressed, compression_ratio=round(compressed / original, 4) if original else 1.0,
        average_ratio_by_tier={str(t.tier): round(t.token_cost / original, 4) if original else 0.0 for t in tiers},
        method_usage={m: used.get(m, 0) for m in METHODS})
