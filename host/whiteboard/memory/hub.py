"""The memory service of a host process: created once per App, on first use, with the
extraction scheduler wired to the App's sessions and the optional embeddings model."""

from __future__ import annotations

import os
import threading

from .conversation import ConversationExtractor
from .model_extract import model_from
from .service import MemoryService

_lock = threading.Lock()


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
