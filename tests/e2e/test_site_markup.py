"""What the markup changes beyond the behaviour set every site and markup runs
(tests/e2e/test_sites.py over harness.SITE_MARKUPS): a redesign none of a site's selectors
know (harness.MISS_PAGE) still gets sends through the structural fallbacks, and the
popup's roles report and diagnostic, on each site's old and new markup (harness.SITE_PAGES).
Real Chromium, the real extension and host, the saved pages with the in-page simulator
(issue 19)."""

import json
import time

import pytest

from e2e.harness import (
    MISS_PAGE,
    SITE_IDS,
    SITE_PAGES,
    host_request,
    open_chat,
    open_popup,
    sent,
    service_worker,
    session_key,
    session_messages,
    sim,
    tab_id,
    type_draft,
    wait_for,
)
from whiteboard.blocks import strip_blocks

CASES = [(site, layout) for site, layouts in SITE_PAGES.items() for layout in layouts]
IDS = [f"{site}-{layout}" for site, layout in CASES]



def add_selection(browser, key, text="Passage about the Lisbon trams."):
    reply = host_request(browser.context, {"type": "session.add", "key": key, "role": "user", "source": "selection",
                                           "content": text})
    assert reply["ok"], reply
    return text


# --- a redesign none of the selectors know: the structural fallbacks keep sends working ---

@pytest.mark.parametrize("site", SITE_IDS)
@pytest.mark.parametrize("gesture", ["enter", "click"])
def test_a_page_whose_selectors_all_miss_still_gets_the_selection_once(browser, page, site, gesture):
    open_chat(page, site, MISS_PAGE, reply="none")
    assert sim(page, "window.__sim.layout") == "generic"
    key = session_key(browser.context, page)
    passage = add_selection(browser, key)
    type_draft(page, site, "Where is the ferry?")
    if gesture == "enter":
        page.keyboard.press("Enter")
    else:
        page.locator("form button[type=submit]").click()
    wait_for(lambda: len(sent(page)) >= 1, what="the send")
    page.wait_for_timeout(400)
    [only] = sent(page)
    assert only["via"] == gesture and only["text"].count(passage) == 1
    assert strip_blocks(only["text"]) == "Where is the ferry?"
    assert any(m["content"] == "Where is the ferry?" for m in session_messages(browser.context, key))


@pytest.mark.parametrize("site", SITE_IDS)
def test_a_form_with_several_fields_is_not_taken_for_a_composer(browser, page, site):
    # Settings, a profile, a custom assistant's editor: Enter there is the site's alone.
    open_chat(page, site, MISS_PAGE, reply="none")
    key = session_key(browser.context, page)
    add_selection(browser, key)
    page.evaluate("() => document.querySelector('form').prepend(Object.assign(document.createElement('input'), "
                  "{type: 'text', name: 'title'}))")
    type_draft(page, site, "Just a field")
    page.keyboard.press("Enter")
    wait_for(lambda: len(sent(page)) == 1, what="the site's own send")
    assert sent(page)[0]["text"] == "Just a field"  # untouched: no selection injected
    page.wait_for_timeout(300)
    assert [m["source"] for m in session_messages(browser.context, key)] == ["selection"]


@pytest.mark.parametrize("site", SITE_IDS)
def test_the_popup_names_the_roles_not_found_and_the_diagnostic_holds_no_page_text(browser, page, site):
    open_chat(page, site, MISS_PAGE)
    key = session_key(browser.context, page)
    secret = add_selection(browser, key, "SELECTED-SECRET passage")
    type_draft(page, site, "DRAFT-SECRET question")
    page.keyboard.press("Enter")
    wait_for(lambda: len(sim(page, "window.__sim.replies")) == 1, what="the reply")
    popup = open_popup(browser.context, tab_id(browser.context, page))
    wait_for(lambda: popup.reload() or popup.wait_for_selector("body[data-ready=true]") and
             "not recognised" in popup.locator("#roles-problems").inner_text(), timeout=10, interval=0.5,
             what="the roles line")
    problems = popup.locator("#roles-problems").inner_text()
    assert problems.startswith("Your messages and replies not recognised on this page: Whiteboard may need an update.")
    assert "Composer and send button found by the page's structure only" in problems
    assert popup.locator("#page-text").inner_text().endswith("attached. Sends get your selections and context.")
    popup.locator("#copy-diagnostic").click()
    wait_for(lambda: popup.locator("#diagnostic-status").inner_text(), what="the copy")
    text = popup.locator("#diagnostic-text").text_content()
    report = json.loads(text)
    version = service_worker(browser.context).evaluate("() => chrome.runtime.getManifest().version")
    assert report["whiteboard"] == version
    assert report["site"] == site and report["state"] == "attached"
    assert {r: v["status"] for r, v in report["roles"].items() if r in ("editor", "sendButton", "userMessage",
                                                                         "assistantMessage")} == {
        "editor": "fallback", "sendButton": "fallback", "userMessage": "missing", "assistantMessage": "missing"}
    assert all(m["count"] == 0 for r in report["roles"].values() for m in r["matches"])
    # Never page text: not the page's, not the draft, not the selection, not the reply.
    for words in ("PAGE-TEXT", "tide tables", "DRAFT-SECRET", "SELECTED-SECRET", secret, "Simulated reply"):
        assert words not in text
    popup.close()


@pytest.mark.parametrize("site,layout", CASES, ids=IDS)
def test_the_popup_reports_every_role_found_on_the_saved_markup(browser, page, site, layout):
    open_chat(page, site, SITE_PAGES[site][layout], replyMs=300, chunks=2)
    type_draft(page, site, "Hello")
    page.keyboard.press("Enter")
    wait_for(lambda: len(sim(page, "window.__sim.replies")) == 1, what="the reply")
    popup = open_popup(browser.context, tab_id(browser.context, page))
    time.sleep(0.8)  # the report after the reply settles
    popup.reload()
    popup.wait_for_selector("body[data-ready=true]")
    report = json.loads(popup.locator("#diagnostic-text").text_content())
    statuses = {r: v["status"] for r, v in report["roles"].items()}
    assert statuses["editor"] == statuses["userMessage"] == statuses["assistantMessage"] == "found", statuses
    assert statuses["sendButton"] in ("found", "fallback")
    assert "not recognised" not in popup.locator("#roles-problems").inner_text()
    named = page.evaluate("""() => {
        const html = document.documentElement;
        return Object.fromEntries(['data-build', 'data-build-id', 'data-git-hash', 'data-build-timestamp']
            .filter((a) => html.hasAttribute(a)).map((a) => [a, html.getAttribute(a)]));
    }""")
    assert report["build"] == named  # the site's build id where the page names one (the orc__ pages are fragments)
    popup.close()
