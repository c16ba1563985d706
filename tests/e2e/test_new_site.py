"""A chat site is one table entry, an adapter and a selectors file (docs/extension.md,
"Adding a chat site"). Proved with a test-only third site, example-chat at
https://chat.example/ (tests/e2e/example_site): a copy of the extension gets those three
changes plus the manifest tools/sync-manifest.mjs derives from the table, nothing else,
and in real Chromium with the real host it works like the shipped sites."""

import shutil
import subprocess
import tempfile
from pathlib import Path
from types import SimpleNamespace

import pytest

from e2e import harness
from e2e.harness import EXTENSION_ID, capture_selection, session_key, session_messages, sim, tab_id
from support.waiting import wait_for

EXAMPLE = Path(__file__).resolve().parent / "example_site"
SITE_FILES = {"content/chat/example-chat.js", "content/chat/example-chat.selectors.js"}
EDITOR = "#composer"
ANSWER = '.turn[data-role="assistant"] .text'


def build_extension(dest: Path) -> Path:
    """The extension with example-chat added the documented way."""
    ext = dest / "extension"
    shutil.copytree(harness.EXTENSION, ext)
    shutil.copy(harness.ROOT / "pyproject.toml", dest)  # the manifest's version comes from it
    sites = ext / "shared" / "sites.js"
    text = sites.read_text(encoding="utf-8")
    end = text.index("\n  ];\n") + 1  # the end of the TABLE literal
    entry = (EXAMPLE / "site-entry.js").read_text(encoding="utf-8")
    sites.write_text(text[:end] + entry + text[end:], encoding="utf-8")
    for name in SITE_FILES:
        shutil.copy(EXAMPLE / Path(name).name, ext / name)
    subprocess.run(["node", "tools/sync-manifest.mjs", str(ext)], cwd=harness.ROOT, check=True, capture_output=True)
    return ext


def files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def built():
    with tempfile.TemporaryDirectory(prefix="wb-site-") as tmp:
        yield build_extension(Path(tmp))


@pytest.fixture(scope="module")
def browser(playwright, built):
    with tempfile.TemporaryDirectory(prefix="wb-e2e-") as tmp:
        context = harness.launch(playwright, Path(tmp), extension=built)
        page_html = (EXAMPLE / "page.html").read_text(encoding="utf-8")

        def chat(route, request):
            if request.resource_type == "document":
                route.fulfill(body=page_html, content_type="text/html; charset=utf-8")
            else:
                route.abort()

        context.route("https://chat.example/**", chat)
        try:
            harness.wait_connected(context)
            yield SimpleNamespace(context=context)
        finally:
            context.close()


@pytest.fixture
def page(browser):
    page = browser.context.new_page()
    page.goto("https://chat.example/c/kyoto")
    page.wait_for_function("() => window.__sim !== undefined")
    yield page
    page.close()


def test_the_new_site_is_three_files_plus_the_derived_manifest(built):
    before, after = files(harness.EXTENSION), files(built)
    changed = {name for name in after if before.get(name) != after[name]}
    assert changed == {"shared/sites.js", "manifest.json", *SITE_FILES}
    assert set(before) <= set(after)
    check = subprocess.run(["node", "tools/sync-manifest.mjs", "--check", str(built)], cwd=harness.ROOT,
                           capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stderr
    # ... and the shipped extension does not have it.
    assert "chat.example" not in (harness.EXTENSION / "manifest.json").read_text(encoding="utf-8")


def test_a_send_on_the_new_site_carries_the_selection_once(browser, page):
    key = session_key(browser.context, page)
    assert key.startswith("chat.example:")
    selected = capture_selection(browser, page, ANSWER, key)
    held = session_messages(browser.context, key)
    # chat.attach from the new site's adapter: the conversation shown, then the selection.
    assert [(m["role"], m["source"]) for m in held] == [("user", "chat"), ("assistant", "chat"), ("user", "selection")]
    page.locator(EDITOR).click()
    page.keyboard.type("Is it walkable?")
    page.keyboard.press("Enter")
    wait_for(lambda: sim(page, "window.__sim.sent"), what="the send")
    [sent] = sim(page, "window.__sim.sent")
    assert sent["text"].startswith("Is it walkable?")
    assert sent["text"].count("[Whiteboard selection · 1 passage]") == 1 and sent["text"].count(selected) == 1
    users = [m["content"] for m in session_messages(browser.context, key)
             if m["role"] == "user" and m["source"] == "chat"]
    assert users[-1] == "Is it walkable?"


def test_popup_and_options_know_the_new_site(browser, page):
    tab = tab_id(browser.context, page)
    wait_for(lambda: browser.context.service_workers[0].evaluate(
        "(t) => chrome.storage.session.get(`page:${t}`).then((s) => s[`page:${t}`]?.adapter?.state)",
        tab) == "attached",
        timeout=10, what="the adapter to attach")
    popup = browser.context.new_page()
    popup.goto(f"chrome-extension://{EXTENSION_ID}/popup/popup.html?tab={tab}")
    popup.wait_for_selector("body[data-ready=true]")
    assert popup.locator("#page-text").inner_text().startswith("Example Chat: attached")
    popup.wait_for_selector(".handoff-button")
    # Every other enabled site, the new one's table neighbours included.
    offered = popup.locator(".handoff-button").all_inner_texts()
    assert offered == [f"Continue in {site.label}" for site in harness.SITES.values()]
    popup.close()
    options = browser.context.new_page()
    options.goto(f"chrome-extension://{EXTENSION_ID}/options/options.html")
    box = options.locator("#site-on-example-chat")
    box.wait_for()
    assert box.is_checked()  # the entry's default
    assert options.locator("#site-row-example-chat th").inner_text().split("\n") == ["Example Chat", "chat.example"]
    options.close()
