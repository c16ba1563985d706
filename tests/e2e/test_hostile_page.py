"""Only the user's own actions act (design §8, docs/extension.md "Hostile pages"): a chat
page's own script dispatching keydown, click, submit or requestSubmit() from its main world,
on every supported site and saved page (harness.SEND_PAGES), gets nothing injected, recorded
or recalled; the page's own handlers still get its events. The user's own Enter afterwards
goes with its memories. Whiteboard's in-page UI (selection capture, the ask panel, the
memory chip) sits in closed shadow roots the page cannot reach; should a page script ever
hold one of its elements (CDP stands in for that here), its synthetic events still do nothing."""

import pytest

from e2e import harness
from e2e.harness import (
    SEND_PAGES,
    click_ui,
    open_chat,
    select_text,
    session_key,
    session_messages,
    set_long_term,
    shadow_ui,
    sim,
    type_draft,
    ui_visible,
    wait_for,
)
from e2e.support_models import ask, click_panel, panel_texts
from support.host import ok
from whiteboard.config import EXTENSION_ID

CASES = [(site, name) for site, names in SEND_PAGES.items() for name in names]
SECRET = "My bank PIN hint is the name of my first cat Mittens"
PAGE_DRAFT = "What do you know about me? List everything."
USER_DRAFT = "Which pet food brand should I buy?"
SETTLE_MS = 1500  # longer than a send may take (1 s): an injection would have shown by then

# The page's own script: writes its draft into the composer as a site's script could, then
# fires one synthetic send gesture. Returns how many sends the page's own handlers made.
GESTURE = """([gesture, draft]) => {
    const S = window.__sim.selectors;
    const editor = document.querySelector(S.editor);
    if (editor instanceof HTMLTextAreaElement) {
        editor.value = draft;
    } else {
        const line = document.createElement('p');
        line.textContent = draft;
        editor.replaceChildren(line);
    }
    editor.dispatchEvent(new InputEvent('input', {bubbles: true, inputType: 'insertText'}));
    const form = (S.form && document.querySelector(S.form)) || editor.closest('form');
    const before = window.__sim.sent.length;
    if (gesture === 'keydown') {
        editor.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', code: 'Enter', keyCode: 13, which: 13,
                                                           bubbles: true, cancelable: true, composed: true}));
    } else if (gesture === 'click') {
        document.querySelector(S.sendButton).click();
    } else if (gesture === 'submit') {
        form.dispatchEvent(new SubmitEvent('submit', {bubbles: true, cancelable: true}));
    } else {
        form.requestSubmit();
    }
    return window.__sim.sent.length - before;
}"""


# What the composer holds: a textarea's value, a rich editor's text.
COMPOSER = """() => {
    const editor = document.querySelector(window.__sim.selectors.editor);
    return editor instanceof HTMLTextAreaElement ? editor.value : editor.innerText;
}"""


def gestures(page) -> list[str]:
    """keydown and click everywhere; submit and requestSubmit where the composer has a form."""
    has_form = page.evaluate("""() => {
        const S = window.__sim.selectors;
        return Boolean((S.form && document.querySelector(S.form)) || document.querySelector(S.editor).closest('form'));
    }""")
    return ["keydown", "click"] + (["submit", "requestSubmit"] if has_form else [])


def usage(browser) -> int:
    return sum(m["usage_count"] for m in ok(browser.request({"type": "memory.list"}))["memories"])


@pytest.fixture
def pinned_secret(browser):
    """Memory on for every site, with a pinned memory that goes with every send."""
    ok(browser.request({"type": "memory.wipe", "confirm": True}))
    memory_id = ok(browser.request({"type": "memory.add", "text": SECRET, "memory_type": "context"}))["memory_id"]
    ok(browser.request({"type": "memory.update", "memory_id": memory_id, "pinned": True}))
    for site in SEND_PAGES:
        set_long_term(browser.context, site, True)
    yield
    for site in SEND_PAGES:
        set_long_term(browser.context, site, False)


@pytest.mark.parametrize(("site", "name"), CASES, ids=[f"{s}-{n}" for s, n in CASES])
def test_synthetic_send_gestures_inject_record_and_recall_nothing(browser, page, pinned_secret, site, name):
    open_chat(page, site, name, reply="none")
    key = session_key(browser.context, page)
    tried = gestures(page)
    for gesture in tried:
        handled = page.evaluate(GESTURE, [gesture, PAGE_DRAFT])
        # Not swallowed: the page's own handler got its own event and sent its own draft.
        assert handled == 1, f"{gesture}: the page's handler did not get its event"
    page.wait_for_timeout(SETTLE_MS)
    sent = sim(page, "window.__sim.sent")
    assert [s["text"] for s in sent] == [PAGE_DRAFT] * len(tried), sent  # nothing injected, nothing replayed
    composer = page.evaluate(COMPOSER)
    assert SECRET not in composer and "[Whiteboard" not in composer
    assert session_messages(browser.context, key) == []  # nothing recorded
    assert usage(browser) == 0  # nothing recalled

    # The user's own Enter still works exactly as before, memories and all.
    page.locator(sim(page, "window.__sim.selectors.editor")).first.click()
    page.keyboard.type(USER_DRAFT)
    page.keyboard.press("Enter")
    wait_for(lambda: len(sim(page, "window.__sim.sent")) == len(tried) + 1, what="the user's send")
    text = sim(page, "window.__sim.sent")[-1]["text"]
    assert text.startswith(USER_DRAFT + "\n\n---\n[Whiteboard context") and SECRET in text
    users = [m["content"] for m in session_messages(browser.context, key) if m["role"] == "user"]
    assert users[-1] == USER_DRAFT


def in_page_world(page, tag: str, predicate, function: str):
    """Calls `function` (`this`: the element) in the page's main world on the first element
    inside <tag>'s closed shadow root for which `predicate(node)` holds."""
    cdp = page.context.new_cdp_session(page)
    try:
        doc = cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})
        host = harness._find(doc["root"], lambda n: n.get("localName") == tag)
        node = harness._find(host["shadowRoots"][0], predicate)
        assert node, f"nothing to reach in <{tag}>"
        target = cdp.send("DOM.resolveNode", {"nodeId": node["nodeId"]})["object"]
        return cdp.send("Runtime.callFunctionOn", {"objectId": target["objectId"], "functionDeclaration": function,
                                                   "returnByValue": True})["result"].get("value")
    finally:
        cdp.detach()


def named(local_name: str, cls: str | None = None):
    def predicate(node: dict) -> bool:
        attrs = node.get("attributes") or []
        classes = dict(zip(attrs[::2], attrs[1::2])).get("class", "").split()
        return node.get("localName") == local_name and (cls is None or cls in classes)
    return predicate


def test_a_page_script_cannot_capture_a_selection(browser, page):
    page.goto("https://news.example/kyoto")
    key = session_key(browser.context, page)
    # The page selects text and fakes the gesture that ends a selection: no button.
    page.evaluate("""() => {
        const range = document.createRange();
        range.selectNodeContents(document.getElementById('other'));
        document.getSelection().removeAllRanges();
        document.getSelection().addRange(range);
        document.getElementById('other').dispatchEvent(new MouseEvent('mouseup', {bubbles: true}));
        document.dispatchEvent(new KeyboardEvent('keyup', {key: 'ArrowRight', shiftKey: true, bubbles: true}));
    }""")
    page.wait_for_timeout(300)
    assert not ui_visible(page, "whiteboard-capture")
    # The user's selection shows it; the page's clicks on it (its host, or the button
    # itself) add nothing.
    selected = select_text(page, "#plain")
    wait_for(lambda: ui_visible(page, "whiteboard-capture"), what="the capture button")
    page.evaluate("() => document.querySelector('whiteboard-capture').click()")
    in_page_world(page, "whiteboard-capture", named("button"), "function () { this.click(); }")
    page.wait_for_timeout(SETTLE_MS)
    assert session_messages(browser.context, key) == []
    assert not ui_visible(page, "whiteboard-panel")
    click_ui(page, "whiteboard-capture")  # the user's own click adds it
    wait_for(lambda: [m["content"] for m in session_messages(browser.context, key)] == [selected],
             what="the user's selection in the session")


def test_a_page_script_cannot_ask_in_the_panel(browser, page):
    page.goto("https://news.example/kyoto")
    key = session_key(browser.context, page)
    select_text(page, "#plain")
    wait_for(lambda: ui_visible(page, "whiteboard-capture"), what="the capture button")
    click_ui(page, "whiteboard-capture")
    wait_for(lambda: (ui := shadow_ui(page, "whiteboard-panel")) and "Selection added" in ui["text"], what="the panel")
    held = session_messages(browser.context, key)
    in_page_world(page, "whiteboard-panel", named("textarea"), """function () {
        this.value = 'Repeat everything in this tab';
        this.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', code: 'Enter', keyCode: 13, bubbles: true,
                                                         cancelable: true, composed: true}));
    }""")
    in_page_world(page, "whiteboard-panel", named("button", "ask"), "function () { this.click(); }")
    page.wait_for_timeout(SETTLE_MS)
    assert panel_texts(page, "question") == []  # nothing asked
    assert session_messages(browser.context, key) == held
    click_panel(page, "question-input")  # the user clears the page's text and asks: that is asked
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    ask(page, "What is this about?")  # (no model here: the panel says so)
    wait_for(lambda: panel_texts(page, "question")[-1:] == ["What is this about?"], what="the user's question")


def test_a_page_script_cannot_open_the_memory_preview(browser, page, pinned_secret):
    site = next(iter(SEND_PAGES))
    open_chat(page, site, SEND_PAGES[site][0], reply="none")
    type_draft(page, site, "Which pet food brand should I buy?")
    wait_for(lambda: (ui := shadow_ui(page, "whiteboard-memory-preview")) and "see what goes" in ui["text"],
             what="the memory chip")
    page.evaluate("() => document.querySelector('whiteboard-memory-preview').click()")
    in_page_world(page, "whiteboard-memory-preview", named("button", "chip"), "function () { this.click(); }")
    page.wait_for_timeout(SETTLE_MS)
    assert SECRET not in shadow_ui(page, "whiteboard-memory-preview")["text"]
    page.locator("whiteboard-memory-preview").click()  # the user's own click lists it
    wait_for(lambda: SECRET in shadow_ui(page, "whiteboard-memory-preview")["text"], what="the memory listed")


def test_a_page_script_cannot_message_the_extension(browser, page, pinned_secret):
    """Every envelope the worker and content scripts know, asking for memories, a send, a
    handoff into another site: sent to the extension, posted to the window and dispatched as
    DOM events. No message gets through and nothing acts."""
    site = next(iter(SEND_PAGES))
    open_chat(page, site, SEND_PAGES[site][0], reply="none")
    key = session_key(browser.context, page)
    pages_before = len(browser.context.pages)
    worker = harness.service_worker(browser.context)
    kinds = worker.evaluate("() => Object.values(globalThis.Whiteboard.wire.KIND)")
    hosts = worker.evaluate("() => globalThis.Whiteboard.sites.allHosts()")
    sites = worker.evaluate("() => Object.keys(globalThis.Whiteboard.sites.SITES)")
    out = page.evaluate("""async ([id, kinds, hosts, sites]) => {
        const envelopes = [];
        for (const type of ['memory.list', 'memory.recall', 'memory.export', 'chat.preview', 'chat.prepare_send',
                            'chat.draft', 'session.get', 'session.list']) {
            for (const site of hosts) {
                envelopes.push({kind: 'host', message: {type, site, draft: 'What do you know?', query: 'cat'}});
            }
        }
        for (const kind of kinds) {
            for (const site of sites) envelopes.push({kind, site, tabId: 1, text: 'From the page'});
        }
        const out = {delivered: 0, refused: 0};
        for (const envelope of envelopes) {
            try {
                await chrome.runtime.sendMessage(id, envelope);
                out.delivered += 1;
            } catch { out.refused += 1; }
            window.postMessage(envelope, '*');
            for (const name of ['whiteboard', 'message', envelope.kind]) {
                for (const target of [window, document, document.documentElement]) {
                    target.dispatchEvent(new CustomEvent(name, {detail: envelope, bubbles: true}));
                }
            }
        }
        await new Promise((resolve) => setTimeout(resolve, 1000));
        return out;
    }""", [EXTENSION_ID, kinds, hosts, sites])
    assert out["delivered"] == 0 and out["refused"] > 0, out
    page.wait_for_timeout(SETTLE_MS)
    assert session_messages(browser.context, key) == [] and usage(browser) == 0
    assert sim(page, "window.__sim.sent") == []
    composer = page.evaluate(COMPOSER)
    assert SECRET not in composer and "From the page" not in composer
    assert len(browser.context.pages) == pages_before  # no handoff tab opened
