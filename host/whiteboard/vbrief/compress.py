"""Per-observation compression at the four vBRIEF levels.

The level follows age, like a memory hierarchy: the newest observations stay
verbatim, the next ones semantic (key sentences, ~25% of the tokens), older ones
aggregated (a gist, ~8%, merged per exchange in the learnings tier), the oldest a
reference (metadata only; the text stays in the observation). The first message is
never below semantic: it usually sets the topic. Compression never grows an
observation: when the compressed form would not be smaller, it stays verbatim.
Semantic and aggregated use the configured model ("llm-summarize") when there is one,
the extractive method ("semantic-extract") otherwise or when the model fails.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from datetime import datetime
from typing import Protocol

from ..tokens import TokenCounter
from .extract import key_sentences, scrub, sentences
from .models import CompressedObservation

log = logging.getLogger("whiteboard.vbrief")

VERBATIM_NEWEST = 3
SEMANTIC_NEWEST = 12
AGGREGATED_NEWEST = 30
SHARE = {"semantic": 0.25, "aggregated": 0.08}
# Short messages need room for one whole sentence; "never grows" still holds them to less.
MIN_TARGET = {"semantic": 20, "aggregated": 10}
MAX_TARGET = {"semantic": 300, "aggregated": 60}
# A model sees at most this much of one message: a summary keeps gist, not text.
MODEL_INPUT_CHARS = 6000
# Model summaries kept per session: a message is summarised at two levels as it ages,
# and the session holds at most ~50 messages plus selections.
CACHE_ENTRIES = 256
_CACHE_LOCK = threading.Lock()


def planned_level(rank_from_newest: int, is_seed: bool) -> str:
    if rank_from_newest < VERBATIM_NEWEST:
        return "verbatim"
    if rank_from_newest < SEMANTIC_NEWEST or is_seed:
        return "semantic"
    if rank_from_newest < AGGREGATED_NEWEST:
        return "aggregated"
    return "reference"


class ModelSummary(Protocol):
    """Summarises one message within max_tokens; raises on any failure."""

    def summarize(self, text: str, max_tokens: int) -> str: ...


class LayerSummary:
    """The configured model (whiteboard.llm) as a ModelSummary for one export. Answers are
    kept in `cache` (the session's, so in RAM and gone with it) and reused by later exports."""

    def __init__(self, layer, cancel: threading.Event, cache: dict[tuple[bytes, int], str] | None = None):
        self.layer = layer
        self.cancel = cancel
        self.cache = {} if cache is None else cache

    def summarize(self, text: str, max_tokens: int) -> str:
        settings = self.layer.settings()  # another model's summary is not reused
        key = (hashlib.sha256(f"{settings.base_url}\n{settings.model}\n{text}".encode()).digest(), max_tokens)
        answer = self.cache.get(key)
        if answer is None:
            answer = self._ask(text, max_tokens)
            with _CACHE_LOCK:
                while len(self.cache) >= CACHE_ENTRIES:  # oldest first: dicts keep insertion order
                    self.cache.pop(next(iter(self.cache)))
                self.cache[key] = answer
        return answer

    def _ask(self, text: str, max_tokens: int) -> str:
        words = max(3, max_tokens * 3 // 5)  # ~0.6 words per token leaves headroom under the target
        cut = text if len(text) <= MODEL_INPUT_CHARS else text[:MODEL_INPUT_CHARS] + "…"
        prompt = [
            {"role": "system", "content": (
                "Summarise the message below for a memory of the conversation. Keep names, numbers, "
                "decisions, preferences and open questions; drop boilerplate. One short sentence per "
                f"line, at most {words} words in all, in the message's own language. "
                "Reply with the summary only.")},
            {"role": "user", "content": f"<message>\n{cut}\n</message>"},
        ]
        return self.layer.client().complete(prompt, self.cancel)


class Compressor:
    def __init__(self, counter: TokenCounter, model: ModelSummary | None = None):
        self.counter = counter
        self.model = model

    def compress(self, text: str, tokens: int, level: str, tool: str,
                 when: datetime) -> tuple[str, CompressedObservation | None]:
        """(the level actually used, its compressed form or None for verbatim)."""
        if level == "verbatim" or tokens == 0:
            return "verbatim", None
        if level == "reference":
            summary = f"[{tool} · {when:%Y-%m-%d %H:%M} UTC · {tokens} tokens]"
            facts, method = [], "template"
        else:
            target = min(MAX_TARGET[level], max(MIN_TARGET[level], round(tokens * SHARE[level])))
            summary, facts, method = self._summarize(text, target)
        compressed = self.counter.count(summary)
        if not summary or compressed >= tokens:
            return "verbatim", None
        return level, CompressedObservation(
            summary=summary, key_facts=facts, original_tokens=tokens, compressed_tokens=compressed,
            compression_ratio=round(compressed / tokens, 4), compression_method=method,
            lossy_indicator=summary != text, reconstructible=True)

    def _summarize(self, text: str, target: int) -> tuple[str, list[str], str]:
        if self.model is not None:
            try:
                answer = scrub(self.model.summarize(text, target))
                facts = [s.lstrip("-• ").strip() for s in sentences(answer)]
                summary = self.counter.truncate(" ".join(f for f in facts if f), target)
                if summary:
                    return summary, [f for f in facts if f and f in summary], "llm-summarize"
            except Exception as exc:  # noqa: BLE001 - a failing model never fails the export
                log.warning("model summary for export failed (%s); extractive from here on",
                            type(exc).__name__)
                self.model = None  # don't wait on a failing endpoint once per message
        facts = key_sentences(text, self.counter, target)
        return " ".join(facts), facts, "semantic-extract"
