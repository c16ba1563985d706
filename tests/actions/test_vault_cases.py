"""The vault and its key in the audit's unlucky cases, through the real dispatch core
in-process: a key file gone while data encrypted with it exists, and rows another version
wrote. (Two hosts at once and read-only dirs need processes: tests/protocol/test_memory_hardening.py.)"""

import sqlite3

import pytest

from support.host import isolated_env, key_path, ok, vault_path
from support.inprocess import InProcessHost


def test_a_missing_key_file_is_not_replaced_by_saving_an_api_key(tmp_path):
    env = isolated_env(tmp_path)
    with InProcessHost(env=env) as host:
        ok(host.request("memory.add", text="Prefers tea", memory_type="preference"))
    good = key_path(tmp_path).read_bytes()
    key_path(tmp_path).unlink()
    with InProcessHost(env=env) as host:
        reply = host.request("llm.settings.set", preset="openai", api_key="sk-test-0123456789abcdef")
        error = reply["error"]
        assert error["code"] == "unavailable" and error["reason"] == "key_missing"
        assert str(key_path(tmp_path)) in error["message"] and str(vault_path(tmp_path)) in error["message"]
        assert "sk-test" not in error["message"]
        assert not key_path(tmp_path).exists()
        listed = host.request("memory.list")
        assert listed["error"]["code"] == "unavailable" and listed["error"]["reason"] == "key_missing"
        key_path(tmp_path).write_bytes(good)  # restored: everything works again, nothing lost
        assert [m["text"] for m in ok(host.request("memory.list"))["memories"]] == ["Prefers tea"]
        ok(host.request("llm.settings.set", preset="openai", api_key="sk-test-0123456789abcdef"))
        assert ok(host.request("llm.settings.get"))["api_key_set"] is True


@pytest.mark.parametrize("column, value", [("type", "fact"), ("confidence", "abc")])
def test_a_row_another_version_wrote_is_named_and_the_rest_served(tmp_path, column, value):
    env = isolated_env(tmp_path)
    with InProcessHost(env=env) as host:
        bad = ok(host.request("memory.add", text="Prefers tea", memory_type="preference"))["memory_id"]
        good = ok(host.request("memory.add", text="Lives in Oslo", memory_type="context"))["memory_id"]
        conn = sqlite3.connect(vault_path(tmp_path))
        conn.execute(f"UPDATE memories SET {column} = ?, rev = rev + 10 WHERE id = ?", (value, bad))
        conn.commit()
        conn.close()
        listed = ok(host.request("memory.list"))  # the running host: the change is seen before the read
        assert [m["memory_id"] for m in listed["memories"]] == [good]
        assert [d["memory_id"] for d in listed["damaged"]] == [bad] and column in listed["damaged"][0]["problem"]
        reply = host.request("memory.get", memory_id=bad)
        assert reply["error"]["code"] == "unavailable" and bad in reply["error"]["message"]
        assert ok(host.request("memory.get", memory_id=good))["memory"]["text"] == "Lives in Oslo"
    with InProcessHost(env=env) as host:  # and a fresh one
        listed = ok(host.request("memory.list"))
        assert [m["memory_id"] for m in listed["memories"]] == [good]
        assert [d["memory_id"] for d in ok(host.request("memory.export"))["damaged"]] == [bad]
