"""The meanings indexer (vectors.MeaningIndexer) when the model refuses, and at scale, in
process with a real encrypted vault and a real endpoint on loopback (issue 20 items 7, 9):
a memory the embeddings endpoint refuses is set aside, named by id (never its text), and
the others are indexed; an endpoint that is down is 'retrying' and sets nothing aside; a
batch costs the same whatever the vault's size."""

import json
import threading
import time

import numpy as np
import pytest

from support.fake_openai import EMBEDDINGS_PATH, fail
from support.waiting import wait_for
from whiteboard.memory.meaning import vectors
from whiteboard.memory.meaning.embed import EmbedConfig, RemoteEmbedder
from whiteboard.memory.model import Memory, new_memory_id
from whiteboard.memory.service import MemoryService
from whiteboard.sites import SiteStore

from .test_memory_meanings import open_service  # noqa: F401 - fixture

REFUSED = "Memory 57 is the one text the provider refuses"


@pytest.fixture
def make(open_service):  # noqa: F811 - the fixture imported above
    """A service whose embedding model is `embedder`."""
    return lambda embedder: open_service(lambda: embedder)


def remote(fake) -> RemoteEmbedder:
    return RemoteEmbedder(EmbedConfig(fake.base_url, "embed-fake", batch_timeout=10.0))


def store(service, texts: list[str]) -> list[Memory]:
    now = time.time()
    return service.store([Memory(new_memory_id(), "context", text, now, now) for text in texts])


def texts_with_refused(n: int = 101, at: int = 57) -> list[str]:
    return [REFUSED if i == at else f"Memory {i} says something of its own" for i in range(n)]


def embedding_requests(fake) -> list[list[str]]:
    return [r.json["input"] for r in fake.requests if r.path == EMBEDDINGS_PATH]


def settled(service, timeout=60.0) -> vectors.Progress:
    assert service.meanings.wait_idle(timeout), "the indexer did not catch up"
    return service.meanings.progress()


def test_one_refused_memory_among_101_is_set_aside_and_the_other_100_are_indexed(make, fake_openai, tmp_path):
    fake_openai.refused_inputs[REFUSED] = 400
    service = make(remote(fake_openai))
    memories = store(service, texts_with_refused())
    refused_id = memories[57].id
    p = settled(service)
    assert (p.state, p.indexed, p.total, p.set_aside, p.reason) == ("ready", 100, 100, 1, None)
    (aside,) = service.meanings.set_aside_memories()
    # No word of the memory in the problem (the endpoint's address may hold any digits).
    assert aside.memory_id == refused_id and "HTTP 400" in aside.problem
    assert "Memory 57" not in aside.problem and "refuses" not in aside.problem
    assert not service.meanings.vectors.is_current(memories[57])
    assert all(service.meanings.vectors.is_current(m) for i, m in enumerate(memories) if i != 57)
    # The failing batch was split, not retried whole: 7 batches, and halves down to the one memory.
    sent = embedding_requests(fake_openai)
    assert sum(REFUSED in inputs for inputs in sent) <= 5, [len(s) for s in sent]
    assert len(sent) <= 7 + 8
    # Nothing more is asked while nothing changes: the set-aside memory is not retried in a loop.
    service.meanings.wake()
    assert settled(service).set_aside == 1 and len(embedding_requests(fake_openai)) == len(sent)


def test_a_set_aside_memory_is_tried_again_when_its_text_changes(make, fake_openai):
    fake_openai.refused_inputs[REFUSED] = 422
    service = make(remote(fake_openai))
    memories = store(service, texts_with_refused(20, at=7))
    assert settled(service).set_aside == 1
    edited = service.update(memories[-1].id, text="An ordinary text again")
    assert settled(service).set_aside == 1  # another memory's edit leaves it aside
    service.update(memories[7].id, text="Memory 7, said acceptably")
    p = settled(service)
    assert (p.state, p.indexed, p.total, p.set_aside) == ("ready", 20, 20, 0)
    assert service.meanings.set_aside_memories() == [] and service.meanings.vectors.is_current(edited)


def test_a_set_aside_memory_is_tried_again_after_a_while(make, fake_openai, monkeypatch):
    monkeypatch.setattr(vectors, "SET_ASIDE_SECONDS", 1.0)
    fake_openai.refused_inputs[REFUSED] = 500  # a server error for this one text only
    service = make(remote(fake_openai))
    store(service, texts_with_refused(60, at=30))
    assert settled(service).set_aside == 1
    fake_openai.refused_inputs.clear()  # the provider takes it now (a limit raised, say)
    def all_indexed():
        p = service.meanings.progress()
        return not p.set_aside and p.indexed >= 60 and p

    p = wait_for(all_indexed, timeout=30, interval=0.1, what="the set-aside memory indexed")
    assert (p.state, p.indexed, p.total) == ("ready", 60, 60)


@pytest.mark.parametrize("status", [500, 503])
def test_an_endpoint_failing_every_request_is_retrying_and_sets_nothing_aside(make, fake_openai, status):
    service = make(remote(fake_openai))
    store(service, [f"First memory {i}" for i in range(3)])
    assert settled(service).indexed == 3
    fake_openai.script(fail(status, times=10**6), path=EMBEDDINGS_PATH)
    before = len(embedding_requests(fake_openai))
    store(service, [f"Later memory {i}" for i in range(40)])
    p = settled(service)
    assert (p.state, p.indexed, p.set_aside) == ("retrying", 3, 0) and f"HTTP {status}" in p.reason
    assert service.meanings.set_aside_memories() == []
    assert len(embedding_requests(fake_openai)) - before <= 2  # the batch and one check, not a split down to 1s
    fake_openai.unscript(EMBEDDINGS_PATH)
    service.meanings.wake()
    p = settled(service)
    assert (p.state, p.indexed, p.total, p.set_aside) == ("ready", 43, 43, 0)


def test_a_first_index_against_an_endpoint_down_sets_nothing_aside(make, fake_openai):
    """Nothing indexed yet, so nothing to check the endpoint with: every memory fails alone."""
    fake_openai.script(fail(500, times=10**6), path=EMBEDDINGS_PATH)
    service = make(remote(fake_openai))
    store(service, [f"Memory {i}" for i in range(5)])
    p = settled(service)
    assert (p.state, p.indexed, p.set_aside) == ("retrying", 0, 0) and "HTTP 500" in p.reason


def test_an_unreachable_endpoint_is_retrying_and_sets_nothing_aside(make):
    service = make(RemoteEmbedder(EmbedConfig("http://127.0.0.1:9/v1", "embed-fake")))
    store(service, [f"Memory {i}" for i in range(20)])
    p = settled(service)
    assert (p.state, p.set_aside) == ("retrying", 0) and "cannot be reached" in p.reason


def test_memory_status_names_the_set_aside_memory_never_its_text(fake_openai, tmp_path):
    from support.host import isolated_env, ok
    from support.inprocess import InProcessHost

    fake_openai.refused_inputs[REFUSED] = 400
    env = isolated_env(tmp_path, WHITEBOARD_EMBED_MODEL="embed-fake", WHITEBOARD_EMBED_BASE_URL=fake_openai.base_url)
    with InProcessHost(env=env) as host:
        for text in texts_with_refused(20, at=7):
            ok(host.request("memory.add", text=text, memory_type="context"))
        refused_id = next(m["memory_id"] for m in ok(host.request("memory.list", limit=100))["memories"]
                          if m["text"] == REFUSED)
        assert host.app.memory.meanings.wait_idle(60)
        status = ok(host.request("memory.status"))
    assert status["meanings"]["set_aside"] == 1 and status["meanings"]["indexed"] == 19
    assert [s["memory_id"] for s in status["set_aside"]] == [refused_id]
    assert REFUSED not in json.dumps(status)


# ---- scale ----------------------------------------------------------------------------------

class CountingDict(dict):
    """The service's memories, counting every pass over all of them."""

    passes = 0

    def _counted(self, view):
        type(self).passes += 1
        return view

    def values(self):
        return self._counted(super().values())

    def items(self):
        return self._counted(super().items())

    def keys(self):
        return self._counted(super().keys())

    def __iter__(self):
        return self._counted(super().__iter__())


class FastEmbedder:
    model_id, dim = "fast-1", 8

    def embed_passages(self, texts):
        rng = np.random.default_rng(len(texts))
        out = rng.standard_normal((len(texts), self.dim)).astype(np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    embed_queries = embed_passages


def first_index_cost(tmp_path, n: int) -> tuple[int, int]:
    """(passes over all the memories, vault reads of stored vectors) for a first index of n."""
    paths = tmp_path / f"{n}" / "memories.db", tmp_path / "config" / "secret.key"
    writer = MemoryService(*paths, sites=SiteStore(tmp_path / "config"))  # no model: nothing indexed
    store(writer, [f"Memory {i} of {n}" for i in range(n)])
    writer.close()
    model_asked = threading.Event()
    service = MemoryService(*paths, sites=SiteStore(tmp_path / "config"),
                            embedder=lambda: model_asked.wait(10) and FastEmbedder())
    try:
        assert service.ready()  # the indexer starts, and waits for its model until counting begins
        service.index.memories = CountingDict(service.index.memories)
        vault, reads = service.vault(), []
        real_load = vault.load_vectors
        vault.load_vectors = lambda *a, **kw: reads.append(a) or real_load(*a, **kw)
        CountingDict.passes = 0
        model_asked.set()
        assert service.meanings.wait_idle(60), "the indexer did not catch up"
        passes = CountingDict.passes
        p = service.meanings.progress()
        assert (p.state, p.indexed, p.total) == ("ready", n, n)
        return passes, len(reads)
    finally:
        service.close()


def test_a_batch_costs_the_same_whatever_the_vaults_size(tmp_path):
    """Issue 20 item 9: every batch looked through every memory again (0.09 s at 100k, per
    batch of 16). Now one pass when the index starts and one per change, however many
    batches follow."""
    small_passes, small_reads = first_index_cost(tmp_path, 4 * vectors.BATCH)
    large_passes, large_reads = first_index_cost(tmp_path, 40 * vectors.BATCH)
    assert small_passes == large_passes <= 2, (small_passes, large_passes)
    # The vault is read once for the stored vectors, then once per batch, for that batch only.
    assert (small_reads, large_reads) == (1 + 4, 1 + 40)
