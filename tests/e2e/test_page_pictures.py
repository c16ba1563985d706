"""Every page of the extension as a user sees it, light and dark, in real Chromium with the
real host: the options page, the memory page, the popup on a chat tab with a session and
long-term memory on, and what is drawn into pages (the memory chip with its preview, the
ask panel answering). The extension's own pages are checked by axe-core (nothing of
moderate impact or worse) and by their rendered boxes (no control overlapping another,
none off the page, every checkbox on the line of its label). The pictures go to docs/img/
with one command:

    WHITEBOARD_UPDATE_SCREENSHOTS=1 .venv/bin/python -m pytest tests/e2e/test_page_pictures.py -n 0
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe

from e2e import harness
from e2e.harness import (
    EXTENSION_ID,
    capture_selection,
    open_chat,
    open_popup,
    send_typed,
    session_key,
    set_long_term,
    shadow_ui,
    tab_id,
    type_draft,
    wait_for,
)
from e2e.support_models import ask, panel_text
from support.fake_openai import FakeOpenAI, reply

DOCS_IMG = Path(__file__).resolve().parents[2] / "docs" / "img"
SCHEMES = ("light", "dark")
PAGE = "acb__chatgpt_2026-04-13"
ANSWER = "[data-message-author-role=assistant] .markdown p"
BAD_IMPACTS = ("moderate", "serious", "critical")
MEMORIES = (("Prefers short answers with an example first", "preference", True),
            ("Writes Python and TypeScript at work", "skill", False),
            ("Is preparing a trip to Kyoto in April", "objective", False))
KYOTO = ("Kyoto was Japan's capital for over a thousand years (794-1868), so emperors, nobles and Buddhist "
         "schools all built there. Many temples survived the war because the city was spared from bombing.")

# The rendered boxes of the visible controls: a pair that overlaps (neither inside the
# other, nor a label and its own control), one that leaves the page sideways, a checkbox
# whose middle is off the first line of its label (its <label>, or the row header of its
# table row), and a checkbox right beside a line of another's label (a run-on line of
# them) are problems, described for the assertion.
LAYOUT_PROBLEMS = """() => {
  const name = (e) => e.id ? `#${e.id}` : `${e.localName}${e.className ? '.' + e.className : ''}` +
    `(${(e.textContent || e.getAttribute('aria-label') || '').trim().slice(0, 30)})`;
  const shown = (e) => e.checkVisibility({ visibilityProperty: true }) && e.getClientRects().length > 0;
  const controls = [...document.querySelectorAll('button, input, select, textarea, a[href], label')].filter(shown);
  const problems = [];
  const width = document.documentElement.clientWidth;
  const boxes = controls.map((e) => e.getBoundingClientRect());
  controls.forEach((a, i) => {
    if (boxes[i].left < -1 || boxes[i].right > width + 1) problems.push(`${name(a)} leaves the page sideways`);
    for (let j = i + 1; j < controls.length; j += 1) {
      const b = controls[j];
      if (a.contains(b) || b.contains(a) || a.control === b || b.control === a) continue;
      const x = Math.min(boxes[i].right, boxes[j].right) - Math.max(boxes[i].left, boxes[j].left);
      const y = Math.min(boxes[i].bottom, boxes[j].bottom) - Math.max(boxes[i].top, boxes[j].top);
      if (x > 1 && y > 1) problems.push(`${name(a)} overlaps ${name(b)}`);
    }
  });
  const firstLine = (label) => {
    const walker = document.createTreeWalker(label, NodeFilter.SHOW_TEXT,
      { acceptNode: (n) => n.textContent.trim() ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_REJECT });
    const text = walker.nextNode();
    if (!text) return null;
    const range = document.createRange();
    const at = text.textContent.search(/\\S/);
    range.setStart(text, at);
    range.setEnd(text, at + 1);
    return range.getBoundingClientRect();
  };
  const labelOf = (box) => box.labels[0] || box.closest('tr')?.querySelector('th');
  const checkboxes = controls.filter((e) => e.type === 'checkbox');
  for (const box of checkboxes) {
    const label = labelOf(box);
    if (!label) { problems.push(`${name(box)} has no label`); continue; }
    // No other checkbox right beside a line of this label's text (a run-on line of them).
    const range = document.createRange();
    range.selectNodeContents(label);
    const lines = [...range.getClientRects()];
    for (const other of checkboxes) {
      if (other === box || labelOf(other) === label || label.contains(other)) continue;
      const o = other.getBoundingClientRect();
      const beside = (l) => o.bottom > l.top + 1 && o.top < l.bottom - 1 && o.right > l.left - 24 &&
        o.left < l.right + 24;
      if (lines.some(beside)) {
        problems.push(`${name(other)} sits on a line of the label of ${name(box)}`);
      }
    }
    const line = firstLine(label);
    const r = box.getBoundingClientRect();
    const middle = (r.top + r.bottom) / 2;
    if (!line || middle < line.top - 2 || middle > line.bottom + 2) {
      problems.push(`${name(box)} is not on the line of its label "${label.textContent.trim().slice(0, 40)}"`);
    }
  }
  return problems;
}"""


def axe_problems(page) -> list[str]:
    """axe-core's violations of moderate impact or worse, one line each."""
    found = Axe().run(page).response["violations"]
    return [f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
            for v in found if v["impact"] in BAD_IMPACTS]


def picture(page, name: str, out: Path, full_page: bool = True) -> Path:
    shot = out / f"{name}.png"
    page.screenshot(path=str(shot), full_page=full_page)
    assert shot.stat().st_size > 5000, f"{name}: an empty picture"
    if os.environ.get("WHITEBOARD_UPDATE_SCREENSHOTS") == "1":
        DOCS_IMG.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, DOCS_IMG / shot.name)
    return shot


def check_page(page, name: str) -> None:
    assert page.evaluate("() => document.querySelectorAll('main').length") == 1, f"{name}: one main landmark"
    assert page.evaluate(LAYOUT_PROBLEMS) == [], name
    assert axe_problems(page) == [], name


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAI() as server:
        yield server


@pytest.fixture(scope="module")
def out():
    with tempfile.TemporaryDirectory(prefix="wb-pictures-") as tmp:
        yield Path(tmp)


@pytest.fixture(scope="module")
def chat(browser):
    """A ChatGPT tab with a session (a captured selection and a send) and long-term memory on."""
    assert browser.request({"type": "memory.wipe", "confirm": True})["ok"]
    for text, kind, pinned in MEMORIES:
        added = browser.request({"type": "memory.add", "text": text, "memory_type": kind})
        assert added["ok"], added
        if pinned:
            assert browser.request({"type": "memory.update", "memory_id": added["memory_id"], "pinned": True})["ok"]
    set_long_term(browser.context, "chatgpt", True)
    page = browser.context.new_page()
    open_chat(page, "chatgpt", PAGE, reply="none")
    key = session_key(browser.context, page)
    capture_selection(browser, page, ANSWER, key)
    send_typed(page, "chatgpt", "What should I read first?")
    yield page
    page.close()


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_options_page(browser, out, scheme):
    page = browser.context.new_page()
    page.emulate_media(color_scheme=scheme)
    page.goto(f"chrome-extension://{EXTENSION_ID}/options/options.html")
    wait_for(lambda: page.locator("#memory-site-chatgpt").is_enabled() and page.locator("#model-form").count() == 1,
             what="the options page filled")
    check_page(page, f"options ({scheme})")
    picture(page, f"options-{scheme}", out)
    page.close()


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_memory_page(browser, chat, out, scheme):
    page = browser.context.new_page()
    page.emulate_media(color_scheme=scheme)
    page.goto(f"chrome-extension://{EXTENSION_ID}/memory/manager.html")
    wait_for(lambda: page.locator("#list .memory").count() == len(MEMORIES), what="the memories listed")
    wait_for(lambda: "Loading" not in page.locator("#meanings").inner_text(), timeout=60, what="the meanings line")
    check_page(page, f"memory page ({scheme})")
    picture(page, f"memory-{scheme}", out)
    page.close()


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_popup_on_a_chat_tab_with_a_session_and_memory_on(browser, chat, out, scheme):
    popup = open_popup(browser.context, tab_id(browser.context, chat))
    popup.emulate_media(color_scheme=scheme)
    popup.set_viewport_size({"width": 360, "height": 600})  # the toolbar popup's width
    wait_for(lambda: popup.locator("#memory-opt-in").is_checked() and popup.locator("#messages li").count() >= 2,
             what="the session and memory shown")
    wait_for(lambda: "Loading" not in popup.locator("#memory-meanings").inner_text(), timeout=60,
             what="the meanings line")
    check_page(popup, f"popup ({scheme})")
    picture(popup, f"popup-{scheme}", out)
    popup.close()


def background(page, tag: str, cls: str) -> str:
    """The computed background colour of the first .cls in <tag>'s closed shadow root (CDP)."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        doc = cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})
        host = harness._find(doc["root"], lambda n: n.get("localName") == tag)
        node = harness._find(host["shadowRoots"][0], lambda n: cls in dict(
            zip(n.get("attributes", [])[::2], n.get("attributes", [])[1::2])).get("class", "").split())
        styles = cdp.send("CSS.getComputedStyleForNode", {"nodeId": node["nodeId"]})
        return next(s["value"] for s in styles["computedStyle"] if s["name"] == "background-color")
    finally:
        cdp.detach()


def test_the_memory_chip_and_its_preview_follow_the_scheme(browser, chat, out):
    seen = {}
    for scheme in SCHEMES:
        chat.emulate_media(color_scheme=scheme)
        chat.bring_to_front()
        harness.close_panel(chat)  # the session panel the selection opened: the chip alone
        type_draft(chat, "chatgpt", "Which temples should I see in Kyoto?")
        wait_for(lambda: "see what goes with this send" in (shadow_ui(chat, "whiteboard-memory-preview") or {}).get(
            "text", ""), what="the chip")
        chat.locator("whiteboard-memory-preview").click()
        wait_for(lambda: "Kyoto in April" in shadow_ui(chat, "whiteboard-memory-preview")["text"],
                 what="the preview list")
        seen[scheme] = background(chat, "whiteboard-memory-preview", "card")
        picture(chat, f"chat-memory-{scheme}", out, full_page=False)
        chat.locator(harness.editor_css("chatgpt")).first.fill("")
        chat.reload()
        chat.wait_for_function("() => window.__sim !== undefined")
    assert seen["light"] == "rgb(255, 255, 255)" and seen["dark"] != seen["light"], seen


def test_the_ask_panel_follows_the_scheme(browser, fake, out):
    assert browser.request({"type": "llm.settings.set", "base_url": fake.base_url, "model": "fake-model"})["ok"]
    seen = {}
    try:
        for scheme in SCHEMES:
            fake.script(reply(KYOTO, chunk_delay=0.01))
            page = browser.context.new_page()
            page.emulate_media(color_scheme=scheme)
            page.goto("https://news.example/kyoto")
            capture_selection(browser, page, "#plain", session_key(browser.context, page))
            ask(page, "Why does Kyoto have so many temples?")
            wait_for(lambda p=page: "Answered" in panel_text(p, "ask-status"), timeout=15, what="the answer")
            seen[scheme] = background(page, "whiteboard-panel", "panel")
            picture(page, f"ask-panel-{scheme}", out, full_page=False)
            page.close()
    finally:
        fake.unscript()
        assert browser.request({"type": "llm.settings.set", "base_url": "", "model": ""})["ok"]
    assert seen["light"] == "rgb(255, 255, 255)" and seen["dark"] != seen["light"], seen


def test_the_box_check_finds_a_run_on_line_of_checkboxes_and_overlaps(page):
    """What the options page once was: inline labels wrapping into one another, and a
    button drawn over a field."""
    labels = "".join(f'<label><input type=checkbox> {name} ({name.lower()}.example.com)</label> '
                     for name in ("ChatGPT", "Claude", "Gemini", "Perplexity", "Grok"))
    page.set_content(f'<main style="width:420px">{labels}<p><input id=field style="width:200px">'
                     '<button style="margin-left:-60px">Go</button></p></main>')
    problems = page.evaluate(LAYOUT_PROBLEMS)
    assert any("sits on a line of the label" in p for p in problems), problems
    assert any(p.startswith("#field overlaps button") for p in problems), problems
