"""The memory package's face for the host and the CLI, with service.py: one memory service
per host process (created on first use, its extraction scheduler wired to the App's
sessions and the embedding model), the chat flow's calls into it, and what only the layers
above the service know (accepting a suggestion goes through extraction's decisions; which
embedding model recall uses; memory's files on disk).

Nothing here loads memory's code until it is called: a host whose user never turns
long-term memory on imports none of it (design §1).
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the service and its extractors load numpy and the vault: only when memory is used
    from pathlib import Path

    from .model import Memory
    from .recall.recall import RecallResult
    from .service import MemoryService

_lock = threading.Lock()
log = logging.getLogger("whiteboard.memory")


def embedding_endpoint():
    """(config, None, None) when WHITEBOARD_EMBED_MODEL names an /v1/embeddings endpoint, which
    then replaces the bundled model for recall; (None, problem, fix) when it is set but cannot
    be used, and the bundled model is used instead; (None, None, None) when it is not set."""
    if not os.environ.get("WHITEBOARD_EMBED_MODEL"):  # the endpoint's client (httpx) loads only when named
        return None, None, None
    from .meaning.embed import ENV_BASE_URL, ENV_MODEL, config_from_env

    config = config_from_env()
    if config is None:
        return (None, f"{ENV_MODEL} is set but no embeddings base URL is known",
                f"Set {ENV_BASE_URL} (or configure a chat model with a base URL), or unset {ENV_MODEL}")
    return config, None, None


def bundled_embedder():
    """(the bundled embedding model, None), or (None, why it does not load)."""
    from .meaning import embedder

    model = embedder.local_embedder()
    return model, (embedder.load_error if model is None else None)


def load_embedder():
    """The /v1/embeddings endpoint when one is configured (it replaces the bundled model),
    else the bundled model; None when neither is there. Runs on the indexer's thread."""
    config, problem, _ = embedding_endpoint()
    if config is not None:
        from .meaning.embed import RemoteEmbedder

        return RemoteEmbedder(config)
    if problem is not None:
        log.warning("%s: the bundled model is used", problem)
    return bundled_embedder()[0]


def service_for(app) -> MemoryService:
    with _lock:
        service = app.__dict__.get("_memory_service")
        if service is None:
            from .extract.classifier import learned_loader
            from .extract.conversation import ConversationExtractor
            from .extract.model_extract import model_from
            from .meaning.embedder import local_embedder
            from .service import MemoryService

            service = MemoryService(embedder=load_embedder, sites=app.sites)

            # The classifier's weights fit the bundled model only, whatever replaces it for recall.
            service.extractor = ConversationExtractor(service, app.sessions,
                                                      model=model_from(getattr(app, "llm", None), app.stopping),
                                                      stop=app.stopping, learned=learned_loader(local_embedder))
            # The model that may rewrite drafts into kinds of fact, when the user turns it on.
            from .meaning.rewrite import model_from as rewrite_model_from

            service.rewrite_model = rewrite_model_from(getattr(app, "llm", None), app.stopping)
            app._memory_service = service
            from .sync.background import SyncPoller

            SyncPoller(service, app.stopping).start()  # does nothing until sync is on in this vault
        return service


def open_at_start(app) -> None:
    """Build the index when the host starts (design §5), so the first send on an opted-in
    site does not wait for the vault. Called only for a user who opted in (App.memory_at_start)."""
    service = service_for(app)
    try:
        service.ready()
    except Exception as exc:  # noqa: BLE001 - memory.* requests report it to the user
        log.error("the memory vault could not be opened at start (%s)", type(exc).__name__)


# ---- the chat flow (actions/chat.py) ------------------------------------------------------


def recall_for_send(app, site: str, draft: str, room: int | None = None, key: str | None = None) -> RecallResult:
    """What to append to a draft being sent on `site` (MemoryService.for_send): empty unless
    long-term memory is on (and not paused) there. Never raises: a problem, or the memory
    service busy for longer than MEMORY_WAIT, gives an empty result with a note, and the
    send goes on. Counts no usage: the caller does, once the block really goes (count_use)."""
    from ..protocol.errors import WhiteboardError
    from .recall.recall import RecallResult

    try:
        service = app.memory
        if not service.sites.get(site).memory_on:
            return RecallResult()
        return service.for_send(app.tokens, draft, room, key)
    except WhiteboardError as exc:
        log.warning("recall skipped: %s", type(exc).__name__)
        return RecallResult(note=exc.message)
    except Exception as exc:  # noqa: BLE001 - a bug in recall must not cost the send (its text is not logged)
        log.error("recall failed: %s", type(exc).__name__)
        return RecallResult(note=f"recall failed ({type(exc).__name__}); sent without memories")


def count_use(app, memory_ids: list[str]) -> None:
    """Memories that went with a send: their usage count and last use are queued for a
    background thread (design §5), off the send path."""
    if memory_ids:
        app.memory.usage.record(memory_ids)


def note_message(app, key: str, site: str) -> None:
    """Call on every captured chat message: (re)starts the conversation's extraction timer
    when the site has long-term memory on. Never raises."""
    from ..protocol.errors import WhiteboardError

    try:
        app.memory.extractor.note_message(key, site)
    except WhiteboardError as exc:
        log.warning("extraction timer not started: %s", type(exc).__name__)


# ---- for the CLI and the installer ---------------------------------------------------------


def accept(service: MemoryService, suggestion_id: str, text: str | None = None,
           type_: str | None = None) -> Memory:
    """The user keeps a suggestion (maybe edited) where no host's extractor runs (the CLI):
    the same ADD / UPDATE / NOOP decision as any fact (extract/conversation.py)."""
    from .extract.conversation import accept as accept_suggestion

    return accept_suggestion(service, suggestion_id, text, type_)


def desktop_apps():
    """The desktop apps' switch and names (store/desktop.py), read without opening the vault."""
    from .store.desktop import DesktopAppsStore

    return DesktopAppsStore()


def survey_chats(path: Path, stop: threading.Event | None = None):
    """The first pass of a chat history import (extract/history.py): the export at `path`
    read whole and counted (`.format`, `.conversations`, `.turns`); BadRequest naming the
    file and the formats understood when it is none we read or is damaged."""
    from ..protocol.errors import BadRequest
    from .extract.chat_export import ExportRefused
    from .extract.history import survey

    try:
        return survey(path, stop)
    except ExportRefused as exc:
        raise BadRequest(str(exc)) from None


def import_chats(service: MemoryService, path: Path, review: bool = False, site: str | None = None,
                 progress=None, stop: threading.Event | None = None):
    """Lasting facts from the chat export at `path` (extract/history.py's ImportSummary),
    with the extractor a live conversation gets offline: the learned classifier on the
    bundled model, else the rules. BadRequest when the file turns out damaged half-way
    (what earlier batches kept stays, and a later run resumes after it)."""
    from ..protocol.errors import BadRequest
    from .extract.chat_export import ExportRefused
    from .extract.classifier import learned_extractor
    from .extract.history import import_chats as importing

    learned = learned_extractor(bundled_embedder()[0])
    try:
        return importing(service, path, learned=learned, review=review, site=site, progress=progress, stop=stop)
    except ExportRefused as exc:
        raise BadRequest(str(exc)) from None


# ---- a chat export streamed by the memory page (memory.import_chats) -----------------------

MAX_UPLOADS = 2  # imports under way at once; a third drops the one idle longest
UPLOAD_IDLE_SECONDS = 600  # an import with no chunk for this long is dropped (a page closed mid-way)


@dataclass
class _Upload:
    """One import under way: its reader (made with the first chunk), the chunk it expects next,
    when its last chunk came, and the lock its chunks take in turn."""
    seen: float
    upload: object = None  # extract/history.HistoryUpload
    next_seq: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


class _Uploads:
    """The imports under way in this host, in RAM only (what they found is not stored until
    their last chunk)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.items: dict[str, _Upload] = {}  # by import_id


def _uploads(app) -> _Uploads:
    with _lock:
        return app.__dict__.setdefault("_chat_uploads", _Uploads())


def chat_import_chunk(app, import_id: str, seq: int, chunk: bytes, last: bool):
    """Feed one chunk of the page's import: (turns read, facts found, None), or with the last
    chunk (..., the ImportSummary) once every fact is stored as a suggestion. BadRequest for a
    chunk out of order or a file that is no export we read (the import is dropped then and
    nothing is written)."""
    import time

    from ..protocol.errors import BadRequest
    from .extract.chat_export import ExportRefused
    from .extract.classifier import learned_extractor
    from .extract.history import HistoryUpload

    uploads = _uploads(app)
    now = time.monotonic()
    with uploads.lock:
        for key, item in list(uploads.items.items()):
            if now - item.seen > UPLOAD_IDLE_SECONDS:
                del uploads.items[key]
        entry = uploads.items.get(import_id)
        if entry is None:
            if seq != 0:
                raise BadRequest(f"import {import_id} is not under way (cancelled, or idle too long): start again")
            while len(uploads.items) >= MAX_UPLOADS:
                del uploads.items[min(uploads.items, key=lambda k: uploads.items[k].seen)]
            entry = uploads.items[import_id] = _Upload(seen=now)
        entry.seen = now
    with entry.lock:
        if seq != entry.next_seq:
            raise BadRequest(f"seq: chunk {entry.next_seq} of import {import_id} was expected, not {seq}")
        service = app.memory
        try:
            if entry.upload is None:
                entry.upload = HistoryUpload("the chosen file", learned_extractor(bundled_embedder()[0]))
            upload = entry.upload
            upload.add(service, chunk)
            entry.next_seq += 1
            summary = upload.finish(service) if last else None
        except ExportRefused as exc:
            cancel_chat_import(app, import_id)
            raise BadRequest(str(exc)) from None
        except BaseException:
            cancel_chat_import(app, import_id)
            raise
        if last:
            cancel_chat_import(app, import_id)
        return upload.read, upload.facts, summary


def cancel_chat_import(app, import_id: str) -> bool:
    uploads = _uploads(app)
    with uploads.lock:
        return uploads.items.pop(import_id, None) is not None


def memory_files() -> tuple[list[Path], Path]:
    """Long-term memory's own files on disk, whether they exist or not: the vault with
    SQLite's side files and sync's lock file, and the memory settings file. (The key is settings_store.py's: the
    model settings are encrypted with it too.)"""
    from ..settings_store import default_paths
    from .store.settings import MemorySettingsStore
    from .store.sync_rows import LOCK_FILE
    from .store.vault import SQLITE_SIDE_FILES

    vault = default_paths()[0]
    return [vault, *(vault.with_name(vault.name + side) for side in SQLITE_SIDE_FILES), vault.with_name(LOCK_FILE)], \
        MemorySettingsStore().path


def sync_for(service: MemoryService):
    """Sync of this vault through a folder (memory/sync/exchange.py's Sync): set-up, exchanges, status."""
    from .sync.exchange import Sync

    return Sync(service)
