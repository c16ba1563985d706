"""session.summary through the real dispatch core in-process: extractive at once, replaced by the model's summary
(held to 800 tokens) in the background; extractive when the model fails."""

import time

from support.fake_openai import fail, reply
from support.host import isolated_env
from support.inprocess import InProcessHost

KEY = "claude.ai:5"


def fill(host, n=12):
    for i in range(n):
        assert host.request("session.add", key=KEY, role="user" if i % 2 == 0 else "assistant",
                            content=f"Turn {i}: Dana decided to ship build {i} on day {i + 1}.")["ok"]


def poll(host, until, timeout=10.0):
    deadline = time.monotonic() + timeout
    while True:
        got = host.request("session.summary", key=KEY)
        if until(got) or time.monotonic() > deadline:
            return got
        time.sleep(0.05)


def test_the_model_summary_replaces_the_extractive_one_and_is_held_to_800_tokens(tmp_path, fake_openai):
    long_answer = "\n".join(f"- Dana decided on build {i}: " + "details " * 40 for i in range(100))
    fake_openai.script(reply(long_answer, first_delay=0.5))
    env = isolated_env(tmp_path / "env", WHITEBOARD_LLM_BASE_URL=fake_openai.base_url, WHITEBOARD_LLM_MODEL="m",
                       WHITEBOARD_MAX_MESSAGES="5")
    with InProcessHost(env=env) as host:
        fill(host)
        first = host.request("session.summary", key=KEY)
        assert first["ok"] and first["method"] == "extractive" and first["refining"] is True
        assert "build" in first["summary"] and 0 < first["tokens"] <= 800
        assert host.request("ping")["ok"]  # the model's work never blocks the reader
        done = poll(host, lambda r: r["method"] == "model")
    assert done["method"] == "model" and done["refining"] is False
    assert done["summary"].startswith("- Dana decided on build 0:") and 700 < done["tokens"] <= 800
    prompt = fake_openai.chat_requests()[0].json["messages"][1]["content"]
    assert "Turn 1:" in prompt and "Turn 11:" not in prompt  # only what was dropped


def test_a_failing_model_leaves_the_extractive_summary(tmp_path, fake_openai):
    fake_openai.script(fail(401))
    env = isolated_env(tmp_path / "env", WHITEBOARD_LLM_BASE_URL=fake_openai.base_url, WHITEBOARD_LLM_MODEL="m",
                       WHITEBOARD_MAX_MESSAGES="5")
    with InProcessHost(env=env) as host:
        fill(host)
        done = poll(host, lambda r: not r["refining"])
        context = host.request("session.context", key=KEY)
    assert done["method"] == "extractive" and done["summary"] and fake_openai.chat_requests()
    assert context["ok"] and context["distilled"]


def test_without_a_model_and_for_unknown_tabs(tmp_path):
    with InProcessHost(env=isolated_env(tmp_path / "env", WHITEBOARD_MAX_MESSAGES="5")) as host:
        assert host.request("session.summary", key=KEY)["error"]["code"] == "not_found"
        host.request("session.add", key=KEY, role="user", content="hello")
        empty = host.request("session.summary", key=KEY)
        assert (empty["summary"], empty["tokens"], empty["method"]) == ("", 0, "none")
        fill(host)
        got = host.request("session.summary", key=KEY)
    assert got["method"] == "extractive" and got["refining"] is False and got["summary"]


def test_a_broken_model_environment_never_breaks_the_session_path(tmp_path):
    env = isolated_env(tmp_path / "env", WHITEBOARD_LLM_BASE_URL="not a url", WHITEBOARD_LLM_MODEL="m",
                       WHITEBOARD_MAX_MESSAGES="5")
    with InProcessHost(env=env) as host:
        fill(host)
        assert host.request("session.context", key=KEY)["ok"]
        assert host.request("session.summary", key=KEY)["method"] == "extractive"
        asked = host.request("ask.start", key=KEY, question="Hi?")
    assert asked["error"]["code"] == "unavailable" and "WHITEBOARD_LLM_BASE_URL" in asked["error"]["message"]
