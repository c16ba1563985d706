"""Every adapter selector against every saved real page, in Chromium, with the very
strings the extension uses (read from extension/content/chat/*.selectors.js), and the
shared adapter framework reading the saved conversations."""

import json
import os
import re
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
ROLES = ["editor", "sendButton", "form", "userMessage", "assistantMessage", "userText", "assistantText", "streaming",
         "idle", "replyBlock", "replyDone"]
SCRIPTS = [*TABLES, "dom-query.js", "structure.js", "roles.js", "adapter-framework.js", *ADAPTER_FILES]
PAGES = sorted(p.stem for p in harness.PAGES.glob("*.html"))
# The sites each saved page is checked for: its own, or every site for the page of none.
SITES_OF_PAGE = {name: ([harness.site_of_page(name)] if harness.site_of_page(name) else list(harness.SITE_URLS))
                 for name in PAGES}

# What the framework must read from each saved page: the composer found or not, the roles
# of the turns shown in order, and whether a reply is streaming.
EXPECTED = {
    "acb__chatgpt_2026-04-13": (True, ["user", "assistant"] * 2, False),
    "acb__claude_2026-04-13": (True, ["user", "assistant"] * 2, False),
    "gte__chatgpt_project_page_2025-12-23": (True, [], False),
    "miss__redesigned-chat": (False, [], False),
    "obs__claude-hub_2026-10": (True, ["user", "assistant"] * 2, False),
    "obs__claude-transcript_2026-09": (True, ["user", "assistant"] * 2, False),
    "orc__chatgpt-completed_2026-09__idx": (True, ["user", "assistant"], False),
    # Mid-reply: the answer is not a message until it has finished.
    "orc__chatgpt-streaming_2026-09__idx": (True, ["user"], True),
    "rse__chatgpt-dom-1question-ans-pair--with-python-code-response_2026-03": (True, ["user", "assistant"], False),
    "rse__chatgpt-dom-1question-ans-pair_2026-03": (True, ["user", "assistant"], False),
    "rse__chatgpt-dom-2question-ans-pairs_2026-03": (True, ["user", "assistant"] * 2, False),
    "rse__chatgpt-dom-5question-ans-pairs_2026-03": (True, ["user", "assistant"] * 5, False),
    "rse__chatgpt-dom_2025-06-30": (True, ["user", "assistant"], False),
    "rse__claude-codeblock-dom_2025-08": (False, [], False),
    "rse__claude-codeblock-larger-dom_2025-08": (False, ["assistant"], False),
    "rse__claude-single-user-response-with-artifact-dom_2025-08": (False, ["assistant"], False),
    "tl__chatgpt_ssr_2026-07-19": (False, [], False),
    "acb__gemini_2026-04-13": (True, ["user", "assistant"], False),
    "cv__gemini-chat_2026-05-21": (True, ["user", "assistant"], False),
    "rse__gemini-dom_2025-06-30": (True, ["user", "assistant"] * 3, False),
    "rse__gemini-scrollback-loading-dom_2025-08": (True, [], False),
    "acb__perplexity_2026-04-13": (True, ["user", "assistant"], False),
    "cv__perplexity-chat_2026-05-21": (False, ["user", "assistant"], False),
    "obs__perplexity_2026-09": (True, ["user", "assistant"] * 2, False),
    "acb__grok_2026-04-13": (True, ["user", "assistant"], False),
    "rse__grok-dom-5question-ans-pairs_2026-03": (True, ["user", "assistant"] * 5, False),
    "wb__grok_2026-09-14_from-facts": (True, ["user", "assistant"] * 2, False),
    "cv__deepseek-chat_2026-05-21": (True, ["user", "assistant"], False),
    "obs__deepseek_2026-10": (True, ["user", "assistant"] * 2, False),
    "rse__copilot-dom-2question-ans-pairs_2026-03": (True, ["user", "assistant"] * 2, False),
    "rse__copilot-chat-dom_2025-08": (False, ["user", "assistant"] * 2, False),
}
# Exact texts read where a layout puts more than the message in the message element.
TEXTS = {
    "obs__perplexity_2026-09": [
        "What is a good first telescope for a city balcony?",
        "A small refractor of 70 to 90 mm on an alt-azimuth mount: light, quick to cool down and good on the Moon and "
        "planets, which city light does not wash out.\n\nA 5-inch tabletop reflector is the other common choice if "
        "the balcony rail can hold it.",
        "And which eyepieces come first?",
        "A 25 mm for finding things and a 10 mm for the planets cover most nights."],
    "obs__deepseek_2026-10": [
        "How long should I boil an egg for a runny yolk?",
        "Six minutes from boiling water for a large egg, then straight into cold water.",
        "Can you write that as a timer in Python?",
        "Here is a small one:\n\npython\nimport time\ntime.sleep(6 * 60)\nprint(\"Eggs ready\")"],
    "orc__chatgpt-completed_2026-09__idx": ["Reply with exactly: OK", "OK"],
    "obs__claude-hub_2026-10": ["What lives in a tide pool?",
                                "Anemones, hermit crabs, sea stars and small fish that wait for the tide to return.",
                                "How do they survive low tide?",
                                "They close up, hide under wet seaweed or stay in the pools that never drain."],
    "obs__claude-transcript_2026-09": [
        "Which bird went extinct most recently?",
        "The po'ouli of Maui is among the most recent: the last known bird died in captivity in 2004.",
        "And a mammal?", "The Bramble Cay melomys, declared extinct in 2016 after sea-level rise flooded its island."],
}
ROLES_TABLE = ("<!-- roles-table:start (generated by tests/e2e/test_selectors.py) -->",
               "<!-- roles-table:end -->")
UPDATE_DOCS = os.environ.get("WHITEBOARD_UPDATE_DOCS") == "1"


@pytest.fixture(scope="module")
def chromium(playwright):
    browser = playwright.chromium.launch(executable_path=harness.chromium_path(), headless=True,
                                         args=["--no-sandbox", "--disable-background-networking"])
    yield browser
    browser.close()


@pytest.fixture(scope="module")
def results(chromium):
    """For each saved page and site: how many elements each selector entry matches, the turns
    read, and the roles report the popup gets."""
    page = chromium.new_page()
    page.route("**/*", lambda route: route.abort())  # the saved pages fetch nothing
    out = {}
    for name in PAGES:
        page.set_content((harness.PAGES / f"{name}.html").read_text(encoding="utf-8"), wait_until="domcontentloaded")
        page.evaluate("() => { window.Whiteboard = {sites: {siteFor: (site) => site}}; }")
        for script in SCRIPTS:
            page.add_script_tag(content=(CHAT / script).read_text())
        for site in SITES_OF_PAGE[name]:
            out[name, site] = page.evaluate("""(site) => {
                const counts = {};
                for (const [role, entries] of Object.entries(Whiteboard.selectors.get(site))) {
                    for (const e of entries) counts[`${role}|${e.css}`] = document.querySelectorAll(e.css).length;
                }
                const adapter = Whiteboard.chat.adapterFor(site); // the site's own adapter file, quirks and all
                const label = (b) => b.innerText.trim();
                const turns = adapter.turns().map((t) => ({role: t.role, text: t.text,
                    buttons: [...t.el.querySelectorAll('button, [role="button"]')].map(label).filter(Boolean)}));
                const recognition = adapter.recognition();
                return {counts, turns, recognised: recognition.state === 'attached', roles: recognition.roles,
                        streaming: adapter.isStreaming(), fresh: adapter.conversationIsNew()};
            }""", site)
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
    mismatches = []
    for (name, site), result in results.items():
        for key, count in result["counts"].items():
            role, css = key.split("|", 1)
            entry = next(e for e in entries if e[:3] == (site, role, css))
            claimed = name in entry[3]
            if (count > 0) != claimed:
                mismatches.append(f"{site}.{role} {css!r} matches {count} on {name}, expected "
                                  + ("some" if claimed else "none"))
    assert not mismatches, "\n".join(mismatches)
    checked = sum(len(r["counts"]) for r in results.values())
    assert checked == sum(1 for e in entries for name in PAGES if e[0] in SITES_OF_PAGE[name])


def test_every_claimed_page_exists(entries):
    for site, role, css, pages in entries:
        for name in pages:
            assert name in PAGES, f"{site}.{role} {css!r} names a page that is not saved: {name}"


def test_every_site_has_an_old_and_a_new_page_and_the_miss_page_matches_nothing(results):
    for site, layouts in harness.SITE_PAGES.items():
        assert set(layouts) == {"old", "new"} and all(name in PAGES for name in layouts.values()), site
        assert not any(results[harness.MISS_PAGE, site]["counts"].values()), f"a {site} selector matches the miss page"


@pytest.mark.parametrize("name", PAGES)
def test_the_framework_reads_each_saved_page(results, name):
    recognised, roles, streaming = EXPECTED[name]
    for site in SITES_OF_PAGE[name]:
        result = results[name, site]
        assert result["recognised"] is recognised, site
        assert [t["role"] for t in result["turns"]] == roles, site
        assert all(t["text"] for t in result["turns"])
        if name in TEXTS:
            assert [t["text"] for t in result["turns"]] == TEXTS[name]
        assert result["streaming"] is streaming
        assert result["fresh"] is (not roles)
        # The roles report says what was found, and "missing" for the composer it cannot find.
        statuses = {role: r["status"] for role, r in result["roles"].items()}
        assert statuses["editor"] == ("found" if recognised else "missing")
        for role, message in (("user", "userMessage"), ("assistant", "assistantMessage")):
            assert (statuses[message] == "found") is (role in roles), (site, message)


def roles_table(results, entries) -> tuple[str, str]:
    """The site x role x saved pages table, as docs/extension.md (each page with the number of the
    selector that wins there) and docs/reliability.md (counts) show it."""
    sites = sorted({e[0] for e in entries})
    full = ["| site | role | saved pages matched (winning selector #) |", "|---|---|---|"]
    short = ["| site | role | pages matched |", "|---|---|---|"]
    for site in sites:
        own = [name for name in PAGES if site in SITES_OF_PAGE[name]]
        for role in ROLES:
            css = [e[2] for e in entries if e[:2] == (site, role)]
            if not css and role in ("idle", "replyBlock", "replyDone"):
                continue  # only the sites whose finished marker is an element added after the reply
            hits = []
            for name in own:
                counts = [results[name, site]["counts"][f"{role}|{c}"] for c in css]
                winner = next((i for i, n in enumerate(counts, 1) if n), None)
                if winner:
                    hits.append(f"{name} (#{winner})")
            full.append(f"| {site} | {role} | {', '.join(hits) or '-'} |")
            short.append(f"| {site} | {role} | {len(hits)} / {len(own)} |")
    return "\n".join(full), "\n".join(short)


@pytest.mark.parametrize("doc,which", [("docs/extension.md", 0), ("docs/reliability.md", 1)])
def test_the_site_role_pages_table_in_the_docs_is_current(results, entries, doc, which):
    path = harness.ROOT / doc
    text = path.read_text(encoding="utf-8")
    table = roles_table(results, entries)[which]
    block = f"{ROLES_TABLE[0]}\n{table}\n{ROLES_TABLE[1]}"
    pattern = re.compile(re.escape(ROLES_TABLE[0]) + r".*?" + re.escape(ROLES_TABLE[1]), re.S)
    if UPDATE_DOCS:
        path.write_text(pattern.sub(lambda _: block, text), encoding="utf-8")
        text = path.read_text(encoding="utf-8")
    assert block in text, f"{doc}: the roles table is out of date; rerun with WHITEBOARD_UPDATE_DOCS=1"


@pytest.mark.parametrize("name", ["obs__claude-hub_2026-10", "obs__claude-transcript_2026-09"])
def test_a_claude_reply_without_data_is_streaming_yet_counts_as_streaming(chromium, name):
    # Claude mounts a reply about 170 ms after a send with no data-is-streaming at all, and sets
    # it late (LAYOUT-2026-late §2.3): until then its first words must not be captured.
    page = chromium.new_page()
    page.route("**/*", lambda route: route.abort())
    page.set_content((harness.PAGES / f"{name}.html").read_text(encoding="utf-8"), wait_until="domcontentloaded")
    page.evaluate("() => { window.Whiteboard = {sites: {siteFor: () => null}}; }")
    for script in SCRIPTS:
        page.add_script_tag(content=(CHAT / script).read_text())
    streaming = page.evaluate("""() => {
        const selectors = Whiteboard.selectors.get('claude');
        const adapter = new Whiteboard.chat.ChatAdapter({site: 'claude', selectors});
        const before = adapter.isStreaming();
        [...document.querySelectorAll('[data-is-streaming]')].at(-1).removeAttribute('data-is-streaming');
        return [before, adapter.isStreaming()];
    }""")
    page.close()
    assert streaming == [False, True]


def test_a_hidden_home_composer_beside_the_threads_is_not_the_composer(chromium):
    # ChatGPT can keep a hidden home composer next to the thread's (LAYOUT-2026-late §1.2).
    page = chromium.new_page()
    page.route("**/*", lambda route: route.abort())
    page.set_content((harness.PAGES / "orc__chatgpt-completed_2026-09__idx.html").read_text(encoding="utf-8"),
                     wait_until="domcontentloaded")
    page.evaluate("() => { window.Whiteboard = {sites: {siteFor: () => null}}; }")
    for script in SCRIPTS:
        page.add_script_tag(content=(CHAT / script).read_text())
    picked = page.evaluate("""() => {
        const thread = document.querySelector('form[data-chatgpt-composer]');
        const home = thread.cloneNode(true);
        home.setAttribute('data-composer-placement', 'home');
        home.hidden = true;
        document.body.prepend(home);
        const selectors = Whiteboard.selectors.get('chatgpt');
        const adapter = new Whiteboard.chat.ChatAdapter({site: 'chatgpt', selectors});
        return adapter.findEditor().closest('form').getAttribute('data-composer-placement');
    }""")
    page.close()
    assert picked == "thread"


def test_a_messages_buttons_are_not_read_as_its_words(results):
    """A code block's "Copy" and "Download", a message's "Edit": the site's controls, on every
    saved page, are left out of the text captured (adapter-framework.js wordsOf)."""
    checked = 0
    for (name, site), result in results.items():
        for turn in result["turns"]:
            lines = [line.strip() for line in turn["text"].split("\n")]
            for label in turn["buttons"]:
                checked += 1
                assert "\n" in label or label not in lines, f"{site} on {name}: {label!r} read as a line"
    assert checked > 20  # the saved pages' code blocks and messages hold buttons
