"""Send interception on the saved ChatGPT and Claude pages: selections injected exactly
once, only on a real send, as plain text (design §8)."""

import pytest

from e2e.harness import (
    capture_selection,
    open_chat,
    sent,
    session_key,
    session_messages,
    shadow_ui,
    sim,
    type_draft,
    wait_for,
)
from whiteboard.blocks import strip_blocks

PAGES = {"chatgpt": "acb__chatgpt_2026-04-13", "claude": "acb__claude_2026-04-13"}
ANSWER = {"chatgpt": "[data-message-author-role=assistant] .markdown p",
          "claude": ".font-claude-response .standard-markdown p"}



@pytest.mark.parametrize("site", ["chatgpt", "claude"])
def test_selection_joins_the_session_and_goes_once_with_the_next_send(browser, page, site):
    open_chat(page, site, PAGES[site], reply="none")
    key = session_key(browser.context, page)
    assert session_messages(browser.context, key) == []  # nothing reaches the host before the user acts
    selected = capture_selection(browser, page, ANSWER[site], key)
    held = session_messages(browser.context, key)
    assert held[-1]["source"] == "selection" and held[-1]["content"] == selected
    # The click also recorded the conversation shown on the page (2 user + 2 assistant turns).
    assert [m["role"] for m in held if m["source"] == "chat"] == ["user", "assistant", "user", "assistant"]
    # The panel lists the tab's messages once the host's reply reaches it: wait for that.
    panel = wait_for(lambda: (p := shadow_ui(page, "whiteboard-panel")) and selected[:40] in p["text"] and p,
                     what="the selection in the panel")
    assert "Selection added" in panel["text"]

    type_draft(page, site, "Explain this in one sentence")
    page.keyboard.press("Enter")
    wait_for(lambda: len(sent(page)) == 1, what="the send")
    [first] = sent(page)
    assert first["text"].startswith("Explain this in one sentence")
    assert first["text"].count("[Whiteboard selection · 1 passage]") == 1
    assert first["text"].count(selected[:60]) == 1
    assert strip_blocks(first["text"]) == "Explain this in one sentence"
    # The user's message is recorded once, without the block.
    users = [m["content"] for m in session_messages(browser.context, key)
             if m["role"] == "user" and m["source"] == "chat"]
    assert users[-1] == "Explain this in one sentence" and users.count("Explain this in one sentence") == 1

    type_draft(page, site, "And in French?")
    page.keyboard.press("Enter")
    wait_for(lambda: len(sent(page)) == 2, what="the second send")
    assert sent(page)[1]["text"] == "And in French?"  # the selection went with the first send only


def test_one_injection_however_many_send_gestures_fire(browser, page):
    open_chat(page, "chatgpt", PAGES["chatgpt"], reply="none")
    key = session_key(browser.context, page)
    capture_selection(browser, page, ANSWER["chatgpt"], key)
    type_draft(page, "chatgpt", "Once only")
    box = page.locator("button[data-testid=send-button]").bounding_box()
    # The user's Enter, a click on the send button and Enter again, before the host answers.
    page.keyboard.press("Enter")
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.keyboard.press("Enter")
    wait_for(lambda: len(sent(page)) >= 1, what="the send")
    page.wait_for_timeout(600)  # room for any duplicate to show up
    [only] = sent(page)
    assert only["text"].count("[Whiteboard selection") == 1 and only["text"].count("Once only") == 1
    users = [m for m in session_messages(browser.context, key) if m["role"] == "user" and m["source"] == "chat"]
    assert [m["content"] for m in users].count("Once only") == 1


@pytest.mark.parametrize("gesture", ["click", "submit"])
def test_send_button_click_and_form_submit_are_intercepted(browser, page, gesture):
    open_chat(page, "chatgpt", PAGES["chatgpt"], reply="none")
    key = session_key(browser.context, page)
    capture_selection(browser, page, ANSWER["chatgpt"], key)
    type_draft(page, "chatgpt", f"Sent by {gesture}")
    if gesture == "click":
        page.locator("button[data-testid=send-button]").click()
    else:
        # A submit button the adapter does not know as the send button: the user's click on
        # it submits the form, and that submit is the send.
        page.evaluate("""() => {
            const button = document.createElement('button');
            button.type = 'submit';
            button.id = 'plain-submit';
            button.textContent = 'Submit';
            document.querySelector('form[data-type=unified-composer]').append(button);
        }""")
        page.locator("#plain-submit").click()
    wait_for(lambda: len(sent(page)) == 1, what="the send")
    [only] = sent(page)
    assert only["via"] == gesture
    assert only["text"].startswith(f"Sent by {gesture}\n") and "[Whiteboard selection" in only["text"]


def test_shift_enter_and_composing_enter_are_not_intercepted(browser, page):
    open_chat(page, "chatgpt", PAGES["chatgpt"], reply="none")
    key = session_key(browser.context, page)
    page.evaluate("""() => {
        window.__seen = [];
        document.querySelector('#prompt-textarea').addEventListener('keydown', (e) => {
            if (e.key === 'Enter') window.__seen.push({shift: e.shiftKey, composing: e.isComposing, code: e.keyCode});
        });
    }""")
    type_draft(page, "chatgpt", "line one")
    page.keyboard.press("Shift+Enter")
    page.keyboard.type("line two")
    for init in ({"isComposing": True, "keyCode": 13}, {"isComposing": False, "keyCode": 229}):
        prevented = page.evaluate("""(init) => {
            const e = new KeyboardEvent('keydown',
                {key: 'Enter', code: 'Enter', bubbles: true, cancelable: true, ...init});
            document.querySelector('#prompt-textarea').dispatchEvent(e);
            return e.defaultPrevented;
        }""", init)
        assert prevented is False
    page.wait_for_timeout(400)
    seen = sim(page, "window.__seen")
    # The site saw all three Enters itself: none was swallowed by Whiteboard.
    assert seen == [{"shift": True, "composing": False, "code": 13}, {"shift": False, "composing": True, "code": 13},
                    {"shift": False, "composing": False, "code": 229}]
    assert sent(page) == []
    assert session_messages(browser.context, key) == []  # no chat.prepare_send, nothing recorded
    assert "line one" in page.locator("#prompt-textarea").inner_text()


def test_selection_holding_html_is_inserted_as_plain_text(browser, page):
    open_chat(page, "chatgpt", PAGES["chatgpt"], reply="none")
    key = session_key(browser.context, page)
    markup = '<img src=x onerror="window.__pwned=1"><b>bold</b>'
    page.evaluate("""(m) => {
        const p = document.createElement('p');
        p.id = 'markup';
        p.textContent = m;
        document.querySelector('[data-message-author-role=assistant] .markdown').append(p);
    }""", markup)
    capture_selection(browser, page, "#markup", key)
    panel = wait_for(lambda: (p := shadow_ui(page, "whiteboard-panel")) and markup in p["text"] and p,
                     what="the selection in the panel")
    assert "img" not in panel["tags"] and "b" not in panel["tags"]
    type_draft(page, "chatgpt", "What is this?")
    page.keyboard.press("Enter")
    wait_for(lambda: len(sent(page)) == 1, what="the send")
    [only] = sent(page)
    assert f"> {markup}" in only["text"]
    assert only["markup"] == 0  # the editor held text only when the site read it
    turn = page.locator("[data-message-author-role=user]").last
    assert markup in turn.inner_text() and turn.locator("img, b").count() == 0
    assert page.evaluate("() => window.__pwned") is None


def test_a_new_conversation_in_the_same_tab_gets_the_earlier_one_as_background(browser, page):
    open_chat(page, "chatgpt", PAGES["chatgpt"], reply="none")
    type_draft(page, "chatgpt", "We are planning a trip to Lisbon")
    page.keyboard.press("Enter")
    wait_for(lambda: len(sent(page)) == 1, what="the send")
    assert sent(page)[0]["text"] == "We are planning a trip to Lisbon"  # same conversation: nothing added
    # "New chat" in the same tab: a page with the composer and no turns.
    open_chat(page, "chatgpt", "gte__chatgpt_project_page_2025-12-23", reply="none")
    type_draft(page, "chatgpt", "Suggest day trips")
    page.keyboard.press("Enter")
    wait_for(lambda: len(sent(page)) == 1, what="the send on the new page")
    text = sent(page)[0]["text"]
    assert text.startswith("Suggest day trips\n\n---\n[Whiteboard background · earlier in this tab]\n")
    assert "planning a trip to Lisbon" in text and text.count("Suggest day trips") == 1
    assert strip_blocks(text) == "Suggest day trips"
