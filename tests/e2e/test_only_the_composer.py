"""Only the composer is the composer (docs/extension.md "Hostile pages", issue 28): Enter,
Shift+Enter and typing in any other editable element of a chat site's page (a settings
dialog, a feedback form, a rename field, a search box) stay the page's. Whiteboard records
nothing from them, injects nothing into them or the composer, clicks no button and submits
no form. On every saved page of every site (harness.SEND_PAGES, with a dialog and a rename
field added), and on written pages where no composer selector matches at all (the pages
the structural fallback once took "the only field of an area" for the composer: Enter in a
settings dialog clicked its "Delete all chats"). Real Chromium, the real extension and host."""

import pytest

from e2e.harness import (
    SEND_PAGES,
    SITE_IDS,
    chat_url,
    host_request,
    open_chat,
    session_key,
    session_messages,
    sim,
    ui_visible,
    wait_for,
)
from e2e.test_hostile_page import SECRET, pinned_secret  # noqa: F401 - the fixture
from support.host import ok

SELECTION = "Passage about the Lisbon trams."
SETTLE_MS = 1500  # longer than a send may take (1 s): an injection or replay would have shown by then
WRITTEN = ["miss__settings-dialog", "miss__feedback-form", "miss__rename-field"]
SAVED = [(site, name) for site, names in SEND_PAGES.items() for name in names]

# What the page's own handlers get, recorded from its main world before anything else runs:
# keydowns (trusted or not), clicks on buttons, submits (kept from navigating, with the text
# of the form's fields at that moment).
RECORDER = """(() => {
    const log = window.__page = {keys: [], clicks: [], submits: []};
    document.addEventListener('keydown', (e) => log.keys.push(
        {key: e.key, shift: e.shiftKey, trusted: e.isTrusted, field: e.target.dataset?.field || null}), true);
    document.addEventListener('click', (e) => {
        const button = e.target.closest?.('button, [role=button], input[type=submit]');
        if (button) log.clicks.push({text: button.textContent.trim(), trusted: e.isTrusted});
    }, true);
    document.addEventListener('submit', (e) => {
        log.submits.push({trusted: e.isTrusted,
                          text: [...e.target.querySelectorAll('textarea, input')].map((f) => f.value).join('|')});
        e.preventDefault();
    }, true);
})()"""

# Into a saved page, beside its composer: a settings dialog (textarea, Cancel, Delete all
# chats) and a conversation being renamed in place (an editable line, Save).
ADD_FIELDS = """() => {
    const dialog = document.createElement('div');
    dialog.setAttribute('role', 'dialog');
    dialog.innerHTML = '<textarea rows="3"></textarea><div><button type="button">Cancel</button>' +
                       '<button type="button">Delete all chats</button></div>';
    const rename = document.createElement('div');
    rename.innerHTML = '<div contenteditable="true" role="textbox">Trip plans</div><button type="button">Save</button>';
    document.body.append(dialog, rename);
}"""

# Every shown (and not zero-sized), usable editable element other than the composer (the simulator's, which is
# the one the site's selectors find): textareas, text-like inputs, outermost contenteditables.
# Each is named with data-field for the test to reach it.
OTHER_FIELDS = """() => {
    const composer = document.querySelector(window.__sim.selectors.editor);
    const fields = [...document.querySelectorAll(
        'textarea, input:not([type]), input[type=text], input[type=search], input[type=email], input[type=url], ' +
        '[contenteditable]:not([contenteditable=false])')]
        .filter((f) => !(composer && (composer.contains(f) || f.contains(composer))))
        .filter((f) => !f.parentElement?.isContentEditable && !f.disabled && !f.readOnly &&
                       f.checkVisibility({visibilityProperty: true}) && f.getBoundingClientRect().height > 0);
    fields.forEach((f, i) => { f.dataset.field = String(i); });
    return fields.length;
}"""

TEXT_OF = "(f) => f instanceof HTMLTextAreaElement || f instanceof HTMLInputElement ? f.value : f.innerText"
EMPTY_COMPOSER = """() => {
    const e = document.querySelector(window.__sim.selectors.editor);
    if (e instanceof HTMLTextAreaElement) e.value = ""; else e.replaceChildren();
    e.dispatchEvent(new InputEvent("input", {bubbles: true}));
}"""
COMPOSER = "() => { const e = document.querySelector(window.__sim.selectors.editor); " \
           "return e instanceof HTMLTextAreaElement ? e.value : e.innerText; }"


def with_selection(browser, page) -> str:
    """A selection in the tab's session: something a send would carry even without memory."""
    key = session_key(browser.context, page)
    ok(host_request(browser.context, {"type": "session.add", "key": key, "role": "user", "source": "selection",
                                      "content": SELECTION}))
    return key


def type_in(page, field: str) -> None:
    """The user's own typing, Shift+Enter and Enter in a field."""
    page.locator(field).focus()
    page.keyboard.type("Notes for the page")
    page.keyboard.press("Shift+Enter")
    page.keyboard.type("second line")
    page.keyboard.press("Enter")


def assert_left_to_the_page(browser, page, key: str, field: str) -> None:
    page.wait_for_timeout(SETTLE_MS)
    log = page.evaluate("() => window.__page")
    enters = [k for k in log["keys"] if k["key"] == "Enter" and k["trusted"]]
    assert [k["shift"] for k in enters] == [True, False], log["keys"]  # both reached the page: none swallowed
    assert not any(k["key"] == "Enter" and not k["trusted"] for k in log["keys"])  # nothing replayed
    assert [c for c in log["clicks"] if not c["trusted"]] == []  # Whiteboard clicked nothing
    text = page.locator(field).evaluate(TEXT_OF)
    assert "Notes for the page" in text and SECRET not in text and "[Whiteboard" not in text
    assert all(SECRET not in s["text"] and "[Whiteboard" not in s["text"] for s in log["submits"])
    assert [m["content"] for m in session_messages(browser.context, key)] == [SELECTION]  # nothing recorded
    assert not ui_visible(page, "whiteboard-memory-preview")


@pytest.mark.parametrize("name", WRITTEN)
@pytest.mark.parametrize("site", SITE_IDS)
@pytest.mark.usefixtures("pinned_secret")  # memory on everywhere, with a pinned memory that would go with a send
def test_enter_in_a_field_of_a_page_without_a_composer_stays_the_pages(browser, page, site, name):
    page.add_init_script(RECORDER)
    page.goto(chat_url(site, name, sim=0))
    page.wait_for_function("() => window.__page !== undefined && document.readyState === 'complete'")
    key = with_selection(browser, page)
    field = ".field-v9"
    type_in(page, field)
    assert_left_to_the_page(browser, page, key, field)
    if page.locator("textarea.field-v9").count():
        assert page.locator(field).input_value() == "Notes for the page\nsecond line\n"  # Enter was a newline
    # The user's own clicks on the page's buttons are the page's alone: the feedback goes as typed.
    for button in page.locator("button").all():
        if button.inner_text() != "Delete all chats":
            button.click()
    page.wait_for_timeout(SETTLE_MS)
    log = page.evaluate("() => window.__page")
    assert [c for c in log["clicks"] if not c["trusted"]] == []
    assert [s["text"] for s in log["submits"]] == (["Notes for the page\nsecond line\n"] if "feedback" in name else [])
    assert [m["content"] for m in session_messages(browser.context, key)] == [SELECTION]


@pytest.mark.parametrize(("site", "name"), SAVED, ids=[f"{s}-{n}" for s, n in SAVED])
@pytest.mark.usefixtures("pinned_secret")
def test_every_other_field_of_every_saved_page_stays_the_pages(browser, page, site, name):
    page.add_init_script(RECORDER)
    open_chat(page, site, name, reply="none")
    # Some saved pages keep a draft in the composer: a draft of the user's own, which the memory
    # chip rightly follows. Emptied, so that a chip can only come from typing in the other fields.
    page.evaluate(EMPTY_COMPOSER)
    wait_for(lambda: not ui_visible(page, "whiteboard-memory-preview"), what="the chip of the saved draft gone")
    page.evaluate(ADD_FIELDS)
    count = page.evaluate(OTHER_FIELDS)
    assert count >= 2
    key = with_selection(browser, page)
    for i in range(count):
        page.evaluate("() => { window.__page.keys = []; }")
        field = f"[data-field='{i}']"
        type_in(page, field)
        assert_left_to_the_page(browser, page, key, field)
    assert sim(page, "window.__sim.sent") == []  # the composer sent nothing
    composer = page.evaluate(COMPOSER)
    assert SECRET not in composer and "[Whiteboard" not in composer
