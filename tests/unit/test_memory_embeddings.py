"""Optional embeddings through a real OpenAI-compatible /v1/embeddings server on loopback,
and the full-text fallback when it fails or is slow."""

import json
import time

import pytest

from support.fake_openai import EMBEDDINGS_PATH, Step, fail, hang, fake_openai  # noqa: F401
from whiteboard.memory.embed import EmbedConfig, Embedder, SemanticIndex, config_from_env
from whiteboard.memory.recall import recall
from whiteboard.memory.service import MemoryService
from whiteboard.memory.sites import SiteStore
from whiteboard.tokens import TokenCounter

TOKENS = TokenCounter().load_now()


def vectors(*rows):
    body = {"object": "list", "model": "embed-fake",
            "data": [{"object": "embedding", "index": i, "embedding": list(r)} for i, r in enumerate(rows)]}
    return Step(body=json.dumps(body).encode(), content_type="application/json")


@pytest.fixture
def make(tmp_path):
    made = []

    def build(fake, query_timeout=0.5, api_key=None):
        config = EmbedConfig(fake.base_url, "embed-fake", api_key, query_timeout=query_timeout)
        service = MemoryService(tmp_path / "data" / "memories.db", tmp_path / "config" / "secret.key",
                                sites=SiteStore(tmp_path / "config"), semantic=SemanticIndex(Embedder(config)))
        made.append(service)
        return service

    yield build
    for s in made:
        s.close()


def wait_covered(service, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if service.semantic.covers(list(service.index.memories.values())):
            return True
        time.sleep(0.02)
    return False


def test_semantic_hits_join_full_text_ones(make, fake_openai):
    fake_openai.script(vectors([1, 0, 0], [0, 1, 0]), path=EMBEDDINGS_PATH)
    service = make(fake_openai, api_key="sk-test-embed-key")
    hiking, _ = service.add("Enjoys hiking in the Alps", "preference")
    service.add("Prefers TypeScript", "preference")
    assert wait_covered(service)
    fake_openai.script(vectors([0.9, 0.1, 0]), path=EMBEDDINGS_PATH)
    result = recall(service, TOKENS, "any tips for mountain trips?")  # no word in common
    assert result.method == "hybrid" and [m.id for m in result.memories] == [hiking.id]
    sent = [r for r in fake_openai.requests if r.path == EMBEDDINGS_PATH]
    assert sent[-1].json == {"model": "embed-fake", "input": ["any tips for mountain trips?"]}
    assert sent[-1].headers["authorization"] == "Bearer sk-test-embed-key"


def test_endpoint_failure_falls_back_to_full_text(make, fake_openai):
    service = make(fake_openai)
    service.add("Prefers TypeScript", "preference")
    assert wait_covered(service)
    fake_openai.script(fail(500), path=EMBEDDINGS_PATH)
    result = recall(service, TOKENS, "typescript tips")
    assert result.method == "fts" and [m.text for m in result.memories] == ["Prefers TypeScript"]
    assert "HTTP 500" in result.note and fake_openai.base_url.split("/v1")[0] in result.note


def test_slow_endpoint_falls_back_within_its_time_limit(make, fake_openai):
    service = make(fake_openai, query_timeout=0.3)
    service.add("Prefers TypeScript", "preference")
    assert wait_covered(service)
    fake_openai.script(hang(3.0), path=EMBEDDINGS_PATH)
    started = time.monotonic()
    result = recall(service, TOKENS, "typescript tips")
    assert time.monotonic() - started < 1.5
    assert result.method == "fts" and [m.text for m in result.memories] == ["Prefers TypeScript"]
    assert "did not answer within 0.3 s" in result.note


def test_garbage_vectors_are_a_failure_not_a_crash(make, fake_openai):
    fake_openai.script(Step(body=b'{"data": [{"index": 0, "embedding": "nope"}]}',
                            content_type="application/json"), path=EMBEDDINGS_PATH)
    service = make(fake_openai)
    service.add("Prefers TypeScript", "preference")
    deadline = time.monotonic() + 5
    while service.semantic.error is None and time.monotonic() < deadline:
        time.sleep(0.02)
    result = recall(service, TOKENS, "typescript")
    assert result.method == "fts" and "no usable vectors" in result.note
    assert [m.text for m in result.memories] == ["Prefers TypeScript"]


def test_unreachable_endpoint(make):
    class Nowhere:
        base_url = "http://127.0.0.1:9/v1"

    service = make(Nowhere)
    service.add("Prefers TypeScript", "preference")
    deadline = time.monotonic() + 5
    while service.semantic.error is None and time.monotonic() < deadline:
        time.sleep(0.02)
    result = recall(service, TOKENS, "typescript")
    assert result.method == "fts" and "cannot be reached" in result.note


def test_configuration_from_the_environment():
    assert config_from_env({}) is None
    config = config_from_env({"WHITEBOARD_EMBED_MODEL": "nomic-embed-text",
                              "WHITEBOARD_EMBED_BASE_URL": "http://127.0.0.1:11434/v1/",
                              "WHITEBOARD_EMBED_API_KEY": "k"})
    assert (config.base_url, config.model, config.api_key) == ("http://127.0.0.1:11434/v1", "nomic-embed-text", "k")
    assert "k" not in repr(config)
