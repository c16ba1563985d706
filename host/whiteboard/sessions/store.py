"""The RAM store: a dict of sessions in this process, nothing else (design §4).

No file, database, cache or log ever holds message content. Limits: messages and bytes
per session (the seed survives the caps), number of sessions (oldest evicted), TTL.
RAM per session stays bounded at all times: the kept messages are within
`max_session_bytes`, the messages the caps dropped wait for the summary only until they
reach the same bounds (then the store's `fold` folds them at once), and the pending
selections are a subset of the kept messages.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Literal

from ..config import Limits

Role = Literal["user", "assistant"]
Source = Literal["chat", "selection"]


@dataclass(slots=True)
class Message:
    seq: int
    role: Role
    content: str
    timestamp: float
    source: Source = "chat"
    size: int = field(init=False, default=0)  # UTF-8 bytes of content, for the session's byte cap
    # Exact token cost of this message's rendered forms, keyed by form ("full", "past", "seed").
    costs: dict[str, int] = field(default_factory=dict)
    # Kinds the privacy filter removed at capture (never the removed text): for vBRIEF redactionInfo.
    redacted: tuple[str, ...] = ()
    # Whether long-term memory may learn from it: false for what was on the page before the
    # user's first send there, and for anything on a shared conversation's page (chat.attach).
    learn: bool = True

    def __post_init__(self) -> None:
        self.size = len(self.content.encode("utf-8", "surrogatepass"))


@dataclass
class Session:
    key: str
    started_at: float
    messages: list[Message] = field(default_factory=list)
    seed: Message | None = None
    # Messages the cap dropped that are not yet folded into the summary.
    unfolded: list[Message] = field(default_factory=list)
    kept_bytes: int = 0  # sizes of `messages`
    unfolded_bytes: int = 0  # sizes of `unfolded`
    summary: str = ""
    summary_method: str = "none"
    # Highest seq already folded into the summary: folding is incremental.
    folded_through: int = 0
    next_seq: int = 1
    # Selections captured since the last send, waiting to be injected (chat.prepare_send).
    pending_selections: list[Message] = field(default_factory=list)
    # The model's summaries of single messages for vBRIEF export, by (sha256 of model and
    # text, token target): exporting again (each popup open) asks the model only about what is new.
    export_summaries: dict[tuple[bytes, int], str] = field(default_factory=dict)
    # The context builder's last fit of the summary: (summary, token cap, exact counts?, lines kept).
    summary_fit: tuple[str, int, bool, str] = ("", 0, False, "")
    # The middle messages as sessions/relevance.py read them (their words' stems, by passage),
    # by seq: a context for a query reads each message once. Only those still in the middle.
    read: dict = field(default_factory=dict)
    # What the session was like when actions/session.py last found nothing to fold for a
    # budget: a context for a query built then need not build one without it first.
    fold_checked: tuple = ()

    @property
    def count(self) -> int:
        return len(self.messages)

    def all_messages(self) -> list[Message]:
        """The seed (even when the cap dropped it) followed by the kept messages."""
        if self.seed is not None and (not self.messages or self.messages[0].seq != self.seed.seq):
            return [self.seed, *self.messages]
        return list(self.messages)


class SessionStore:
    def __init__(self, limits: Limits, clock: Callable[[], float] = time.time):
        self.limits = limits
        self._clock = clock
        # Folds a session's `unfolded` messages into its summary (set by the app, which has
        # the summarizer); called when they reach the caps, so they cannot pile up in RAM.
        self.fold: Callable[[Session], None] | None = None
        self._sessions: dict[str, Session] = {}
        self.lock = threading.RLock()

    def get(self, key: str) -> Session | None:
        with self.lock:
            session = self._sessions.get(key)
            if session is not None and self._expired(session):
                del self._sessions[key]
                return None
            return session

    def get_or_create(self, key: str) -> Session:
        with self.lock:
            session = self.get(key)
            if session is None:
                self.cleanup()
                while len(self._sessions) >= self.limits.max_sessions:
                    oldest = min(self._sessions.values(), key=lambda s: s.started_at)
                    del self._sessions[oldest.key]
                session = Session(key=key, started_at=self._clock())
                self._sessions[key] = session
            return session

    def add(self, key: str, role: Role, content: str, source: Source = "chat",
            redacted: tuple[str, ...] = (), learn: bool = True) -> Session:
        with self.lock:
            session = self.get_or_create(key)
            message = Message(session.next_seq, role, content, self._clock(), source, redacted=tuple(redacted),
                              learn=learn)
            session.next_seq += 1
            if session.seed is None:
                session.seed = message
            session.messages.append(message)
            session.kept_bytes += message.size
            if source == "selection":
                # Injected with the tab's next send (chat.prepare_send), then cleared.
                session.pending_selections.append(message)
            self.enforce_caps(session)
            return session

    def enforce_caps(self, session: Session) -> None:
        """Drop the oldest messages past the count or byte cap (the newest always stays)."""
        limits = self.limits
        dropped = 0
        while len(session.messages) - dropped > 1 and (
                len(session.messages) - dropped > limits.max_messages or session.kept_bytes > limits.max_session_bytes):
            session.kept_bytes -= session.messages[dropped].size
            dropped += 1
        if not dropped:
            return
        gone, session.messages = session.messages[:dropped], session.messages[dropped:]
        oldest_kept = session.messages[0].seq
        session.pending_selections = [m for m in session.pending_selections if m.seq >= oldest_kept]
        for m in gone:
            if m.seq != session.seed.seq:
                session.unfolded.append(m)
                session.unfolded_bytes += m.size
        if self.fold is not None and (len(session.unfolded) > limits.max_messages
                                      or session.unfolded_bytes > limits.max_session_bytes):
            self.fold(session)

    def clear(self, key: str) -> bool:
        with self.lock:
            return self._sessions.pop(key, None) is not None

    def clear_all(self) -> int:
        with self.lock:
            n = len(self._sessions)
            self._sessions.clear()
            return n

    def list(self) -> list[Session]:
        with self.lock:
            self.cleanup()
            return sorted(self._sessions.values(), key=lambda s: s.started_at)

    def cleanup(self) -> int:
        """Drop sessions past their TTL; returns how many went."""
        with self.lock:
            expired = [k for k, s in self._sessions.items() if self._expired(s)]
            for k in expired:
                del self._sessions[k]
            return len(expired)

    def _expired(self, session: Session) -> bool:
        return self._clock() - session.started_at >= self.limits.ttl_seconds

    def __len__(self) -> int:
        return len(self._sessions)


def start_cleanup_timer(store: SessionStore, stop: threading.Event) -> threading.Thread:
    """Runs store.cleanup every cleanup_interval seconds until stop is set."""

    def loop() -> None:
        while not stop.wait(store.limits.cleanup_interval):
            store.cleanup()

    thread = threading.Thread(target=loop, name="session-cleanup", daemon=True)
    thread.start()
    return thread
