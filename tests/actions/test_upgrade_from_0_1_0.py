"""A user's 0.1.0 install (tests/data/vault-0.1.0: the vault, key and settings that release's
host wrote) seen through this release's requests: what the memory page, the popup and
Options show is what 0.1.0 showed."""

from pathlib import Path

from support.host import isolated_env
from support.inprocess import InProcessHost
from support.old_release import copy_0_1_0, expected_0_1_0
from whiteboard.memory.store import schema

EXPECTED = expected_0_1_0()


def upgraded_env(tmp_path, **extra):
    config, data = tmp_path / "old" / "config", tmp_path / "old" / "data"
    copy_0_1_0(config, data)
    return isolated_env(tmp_path / "env", WHITEBOARD_CONFIG_DIR=str(config), WHITEBOARD_DATA_DIR=str(data), **extra)


def test_the_memory_page_shows_what_0_1_0_kept(tmp_path):
    with InProcessHost(env=upgraded_env(tmp_path)) as host:
        listed = host.request("memory.list", limit=200)
        got = {m["memory_id"]: host.request("memory.get", memory_id=m["memory_id"])["memory"]
               for m in listed["memories"]}
        suggestions = host.request("memory.suggestions")
        settings = host.request("memory.settings")
        sites = {site: host.request("site.settings", site=site) for site in EXPECTED["sites"]}
        status = host.request("memory.status")
    assert listed["ok"] and listed["damaged"] == [] and listed["total"] == len(EXPECTED["memories"])
    # Newest first, as 0.1.0 listed them; every field 0.1.0 gave, the same (new fields may be added).
    assert [m["memory_id"] for m in listed["memories"]] == [m["memory_id"] for m in EXPECTED["memories"]]
    for want in EXPECTED["memories"]:
        memory = got[want["memory_id"]]
        assert {k: memory.get(k) for k in want} == want
    assert suggestions["damaged"] == []
    assert [{k: s.get(k) for k in want} for s, want in zip(suggestions["suggestions"], EXPECTED["suggestions"])] \
        == EXPECTED["suggestions"] and len(suggestions["suggestions"]) == len(EXPECTED["suggestions"])
    assert {k: settings[k] for k in EXPECTED["memory_settings"]} == EXPECTED["memory_settings"]
    for site, want in EXPECTED["sites"].items():
        assert {k: sites[site][k] for k in want} == want
    assert status["memories"] == len(EXPECTED["memories"]) and status["suggestions"] == len(EXPECTED["suggestions"])
    assert status["damaged"] == [] and status["damaged_vectors"] == []


def test_the_model_settings_and_stored_api_key_still_work(tmp_path, fake_openai):
    # The stored base URL is OpenAI's: the environment points it at the fake server, so the
    # request shows the stored (0.1.0-encrypted) API key is sent.
    env = upgraded_env(tmp_path, WHITEBOARD_LLM_BASE_URL=fake_openai.base_url)
    with InProcessHost(env=upgraded_env(tmp_path / "plain")) as host:
        stored = host.request("llm.settings.get")
    with InProcessHost(env=env) as host:
        tested = host.request("llm.test")
    want = EXPECTED["llm_settings"]
    for name in ("configured", "preset", "base_url", "model", "api_key_set", "api_key_source", "read_timeout",
                 "total_timeout"):
        assert stored[name] == want[name], name
    assert EXPECTED["api_key"] not in str(stored)
    assert tested["ok"] and tested["model"] == want["model"]
    assert fake_openai.requests[0].headers["authorization"] == f"Bearer {EXPECTED['api_key']}"


def test_a_failed_upgrade_is_named_on_the_wire_and_changes_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(schema, "MIGRATIONS", [*schema.MIGRATIONS, ("900_test_ok", ("CREATE TABLE t (x)",)),
                                               ("901_test_broken", ("ALTER TABLE nowhere ADD COLUMN y",))])
    env = upgraded_env(tmp_path)
    db = Path(env["WHITEBOARD_DATA_DIR"]) / "memories.db"
    before = db.read_bytes()
    with InProcessHost(env=env) as host:
        listed = host.request("memory.list")
        pong = host.request("ping")
    assert not listed["ok"] and listed["error"]["code"] == "unavailable"
    assert listed["error"]["reason"] == "migration_failed" and "901_test_broken" in listed["error"]["message"]
    assert pong["ok"]  # everything else is served as usual
    assert db.read_bytes() == before
