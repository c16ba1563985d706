"""session.* through the real dispatch core in-process: the round trip, redaction before
anything is kept, the message cap keeping the seed and summarising what it dropped, a
context for a query and what it kept."""

from support.inprocess import InProcessHost

KEY = "chatgpt.com:7"


def test_session_round_trip(host):
    assert host.request("session.add", key=KEY, role="user", content="Plan a trip to Kyoto in April")["count"] == 1
    assert host.request("session.add", key=KEY, role="assistant", content="Day one: Fushimi Inari")["count"] == 2
    got = host.request("session.get", key=KEY)
    assert [m["role"] for m in got["messages"]] == ["user", "assistant"]
    assert got["messages"][0]["content"] == "Plan a trip to Kyoto in April"
    ctx = host.request("session.context", key=KEY, budget=2000)
    assert "Kyoto" in ctx["context"] and "Fushimi" in ctx["context"]
    assert 0 < ctx["used_tokens"] <= 2000 and ctx["budget"] == 2000 and ctx["distilled"] is False
    assert host.request("session.context", key=KEY)["budget"] == 2000  # the default
    listed = host.request("session.list")["sessions"]
    assert [s["key"] for s in listed] == [KEY] and listed[0]["count"] == 2
    assert host.request("session.clear", key=KEY)["cleared"] is True
    assert host.request("session.clear", key=KEY)["cleared"] is False
    host.request("session.add", key="claude.ai:1", role="user", content="a")
    host.request("session.add", key="claude.ai:2", role="user", content="b")
    assert host.request("session.clear_all")["cleared"] == 2
    assert host.request("session.list")["sessions"] == []


def test_context_of_an_unknown_session_is_empty(host):
    reply = host.request("session.context", key="claude.ai:404", budget=100)
    assert reply["ok"] and reply["context"] == "" and reply["used_tokens"] == 0


def test_secrets_are_redacted_before_they_are_kept(host):
    reply = host.request("session.add", key=KEY, role="user",
                         content="key sk-proj-AbCdEf0123456789xyzXYZ01 <private>my salary</private> mail a@b.io")
    assert reply["redacted"] == 3 and set(reply["redacted_kinds"]) == {"api_key", "private", "email"}
    stored = host.request("session.get", key=KEY)["messages"][0]["content"]
    assert "sk-proj" not in stored and "salary" not in stored and "a@b.io" not in stored
    assert "[REDACTED]" in stored


def test_cap_keeps_the_seed_and_summarises_what_was_dropped(host_env):
    env = dict(host_env, WHITEBOARD_MAX_MESSAGES="5")
    with InProcessHost(env=env) as host:
        host.request("session.add", key=KEY, role="user", content="SEED: we are building a Chrome extension.")
        for i in range(12):
            host.request("session.add", key=KEY, role="user", content=f"Erin decided on option {i}.")
        ctx = host.request("session.context", key=KEY, budget=2000)
        assert "SEED" in ctx["context"] and ctx["distilled"] is True
        got = host.request("session.get", key=KEY)
        assert got["messages"][0]["content"].startswith("SEED")
        assert "option 6" in got["summary"] and "option 7" not in got["summary"]


def test_context_for_a_query_brings_what_it_asks_about_and_says_what_it_kept(host):
    host.request("session.add", key=KEY, role="user", content="Plan my week, please.")
    host.request("session.add", key=KEY, role="assistant", content="My sister Ada moved to Lisbon last spring.")
    for i in range(40):
        host.request("session.add", key=KEY, role="user" if i % 2 else "assistant",
                     content=f"Turn {i}: small talk about the weather and what we had for lunch today.")
    plain = host.request("session.context", key=KEY, budget=300)
    asked = host.request("session.context", key=KEY, budget=300, query="Where did Ada move to?")
    line = "[assistant] My sister Ada moved to Lisbon last spring."
    assert line not in plain["context"] and line in asked["context"]  # (the summary may mention it)
    for reply in (plain, asked):
        assert reply["used_tokens"] <= 300 and reply["distilled"] is True
        assert sum(reply["kept"].values()) == 42 and reply["kept"]["summarised"] > 0
    assert "messages left out …]" in asked["context"] or "summarised above …]" in asked["context"]
    # The popup's meter reads the same counts from session.get.
    assert host.request("session.get", key=KEY)["kept"]["full"] > 0
