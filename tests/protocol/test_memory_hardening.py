"""The vault and its key over real pipes, in the audit's unlucky cases: a key file gone
while data encrypted with it exists, two browsers' hosts starting memory together, rows
another version wrote, and config or data dirs the host cannot write."""

import shutil
import sqlite3
import subprocess
import sys

import pytest

from support.host import HostProcess, isolated_env


def vault_path(root):
    return root / "data" / "whiteboard" / "memories.db"


def key_path(root):
    return root / "config" / "whiteboard" / "secret.key"


def ok(reply):
    assert reply["ok"], reply
    return reply


def test_a_missing_key_file_is_not_replaced_by_saving_an_api_key(tmp_path):
    env = isolated_env(tmp_path)
    with HostProcess(env=env) as host:
        ok(host.request("memory.add", text="Prefers tea", memory_type="preference"))
    good = key_path(tmp_path).read_bytes()
    key_path(tmp_path).unlink()
    with HostProcess(env=env) as host:
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


def test_two_hosts_making_their_first_memory_at_once_both_succeed(tmp_path):
    for trial in range(3):
        env = isolated_env(tmp_path / str(trial))
        with HostProcess(env=env) as a, HostProcess(env=env) as b:
            assert ok(a.request("ping")) and ok(b.request("ping"))
            a.send({"id": 1, "type": "memory.add", "text": "Prefers tea", "memory_type": "preference"})
            b.send({"id": 1, "type": "memory.add", "text": "Prefers tea", "memory_type": "preference"})
            replies = [ok(a.recv()), ok(b.recv())]
            assert sorted(r["created"] for r in replies) == [False, True]
            assert replies[0]["memory_id"] == replies[1]["memory_id"]
            assert ok(a.request("memory.list"))["total"] == 1


@pytest.mark.parametrize("column, value", [("type", "fact"), ("confidence", "abc")])
def test_a_row_another_version_wrote_is_named_and_the_rest_served(tmp_path, column, value):
    env = isolated_env(tmp_path)
    with HostProcess(env=env) as host:
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
    with HostProcess(env=env) as host:  # and a fresh one
        listed = ok(host.request("memory.list"))
        assert [m["memory_id"] for m in listed["memories"]] == [good]
        assert [d["memory_id"] for d in ok(host.request("memory.export"))["damaged"]] == [bad]


# ---- read-only dirs: root ignores permissions, so the dir is bind-mounted read-only ----------


def _read_only(*dirs) -> list[str]:
    mounts = " && ".join(f"mount --bind -o ro '{d}' '{d}'" for d in dirs)
    return ["unshare", "-rm", "sh", "-c", f'{mounts} && exec "$0" "$@"']


def _can_mount_read_only(tmp_path) -> bool:
    if not shutil.which("unshare") or sys.platform != "linux":
        return False
    probe = tmp_path / "probe"
    probe.mkdir()
    done = subprocess.run([*_read_only(probe), "touch", str(probe / "x")], capture_output=True)
    return done.returncode != 0 and b"Read-only" in done.stderr


@pytest.fixture
def read_only_ok(tmp_path):
    if not _can_mount_read_only(tmp_path):
        pytest.skip("needs unshare with user and mount namespaces")


def test_a_read_only_config_dir_is_unavailable_with_a_reason(tmp_path, read_only_ok):
    env = isolated_env(tmp_path)
    with HostProcess(env=env, wrapper=_read_only(tmp_path / "config")) as host:
        for request, fields in (("site.settings", {"site": "claude.ai", "long_term": True}),
                                ("memory.add", {"text": "Prefers tea", "memory_type": "preference"}),
                                ("memory.settings", {"pinned_tokens": 50}),
                                ("llm.settings.set", {"preset": "openai", "api_key": "sk-test-0123456789abcdef"})):
            reply = host.request(request, **fields)
            assert reply["ok"] is False, (request, reply)
            assert (reply["error"]["code"], reply["error"].get("reason")) == ("unavailable", "read_only"), reply
            assert "sk-test" not in reply["error"]["message"]
        assert ok(host.request("site.settings", site="claude.ai"))["long_term"] is False  # reads still work
        assert ok(host.request("ping"))


def test_a_read_only_data_dir_is_unavailable_with_a_reason(tmp_path, read_only_ok):
    env = isolated_env(tmp_path)
    with HostProcess(env=env, wrapper=_read_only(tmp_path / "data")) as host:
        reply = host.request("memory.add", text="Prefers tea", memory_type="preference")
        assert (reply["error"]["code"], reply["error"].get("reason")) == ("unavailable", "read_only"), reply
    with HostProcess(env=env) as host:
        ok(host.request("memory.add", text="Prefers tea", memory_type="preference"))
    with HostProcess(env=env, wrapper=_read_only(tmp_path / "data")) as host:  # an existing vault
        reply = host.request("memory.add", text="Lives in Oslo", memory_type="context")
        assert (reply["error"]["code"], reply["error"].get("reason")) == ("unavailable", "read_only"), reply
        assert ok(host.request("ping"))
