"""The vault on disk: encrypted content, recorded migrations, key and tamper errors."""

import json
import os
import sqlite3
import stat
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from whiteboard import crypto
from whiteboard.actions.memory import out
from whiteboard.memory.errors import MemoryDamaged, VaultUnavailable
from whiteboard.memory.model import Memory, new_memory_id
from whiteboard.memory.service import MemoryService
from whiteboard.memory.store.schema import MIGRATIONS
from whiteboard.memory.store.vault import Vault
from whiteboard.sites import SiteStore

MARKERS = ["ZEBRA-VAULT-2718", "quokka-preference", "喜欢喝乌龙茶标记", "tag-marker-77", "old-text-marker-55"]


@pytest.fixture
def paths(tmp_path):
    return tmp_path / "data" / "memories.db", tmp_path / "config" / "secret.key"


def memory(text: str, **kw) -> Memory:
    now = time.time()
    return Memory(id=new_memory_id(), type=kw.pop("type", "preference"), text=text, created_at=now, updated_at=now,
                  **kw)


def files_under(root):
    for dirpath, _, names in os.walk(root):
        for name in names:
            yield os.path.join(dirpath, name)


def assert_no_marker(root):
    checked = 0
    for path in files_under(root):
        data = open(path, "rb").read()
        checked += 1
        for marker in MARKERS:
            for encoded in (marker.encode(), marker.lower().encode(), marker.encode("utf-16-le")):
                assert encoded not in data, f"{path} holds {marker!r}"
    return checked


def test_roundtrip_and_migrations_recorded(paths):
    vault = Vault.open(*paths)
    kept = vault.insert([memory("Prefers TypeScript", tags=["coding"], keywords=["typescript"], site="chatgpt.com"),
                         memory("Lives in Berlin", type="context")])
    vault.close()
    vault = Vault.open(*paths)
    loaded, damaged = vault.load()
    assert damaged == []
    assert {(m.id, m.text, m.type, tuple(m.tags), m.site) for m in loaded} == \
        {(m.id, m.text, m.type, tuple(m.tags), m.site) for m in kept}
    names = [r[0] for r in sqlite3.connect(paths[0]).execute("SELECT name FROM _migrations ORDER BY rowid")]
    assert names == [name for name, _ in MIGRATIONS]
    mode = sqlite3.connect(paths[0]).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_no_plaintext_anywhere_on_disk_even_in_the_wal(paths, tmp_path):
    service = MemoryService(*paths, sites=SiteStore(paths[1].parent))
    service.sites.update("claude.ai", long_term=True)
    m, _ = service.add(f"Prefers {MARKERS[0]} and {MARKERS[1]}", "preference", tags=[MARKERS[3]])
    service.add(MARKERS[2], "preference")
    service.update(m.id, "Prefers something else now")  # the marker text moves to old_texts
    service.add(f"Note {MARKERS[4]}", "context")
    service.update(service.list()[0].id, "Rewritten")
    # While open: the WAL and SHM files exist and hold the newest pages.
    assert any(p.endswith("-wal") for p in files_under(tmp_path))
    assert assert_no_marker(tmp_path) >= 4
    service.close()
    assert assert_no_marker(tmp_path) >= 3
    assert MARKERS[1] in MemoryService(*paths).get(m.id).old_texts[0].text  # it is there, encrypted


def test_key_and_vault_files_are_private(paths):
    Vault.open(*paths).close()
    assert stat.S_IMODE(paths[1].stat().st_mode) == 0o600
    assert stat.S_IMODE(paths[0].stat().st_mode) == 0o600
    assert len(paths[1].read_bytes()) == 32


def test_wrong_key_is_named_and_nothing_changes(paths):
    vault = Vault.open(*paths)
    vault.insert([memory("Prefers tea")])
    vault.close()
    before = paths[0].read_bytes()
    paths[1].unlink()
    crypto.create_key(paths[1])
    with pytest.raises(VaultUnavailable) as err:
        Vault.open(*paths)
    assert "wrong key" in err.value.message and str(paths[1]) in err.value.message
    assert paths[0].read_bytes() == before


def test_missing_key_for_an_existing_vault_makes_no_new_key(paths):
    vault = Vault.open(*paths)
    vault.insert([memory("Prefers tea")])
    vault.close()
    paths[1].unlink()
    with pytest.raises(VaultUnavailable) as err:
        Vault.open(*paths)
    assert "missing" in err.value.message
    assert not paths[1].exists()


def test_service_reports_key_problem_each_call_and_recovers_when_key_restored(paths):
    service = MemoryService(*paths)
    service.add("Prefers tea", "preference")
    service.close()
    good = paths[1].read_bytes()
    paths[1].write_bytes(os.urandom(32))
    service = MemoryService(*paths)
    for _ in range(2):
        with pytest.raises(VaultUnavailable):
            service.list()
    paths[1].write_bytes(good)
    assert [m.text for m in service.list()] == ["Prefers tea"]


def _tamper(db, memory_id):
    conn = sqlite3.connect(db)
    blob = bytearray(conn.execute("SELECT content FROM memories WHERE id = ?", (memory_id,)).fetchone()[0])
    blob[20] ^= 0x01
    conn.execute("UPDATE memories SET content = ? WHERE id = ?", (bytes(blob), memory_id))
    conn.commit()
    conn.close()
    return bytes(blob)


def test_tampered_row_is_named_kept_and_never_overwritten(paths):
    service = MemoryService(*paths)
    bad, _ = service.add("Prefers tea", "preference")
    good, _ = service.add("Lives in Berlin", "context")
    service.close()
    tampered = _tamper(paths[0], bad.id)

    service = MemoryService(*paths)
    assert [m.id for m in service.list()] == [good.id]  # the others still load
    assert [d.memory_id for d in service.damaged_rows()] == [bad.id]
    with pytest.raises(MemoryDamaged) as err:
        service.get(bad.id)
    assert bad.id in err.value.message
    with pytest.raises(MemoryDamaged):
        service.update(bad.id, "Prefers coffee")
    stored = sqlite3.connect(paths[0]).execute("SELECT content FROM memories WHERE id = ?", (bad.id,)).fetchone()[0]
    assert stored == tampered
    service.delete(bad.id)  # deleting stays the user's choice
    assert service.damaged_rows() == []


def test_row_copied_over_another_does_not_decrypt(paths):
    vault = Vault.open(*paths)
    a, b = vault.insert([memory("Prefers tea"), memory("Prefers coffee")])
    conn = sqlite3.connect(paths[0])
    blob = conn.execute("SELECT content FROM memories WHERE id = ?", (a.id,)).fetchone()[0]
    conn.execute("UPDATE memories SET content = ? WHERE id = ?", (blob, b.id))
    conn.commit()
    loaded, damaged = vault.load()
    assert [m.id for m in loaded] == [a.id]
    assert [d.memory_id for d in damaged] == [b.id]


def test_other_process_changes_are_picked_up_before_a_read(paths):
    host = MemoryService(*paths)
    kept, _ = host.add("Prefers tea", "preference")
    gone, _ = host.add("Lives in Berlin", "context")
    cli = MemoryService(*paths)
    cli.update(kept.id, "Prefers green tea")
    cli.delete(gone.id)
    cli.add("Speaks Japanese", "skill")
    assert sorted(m.text for m in host.list()) == ["Prefers green tea", "Speaks Japanese"]
    assert [h.memory.text for h in host.index.search("japanese")] == ["Speaks Japanese"]
    assert host.get(kept.id).old_texts[0].text == "Prefers tea"


def test_nothing_is_created_until_a_memory_is_written(paths):
    service = MemoryService(*paths)
    assert service.list() == [] and service.ready() is False
    assert not paths[0].exists() and not paths[1].exists()


@pytest.mark.parametrize("column, value, reason", [
    ("type", "fact", "type 'fact' is not one this version knows"),
    ("confidence", "abc", "confidence column holds str"),
    ("confidence", 7.5, "confidence is outside 0..1"),
    ("created_at", "yesterday", "created_at column holds str"),
    ("updated_at", float("inf"), "updated_at column holds float, not a finite number"),
    ("usage_count", 1.5, "usage_count column holds float"),
    ("rev", "x", "rev column holds str"),
    ("pinned_at", "soon", "pinned_at column holds str"),
    ("content", b"short", "content column is not a ciphertext"),
])
def test_a_row_with_a_bad_plain_column_is_listed_as_damaged_and_the_rest_served(paths, column, value, reason):
    service = MemoryService(*paths)
    bad, _ = service.add("Prefers tea", "preference")
    good, _ = service.add("Lives in Berlin", "context")
    service.close()
    conn = sqlite3.connect(paths[0])
    conn.execute(f"UPDATE memories SET {column} = ? WHERE id = ?", (value, bad.id))  # as a newer version might
    conn.commit()
    service = MemoryService(*paths)
    assert [m.id for m in service.list()] == [good.id]
    [damaged] = service.damaged_rows()
    assert damaged.memory_id == bad.id and reason in damaged.problem
    with pytest.raises(MemoryDamaged, match=reason):
        service.get(bad.id)
    assert service.get(good.id).text == "Lives in Berlin"
    # A running host sees the same when the row changes underneath it.
    conn.execute(f"UPDATE memories SET {column} = ?, rev = rev + 100 WHERE id = ?", (value, good.id))
    conn.commit()
    if column != "rev":  # (a row's rev is how a change is seen)
        assert service.list() == [] and {d.memory_id for d in service.damaged_rows()} == {bad.id, good.id}


SQL_VALUES = st.one_of(st.none(), st.integers(-2**63, 2**63 - 1), st.floats(allow_nan=True), st.text(max_size=50),
                       st.binary(max_size=64))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(column=st.sampled_from(["type", "site", "confidence", "created_at", "updated_at", "usage_count",
                               "last_used_at", "rev", "pinned_at", "content"]), value=SQL_VALUES)
def test_any_value_in_any_plain_column_is_served_or_named_never_a_crash(tmp_path_factory, column, value):
    root = tmp_path_factory.mktemp("fuzz")
    vault = Vault.open(root / "m.db", root / "k")
    bad, good = vault.insert([memory("Prefers tea"), memory("Lives in Berlin", type="context")])
    conn = sqlite3.connect(root / "m.db")
    try:
        conn.execute(f"UPDATE memories SET {column} = ? WHERE id = ?", (value, bad.id))
    except sqlite3.IntegrityError:
        return  # NOT NULL refused it: SQLite itself keeps the row whole
    conn.commit()
    loaded, damaged = vault.load()
    assert good.id in [m.id for m in loaded]
    assert {m.id for m in loaded} | {d.memory_id for d in damaged} == {bad.id, good.id}
    for m in loaded:  # what is served has the shape the wire needs, as strict JSON
        json.dumps(out(m).model_dump(mode="json"), allow_nan=False)
    vault.close()
