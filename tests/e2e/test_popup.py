"""The popup and options page against the real worker and host."""

import re
import time

from e2e import harness
from e2e.harness import (
    EXTENSION_ID,
    capture_selection,
    host_request,
    open_chat,
    open_popup,
    service_worker,
    session_key,
    session_messages,
    sim,
    tab_id,
    type_draft,
    wait_for,
)
from whiteboard.tokens import TokenCounter

PAGE = "acb__chatgpt_2026-04-13"
ANSWER = "[data-message-author-role=assistant] .markdown p"


def send(page, text, site="chatgpt"):
    n = len(sim(page, "window.__sim.sent"))
    type_draft(page, site, text)
    page.keyboard.press("Enter")
    wait_for(lambda: len(sim(page, "window.__sim.sent")) == n + 1, what="the send")
    return sim(page, "window.__sim.sent")[-1]["text"]


def settings(browser):
    return service_worker(browser.context).evaluate("() => chrome.storage.local.get('settings')").get("settings")


def test_popup_shows_connection_page_and_session(browser, page):
    open_chat(page, "chatgpt", PAGE, reply="none")
    send(page, "What is a token meter?")
    popup = open_popup(browser.context, tab_id(browser.context, page))
    assert popup.locator("#connection-text").inner_text().startswith("Connected to the Whiteboard host")
    assert popup.locator("#next-step").is_hidden()
    assert popup.locator("#page-host").text_content() == "chatgpt.com"
    assert popup.locator("#page-text").inner_text().startswith("ChatGPT: attached")
    summary = popup.locator("#session-summary").inner_text()
    m = re.match(r"(\d+) messages · (\d+) / 2000 tokens · nothing distilled", summary)
    assert m and int(m.group(1)) == 5 and 0 < int(m.group(2)) <= 2000, summary
    assert "What is a token meter?" in popup.locator("#messages li").first.inner_text()
    popup.close()


def test_the_meter_says_how_much_went_in_full_shortened_or_only_in_the_summary(browser, page):
    open_chat(page, "chatgpt", PAGE, reply="none")
    key = session_key(browser.context, page)
    for i in range(60):
        host_request(browser.context, {"type": "session.add", "key": key, "role": "user" if i % 2 else "assistant",
                                       "content": f"Turn {i}: " + "a long reply about the plan and its details. " * 12})
    popup = open_popup(browser.context, tab_id(browser.context, page))
    summary = popup.locator("#session-summary").inner_text()
    m = re.search(r"(\d+) / 2000 tokens · distilled: (\d+) in full, (\d+) shortened, (\d+) only in the summary",
                  summary)
    assert m, summary
    used, full, shortened, summarised = map(int, m.groups())
    assert used >= 1960 and full > 3 and summarised > 0, summary  # the budget is used, not cut away
    assert full + shortened + summarised >= 60
    popup.close()


def test_a_clear_right_after_a_send_stays_clear(browser, page):
    # The page settles 300 ms after a send before it records the turns it shows; a clear
    # inside that window must not see the sent turn (or a reply) come back.
    open_chat(page, "chatgpt", PAGE, replyMs=600, chunks=2)
    key = session_key(browser.context, page)
    popup = open_popup(browser.context, tab_id(browser.context, page))
    page.bring_to_front()
    send(page, "Clear me at once")
    popup.locator("#clear-tab").click()
    wait_for(lambda: "cleared" in popup.locator("#notice").inner_text(), what="the notice")
    wait_for(lambda: not sim(page, "window.__sim.streaming") and sim(page, "window.__sim.replies"),
             what="the reply to finish")
    time.sleep(1.0)  # well past the capture's settle time
    assert session_messages(browser.context, key) == []
    page.bring_to_front()
    send(page, "A new start")  # what comes after the clear is recorded as usual
    wait_for(lambda: [m["content"] for m in session_messages(browser.context, key)][:1] == ["A new start"],
             what="the next send recorded")
    popup.close()


def test_pause_on_this_site_stops_interception_until_resumed(browser, page):
    open_chat(page, "chatgpt", PAGE, reply="none")
    key = session_key(browser.context, page)
    capture_selection(browser, page, ANSWER, key)
    popup = open_popup(browser.context, tab_id(browser.context, page))
    popup.locator("#pause").click()
    wait_for(lambda: popup.locator("#pause").inner_text() == "Resume on this site", what="paused")
    assert settings(browser)["paused"] == {"chatgpt.com": True}
    held = len(session_messages(browser.context, key))
    page.bring_to_front()
    assert send(page, "Not while paused") == "Not while paused"
    assert len(session_messages(browser.context, key)) == held  # nothing went to the host
    popup.bring_to_front()
    popup.locator("#pause").click()
    wait_for(lambda: settings(browser)["paused"] == {}, what="resumed")
    page.bring_to_front()
    assert "[Whiteboard selection" in send(page, "Resumed")  # the selection waited for this send
    popup.close()


def test_clear_this_tab_and_clear_all(browser, page):
    open_chat(page, "chatgpt", PAGE, reply="none")
    key = session_key(browser.context, page)
    send(page, "Something to clear")
    other = browser.context.new_page()
    open_chat(other, "claude", "acb__claude_2026-04-13", reply="none")
    send(other, "Another tab", site="claude")
    other_key = session_key(browser.context, other)
    popup = open_popup(browser.context, tab_id(browser.context, page))
    popup.locator("#clear-tab").click()
    wait_for(lambda: "cleared" in popup.locator("#notice").inner_text(), what="the notice")
    assert session_messages(browser.context, key) == []
    assert session_messages(browser.context, other_key) != []
    popup.locator("#clear-all").click()
    wait_for(lambda: "Cleared" in popup.locator("#notice").inner_text(), what="the notice")
    assert session_messages(browser.context, other_key) == []
    assert popup.locator("#session-summary").inner_text() == "Nothing captured in this tab yet."
    other.close()
    popup.close()


def test_unrecognised_page_is_left_alone_and_the_popup_says_so(browser, page):
    # Server HTML from before hydration: no composer in the DOM.
    page.goto("https://chatgpt.com/c/tl__chatgpt_ssr_2026-07-19?sim=0")
    popup = open_popup(browser.context, tab_id(browser.context, page))
    wait_for(lambda: popup.reload() or popup.wait_for_selector("body[data-ready=true]") and
             "not recognised" in popup.locator("#page-text").inner_text(), timeout=12, interval=0.5,
             what="the unrecognised state")
    assert "no chat composer" in popup.locator("#page-text").inner_text()
    popup.close()


def test_options_set_the_budget_and_the_sites(browser, page):
    options = browser.context.new_page()
    options.goto(f"chrome-extension://{EXTENSION_ID}/options/options.html")
    options.locator("#budget").fill("120")
    options.locator("#budget").press("Tab")  # a change event: saved as it changes
    wait_for(lambda: "at most 120 tokens" in options.locator("#sends-status").inner_text(), what="saved")
    options.locator("#site-on-claude").uncheck()
    wait_for(lambda: "off for Claude" in options.locator("#sites-status").inner_text(), what="saved")
    assert settings(browser)["budget"] == 120
    assert settings(browser)["sites"] == {site: site != "claude" for site in harness.SITE_IDS}
    try:
        open_chat(page, "claude", "acb__claude_2026-04-13", reply="none")
        key = session_key(browser.context, page)
        assert send(page, "Claude is off", site="claude") == "Claude is off"
        assert session_messages(browser.context, key) == []

        open_chat(page, "chatgpt", PAGE, reply="none")
        key = session_key(browser.context, page)
        long = "x " * 5000
        page.evaluate("(t) => { const p = document.createElement('p'); p.id = 'long'; p.textContent = t;"
                      " document.querySelector('[data-message-author-role=assistant] .markdown').append(p); }", long)
        capture_selection(browser, page, "#long", key)
        text = send(page, "Budgeted")
        block = text[len("Budgeted\n\n"):]
        assert block.startswith("---\n[Whiteboard selection") and TokenCounter().load_now().count(block) <= 120
    finally:
        options.locator("#budget").fill("2000")
        options.locator("#budget").press("Tab")
        options.locator("#site-on-claude").check()
        wait_for(lambda: settings(browser)["budget"] == 2000 and settings(browser)["sites"]["claude"], what="restored")
        options.close()
