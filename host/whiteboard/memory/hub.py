"""The memory service of a host process: created once per App, on first use, with the
extraction scheduler wired to the App's sessions and the embedding model."""

from __future__ import annotations

import logging
import os
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the service and its extractors load numpy and the vault: only when memory is used
    from .service import MemoryService

_lock = threading.Lock()
log = logging.getLogger("whiteboard.memory")


def load_embedder():
    """The /v1/embeddings endpoint when one is configured (it replaces the bundled model),
    else the bundled model; None when neither is there. Runs on the indexer's thread."""
    if os.environ.get("WHITEBOARD_EMBED_MODEL"):
        from .meaning.embed import ENV_MODEL, RemoteEmbedder, config_from_env

        config = config_from_env()
        if config is not None:
            return RemoteEmbedder(config)
        log.warning("%s is set but no embeddings base URL is known: the bundled model is used", ENV_MODEL)
    from .meaning.embedder import local_embedder

    return local_embedder()


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
            app._memory_service = service
        return service


def open_at_start(app) -> None:
    """Build the index when the host starts (design §5), so the first send on an opted-in
    site does not wait for the vault. Called only for a user who opted in (App.memory_at_start)."""
    service = service_for(app)
    try:
        service.ready()
    except Exception as exc:  # noqa: BLE001 - memory.* requests report it to the user
        log.error("the memory vault could not be opened at start (%s)", type(exc).__name__)
