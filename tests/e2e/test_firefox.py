"""The core end-to-end set in real Firefox ESR, from the same extension/ that Chromium loads:
selection capture, send interception with injection and reply capture on the saved ChatGPT
and Claude pages, the popup's meter, and a missing host (e2e/firefox.py: WebDriver BiDi,
the extension as a temporary add-on, the real host registered in a throwaway HOME). The
sites' URLs, saved pages, answers and composers are the Chromium tests' (e2e/harness.py SITES)."""

from __future__ import annotations

import json
import re
import signal
import tempfile
import time
from pathlib import Path

import pytest

from e2e.firefox import (
    EXTENSION_BASE,
    Firefox,
    host_request,
    open_chat,
    sent,
    session_key,
    session_messages,
    tab_id,
    type_draft,
    ui_visible,
    wait_connected,
)
from e2e.harness import SITES, kill_host, page_html, the_host, wait_for
from e2e.support_models import fake_llm_env
from support.fake_openai import FakeOpenAI, reply
from whiteboard.blocks import strip_blocks
from whiteboard.config import FIREFOX_ADDON_ID
from whiteboard.install.extension import pack


@pytest.fixture(scope="module")
def firefox():
    with tempfile.TemporaryDirectory(prefix="wb-e2e-firefox-") as tmp:
        ff = Firefox(Path(tmp))
        try:
            wait_connected(ff)
            yield ff
        finally:
            ff.close()


@pytest.fixture
def tab(firefox):
    tab = firefox.new_tab()
    yield tab
    firefox.close_tab(tab)


def send(ff, tab, site, text) -> str:
    n = len(sent(ff, tab))
    type_draft(ff, tab, site, text)
    ff.press(tab, "Enter")
    wait_for(lambda: len(sent(ff, tab)) == n + 1, timeout=10, what="the send")
    return sent(ff, tab)[-1]["text"]


def capture_selection(ff, tab, selector: str, key: str) -> str:
    """A real triple click selects a paragraph; a real click on Whiteboard's button captures it."""
    ff.click(tab, selector, count=3)
    text = ff.evaluate(tab, "() => document.getSelection().toString().trim()")
    wait_for(lambda: ui_visible(ff, tab, "whiteboard-capture"), what="the capture button")
    ff.click(tab, "whiteboard-capture")
    wait_for(lambda: any(m["source"] == "selection" for m in session_messages(ff, key)), timeout=10,
             what="the selection in the session")
    return text


def test_the_host_was_started_by_firefox_with_its_arguments(firefox):
    """The host answers through the manifest Firefox read from the throwaway HOME."""
    status = wait_connected(firefox)
    assert status["host"]["protocol"] >= 1 and status["hostName"] == "com.whiteboard.host"
    assert firefox.host_manifest.is_relative_to(firefox.root / "home" / ".mozilla" / "native-messaging-hosts")
    assert host_request(firefox, {"type": "ping"})["ok"]


@pytest.mark.parametrize("site", ["chatgpt", "claude"])
def test_selection_goes_once_with_the_next_send(firefox, tab, site):
    open_chat(firefox, tab, site, SITES[site].page, reply="none")
    key = session_key(firefox, tab)
    assert session_messages(firefox, key) == []  # nothing reaches the host before the user acts
    selected = capture_selection(firefox, tab, SITES[site].answer, key)
    held = session_messages(firefox, key)
    assert held[-1]["source"] == "selection" and held[-1]["content"] == selected
    assert [m["role"] for m in held if m["source"] == "chat"] == ["user", "assistant", "user", "assistant"]

    first = send(firefox, tab, site, "Explain this in one sentence")
    assert first.startswith("Explain this in one sentence")
    assert first.count("[Whiteboard selection · 1 passage]") == 1 and first.count(selected[:60]) == 1
    assert strip_blocks(first) == "Explain this in one sentence"
    users = [m["content"] for m in session_messages(firefox, key) if m["role"] == "user" and m["source"] == "chat"]
    assert users.count("Explain this in one sentence") == 1  # recorded once, without the block

    assert send(firefox, tab, site, "And in French?") == "And in French?"  # the selection went once


def test_the_block_goes_through_geminis_quill_composer(firefox, tab):
    """Quill's lines are written as one DOM change (editor-input.js), not by Chromium's
    execCommand: Firefox's Quill composer takes them the same way."""
    open_chat(firefox, tab, "gemini", SITES["gemini"].page, reply="none")
    key = session_key(firefox, tab)
    selected = capture_selection(firefox, tab, SITES["gemini"].answer, key)
    first = send(firefox, tab, "gemini", "Explain this in one sentence")
    assert first.count("[Whiteboard selection · 1 passage]") == 1 and first.count(selected[:60]) == 1
    assert strip_blocks(first) == "Explain this in one sentence"
    assert send(firefox, tab, "gemini", "And in French?") == "And in French?"


@pytest.mark.parametrize("site", ["chatgpt", "claude"])
def test_the_reply_is_captured_once_after_streaming_ends(firefox, tab, site):
    open_chat(firefox, tab, site, SITES[site].page, replyMs=1200, chunks=3)
    key = session_key(firefox, tab)
    send(firefox, tab, site, "Tell me about fish")

    def replies():
        return [m["content"] for m in session_messages(firefox, key)
                if m["role"] == "assistant" and m["content"].startswith("Simulated reply")]

    wait_for(lambda: firefox.evaluate(tab, "() => window.__sim.replies.length") == 1, timeout=10,
             what="the page's reply")
    [full] = [r["text"] for r in firefox.evaluate(tab, "() => window.__sim.replies")]
    assert wait_for(replies, timeout=5, what="the captured reply") == [full]
    time.sleep(0.8)  # later page activity must not record it again
    assert replies() == [full]


def test_the_popup_shows_the_connection_page_and_meter(firefox, tab):
    open_chat(firefox, tab, "chatgpt", SITES["chatgpt"].page, reply="none")
    send(firefox, tab, "chatgpt", "What is a token meter?")
    popup = firefox.open_extension_page(f"popup/popup.html?tab={tab_id(firefox, tab)}")
    try:
        wait_for(lambda: firefox.evaluate(popup, "() => document.body.dataset.ready") == "true", timeout=10,
                 what="the popup's first render")
        shown = firefox.evaluate(popup, """() => ({
            connection: document.querySelector('#connection-text').innerText,
            host: document.querySelector('#page-host').textContent,
            page: document.querySelector('#page-text').innerText,
            summary: document.querySelector('#session-summary').innerText,
            meter: document.querySelector('#meter-fill').style.width,
            first: document.querySelector('#messages li')?.innerText || ''})""")
        assert shown["connection"].startswith("Connected to the Whiteboard host"), shown
        assert shown["host"] == "chatgpt.com" and shown["page"].startswith("ChatGPT: attached"), shown
        m = re.match(r"(\d+) messages · (\d+) / 2000 tokens · nothing distilled", shown["summary"])
        assert m and int(m.group(1)) == 5 and 0 < int(m.group(2)) <= 2000, shown
        assert re.fullmatch(r"\d+%", shown["meter"]) and int(shown["meter"][:-1]) > 0, shown
        assert "What is a token meter?" in shown["first"]
    finally:
        firefox.close_tab(popup)


def test_the_extension_runs_under_its_fixed_add_on_id(firefox):
    """The id the host manifest allows is the one Firefox gave the add-on."""
    assert firefox.background("(bg) => bg.chrome.runtime.id") == FIREFOX_ADDON_ID
    assert firefox.background("(bg) => bg.chrome.runtime.getURL('')") == EXTENSION_BASE


@pytest.fixture(scope="module")
def firefox_without_host():
    with tempfile.TemporaryDirectory(prefix="wb-e2e-firefox-nohost-") as tmp:
        ff = Firefox(Path(tmp), register=False)
        try:
            yield ff
        finally:
            ff.close()


def test_without_a_host_sends_go_through_unchanged_and_the_popup_says_what_to_do(firefox_without_host):
    ff = firefox_without_host
    tab = ff.new_tab()
    open_chat(ff, tab, "claude", SITES["claude"].page, reply="none")
    for text in ("First without a host", "Second without a host"):
        assert send(ff, tab, "claude", text) == text
    status = ff.background("(bg) => bg.Whiteboard.worker.status()")
    assert status["state"] != "connected" and status["hostMissing"], status
    popup = ff.open_extension_page("popup/popup.html")
    wait_for(lambda: "not found" in ff.evaluate(popup, "() => document.querySelector('#connection-text').innerText"),
             timeout=10, what="the missing-host state")
    step = ff.evaluate(popup, "() => { const s = document.querySelector('#next-step'); "
                              "return {hidden: s.hidden, text: s.innerText}; }")
    assert not step["hidden"] and "whiteboard install" in step["text"]


def test_options_turning_a_chat_site_off_lets_its_sends_through_untouched(firefox, tab):
    options = firefox.open_extension_page("options/options.html")
    try:
        wait_for(lambda: firefox.evaluate(options, "() => !!document.querySelector('#site-on-chatgpt')"),
                 what="the options' sites")
        firefox.click(options, "#site-on-chatgpt")  # a real click unticks it, and that saves it
        wait_for(lambda: "off for ChatGPT" in firefox.evaluate(
            options, "() => document.querySelector('#sites-status').textContent"), what="the options saved")
        assert firefox.background("async (bg) => (await bg.chrome.storage.local.get('settings'))"
                                  ".settings.sites.chatgpt") is False
        open_chat(firefox, tab, "chatgpt", SITES["chatgpt"].page, reply="none")
        key = session_key(firefox, tab)
        assert send(firefox, tab, "chatgpt", "Sent while ChatGPT is off") == "Sent while ChatGPT is off"
        assert session_messages(firefox, key) == []  # nothing reached the host
    finally:
        firefox.click(options, "#site-on-chatgpt")
        wait_for(lambda: firefox.background("async (bg) => (await bg.chrome.storage.local.get('settings'))"
                                            ".settings.sites.chatgpt"), what="ChatGPT back on")
        firefox.close_tab(options)


def test_the_memory_page_lists_and_searches_memories_as_text(firefox):
    html = 'Prefers <b>bold</b> titles <img src=x onerror="window.__pwned=1">'
    assert host_request(firefox, {"type": "memory.wipe", "confirm": True})["ok"]
    for text, kind in ((html, "preference"), ("Speaks Portuguese", "skill")):
        assert host_request(firefox, {"type": "memory.add", "text": text, "memory_type": kind})["ok"]
    page = firefox.open_extension_page("memory/manager.html")
    texts = "() => [...document.querySelectorAll('#list .memory .text')].map((e) => e.innerText)"
    try:
        wait_for(lambda: len(firefox.evaluate(page, texts)) == 2, timeout=10, what="two memories listed")
        assert html in firefox.evaluate(page, texts)
        assert firefox.evaluate(page, "() => document.querySelectorAll('#list img, #list b').length") == 0
        firefox.click(page, "#query")
        firefox.type_text(page, "portuguese")
        wait_for(lambda: firefox.evaluate(page, texts) == ["Speaks Portuguese"], timeout=10, what="the search")
    finally:
        firefox.close_tab(page)


@pytest.mark.parametrize("source,target", [("chatgpt", "claude"), ("claude", "chatgpt")])
def test_handoff_opens_the_other_site_with_the_note_in_its_composer_unsent(firefox, tab, source, target):
    start, editor, label = SITES[target].start_url, SITES[target].editor, SITES[target].label
    firefox.served[start] = (page_html(SITES[target].page, target, {}), "text/html; charset=utf-8")
    open_chat(firefox, tab, source, SITES[source].page, reply="none")
    key = session_key(firefox, tab)
    popup = firefox.open_extension_page(f"popup/popup.html?tab={tab_id(firefox, tab)}")
    before = {t["context"] for t in firefox.tabs()}
    other = None
    try:
        wait_for(lambda: firefox.evaluate(popup, "() => document.body.dataset.ready") == "true", timeout=10,
                 what="the popup's first render")
        button = f".handoff-button[data-site={target}]"  # one per enabled site but this one
        assert firefox.evaluate(popup, "(s) => document.querySelector(s).innerText", button) == f"Continue in {label}"
        status = "() => document.querySelector('#handoff-status').innerText"
        firefox.click(popup, button)
        try:  # the click starts the handoff at once ("Writing the handoff note..."), or it missed
            wait_for(lambda: firefox.evaluate(popup, status), timeout=3, what="the handoff to start")
        except AssertionError:  # the popup's layout moved under the pointer (its meter renders late)
            firefox.click(popup, button)
        other = wait_for(lambda: next((t["context"] for t in firefox.tabs()
                                       if t["context"] not in before and t["url"] == start), None),
                         timeout=20, what="the other site's tab")
        wait_for(lambda: firefox.evaluate(other, "() => window.__sim !== undefined"), timeout=15,
                 what="the other site's page")
        note = host_request(firefox, {"type": "handoff.summary", "key": key}, 10000)
        assert note["ok"] and len(note["text"]) > 100, note

        def squash(text):
            return re.sub(r"\s+", " ", text or "").strip()

        wait_for(lambda: squash(firefox.evaluate(other, "(s) => document.querySelector(s).innerText", editor))
                 == squash(note["text"]), timeout=10, what="the handoff note in the composer")
        time.sleep(1.0)  # nothing is sent on the user's behalf
        assert sent(firefox, other) == []
        assert f"Opened {label}" in firefox.evaluate(popup, status)
    finally:
        firefox.close_tab(popup)
        if other:
            firefox.close_tab(other)


@pytest.fixture(scope="module")
def fake_model():
    with FakeOpenAI() as server:
        yield server


@pytest.fixture(scope="module")
def firefox_with_model(fake_model):
    with tempfile.TemporaryDirectory(prefix="wb-e2e-firefox-ask-") as tmp:
        ff = Firefox(Path(tmp), host_env=fake_llm_env(fake_model))
        try:
            wait_connected(ff)
            yield ff
        finally:
            ff.close()


def test_asking_about_a_selection_in_the_panel(firefox_with_model, fake_model):
    """The panel opens on the capture with its question box focused: the user types and presses
    Enter; the model gets the selection and the question, and the exchange joins the session."""
    ff = firefox_with_model
    fake_model.script(reply("Because Kyoto was the capital for a thousand years.", chunk_delay=0.05))
    tab = ff.new_tab()
    try:
        ff.goto(tab, "https://news.example/kyoto")
        key = session_key(ff, tab)
        capture_selection(ff, tab, "#plain", key)
        asked = len(fake_model.chat_requests())
        ff.type_text(tab, "Why so many temples?")
        ff.press(tab, "Enter")
        wait_for(lambda: len(fake_model.chat_requests()) > asked, timeout=15, what="the question at the model")
        question = fake_model.chat_requests()[asked].json["messages"][-1]["content"]
        assert "<selection>" in question and "1,600 Buddhist temples" in question
        assert question.endswith("Why so many temples?")
        wait_for(lambda: ("assistant", "Because Kyoto was the capital for a thousand years.") in
                 [(m["role"], m["content"]) for m in session_messages(ff, key)], timeout=15,
                 what="the answer in the session")
    finally:
        fake_model.unscript()
        ff.close_tab(tab)


def test_export_saves_the_session_and_import_fills_another_tab(firefox, tab, tmp_path):
    open_chat(firefox, tab, "chatgpt", SITES["chatgpt"].page, reply="none")
    key = session_key(firefox, tab)
    send(firefox, tab, "chatgpt", "Which region is the staging bucket in?")
    wait_for(lambda: any(m["content"] == "Which region is the staging bucket in?"
                         for m in session_messages(firefox, key)), what="the send in the session")
    time.sleep(1.0)  # the page's turn capture settles
    state = "() => document.querySelector('#export').dataset.state"
    popup = firefox.open_extension_page(f"popup/popup.html?tab={tab_id(firefox, tab)}")
    other = firefox.new_tab()
    target = None
    try:
        wait_for(lambda: firefox.evaluate(popup, state) == "ready", timeout=15, what="the export section")
        expected = host_request(firefox, {"type": "vbrief.export", "key": key, "agent": "ChatGPT"}, 30000)["document"]
        firefox.click(popup, "#export-session")
        [saved] = wait_for(lambda: [p for p in firefox.downloads.glob("whiteboard-chatgpt-*.vbrief.json")
                                    if p.stat().st_size], timeout=15, what="the saved file")
        document = json.loads(saved.read_text(encoding="utf-8"))

        def undated(doc):
            return {**doc, "vBRIEFInfo": {k: v for k, v in doc["vBRIEFInfo"].items() if k != "created"}}

        assert undated(document) == undated(expected)
        count = document["vBRIEFInfo"]["sessionInfo"]["totalObservations"]

        firefox.goto(other, "https://news.example/kyoto")
        other_key = session_key(firefox, other)
        target = firefox.open_extension_page(f"popup/popup.html?tab={tab_id(firefox, other)}")
        wait_for(lambda: firefox.evaluate(target, state) == "empty", timeout=15, what="an empty export section")
        firefox.set_files(target, "#import-session", [saved])
        wait_for(lambda: firefox.evaluate(target, state) == "ready", timeout=15, what="the imported session")
        assert firefox.evaluate(target, "() => document.querySelector('#export-status').innerText") == \
            f"Imported: this tab's session now holds {count} messages."
        assert [m["content"] for m in session_messages(firefox, other_key)] == \
            [m["content"] for m in session_messages(firefox, key)]
    finally:
        for t in (popup, other, target):
            if t:
                firefox.close_tab(t)


def test_the_packed_firefox_zip_installs_for_good_and_works(tmp_path):
    """`whiteboard extension pack`'s Firefox zip, installed as a user installs a file (unsigned,
    as ESR allows with xpinstall.signatures.required off): its background runs as scripts, it
    reaches the host, and its content scripts act on the chat site."""
    archive = pack(tmp_path / "whiteboard-firefox.zip", "firefox")
    ff = Firefox(tmp_path / "root", extension=archive, permanent=True)
    try:
        wait_connected(ff)
        background = ff.background("(bg) => bg.chrome.runtime.getManifest().background")
        assert background["scripts"] == [f"{EXTENSION_BASE}background/worker.js"] and not background["service_worker"]
        tab = ff.new_tab()
        open_chat(ff, tab, "claude", SITES["claude"].page, reply="none")
        key = session_key(ff, tab)
        assert send(ff, tab, "claude", "Sent from the installed add-on") == "Sent from the installed add-on"
        wait_for(lambda: any(m["content"] == "Sent from the installed add-on" for m in session_messages(ff, key)),
                 what="the send in the session")
    finally:
        ff.close()


def test_host_killed_the_send_goes_unchanged_and_the_port_comes_back(firefox, tab):
    open_chat(firefox, tab, "chatgpt", SITES["chatgpt"].page, reply="none")
    key = session_key(firefox, tab)
    capture_selection(firefox, tab, SITES["chatgpt"].answer, key)
    old_pid = kill_host(firefox.root)  # the host Firefox started, found by its data dir
    assert send(firefox, tab, "chatgpt", "Sent while the host is down") == "Sent while the host is down"

    wait_connected(firefox)
    assert wait_for(lambda: the_host(firefox.root), what="a new host process").pid != old_pid
    capture_selection(firefox, tab, SITES["chatgpt"].answer, key)
    after = send(firefox, tab, "chatgpt", "After the restart")
    assert after.startswith("After the restart\n") and "[Whiteboard selection" in after


def test_host_slower_than_the_limit_the_send_goes_unchanged_after_it(firefox, tab):
    open_chat(firefox, tab, "chatgpt", SITES["chatgpt"].page, reply="none")
    key = session_key(firefox, tab)
    capture_selection(firefox, tab, SITES["chatgpt"].answer, key)
    host = the_host(firefox.root)
    host.send_signal(signal.SIGSTOP)
    try:
        type_draft(firefox, tab, "chatgpt", "Sent while the host is stuck")
        started = time.monotonic()
        firefox.press(tab, "Enter")
        wait_for(lambda: len(sent(firefox, tab)) == 1, timeout=6, interval=0.02, what="the send")
        waited = time.monotonic() - started
        assert sent(firefox, tab)[0]["text"] == "Sent while the host is stuck"
        # The limit is about 1 s; the rest is room for a loaded machine (polling over BiDi included).
        assert 0.9 <= waited <= 3.0, f"the send waited {waited:.2f}s"
    finally:
        host.send_signal(signal.SIGCONT)
    assert "[Whiteboard selection · 1 passage]" in send(firefox, tab, "chatgpt", "Host back")
