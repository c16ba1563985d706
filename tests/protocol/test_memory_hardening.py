


"""The vault and its key over real pipes, in the audit's unlucky cases: a key file gone


while data encrypted with it exists, two browsers' hosts starting memory together, rows


another version wrote, and config or data dirs the host cannot write."""


import shutil
import subprocess
import sys
import threading

import pytest

from support.host import HostProcess, isolated_env, ok


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


def test_two_hosts_changing_one_memory_keep_every_edit(tmp_path):
    # One host flips the type 300 times while another edits the text 300 times: a type
    # change had written back the text its host had read, undoing edits made meanwhile.
    env = isolated_env(tmp_path)
    with HostProcess(env=env) as a, HostProcess(env=env) as b:
        memory_id = ok(a.request("memory.add", text="Edit 0 of the plan", memory_type="context"))["memory_id"]
        types = ("skill", "context")

        def flip():
            for i in range(300):
                ok(a.request("memory.update", memory_id=memory_id, memory_type=types[i % 2]))

        flipper = threading.Thread(target=flip)
        flipper.start()
        kept, conflicts = [0], 0
        for i in range(1, 301):
            fields = {"text": f"Edit {i} of the plan"}
            if i % 3 == 0:  # an edit of the text as read: it must not land on a newer one
                fields["rev"] = ok(b.request("memory.get", memory_id=memory_id))["memory"]["rev"]
            reply = b.request("memory.update", memory_id=memory_id, **fields)
            if reply["ok"]:
                # The text this edit replaced is the one before it: no other text came back between.
                assert reply["memory"]["old_texts"][-1]["text"] == f"Edit {kept[-1]} of the plan", (i, kept[-1])
                kept.append(i)
            else:
                assert "rev" in fields and reply["error"].get("reason") == "conflict", reply
                conflicts += 1
        flipper.join(120)
        final = ok(a.request("memory.get", memory_id=memory_id))["memory"]
    assert final["text"] == f"Edit {kept[-1]} of the plan" and final["type"] == types[299 % 2]
    assert len(kept) + conflicts == 301
    # The earlier texts are the kept edits in order: no text ever came back.
    assert [o["text"] for o in final["old_texts"]] == [f"Edit {i} of the plan" for i in kept[-21:-1]]
