"""The memory service of a host process: created once per App, on first use, with the
extraction scheduler wired to the App's sessions and the optional embeddings model."""

from __future__ import annotations

import logging
import os
import threading

from .conversation import ConversationExtractor
from .model_extract import model_from
from .service import MemoryService

_lock = threading.Lock()
log = logging.getLogger("whiteboard.memory")


def semantic_from_env():
    if not os.environ.get("WHITEBOARD_EMBED_MODEL"):
        return None  # checked here so that httpx and numpy load only when embeddings are on
    from .embed import config_from_env

    config = config_from_env()
    if config is None:
        return None
    from .embed import Embedder, SemanticIndex

    return SemanticIndex(Embedder(config))


def service_for(app) -> MemoryService:
    with _lock:
        service = app.__dict__.get("_memory_service")
        if service is None:
            service = MemoryService(semantic=semantic_from_env())
            service.extractor = ConversationExtractor(service, app.sessions,
                                                      model=model_from(getattr(app, "llm", None), app.stopping),
                                                      stop=app.stopping)
            app._memory_service = service
        return service


def open_at_start(app) -> None:
    """Build the index when the host starts (DESIGN §5), so the first send on an opted-in
    site does not wait for the vault; nothing is opened for a user who never opted in."""
    service = service_for(app)
    if not any(site.memory_on for site in service.sites.all()):
        return
    try:
        service.ready()
    except Exception as exc:  # noqa: BLE001 - memory.* requests report it to the user
        log.error("the memory vault could not be opened at start (%s)", type(exc).__name__)
