"""A full disk (issue 28 item 4): SQLite's own "database or disk is full" (a page limit on
the vault's connection, the same SQLITE_FULL a full disk gives) is `write_failed` ("free
space, retry"), never `damaged` ("restore from a backup"); nothing is lost, and the writes
go through once there is room. The meaning indexer waits and resumes, logging no
programming errors."""

import logging

import pytest

from support.fake_openai import EMBEDDINGS_PATH, fail
from whiteboard.memory.errors import VaultUnavailable
from whiteboard.memory.meaning.embed import EmbedConfig, RemoteEmbedder
from whiteboard.memory.service import MemoryService
from whiteboard.sites import SiteStore


def fill(vault) -> None:
    """The vault's file may not grow from now on: as if the disk were full."""
    conn = vault._conn
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")


def make_room(vault) -> None:
    vault._conn.execute("PRAGMA max_page_count = 1073741823")


@pytest.fixture
def service(tmp_path, fake_openai):
    config = EmbedConfig(fake_openai.base_url, "embed-fake", query_timeout=2.0)
    made = MemoryService(tmp_path / "data" / "memories.db", tmp_path / "config" / "secret.key",
                         sites=SiteStore(tmp_path / "config"), embedder=lambda: RemoteEmbedder(config))
    yield made
    made.close()


def test_a_full_disk_is_write_failed_and_nothing_is_lost(service):
    service.add("Prefers TypeScript", "preference")
    vault = service.vault()
    fill(vault)
    with pytest.raises(VaultUnavailable) as raised:
        for i in range(200):
            service.add(f"Fact number {i} " + "x" * 900, "context")
    assert raised.value.reason == "write_failed", raised.value.message
    assert "full" in raised.value.message and "free some space" in raised.value.message
    make_room(vault)
    service.add("Allergic to peanuts", "context")
    assert {m.text for m in service.list()} >= {"Prefers TypeScript", "Allergic to peanuts"}


def test_the_indexer_waits_for_room_and_resumes(service, fake_openai, caplog):
    fake_openai.script(fail(500, times=1000), path=EMBEDDINGS_PATH)  # the endpoint down while memories come
    for i in range(40):
        service.add(f"Fact number {i} " + "y" * 500, "context")
    assert service.meanings.wait_idle(30)
    vault = service.vault()
    fill(vault)
    fake_openai.unscript(EMBEDDINGS_PATH)
    caplog.set_level(logging.WARNING)
    service.meanings.wake()
    assert service.meanings.wait_idle(30)
    progress = service.meanings.progress()
    assert progress.state == "retrying" and "full" in progress.reason, progress
    assert not any("ProgrammingError" in r.getMessage() for r in caplog.records)
    make_room(vault)
    service.meanings.wake()
    assert service.meanings.wait_idle(30)
    progress = service.meanings.progress()
    assert (progress.state, progress.indexed, progress.total) == ("ready", 40, 40), progress
