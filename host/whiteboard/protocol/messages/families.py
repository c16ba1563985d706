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
})
