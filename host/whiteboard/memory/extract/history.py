"""Importing chat history: lasting facts from a ChatGPT, Claude or Gemini data export.

Two passes over the export, both streams (chat_export.py): the first reads it whole and
counts, so that a damaged or foreign file is refused before anything is written (the
vault unchanged) and the progress bar knows the total; the second extracts. The user's
turns go through the same extraction as a live conversation's (the learned classifier
on the bundled model, else the rules), in batches of conversations whose sentences are
embedded together, and through the same ADD / UPDATE / NOOP and `suggest_below` (with
`review`, every fact waits as a suggestion). Each batch is one vault transaction that
also records its conversations as imported (a keyed hash): a second import adds nothing,
and one stopped half-way resumes with the first batch it did not commit. Nothing of the
conversations is written anywhere but the facts kept, encrypted like every memory.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..model import Memory, Suggestion
from ..service import MemoryService
from ..store.suggestions import MAX_WAITING
from .candidate import Candidate
from .chat_export import Conversation, ExportFeed, ExportRefused, conversations, day
from .conversation import keep, suggest_below
from .extract import MANUAL, rule_extract

BATCH_TURNS = 256  # user turns per batch: one embedding call and one transaction
REVIEW_ALL = 1.01  # above any confidence: every fact waits for the user


@dataclass
class Survey:
    """What the first pass found."""

    format: str | None = None
    conversations: int = 0
    turns: int = 0


@dataclass
class ImportSummary:
    format: str | None = None
    conversations: int = 0  # read in this run
    already: int = 0  # imported by an earlier run: skipped
    turns: int = 0
    skipped_turns: int = 0  # too long to be the user's own words
    added: list[Memory] = field(default_factory=list)
    updated: int = 0
    unchanged: int = 0
    suggested: list[Suggestion] = field(default_factory=list)
    method: str = "rules"
    stopped: str | None = None  # why the run ended before the export did

    @property
    def facts(self) -> int:
        return len(self.added) + self.updated + self.unchanged + len(self.suggested)


def survey(path: Path, stop: threading.Event | None = None) -> Survey:
    """The first pass: the whole export read and counted. ExportRefused when any of it is no
    export we read or is damaged; nothing is written."""
    found = Survey()
    for c in conversations(path):
        if stop is not None and stop.is_set():
            break
        found.format = found.format or c.format
        found.conversations += 1
        found.turns += len(c.turns)
    if not found.conversations:
        raise ExportRefused(f"{path} holds no conversation with anything the user wrote")
    return found


def import_chats(service: MemoryService, path: Path, learned=None, review: bool = False, site: str | None = None,
                 progress: Callable[[int, int], None] | None = None,
                 stop: threading.Event | None = None) -> ImportSummary:
    """Read the export at `path` (call survey() first to refuse a bad one before any write)
    and keep what it says about the user. `learned`: the classifier.LearnedExtractor, or None
    for the rules alone; `site`: recorded instead of the export's own; `progress(turns, facts)`
    after each batch; `stop`: set to end after the batch under way (what was kept stays)."""
    summary = ImportSummary(method="classifier" if learned is not None else "rules")
    keep_from = REVIEW_ALL if review else suggest_below(service)
    batch: list[Conversation] = []
    turns = 0
    for c in conversations(path):
        summary.format = summary.format or c.format
        batch.append(c)
        turns += len(c.turns)
        if turns >= BATCH_TURNS:
            if not _run_batch(service, batch, learned, keep_from, site, summary):
                break
            if progress is not None:
                progress(summary.turns, summary.facts)
            batch, turns = [], 0
            if stop is not None and stop.is_set():
                summary.stopped = "stopped"
                break
    else:
        if batch:
            _run_batch(service, batch, learned, keep_from, site, summary)
            if progress is not None:
                progress(summary.turns, summary.facts)
    return summary


def _run_batch(service: MemoryService, batch: list[Conversation], learned, keep_from: float, site: str | None,
               summary: ImportSummary) -> bool:
    """One batch: extracted outside the transaction, kept and recorded inside it. False when
    the suggestions are full (the user is to review them; the rest waits for the next run)."""
    found = _extract(service, batch, learned, summary)
    return _keep(service, found, keep_from, site, summary) if found else True


def _extract(service: MemoryService, batch: list[Conversation], learned,
             summary: ImportSummary) -> list[tuple[Conversation, list[Candidate]]]:
    """The candidates of each conversation of `batch` not imported before, its sentences
    embedded in one call; the conversations' turns are let go."""
    with service.lock:
        vault = service.vault()  # none yet: nothing was imported (and none is made before a fact is kept)
        done = vault.imported([c.key for c in batch]) if vault is not None else set()
    todo = [c for c in batch if c.key not in done]
    summary.already += len(batch) - len(todo)
    texts = [c.turns for c in todo]
    found = None
    if learned is not None and texts:
        try:
            found = learned.extract_each(texts, MANUAL)
        except Exception:  # noqa: BLE001 - a broken embedding model: the rules still work (as live extraction)
            summary.method = "rules"
    if found is None:
        found = [rule_extract(t, MANUAL) for t in texts]
    for c in todo:
        summary.turns += len(c.turns)
        summary.skipped_turns += c.skipped_turns
        c.turns = []
    return list(zip(todo, found))


def _keep(service: MemoryService, found: list[tuple[Conversation, list[Candidate]]], keep_from: float,
          site: str | None, summary: ImportSummary) -> bool:
    """Kept and the conversations recorded as imported, in one transaction. False when the
    suggestions filled up first (the conversations left are not recorded: a later run reads them)."""
    with service.batch() as vault:
        kept = []
        for c, candidates in found:
            if candidates and vault.count_suggestions() > MAX_WAITING - MANUAL.max_facts:
                summary.stopped = "suggestions_full"
                break
            when = day(c.started_at)
            outcome = keep(service, candidates, site or c.site, keep_from,
                           origin=f"imported {when}" if when else "imported")
            summary.added += outcome.added
            summary.updated += len(outcome.updated)
            summary.unchanged += outcome.unchanged
            summary.suggested += outcome.suggested
            summary.conversations += 1
            kept.append(c.key)
        vault.mark_imported(kept, service.clock())
    return summary.stopped is None


class HistoryUpload:
    """A chat export arriving in chunks (the memory page, `memory.history`): parsed as it
    comes (ExportFeed), each batch of conversations extracted as soon as it is complete, the
    candidates held in RAM, and nothing written until the last chunk: then every fact waits
    as a suggestion (the page always asks), in one transaction. A damaged file or a cancel
    leaves the vault as it was."""

    def __init__(self, name: str, learned):
        self.feed = ExportFeed(name)
        self.learned = learned
        self.summary = ImportSummary(method="classifier" if learned is not None else "rules")
        self.pending: list[Conversation] = []
        self.found: list[tuple[Conversation, list[Candidate]]] = []
        self.read = 0  # user turns read so far

    def add(self, service: MemoryService, chunk: bytes) -> None:
        for c in self.feed.feed(chunk):
            self._queue(service, c)

    def finish(self, service: MemoryService, site: str | None = None) -> ImportSummary:
        for c in self.feed.close():
            self._queue(service, c)
        self._extract_pending(service)
        self.summary.format = self.feed.kind
        if not self.summary.conversations and not self.found and not self.summary.already:
            raise ExportRefused(f"{self.feed.name} holds no conversation with anything the user wrote")
        if self.found:
            _keep(service, self.found, REVIEW_ALL, site, self.summary)
        return self.summary

    @property
    def facts(self) -> int:
        return sum(len(candidates) for _, candidates in self.found)

    def _queue(self, service: MemoryService, c: Conversation) -> None:
        self.pending.append(c)
        self.read += len(c.turns)
        if sum(len(p.turns) for p in self.pending) >= BATCH_TURNS:
            self._extract_pending(service)

    def _extract_pending(self, service: MemoryService) -> None:
        if self.pending:
            self.found += _extract(service, self.pending, self.learned, self.summary)
            self.pending = []
