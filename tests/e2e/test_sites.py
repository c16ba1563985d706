"""The behaviour every chat site must have, run for every site in the sites table on its
saved real page, and on the old and the new markup of a site that has both
(harness.SITE_MARKUPS, from harness.SITES): real Chromium, the real extension, the real
host, the in-page simulator standing in for the site's own scripts (design §8, §9).

Capture at the first send; Enter, the send button and the form intercepted once, Shift+Enter
and IME composition never; the selection and memory blocks injected as typed text; the reply
captured once it has finished (the site's finished marker); pause, the Options switch,
long-term memory opt-in and the popup naming the site; the tab's session cleared when it
closes; handoff to another site."""

import re
import time

import pytest

from e2e import harness
from e2e.harness import (
    EXTENSION_ID,
    MARKUPS,
    SITE_IDS,
    SITE_MARKUPS,
    SITES,
    capture_selection,
    close_panel,
    composer_text,
    open_chat,
    open_popup,
    send_typed,
    sent,
    service_worker,
    session_key,
    session_messages,
    sim,
    tab_id,
    type_draft,
    wait_for,
)
from support.host import ok
from whiteboard.blocks import strip_blocks

IDS = [f"{site}-{markup}" if markup else site for site, markup in SITE_MARKUPS]
FACT = "Prefers TypeScript for all my projects"
DRAFT = "Help me start a new web project. Which language fits?"




def chat_roles(browser, key: str) -> list[str]:
    return [m["role"] for m in session_messages(browser.context, key) if m["source"] == "chat"]


def settings(browser) -> dict:
    return service_worker(browser.context).evaluate("() => chrome.storage.local.get('settings')").get("settings") or {}


def send_button_box(page, css: str) -> dict:
    """Where the site's send button is (it shows once text is typed): for a real mouse click."""
    button = page.locator(css).first
    button.wait_for(state="visible")
    wait_for(lambda: button.is_enabled(), what="the send button enabled")
    return button.bounding_box()


def click_at(page, box: dict) -> None:
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


@pytest.mark.parametrize(("site", "markup"), SITE_MARKUPS, ids=IDS)
def test_the_first_send_records_the_conversation_shown_then_the_message(browser, page, site, markup):
    open_chat(page, site, MARKUPS[site][markup].page, reply="none")
    key = session_key(browser.context, page)
    assert session_messages(browser.context, key) == []  # nothing reaches the host before the user acts
    shown = page.evaluate("(css) => document.querySelectorAll(css).length", MARKUPS[site][markup].turns)
    assert shown >= 2
    assert send_typed(page, site, "What did we conclude?")["text"] == "What did we conclude?"  # nothing to add
    roles = chat_roles(browser, key)
    assert len(roles) == shown + 1 and roles[-1] == "user" and roles[0] == "user" and "assistant" in roles
    assert session_messages(browser.context, key)[-1]["content"] == "What did we conclude?"


@pytest.mark.parametrize(("site", "markup"), SITE_MARKUPS, ids=IDS)
def test_a_selection_goes_once_as_typed_text_with_the_next_send(browser, page, site, markup):
    open_chat(page, site, MARKUPS[site][markup].page, reply="none")
    key = session_key(browser.context, page)
    selected = capture_selection(browser, page, MARKUPS[site][markup].answer, key)
    first = send_typed(page, site, "Explain this in one sentence")
    assert first["via"] == "enter" and first["markup"] == 0  # the editor held text only
    assert first["text"].startswith("Explain this in one sentence\n\n---\n[Whiteboard selection · 1 passage]\n")
    assert first["text"].count("[Whiteboard selection") == 1 and first["text"].count(selected[:60]) == 1
    assert strip_blocks(first["text"]) == "Explain this in one sentence"
    users = [m["content"] for m in session_messages(browser.context, key)
             if m["role"] == "user" and m["source"] == "chat"]
    assert users[-1] == "Explain this in one sentence" and users.count("Explain this in one sentence") == 1
    assert send_typed(page, site, "And in French?")["text"] == "And in French?"  # the selection went once


@pytest.mark.parametrize(("site", "markup"), SITE_MARKUPS, ids=IDS)
def test_the_send_button_is_intercepted(browser, page, site, markup):
    open_chat(page, site, MARKUPS[site][markup].page, reply="none")
    key = session_key(browser.context, page)
    capture_selection(browser, page, MARKUPS[site][markup].answer, key)
    close_panel(page)
    type_draft(page, site, "Sent by the button")
    send_button_box(page, MARKUPS[site][markup].send)
    page.locator(MARKUPS[site][markup].send).first.click(timeout=5000)  # a real click, once nothing covers the button
    wait_for(lambda: len(sent(page)) == 1, what="the send")
    [only] = sent(page)
    assert only["via"] == "click"  # a submit button (Grok) sends through its form's submit, as the click
    assert only["text"].startswith("Sent by the button\n\n---\n[Whiteboard selection")
    assert only["text"].count("[Whiteboard selection") == 1


@pytest.mark.parametrize(("site", "markup"), SITE_MARKUPS, ids=IDS)
def test_one_injection_however_many_send_gestures_fire(browser, page, site, markup):
    open_chat(page, site, MARKUPS[site][markup].page, reply="none")
    key = session_key(browser.context, page)
    capture_selection(browser, page, MARKUPS[site][markup].answer, key)
    close_panel(page)
    type_draft(page, site, "Once only")
    box = send_button_box(page, MARKUPS[site][markup].send)
    # Enter, a click on the send button and Enter again, all before the host answers.
    page.keyboard.press("Enter")
    click_at(page, box)
    page.locator(MARKUPS[site][markup].editor).focus()
    page.keyboard.press("Enter")
    wait_for(lambda: len(sent(page)) >= 1, what="the send")
    page.wait_for_timeout(600)  # room for any duplicate to show up
    [only] = sent(page)
    assert only["text"].count("[Whiteboard selection") == 1 and only["text"].count("Once only") == 1
    users = [m for m in session_messages(browser.context, key) if m["role"] == "user" and m["source"] == "chat"]
    assert [m["content"] for m in users].count("Once only") == 1


@pytest.mark.parametrize(("site", "markup"), SITE_MARKUPS, ids=IDS)
def test_shift_enter_and_composing_enter_are_not_intercepted(browser, page, site, markup):
    open_chat(page, site, MARKUPS[site][markup].page, reply="none")
    key = session_key(browser.context, page)
    page.evaluate("""(css) => {
        window.__seen = [];
        document.querySelector(css).addEventListener('keydown', (e) => {
            if (e.key === 'Enter') window.__seen.push({shift: e.shiftKey, composing: e.isComposing, code: e.keyCode});
        });
    }""", MARKUPS[site][markup].editor)
    type_draft(page, site, "line one")
    page.keyboard.press("Shift+Enter")
    page.keyboard.type("line two")
    for init in ({"isComposing": True, "keyCode": 13}, {"isComposing": False, "keyCode": 229}):
        prevented = page.evaluate("""([css, init]) => {
            const e = new KeyboardEvent('keydown',
                {key: 'Enter', code: 'Enter', bubbles: true, cancelable: true, ...init});
            document.querySelector(css).dispatchEvent(e);
            return e.defaultPrevented;
        }""", [MARKUPS[site][markup].editor, init])
        assert prevented is False
    page.wait_for_timeout(400)
    # The site saw all three Enters itself: none was swallowed by Whiteboard.
    assert sim(page, "window.__seen") == [{"shift": True, "composing": False, "code": 13},
                                          {"shift": False, "composing": True, "code": 13},
                                          {"shift": False, "composing": False, "code": 229}]
    assert sent(page) == []
    assert session_messages(browser.context, key) == []  # no chat.prepare_send, nothing recorded
    assert re.search(r"line one\s+line two", composer_text(page, site))


@pytest.mark.parametrize(("site", "markup"), SITE_MARKUPS, ids=IDS)
def test_the_reply_is_captured_once_and_only_after_its_finished_marker(browser, page, site, markup):
    # Three chunks 800 ms apart, and the finished marker 800 ms after the last: the page falls
    # quiet mid-stream for longer than the capture's settle time, so only the site's streaming
    # or finished marker can hold the capture back.
    open_chat(page, site, MARKUPS[site][markup].page, replyMs=2400, chunks=3, finishMs=800)
    key = session_key(browser.context, page)
    send_typed(page, site, "Tell me about fish")
    shown = chat_roles(browser, key)
    replies = lambda: [m["content"] for m in session_messages(browser.context, key)  # noqa: E731
                       if m["role"] == "assistant" and m["content"].startswith("Simulated reply")]
    wait_for(lambda: sim(page, "window.__sim.streaming"), what="the reply to start streaming")
    while sim(page, "window.__sim.streaming"):
        assert replies() == [], "a reply was captured before it had finished"
        time.sleep(0.1)
    [full] = [r["text"] for r in sim(page, "window.__sim.replies")]
    assert wait_for(lambda: replies(), timeout=3, what="the finished reply") == [full]
    time.sleep(0.8)  # later page activity must not record it again
    assert replies() == [full]
    assert chat_roles(browser, key) == [*shown, "assistant"]


@pytest.mark.parametrize(("site", "markup"), SITE_MARKUPS, ids=IDS)
def test_a_reply_streaming_when_the_page_opens_is_captured_once_after_it_finishes(browser, page, site, markup):
    # The page opens mid-reply (a reload during a reply): the reply's words are shown in the
    # site's own markup, its finished marker is not, until the test ends the reply.
    open_chat(page, site, MARKUPS[site][markup].page, midStream=1, replyMs=300, chunks=2)
    key = session_key(browser.context, page)
    wait_for(lambda: sim(page, "window.__sim.held === true"), what="the reply's last words, unfinished")
    capture_selection(browser, page, MARKUPS[site][markup].answer, key)  # the user acts: the conversation joins
    replies = lambda: [m["content"] for m in session_messages(browser.context, key)  # noqa: E731
                       if m["role"] == "assistant" and m["content"].startswith("Simulated reply")]
    time.sleep(1.0)  # well past the capture's settle time: the page is quiet, the reply unfinished
    assert replies() == [], "a reply was captured before it had finished"
    assert chat_roles(browser, key) == []  # nothing of the page joins while a reply streams
    page.evaluate("() => window.__sim.finishReply()")
    wait_for(lambda: not sim(page, "window.__sim.streaming"), what="the finished marker")
    [full] = [r["text"] for r in sim(page, "window.__sim.replies")]
    assert wait_for(lambda: replies(), timeout=5, what="the finished reply") == [full]
    time.sleep(0.8)
    assert replies() == [full]
    roles = chat_roles(browser, key)  # then the whole conversation shown, the reply last
    assert roles[0] == "user" and roles[-1] == "assistant" and roles.count("assistant") >= 2


@pytest.mark.parametrize(("site", "markup"), SITE_MARKUPS, ids=IDS)
def test_closing_the_tab_clears_its_session(browser, page, site, markup):
    open_chat(page, site, MARKUPS[site][markup].page, reply="none")
    key = session_key(browser.context, page)
    send_typed(page, site, "Remember this")
    assert session_messages(browser.context, key)
    page.close()
    wait_for(lambda: session_messages(browser.context, key) == [], what="the session to be cleared")
    assert key not in [s["key"] for s in browser.request({"type": "session.list"})["sessions"]]


@pytest.mark.parametrize(("site", "markup"), SITE_MARKUPS, ids=IDS)
def test_pause_and_the_options_switch_leave_sends_alone_and_the_popup_names_the_site(browser, page, site, markup):
    label, host = SITES[site].label, SITES[site].hosts[0]
    open_chat(page, site, MARKUPS[site][markup].page, reply="none")
    key = session_key(browser.context, page)
    capture_selection(browser, page, MARKUPS[site][markup].answer, key)
    popup = open_popup(browser.context, tab_id(browser.context, page))
    wait_for(lambda: popup.locator("#page-text").inner_text().startswith(f"{label}: attached"), what="attached")
    assert popup.locator("#page-host").text_content() == host
    popup.locator("#pause").click()
    wait_for(lambda: settings(browser).get("paused") == {host: True}, what="paused")
    page.bring_to_front()
    held = len(session_messages(browser.context, key))
    assert send_typed(page, site, "Not while paused")["text"] == "Not while paused"
    assert len(session_messages(browser.context, key)) == held  # nothing went to the host
    popup.bring_to_front()
    popup.locator("#pause").click()
    wait_for(lambda: settings(browser).get("paused") == {}, what="resumed")
    popup.close()

    # (A turn shown while paused is the page's own: it joins the session once resumed.)
    options = browser.context.new_page()
    options.goto(f"chrome-extension://{EXTENSION_ID}/options/options.html")
    box = options.locator(f"#site-on-{site}")
    assert label in options.locator(f"#site-row-{site}").inner_text()
    try:
        box.uncheck()  # saved as it changes: no Save button
        wait_for(lambda: settings(browser)["sites"][site] is False, what="the site turned off")
        assert f"off for {label}" in options.locator("#sites-status").inner_text()
        page.bring_to_front()
        held = len(session_messages(browser.context, key))
        assert send_typed(page, site, "Off in Options")["text"] == "Off in Options"
        assert len(session_messages(browser.context, key)) == held
    finally:
        box.check()
        wait_for(lambda: settings(browser)["sites"][site] is True, what="the site turned back on")
        options.close()
    page.bring_to_front()
    assert "[Whiteboard selection" in send_typed(page, site, "Back on")["text"]  # the selection waited for this send


@pytest.mark.parametrize(("site", "markup"), SITE_MARKUPS, ids=IDS)
def test_long_term_memory_opted_in_from_the_popup_is_recalled_into_a_send(browser, page, site, markup):
    host = SITES[site].hosts[0]
    ok(browser.request({"type": "memory.wipe", "confirm": True}))
    ok(browser.request({"type": "memory.add", "text": FACT, "memory_type": "preference"}))
    open_chat(page, site, MARKUPS[site][markup].page, reply="none")
    key = session_key(browser.context, page)
    popup = open_popup(browser.context, tab_id(browser.context, page))
    popup.wait_for_selector("#memory-opt-in:not([disabled])")
    assert popup.locator("#memory-opt-in").is_checked() is False  # off by default
    popup.locator("#memory-opt-in").click()
    try:
        wait_for(lambda: f"on for {host}" in popup.locator("#memory-status").inner_text(), what="opted in")
        assert ok(browser.request({"type": "site.settings", "site": host}))["long_term"] is True
        page.bring_to_front()
        text = send_typed(page, site, DRAFT)["text"]
        assert text.startswith(DRAFT + "\n\n---\n[Whiteboard context · ")
        assert f"] {FACT}\n" in text and text.count("[Whiteboard context") == 1
        assert strip_blocks(text) == DRAFT
        users = [m["content"] for m in session_messages(browser.context, key) if m["role"] == "user"]
        assert users[-1] == DRAFT
        # The options page's Chat sites table has one memory switch for the site's host names:
        # half-set where only the one used here is on (Copilot has two).
        options = browser.context.new_page()
        options.goto(f"chrome-extension://{EXTENSION_ID}/options/options.html")
        box = options.locator(f"#memory-site-{site}")
        wait_for(lambda: box.is_enabled(), what="the options memory column")
        half = len(SITES[site].hosts) > 1
        assert box.is_checked() is not half and box.evaluate("b => b.indeterminate") is half
        assert SITES[site].label in options.locator(f"#site-row-{site}").inner_text()
        options.close()
    finally:
        popup.bring_to_front()
        popup.locator("#memory-opt-in").click()
        wait_for(lambda: f"off for {host}" in popup.locator("#memory-status").inner_text(), what="opted out")
        popup.close()
        ok(browser.request({"type": "memory.wipe", "confirm": True}))


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@pytest.mark.parametrize(("source", "markup"), SITE_MARKUPS, ids=IDS)
def test_handoff_offers_every_other_site_and_fills_the_chosen_ones_composer_unsent(browser, page, source, markup):
    target = SITE_IDS[(SITE_IDS.index(source) + 1) % len(SITE_IDS)]  # each site hands off once, each receives once
    start = SITES[target].start_url
    target_page = MARKUPS[target].get(markup, SITES[target]).page  # the same markup where the target has it
    served = []

    def start_page(route, request):
        served.append(request.url)
        route.fulfill(body=harness.page_html(target_page, target, {}), content_type="text/html; charset=utf-8")

    browser.context.route(start, start_page)
    try:
        open_chat(page, source, MARKUPS[source][markup].page, reply="none")
        key = session_key(browser.context, page)
        popup = open_popup(browser.context, tab_id(browser.context, page))
        buttons = popup.locator(".handoff-button")
        buttons.first.wait_for()
        assert buttons.all_inner_texts() == [f"Continue in {SITES[s].label}" for s in SITE_IDS if s != source]
        with browser.context.expect_page(timeout=20000) as opened:
            popup.locator(f".handoff-button[data-site={target}]").click()
        other = opened.value
        other.wait_for_function("() => window.__sim !== undefined")
        assert served == [start]
        note = browser.request({"type": "handoff.summary", "key": key}, 10000)
        assert note["ok"], note
        wait_for(lambda: _squash(composer_text(other, target)) == _squash(note["text"]), timeout=10,
                 what="the handoff note in the composer")
        time.sleep(1.0)  # nothing is sent on the user's behalf
        assert sent(other) == []
        assert f"Opened {SITES[target].label}" in popup.locator("#handoff-status").inner_text()
        other.close()
        popup.close()
    finally:
        browser.context.unroute(start, start_page)
