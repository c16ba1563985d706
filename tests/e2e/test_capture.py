"""Turn capture, tab lifecycle and isolation from page scripts (design §4, §8). A reply
captured only after its finished marker, on every site: test_sites.py."""

import time

import pytest

from e2e.harness import EXTENSION_ID, open_chat, session_key, session_messages, sim, type_draft
from support.waiting import wait_for

PAGES = {"chatgpt": "acb__chatgpt_2026-04-13", "claude": "acb__claude_2026-04-13"}


def send(page, site, text):
    n = len(sim(page, "window.__sim.sent"))
    type_draft(page, site, text)
    page.keyboard.press("Enter")
    wait_for(lambda: len(sim(page, "window.__sim.sent")) == n + 1, what="the send")


def test_closing_the_tab_clears_its_session(browser, page):
    open_chat(page, "chatgpt", PAGES["chatgpt"], reply="none")
    key = session_key(browser.context, page)
    send(page, "chatgpt", "Remember this")
    assert session_messages(browser.context, key)
    page.close()
    wait_for(lambda: session_messages(browser.context, key) == [], what="the session to be cleared")
    assert key not in [s["key"] for s in browser.request({"type": "session.list"})["sessions"]]


def test_moving_to_another_domain_clears_the_session_and_staying_keeps_it(browser, page):
    open_chat(page, "chatgpt", PAGES["chatgpt"], reply="none")
    key = session_key(browser.context, page)
    send(page, "chatgpt", "Remember this too")
    open_chat(page, "chatgpt", "rse__chatgpt-dom-2question-ans-pairs_2026-03", reply="none")
    time.sleep(0.5)
    assert any(m["content"] == "Remember this too" for m in session_messages(browser.context, key))
    page.goto("https://news.example/kyoto")
    wait_for(lambda: session_messages(browser.context, key) == [], what="the session to be cleared")


@pytest.mark.parametrize("elsewhere", ["about:blank", "data:text/html,<p>a local page</p>"])
def test_moving_to_a_page_that_is_not_a_website_clears_the_session(browser, page, elsewhere):
    # No content script runs there and no URL is reported for it: leaving is what counts.
    open_chat(page, "chatgpt", PAGES["chatgpt"], reply="none")
    key = session_key(browser.context, page)
    send(page, "chatgpt", "Remember this as well")
    assert session_messages(browser.context, key)
    page.goto(elsewhere)
    wait_for(lambda: session_messages(browser.context, key) == [], what="the session to be cleared")


def test_a_page_script_cannot_reach_the_worker_or_the_host(browser, page):
    open_chat(page, "chatgpt", PAGES["chatgpt"], reply="none")
    key = session_key(browser.context, page)
    send(page, "chatgpt", "Keep me")
    before = browser.request({"type": "session.list"})["sessions"]
    attempts = page.evaluate("""async (id) => {
        const clear = {kind: 'host', message: {type: 'session.clear_all'}};
        const out = {whiteboardGlobal: typeof window.Whiteboard, runtime: typeof (window.chrome && chrome.runtime)};
        try {
            out.sendMessage = await chrome.runtime.sendMessage(id, clear);
        } catch (e) { out.sendMessage = 'error: ' + e.message; }
        try {
            const port = chrome.runtime.connect(id, {name: 'whiteboard-stream'});
            port.postMessage({message: {type: 'session.clear_all'}});
            out.connect = 'connected';
        } catch (e) { out.connect = 'error: ' + e.message; }
        window.postMessage(clear, '*');
        document.dispatchEvent(new CustomEvent('whiteboard', {detail: clear}));
        await new Promise((r) => setTimeout(r, 500));
        return out;
    }""", EXTENSION_ID)
    assert attempts["whiteboardGlobal"] == "undefined"  # content scripts' world is not the page's
    assert attempts["sendMessage"].startswith("error") and attempts["connect"].startswith("error"), attempts
    assert browser.request({"type": "session.list"})["sessions"] == before
    assert any(m["content"] == "Keep me" for m in session_messages(browser.context, key))
