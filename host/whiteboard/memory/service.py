"""The memory service: one vault, its RAM index, usage and settings, shared by the host's
actions, the chat flow (hub.py) and the CLI. With hub.py it is the memory package's one
face: what the actions and the CLI ask of memory (search, recall, a send's memories, a
draft's meaning, export and import) are its methods; the parts below it are its own.

The vault opens on first use. Until a memory is written nothing is created on disk. A
key that is missing or wrong makes every memory call fail with that reason (and retry
on the next call, so restoring the key file needs no restart); the host serves on.
Before each read the service asks SQLite whether another process changed the file
(PRAGMA data_version) and reloads just the rows whose revision moved.
"""

from __future__ import annotations

import heapq
import logging
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

from .. import text as T
from ..privacy import REDACTED
from ..protocol.errors import BadRequest, NotFound, WhiteboardError
from ..settings_store import default_paths
from ..sites import SiteStore
from .errors import MemoryBusy, MemoryChanged, MemoryDamaged, RowRejected
from .meaning.vectors import MeaningIndexer
from .model import MAX_TEXT_CHARS, MEMORY_TYPES, Damaged, Memory, Suggestion, new_memory_id
from .recall import recall as recalling
from .recall.index import MemoryIndex
from .store.desktop import DesktopAppsStore
from .store.settings import MemorySettingsStore
from .store.usage import UsageRecorder
from .store.vault import DuplicateText, RevisionConflict, Vault, vault_exists

if TYPE_CHECKING:
    from ..tokens import TokenCounter

log = logging.getLogger("whiteboard.memory")
# How long a send (its preview, a draft's meaning) waits for the service: longer than a write
# of usage counts or an extracted memory takes, far shorter than an import, a wipe or opening a
# large vault, which hold it for seconds: the send then goes on without memories.
MEMORY_WAIT = 0.1


class MemoryService:
    def __init__(self, vault_path: Path | None = None, key_path: Path | None = None, sites: SiteStore | None = None,
                 clock: Callable[[], float] = time.time, embedder: Callable[[], object | None] | None = None,
                 settings: MemorySettingsStore | None = None):
        default_vault, default_key = default_paths()
        self.vault_path, self.key_path = vault_path or default_vault, key_path or default_key
        self.sites = sites or SiteStore()
        self.settings = settings or MemorySettingsStore(self.sites.directory)
        # Whether desktop apps may read memories over MCP, and which did (docs/mcp.md).
        self.desktop_apps = DesktopAppsStore(self.sites.directory)
        self.clock = clock
        self.index = MemoryIndex()
        self.damaged: dict[str, Damaged] = {}
        self.usage = UsageRecorder(self._write_usage, clock)
        self.lock = threading.RLock()
        self._vault: Vault | None = None
        self._data_version: int | None = None
        self.extractor = None  # conversation.ConversationExtractor, in the host process
        # In the host process: gives the configured model's `complete(messages)` for a draft's
        # rewrite (meaning/rewrite.py), or None when no model is configured.
        self.rewrite_model: Callable[[], Callable[[list[dict]], str] | None] | None = None
        # Meanings (vectors) of the memories, when given a way to load an embedding model.
        self.meanings = MeaningIndexer(self, embedder) if embedder is not None else None

    # ---- the vault and its index -------------------------------------------------------

    def vault(self, create: bool = False) -> Vault | None:
        """The open vault (opening it on first use); None when there is none and create is False."""
        with self.lock:
            if self._vault is None:
                if not create and not vault_exists(self.vault_path):
                    return None
                self._vault = Vault.open(self.vault_path, self.key_path)
                self._reload_all()
            else:
                self._refresh()
            return self._vault

    def ready(self) -> bool:
        """Open (if there is a vault) and up to date; False when there is no vault yet."""
        return self.vault() is not None

    def _reload_all(self) -> None:
        # The version first: a commit by another process during the load is then seen as a change.
        self._data_version = self._vault.data_version()
        memories, damaged = self._vault.load()
        self._vault.fill_text_keys(memories)
        self.index.clear()
        self.index.put(memories)
        self.damaged = {d.memory_id: d for d in damaged}
        for d in damaged:
            log.error("memory %s cannot be read: %s", d.memory_id, d.problem)
        if self.meanings is not None:
            self.meanings.reset()

    def _refresh(self) -> None:
        version = self._vault.data_version()
        if version == self._data_version:
            return
        self._data_version = version
        revisions = self._vault.revisions()
        indexed = {m.id: m.rev for m in self.index.memories.values()}
        gone = [i for i in indexed if i not in revisions]
        gone += [i for i in self.damaged if i not in revisions]
        changed = [i for i, rev in revisions.items() if indexed.get(i) != rev]
        self.index.remove(gone)
        for i in gone:
            self.damaged.pop(i, None)
        if changed:
            memories, damaged = self._vault.load(changed)
            self.index.remove([d.memory_id for d in damaged])
            self.index.put(memories)
            for m in memories:
                self.damaged.pop(m.id, None)
            self.damaged.update({d.memory_id: d for d in damaged})
        if gone or changed:
            self._meanings_changed()

    def refresh_from_vault(self) -> None:
        """Bring the index up to date after writes made on the vault itself (sync's merge):
        the rows whose revision moved are read again."""
        with self.lock:
            if self._vault is not None:
                self._data_version = None
                self._refresh()

    # ---- reading ------------------------------------------------------------------------

    def get(self, memory_id: str) -> Memory:
        with self.lock:
            self.vault()
            if memory_id in self.damaged:
                raise MemoryDamaged(memory_id, self.damaged[memory_id].problem)
            memory = self.index.memories.get(memory_id)
            if memory is None:
                raise NotFound(f"no memory {memory_id}")
            return memory

    def list(self, type_: str | None = None, site: str | None = None) -> list[Memory]:
        """Newest first."""
        with self.lock:
            self.vault()
            memories = [m for m in self.index.memories.values()
                        if (type_ is None or m.type == type_) and (site is None or m.site == site)]
        return sorted(memories, key=lambda m: (-m.updated_at, m.id))

    def pinned(self, limit: int | None = None) -> list[Memory]:
        """Pinned memories, in the order they were pinned (the first pinned go first); the
        first `limit` of them only, when given (a send's: it never sorts them all)."""
        with self.lock:
            self.vault()
            memories = list(self.index.pinned.values())
        order = lambda m: (m.pinned_at, m.id)  # noqa: E731
        return sorted(memories, key=order) if limit is None else heapq.nsmallest(limit, memories, key=order)

    def damaged_rows(self) -> list[Damaged]:
        with self.lock:
            self.vault()
            return sorted(self.damaged.values(), key=lambda d: d.memory_id)

    # ---- writing ------------------------------------------------------------------------

    def add(self, text: str, type_: str, site: str | None = None, tags: Iterable[str] = (),
            keywords: Iterable[str] | None = None, confidence: float = 1.0) -> tuple[Memory, bool]:
        """Store a memory; an exact duplicate of an existing one is not stored twice.
        Returns (memory, created). The text must already be privacy-filtered."""
        text = check_text(text)
        check_type(type_)
        with self.lock:
            vault = self.vault(create=True)
            twin = next((h.memory for h in self.index.search(text, limit=10)
                         if T.normalized(h.memory.text) == T.normalized(text)), None)
            if twin is not None:
                return twin, False
            now = self.clock()
            memory = Memory(id=new_memory_id(), type=type_, text=text, created_at=now, updated_at=now,
                            tags=T.clean_words(tags), confidence=confidence, site=site,
                            keywords=T.clean_words(keywords) if keywords is not None else T.keywords(text))
            if self.store([memory]):
                return memory, True
            # Another process (a second browser's host, the CLI) stored this text a moment ago.
            return self.get(vault.find_text(text) or memory.id), False

    def store(self, memories: list[Memory]) -> list[Memory]:
        """Insert new memories as they are (one transaction) and index them; returns those
        stored (one whose text the vault already has is skipped, see Vault.insert)."""
        with self.lock:
            stored = self.vault(create=True).insert(memories)
            self.index.put(stored)
            self._meanings_changed()
            return stored

    @contextmanager
    def batch(self) -> Iterator[Vault]:
        """Many writes as one vault transaction (an import): all are committed at the end or
        none. Inside it this process holds SQLite's write lock, and the index is brought up to
        date first, so decisions made inside see what is in the file. When it fails, the index
        (which may hold what was rolled back) is dropped and read again on the next use."""
        with self.lock:
            vault = self.vault(create=True)
            try:
                with vault.batch():
                    self._refresh()
                    yield vault
            except BaseException:
                self._vault = None
                vault.close()
                raise

    def update(self, memory_id: str, text: str | None = None, pinned: bool | None = None, rev: int | None = None,
               **fields) -> Memory:
        """New text (the old one kept for undo) and/or type, tags, keywords, confidence, pin,
        applied to the memory as it is in the vault now (another process may have changed
        it since this one read it). rev: the revision the caller's change was based on;
        MemoryChanged when the memory has moved on since. BadRequest naming the other memory
        when the new text is one it already has."""
        if text is not None:
            text = check_text(text)
            fields.setdefault("keywords", T.keywords(text))
        if fields.get("type") is not None:
            check_type(fields["type"])
        with self.lock:
            self.get(memory_id)  # not_found, or the damaged row named
            try:
                updated = self._vault.update(memory_id, self.clock(), text, pinned=pinned, expected_rev=rev,
                                             **fields)
            except KeyError:
                self.index.remove([memory_id])
                raise NotFound(f"no memory {memory_id}") from None
            except DuplicateText as exc:
                raise BadRequest(f"text: memory {exc.memory_id} already says this") from None
            except RevisionConflict as exc:
                raise MemoryChanged(memory_id, exc.expected_rev) from None
            self.index.put([updated])
            self._meanings_changed()
            return updated

    def delete(self, memory_id: str, rev: int | None = None) -> None:
        """The user's act only: nothing else in Whiteboard ever deletes a memory. rev: the
        revision the user saw; MemoryChanged when the memory has moved on since."""
        with self.lock:
            vault = self.vault()
            try:
                deleted = vault is not None and vault.delete(memory_id, expected_rev=rev)
            except RevisionConflict as exc:
                raise MemoryChanged(memory_id, exc.expected_rev) from None
            if not deleted:
                raise NotFound(f"no memory {memory_id}")
            self.index.remove([memory_id])
            self.damaged.pop(memory_id, None)
            self._meanings_changed()

    def wipe(self) -> int:
        with self.lock:
            vault = self.vault()
            if vault is None:
                return 0
            n = vault.wipe()
            self.index.clear()
            self.damaged.clear()
            self._data_version = vault.data_version()
            self._meanings_changed()
            return n

    # ---- search, recall and a send's memories -------------------------------------------

    @contextmanager
    def turn(self, wait: float = MEMORY_WAIT) -> Iterator[MemoryService]:
        """The service held for one send's recall, waited for at most `wait` seconds:
        MemoryBusy if another thread holds it longer. Everything that changes the vault or its
        index holds the same lock, so nothing inside waits on another."""
        if not self.lock.acquire(timeout=wait):
            raise MemoryBusy()
        try:
            yield self
        finally:
            self.lock.release()

    def search(self, query: str, limit: int) -> list[Memory]:
        """Memories whose words match `query`, best first (the memory page's and the CLI's search)."""
        self.ready()
        return [h.memory for h in self.index.search(query, limit=limit)]

    def recall(self, tokens: TokenCounter, query: str, limit: int) -> recalling.RecallResult:
        """The memories recall picks for `query`, and their block (memory.recall): a search
        or a preview, so no use is counted."""
        return recalling.recall(self, tokens, query, limit)

    def prepare_recall(self, query: str, wait: float) -> None:
        """Embed `query` as recall will read it, waiting up to `wait` seconds outside the
        service's lock, so a recall of it right after compares meanings even when the model
        is slower than a send's deadline (an MCP search can wait; a send cannot)."""
        if self.meanings is not None:
            self.meanings.prepare_query(recalling.draft_query(query), wait)

    def for_send(self, tokens: TokenCounter, draft: str, room: int | None = None,
                 key: str | None = None) -> recalling.RecallResult:
        """What a send of `draft` carries (recall.send_memories: the pinned memories within the
        stored cap, then those recalled, all within `room`); `key`, the tab whose draft may be
        embedded already. MemoryBusy when the service stays held past MEMORY_WAIT."""
        settings = self.settings.load()
        with self.turn():
            return recalling.send_memories(self, tokens, draft, settings.pinned_tokens, room, key,
                                           rewrite=settings.rewrite_drafts)

    def pinned_left_out(self, tokens: TokenCounter) -> tuple[int, list[Memory]]:
        """The pinned memories' token cap, and the pinned memories that do not fit it (never sent)."""
        cap = self.settings.load().pinned_tokens
        pinned = self.pinned()
        sent = {m.id for m in recalling.fit_pinned(pinned, tokens, cap)}
        return cap, [m for m in pinned if m.id not in sent]

    def offer_draft(self, key: str, draft: str) -> tuple[str, str]:
        """chat.draft's states for the tab's draft as typing pauses, its meaning's and its
        rewrite's: "empty" (nothing is left once blocks and secrets go; the tab's vector and
        rewrite go too), "busy" (the vault stayed held past MEMORY_WAIT: the worker does not
        wait for an import or a wipe), "off" (recall would not compare meanings; for the
        rewrite also: the user's switch off or no model configured), else what the drafts' own
        threads do with it (meaning/drafts.py)."""
        text = recalling.draft_query(draft)
        if not text.replace(REDACTED, "").strip():
            self.forget_draft(key)
            return "empty", "empty"
        meanings = self.meanings
        embedder = meanings.embedder if meanings is not None else None
        try:
            with self.turn():
                ready = self.ready()
        except MemoryBusy:
            return "busy", "busy"
        if embedder is None or not ready or not len(meanings.vectors):
            return "off", "off"
        state = meanings.drafts.offer(key, text, embedder.model_id)
        if self.draft_model() is None:
            return state, "off"
        return state, meanings.rewrites.offer(key, text, embedder.model_id)

    def draft_model(self) -> Callable[[list[dict]], str] | None:
        """The configured model's `complete(messages)` for rewriting drafts, or None: the
        user's switch (`rewrite_drafts`) is off, no model is configured, or the settings
        cannot be read."""
        if self.rewrite_model is None:
            return None
        try:
            if not self.settings.load().rewrite_drafts:
                return None
            return self.rewrite_model()
        except WhiteboardError:
            return None

    def rewrite_search(self, vector) -> tuple[str, ...]:
        """The memories a draft's rewrite finds (its phrases' vector), searched as a draft's
        vector is, on the rewrites' thread when the rewrite arrives: ids, best first."""
        return recalling.near_ids(self, vector)

    def forget_draft(self, key: str | None = None) -> None:
        """Drop the vector and the rewrite of the tab's draft (every tab's when `key` is None):
        it was sent, or the tab closed or left its site, or nothing is left of it."""
        if self.meanings is not None:
            for held in (self.meanings.drafts, self.meanings.rewrites):
                if key is None:
                    held.clear()
                else:
                    held.drop(key)

    def forget_rewrites(self) -> None:
        """The user turned the rewrite of drafts off: every tab's rewrite goes at once."""
        if self.meanings is not None:
            self.meanings.rewrites.clear()

    # ---- export and import (the document: store/transfer.py, loaded when first used) --------

    def export(self, memories: list[Memory] | None = None) -> dict:
        """The export document of `memories`; of every memory, oldest first, by default."""
        from .store import transfer

        return transfer.document(self._oldest_first() if memories is None else memories)

    def export_page(self, offset: int) -> tuple[dict, int, int | None]:
        """The export document's page from `offset` (a message to the browser is at most
        1 MiB), how many memories there are, and the next page's offset (None: the last)."""
        from .store import transfer

        memories = self._oldest_first()
        document, next_offset = transfer.page(memories, offset)
        return document, len(memories), next_offset

    def read_export(self, raw: object) -> list[Memory]:
        """An export document checked whole, nothing stored: BadRequest naming the first problem."""
        from .store import transfer

        return transfer.parse(raw)

    def import_memories(self, memories: list[Memory], progress: Callable[[int], None] | None = None,
                        chunk: int = 500) -> tuple[int, int, int]:
        """(added, updated, unchanged), all in one transaction: every entry is stored or, on an
        error or a crash at any point, none. New ones are inserted `chunk` at a time within it.
        (Here, not in store/transfer.py beside the document: the store knows nothing above it.)"""
        added = updated = unchanged = 0
        tick = progress or (lambda n: None)
        with self.batch():
            known = {T.normalized(m.text) for m in self.index.memories.values()}
            fresh: list[tuple[int, Memory]] = []
            for i, m in enumerate(memories):
                existing = self.index.memories.get(m.id)
                if existing is not None:
                    if T.normalized(m.text) in known:  # this memory's text, or another's already
                        if m.pinned != existing.pinned:
                            self.update(m.id, pinned=m.pinned)
                            updated += 1
                        else:
                            unchanged += 1
                    else:
                        self.update(m.id, m.text, pinned=m.pinned)
                        known.add(T.normalized(m.text))
                        updated += 1
                    tick(1)
                elif T.normalized(m.text) in known:
                    unchanged += 1
                    tick(1)
                else:
                    if m.id in self.damaged:
                        m.id = new_memory_id()  # the unreadable row stays as it is
                    known.add(T.normalized(m.text))
                    fresh.append((i, m))
            for start in range(0, len(fresh), chunk):
                part = fresh[start:start + chunk]
                try:
                    stored = len(self.store([m for _, m in part]))
                except RowRejected as exc:
                    raise BadRequest(f"document.memories.{part[exc.position][0]}: cannot be stored "
                                     f"({exc.problem}); nothing was imported") from None
                added += stored
                unchanged += len(part) - stored  # already kept under another id (a row from before text keys)
                tick(len(part))
        return added, updated, unchanged

    def _oldest_first(self) -> list[Memory]:
        return sorted(self.list(), key=lambda m: (m.created_at, m.id))

    # ---- suggestions (never in the index: never recalled, sent or pinned) ------------------

    def suggest(self, items: list[Suggestion]) -> list[Suggestion]:
        """Store suggestions; returns those stored (see Vault.put_suggestions)."""
        with self.lock:
            return self.vault(create=True).put_suggestions(items) if items else []

    def suggestions(self) -> tuple[list[Suggestion], list[Damaged]]:
        """The waiting suggestions, oldest first, and those that do not open."""
        with self.lock:
            vault = self.vault()
            return vault.load_suggestions() if vault is not None else ([], [])

    def suggestion_count(self) -> int:
        with self.lock:
            vault = self.vault()
            return vault.count_suggestions() if vault is not None else 0

    def suggestion(self, suggestion_id: str) -> Suggestion:
        with self.lock:
            vault = self.vault()
            found = vault.load_suggestions(suggestion_id)[0] if vault is not None else []
        if not found:
            raise NotFound(f"no waiting suggestion {suggestion_id}")
        return found[0]

    def drop_suggestion(self, suggestion_id: str, discarded: bool) -> None:
        """Accepted (it is a memory now) or discarded (never suggested again)."""
        with self.lock:
            vault = self.vault()
            if vault is None or not vault.drop_suggestion(suggestion_id, self.clock() if discarded else None):
                raise NotFound(f"no waiting suggestion {suggestion_id}")

    def _write_usage(self, memory_ids: list[str], when: float) -> None:
        with self.lock:
            vault = self.vault()
            if vault is None:
                return
            vault.record_usage(memory_ids, when)
            for memory_id in memory_ids:
                memory = self.index.memories.get(memory_id)
                if memory is not None:
                    memory.usage_count += 1
                    memory.last_used_at = when

    def _meanings_changed(self) -> None:
        if self.meanings is not None:
            self.meanings.wake()

    def close(self) -> None:
        self.usage.flush()
        if self.meanings is not None:
            self.meanings.stop()
        with self.lock:
            if self._vault is not None:
                self._vault.close()
                self._vault = None


def check_text(text: str) -> str:
    text = text.strip()
    if not text:
        raise BadRequest("text: a memory needs some text (after secrets and <private> spans are removed)")
    if len(text) > MAX_TEXT_CHARS:
        raise BadRequest(f"text: at most {MAX_TEXT_CHARS} characters")
    return text


def check_type(type_: str) -> None:
    if type_ not in MEMORY_TYPES:
        raise BadRequest(f"type: must be one of {', '.join(MEMORY_TYPES)}")
