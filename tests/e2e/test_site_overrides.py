"""The user's own selectors (Options, "Fix a site"; extension/shared/site-overrides.js), in real
Chromium with the real extension and host: a ChatGPT page whose message attributes were
renamed (as a redesign does) loses its replies until the user's selectors, pasted as JSON
into Options, bring them back, with no reload; invalid and hostile selectors are ignored with
a note and the send keeps working; "Test on this tab" counts matches on the open tab."""

import json
from urllib.parse import parse_qs, urlparse

from e2e import harness
from e2e.harness import (
    EXTENSION_ID,
    capture_selection,
    open_chat,
    open_popup,
    send_typed,
    service_worker,
    session_key,
    session_messages,
    sim,
    tab_id,
    wait_for,
)

PAGE = "acb__chatgpt_2026-04-13"
RENAMED = "renamed__chatgpt"  # served at chatgpt.com/c/renamed__chatgpt: PAGE with its attributes renamed
RENAMES = {"data-message-author-role": "data-author", "data-turn": "data-turn-of"}
# Renames the attributes on the saved page and on every element the site's scripts add later.
RENAME_SCRIPT = """<script>(() => {
  const renames = RENAMES_JSON;
  const rename = (root) => {
    for (const [from, to] of Object.entries(renames)) {
      for (const el of [root, ...root.querySelectorAll(`[${from}]`)]) {
        if (!el.hasAttribute || !el.hasAttribute(from)) continue;
        el.setAttribute(to, el.getAttribute(from));
        el.removeAttribute(from);
      }
    }
  };
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) if (n.nodeType === 1) rename(n);
  }).observe(document, {childList: true, subtree: true});
})();</script>""".replace("RENAMES_JSON", json.dumps(RENAMES))
FIX = {"chatgpt.com": {"userMessage": "[data-author=user]", "assistantMessage": "[data-author=assistant]"}}


def serve_renamed(context) -> None:
    def renamed(route, request):
        html = harness.page_html(PAGE, "chatgpt", parse_qs(urlparse(request.url).query))
        for old, new in RENAMES.items():
            html = html.replace(f"{old}=", f"{new}=")
        at = html.lower().find("<head>") + len("<head>")
        route.fulfill(body=html[:at] + RENAME_SCRIPT + html[at:], content_type="text/html; charset=utf-8")

    context.route(f"https://chatgpt.com/c/{RENAMED}*", renamed)


def replies(browser, key) -> list[str]:
    return [m["content"] for m in session_messages(browser.context, key)
            if m["role"] == "assistant" and m["content"].startswith("Simulated reply")]


def open_options(browser):
    options = browser.context.new_page()
    options.goto(f"chrome-extension://{EXTENSION_ID}/options/options.html")
    options.wait_for_selector("#fix-json")
    return options


def paste_overrides(options, value) -> str:
    options.locator("#fix-json").fill(value if isinstance(value, str) else json.dumps(value))
    options.locator("#fix-apply").click()
    wait_for(lambda: options.locator("#fix-status").inner_text(), what="the overrides applied")
    return options.locator("#site-fixes").inner_text()


def stored(browser) -> dict:
    return service_worker(browser.context).evaluate("() => chrome.storage.local.get('siteOverrides')") \
        .get("siteOverrides")


def page_status(browser, page) -> dict:
    tab = tab_id(browser.context, page)
    return service_worker(browser.context).evaluate(
        "(t) => chrome.storage.session.get(`page:${t}`).then((got) => got[`page:${t}`])", tab)


def test_renamed_message_attributes_miss_the_reply_until_the_users_selectors_bring_it_back(browser, page):
    serve_renamed(browser.context)
    options = None
    try:
        open_chat(page, "chatgpt", RENAMED, replyMs=600, chunks=3, finishMs=300)
        assert page.evaluate("() => document.querySelectorAll('[data-message-author-role]').length") == 0
        assert page.evaluate("() => document.querySelectorAll('[data-author]').length") == 4
        key = session_key(browser.context, page)
        send_typed(page, "chatgpt", "Tell me about fish")
        wait_for(lambda: len(sim(page, "window.__sim.replies")) == 1, what="the reply to finish")
        page.wait_for_timeout(1500)  # well past the capture's settle time
        assert replies(browser, key) == []  # the redesign: the reply is not recognised

        options = open_options(browser)
        paste_overrides(options, FIX)
        assert stored(browser) == FIX
        assert json.loads(options.locator("#fix-json").input_value()) == FIX
        # The open tab takes them at once (no reload): the missed reply is captured, once.
        [first] = [r["text"] for r in sim(page, "window.__sim.replies")]
        assert wait_for(lambda: replies(browser, key), timeout=10, what="the missed reply") == [first]
        page.bring_to_front()
        send_typed(page, "chatgpt", "And about birds?")
        wait_for(lambda: len(sim(page, "window.__sim.replies")) == 2, what="the second reply")
        second = sim(page, "window.__sim.replies")[1]["text"]
        assert wait_for(lambda: replies(browser, key) == [first, second], timeout=10, what="the next reply")
        page.wait_for_timeout(800)
        assert replies(browser, key) == [first, second]
        # The earlier turns shown on the page joined too, user and assistant, in page order.
        roles = [m["role"] for m in session_messages(browser.context, key) if m["source"] == "chat"]
        assert roles.count("assistant") == 4
        # The popup's report marks the user's selectors and finds the roles by them.
        report = page_status(browser, page)["adapter"]
        assert report["roles"]["assistantMessage"]["status"] == "found"
        assert report["roles"]["assistantMessage"]["matches"][0] == \
            {"css": "[data-author=assistant]", "count": 4, "user": True}
        assert "ignored" not in report

        # "Test on this tab": counts of what is typed, asked of the open chatgpt.com tab.
        options.bring_to_front()
        options.locator("#fix-host").select_option("chatgpt.com")
        options.locator("#fix-editor").fill("div[")
        options.locator("#fix-test").click()
        wait_for(lambda: "Tested" in options.locator("#fix-status").inner_text(), what="the test on the tab")
        assert options.locator("#fix-count-assistantMessage").inner_text() == "4 found"
        assert options.locator("#fix-count-userMessage").inner_text() == "4 found"
        assert "editor: not a valid CSS selector, ignored" in options.locator("#fix-notes").inner_text()
        assert "Fish" not in options.locator("#site-fixes").inner_text()  # counts only, never page text
    finally:
        if options:
            paste_overrides(options, {})
            options.close()
        browser.context.unroute(f"https://chatgpt.com/c/{RENAMED}*")


def test_invalid_and_hostile_selectors_are_ignored_and_the_send_keeps_working(browser, page):
    options = open_options(browser)
    try:
        shown = paste_overrides(options, {
            "chatgpt.com": {"editor": "div[", "userMessage": ":has(a):has(b):has(c)", "streaming": "x" * 600,
                            "sendButton": "*", "assistantMessage": "html", "form": "div", "nonsense": "div"},
            "evil.example": {"editor": "textarea"}})
        assert "evil.example: not a chat site of Whiteboard, ignored" in shown
        assert "chatgpt.com editor: not a valid CSS selector, ignored" in shown
        assert "chatgpt.com userMessage: more than 2 :has(), ignored" in shown
        assert "chatgpt.com streaming: longer than 500 characters, ignored" in shown
        assert '"nonsense" is not a role' in shown
        assert stored(browser) == {"chatgpt.com": {"sendButton": "*", "assistantMessage": "html", "form": "div"}}
        # Written straight into storage (not through Options): the page checks them itself.
        service_worker(browser.context).evaluate("""() => chrome.storage.local.set({siteOverrides: {'chatgpt.com': {
            editor: 'div[', sendButton: '*', assistantMessage: 'html', form: 'div', userText: 42}}})""")

        open_chat(page, "chatgpt", PAGE, reply="none")
        key = session_key(browser.context, page)
        wait_for(lambda: (page_status(browser, page) or {}).get("adapter", {}).get("ignored"),
                 what="the ignored selectors in the page status")
        assert page_status(browser, page)["adapter"]["ignored"] == [
            {"role": "editor", "why": "not a valid CSS selector"}, {"role": "userText", "why": "not a selector"}]
        # The popup says so, and the diagnostic carries it (role and reason, never page text).
        popup = open_popup(browser.context, tab_id(browser.context, page))
        wait_for(lambda: "Your selector for editor is ignored: not a valid CSS selector."
                 in popup.locator("#roles-problems").inner_text(), what="the popup's note")
        diagnostic = json.loads(popup.locator("#diagnostic-text").text_content())
        assert diagnostic["ignored"] == page_status(browser, page)["adapter"]["ignored"]
        popup.close()
        page.bring_to_front()
        selected = capture_selection(browser, page, harness.SITES["chatgpt"].answer, key)
        sent = send_typed(page, "chatgpt", "Still sent")
        assert sent["text"].startswith("Still sent\n\n---\n[Whiteboard selection") and selected[:40] in sent["text"]
        assert sent["text"].count("[Whiteboard selection") == 1
        # A click on something that is not the composer's send button is not a send ("*" is
        # only ever a button next to the composer), and the page's own click handlers run.
        page.evaluate("""() => {
            const b = document.createElement('button');
            b.id = 'elsewhere'; b.textContent = 'elsewhere';
            b.addEventListener('click', () => { window.__clicked = (window.__clicked || 0) + 1; });
            document.body.prepend(b);
        }""")
        page.locator("#elsewhere").click()
        assert page.evaluate("() => window.__clicked") == 1
        assert len(harness.sent(page)) == 1
        # "html" is never a message: the turns are still the page's own.
        roles = [m["role"] for m in session_messages(browser.context, key) if m["source"] == "chat"]
        assert roles == ["user", "assistant", "user", "assistant", "user"]
    finally:
        paste_overrides(options, {})
        options.close()


def test_a_pasted_selector_cannot_make_a_reply_the_users_words(browser, page):
    """A fix shared in a bug report could name the replies as the user's turns: those teach the
    memory once the user has sent. A user's selector for the user's turns never takes a reply."""
    options = open_options(browser)
    try:
        paste_overrides(options, {"chatgpt.com": {"userMessage": "[data-message-author-role=assistant]",
                                                  "userText": "[data-message-author-role=assistant] *"}})
        page.bring_to_front()
        open_chat(page, "chatgpt", PAGE, replyMs=300, chunks=2, finishMs=200)
        key = session_key(browser.context, page)
        send_typed(page, "chatgpt", "Tell me about fish")
        wait_for(lambda: len(sim(page, "window.__sim.replies")) == 1, what="the reply to finish")
        reply = sim(page, "window.__sim.replies")[0]["text"]
        wait_for(lambda: replies(browser, key) == [reply], timeout=10, what="the reply, as the assistant's")
        page.wait_for_timeout(800)
        users = [m["content"] for m in session_messages(browser.context, key) if m["role"] == "user"]
        assert users and not any(u.startswith("Simulated reply") or u == reply for u in users), users
        assert "Tell me about fish" in "\n".join(users)
    finally:
        paste_overrides(options, {})
        options.close()
