"""An OpenAI-compatible /v1/embeddings endpoint as the embedding model, replacing the
bundled one (whiteboard.memory.meaning.embedder) when WHITEBOARD_EMBED_MODEL is set.

The base URL and API key come from WHITEBOARD_EMBED_BASE_URL / WHITEBOARD_EMBED_API_KEY,
or else from the configured chat model (whiteboard.llm). Its vectors are kept like the
bundled model's: encrypted in the vault, under a model id naming the endpoint and model.
Each request has one deadline for the whole exchange (connect, headers, body), not a
time per read: an endpoint trickling bytes cannot hold a send. Any failure (refused,
slow, garbage, wrong size) raises EmbedFailed; the caller falls back to full text.
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass, field
from typing import Mapping

import httpx
import numpy as np

from ..errors import EmbedFailed

log = logging.getLogger("whiteboard.memory.meaning.embed")
ENV_BASE_URL, ENV_MODEL, ENV_API_KEY = "WHITEBOARD_EMBED_BASE_URL", "WHITEBOARD_EMBED_MODEL", "WHITEBOARD_EMBED_API_KEY"
ENV_TIMEOUT = "WHITEBOARD_EMBED_TIMEOUT"
MAX_BODY_BYTES = 64 * 1024 * 1024  # a batch of 16 vectors of 8k dimensions is ~3 MB of JSON
# Answers about the endpoint, not about the texts: no key, wrong URL, too many requests, a
# gateway or server that is down or overloaded. Any other status may be one input refused
# (too long, against a policy: 400, 413, 422, or a 500 some servers give for one input).
WHOLE_ENDPOINT_STATUSES = frozenset({401, 403, 404, 405, 407, 408, 429, 502, 503, 504})


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
    """The endpoint the environment names; None when it names no model, or no base URL is
    known for it (hub.embedding_endpoint says so, for the host and for doctor)."""
    env = os.environ if env is None else env
    model = env.get(ENV_MODEL, "").strip()
    if not model:
        return None
    base_url, api_key = env.get(ENV_BASE_URL, "").strip(), env.get(ENV_API_KEY, "").strip() or None
    if not base_url:
        base_url, api_key = _chat_model_endpoint(api_key)
    if not base_url:
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
        from ...llm.settings import SettingsStore, resolve

        resolved = resolve(SettingsStore())
        base_url = resolved.endpoint().base_url  # refuses http:// to another computer without consent
    except Exception:  # noqa: BLE001 - no usable model settings: no embeddings either
        return "", api_key
    return base_url, api_key or resolved.api_key


class RemoteEmbedder:
    """The Embedder interface (whiteboard.memory.meaning.embedder) over the endpoint."""

    def __init__(self, config: EmbedConfig):
        self.config = config
        self.model_id = f"endpoint:{config.model}@{config.origin}"
        self.query_deadline = config.query_timeout  # the send path waits this long at most
        # One client for every request (the indexer's and the drafts', thread-safe): a new one
        # per request built a TLS context each time, 20-70 ms, and opened a new connection.
        self._client = httpx.Client()

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self.embed(texts, self.config.query_timeout)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return self.embed(texts, self.config.batch_timeout)

    def embed(self, texts: list[str], timeout: float) -> np.ndarray:
        """Unit-length vectors, one row per text, within `timeout` seconds in all."""
        # No content encoding: the body cap counts what arrives; an encoded body is refused unread.
        headers = {"User-Agent": "whiteboard-host", "Accept-Encoding": "identity"}
        if self.config.api_key:
            headers["Authorization"] = f"Bearer {self.config.api_key}"
        origin = self.config.origin
        deadline = time.monotonic() + timeout
        late = EmbedFailed(f"the embeddings endpoint at {origin} did not answer within {timeout:g} s",
                           whole_endpoint=True)
        try:
            with self._client.stream("POST", self.config.base_url + "/embeddings", headers=headers, timeout=timeout,
                                     json={"model": self.config.model, "input": texts}) as response:
                if response.status_code != 200:
                    raise EmbedFailed(f"the embeddings endpoint at {origin} answered HTTP {response.status_code}",
                                      whole_endpoint=response.status_code in WHOLE_ENDPOINT_STATUSES)
                encoding = response.headers.get("content-encoding", "identity").strip().lower()
                if encoding not in ("", "identity"):
                    named = "".join(c for c in encoding[:40] if c.isalnum() or c in "-_,")
                    raise EmbedFailed(f"the embeddings endpoint at {origin} sent a {named}-encoded body though "
                                      "asked for none", whole_endpoint=True)
                body = bytearray()
                for chunk in response.iter_bytes():
                    body += chunk
                    if time.monotonic() > deadline:
                        raise late
                    if len(body) > MAX_BODY_BYTES:
                        raise EmbedFailed(f"the embeddings endpoint at {origin} answered with too large a body")
        except httpx.TimeoutException:
            raise late from None
        except httpx.HTTPError as exc:
            raise EmbedFailed(f"the embeddings endpoint at {origin} cannot be reached ({type(exc).__name__})",
                              whole_endpoint=True) from None
        if time.monotonic() > deadline:
            raise late
        return _vectors(bytes(body), len(texts), origin)


def _vectors(body: bytes, n: int, origin: str) -> np.ndarray:
    try:
        data = sorted(json.loads(body)["data"], key=lambda d: d["index"])
        matrix = np.array([d["embedding"] for d in data], dtype=np.float32)
    except (ValueError, KeyError, TypeError):
        raise EmbedFailed(f"the embeddings endpoint at {origin} answered with no usable vectors") from None
    if matrix.ndim != 2 or matrix.shape[0] != n or matrix.shape[1] == 0:
        raise EmbedFailed(f"the embeddings endpoint at {origin} answered with the wrong number of vectors")
    if not np.isfinite(matrix).all():
        raise EmbedFailed(f"the embeddings endpoint at {origin} answered with no usable vectors")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)
