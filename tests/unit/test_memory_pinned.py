"""Pinned memories: with every send on an opted-in site, first in the block, within their
own token cap (exact, by the block's own lines), before the recalled ones, never twice;
kept across processes, export/import and the CLI."""

import json
import sqlite3
import threading
import time

import pytest
from click.testing import CliRunner

from whiteboard.cli import main
from whiteboard.memory.hub import recall_for_send
from whiteboard.memory.model import MEMORY_TYPES, Memory
from whiteboard.memory.recall.inject import BlockLine, format_line
from whiteboard.memory.recall.recall import (
    LINE_TOKENS_MIN,
    PINNED_TRIED,
    block_line,
    fit_pinned,
    send_memories,
)
from whiteboard.memory.service import MEMORY_WAIT, MemoryService
from whiteboard.memory.store import transfer
from whiteboard.memory.store.schema import MIGRATIONS
from whiteboard.memory.store.settings import PINNED_TOKENS
from whiteboard.protocol.errors import BadRequest
from whiteboard.sites import SiteStore
from whiteboard.tokens import TokenCounter

TOKENS = TokenCounter().load_now()
SHORT = "Prefers short answers with bullet points"
BRITISH = "Writes in British English"
TS = "Prefers TypeScript for all projects"
DRAFT = "Help me set up a new frontend project in TypeScript"


@pytest.fixture
def service(tmp_path):
    s = MemoryService(tmp_path / "data" / "memories.db", tmp_path / "config" / "secret.key",
                      sites=SiteStore(tmp_path / "config"))
    yield s
    s.close()


def cost(memory) -> int:
    return TOKENS.count(format_line(block_line(memory)))


def pin(service, text, type_="preference"):
    memory, _ = service.add(text, type_)
    return service.update(memory.id, pinned=True)


def test_pinned_go_first_even_when_unrelated_to_the_draft_and_never_twice(service):
    short, british = pin(service, SHORT), pin(service, BRITISH)
    service.add(TS, "preference")
    service.add("Lives in Berlin", "context")
    result = send_memories(service, TOKENS, DRAFT, PINNED_TOKENS)
    assert [m.text for m in result.memories] == [SHORT, BRITISH, TS] and result.pinned == 2
    body = result.block.splitlines()
    assert body[1] == "[Whiteboard context · 3 memories]"
    assert [line.split("] ", 1)[1] for line in body[2:5]] == [SHORT, BRITISH, TS]
    assert result.tokens == TOKENS.count(result.block)
    # A draft that recalls nothing still carries the pinned ones; a pinned memory the
    # draft would recall is not recalled again.
    unrelated = send_memories(service, TOKENS, "What is the capital of Australia?", PINNED_TOKENS)
    assert [m.id for m in unrelated.memories] == [short.id, british.id]
    again = send_memories(service, TOKENS, "bullet points in British English please", PINNED_TOKENS)
    assert [m.id for m in again.memories] == [short.id, british.id] and again.block.count(SHORT) == 1


def test_the_pinned_cap_is_exact_by_token_count_and_skips_what_does_not_fit(service):
    a, b = pin(service, SHORT), pin(service, BRITISH)
    long = pin(service, "Always answer with a worked example, then a one-line summary, then the caveats, "
                        "in that order, for every technical question about programming")
    c = pin(service, "Uses metric units")
    exact = cost(a) + cost(b)
    assert [m.id for m in send_memories(service, TOKENS, "hi there", exact).memories] == [a.id, b.id]
    assert cost(a) + cost(c) <= exact - 1 < cost(a) + cost(b)
    assert [m.id for m in send_memories(service, TOKENS, "hi there", exact - 1).memories] == [a.id, c.id]
    assert [m.id for m in send_memories(service, TOKENS, "hi there", cost(a)).memories] == [a.id]
    # The long one does not fit beside the others and is left out whole; the next still goes.
    room = cost(a) + cost(b) + cost(c)
    assert cost(long) > cost(c)
    assert [m.id for m in send_memories(service, TOKENS, "hi", room).memories] == [a.id, b.id, c.id]
    assert send_memories(service, TOKENS, "hi", 0).memories == ()


def test_recalled_ones_keep_their_own_budget_and_the_room_drops_them_first(service):
    pinned = pin(service, SHORT)
    service.add(TS, "preference")
    full = send_memories(service, TOKENS, DRAFT, PINNED_TOKENS)
    assert [m.text for m in full.memories] == [SHORT, TS]
    short_room = send_memories(service, TOKENS, DRAFT, PINNED_TOKENS, room=full.tokens - 1)
    assert [m.id for m in short_room.memories] == [pinned.id] and short_room.tokens <= full.tokens - 1
    assert send_memories(service, TOKENS, DRAFT, PINNED_TOKENS, room=5).block == ""


def test_pin_order_is_the_order_of_pinning_and_unpin_drops_it(service):
    first, _ = service.add(BRITISH, "preference")
    second, _ = service.add(SHORT, "preference")
    service.update(second.id, pinned=True)
    time.sleep(0.01)
    service.update(first.id, pinned=True)
    assert [m.id for m in service.pinned()] == [second.id, first.id]
    before = service.get(second.id)
    unpinned = service.update(second.id, pinned=False)
    assert not unpinned.pinned and unpinned.updated_at == before.updated_at  # a pin is not an edit
    assert [m.id for m in service.pinned()] == [first.id]
    edited = service.update(first.id, "Writes in British English, Oxford comma")
    assert edited.pinned and edited.old_texts[0].text == BRITISH  # an edit keeps the pin


def test_another_process_sees_a_pin(service):
    memory, _ = service.add(SHORT, "preference")
    other = MemoryService(service.vault_path, service.key_path)
    assert other.pinned() == []
    service.update(memory.id, pinned=True)
    assert [m.id for m in other.pinned()] == [memory.id]
    other.update(memory.id, pinned=False)
    assert service.pinned() == []


def test_export_and_import_keep_the_pin(service, tmp_path):
    a = pin(service, SHORT)
    service.add(TS, "preference")
    document = transfer.document(service.list())
    assert {e["text"]: e["pinned"] for e in document["memories"]} == {SHORT: True, TS: False}
    fresh = MemoryService(tmp_path / "other" / "m.db", tmp_path / "other" / "k")
    assert fresh.import_memories(transfer.parse(document)) == (2, 0, 0)
    assert [m.id for m in fresh.pinned()] == [a.id] and fresh.get(a.id).pinned_at == a.pinned_at
    # Importing a document that unpins an existing memory changes just that.
    document["memories"] = [{**e, "pinned": False} for e in document["memories"]]
    assert fresh.import_memories(transfer.parse(document)) == (0, 1, 1)
    assert fresh.pinned() == []


def test_an_old_vault_gains_the_pin_column(tmp_path):
    db, key = tmp_path / "data" / "memories.db", tmp_path / "config" / "secret.key"
    service = MemoryService(db, key)
    memory, _ = service.add(SHORT, "preference")
    service.close()
    conn = sqlite3.connect(db)
    conn.execute("ALTER TABLE memories DROP COLUMN pinned_at")  # as a vault from before 005 looks
    conn.execute("DELETE FROM _migrations WHERE name = '005_memories_pinned'")
    conn.commit()
    service = MemoryService(db, key)
    assert service.get(memory.id).pinned is False
    assert service.update(memory.id, pinned=True).pinned
    names = [r[0] for r in sqlite3.connect(db).execute("SELECT name FROM _migrations ORDER BY rowid")]
    assert sorted(names) == sorted(name for name, _ in MIGRATIONS)


def test_pinned_cap_setting_is_checked_and_kept(service):
    assert service.settings.load().pinned_tokens == PINNED_TOKENS == 120
    assert service.settings.update(pinned_tokens=40).pinned_tokens == 40
    assert json.loads(service.settings.path.read_text()) == {"pinned_tokens": 40, "suggest_below": 0.7,
                                                             "rewrite_drafts": False}
    for bad in (-1, 2001, True, 1.5):
        with pytest.raises(BadRequest, match="pinned_tokens"):
            service.settings.update(pinned_tokens=bad)
    assert service.settings.load().pinned_tokens == 40


def test_recall_for_send_carries_pinned_only_on_opted_in_sites_within_the_stored_cap(app):
    a = pin(app.memory, SHORT)
    b = pin(app.memory, BRITISH)
    assert recall_for_send(app, "claude.ai", "What is the capital of Australia?").block == ""
    app.memory.sites.update("claude.ai", long_term=True)
    assert [m.id for m in recall_for_send(app, "claude.ai", "What is the capital of Australia?").memories] == \
        [a.id, b.id]
    app.memory.settings.update(pinned_tokens=cost(a))
    assert [m.id for m in recall_for_send(app, "claude.ai", "capital of Australia?").memories] == [a.id]


def test_cli_pin_unpin_and_cap(tmp_path, monkeypatch):
    monkeypatch.setenv("WHITEBOARD_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("WHITEBOARD_CONFIG_DIR", str(tmp_path / "config"))
    service = MemoryService()
    memory, _ = service.add(SHORT, "preference")
    service.close()
    run = lambda *args: CliRunner().invoke(main, ["memories", *args], catch_exceptions=False)  # noqa: E731
    pinned = run("pin", memory.id)
    assert pinned.exit_code == 0 and "[pinned]" in pinned.output
    assert "[pinned]" in run("list").output and "pinned:      20" in run("show", memory.id).output
    assert json.loads(run("list", "--json").output)[0]["pinned"] is True
    small = run("pinned-tokens", "3")
    assert small.exit_code == 0 and "up to 3 tokens" in small.output
    assert f"pinned memory {memory.id} does not fit the 3-token cap" in small.output
    assert "up to 3 tokens" in run("pinned-tokens").output
    assert run("pinned-tokens", "5000").exit_code == 2
    assert run("unpin", memory.id).exit_code == 0 and "[pinned]" not in run("list").output
    assert run("pin", "mem_0000000000000000").exit_code == 1
    assert MemoryService().pinned() == []


@pytest.mark.parametrize("blob", [b"", b"\x00" * 5, b"\x00" * 40], ids=["empty", "shorter than a nonce", "garbage"])
def test_a_damaged_stored_vector_never_blocks_a_pin_and_is_named(service, caplog, blob):
    memory, _ = service.add(SHORT, "preference")
    vault = service.vault()
    assert vault.put_vectors("model-x", [(memory.id, memory.rev, [0.5] * 8)]) == 1
    vault._conn.execute("UPDATE memory_vectors SET vector = ? WHERE memory_id = ?", (blob, memory.id))
    with caplog.at_level("WARNING", logger="whiteboard.memory"):
        pinned = service.update(memory.id, pinned=True)
        unpinned = service.update(memory.id, pinned=False)
    assert pinned.pinned and not unpinned.pinned and service.get(memory.id).text == SHORT
    assert any(memory.id in r.getMessage() and "vector" in r.getMessage() for r in caplog.records)
    assert SHORT not in caplog.text
    # Dropped, so the indexer makes it again; nothing damaged is left to trip on.
    assert vault.load_vectors("model-x") == ({}, [])


class CountingTokens:
    """The real counter, counting its calls."""

    def __init__(self):
        self.calls = 0

    def count(self, text: str) -> int:
        self.calls += 1
        return TOKENS.count(text)


def memories_pinned(n: int, text: str) -> list[Memory]:
    return [Memory(id=f"m{i}", type="preference", text=f"{text} {i}", created_at=0.0, updated_at=0.0,
                   pinned_at=float(i)) for i in range(n)]


def test_a_send_with_thousands_pinned_counts_a_bounded_few():
    tokens = CountingTokens()
    assert len(fit_pinned(memories_pinned(20_000, SHORT), tokens, PINNED_TOKENS)) > 1
    assert tokens.calls <= PINNED_TRIED
    tokens = CountingTokens()
    assert fit_pinned(memories_pinned(20_000, SHORT), tokens, LINE_TOKENS_MIN - 1) == []
    assert tokens.calls == 0  # no line can fit: none is counted
    tokens = CountingTokens()
    assert fit_pinned(memories_pinned(20_000, "word " * 2100), tokens, 2000) == []  # none fits
    assert tokens.calls == PINNED_TRIED


def test_no_line_is_shorter_than_the_floor_fit_pinned_stops_at():
    shortest = min(TOKENS.count(format_line(BlockLine(t, month, c))) for t in MEMORY_TYPES
                   for month in range(1, 13) for c in "x1.é")
    assert shortest >= LINE_TOKENS_MIN


def test_a_send_does_not_wait_behind_a_long_hold_of_the_memory_service(app):
    app.memory.sites.update("claude.ai", long_term=True)
    pin(app.memory, SHORT)
    held, release = threading.Event(), threading.Event()

    def hold():  # as an import, a wipe or opening a large vault does
        with app.memory.lock:
            held.set()
            release.wait(10)

    threading.Thread(target=hold, daemon=True).start()
    assert held.wait(5)
    started = time.monotonic()
    result = recall_for_send(app, "claude.ai", DRAFT)
    took = time.monotonic() - started
    release.set()
    assert result.block == "" and "busy" in result.note
    assert MEMORY_WAIT <= took < MEMORY_WAIT + 0.5
    assert recall_for_send(app, "claude.ai", DRAFT).block  # once it is free, the pinned one goes
