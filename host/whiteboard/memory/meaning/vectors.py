"""Memory meanings: their vectors in RAM, and the background indexer that makes and keeps them.

The indexer runs on one low-priority thread, off the send path: it loads the embedding
model (the bundled one, or the /v1/embeddings endpoint that replaces it), reads the vectors
stored in the vault for that model, and embeds every memory that has none or whose vector
was made from an older revision or by another model, storing each batch encrypted
(vault.put_vectors). Until a memory has its vector, recall finds it by full text only.
It looks through all the memories once when it starts and once per change, keeping what is
left to do in a queue: a batch costs the same in a vault of 100 memories or of 100,000.
A batch the model refuses is split in halves until the memory to blame is alone; that
one is set aside (named by id in memory.status) and the rest are indexed. It is tried
again when its text changes, when the vault is opened again, or an hour later. A failure
that says nothing about the texts (the endpoint unreachable, slow, overloaded), or a model
that fails even on a text it embedded before, sets nothing aside: the run is 'retrying'.
The index holds them as recall compares them (`ranking_space`: the bundled model's meaning
adapter, adapter.py), the vault as the model made them.

The draft of a send is embedded on one worker thread with a deadline (about 30 ms for the
local model): past it, or while the previous draft is still being embedded, that send uses
full text only. A stored vector that does not decrypt is reported by name
(`damaged`), left in the vault as it is, and its memory is found by full text.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..errors import EmbedFailed, VaultUnavailable
from ..model import Damaged
from . import rewrite
from .drafts import DraftVectors
from .rewrite import Rewrite, RewriteOff

log = logging.getLogger("whiteboard.memory.meaning.vectors")
BATCH = 16  # memories per embedding call and per vault transaction
LOCAL_QUERY_DEADLINE = 0.03  # seconds the send path waits for the draft's vector
RETRY_SECONDS = 30.0
SET_ASIDE_SECONDS = 3600.0  # a memory the model refused is tried again after this long (or once edited)
LOAD_CHUNK = 4096  # stored vectors mapped into the index at a time


def ranking_space(embedder, vectors: np.ndarray) -> np.ndarray:
    """The model's vectors as recall compares them (the bundled model's meaning adapter, on
    memories and drafts alike); other models' as they are. The vault keeps the model's own."""
    mapping = getattr(embedder, "map_vectors", None)
    return mapping(vectors) if mapping is not None else vectors


class VectorIndex:
    """Unit vectors of memories, one row each, searched by cosine (a dot product)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._matrix = np.zeros((0, 0), dtype=np.float32)
        self._ids: list[str | None] = []
        self._slot: dict[str, int] = {}
        self._rev: dict[str, int] = {}
        self._free: list[int] = []

    def __len__(self) -> int:
        return len(self._slot)

    @property
    def capacity(self) -> int:
        """Rows allocated (the RAM held is capacity x dim x 4 bytes)."""
        return self._matrix.shape[0]

    def ids(self) -> set[str]:
        with self._lock:
            return set(self._slot)

    def revs(self) -> dict[str, int]:
        with self._lock:
            return dict(self._rev)

    def any_id(self) -> str | None:
        """One memory that has a vector, or None."""
        with self._lock:
            return next(iter(self._slot), None)

    def is_current(self, memory) -> bool:
        """Whether the index holds a vector made from this memory's current text (not from
        the text before an edit, nor none at all)."""
        return self._rev.get(memory.id) == memory.rev

    def put(self, items: list[tuple[str, int, np.ndarray]]) -> None:
        if not items:
            return
        with self._lock:
            dim = items[0][2].shape[0]
            if self._matrix.shape[1] != dim:
                self._reset(dim)
            items = [it for it in items if it[2].shape[0] == dim]
            slots = []
            for memory_id, rev, _ in items:
                slot = self._slot.get(memory_id)
                if slot is None:
                    slot = self._free.pop() if self._free else self._next_slot()
                    self._slot[memory_id], self._ids[slot] = slot, memory_id
                self._rev[memory_id] = rev
                slots.append(slot)
            self._reserve(len(self._ids))
            self._matrix[slots] = np.stack([v for _, _, v in items])

    def reserve(self, n: int, dim: int) -> None:
        """Room for `n` rows of `dim` at once (a vault's stored vectors, about to be put in
        chunks): one allocation of the right size instead of doubling copies."""
        with self._lock:
            if self._matrix.shape[1] != dim:
                self._reset(dim)
            if n > self._matrix.shape[0]:
                self._grow(n)

    def remove(self, memory_ids) -> None:
        with self._lock:
            for memory_id in memory_ids:
                slot = self._slot.pop(memory_id, None)
                if slot is not None:
                    self._matrix[slot] = 0
                    self._ids[slot] = None
                    self._free.append(slot)
                    del self._rev[memory_id]

    def clear(self) -> None:
        with self._lock:
            self._reset(self._matrix.shape[1])

    def cosines(self, memory_ids: list[str], query: np.ndarray) -> dict[str, float]:
        """The cosine of each given memory that has a vector."""
        with self._lock:
            if self._matrix.shape[1] != query.shape[0]:
                return {}
            slots = [(i, self._slot[i]) for i in memory_ids if i in self._slot]
            return {i: float(self._matrix[slot] @ query) for i, slot in slots}

    def search(self, query: np.ndarray, limit: int, min_cosine: float) -> list[tuple[str, float]]:
        """(memory id, cosine) best first, at least min_cosine."""
        with self._lock:
            if not self._slot or self._matrix.shape[1] != query.shape[0]:
                return []
            sims = self._matrix[:len(self._ids)] @ query
            ids = list(self._ids)
        top = np.argpartition(-sims, min(limit, len(sims) - 1))[:limit] if len(sims) > limit else np.arange(len(sims))
        top = top[np.argsort(-sims[top])]
        return [(ids[i], float(sims[i])) for i in top if ids[i] is not None and sims[i] >= min_cosine]

    def _reset(self, dim: int) -> None:
        self._matrix = np.zeros((0, dim), dtype=np.float32)
        self._ids, self._slot, self._rev, self._free = [], {}, {}, []

    def _next_slot(self) -> int:
        self._ids.append(None)
        return len(self._ids) - 1

    def _reserve(self, n: int) -> None:
        if n > self._matrix.shape[0]:
            self._grow(max(64, n, self._matrix.shape[0] * 2))

    def _grow(self, rows: int) -> None:
        grown = np.zeros((rows, self._matrix.shape[1]), dtype=np.float32)
        grown[:self._matrix.shape[0]] = self._matrix
        self._matrix = grown


@dataclass(frozen=True)
class Progress:
    state: str  # "off" (no model), "loading", "indexing", "retrying" (the last run failed), "ready"
    indexed: int
    total: int  # the memories to index: neither set aside nor with a damaged stored vector
    model: str | None
    reason: str | None  # why it is off or retrying (names no content)
    set_aside: int = 0  # memories the model refused, found by full text until tried again


@dataclass(frozen=True)
class SetAside:
    """A memory the model refused alone (the others of its batch were embedded)."""

    memory_id: str
    rev: int  # the revision refused: another text is tried at once
    problem: str  # why, as the model said it (names no content)
    since: float  # time.monotonic() when it was set aside


class MeaningIndexer:
    """Keeps `vectors` in step with the service's memories (see the module doc)."""

    def __init__(self, service, load_embedder: Callable[[], object | None]):
        self.service = service
        self._load_embedder = load_embedder
        self.embedder = None
        self.vectors = VectorIndex()
        self.damaged: dict[str, tuple[int, Damaged]] = {}  # memory id -> (rev of the row, problem)
        self.set_aside: dict[str, SetAside] = {}  # kept in RAM only: a new process tries them again
        self.state = "loading"
        self.reason: str | None = None
        self._stored_loaded = False
        self._stopped = False
        self._wake = threading.Event()
        # Wakes asked for and wakes caught up with (wait_idle): a counter, not an event, so a
        # change made while a catch-up runs is not taken as done by it.
        self._progress = threading.Condition()
        self._asked = self._served = 0
        self._handled = 0  # the wakes asked for that the running catch-up has looked at
        self._answered = False  # whether the model embedded anything in the running catch-up
        self._thread: threading.Thread | None = None
        self._thread_lock = threading.Lock()
        self._query_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memory-query-embed")
        self._query_running: Future | None = None
        self._last_query: tuple[str, str, np.ndarray] | None = None  # (model id, draft, vector)
        self._query_seconds = 0.0  # a running average of how long a draft takes to embed
        self.drafts = DraftVectors(self._embed_draft)  # drafts embedded while the user types (chat.draft)
        # Drafts rewritten by the configured model into kinds of fact (rewrite.py), with the user's opt-in.
        self.rewrites = DraftVectors(self._rewrite_draft, name="draft-rewrite")

    # ---- the background thread ----------------------------------------------------------

    def wake(self) -> None:
        """Something changed (vault opened, memories added, updated, deleted): catch up."""
        with self._progress:
            self._asked += 1
        self._wake.set()
        with self._thread_lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="memory-embed", daemon=True)
                self._thread.start()

    def reset(self) -> None:
        """The vault was (re)opened: read the stored vectors again."""
        self.vectors.clear()
        self.damaged.clear()
        self.set_aside.clear()
        self.drafts.clear()
        self.rewrites.clear()
        self._stored_loaded = False
        self._stopped = False
        self.wake()

    def stop(self) -> None:
        """The service is closing: finish the current batch and stop (a reopen restarts)."""
        self._stopped = True
        self.drafts.clear()
        self.rewrites.clear()
        self._wake.set()

    def _loop(self) -> None:
        if hasattr(os, "setpriority"):
            try:  # Linux: a thread's own nice value; the send path keeps priority
                os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
            except OSError:
                pass
        failed = False
        said = None  # the failure logged last: a full disk or a down endpoint is said once, not every retry
        while True:
            self._wake.wait(self._next_try(failed))
            if self._stopped:
                return
            self._look_again()
            try:
                self._catch_up()
                failed, said = False, None
            except Exception as exc:  # noqa: BLE001 - the indexer must not die; recall keeps full text
                why = _why(exc)
                self.state, self.reason = "retrying", f"indexing meanings failed: {why}"
                if why != said:
                    log.error("indexing meanings failed: %s", why)
                failed, said = True, why
            with self._progress:
                self._served = max(self._served, self._handled)
                self._progress.notify_all()

    def _look_again(self) -> None:
        """Take the wakes asked for so far as handled by what follows (a look at every memory)."""
        self._wake.clear()
        with self._progress:
            self._handled = self._asked

    def _next_try(self, failed: bool) -> float | None:
        """Seconds until the loop runs without a change: after a failure (an endpoint down)
        every RETRY_SECONDS; a set-aside memory when its time is up; else only on a change."""
        waits = [RETRY_SECONDS] if failed else []
        set_aside = list(self.set_aside.values())
        if set_aside:
            due = min(s.since for s in set_aside) + SET_ASIDE_SECONDS - time.monotonic()
            waits.append(max(1.0, due))
        return min(waits) if waits else None

    def wait_idle(self, timeout: float) -> bool:
        """Wait until the indexer has handled every change made before this call (caught up,
        off, or failed: `progress()` says which); False if `timeout` seconds pass first. For
        tests and benchmarks: nothing on the send path waits for the indexer."""
        with self._progress:
            target = self._asked
            return self._progress.wait_for(lambda: self._served >= target, timeout)

    def _catch_up(self) -> None:
        if self.embedder is None:
            self.embedder = self._load_embedder()
            if self.embedder is None:
                self.state = "off"
                from . import embedder as local

                self.reason = local.load_error or "no embedding model"
                return
        model = self.embedder.model_id
        vault = self.service.vault()
        if vault is None:
            self.state = "ready"
            return
        if not self._stored_loaded:
            stored, damaged = vault.load_vectors(model)
            revs = self._revs()
            current = [(i, rev, v) for i, (rev, v) in stored.items() if revs.get(i) == rev]
            if current:
                self.vectors.reserve(len(revs), current[0][2].shape[0])  # room for every memory's vector
            for start in range(0, len(current), LOAD_CHUNK):  # in chunks: no second copy of a large vault
                self._put_mapped(current[start:start + LOAD_CHUNK])
            for d in damaged:
                log.error("the meaning vector of memory %s cannot be read: %s", d.memory_id, d.problem)
                self.damaged[d.memory_id] = (revs.get(d.memory_id, -1), d)
            self._stored_loaded = True
        self.state = "indexing"
        self._answered = False
        todo = self._todo()
        while not self._stopped:
            if self._wake.is_set():  # a change meanwhile: look again, once per change (not per batch)
                if not self._stored_loaded:  # the vault was opened again: start from its stored vectors
                    return
                self._look_again()
                todo = self._todo()
            batch = self._next_batch(todo)
            if not batch:
                self.state, self.reason = "ready", None
                return
            # One stored for this very revision needs no model: a pin or a new type keeps the
            # text (the vault rebinds its vector), or another process embedded it.
            stored, _ = vault.load_vectors(model, [m.id for m in batch])
            kept, fresh = [], []
            for m in batch:
                rev, vector = stored.get(m.id, (None, None))
                if rev == m.rev:
                    kept.append((m.id, m.rev, vector))
                else:
                    fresh.append(m)
            items, refused = self._embed(fresh) if fresh else ([], [])
            if items:
                vault.put_vectors(model, items)
            if kept or items:
                self._put_mapped(kept + items)
            for m, problem in refused:
                log.warning("memory %s is set aside, not indexed: %s", m.id, problem)
                self.set_aside[m.id] = SetAside(m.id, m.rev, problem, time.monotonic())
            for m in batch:
                self.damaged.pop(m.id, None)

    def _revs(self) -> dict[str, int]:
        """{memory id: rev} of every memory: one pass over them all."""
        with self.service.lock:
            return {m.id: m.rev for m in self.service.index.memories.values()}

    def _todo(self) -> deque[str]:
        """The memories to embed, in order; drops the vectors of deleted memories and the
        set-aside marks that are done with (the memory changed or its time is up)."""
        revs = self._revs()
        self.vectors.remove(self.vectors.ids() - revs.keys())
        now = time.monotonic()
        for s in list(self.set_aside.values()):
            if revs.get(s.memory_id) != s.rev or now - s.since >= SET_ASIDE_SECONDS:
                del self.set_aside[s.memory_id]
        current = self.vectors.revs()
        return deque(i for i, rev in revs.items() if current.get(i) != rev and self._wanted(i, rev))

    def _wanted(self, memory_id: str, rev: int) -> bool:
        """Neither its stored vector damaged nor set aside, at this revision."""
        damaged, aside = self.damaged.get(memory_id), self.set_aside.get(memory_id)
        return (damaged is None or damaged[0] != rev) and (aside is None or aside.rev != rev)

    def _next_batch(self, todo: deque[str]) -> list:
        """Up to BATCH memories from the queue, as they are now (skipping any deleted or
        indexed since it was filled)."""
        batch = []
        with self.service.lock:
            memories = self.service.index.memories
            while todo and len(batch) < BATCH:
                m = memories.get(todo.popleft())
                if m is not None and not self.vectors.is_current(m) and self._wanted(m.id, m.rev):
                    batch.append(m)
        return batch

    def _embed(self, memories: list) -> tuple[list[tuple[str, int, np.ndarray]], list[tuple[object, str]]]:
        """(memory id, rev, vector) of the memories the model embeds, and (memory, why) of
        those it refuses alone: a refused batch is split in halves, first half first. Raises
        when the failure is not one memory's (see the module doc)."""
        items, alone, first_failure = [], [], None
        parts = [memories]
        while parts:
            part = parts.pop()
            try:
                matrix = self.embedder.embed_passages([m.text for m in part])
            except Exception as exc:
                if isinstance(exc, EmbedFailed) and exc.whole_endpoint:
                    raise
                first_failure = first_failure or exc
                if not self._answered and self._model_fails_on_a_known_text():
                    raise
                if len(part) == 1:
                    alone.append((part[0], _why(exc)))
                else:
                    half = len(part) // 2
                    parts += [part[half:], part[:half]]
                continue
            self._answered = True
            items += [(m.id, m.rev, matrix[i]) for i, m in enumerate(part)]
        if alone and not self._answered:  # every text failed, and nothing showed the model works
            raise first_failure
        return items, alone

    def _model_fails_on_a_known_text(self) -> bool:
        """Whether the model now fails on a memory it embedded before (one request): then a
        failure is the model's, not the texts'. False when it works, or nothing is indexed."""
        memory_id = self.vectors.any_id()
        with self.service.lock:
            known = self.service.index.memories.get(memory_id) if memory_id is not None else None
        if known is None or not self.vectors.is_current(known):
            return False
        try:
            self.embedder.embed_passages([known.text])
        except Exception:  # noqa: BLE001 - any failure here says the model is down, not the batch's texts
            return True
        self._answered = True
        return False

    def _put_mapped(self, items: list[tuple[str, int, np.ndarray]]) -> None:
        """(memory id, rev, the model's vector) into the index, as recall compares them."""
        mapped = ranking_space(self.embedder, np.stack([v for _, _, v in items]))
        self.vectors.put([(i, rev, v) for (i, rev, _), v in zip(items, mapped)])

    def progress(self) -> Progress:
        revs = self._revs()
        current = self.vectors.revs()
        # Memories whose stored vector is damaged, or that the model refused, are not waited
        # for: they stay full-text only.
        total = sum(1 for i, rev in revs.items() if self._wanted(i, rev))
        indexed = sum(1 for i, rev in revs.items() if current.get(i) == rev)
        state = "indexing" if self.state == "ready" and indexed < total else self.state
        return Progress(state, indexed, total, getattr(self.embedder, "model_id", None), self.reason,
                        set_aside=len(self.set_aside_memories(revs)))

    def damaged_vectors(self) -> list[Damaged]:
        return sorted((d for _, d in self.damaged.values()), key=lambda d: d.memory_id)

    def set_aside_memories(self, revs: dict[str, int] | None = None) -> list[SetAside]:
        """The memories set aside at their current revision, by id."""
        if revs is None:
            revs = self._revs()
        return sorted((s for s in list(self.set_aside.values()) if revs.get(s.memory_id) == s.rev),
                      key=lambda s: s.memory_id)

    # ---- the send path ------------------------------------------------------------------

    def begin_query(self, text: str, key: str | None = None) -> Callable[[], tuple[np.ndarray | None, str | None]]:
        """Start embedding the draft now; the returned call gives its vector within what is
        left of the model's deadline, or (None, why). Recall runs full text meanwhile, so the
        deadline covers both. A draft the tab (`key`) sent while the user typed (chat.draft,
        drafts.py) is ready already, or being embedded (waited for within the deadline); for
        a small edit of one embedded, this text is embedded within the deadline as usual and
        the earlier version's vector stands in if that is late (better than full text
        alone: tests/bench/bench_draft.py). The last draft's vector is kept
        too (RAM only): the same draft sent again after a preview, or after its embedding
        ran late, needs no second wait."""
        embedder = self.embedder
        if embedder is None or not len(self.vectors):
            return lambda: (None, None)
        deadline = getattr(embedder, "query_deadline", LOCAL_QUERY_DEADLINE)
        started = time.monotonic()
        earlier = None  # the vector of an earlier version of this draft (a small edit since)
        if key is not None:
            typed = self.drafts.lookup(key, text, embedder.model_id)
            if typed.vector is not None and not typed.reused:
                return lambda: (typed.vector, None)
            earlier = typed.vector
            if typed.running is not None:
                return lambda: self._typed_vector(key, text, embedder.model_id, typed.running,
                                                  max(0.0, deadline - (time.monotonic() - started)))
        last = self._last_query
        if last is not None and last[0] == embedder.model_id and last[1] == text:
            return lambda: (last[2], None)
        running = self._query_running
        if running is not None and not running.done():
            if earlier is not None:
                return lambda: (earlier, None)
            return lambda: (None, "the previous draft is still being embedded; used full text")
        self._query_running = future = self._query_pool.submit(self._embed_query, embedder, text)
        # When drafts have lately taken far over the deadline (a busy machine), do not wait
        # at all: the vector still arrives, for this draft sent again, and for the average.
        skip = self._query_seconds > 2 * deadline

        def finish() -> tuple[np.ndarray | None, str | None]:
            left = 0.0 if skip else max(0.0, deadline - (time.monotonic() - started))
            try:
                return future.result(timeout=left), None
            except Exception as exc:  # noqa: BLE001 - late or failed: an earlier version's vector, else full text
                if earlier is not None:  # better than full text alone (tests/bench/bench_draft.py)
                    return earlier, None
                return None, self._query_note(exc, skip, deadline)

        return finish

    def prepare_query(self, text: str, wait: float) -> None:
        """Embed `text` now, waiting up to `wait` seconds, so that a recall of the same text
        right after finds its vector ready (the last query's) instead of giving up after a
        send's deadline: for a caller that can wait longer than a send (an MCP search).
        A failure or a late vector is left for that recall to note."""
        embedder = self.embedder
        if embedder is None or not len(self.vectors):
            return
        last = self._last_query
        if last is not None and last[0] == embedder.model_id and last[1] == text:
            return
        started = time.monotonic()
        running = self._query_running
        if running is not None and not running.done():  # one query at a time on the model
            try:
                running.result(timeout=wait)
            except Exception:  # noqa: BLE001 - another caller's query: its own recall notes it
                pass
        self._query_running = future = self._query_pool.submit(self._embed_query, embedder, text)
        try:
            future.result(timeout=max(0.0, wait - (time.monotonic() - started)))
        except Exception:  # noqa: BLE001 - late or failed: the recall that follows notes it
            pass

    @staticmethod
    def _query_note(exc: Exception, skip: bool, deadline: float) -> str:
        """Why the send's draft has no vector: its embedding was late, or failed."""
        if isinstance(exc, FutureTimeout):
            if skip:
                return f"drafts lately take over {2 * deadline * 1000:.0f} ms to embed; used full text"
            return f"embedding the draft took over {deadline * 1000:.0f} ms; used full text"
        if isinstance(exc, EmbedFailed):
            return f"semantic search unavailable, used full text: {exc}"
        return f"semantic search unavailable, used full text ({type(exc).__name__})"

    def _typed_vector(self, key: str, text: str, model_id: str, done: threading.Event,
                      left: float) -> tuple[np.ndarray | None, str | None]:
        if done.wait(left):
            vector = self.drafts.lookup(key, text, model_id).vector
            if vector is not None:
                return vector, None
        return None, "the draft was still being embedded at Enter; used full text"

    def _embed_draft(self, text: str) -> tuple[str, np.ndarray]:
        """A draft sent while the user types, on the drafts' own thread (drafts.py)."""
        embedder = self.embedder
        if embedder is None:
            raise EmbedFailed("no embedding model")
        return embedder.model_id, ranking_space(embedder, embedder.embed_queries([text]))[0]

    def _rewrite_draft(self, text: str) -> tuple[str, Rewrite]:
        """A draft rewritten by the configured model, on the rewrites' own thread (drafts.py):
        its phrases and the memories their vector finds, searched now rather than at the send.
        Raises when the switch, the endpoint or the model is gone
        meanwhile, or the model fails: nothing is kept, and recall stays offline."""
        embedder = self.embedder
        complete = self.service.draft_model()
        if embedder is None or complete is None:
            raise RewriteOff()
        phrases = rewrite.ask(complete, text)
        if not phrases:
            return embedder.model_id, Rewrite(())
        vector = ranking_space(embedder, embedder.embed_queries([rewrite.query_text(phrases)]))[0]
        return embedder.model_id, Rewrite(phrases, self.service.rewrite_search(vector))

    def _embed_query(self, embedder, text: str) -> np.ndarray:
        started = time.monotonic()
        vector = ranking_space(embedder, embedder.embed_queries([text]))[0]
        self._query_seconds = 0.7 * self._query_seconds + 0.3 * (time.monotonic() - started)
        self._last_query = (embedder.model_id, text, vector)
        return vector


def _why(exc: Exception) -> str:
    """A model failure in words that name no content: EmbedFailed's own, else its type."""
    # A vault's message names its file and what to do (a full disk: free space), never content.
    return str(exc) if isinstance(exc, (EmbedFailed, VaultUnavailable)) else type(exc).__name__
