"""Only the user's own actions send (design §8): a chat page's own script dispatching
keydown, click, submit or requestSubmit() from its main world, on every supported site and
saved page (harness.SEND_PAGES), gets nothing injected, recorded or recalled; the page's
own handlers still get its events. The user's own Enter afterwards goes with its memories."""

import pytest

from e2e.harness import (
    SEND_PAGES,
    open_chat,
    session_key,
    session_messages,
    set_long_term,
    sim,
    wait_for,
)
from support.host import ok

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
    const line = document.createElement('p');
    line.textContent = draft;
    editor.replaceChildren(line);
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
    composer = page.evaluate("() => document.querySelector(window.__sim.selectors.editor).innerText")
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
