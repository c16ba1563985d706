"""Every adapter selector against every saved real page, in Chromium, with the very
strings the extension uses (read from extension/content/chat/*.selectors.js), and the
shared adapter framework reading the saved conversations."""

import json
from pathlib import Path

import pytest

from e2e import harness

CHAT = harness.EXTENSION / "content" / "chat"
# Every site's selectors file, as the manifest loads them (derived from the sites table).
MANIFEST = json.loads((harness.EXTENSION / "manifest.json").read_text())
SELECTOR_FILES = [Path(f).name for entry in MANIFEST["content_scripts"] for f in entry["js"]
                  if f.endswith(".selectors.js")]
ADAPTER_FILES = [f"{site}.js" for site in harness.SITE_IDS]
TABLES = ["selector-registry.js", *SELECTOR_FILES]
SCRIPTS = [*TABLES, "dom-query.js", "adapter-framework.js", *ADAPTER_FILES]
PAGES = sorted(p.stem for p in harness.PAGES.glob("*.html"))
SITE_OF_PAGE = {name: harness.site_of_page(name) for name in PAGES}

# What the framework must read from each saved page: the composer found or not, and the
# roles of the turns shown, in order.
EXPECTED = {
    "acb__chatgpt_2026-04-13": (True, ["user", "assistant"] * 2),
    "acb__claude_2026-04-13": (True, ["user", "assistant"] * 2),
    "gte__chatgpt_project_page_2025-12-23": (True, []),
    "rse__chatgpt-dom-1question-ans-pair--with-python-code-response_2026-03": (True, ["user", "assistant"]),
    "rse__chatgpt-dom-1question-ans-pair_2026-03": (True, ["user", "assistant"]),
    "rse__chatgpt-dom-2question-ans-pairs_2026-03": (True, ["user", "assistant"] * 2),
    "rse__chatgpt-dom-5question-ans-pairs_2026-03": (True, ["user", "assistant"] * 5),
    "rse__chatgpt-dom_2025-06-30": (True, ["user", "assistant"]),
    "rse__claude-codeblock-dom_2025-08": (False, []),
    "rse__claude-codeblock-larger-dom_2025-08": (False, ["assistant"]),
    "rse__claude-single-user-response-with-artifact-dom_2025-08": (False, ["assistant"]),
    "tl__chatgpt_ssr_2026-07-19": (False, []),
    "acb__gemini_2026-04-13": (True, ["user", "assistant"]),
    "cv__gemini-chat_2026-05-21": (True, ["user", "assistant"]),
    "rse__gemini-dom_2025-06-30": (True, ["user", "assistant"] * 3),
    "rse__gemini-scrollback-loading-dom_2025-08": (True, []),
    "acb__perplexity_2026-04-13": (True, ["user", "assistant"]),
    "cv__perplexity-chat_2026-05-21": (False, ["user", "assistant"]),
    "acb__grok_2026-04-13": (True, ["user", "assistant"]),
    "rse__grok-dom-5question-ans-pairs_2026-03": (True, ["user", "assistant"] * 5),
    "wb__grok_2026-09-14_from-facts": (True, ["user", "assistant"] * 2),
    "cv__deepseek-chat_2026-05-21": (True, ["user", "assistant"]),
    "rse__copilot-dom-2question-ans-pairs_2026-03": (True, ["user", "assistant"] * 2),
    "rse__copilot-chat-dom_2025-08": (False, ["user", "assistant"] * 2),
}


@pytest.fixture(scope="module")
def chromium(playwright):
    browser = playwright.chromium.launch(executable_path=harness.chromium_path(), headless=True,
                                         args=["--no-sandbox", "--disable-background-networking"])
    yield browser
    browser.close()


@pytest.fixture(scope="module")
def results(chromium):
    """For each saved page: how many elements each selector entry matches, and the turns."""
    page = chromium.new_page()
    page.route("**/*", lambda route: route.abort())  # the saved pages fetch nothing
    out = {}
    for name in PAGES:
        page.set_content((harness.PAGES / f"{name}.html").read_text(encoding="utf-8"), wait_until="domcontentloaded")
        page.evaluate("() => { window.Whiteboard = {sites: {siteFor: (site) => site}}; }")
        for script in SCRIPTS:
            page.add_script_tag(content=(CHAT / script).read_text())
        out[name] = page.evaluate("""(site) => {
            const counts = {};
            for (const s of Whiteboard.selectors.sites()) {
                for (const [role, entries] of Object.entries(Whiteboard.selectors.get(s))) {
                    for (const e of entries) counts[`${s}|${role}|${e.css}`] = document.querySelectorAll(e.css).length;
                }
            }
            const adapter = Whiteboard.chat.adapterFor(site); // the site's own adapter file, quirks and all
            const turns = adapter.turns().map((t) => ({role: t.role, chars: t.text.length, text: t.text}));
            return {counts, turns, recognised: adapter.recognition().state === 'attached',
                    streaming: adapter.isStreaming(), fresh: adapter.conversationIsNew()};
        }""", SITE_OF_PAGE[name])
    page.close()
    return out


@pytest.fixture(scope="module")
def entries(chromium):
    """(site, role, css, pages) for every entry in the selectors files, as the browser reads them."""
    page = chromium.new_page()
    page.evaluate("() => { window.Whiteboard = {}; }")
    for script in TABLES:
        page.add_script_tag(content=(CHAT / script).read_text())
    tables = page.evaluate("() => Whiteboard.selectors.sites().map((s) => [s, Whiteboard.selectors.get(s)])")
    page.close()
    return [(site, role, e["css"], e["pages"]) for site, table in tables
            for role, entries in table.items() for e in entries]


def test_every_selector_matches_exactly_the_saved_pages_it_claims(results, entries):
    checked = 0
    mismatches = []
    for name, result in results.items():
        for key, count in result["counts"].items():
            site, role, css = key.split("|", 2)
            if SITE_OF_PAGE[name] != site:
                continue  # a site's selectors are checked against that site's pages
            entry = next(e for e in entries if e[:3] == (site, role, css))
            claimed = name in entry[3]
            if (count > 0) != claimed:
                mismatches.append(f"{site}.{role} {css!r} matches {count} on {name}, expected "
                                  + ("some" if claimed else "none"))
            checked += 1
    assert not mismatches, "\n".join(mismatches)
    assert checked == sum(1 for e in entries for name in PAGES if SITE_OF_PAGE[name] == e[0])


def test_every_claimed_page_exists(entries):
    for site, role, css, pages in entries:
        for name in pages:
            assert name in PAGES, f"{site}.{role} {css!r} names a page that is not saved: {name}"


@pytest.mark.parametrize("name", PAGES)
def test_the_framework_reads_each_saved_page(results, name):
    recognised, roles = EXPECTED[name]
    result = results[name]
    assert result["recognised"] is recognised
    assert [t["role"] for t in result["turns"]] == roles
    assert all(t["chars"] > 0 for t in result["turns"])
    assert result["streaming"] is False  # saved after every reply had finished
    assert result["fresh"] is (not roles)

