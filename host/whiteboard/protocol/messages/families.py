"""Message families beyond the core, each in its own module; add a family's PAIRS here."""

from __future__ import annotations

from . import ask, handoff, llm, summary
from .base import Reply, Request

PAIRS: dict[str, tuple[type[Request], type[Reply]]] = {}

# Model layer (issue 4): ask, model summary, handoff, model settings.
PAIRS.update({
    "ask.start": (ask.AskStart, ask.AskStartReply),
    "ask.cancel": (ask.AskCancel, ask.AskCancelReply),
    "session.summary": (summary.SessionSummary, summary.SessionSummaryReply),
    "handoff.summary": (handoff.HandoffSummary, handoff.HandoffSummaryReply),
    "llm.settings.get": (llm.LlmSettingsGet, llm.LlmSettingsReply),
    "llm.settings.set": (llm.LlmSettingsSet, llm.LlmSettingsReply),
    "llm.test": (llm.LlmTest, llm.LlmTestReply),
})

# Chat-site adapters (issue 3): send interception and turn capture.
from . import chat  # noqa: E402

PAIRS.update({
    "chat.prepare_send": (chat.ChatPrepareSend, chat.ChatPrepareSendReply),
    "chat.attach": (chat.ChatAttach, chat.ChatAttachReply),
    "chat.preview": (chat.ChatPreview, chat.ChatPreviewReply),
})

# vBRIEF export (issue 5): export, progressive loading, import.
from . import vbrief  # noqa: E402

PAIRS.update({
    "vbrief.export": (vbrief.VbriefExport, vbrief.VbriefExportReply),
    "vbrief.load": (vbrief.VbriefLoad, vbrief.VbriefLoadReply),
    "vbrief.import": (vbrief.VbriefImport, vbrief.VbriefImportReply),
})

# Long-term memory (issue 6): vault, recall, extraction, export/import, per-site settings.
from . import memory  # noqa: E402

PAIRS.update({
    "memory.add": (memory.MemoryAdd, memory.MemoryAddReply),
    "memory.extract": (memory.MemoryExtract, memory.MemoryExtractReply),
    "memory.recall": (memory.MemoryRecall, memory.MemoryRecallReply),
    "memory.list": (memory.MemoryList, memory.MemoryListReply),
    "memory.get": (memory.MemoryGet, memory.MemoryReply),
    "memory.update": (memory.MemoryUpdate, memory.MemoryReply),
    "memory.delete": (memory.MemoryDelete, memory.MemoryDeleteReply),
    "memory.export": (memory.MemoryExport, memory.MemoryExportReply),
    "memory.import": (memory.MemoryImport, memory.MemoryImportReply),
    "memory.wipe": (memory.MemoryWipe, memory.MemoryWipeReply),
    "memory.status": (memory.MemoryStatus, memory.MemoryStatusReply),
    "site.settings": (memory.SiteSettingsRequest, memory.SiteSettingsReply),
})
