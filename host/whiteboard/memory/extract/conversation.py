"""Extraction from a tab's conversation: incremental, on opted-in sites only.

The extractor is the configured model if any, else the learned classifier on the bundled
embedding model, else the rules (`Outcome.method` says which ran). Facts at or above the
user's `suggest_below` become memories through ADD / UPDATE / NOOP; the others wait as
suggestions, never recalled or sent until the user accepts them.

What has been looked at is remembered per session key as (session start, last message
seq), in RAM beside the session: the next automatic run reads only newer user turns. A
manual "extract now" rereads the whole conversation with lower thresholds; dedupe turns
what was already kept into NOOPs. Turns are read from the RAM store, where the privacy
filter already ran at capture; injected Whiteboard blocks are stripped before reading.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Callable

from ... import text as T
from ...protocol.errors import BadRequest, Forbidden, NotFound, Unavailable
from ...sites import site_of_key
from ..errors import MemoryChanged
from ..model import Memory, Suggestion, new_memory_id, new_suggestion_id
from ..service import MemoryService, check_text
from ..store.settings import SUGGEST_BELOW
from .candidate import Candidate
from .dedupe import Decision, decide
from .extract import AUTOMATIC, MANUAL, rule_extract
from .schedule import ExtractionScheduler, delay_from_env

log = logging.getLogger("whiteboard.memory.extract.conversation")


@dataclass
class Outcome:
    added: list[Memory] = field(default_factory=list)
    updated: list[Memory] = field(default_factory=list)
    unchanged: int = 0
    method: str = "rules"
    suggested: list[Suggestion] = field(default_factory=list)


class ConversationExtractor:
    def __init__(self, service: MemoryService, sessions, model: Callable[[], Callable | None] | None = None,
                 delay: float | None = None, clock=None, stop: threading.Event | None = None, worker: bool = True,
                 learned: Callable[[], object | None] | None = None):
        """model() gives the configured model's `complete` function or None; learned() the
        classifier.LearnedExtractor or None (no embedding model: the rules run alone)."""
        self.service = service
        self.sessions = sessions
        self._model = model or (lambda: None)
        self._learned = learned or (lambda: None)
        self.progress: dict[str, tuple[float, int]] = {}
        self._lock = threading.Lock()
        kwargs = {"clock": clock} if clock is not None else {}
        self.scheduler = ExtractionScheduler(self._scheduled, delay if delay is not None else delay_from_env(),
                                             stop=stop, worker=worker, **kwargs)

    def note_message(self, key: str, site: str) -> None:
        """A message was captured: restart the quiet-time timer on an opted-in site."""
        if self.service.sites.get(site).memory_on:
            self.scheduler.note(key)

    def _scheduled(self, key: str) -> None:
        self.run(key, manual=False)

    def run(self, key: str, manual: bool) -> Outcome:
        site = site_of_key(key)
        if not self.service.sites.get(site).memory_on:
            if manual:
                raise Forbidden(f"long-term memory is off or paused for {site}; turn it on for this site first")
            return Outcome()
        with self._lock:  # one extraction at a time: the same turns are never read twice at once
            picked = self._new_user_turns(key, from_start=manual)
            if picked is None:
                if manual:
                    raise NotFound("no conversation is captured for that tab")
                return Outcome()
            texts, started_at, through = picked
            thresholds = MANUAL if manual else AUTOMATIC
            candidates, method = self._extract(texts, thresholds, manual) if texts else ([], "rules")
            outcome = self.keep(candidates, site)
            outcome.method = method
            self.progress[key] = (started_at, through)
            self._forget_closed_sessions()
            return outcome

    def _new_user_turns(self, key: str, from_start: bool) -> tuple[list[str], float, int] | None:
        with self.sessions.lock:
            session = self.sessions.get(key)
            if session is None:
                return None
            started_at, last = self.progress.get(key, (session.started_at, 0))
            if from_start or started_at != session.started_at:
                last = 0  # a new conversation under the same key starts over
            turns = {m.seq: m for m in [*session.unfolded, *session.all_messages()]}
            texts = [turns[s].content for s in sorted(turns)
                     if s > last and turns[s].role == "user" and turns[s].source == "chat" and turns[s].learn]
            return texts, session.started_at, session.next_seq - 1

    def _extract(self, texts: list[str], thresholds, manual: bool) -> tuple[list[Candidate], str]:
        complete = self._model()
        if complete is not None:
            from .model_extract import model_extract

            try:
                return model_extract(complete, texts, thresholds), "model"
            except Exception as exc:  # noqa: BLE001 - any model failure: the offline extractors still work
                log.warning("model extraction failed (%s); using the offline extractor", type(exc).__name__)
        learned = self._learned()
        if learned is not None:
            try:
                return learned.extract(texts, thresholds, manual=manual), "classifier"
            except Exception as exc:  # noqa: BLE001 - a broken embedding model: the rules still work
                log.warning("the learned extractor failed (%s); using the rule extractor", type(exc).__name__)
        return rule_extract(texts, thresholds), "rules"

    def keep(self, candidates: list[Candidate], site: str | None) -> Outcome:
        return keep(self.service, candidates, site, suggest_below(self.service))

    def accept(self, suggestion_id: str, text: str | None = None, type_: str | None = None) -> Memory:
        with self._lock:  # not while an extraction decides on the same facts
            return accept(self.service, suggestion_id, text, type_)

    def _forget_closed_sessions(self) -> None:
        for key in list(self.progress):
            if self.sessions.get(key) is None:
                del self.progress[key]


def suggest_below(service: MemoryService) -> float:
    """The user's `suggest_below`: facts under it wait as suggestions."""
    try:
        return service.settings.load().suggest_below
    except Unavailable:  # a damaged memory.json: memory.settings reports it; extraction goes on
        return SUGGEST_BELOW


def keep(service: MemoryService, candidates: list[Candidate], site: str | None, keep_from: float,
         origin: str | None = None) -> Outcome:
    """Sure facts (confidence >= keep_from) go through ADD / UPDATE / NOOP; the less sure
    wait as suggestions (unless a memory already says the same). `origin`: a new memory's or
    suggestion's, when the facts come from elsewhere than a live chat (an import)."""
    decisions = [decide(c, service.index) for c in candidates]
    outcome = apply(service, [d for d in decisions if d.candidate.confidence >= keep_from], site, origin=origin)
    now = service.clock()
    waiting = [Suggestion(new_suggestion_id(), c.type, c.text, c.confidence, now, site, c.tags, c.keywords, origin)
               for d in decisions if (c := d.candidate).confidence < keep_from and d.action != "noop"]
    outcome.suggested = service.suggest(waiting)
    return outcome


def apply(service: MemoryService, decisions: list[Decision], site: str | None, tries: int = 3,
          origin: str | None = None) -> Outcome:
    """ADD and UPDATE go to the vault; NOOP changes nothing. Nothing is ever deleted. An
    UPDATE is made on the revision it was decided on: when another process changed that
    memory meanwhile, the fact is decided again on the memory as it is now (up to `tries`)."""
    outcome = Outcome()
    now = service.clock()
    new, again = [], []
    for d in decisions:
        c = d.candidate
        if d.action == "noop":
            outcome.unchanged += 1
        elif d.action == "update":
            target = d.target
            try:
                outcome.updated.append(service.update(
                    target.id, c.text, rev=target.rev, type=c.type, confidence=max(target.confidence, c.confidence),
                    tags=list(dict.fromkeys(target.tags + c.tags)),
                    keywords=list(dict.fromkeys(c.keywords + target.keywords))[:12]))
            except MemoryChanged:
                again.append(c)
            except (BadRequest, NotFound):  # another memory already says exactly this; deleted meanwhile
                outcome.unchanged += 1
        else:
            new.append(Memory(id=new_memory_id(), type=c.type, text=c.text, created_at=now, updated_at=now,
                              tags=c.tags, keywords=c.keywords, confidence=c.confidence, site=site, origin=origin))
    if new:
        outcome.added = service.store(new)
        outcome.unchanged += len(new) - len(outcome.added)  # stored meanwhile by another process
    if again:
        if tries > 1:
            service.ready()  # the index as the vault is now
            redone = apply(service, [decide(c, service.index) for c in again], site, tries - 1, origin)
            outcome.added += redone.added
            outcome.updated += redone.updated
            outcome.unchanged += redone.unchanged
        else:
            outcome.unchanged += len(again)
    return outcome


def accept(service: MemoryService, suggestion_id: str, text: str | None = None, type_: str | None = None) -> Memory:
    """The user keeps a suggestion (maybe edited): it becomes a memory through the same
    ADD / UPDATE / NOOP as any fact, confirmed (confidence 1). The host and the CLI."""
    s = service.suggestion(suggestion_id)
    if text is not None:
        text = check_text(text)
    keywords = s.keywords if text is None else T.keywords(text)
    candidate = Candidate(type_ or s.type, text or s.text, 1.0, tags=s.tags, keywords=keywords)
    decision = decide(candidate, service.index)
    outcome = apply(service, [decision], s.site, origin=s.origin)
    service.drop_suggestion(suggestion_id, discarded=False)
    if outcome.added or outcome.updated:
        return (outcome.added or outcome.updated)[0]
    if decision.target is not None:
        return decision.target
    return service.add(candidate.text, candidate.type, site=s.site, tags=s.tags)[0]  # stored meanwhile
