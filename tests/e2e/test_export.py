"""The popup's vBRIEF export and import (popup/export.js) against the real worker and host."""

import json
import re
import tempfile
import time
from pathlib import Path

import pytest

from e2e import harness
from e2e.harness import (
    EXTENSION_ID,
    capture_selection,
    open_chat,
    session_key,
    session_messages,
    sim,
    tab_id,
    type_draft,
)
from support.waiting import wait_for
from whiteboard.vbrief.models import VBriefDocument

PAGE = "acb__chatgpt_2026-04-13"
SECRET = "sk-proj-Q7vX2mB9kL4pR8tY3wZ6nC1d"
NOTE = "The staging bucket lives in eu-west-3 and is rotated every Friday."


def open_popup(context, tab: int | None = None):
    popup = context.new_page()
    popup.goto(f"chrome-extension://{EXTENSION_ID}/popup/popup.html" + (f"?tab={tab}" if tab else ""))
    popup.wait_for_selector("body[data-ready=true]")
    wait_for(lambda: popup.locator("#export").get_attribute("data-state") not in (None, "loading"), timeout=15,
             what="the export section")
    return popup


def send(page, text):
    n = len(sim(page, "window.__sim.sent"))
    type_draft(page, "chatgpt", text)
    page.keyboard.press("Enter")
    wait_for(lambda: len(sim(page, "window.__sim.sent")) == n + 1, what="the send")


def session_with_secret(browser, page) -> str:
    """A ChatGPT tab whose session holds the page's turns, a selection carrying an API key, and a send."""
    open_chat(page, "chatgpt", PAGE, reply="none")
    key = session_key(browser.context, page)
    page.evaluate("""([note, secret]) => { const p = document.createElement('p'); p.id = 'secret';
        p.textContent = `${note} Deploy with ${secret} from CI.`;
        document.querySelector('[data-message-author-role=assistant] .markdown').append(p); }""", [NOTE, SECRET])
    capture_selection(browser, page, "#secret", key)
    send(page, "Which region is the staging bucket in?")
    wait_for(lambda: any(m["content"] == "Which region is the staging bucket in?"
                         for m in session_messages(browser.context, key)), what="the send in the session")
    settle(browser, key)
    return key


def settle(browser, key: str, quiet: float = 0.8) -> None:
    """Wait until the page's turn capture (300 ms after the page's last change) stops adding."""
    last = [session_messages(browser.context, key), time.monotonic()]

    def still() -> bool:
        now = session_messages(browser.context, key)
        if now != last[0]:
            last[:] = [now, time.monotonic()]
        return time.monotonic() - last[1] >= quiet

    wait_for(still, timeout=10, interval=0.1, what="the session to settle")


def without_created(doc: dict) -> dict:
    return {**doc, "vBRIEFInfo": {k: v for k, v in doc["vBRIEFInfo"].items() if k != "created"}}


def test_without_a_host_export_says_the_host_is_needed(playwright):
    # First in the module: its own browser closes before the shared one starts.
    with tempfile.TemporaryDirectory(prefix="wb-e2e-export-nohost-") as tmp:
        context = harness.launch(playwright, Path(tmp), register=False)
        try:
            popup = open_popup(context)
            assert popup.locator("#export").get_attribute("data-state") == "unavailable"
            assert popup.locator("#export-summary").inner_text() == "Export needs the Whiteboard host (see above)."
            assert popup.locator("#export-session").is_disabled()
            assert popup.locator("#import-session").is_disabled()
        finally:
            context.close()


def test_popup_shows_tier_costs_and_saves_the_session_without_its_secret(browser, page):
    key = session_with_secret(browser, page)
    # The popup names the site as the sites table labels it (the host would say chatgpt.com).
    reply = browser.request({"type": "vbrief.export", "key": key, "agent": "ChatGPT"}, 30000)
    assert reply["ok"], reply
    expected = reply["document"]
    assert expected["sessionSnapshot"]["sessionInfo"]["agent"] == "ChatGPT"
    tiers = expected["vBRIEFInfo"]["memoryTiers"]
    assert [t["label"] for t in tiers] == ["summary", "key facts", "todos", "learnings", "raw"]

    popup = open_popup(browser.context, tab_id(browser.context, page))
    assert popup.locator("#export").get_attribute("data-state") == "ready"
    # Each tier's label and exact cost, in order, before anything is saved.
    assert popup.locator("#export-tiers").inner_text() == \
        " · ".join(f"{t['label']} {t['tokenCost']}" for t in tiers) + " tokens"
    for t in tiers:
        shown = popup.locator(f"#export-tiers [data-tier='{t['tier']}']").inner_text()
        assert shown == f"{t['label']} {t['tokenCost']}"
    stats = expected["vBRIEFInfo"]["compressionStats"]
    assert popup.locator("#export-stats").inner_text() == (
        f"Compressed {stats['originalTokens']} → {stats['compressedTokens']} tokens "
        f"(ratio {stats['compressionRatio']:.2f}, {stats['tokensSaved']} saved)")
    held = session_messages(browser.context, key)
    assert popup.locator("#export-summary").inner_text().startswith(f"{len(held)} observations.")

    with popup.expect_download() as download_info:
        popup.locator("#export-session").click()
    download = download_info.value
    assert re.fullmatch(r"whiteboard-chatgpt-\d{4}-\d{2}-\d{2}\.vbrief\.json", download.suggested_filename)
    raw = Path(download.path()).read_text(encoding="utf-8")
    assert SECRET not in raw and "sk-proj-" not in raw
    document = VBriefDocument.model_validate_json(raw)  # a valid vBRIEF document, strictly checked
    saved = json.loads(raw)
    assert without_created(saved) == without_created(expected)  # the session the host holds, nothing else
    observations = saved["sessionSnapshot"]["observations"]
    assert len(observations) == len(held) == len(document.session_snapshot.observations)
    [selection] = [o for o in observations if o["tool"] == "selection"]
    assert NOTE in selection["input"] and "[REDACTED]" in selection["input"]
    assert "api_key" in selection["redactionInfo"]["patterns"]
    assert popup.locator("#export-status").inner_text() == f"Saved {download.suggested_filename}."
    popup.close()


def test_a_tab_without_a_session_has_nothing_to_export(browser, page):
    open_chat(page, "chatgpt", PAGE, reply="none")  # nothing reaches the host before the user acts
    popup = open_popup(browser.context, tab_id(browser.context, page))
    assert popup.locator("#export").get_attribute("data-state") == "empty"
    assert popup.locator("#export-summary").inner_text() == "Nothing captured in this tab yet: nothing to export."
    assert popup.locator("#export-session").is_disabled()
    assert popup.locator("#export-tiers").inner_text() == ""
    popup.close()


def test_clearing_the_tab_takes_the_export_away(browser, page):
    key = session_with_secret(browser, page)
    popup = open_popup(browser.context, tab_id(browser.context, page))
    assert popup.locator("#export").get_attribute("data-state") == "ready"
    popup.locator("#clear-tab").click()
    wait_for(lambda: popup.locator("#export").get_attribute("data-state") == "empty", what="the export emptied")
    assert popup.locator("#export-session").is_disabled() and session_messages(browser.context, key) == []
    popup.close()


def test_import_into_a_tab_asks_before_replacing_its_session(browser, page, tmp_path):
    source = session_with_secret(browser, page)
    document = browser.request({"type": "vbrief.export", "key": source}, 30000)["document"]
    file = tmp_path / "session.vbrief.json"
    file.write_text(json.dumps(document), encoding="utf-8")
    count = document["vBRIEFInfo"]["sessionInfo"]["totalObservations"]

    other = browser.context.new_page()
    other.goto("https://news.example/kyoto")
    key = session_key(browser.context, other)
    popup = open_popup(browser.context, tab_id(browser.context, other))
    assert popup.locator("#export").get_attribute("data-state") == "empty"
    popup.locator("#import-session").set_input_files(str(file))
    wait_for(lambda: popup.locator("#export").get_attribute("data-state") == "ready", what="the imported session")
    assert popup.locator("#export-status").inner_text() == \
        f"Imported: this tab's session now holds {count} messages."
    assert popup.locator("#session-summary").inner_text().startswith(f"{count} messages")  # popup.js refreshed
    imported = session_messages(browser.context, key)
    assert [m["content"] for m in imported] == [m["content"] for m in session_messages(browser.context, source)]

    # The tab now has a session: a second import waits for the user, and Cancel changes nothing.
    popup.locator("#import-session").set_input_files(str(file))
    wait_for(lambda: popup.locator("#import-confirm").is_visible(), what="the confirmation")
    assert popup.locator("#import-question").inner_text() == \
        f"Replace this tab's session ({count} observations) with session.vbrief.json?"
    browser.request({"type": "session.add", "key": key, "role": "user", "content": "Added after the import"})
    popup.locator("#import-cancel").click()
    assert popup.locator("#export-status").inner_text() == "Import cancelled: the session is unchanged."
    assert session_messages(browser.context, key)[-1]["content"] == "Added after the import"
    popup.locator("#import-session").set_input_files(str(file))
    popup.locator("#import-replace").click()
    wait_for(lambda: popup.locator("#export-status").inner_text().startswith("Imported"), what="the replace")
    assert len(session_messages(browser.context, key)) == count
    assert popup.locator("#import-confirm").is_hidden()

    bad = tmp_path / "notes.json"
    bad.write_text("{not json", encoding="utf-8")
    popup.locator("#import-session").set_input_files(str(bad))
    wait_for(lambda: popup.locator("#export-status").inner_text() == "notes.json is not a JSON file.",
             what="the bad-file message")
    assert len(session_messages(browser.context, key)) == count  # nothing lost
    popup.close()
    other.close()


def test_the_toolbar_popup_imports_in_a_tab_where_the_file_chooser_works(browser, page):
    open_chat(page, "chatgpt", PAGE, reply="none")
    tab = tab_id(browser.context, page)
    popup = browser.context.new_page()
    page.bring_to_front()  # the popup (no ?tab) shows the active tab, as from the toolbar
    popup.goto(f"chrome-extension://{EXTENSION_ID}/popup/popup.html")
    popup.wait_for_selector("body[data-ready=true]")
    wait_for(lambda: popup.locator("#export").get_attribute("data-state") == "empty", what="the export section")
    assert popup.locator("#import-session").get_attribute("type") == "button"
    with browser.context.expect_page() as opened:
        popup.locator("#import-session").click()
    importer = opened.value
    importer.wait_for_selector("body[data-ready=true]")
    assert importer.url == f"chrome-extension://{EXTENSION_ID}/popup/popup.html?tab={tab}"
    assert importer.locator("#import-session").get_attribute("type") == "file"
    wait_for(lambda: importer.locator("#import-session").is_enabled(), what="the file input")
    importer.close()
    if not popup.is_closed():
        popup.close()


@pytest.mark.parametrize("broken", ["version", "tiers"])
def test_an_invalid_document_is_refused_with_the_hosts_reason(browser, page, tmp_path, broken):
    source = session_with_secret(browser, page)
    document = browser.request({"type": "vbrief.export", "key": source}, 30000)["document"]
    if broken == "version":
        document["vBRIEFInfo"]["version"] = "9.9"
    else:
        document["sessionSnapshot"]["memoryTiers"] = []
    file = tmp_path / "broken.vbrief.json"
    file.write_text(json.dumps(document), encoding="utf-8")
    other = browser.context.new_page()
    other.goto("https://news.example/kyoto")
    key = session_key(browser.context, other)
    popup = open_popup(browser.context, tab_id(browser.context, other))
    popup.locator("#import-session").set_input_files(str(file))
    wait_for(lambda: popup.locator("#export-status").inner_text().startswith("Could not import:"),
             what="the refusal")
    assert "failed" in popup.locator("#export-status").get_attribute("class")
    assert session_messages(browser.context, key) == []  # nothing half-imported
    popup.close()
    other.close()
