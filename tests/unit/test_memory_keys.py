"""The shared key file and dedupe across processes: real processes racing on real files.

Two browsers run two hosts; the CLI is a third process. Each race starts its processes
at a barrier so that they hit the key file / the vault in the same instant.
"""

import base64
import hashlib
import json
import multiprocessing
import sqlite3
import stat
import time

import pytest

from whiteboard import crypto
from whiteboard import text as T
from whiteboard.llm.settings import SettingsStore
from whiteboard.memory.errors import VaultUnavailable
from whiteboard.memory.model import Memory, new_memory_id
from whiteboard.memory.service import MemoryService
from whiteboard.memory.store.vault import Vault
from whiteboard.protocol.errors import BadRequest, Unavailable
from whiteboard.sites import SiteStore

CTX = multiprocessing.get_context("fork")


@pytest.fixture
def paths(tmp_path):
    return tmp_path / "data" / "memories.db", tmp_path / "config" / "secret.key"


def _race(target, args_list, timeout=60.0):
    """Run target(barrier, queue, *args) in one process per args, started together; their results."""
    barrier, queue = CTX.Barrier(len(args_list)), CTX.Queue()
    procs = [CTX.Process(target=target, args=(barrier, queue, *args)) for args in args_list]
    for p in procs:
        p.start()
    results = [queue.get(timeout=timeout) for _ in procs]
    for p in procs:
        p.join(timeout)
        assert p.exitcode == 0
    return results


def _create_key(barrier, queue, path):
    barrier.wait()
    try:
        queue.put(("ok", crypto.load_or_create_key(path)))
    except Exception as exc:  # noqa: BLE001 - reported to the test
        queue.put(("error", repr(exc)))


def _first_add(barrier, queue, vault, key, text):
    service = MemoryService(vault, key, sites=SiteStore(key.parent))
    barrier.wait()
    try:
        memory, created = service.add(text, "preference")
        queue.put(("ok", memory.id, created))
    except Exception as exc:  # noqa: BLE001
        queue.put(("error", repr(exc), None))
    finally:
        service.close()


def _add_all(barrier, queue, vault, key, texts):
    service = MemoryService(vault, key, sites=SiteStore(key.parent))
    service.ready()
    barrier.wait()
    created = 0
    for text in texts:
        created += service.add(text, "preference")[1]
    service.close()
    queue.put(created)


def test_concurrent_key_creation_gives_every_process_the_same_whole_key(tmp_path):
    for trial in range(20):
        path = tmp_path / f"trial{trial}" / "secret.key"
        results = _race(_create_key, [(path,)] * 4)
        assert {r[0] for r in results} == {"ok"}, results
        assert len({r[1] for r in results}) == 1 and results[0][1] == path.read_bytes()
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert [p.name for p in path.parent.iterdir()] == ["secret.key"]  # no temp file left


def test_two_hosts_making_their_first_memory_together_both_succeed(tmp_path):
    for trial in range(20):
        vault, key = tmp_path / f"t{trial}" / "data" / "memories.db", tmp_path / f"t{trial}" / "config" / "secret.key"
        results = _race(_first_add, [(vault, key, "Prefers tea"), (vault, key, "Lives in Berlin")])
        assert [r[0] for r in results] == ["ok", "ok"], results
        assert sorted(m.text for m in MemoryService(vault, key).list()) == ["Lives in Berlin", "Prefers tea"]


def test_two_hosts_adding_the_same_texts_at_once_store_each_once(paths):
    vault, key = paths
    MemoryService(vault, key).add("Seed memory", "context")
    texts = [f"Prefers option number {i} for testing" for i in range(100)]
    created = _race(_add_all, [(vault, key, texts), (vault, key, list(reversed(texts))),
                               (vault, key, texts[::2] + texts[1::2])])
    assert sum(created) == 100  # exactly one process created each
    rows = sqlite3.connect(vault).execute("SELECT count(*), count(DISTINCT text_key) FROM memories").fetchone()
    assert rows == (101, 101)
    assert sorted(m.text for m in MemoryService(vault, key).list()) == sorted([*texts, "Seed memory"])


def test_a_text_stored_by_another_process_is_returned_not_added(paths):
    host, cli = MemoryService(*paths), MemoryService(*paths)
    host.add("Seed", "context")
    cli.ready()
    first, created = host.add("Writes in British English", "preference")
    # cli's index has not seen it yet; the vault's unique key decides.
    again, created_again = cli.add("  writes in british english. ", "preference")
    assert created and not created_again and again.id == first.id
    assert len(cli.list()) == 2


def test_the_uniqueness_key_is_keyed_never_a_plain_hash(paths):
    service = MemoryService(*paths)
    service.add("Prefers tea", "preference")
    stored = sqlite3.connect(paths[0]).execute("SELECT text_key FROM memories").fetchone()[0]
    normal = T.normalized("Prefers tea").encode()
    assert stored not in {hashlib.sha256(normal).digest(), hashlib.sha1(normal).digest(), hashlib.md5(normal).digest()}
    other = Vault.open(paths[0].parent.parent / "other" / "m.db", paths[0].parent.parent / "other" / "k")
    assert other.text_key("Prefers tea") != stored  # another key, another hash
    assert service.vault().text_key("prefers  TEA!") == stored


def test_rows_from_before_the_uniqueness_key_get_it_and_duplicates_are_kept(paths):
    vault = Vault.open(*paths)
    now = time.time()
    made = [Memory(id=new_memory_id(), type="preference", text=t, created_at=now, updated_at=now)
            for t in ("Prefers tea", "Prefers tea", "Lives in Berlin")]
    vault.insert(made[:1])
    conn = sqlite3.connect(paths[0])
    conn.execute("UPDATE memories SET text_key = NULL")  # as an older version wrote them
    conn.commit()
    for m in made[1:]:
        vault.insert([m])
        conn.execute("UPDATE memories SET text_key = NULL")
        conn.commit()
    vault.close()
    service = MemoryService(*paths)
    assert sorted(m.text for m in service.list()) == ["Lives in Berlin", "Prefers tea", "Prefers tea"]
    keys = [r[0] for r in sqlite3.connect(paths[0]).execute("SELECT text_key FROM memories ORDER BY created_at")]
    assert sum(k is None for k in keys) == 1  # one of the twins: nothing deleted for being a duplicate
    assert service.add("Prefers tea", "preference")[1] is False
    assert service.add("Lives in Berlin", "context")[1] is False


def test_editing_a_memory_into_anothers_text_names_the_other(paths):
    service = MemoryService(*paths)
    tea, _ = service.add("Prefers tea", "preference")
    coffee, _ = service.add("Prefers coffee", "preference")
    with pytest.raises(BadRequest, match=tea.id):
        service.update(coffee.id, "prefers TEA")
    assert {m.text for m in service.list()} == {"Prefers tea", "Prefers coffee"}


# ---- a missing key file is never silently replaced ----------------------------------


def test_model_settings_refuse_a_new_key_while_the_vault_exists(tmp_path):
    config, vault = tmp_path / "config", tmp_path / "data" / "memories.db"
    service = MemoryService(vault, config / "secret.key", sites=SiteStore(config))
    service.add("Prefers tea", "preference")
    service.close()
    (config / "secret.key").unlink()
    store = SettingsStore(config, vault_path=vault)
    with pytest.raises(Unavailable) as err:
        store.update(preset="openai", api_key="sk-test-abc")
    assert err.value.reason == "key_missing"
    assert str(config / "secret.key") in err.value.message and str(vault) in err.value.message
    assert "sk-test" not in err.value.message
    assert not (config / "secret.key").exists() and not store.path.exists()


def test_the_vault_refuses_a_new_key_while_a_stored_api_key_exists(tmp_path):
    config, vault = tmp_path / "config", tmp_path / "data" / "memories.db"
    store = SettingsStore(config, vault_path=vault)
    store.update(preset="openai", api_key="sk-test-abc")
    settings_before = store.path.read_bytes()
    (config / "secret.key").unlink()
    service = MemoryService(vault, config / "secret.key", sites=SiteStore(config))
    with pytest.raises(VaultUnavailable) as err:
        service.add("Prefers tea", "preference")
    assert err.value.reason == "key_missing"
    assert str(config / "secret.key") in err.value.message and str(store.path) in err.value.message
    assert not (config / "secret.key").exists() and not vault.exists()
    assert store.path.read_bytes() == settings_before


def test_with_nothing_encrypted_yet_a_key_is_made(tmp_path):
    config, vault = tmp_path / "config", tmp_path / "data" / "memories.db"
    store = SettingsStore(config, vault_path=vault)
    store.update(preset="openai")  # no API key: nothing encrypted
    store.update(api_key="sk-test-abc")
    assert (config / "secret.key").exists()
    blob = base64.b64decode(json.loads(store.path.read_text())["api_key_enc"])
    assert crypto.decrypt((config / "secret.key").read_bytes(), blob, b"whiteboard:llm:api_key") == b"sk-test-abc"
    MemoryService(vault, config / "secret.key", sites=SiteStore(config)).add("Prefers tea", "preference")
    assert store.api_key(store.load()) == "sk-test-abc"  # the vault used the same key
