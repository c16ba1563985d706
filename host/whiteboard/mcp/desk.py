"""What the MCP tools do, without the SDK: the vault's answers as the text a desktop app
shows its model (docs/mcp.md). One `Desk` per server process; its memory service opens on
the first call that needs it, so `initialize` loads neither the vault nor a model.

Every call first reads the switch (`whiteboard mcp enable`, Options' "Desktop apps (MCP)"):
while it is off, a call answers OFF_TEXT and touches no memory. Nothing here logs or keeps
a query or a memory's text.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Callable

from ..memory.errors import MemoryBusy
from ..memory.model import MEMORY_TYPES, Memory, Suggestion, new_suggestion_id
from ..privacy import redact
from ..protocol.errors import BadRequest

if TYPE_CHECKING:
    from ..memory.service import MemoryService

OFF_TEXT = ("Whiteboard's memory is off for desktop apps, so no memory was read or saved. The user can turn it "
            "on with `whiteboard mcp enable` or the \"Desktop apps (MCP)\" switch in Whiteboard's Options.")
BUSY_TEXT = "Whiteboard's memory is busy (an import, a wipe or the vault opening); try again in a moment."
# How long a call waits for the memory service (another call of this server, or the vault
# opening while another process writes it) before it answers BUSY_TEXT.
BUSY_WAIT = 2.0
# The first search waits this long for the meanings to be ready (the embedding model loading,
# the stored vectors read); after it, recall uses what is ready, full text at least.
FIRST_SEARCH_WAIT = 20.0
# A search waits this long for its query's meaning (a send waits 30 ms, then goes by words).
QUERY_WAIT = 2.0
SEARCH_LIMIT, SEARCH_MAX = 5, 20
LIST_LIMIT, LIST_MAX = 50, 200
# An app's "remember" is a suggestion the user has not seen yet: shown as this confidence.
APP_CONFIDENCE = 0.5
# The pinned memories' resource and prompt.
PINNED_URI = "whiteboard://memories/pinned"
# A memory's origin ("suggested by <app>") is at most this long: an export's origin field
# (memory/store/transfer.py) takes no more, or the export would not import.
MAX_ORIGIN = 40


class Busy(Exception):
    """The memory service stayed held past BUSY_WAIT: the caller answers BUSY_TEXT."""


class Desk:
    def __init__(self, open_service: Callable[[], MemoryService] | None = None,
                 clock: Callable[[], float] = time.time):
        self._open_service = open_service or _open_service
        self._service: MemoryService | None = None
        self._service_lock = threading.Lock()
        self._tokens = None
        self._apps = None
        self._meanings_waited = False
        self.clock = clock
        self.client = "unnamed app"  # the name the app gave at initialize

    # ---- the switch and the apps ----------------------------------------------------------

    def service(self) -> MemoryService:
        with self._service_lock:
            if self._service is None:
                self._service = self._open_service()
            return self._service

    def apps(self):
        """The switch and the apps' names (read without opening the vault)."""
        if self._apps is None:
            from ..memory import hub

            self._apps = hub.desktop_apps()
        return self._apps

    def enabled(self) -> bool:
        return self.apps().load().enabled

    def greeted(self, client: str) -> None:
        """The app introduced itself (initialize): `whiteboard mcp status` and the memory page list it."""
        self.client = client
        self.apps().saw(client, None)

    def _read(self) -> None:
        self.apps().saw(self.client, self.clock())

    # ---- the tools ------------------------------------------------------------------------

    def search(self, query: str, limit: int = SEARCH_LIMIT) -> str:
        if not self.enabled():
            return OFF_TEXT
        if not isinstance(query, str) or not query.strip():
            raise BadRequest("query: give some words to search for")
        limit = _bounded("limit", limit, SEARCH_MAX)
        service = self.service()
        with _held(service):
            ready = service.ready()
        if ready and not self._meanings_waited and service.meanings is not None:
            # Once per process, outside the service's lock (the indexer takes it).
            service.meanings.wait_idle(FIRST_SEARCH_WAIT)
            self._meanings_waited = True
        if ready:
            service.prepare_recall(query, QUERY_WAIT)
        with _held(service):
            result = service.recall(self.tokens(), query, limit)
        self._read()
        found = list(result.memories)
        head = f"{len(found)} memories found (by {'meaning and words' if result.method == 'hybrid' else 'words'})."
        if result.note:
            head += f" Note: {result.note}"
        return "\n".join([head, *(line(m) for m in found)]) if found else "No memory matches."

    def list(self, type_: str | None = None, site: str | None = None, pinned: bool | None = None,
             limit: int = LIST_LIMIT, offset: int = 0) -> str:
        if not self.enabled():
            return OFF_TEXT
        if type_ is not None and type_ not in MEMORY_TYPES:
            raise BadRequest(f"type: must be one of {', '.join(MEMORY_TYPES)}")
        limit = _bounded("limit", limit, LIST_MAX)
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            raise BadRequest("offset: a whole number from 0")
        service = self.service()
        with _held(service):
            memories = service.list(type_, site.strip().lower() if site else None)
        if pinned is not None:
            memories = [m for m in memories if m.pinned == pinned]
        self._read()
        page = memories[offset:offset + limit]
        if not page:
            return "No memories." if not memories else f"No memories from {offset} on ({len(memories)} in all)."
        more = f"; more from offset {offset + limit}" if offset + limit < len(memories) else ""
        return "\n".join([f"{len(memories)} memories, newest first{more}.", *(line(m) for m in page)])

    def remember(self, text: str, type_: str = "context") -> str:
        if not self.enabled():
            return OFF_TEXT
        if type_ not in MEMORY_TYPES:
            raise BadRequest(f"type: must be one of {', '.join(MEMORY_TYPES)}")
        if not isinstance(text, str):
            raise BadRequest("text: the fact to remember, as text")
        from .. import text as T
        from ..memory.service import check_text

        clean = check_text(redact(text).text)
        suggestion = Suggestion(id=new_suggestion_id(), type=type_, text=clean, confidence=APP_CONFIDENCE,
                                created_at=self.clock(), keywords=T.keywords(clean),
                                origin=f"suggested by {self.client}"[:MAX_ORIGIN])
        service = self.service()
        with _held(service):
            stored = service.suggest([suggestion])
        if not stored:
            return ("Not saved: the user already has this waiting as a suggestion, or discarded it before. "
                    "It is not a memory.")
        return (f"Saved as suggestion {suggestion.id}, not as a memory: it waits for the user to accept it on "
                f"Whiteboard's memory page or with `whiteboard memories accept {suggestion.id}`. Until then it is "
                "not recalled or sent anywhere.")

    def pinned(self) -> str:
        """The pinned memories, as the text an app attaches to a chat."""
        if not self.enabled():
            return OFF_TEXT
        service = self.service()
        with _held(service):
            memories = service.pinned()
        self._read()
        if not memories:
            return "The user has pinned no memories."
        return "\n".join(["What the user asked to be remembered in every chat (pinned memories):",
                          *(f"- {' '.join(m.text.split())}" for m in memories)])

    def tokens(self):
        if self._tokens is None:
            from ..tokens import TokenCounter

            self._tokens = TokenCounter().load_now()
        return self._tokens

    def close(self) -> None:
        with self._service_lock:
            if self._service is not None:
                self._service.close()


def line(m: Memory) -> str:
    """One memory as a tool's result shows it: id, type, date, text, site, pinned."""
    day = time.strftime("%Y-%m-%d", time.localtime(m.updated_at))
    site = f"  (from {m.site})" if m.site else ""
    pin = "  [pinned]" if m.pinned else ""
    return f"- {m.id}  {m.type}  {day}  {' '.join(m.text.split())}{site}{pin}"


class _held:
    """The service held for one step of a call, waited for at most BUSY_WAIT."""

    def __init__(self, service: MemoryService):
        self._turn = service.turn(wait=BUSY_WAIT)

    def __enter__(self):
        try:
            return self._turn.__enter__()
        except MemoryBusy:
            raise Busy() from None

    def __exit__(self, *exc):
        return self._turn.__exit__(*exc)


def _bounded(name: str, value: object, most: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
        raise BadRequest(f"{name}: a whole number from 1 to {most}")
    return value


def _open_service() -> MemoryService:
    from ..memory import hub
    from ..memory.service import MemoryService

    return MemoryService(embedder=hub.load_embedder)

