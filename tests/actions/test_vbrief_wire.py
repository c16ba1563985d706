"""vbrief.export / vbrief.load / vbrief.import through the real dispatch core in-process."""

import json
import re

import pytest

from support.host import isolated_env
from support.inprocess import InProcessHost
from support.vbrief import without_import_differences
from whiteboard.vbrief.models import VBriefDocument

KEY = "chatgpt.com:412"
SECRETS = ["sk-proj-Abcdefghijklmnopqrstuvwxyz012345", "jane.doe@example.org", "my bank PIN is 4921",
           "hunter2hunter2", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"]


def conversation(n):
    turns = []
    for i in range(n):
        turns.append(("user", f"Question {i}: should module {i} use Redis or SQLite? I prefer SQLite because "
                              f"it needs no server. We have {i * 10} users. What is the next step?"))
        turns.append(("assistant", f"Answer {i}: SQLite fits {i * 10} users well. Keep the WAL on. "
                                   "You will need a backup job. " * 3))
    return turns


def add_all(host, key, turns, source="chat"):
    for role, content in turns:
        assert host.request("session.add", key=key, role=role, content=content, source=source)["ok"]


def test_export_import_export_round_trip_over_the_wire(host):
    add_all(host, KEY, conversation(30))  # over the 50-message cap: seed + 50 + a rolling summary
    long_turns = [("assistant", "The long design note explains every module in detail. " * 45)] * 2
    add_all(host, KEY, long_turns)  # a heavy tail leaves older held messages out of the context
    add_all(host, KEY, [("user", "Kyoto has 1,600 temples.")], source="selection")
    assert host.request("session.context", key=KEY)["distilled"]  # a send: what it left out is folded
    first = host.request("vbrief.export", key=KEY)
    assert first["ok"], first
    doc = first["document"]
    VBriefDocument.model_validate(doc)
    snap = doc["sessionSnapshot"]
    assert len(snap["observations"]) == 51 and snap["sessionInfo"]["context"]  # the summary travels along
    # Held messages already folded into that summary are marked, a prefix after the seed.
    summarised = ["summarised" in o["tags"] for o in snap["observations"]]
    assert summarised[0] is False and summarised[1] is True and summarised[-1] is False
    assert summarised[1:] == sorted(summarised[1:], reverse=True)
    assert snap["observations"][-1]["tool"] == "selection"

    imported = host.request("vbrief.import", key="chatgpt.com:77", document=doc)
    assert imported == {"id": imported["id"], "ok": True, "count": 50, "redacted": 0}
    second = host.request("vbrief.export", key="chatgpt.com:77")
    assert without_import_differences(second["document"]) == without_import_differences(doc)
    again = host.request("vbrief.export", key=KEY)["document"]
    again["vBRIEFInfo"]["created"] = doc["vBRIEFInfo"]["created"]
    assert again == doc  # exporting changes nothing
    got = host.request("session.get", key="chatgpt.com:77")
    assert [m["content"] for m in got["messages"]] == [o["input"] or o["output"] for o in snap["observations"]]


def test_load_over_pipes_fits_the_budget_and_prices_the_rest(host):
    add_all(host, KEY, conversation(12))
    doc = host.request("vbrief.export", key=KEY)["document"]
    costs = [t["tokenCost"] for t in doc["vBRIEFInfo"]["memoryTiers"]]
    budget = costs[0] + costs[1] + costs[2] + 1
    got = host.request("vbrief.load", document=doc, budget=budget)
    assert got["ok"] and got["budget"] == budget
    assert [t["tier"] for t in got["loaded"]] == [0, 1, 2] and got["used_tokens"] == sum(costs[:3]) <= budget
    assert got["remaining"] == [{"tier": 3, "label": "learnings", "tokenCost": costs[3]},
                                {"tier": 4, "label": "raw", "tokenCost": costs[4]}]
    assert got["loaded"][2]["content"] == doc["vBRIEFInfo"]["memoryTiers"][2]["content"]
    everything = host.request("vbrief.load", document=doc, budget=sum(costs))
    assert everything["remaining"] == [] and everything["used_tokens"] == sum(costs)


def test_a_session_with_secrets_exports_none_of_them_over_the_wire(host):
    add_all(host, KEY, [
        ("user", f"My key is {SECRETS[0]} and mail goes to {SECRETS[1]}. <private>{SECRETS[2]}</private> ok?"),
        ("assistant", f"Do not share keys. Set DB_PASSWORD={SECRETS[3]} in the environment instead."),
        ("user", f"The CI uses {SECRETS[4]} as its token. We decided to rotate it on Friday."),
    ] * 4)
    got = host.request("vbrief.export", key=KEY)
    text = json.dumps(got, ensure_ascii=False)
    for secret in SECRETS:
        assert secret not in text
    # The PIN as a number of its own (a timestamp's digits may hold 4921 by chance).
    assert not re.search(r"(?<!\d)4921(?!\d)", text) and "[REDACTED]" in text
    patterns = {p for o in got["document"]["sessionSnapshot"]["observations"] if o["redactionInfo"]
                for p in o["redactionInfo"]["patterns"]}
    assert {"api_key", "email", "private", "assignment"} <= patterns


def test_an_export_over_the_reply_limit_is_too_large_and_loses_nothing(host):
    huge = "All work and no play makes a very long message. " * 12_000  # ~590 kB each
    add_all(host, KEY, [("user", huge), ("assistant", huge)])
    got = host.request("vbrief.export", key=KEY)
    assert got["ok"] is False and got["error"]["code"] == "too_large"
    assert "1048576" in got["error"]["message"] and "makes a very" not in got["error"]["message"]
    assert host.request("ping")["ok"]
    assert host.request("session.list")["sessions"] == [
        {"key": KEY, "count": 2, "started_at": pytest.approx(0, abs=1e10)}]
    assert host.request("vbrief.export", key=KEY)["error"]["code"] == "too_large"  # the same, again


def test_unknown_key_is_not_found(host):
    got = host.request("vbrief.export", key="claude.ai:404")
    assert got["error"]["code"] == "not_found"


def test_a_bad_document_is_bad_request_and_changes_nothing(host):
    add_all(host, KEY, conversation(3))
    add_all(host, "claude.ai:5", [("user", "keep me")])
    doc = host.request("vbrief.export", key=KEY)["document"]
    broken = json.loads(json.dumps(doc))
    broken["sessionSnapshot"]["observations"][2]["tool"] = "shell"
    got = host.request("vbrief.import", key="claude.ai:5", document=broken, replace=True)
    assert got["error"]["code"] == "bad_request"
    assert "document.sessionSnapshot.observations.2.tool" in got["error"]["message"]
    assert [m["content"] for m in host.request("session.get", key="claude.ai:5")["messages"]] == ["keep me"]
    got = host.request("vbrief.load", document={"vBRIEFInfo": {"version": "0.2"}}, budget=100)
    assert got["error"]["code"] == "bad_request" and "sessionSnapshot" in got["error"]["message"]
    got = host.request("vbrief.import", key="claude.ai:5", document=doc)
    assert got["error"]["code"] == "bad_request" and "replace" in got["error"]["message"]


def test_the_configured_model_summarises_and_its_output_is_filtered_too(tmp_path, fake_openai):
    def answer(body):
        system = body["messages"][0]["content"]
        if "memory of the conversation" in system:
            return "- They chose SQLite for 10 users.\n- Contact: jane.doe@example.org"
        return "- rolling summary"

    fake_openai.chat_answer = answer
    env = isolated_env(tmp_path / "env", WHITEBOARD_LLM_BASE_URL=fake_openai.base_url, WHITEBOARD_LLM_MODEL="m")
    with InProcessHost(env=env) as host:
        add_all(host, KEY, conversation(6))
        got = host.request("vbrief.export", key=KEY)
    assert got["ok"], got
    observations = got["document"]["sessionSnapshot"]["observations"]
    semantic = [o["compressed"] for o in observations if o["compressionLevel"] in ("semantic", "aggregated")]
    assert semantic and all(c["compressionMethod"] == "llm-summarize" for c in semantic)
    assert semantic[0]["summary"].startswith("They chose SQLite for 10 users.")
    assert "jane.doe" not in json.dumps(got)
    stats = got["document"]["sessionSnapshot"]["compressionStats"]
    assert stats["methodUsage"]["llm-summarize"] == len(semantic)
    prompts = [r.json["messages"][1]["content"] for r in fake_openai.chat_requests()
               if "memory of the conversation" in r.json["messages"][0]["content"]]
    assert len(prompts) == len(semantic) and "Question" in prompts[0]


def test_exporting_again_asks_the_model_only_about_what_is_new(tmp_path, fake_openai):
    # The popup exports on every open: unchanged messages must not go to the model again.
    fake_openai.chat_answer = lambda body: "- They chose SQLite."
    env = isolated_env(tmp_path / "env", WHITEBOARD_LLM_BASE_URL=fake_openai.base_url, WHITEBOARD_LLM_MODEL="m")

    def asked():
        return len([r for r in fake_openai.chat_requests()
                    if "memory of the conversation" in r.json["messages"][0]["content"]])

    with InProcessHost(env=env) as host:
        add_all(host, KEY, conversation(8))
        first = host.request("vbrief.export", key=KEY)["document"]
        after_first = asked()
        again = host.request("vbrief.export", key=KEY)["document"]
        assert asked() == after_first > 0
        assert again["sessionSnapshot"]["observations"] == first["sessionSnapshot"]["observations"]
        add_all(host, KEY, conversation(1))  # two new messages; older ones move down a level
        host.request("vbrief.export", key=KEY)
        assert 0 < asked() - after_first < after_first
        host.request("session.clear", key=KEY)  # the cached summaries go with the session
        add_all(host, KEY, conversation(8))
        before = asked()
        host.request("vbrief.export", key=KEY)
        assert asked() - before == after_first


def test_a_model_that_fails_leaves_the_extractive_method(tmp_path):
    # Nothing listens on the discard port: the export falls back and still succeeds.
    env = isolated_env(tmp_path / "env", WHITEBOARD_LLM_BASE_URL="http://127.0.0.1:9/v1", WHITEBOARD_LLM_MODEL="m")
    with InProcessHost(env=env) as host:
        add_all(host, KEY, conversation(6))
        got = host.request("vbrief.export", key=KEY)
    methods = {o["compressed"]["compressionMethod"] for o in got["document"]["sessionSnapshot"]["observations"]
               if o["compressed"]}
    assert methods == {"semantic-extract"}


@pytest.mark.parametrize("budget", [0, 200_001])
def test_a_budget_out_of_range_is_bad_request(host, budget):
    add_all(host, KEY, conversation(1))
    doc = host.request("vbrief.export", key=KEY)["document"]
    got = host.request("vbrief.load", document=doc, budget=budget)
    assert got["error"]["code"] == "bad_request" and "budget" in got["error"]["message"]
