"""Pinned memories through the real dispatch core in-process: memory.update takes `pinned`, replies carry it,
memory.settings holds their token cap, and chat.prepare_send / chat.preview carry them
first on an opted-in site, whatever the draft."""

import pytest

from support.host import isolated_env, ok
from support.inprocess import InProcessHost
from whiteboard.blocks import strip_blocks

GPT = "chatgpt.com:7"
SHORT = "Prefers short answers with bullet points"
BRITISH = "Writes in British English"
TS = "Prefers TypeScript for all projects"
DRAFT = "Help me set up a new frontend project, TypeScript or not?"


@pytest.fixture
def host(tmp_path):
    with InProcessHost(env=isolated_env(tmp_path)) as h:
        yield h


def add(host, text):
    return ok(host.request("memory.add", text=text, memory_type="preference"))["memory_id"]


def test_pin_over_the_wire_and_the_send_carries_pinned_first(host):
    short, british = add(host, SHORT), add(host, BRITISH)
    add(host, TS)
    listed = ok(host.request("memory.list"))["memories"]
    assert {m["pinned"] for m in listed} == {False}
    for memory_id in (short, british):
        assert ok(host.request("memory.update", memory_id=memory_id, pinned=True))["memory"]["pinned"] is True
    assert ok(host.request("memory.get", memory_id=short))["memory"]["pinned"] is True
    assert {m["memory_id"] for m in ok(host.request("memory.list"))["memories"] if m["pinned"]} == {short, british}

    # Not opted in: nothing goes, pinned or not.
    assert ok(host.request("chat.prepare_send", key=GPT, site="chatgpt", draft=DRAFT))["injected"] is False
    ok(host.request("site.settings", site="chatgpt.com", long_term=True))
    reply = ok(host.request("chat.prepare_send", key=GPT, site="chatgpt", draft=DRAFT))
    [part] = reply["parts"]
    assert part["kind"] == "memory" and part["items"] == 3
    lines = reply["text"].split("\n")
    start = lines.index("[Whiteboard context · 3 memories]")
    assert [line.split("] ", 1)[1] for line in lines[start + 1:start + 4]] == [SHORT, BRITISH, TS]
    assert strip_blocks(reply["text"]) == DRAFT

    unrelated = ok(host.request("chat.prepare_send", key=GPT, site="chatgpt",
                                draft="What is the capital of Australia?"))
    assert unrelated["parts"][0]["items"] == 2 and SHORT in unrelated["text"] and TS not in unrelated["text"]

    preview = ok(host.request("chat.preview", key=GPT, site="chatgpt", draft=DRAFT))
    assert [(m["text"], m["pinned"]) for m in preview["memories"]] == [(SHORT, True), (BRITISH, True), (TS, False)]

    ok(host.request("memory.update", memory_id=british, pinned=False))
    after = ok(host.request("chat.prepare_send", key=GPT, site="chatgpt", draft="What is the capital of Australia?"))
    assert after["parts"][0]["items"] == 1 and BRITISH not in after["text"]

    exported = ok(host.request("memory.export"))["document"]["memories"]
    assert {e["text"]: e["pinned"] for e in exported} == {SHORT: True, BRITISH: False, TS: False}


def test_the_pinned_cap_is_a_shared_setting(host):
    assert ok(host.request("memory.settings")) == {"id": 1, "ok": True, "pinned_tokens": 120, "suggest_below": 0.7,
                                                   "rewrite_drafts": False}
    short = add(host, SHORT)
    ok(host.request("memory.update", memory_id=short, pinned=True))
    ok(host.request("site.settings", site="chatgpt.com", long_term=True))
    assert ok(host.request("memory.settings", pinned_tokens=0))["pinned_tokens"] == 0
    assert ok(host.request("chat.prepare_send", key=GPT, site="chatgpt", draft="Hello there"))["injected"] is False
    bad = host.request("memory.settings", pinned_tokens=5000)
    assert bad["error"]["code"] == "bad_request" and "pinned_tokens" in bad["error"]["message"]
    assert ok(host.request("memory.settings"))["pinned_tokens"] == 0
    ok(host.request("memory.settings", pinned_tokens=120))
    assert SHORT in ok(host.request("chat.prepare_send", key=GPT, site="chatgpt", draft="Hello there"))["text"]


def test_update_needs_something_to_change(host):
    memory_id = add(host, SHORT)
    reply = host.request("memory.update", memory_id=memory_id)
    assert reply["error"]["code"] == "bad_request"
    assert host.request("memory.update", memory_id=memory_id, pinned="maybe")["error"]["code"] == "bad_request"
