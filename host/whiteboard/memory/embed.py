"""Optional semantic search through an OpenAI-compatible /v1/embeddings endpoint.

Off unless WHITEBOARD_EMBED_MODEL is set; the base URL and API key come from
WHITEBOARD_EMBED_BASE_URL / WHITEBOARD_EMBED_API_KEY, or else from the configured chat
model (whiteboard.llm). Vectors live in RAM only. Any failure (refused, slow, garbage,
wrong size) raises EmbedFailed and the caller falls back to full-text search.
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass, field
from typing import Mapping

import httpx
import numpy as np

from .model import Memory

log = logging.getLogger("whiteboard.memory.embed")
ENV_BASE_URL, ENV_MODEL, ENV_API_KEY = "WHITEBOARD_EMBED_BASE_URL", "WHITEBOARD_EMBED_MODEL", "WHITEBOARD_EMBED_API_KEY"
ENV_TIMEOUT = "WHITEBOARD_EMBED_TIMEOUT"
BATCH = 128


class EmbedFailed(Exception):
    """The endpoint did not give usable vectors; the message names its origin only."""


@dataclass(frozen=True)
class EmbedConfig:
    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    # The query is embedded on the send path: it gets a short time; batches get longer.
    query_timeout: float = 0.5
    batch_timeout: float = 30.0

    @property
    def origin(self) -> str:
        parts = httpx.URL(self.base_url)
        return f"{parts.scheme}://{parts.host}" + (f":{parts.port}" if parts.port else "")


def config_from_env(env: Mapping[str, str] | None = None) -> EmbedConfig | None:
    env = os.environ if env is None else env
    model = env.get(ENV_MODEL, "").strip()
    if not model:
        return None
    base_url, api_key = env.get(ENV_BASE_URL, "").strip(), env.get(ENV_API_KEY, "").strip() or None
    if not base_url:
        base_url, api_key = _chat_model_endpoint(api_key)
    if not base_url:
        log.warning("%s is set but no embeddings base URL is known: semantic search is off", ENV_MODEL)
        return None
    try:
        timeout = float(env.get(ENV_TIMEOUT) or 0.5)
    except ValueError:
        timeout = -1.0
    if not 0 < timeout <= 60:
        log.warning("%s must be seconds between 0 and 60; using 0.5", ENV_TIMEOUT)
        timeout = 0.5
    return EmbedConfig(base_url.rstrip("/"), model, api_key, query_timeout=timeout)


def _chat_model_endpoint(api_key: str | None) -> tuple[str, str | None]:
    """The configured chat model's base URL (and key), when the model layer has one."""
    try:
        from ..llm.settings import SettingsStore, resolve

        resolved = resolve(SettingsStore())
        base_url = resolved.endpoint().base_url  # refuses http:// to another computer without consent
    except Exception:  # noqa: BLE001 - no usable model settings: no embeddings either
        return "", api_key
    return base_url, api_key or resolved.api_key


class Embedder:
    def __init__(self, config: EmbedConfig):
        self.config = config

    def embed(self, texts: list[str], timeout: float) -> np.ndarray:
        """Unit-length vectors, one row per text."""
        headers = {"User-Agent": "whiteboard-host"}
        if self.config.api_key:
            headers["Authorization"] = f"Bearer {self.config.api_key}"
        origin = self.config.origin
        try:
            response = httpx.post(self.config.base_url + "/embeddings", headers=headers, timeout=timeout,
                                  json={"model": self.config.model, "input": texts})
        except httpx.TimeoutException:
            raise EmbedFailed(f"the embeddings endpoint at {origin} did not answer within {timeout:g} s") from None
        except httpx.HTTPError as exc:
            raise EmbedFailed(f"the embeddings endpoint at {origin} cannot be reached ({type(exc).__name__})") \
                from None
        if response.status_code != 200:
            raise EmbedFailed(f"the embeddings endpoint at {origin} answered HTTP {response.status_code}")
        try:
            data = sorted(response.json()["data"], key=lambda d: d["index"])
            matrix = np.array([d["embedding"] for d in data], dtype=np.float32)
        except (ValueError, KeyError, TypeError):
            raise EmbedFailed(f"the embeddings endpoint at {origin} answered with no usable vectors") from None
        if matrix.ndim != 2 or matrix.shape[0] != len(texts) or matrix.shape[1] == 0:
            raise EmbedFailed(f"the embeddings endpoint at {origin} answered with the wrong number of vectors")
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix / np.where(norms == 0, 1, norms)


class SemanticIndex:
    """Vectors of the indexed memories, kept in step by a background thread."""

    def __init__(self, embedder: Embedder):
        self.embedder = embedder
        self._lock = threading.Lock()
        self._vectors: dict[tuple[str, int], np.ndarray] = {}
        self._ids: list[str] = []
        self._matrix: np.ndarray | None = None
        self.error: str | None = None

    def sync(self, memories: list[Memory]) -> None:
        """Embed what is new or changed, forget what is gone (runs off the send path)."""
        wanted = {(m.id, m.rev): m for m in memories}
        with self._lock:
            missing = [m for key, m in wanted.items() if key not in self._vectors]
        try:
            for i in range(0, len(missing), BATCH):
                batch = missing[i:i + BATCH]
                vectors = self.embedder.embed([m.text for m in batch], self.embedder.config.batch_timeout)
                with self._lock:
                    self._vectors.update({(m.id, m.rev): v for m, v in zip(batch, vectors)})
            self.error = None
        except EmbedFailed as exc:
            self.error = str(exc)
            log.warning("embedding memories failed: %s", exc)
        with self._lock:
            self._vectors = {k: v for k, v in self._vectors.items() if k in wanted}
            dims = {v.shape[0] for v in self._vectors.values()}
            if self._vectors and len(dims) == 1:
                keys = list(self._vectors)
                self._ids = [k[0] for k in keys]
                self._matrix = np.stack([self._vectors[k] for k in keys])
            else:
                self._ids, self._matrix = [], None

    def covers(self, memories: list[Memory]) -> bool:
        with self._lock:
            return self._matrix is not None and all((m.id, m.rev) in self._vectors for m in memories)

    def search(self, query: str, limit: int, min_cosine: float) -> list[tuple[str, float]]:
        """(memory id, cosine) best first. Raises EmbedFailed."""
        with self._lock:
            matrix, ids = self._matrix, self._ids
        if matrix is None:
            raise EmbedFailed("no memory vectors yet")
        q = self.embedder.embed([query], self.embedder.config.query_timeout)[0]
        if q.shape[0] != matrix.shape[1]:
            raise EmbedFailed("the query vector's size differs from the memories' (model changed?)")
        sims = matrix @ q
        order = np.argsort(-sims)[:limit]
        return [(ids[i], float(sims[i])) for i in order if sims[i] >= min_cosine]
