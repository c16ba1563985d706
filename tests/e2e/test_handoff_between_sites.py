"""Continue in another site from the popup: real Chromium, the real extension and host
(no model configured, so the note is extractive); the other site is a saved real page
served at the URL the worker opens. (Every site hands off and receives in test_sites.py.)"""

import re
import time

import pytest

from e2e import harness
from e2e.harness import (
    open_chat,
    open_popup,
    service_worker,
    session_key,
    session_messages,
    sim,
    tab_id,
    wait_for,
)

PAGES = {"chatgpt": "acb__chatgpt_2026-04-13", "claude": "acb__claude_2026-04-13"}
START_URLS = {"claude": "https://claude.ai/new", "chatgpt": "https://chatgpt.com/"}
EDITORS = {"chatgpt": "#prompt-textarea", "claude": "[data-testid=chat-input]"}
LABELS = {"chatgpt": "ChatGPT", "claude": "Claude"}


def squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def pending_handoffs(browser) -> list[str]:
    keys = service_worker(browser.context).evaluate("async () => Object.keys(await chrome.storage.session.get(null))")
    return [k for k in keys if k.startswith("handoff:")]


@pytest.mark.parametrize("source,target", [("chatgpt", "claude"), ("claude", "chatgpt")])
def test_handoff_opens_the_other_site_with_the_note_in_its_composer_unsent(browser, page, source, target):
    served = []

    def start_page(route, request):
        served.append(request.url)
        route.fulfill(body=harness.page_html(PAGES[target], target, {}), content_type="text/html; charset=utf-8")

    browser.context.route(START_URLS[target], start_page)
    try:
        open_chat(page, source, PAGES[source], reply="none")
        key = session_key(browser.context, page)
        assert session_messages(browser.context, key) == []  # nothing goes to the host before the user acts
        popup = open_popup(browser.context, tab_id(browser.context, page))
        button = popup.locator(f".handoff-button[data-site={target}]")
        assert button.inner_text() == f"Continue in {LABELS[target]}"
        with browser.context.expect_page(timeout=20000) as opened:
            button.click()
        other = opened.value
        other.wait_for_function("() => window.__sim !== undefined")
        assert served == [START_URLS[target]]

        # The click recorded the conversation shown; the note is made from it.
        shown = [m for m in session_messages(browser.context, key) if m["source"] == "chat"]
        assert shown, "the page's conversation was not recorded"
        note = browser.request({"type": "handoff.summary", "key": key}, 10000)
        assert note["ok"], note
        assert len(note["text"]) > 100 and len(note["sections"]) == 6
        editor = other.locator(EDITORS[target])
        wait_for(lambda: squash(editor.inner_text()) == squash(note["text"]), timeout=10,
                 what="the handoff note in the composer")

        time.sleep(1.0)  # nothing is sent on the user's behalf
        assert sim(other, "window.__sim.sent") == []
        assert pending_handoffs(browser) == []  # taken once, then gone
        assert f"Opened {LABELS[target]}" in popup.locator("#handoff-status").inner_text()

        # A reload of the new tab does not bring the note back.
        other.reload()
        other.wait_for_function("() => window.__sim !== undefined")
        time.sleep(1.0)
        assert squash(editor.inner_text()) == ""
        other.close()
        popup.close()
    finally:
        browser.context.unroute(START_URLS[target], start_page)


def test_no_handoff_offered_off_the_chat_sites(browser, page):
    page.goto("https://news.example/kyoto")
    page.wait_for_load_state()
    tab = tab_id(browser.context, page)
    popup = open_popup(browser.context, tab)
    time.sleep(0.5)  # handoff.js renders after its own status request
    assert popup.locator("#handoff").is_hidden()
    assert popup.locator(".handoff-button").count() == 0
    popup.close()


def test_a_handoff_note_goes_only_to_the_tab_opened_for_it(browser, page):
    # The worker refuses notes from a page without a site, and a chat page in another tab
    # finds nothing to take.
    popup = open_popup(browser.context, tab_id(browser.context, page))
    bad = popup.evaluate("() => chrome.runtime.sendMessage({kind: 'handoff-open', site: 'nowhere', text: 'x'})")
    assert bad["ok"] is False and bad["error"]["code"] == "bad_request"
    empty = popup.evaluate("() => chrome.runtime.sendMessage({kind: 'handoff-open', site: 'claude', text: '  '})")
    assert empty["ok"] is False and empty["error"]["code"] == "bad_request"
    open_chat(page, "claude", PAGES["claude"], reply="none")
    time.sleep(1.0)
    assert squash(page.locator(EDITORS["claude"]).inner_text()) == ""
    popup.close()


def test_a_site_turned_off_in_options_is_neither_offered_nor_opened(browser, page):
    worker = service_worker(browser.context)
    worker.evaluate("""async () => {
        const {settings} = await chrome.storage.local.get('settings');
        const sites = {...(settings?.sites || {}), gemini: false};
        await chrome.storage.local.set({settings: {...(settings || {}), sites}});
    }""")
    try:
        open_chat(page, "chatgpt", PAGES["chatgpt"], reply="none")
        popup = open_popup(browser.context, tab_id(browser.context, page))
        popup.locator(".handoff-button").first.wait_for()
        offered = popup.locator(".handoff-button").evaluate_all("(bs) => bs.map((b) => b.dataset.site)")
        assert "gemini" not in offered and "chatgpt" not in offered and "claude" in offered
        refused = popup.evaluate("() => chrome.runtime.sendMessage({kind: 'handoff-open', site: 'gemini', text: 'x'})")
        assert refused["ok"] is False and refused["error"]["code"] == "forbidden"
        popup.close()
    finally:
        worker.evaluate("""async () => {
            const {settings} = await chrome.storage.local.get('settings');
            await chrome.storage.local.set({settings: {...settings, sites: {...settings.sites, gemini: true}}});
        }""")
