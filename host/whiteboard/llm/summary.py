"""The rolling summary made by the model, without ever making a request wait for it.

App's summarizer answers `fold` at once with the extractive summary (the request path
holds the session lock while it folds). When a model is configured, `refine_later`
(called by sessions.summary.fold_pending after each fold) queues the same fold for
the model on one background thread; the model's text, held to the cap, replaces the
summary only if the session still exists and nothing newer was folded meanwhile (a
newer fold queues its own refinement, whose input already covers the older one). On
a model failure or timeout the extractive summary simply stays.
"""

from __future__ import annotations

import logging
import queue
import threading
from dataclasses import dataclass

from ..sessions.store import Message, Session, SessionStore
from ..sessions.summary import ExtractiveSummarizer, hold_to_cap
from ..tokens import TokenCounter
from .layer import ModelLayer
from .prompts import summary_messages

log = logging.getLogger("whiteboard.llm.summary")


@dataclass(frozen=True)
class _Job:
    session: Session
    previous: str
    messages: tuple[Message, ...]
    max_tokens: int
    target: int  # session.folded_through when queued


class RefiningSummarizer:
    method = "extractive"

    def __init__(self, tokens: TokenCounter, store: SessionStore, layer: ModelLayer):
        self.tokens = tokens
        self.store = store
        self.layer = layer
        self.extractive = ExtractiveSummarizer(tokens)
        self._jobs: queue.Queue[_Job] = queue.Queue()
        self._pending: dict[str, int] = {}  # session key -> target of its newest queued job
        self._lock = threading.Lock()
        self._worker: threading.Thread | None = None

    def fold(self, previous: str, messages: list[Message], max_tokens: int) -> str:
        return self.extractive.fold(previous, messages, max_tokens)

    def refine_later(self, session: Session, previous: str, messages: list[Message], max_tokens: int) -> None:
        if not self.layer.configured():
            return
        job = _Job(session, previous, tuple(messages), max_tokens, session.folded_through)
        with self._lock:
            self._pending[session.key] = job.target
            if self._worker is None:
                self._worker = threading.Thread(target=self._run, name="model-summary", daemon=True)
                self._worker.start()
        self._jobs.put(job)

    def refining(self, session: Session) -> bool:
        """Whether a model summary for the session's current fold is queued or running."""
        with self._lock:
            return self._pending.get(session.key) == session.folded_through

    def _run(self) -> None:
        while True:
            job = self._jobs.get()
            try:
                if not self._stale(job):
                    self._refine(job)
            finally:
                with self._lock:
                    if self._pending.get(job.session.key) == job.target:
                        del self._pending[job.session.key]

    def _stale(self, job: _Job) -> bool:
        with self.store.lock:
            return self.store.get(job.session.key) is not job.session or job.session.folded_through != job.target

    def _refine(self, job: _Job) -> None:
        try:
            answer = self.layer.client().complete(summary_messages(job.previous, job.messages, job.max_tokens))
        except Exception as exc:  # noqa: BLE001 - any failure leaves the extractive summary in place
            log.warning("model summary failed (%s); the extractive summary stays", type(exc).__name__)
            return
        text = hold_to_cap(answer, self.tokens, job.max_tokens)
        if not text:
            return
        with self.store.lock:
            if self.store.get(job.session.key) is job.session and job.session.folded_through == job.target:
                job.session.summary = text
                job.session.summary_method = "model"
