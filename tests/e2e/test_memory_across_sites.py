"""Long-term memory across chat sites, in real Chromium with the real extension and host:
opt in (popup, options), a fact said on ChatGPT extracted with "Extract now" and recalled
into a later send on Claude; no memories where the site did not opt in; the preview near
the composer and its "leave out of the next send" switch; memory HTML sent as text."""

import pytest

from e2e import harness
from e2e.harness import (
    kill_host,
    open_chat,
    send_typed,
    sent,
    service_worker,
    session_key,
    session_messages,
    set_long_term,
    shadow_ui,
    site_hostname,
    tab_id,
    type_draft,
    ui_visible,
    wait_for,
)
from support.host import ok
from whiteboard.blocks import strip_blocks
from whiteboard.config import EXTENSION_ID

PAGES = {"chatgpt": "acb__chatgpt_2026-04-13", "claude": "acb__claude_2026-04-13"}
HOSTS = {site: site_hostname(site) for site in ("chatgpt", "claude")}
FACT = "Prefers TypeScript for all my projects"
DRAFT = "Help me start a new web project. Which language fits?"
PREVIEW = "whiteboard-memory-preview"
HTML = '<img src=x onerror="window.__pwned=1"><b>bold</b> headings in TypeScript docs'



def mirror(browser) -> dict:
    return service_worker(browser.context).evaluate(
        "async () => (await chrome.storage.local.get('memorySites')).memorySites || {}")


@pytest.fixture(autouse=True)
def fresh_memory(browser):
    ok(browser.request({"type": "memory.wipe", "confirm": True}))
    for site in HOSTS:
        ok(browser.request({"type": "site.settings", "site": HOSTS[site], "paused": False}))
        set_long_term(browser.context, site, False)
    yield


def open_popup(browser, tab: int):
    popup = browser.context.new_page()
    popup.goto(f"chrome-extension://{EXTENSION_ID}/popup/popup.html?tab={tab}")
    popup.wait_for_selector("body[data-ready=true]")
    popup.wait_for_selector("#memory-opt-in:not([disabled])")
    return popup



def preview_text(page) -> str:
    ui = shadow_ui(page, PREVIEW)
    return ui["text"] if ui else ""


def click_leave_out(page):
    """A real click on the closed shadow root's checkbox, found and measured through CDP."""
    cdp = page.context.new_cdp_session(page)
    try:
        doc = cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})

        def find(node):
            attrs = node.get("attributes", [])
            if "data-wb" in attrs and attrs[attrs.index("data-wb") + 1] == "leave-out":
                return node
            for child in [*node.get("children", []), *node.get("shadowRoots", [])]:
                found = find(child)
                if found:
                    return found
            return None

        box = cdp.send("DOM.getBoxModel", {"nodeId": find(doc["root"])["nodeId"]})["model"]["content"]
    finally:
        cdp.detach()
    page.mouse.click((box[0] + box[4]) / 2, (box[1] + box[5]) / 2)


ASK_TEXT = "Long-term memory on · see what goes with this send"


def ask_preview(page) -> None:
    """The chip appears with the draft, without asking the host; a click asks (design §8)."""
    wait_for(lambda: ASK_TEXT in preview_text(page), what="the preview chip")
    page.locator(PREVIEW).click()


def test_typing_sends_nothing_to_the_host_until_the_chip_is_clicked(browser, page):
    set_long_term(browser.context, "claude", True)
    ok(browser.request({"type": "memory.add", "text": FACT, "memory_type": "preference"}))
    open_chat(page, "claude", PAGES["claude"], reply="none")
    type_draft(page, "claude", DRAFT)
    wait_for(lambda: ASK_TEXT in preview_text(page), what="the preview chip")
    page.wait_for_timeout(800)  # twice the typing pause the open list waits for
    assert "will be added" not in preview_text(page) and FACT not in preview_text(page)
    page.locator(PREVIEW).click()
    wait_for(lambda: "1 memory will be added" in preview_text(page) and FACT in preview_text(page),
             what="the preview after the click")


def test_a_fact_said_on_chatgpt_is_recalled_into_a_later_send_on_claude(browser, page):
    # Opt in on ChatGPT from the popup: the host holds the choice, the mirror follows.
    open_chat(page, "chatgpt", PAGES["chatgpt"], reply="none")
    gpt_key = session_key(browser.context, page)
    popup = open_popup(browser, tab_id(browser.context, page))
    assert popup.locator("#memory-opt-in").is_checked() is False  # off by default
    assert popup.locator("#memory-extract").is_disabled()
    popup.locator("#memory-opt-in").click()
    wait_for(lambda: "on for chatgpt.com" in popup.locator("#memory-status").inner_text(), what="opted in")
    assert ok(browser.request({"type": "site.settings", "site": "chatgpt.com"}))["long_term"] is True
    assert mirror(browser) == {"chatgpt.com": True}
    assert popup.locator("#memory-manage").get_attribute("href") == \
        f"chrome-extension://{EXTENSION_ID}/memory/manager.html"

    said = send_typed(page, "chatgpt", "I prefer TypeScript for all my projects.")
    assert said["text"] == "I prefer TypeScript for all my projects."  # no memories yet: nothing added
    popup.bring_to_front()
    popup.locator("#memory-extract").click()
    wait_for(lambda: "added" in popup.locator("#memory-status").inner_text(), timeout=15, what="extraction")
    assert FACT in popup.locator("#memory-status").inner_text()
    memories = ok(browser.request({"type": "memory.list"}))["memories"]
    assert [m["site"] for m in memories if m["text"] == FACT] == ["chatgpt.com"]
    popup.close()

    # Claude has not opted in: the same send goes without memories, and no preview shows.
    claude = browser.context.new_page()
    open_chat(claude, "claude", PAGES["claude"], reply="none")
    plain = send_typed(claude, "claude", DRAFT)
    assert plain["text"] == DRAFT
    assert not ui_visible(claude, PREVIEW)

    # Opt in on Claude from the options page.
    options = browser.context.new_page()
    options.goto(f"chrome-extension://{EXTENSION_ID}/options/options.html")
    box = options.locator("#memory-site-claude")
    gpt_box = options.locator("#memory-site-chatgpt")
    # Each row reads the host on its own: wait for both, not the first to answer.
    wait_for(lambda: box.is_enabled() and gpt_box.is_enabled(), what="options memory column")
    assert box.is_checked() is False and gpt_box.is_checked() is True
    box.click()
    wait_for(lambda: "memory is on for Claude" in options.locator("#sites-status").inner_text(), what="claude on")
    assert mirror(browser) == {"chatgpt.com": True, "claude.ai": True}
    options.close()

    claude.bring_to_front()
    claude_key = session_key(browser.context, claude)
    type_draft(claude, "claude", DRAFT)
    # (The saved ChatGPT conversation may have given other facts too: at least this one.)
    ask_preview(claude)
    wait_for(lambda: "will be added" in preview_text(claude), what="the preview's count")
    before = len(sent(claude))
    claude.keyboard.press("Enter")
    wait_for(lambda: len(sent(claude)) == before + 1, what="the send with memories")
    text = sent(claude)[-1]["text"]
    assert text.startswith(DRAFT + "\n\n---\n[Whiteboard context · ")
    assert f"] {FACT}\n" in text and text.count("[Whiteboard context") == 1
    assert strip_blocks(text) == DRAFT
    # The captured user turn is the draft alone: the block never feeds back into memory.
    users = [m["content"] for m in session_messages(browser.context, claude_key) if m["role"] == "user"]
    assert users[-1] == DRAFT and not any("[Whiteboard context" in u for u in users)
    assert not ui_visible(claude, PREVIEW)  # the chip goes with the send
    wait_for(lambda: [m["usage_count"] for m in ok(browser.request({"type": "memory.list"}))["memories"]
                      if m["text"] == FACT] == [1], what="usage counted off the send path")
    assert gpt_key != claude_key
    claude.close()


def test_a_choice_made_in_another_browser_reaches_the_preview(browser, page):
    # Every browser's host shares the site settings: here another browser turns memory on
    # for Claude. This browser's mirror learns it when its port (re)connects...
    ok(browser.request({"type": "site.settings", "site": "claude.ai", "long_term": True}))
    assert mirror(browser) == {}
    kill_host(browser.root)
    wait_for(lambda: mirror(browser) == {"claude.ai": True}, timeout=15, what="the mirror read on reconnect")
    open_chat(page, "claude", PAGES["claude"], reply="none")
    type_draft(page, "claude", DRAFT)
    wait_for(lambda: ASK_TEXT in preview_text(page), what="the preview chip")

    # ...and from every chat reply: paused elsewhere, the next send says so.
    ok(browser.request({"type": "site.settings", "site": "claude.ai", "paused": True}))
    page.keyboard.press("Enter")
    wait_for(lambda: len(sent(page)) == 1, what="the send")
    assert sent(page)[0]["text"] == DRAFT
    wait_for(lambda: mirror(browser) == {}, what="the mirror following the pause")
    type_draft(page, "claude", "And the tests?")
    page.wait_for_timeout(800)  # twice the typing pause after which the chip would show
    assert not ui_visible(page, PREVIEW)


def test_leave_out_for_this_send_sends_without_the_block_once(browser, page):
    set_long_term(browser.context, "claude", True)
    ok(browser.request({"type": "memory.add", "text": FACT, "memory_type": "preference"}))
    open_chat(page, "claude", PAGES["claude"], reply="none")
    type_draft(page, "claude", DRAFT)
    ask_preview(page)
    wait_for(lambda: "1 memory will be added" in preview_text(page) and FACT in preview_text(page),
             what="the memory listed")
    click_leave_out(page)
    wait_for(lambda: "left out of the next send" in preview_text(page), what="the switch")
    page.keyboard.press("Enter")  # the clicks left the focus in the composer
    wait_for(lambda: len(sent(page)) == 1, what="the send")
    assert sent(page)[0]["text"] == DRAFT
    # Only that send: the next one carries the memories again.
    again = send_typed(page, "claude", "Set up my next frontend project")
    assert "[Whiteboard context · 1 memory]" in again["text"] and FACT in again["text"]


def test_memory_html_goes_in_as_plain_text(browser, page):
    set_long_term(browser.context, "claude", True)
    ok(browser.request({"type": "memory.add", "text": HTML, "memory_type": "preference"}))
    open_chat(page, "claude", PAGES["claude"], reply="none")
    draft = "Which headings suit my docs?"
    type_draft(page, "claude", draft)
    ask_preview(page)
    wait_for(lambda: HTML in preview_text(page), what="the memory listed as text")
    assert not {"img", "b"} & set(shadow_ui(page, PREVIEW)["tags"])
    page.keyboard.press("Enter")
    wait_for(lambda: len(sent(page)) == 1, what="the send")
    [message] = sent(page)
    assert f"] {HTML}\n" in message["text"]  # the literal characters reached the site
    assert message["markup"] == 0  # no element was made from them in the composer
    assert page.evaluate("document.querySelectorAll('img[src=\"x\"]').length") == 0
    page.wait_for_timeout(200)
    assert page.evaluate("window.__pwned") is None


def test_turning_memory_off_in_the_popup_hides_the_preview_and_stops_injection(browser, page):
    set_long_term(browser.context, "chatgpt", True)
    ok(browser.request({"type": "memory.add", "text": FACT, "memory_type": "preference"}))
    open_chat(page, "chatgpt", PAGES["chatgpt"], reply="none")
    popup = open_popup(browser, tab_id(browser.context, page))
    assert popup.locator("#memory-opt-in").is_checked() and popup.locator("#memory-extract").is_enabled()
    page.bring_to_front()
    type_draft(page, "chatgpt", DRAFT)
    wait_for(lambda: ASK_TEXT in preview_text(page), what="the preview chip")
    popup.locator("#memory-opt-in").click()
    wait_for(lambda: "off for chatgpt.com" in popup.locator("#memory-status").inner_text(), what="turned off")
    assert popup.locator("#memory-extract").is_disabled()
    assert ok(browser.request({"type": "site.settings", "site": "chatgpt.com"}))["long_term"] is False
    wait_for(lambda: not ui_visible(page, PREVIEW), what="the chip hidden")
    page.locator("#prompt-textarea").click()
    page.keyboard.press("Enter")
    wait_for(lambda: len(sent(page)) == 1, what="the send")
    assert sent(page)[0]["text"] == DRAFT
    popup.close()


def test_off_the_chat_sites_the_popup_offers_no_memory_switch(browser, page):
    page.goto("https://news.example/kyoto")
    popup = browser.context.new_page()
    popup.goto(f"chrome-extension://{EXTENSION_ID}/popup/popup.html?tab={tab_id(browser.context, page)}")
    popup.wait_for_selector("body[data-ready=true]")
    labels = [site.label for site in harness.SITES.values()]
    every = f"works on {', '.join(labels[:-1])} and {labels[-1]}"
    wait_for(lambda: every in popup.locator("#memory-status").inner_text(), what="status")
    assert popup.locator("#memory-opt-in").is_disabled() and popup.locator("#memory-extract").is_disabled()
    assert popup.locator("#memory-manage").is_visible()
    popup.close()
