"""The memory page's "Import chat history" in real Chromium with the real host: a ChatGPT
zip (unpacked by the page) and a Claude conversations.json streamed in chunks
(memory.import_chats), the facts found shown for approval; a second import adds nothing; a
cut zip is refused with nothing changed; cancel drops the import and keeps what was approved."""

import json
import zipfile
from pathlib import Path

from support.waiting import wait_for
from whiteboard.config import EXTENSION_ID

URL = f"chrome-extension://{EXTENSION_ID}/memory/manager.html"
DATA = Path(__file__).resolve().parents[1] / "data" / "chat_exports"


def suggestions(page) -> list[str]:
    return page.locator("#suggestions .memory").all_inner_texts()


def status(page) -> str:
    return page.locator("#status").inner_text()


def claude_export(path: Path, filler: int) -> Path:
    """The Claude fixture and `filler` conversations of requests: several chunks of the page's."""
    items = json.loads((DATA / "claude_conversations.json").read_text())
    items += [{"uuid": f"f{i}", "created_at": "2024-06-01T10:00:00Z", "chat_messages": [
        {"sender": "human", "text": f"Write a haiku about the number {i}, please, with a twist at the end."},
        {"sender": "assistant", "text": "Numbers fall like rain " * 40}]} for i in range(filler)]
    path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    return path


def test_import_chat_history_from_the_memory_page(browser, tmp_path):
    assert browser.request({"type": "memory.wipe", "confirm": True})["ok"]
    approved = browser.request({"type": "memory.add", "text": "Prefers Rust", "memory_type": "preference"})
    page = browser.context.new_page()
    page.goto(URL)
    wait_for(lambda: page.locator("#list .memory").count() == 1, what="the page loaded")

    export = tmp_path / "chatgpt-export.zip"
    with zipfile.ZipFile(export, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("chat.html", "<html></html>")
        z.write(DATA / "chatgpt_conversations.json", "conversations.json")
    page.locator("#history-file").set_input_files(str(export))
    wait_for(lambda: "wait under Suggestions" in status(page), timeout=60, what="the zip imported")
    assert "Read 2 conversations" in status(page)
    shown = suggestions(page)
    utrecht = next(s for s in shown if "Lives in Utrecht" in s)
    assert "from chatgpt.com, imported 2024-03-01" in utrecht
    assert not any(word in " ".join(shown) for word in ("Lisbon", "sardines", "shellfish", "sailor", "rye"))
    # Nothing became a memory until the user says so.
    assert [m["text"] for m in browser.request({"type": "memory.list"})["memories"]] == ["Prefers Rust"]
    page.locator("#suggestions .memory", has_text="Lives in Utrecht").locator(".do-accept").click()
    wait_for(lambda: "Lives in Utrecht" in page.locator("#list").inner_text(), what="accepted")
    assert "imported 2024-03-01" in page.locator("#list .memory", has_text="Lives in Utrecht").inner_text()

    # The same zip again adds nothing.
    before = len(suggestions(page))
    page.locator("#history-file").set_input_files(str(export))
    wait_for(lambda: "Read 0 conversations: 0 facts" in status(page), timeout=60, what="the second import")
    assert len(suggestions(page)) == before

    # A Claude conversations.json of several chunks.
    claude = claude_export(tmp_path / "conversations.json", 1000)
    assert len(claude.read_text()) > 3 * 256 * 1024
    page.locator("#history-file").set_input_files(str(claude))
    wait_for(lambda: "Read 1002 conversations" in status(page), timeout=120, what="the Claude file imported")
    assert any("Is vegetarian" in s and "from claude.ai, imported 2024-05-02" in s for s in suggestions(page))
    assert not any("jazz" in s or "Porto" in s or "haiku" in s for s in suggestions(page))

    # A zip cut short: refused, nothing changed.
    waiting = browser.request({"type": "memory.suggestions"})["suggestions"]
    cut = tmp_path / "cut.zip"
    cut.write_bytes(export.read_bytes()[:300])
    page.locator("#history-file").set_input_files(str(cut))
    wait_for(lambda: "not a readable zip" in status(page), what="the cut zip refused")
    assert browser.request({"type": "memory.suggestions"})["suggestions"] == waiting

    # Cancel half-way: what was found is dropped, what was approved stays.
    (tmp_path / "big").mkdir()
    big = claude_export(tmp_path / "big" / "conversations.json", 6000)
    page.locator("#history-file").set_input_files(str(big))
    wait_for(lambda: page.locator("#history").is_visible() and "facts found" in page.locator(
        "#history-progress").inner_text(), timeout=60, what="the import under way")
    page.locator("#history-cancel").click()
    wait_for(lambda: "Import cancelled" in status(page), timeout=60, what="cancelled")
    assert browser.request({"type": "memory.suggestions"})["suggestions"] == waiting
    kept = {m["text"] for m in browser.request({"type": "memory.list"})["memories"]}
    assert kept == {"Prefers Rust", "Lives in Utrecht"} and approved["ok"]
    page.close()
