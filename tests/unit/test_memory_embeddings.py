"""A configured OpenAI-compatible /v1/embeddings endpoint (a real server on loopback) as the
embedding model: it replaces the bundled one, its vectors are kept encrypted like the
bundled model's, and any failure or slowness falls back to full text."""

import json
import time

import pytest

from support.fake_openai import EMBEDDINGS_PATH, Step, fail, hang
from whiteboard.memory import hub
from whiteboard.memory.errors import EmbedFailed
from whiteboard.memory.meaning.embed import EmbedConfig, RemoteEmbedder, config_from_env
from whiteboard.memory.recall.recall import recall
from whiteboard.memory.service import MemoryService
from whiteboard.sites import SiteStore
from whiteboard.tokens import TokenCounter

TOKENS = TokenCounter().load_now()
# Fixed vectors by text: the answer does not depend on how the indexer batches its requests.
MEANINGS = {"Enjoys hiking in the Alps": [1, 0, 0], "Prefers TypeScript": [0, 1, 0],
            "any tips for mountain trips?": [0.9, 0.1, 0]}


@pytest.fixture
def make(tmp_path):
    made = []

    def build(fake, query_timeout=0.5, api_key=None):
        config = EmbedConfig(fake.base_url, "embed-fake", api_key, query_timeout=query_timeout)
        service = MemoryService(tmp_path / "data" / "memories.db", tmp_path / "config" / "secret.key",
                                sites=SiteStore(tmp_path / "config"), embedder=lambda: RemoteEmbedder(config))
        made.append(service)
        return service

    yield build
    for s in made:
        s.close()


def wait_indexed(service, timeout=30.0):
    """Wait on the indexer itself (not a poll): it has handled every memory added so far."""
    if not service.meanings.wait_idle(timeout):
        return False
    p = service.meanings.progress()
    return p.state == "ready" and p.indexed == p.total


def test_semantic_hits_join_full_text_ones(make, fake_openai):
    fake_openai.embedding_for = lambda text: MEANINGS.get(text, [0, 0, 1])
    # A generous deadline: this is about ranking, not speed (the machine may be busy).
    service = make(fake_openai, query_timeout=5.0, api_key="sk-test-embed-key")
    hiking, _ = service.add("Enjoys hiking in the Alps", "preference")
    service.add("Prefers TypeScript", "preference")
    assert wait_indexed(service)
    result = recall(service, TOKENS, "any tips for mountain trips?")  # no word in common
    assert result.method == "hybrid", result.note
    assert [m.id for m in result.memories] == [hiking.id]
    sent = [r for r in fake_openai.requests if r.path == EMBEDDINGS_PATH]
    (query,) = [r for r in sent if r.json["input"] == ["any tips for mountain trips?"]]
    assert query.json["model"] == "embed-fake" and query.headers["authorization"] == "Bearer sk-test-embed-key"
    assert all(r.headers["authorization"] == "Bearer sk-test-embed-key" for r in sent)


def test_endpoint_vectors_are_kept_encrypted_and_not_recomputed(make, fake_openai, tmp_path):
    fake_openai.embedding_for = lambda text: MEANINGS.get(text, [0, 0, 1])
    service = make(fake_openai)
    service.add("Enjoys hiking in the Alps", "preference")
    assert wait_indexed(service)
    service.close()
    raw = (tmp_path / "data" / "memories.db").read_bytes()
    assert b"endpoint:embed-fake@" in raw and b"hiking" not in raw
    before = len(fake_openai.requests)
    again = make(fake_openai)
    assert again.ready() and wait_indexed(again)
    assert len(fake_openai.requests) == before  # read from the vault, not embedded again


def test_endpoint_failure_falls_back_to_full_text(make, fake_openai):
    service = make(fake_openai, query_timeout=5.0)
    service.add("Prefers TypeScript", "preference")
    assert wait_indexed(service)
    fake_openai.script(fail(500), path=EMBEDDINGS_PATH)
    result = recall(service, TOKENS, "typescript tips")
    assert result.method == "fts" and [m.text for m in result.memories] == ["Prefers TypeScript"]
    assert "HTTP 500" in result.note and fake_openai.base_url.split("/v1")[0] in result.note


def test_slow_endpoint_falls_back_within_its_time_limit(make, fake_openai):
    service = make(fake_openai, query_timeout=0.3)
    service.add("Prefers TypeScript", "preference")
    assert wait_indexed(service)
    fake_openai.script(hang(3.0), path=EMBEDDINGS_PATH)
    started = time.monotonic()
    result = recall(service, TOKENS, "typescript tips")
    assert time.monotonic() - started < 1.5
    assert result.method == "fts" and [m.text for m in result.memories] == ["Prefers TypeScript"]
    assert "300 ms" in result.note or "within 0.3 s" in result.note


def test_trickling_endpoint_is_cut_at_the_request_deadline_not_per_read(fake_openai):
    """Issue 12: one byte every 0.3 s kept each read under its timeout and held a send 16 s."""
    body = json.dumps({"data": [{"index": 0, "embedding": [0.1] * 64}]}).encode()
    fake_openai.script(Step(body=body, content_type="application/json", chunk_delay=0.3), path=EMBEDDINGS_PATH)
    embedder = RemoteEmbedder(EmbedConfig(fake_openai.base_url, "embed-fake", query_timeout=1.0))
    started = time.monotonic()
    with pytest.raises(EmbedFailed, match="did not answer within 1 s"):
        embedder.embed_queries(["typescript tips"])
    assert time.monotonic() - started < 1.8


def test_a_compressed_body_is_refused_unread(fake_openai):
    """Issue 28: the body cap counted inflated bytes only after httpx inflated a whole read
    (a few KB of gzip are hundreds of MB): no encoding is asked for, and one that comes is refused."""
    import zlib

    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    bomb = packer.compress(b"x" * (64 << 20)) + packer.flush()
    fake_openai.script(Step(body=bomb, content_type="application/json", headers={"Content-Encoding": "gzip"}),
                       path=EMBEDDINGS_PATH)
    embedder = RemoteEmbedder(EmbedConfig(fake_openai.base_url, "embed-fake", query_timeout=5.0))
    with pytest.raises(EmbedFailed, match="gzip-encoded"):
        embedder.embed_queries(["typescript tips"])
    [req] = [r for r in fake_openai.requests if r.path == EMBEDDINGS_PATH]
    assert req.headers["accept-encoding"] == "identity"


def test_requests_share_one_connection(fake_openai):
    """A client per request built a TLS context each time (20-70 ms on this machine, a
    quarter of a 16-memory batch's whole time against a local endpoint) and a connection."""
    embedder = RemoteEmbedder(EmbedConfig(fake_openai.base_url, "embed-fake", query_timeout=5.0))
    for _ in range(3):
        embedder.embed_passages(["Prefers TypeScript", "Allergic to peanuts"])
        embedder.embed_queries(["typescript tips"])
    clients = {r.client for r in fake_openai.requests if r.path == EMBEDDINGS_PATH}
    assert len(clients) == 1, clients


def test_garbage_vectors_are_a_failure_not_a_crash(make, fake_openai):
    fake_openai.script(Step(body=b'{"data": [{"index": 0, "embedding": "nope"}]}',
                            content_type="application/json", times=100), path=EMBEDDINGS_PATH)
    service = make(fake_openai)
    service.add("Prefers TypeScript", "preference")
    assert service.meanings.wait_idle(30)
    progress = service.meanings.progress()  # the page says it stopped and why, not "indexing" forever
    assert progress.state == "retrying" and "no usable vectors" in progress.reason
    result = recall(service, TOKENS, "typescript")
    assert result.method == "fts" and [m.text for m in result.memories] == ["Prefers TypeScript"]
    fake_openai.unscript(EMBEDDINGS_PATH)  # the endpoint answers well from now on
    service.add("Allergic to peanuts", "context")  # a change tries again at once
    assert service.meanings.wait_idle(30)
    progress = service.meanings.progress()
    assert (progress.state, progress.indexed, progress.total, progress.reason) == ("ready", 2, 2, None)


def test_unreachable_endpoint(make):
    class Nowhere:
        base_url = "http://127.0.0.1:9/v1"

    service = make(Nowhere)
    service.add("Prefers TypeScript", "preference")
    assert service.meanings.wait_idle(30)
    result = recall(service, TOKENS, "typescript")
    assert result.method == "fts" and [m.text for m in result.memories] == ["Prefers TypeScript"]
    assert service.meanings.progress().state == "retrying" and "cannot be reached" in service.meanings.reason


def test_a_configured_endpoint_replaces_the_bundled_model(monkeypatch, fake_openai):
    monkeypatch.setenv("WHITEBOARD_EMBED_MODEL", "embed-fake")
    monkeypatch.setenv("WHITEBOARD_EMBED_BASE_URL", fake_openai.base_url)
    loaded = hub.load_embedder()
    assert isinstance(loaded, RemoteEmbedder) and loaded.model_id.startswith("endpoint:embed-fake@http://127.0.0.1:")


def test_doctor_names_the_endpoint_only_when_recall_will_use_it(monkeypatch, tmp_path, fake_openai, caplog):
    from whiteboard.install.doctor import check_embedding_model

    monkeypatch.setenv("WHITEBOARD_CONFIG_DIR", str(tmp_path / "config"))  # no chat model to borrow a URL from
    monkeypatch.setenv("WHITEBOARD_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("WHITEBOARD_EMBED_MODEL", "embed-fake")
    monkeypatch.delenv("WHITEBOARD_EMBED_BASE_URL", raising=False)
    check = check_embedding_model()
    assert check.ok is None and "bundled model is used instead" in check.label
    assert caplog.text == ""  # doctor says it once, in its own line
    assert not isinstance(hub.load_embedder(), RemoteEmbedder)  # what the host does agrees, and logs why
    assert "no embeddings base URL is known: the bundled model is used" in caplog.text
    monkeypatch.setenv("WHITEBOARD_EMBED_BASE_URL", fake_openai.base_url)
    check = check_embedding_model()
    assert check.ok is True and "endpoint (embed-fake) replaces the bundled model" in check.label


def test_configuration_from_the_environment():
    assert config_from_env({}) is None
    config = config_from_env({"WHITEBOARD_EMBED_MODEL": "nomic-embed-text",
                              "WHITEBOARD_EMBED_BASE_URL": "http://127.0.0.1:11434/v1/",
                              "WHITEBOARD_EMBED_API_KEY": "k"})
    assert (config.base_url, config.model, config.api_key) == ("http://127.0.0.1:11434/v1", "nomic-embed-text", "k")
    assert "k" not in repr(config)
