"""The memory manager page (extension/memory/) in real Chromium with the real host:
search, edit (old text kept; an edit of a text changed elsewhere is a conflict), delete,
export, import, wipe; memory HTML shows as text."""

import json

from support.waiting import wait_for
from whiteboard.config import EXTENSION_ID

URL = f"chrome-extension://{EXTENSION_ID}/memory/manager.html"
HTML = 'Prefers <b>bold</b> titles <img src=x onerror="window.__pwned=1">'


def texts(page):
    return page.locator("#list .memory .text").all_inner_texts()


def change_option(browser, field_id, shown, value, saved):
    """In the options page: wait for the field to show `shown`, set `value`, wait for `saved` in the status."""
    options = browser.context.new_page()
    options.goto(f"chrome-extension://{EXTENSION_ID}/options/options.html")
    field = options.locator(f"#{field_id}")
    wait_for(lambda: field.is_enabled() and field.input_value() == shown, what=f"{field_id} loaded in options")
    field.fill(value)
    field.dispatch_event("change")
    wait_for(lambda: saved in options.locator("#memory-options-status").inner_text(), what=f"{field_id} saved")
    options.close()


def test_manage_memories(browser, tmp_path):
    assert browser.request({"type": "memory.wipe", "confirm": True})["ok"]
    for text, kind in ((HTML, "preference"), ("Lives in Lisbon", "context"), ("Speaks Portuguese", "skill")):
        assert browser.request({"type": "memory.add", "text": text, "memory_type": kind})["ok"]
    page = browser.context.new_page()
    page.goto(URL)
    wait_for(lambda: len(texts(page)) == 3, what="three memories listed")
    assert HTML in texts(page)
    assert page.locator("#list img, #list b").count() == 0 and page.evaluate("window.__pwned") is None
    # The meaning index, polled from memory.status while it runs: the page says what the host
    # reports once it settles (the bundled model on this platform, or off and why).
    wait_for(lambda: browser.request({"type": "memory.status"})["meanings"]["state"] in ("ready", "off"),
             timeout=60, what="the meaning index settled")
    meanings = browser.request({"type": "memory.status"})["meanings"]
    line = ("Recall by meaning is on: 3 memories indexed." if meanings["state"] == "ready" else
            f"Recall by meaning is off on this computer ({meanings['reason']})")
    wait_for(lambda: line in page.locator("#meanings").inner_text(), timeout=10, what="the meanings line")

    page.locator("#query").fill("portuguese")
    wait_for(lambda: texts(page) == ["Speaks Portuguese"], what="search result")
    page.locator("#query").fill("")
    wait_for(lambda: len(texts(page)) == 3, what="full list again")

    row = page.locator("#list .memory", has_text="Lives in Lisbon")
    row.locator(".do-edit").click()
    row.locator("textarea").fill("Lives in Porto")
    row.locator(".save").click()
    wait_for(lambda: "Lives in Porto" in texts(page), what="edited text")
    row = page.locator("#list .memory", has_text="Lives in Porto")
    row.locator(".do-history").click()
    wait_for(lambda: "Lives in Lisbon" in row.locator(".history").inner_text(), what="old text shown")

    # Changed elsewhere (another window, the CLI) while the page shows the older text: the
    # page's save is refused as a conflict and the page shows the memory as it is now.
    porto = next(m for m in browser.request({"type": "memory.list"})["memories"] if m["text"] == "Lives in Porto")
    assert browser.request({"type": "memory.update", "memory_id": porto["memory_id"], "text": "Lives in Braga"})["ok"]
    row.locator(".do-edit").click()
    row.locator("textarea").fill("Lives in Faro")
    row.locator(".save").click()
    wait_for(lambda: "changed since" in page.locator("#status").inner_text(), what="the conflict shown")
    wait_for(lambda: "Lives in Braga" in texts(page), what="the text as it is now")
    assert "Lives in Faro" not in texts(page)

    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("#list .memory", has_text="Speaks Portuguese").locator(".do-delete").click()
    wait_for(lambda: len(texts(page)) == 2, what="deleted")

    with page.expect_download() as download:
        page.locator("#export").click()
    exported = json.loads(open(download.value.path()).read())
    assert exported["format"] == "whiteboard.memories"
    assert sorted(m["text"] for m in exported["memories"]) == sorted([HTML, "Lives in Braga"])

    upload = tmp_path / "more.json"
    upload.write_text(json.dumps({"format": "whiteboard.memories", "version": 1, "memories": [
        {"type": "objective", "text": "Training for a marathon"}, {"type": "preference", "text": HTML}]}))
    page.locator("#import").set_input_files(str(upload))
    wait_for(lambda: "1 added" in page.locator("#status").inner_text(), what="import result")
    wait_for(lambda: len(texts(page)) == 3, what="imported memory listed")

    upload.write_text(json.dumps({"format": "whiteboard.memories", "version": 1,
                                  "memories": [{"type": "mood", "text": "x"}]}))
    page.locator("#import").set_input_files(str(upload))
    wait_for(lambda: "memories.0.type" in page.locator("#status").inner_text(), what="import error shown")
    assert len(texts(page)) == 3

    page.once("dialog", lambda dialog: dialog.accept("DELETE"))
    page.locator("#wipe").click()
    wait_for(lambda: "Deleted 3 memories." in page.locator("#status").inner_text(), what="wiped")
    assert texts(page) == []
    page.close()


def test_pin_in_the_manager_and_set_the_cap_in_options(browser):
    assert browser.request({"type": "memory.wipe", "confirm": True})["ok"]
    ids = {text: browser.request({"type": "memory.add", "text": text, "memory_type": "preference"})["memory_id"]
           for text in ("Prefers short answers with bullet points", "Writes in British English")}
    page = browser.context.new_page()
    page.goto(URL)
    wait_for(lambda: len(texts(page)) == 2, what="two memories listed")
    wait_for(lambda: page.locator("#pinned-tokens").inner_text() == "120", what="the pinned cap shown")
    row = page.locator("#list .memory", has_text="Writes in British English")
    assert row.locator(".pin-badge").is_hidden() and row.locator(".do-pin").inner_text() == "Pin"
    row.locator(".do-pin").click()
    wait_for(lambda: row.locator(".do-pin").inner_text() == "Unpin", what="pinned in the page")
    assert row.locator(".pin-badge").is_visible() and "Pinned" in page.locator("#status").inner_text()
    got = browser.request({"type": "memory.get", "memory_id": ids["Writes in British English"]})
    assert got["memory"]["pinned"] is True
    other = browser.request({"type": "memory.get", "memory_id": ids["Prefers short answers with bullet points"]})
    assert other["memory"]["pinned"] is False
    row.locator(".do-pin").click()
    wait_for(lambda: row.locator(".do-pin").inner_text() == "Pin", what="unpinned in the page")
    assert browser.request({"type": "memory.get", "memory_id": ids["Writes in British English"]})["memory"][
        "pinned"] is False

    change_option(browser, "pinned-tokens", "120", "60", "up to 60 tokens")
    assert browser.request({"type": "memory.settings"})["pinned_tokens"] == 60
    assert browser.request({"type": "memory.settings", "pinned_tokens": 120})["ok"]
    page.close()


def test_suggestions_accept_and_discard_and_the_threshold_in_options(browser):
    assert browser.request({"type": "memory.wipe", "confirm": True})["ok"]
    key = "claude.ai:914"
    assert browser.request({"type": "memory.settings", "suggest_below": 1.0})["ok"]  # every fact waits
    assert browser.request({"type": "site.settings", "site": "claude.ai", "long_term": True})["ok"]
    try:
        assert browser.request({"type": "session.add", "key": key, "role": "user",
                                "content": "I live in Lisbon. I prefer short answers."})["ok"]
        extracted = browser.request({"type": "memory.extract", "key": key, "manual": True})
        assert extracted["ok"] and len(extracted["suggested"]) == 2 and extracted["added"] == 0
        page = browser.context.new_page()
        page.goto(URL)
        suggestions = page.locator("#suggestions .suggestion")
        wait_for(lambda: suggestions.count() == 2, what="two suggestions shown")
        assert page.locator("#suggestions-section").is_visible() and texts(page) == []
        row = suggestions.filter(has_text="Lives in Lisbon")
        assert "confidence" in row.locator(".confidence").inner_text()
        row.locator(".do-accept").click()
        wait_for(lambda: texts(page) == ["Lives in Lisbon"], what="accepted into the memories")
        assert page.locator("#list .memory .confidence").inner_text() == "confidence 100%"
        page.locator("#suggestions .suggestion", has_text="Prefers short answers").locator(".do-discard").click()
        wait_for(lambda: page.locator("#suggestions-section").is_hidden(), what="no suggestion left")
        assert "not be suggested again" in page.locator("#status").inner_text()
        assert browser.request({"type": "memory.suggestions"})["suggestions"] == []
        page.close()

        change_option(browser, "suggest-below", "100", "80", "under 80%")
        assert browser.request({"type": "memory.settings"})["suggest_below"] == 0.8
    finally:
        browser.request({"type": "memory.settings", "suggest_below": 0.7})
        browser.request({"type": "site.settings", "site": "claude.ai", "long_term": False})


def test_import_opens_the_file_chooser_from_the_keyboard(browser):
    page = browser.context.new_page()
    page.goto(URL)
    page.bring_to_front()  # a file chooser opens only from the page in front
    # The page's first answers in: nothing re-renders around the button while the key goes.
    wait_for(lambda: page.locator("#list li").count() > 0, what="the manager's list loaded")
    button = page.locator("#import-button")
    with page.expect_file_chooser() as chooser:
        button.press("Enter")  # focuses the button, then the key: one step, nothing between
    assert page.evaluate("() => document.activeElement.id") == "import-button"
    assert chooser.value.element.get_attribute("id") == "import"
    page.close()
