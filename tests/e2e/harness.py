"""Real Chromium with the real extension and the real host, for the end-to-end tests.

The host is registered in the test profile's NativeMessagingHosts (the installer's
register_for_profile, launcher pointing at this Python). Chat pages are the saved real
pages in tests/e2e/pages, served at their real URLs with context.route, plus the small
in-page simulator from whiteboard/demo/simulator.js. Every other request is aborted.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import psutil

from support.waiting import wait_for
from whiteboard.config import EXTENSION_ID
from whiteboard.install import register_for_profile

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = ROOT / "extension"
PAGES = Path(__file__).resolve().parent / "pages"
SIMULATOR = ROOT / "host" / "whiteboard" / "demo" / "simulator.js"
CHROMIUM = os.environ.get("WHITEBOARD_CHROMIUM", "/usr/bin/chromium")


def _extension_sites() -> dict:
    """The extension's sites table (extension/shared/sites.js), read by node as the manifest sync reads it."""
    script = ("import {loadSites} from './tools/sync-manifest.mjs';"
              "process.stdout.write(JSON.stringify(loadSites().SITES));")
    out = subprocess.run(["node", "--input-type=module", "-e", script], cwd=ROOT, capture_output=True, text=True,
                         check=True, timeout=60)
    return json.loads(out.stdout)


@dataclass(frozen=True)
class ChatSite:
    """What the end-to-end tests need to know of a chat site: its table entry (label, hosts,
    startUrl) and the saved pages it is tested on. `page` has a composer and a conversation;
    `answer` finds a paragraph of a reply there; `editor` is where a test types (in every
    layout); `read` is how a test reads the composer ("value" for a textarea); `send` is the
    send button once text is typed; `turns` the messages shown. `more_pages` are other saved
    pages a user can send from. Where a site has an old and a new markup both live, this is
    the old one and MARKUPS holds both."""

    id: str
    label: str
    hosts: tuple[str, ...]
    start_url: str
    url: str  # a conversation's URL, {name} the saved page
    page: str
    answer: str
    editor: str
    send: str
    turns: str
    read: str = "text"
    form: str | None = None
    more_pages: tuple[str, ...] = ()
    share_paths: tuple[str, ...] = ()  # the table's sharePaths: shared and public conversations


# Every site, the one place the tests map a site to its URLs and saved pages.
_TESTED = {
    "chatgpt": dict(url="https://chatgpt.com/c/{name}", page="acb__chatgpt_2026-04-13",
                    more_pages=("gte__chatgpt_project_page_2025-12-23", "rse__chatgpt-dom-1question-ans-pair_2026-03",
                                "rse__chatgpt-dom_2025-06-30"),
                    answer="[data-message-author-role=assistant] .markdown p",
                    editor="#prompt-textarea, form[data-chatgpt-composer] [data-composer-markdown]",
                    form="form[data-type=unified-composer]", send="button[data-testid=send-button]",
                    turns="[data-message-author-role]"),
    "claude": dict(url="https://claude.ai/chat/{name}", page="acb__claude_2026-04-13",
                   more_pages=("obs__claude-transcript_2026-09",),
                   answer=".font-claude-response .standard-markdown p", editor="[data-testid=chat-input]",
                   send="button[aria-label='Send message']", turns="[data-testid=user-message], .font-claude-response"),
    "gemini": dict(url="https://gemini.google.com/app/{name}", page="acb__gemini_2026-04-13",
                   more_pages=("cv__gemini-chat_2026-05-21", "rse__gemini-dom_2025-06-30",
                               "rse__gemini-scrollback-loading-dom_2025-08"),
                   answer="model-response message-content .markdown p", editor="rich-textarea .ql-editor",
                   send="gem-icon-button.send-button button, button.send-button", turns="user-query, model-response"),
    "perplexity": dict(url="https://www.perplexity.ai/search/{name}", page="acb__perplexity_2026-04-13",
                       answer="#markdown-content-0 p", editor="#ask-input",
                       send="[data-ask-input-container] button:not([data-state])",
                       turns="h1[class~='group/query'], div[id^='markdown-content-']"),
    "grok": dict(url="https://grok.com/c/{name}", page="acb__grok_2026-04-13",
                 more_pages=("rse__grok-dom-5question-ans-pairs_2026-03", "wb__grok_2026-09-14_from-facts"),
                 answer="div[id^=response-].items-start .response-content-markdown p",
                 editor=".query-bar .ProseMirror[contenteditable=true]", form="form:has(.query-bar)",
                 send="form:has(.query-bar) button[type=submit]", turns="div[id^='response-'] .message-bubble"),
    "deepseek": dict(url="https://chat.deepseek.com/a/chat/s/{name}", page="cv__deepseek-chat_2026-05-21",
                     answer=".ds-assistant-message-main-content p", read="value",
                     editor="textarea[name=search], .ds-virtual-list--printable textarea:not([name])",
                     send="div:has(> div > textarea) > div .ds-icon-button[role=button]", turns=".ds-message"),
    "copilot": dict(url="https://copilot.microsoft.com/chats/{name}",
                    page="rse__copilot-dom-2question-ans-pairs_2026-03",
                    answer="[data-testid=highlighted-chats] [data-content=ai-message] p",  # not the faded backstage
                    editor="textarea#userInput", read="value",
                    send="button[data-testid=submit-button]",
                    turns="[data-content=user-message], [data-content=ai-message]"),
}
SITES = {sid: ChatSite(id=sid, label=entry["label"], hosts=tuple(entry["hosts"]), start_url=entry["startUrl"],
                       share_paths=tuple(entry["sharePaths"]), **_TESTED[sid])
         for sid, entry in _extension_sites().items()}
SITE_IDS = list(SITES)
SITE_URLS = {sid: site.url for sid, site in SITES.items()}
# A site's newer markup where an old and a new one are both live (during a rollout).
_NEW_MARKUP = {
    # The send button was never captured with a draft: the simulator's own (data-sim-send).
    "chatgpt": dict(page="orc__chatgpt-completed_2026-09__idx", answer="[data-chatgpt-selection-message-id] p",
                    form="form[data-chatgpt-composer]", send="button[data-sim-send]",
                    turns="[data-content-search-unit-key]"),
    "claude": dict(page="obs__claude-hub_2026-10", answer="[data-perf-reply-text] p",
                   send="button[data-testid=chat-input-send]", turns="[data-testid=transcript-row]"),
    # Both built from FIELD-2026-10.md's documented structure (tests/e2e/pages/README.md).
    "perplexity": dict(page="obs__perplexity_2026-09", answer=".prose[data-renderer=lm] p",
                       turns="[class~='group/user-bubble'], .prose[data-renderer=lm]"),
    "deepseek": dict(page="obs__deepseek_2026-10", send="div[role=button].ds-button--circle"),
}
# Per site, its markups: "old" and "new" where both are live, else one ("").
MARKUPS = {sid: ({"old": site, "new": replace(site, **_NEW_MARKUP[sid])} if sid in _NEW_MARKUP else {"": site})
           for sid, site in SITES.items()}
# Every (site, markup) pair: the behaviour set of tests/e2e/test_sites.py runs on each.
SITE_MARKUPS = [(sid, markup) for sid, markups in MARKUPS.items() for markup in markups]
# The sites with an old and a new markup, by markup (tests/e2e/test_site_markup.py).
SITE_PAGES = {sid: {m: s.page for m, s in markups.items()} for sid, markups in MARKUPS.items() if len(markups) > 1}
# Per site, every saved page a user can send from (each has a composer the adapter finds):
# a test that must hold on every supported site takes its pages from here.
SEND_PAGES = {sid: (*(s.page for s in MARKUPS[sid].values()), *site.more_pages) for sid, site in SITES.items()}
# A redesign no selector knows (written for the tests): served at every site's URL, where the
# structural fallbacks must keep sends working.
MISS_PAGE = "miss__redesigned-chat"


def site_of_host(hostname: str) -> str | None:
    return next((sid for sid, site in SITES.items() if hostname in site.hosts), None)


def site_of_page(name: str) -> str | None:
    """The site a saved page is from (its name says so: acb__gemini_..., rse__claude-...), or
    None for the page of every site (MISS_PAGE)."""
    return next((sid for sid in SITES if name.split("__", 1)[1].startswith(sid)), None)


def chromium_args(extension: Path = EXTENSION) -> list[str]:
    return [f"--disable-extensions-except={extension}", f"--load-extension={extension}", "--no-sandbox",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--no-first-run", "--no-default-browser-check"]


CHROMIUM_ARGS = chromium_args()


def chromium_path() -> str:
    """The Chromium binary; a missing one is an error, never a reason to skip."""
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        raise RuntimeError(f"Chromium not found at {CHROMIUM}: install it (apt-get install chromium) "
                           "or set WHITEBOARD_CHROMIUM; the end-to-end tests need it")
    return CHROMIUM


def prepare_profile(root: Path, register: bool = True) -> tuple[Path, dict[str, str]]:
    """A fresh profile with the host registered (unless `register` is false), and an
    environment that keeps every file the browser and host write inside `root`."""
    profile = root / "profile"
    home = root / "home"
    for d in (profile, home, root / "wb-config", root / "wb-data", root / "tmp"):
        d.mkdir(parents=True, exist_ok=True)
    host_env = {"WHITEBOARD_CONFIG_DIR": str(root / "wb-config"), "WHITEBOARD_DATA_DIR": str(root / "wb-data")}
    if register:
        register_for_profile(profile, EXTENSION_ID, env=host_env)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WHITEBOARD_", "XDG_"))}
    env.update(HOME=str(home), TMPDIR=str(root / "tmp"), XDG_CONFIG_HOME=str(home / ".config"),
               XDG_CACHE_HOME=str(home / ".cache"))
    return profile, env


def launch(playwright, root: Path, headless: bool = True, register: bool = True, extension: Path = EXTENSION):
    """Chromium with `extension` (the real one unless a test built a variant: test_new_site.py)."""
    profile, env = prepare_profile(root, register)
    context = playwright.chromium.launch_persistent_context(
        str(profile), executable_path=chromium_path(), headless=headless, args=chromium_args(extension), env=env,
        viewport={"width": 1280, "height": 860})
    install_routes(context)
    return context


def page_file(name: str) -> Path:
    """A saved page, or a written page of no composer (pages/no_composer: outside the selector
    tables' checks, tests/e2e/test_only_the_composer.py)."""
    saved = PAGES / f"{name}.html"
    return saved if saved.exists() else PAGES / "no_composer" / f"{name}.html"


def page_html(name: str, site: str, query: dict[str, list[str]]) -> str:
    html = page_file(name).read_text(encoding="utf-8")
    if query.get("sim", ["1"])[0] == "0":
        return html
    attrs = f'data-site="{site}"'
    for key, attr in (("reply", "data-reply"), ("replyMs", "data-reply-ms"), ("chunks", "data-chunks"),
                      ("finishMs", "data-finish-ms"), ("midStream", "data-mid-stream")):
        if key in query:
            attrs += f' {attr}="{query[key][0]}"'
    tag = f'<script src="/__whiteboard_sim.js" {attrs}></script>'
    at = html.lower().rfind("</body>")
    return html[:at] + tag + html[at:] if at >= 0 else html + tag


def served(url: str, is_document: bool) -> tuple[str, str] | None:
    """(body, content type) of what the tests serve at `url`, in either browser: the article,
    a saved page at its site's URL, the simulator; None for anything else (the request fails)."""
    parsed = urlparse(url)
    if parsed.hostname == "news.example":
        return ARTICLE, "text/html; charset=utf-8"
    site = site_of_host(parsed.hostname)
    if site is None:
        return None
    if parsed.path == "/__whiteboard_sim.js":
        return SIMULATOR.read_text(), "text/javascript"
    name = parsed.path.rstrip("/").rsplit("/", 1)[-1]
    if not is_document or not page_file(name).exists():
        return None
    return page_html(name, site, parse_qs(parsed.query)), "text/html; charset=utf-8"


def install_routes(context) -> None:
    """Saved pages at the real chat URLs; the simulator; anything else is aborted."""

    def serve(route, request):
        answer = served(request.url, request.resource_type == "document")
        if answer is None:
            route.abort()
        else:
            route.fulfill(body=answer[0], content_type=answer[1])

    context.route(lambda url: url.startswith(("http:", "https:", "ws:", "wss:")), lambda route: route.abort())
    context.route("https://news.example/**", serve)
    for site in SITES.values():
        for host in site.hosts:
            context.route(f"https://{host}/**", serve)


# An ordinary web page for selection capture, with text that looks like markup.
ARTICLE = """<!doctype html><html><head><title>Kyoto notes</title></head><body>
<h1>Kyoto notes</h1>
<p id="plain">Kyoto has about 1,600 Buddhist temples and 400 Shinto shrines.</p>
<p id="markup">&lt;img src=x onerror="window.__pwned=1"&gt;&lt;b&gt;bold&lt;/b&gt;</p>
<p id="other">The Philosopher's Path follows a canal lined with cherry trees.</p>
</body></html>"""


def site_hostname(site: str) -> str:
    return urlparse(SITE_URLS[site]).hostname


def set_long_term(context, site: str, on: bool) -> None:
    """What the popup and options do when memory is turned on or off for a site: the host's
    setting and the content scripts' mirror of it."""
    hostname = site_hostname(site)
    reply = host_request(context, {"type": "site.settings", "site": hostname, "long_term": on})
    assert reply["ok"], reply
    service_worker(context).evaluate("""async ([hostname, on]) => {
        const sites = (await chrome.storage.local.get('memorySites')).memorySites || {};
        if (on) sites[hostname] = true; else delete sites[hostname];
        await chrome.storage.local.set({memorySites: sites});
    }""", [hostname, on])


def chat_url(site: str, name: str, **query) -> str:
    url = SITE_URLS[site].format(name=name)
    return url + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def service_worker(context):
    workers = [w for w in context.service_workers if w.url.startswith(f"chrome-extension://{EXTENSION_ID}/")]
    return workers[0] if workers else context.wait_for_event("serviceworker", timeout=15000)


def host_request(context, message: dict, timeout_ms: int = 5000) -> dict:
    """A request through the extension's own API: globalThis.Whiteboard.worker.request in the worker."""
    return service_worker(context).evaluate(
        "([m, t]) => globalThis.Whiteboard.worker.request(m, {timeoutMs: t})", [message, timeout_ms])


def wait_connected(context, timeout: float = 15.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        status = service_worker(context).evaluate("() => globalThis.Whiteboard.worker.status()")
        if status["state"] == "connected":
            return status
        if time.monotonic() > deadline:
            raise AssertionError(f"the extension never connected to the host: {status}")
        time.sleep(0.1)


def tab_id(context, page) -> int:
    """The tab id of `page`: the extension has no "tabs" permission, so no URLs or titles;
    the page is brought to the front and the active tab asked for."""
    page.bring_to_front()
    tabs = service_worker(context).evaluate("() => chrome.tabs.query({active: true, lastFocusedWindow: true})")
    assert len(tabs) == 1, tabs
    return tabs[0]["id"]


def open_popup(context, tab: int):
    """The popup as the toolbar opens it for tab `tab`, once it has rendered."""
    popup = context.new_page()
    popup.goto(f"chrome-extension://{EXTENSION_ID}/popup/popup.html?tab={tab}")
    popup.wait_for_selector("body[data-ready=true]")
    return popup


def session_key(context, page) -> str:
    return f"{urlparse(page.url).hostname}:{tab_id(context, page)}"


def session_messages(context, key: str) -> list[dict]:
    reply = host_request(context, {"type": "session.get", "key": key})
    if not reply["ok"]:
        assert reply["error"]["code"] == "not_found", reply
        return []
    return reply["messages"]


def host_processes(root: Path) -> list[psutil.Process]:
    """The host processes started by this test's browser (found by their data dir)."""
    data_dir = str(root / "wb-data")
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        try:
            if "whiteboard.server.main" in " ".join(proc.info["cmdline"] or []) and \
                    proc.environ().get("WHITEBOARD_DATA_DIR") == data_dir:
                found.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return found


def the_host(root: Path) -> psutil.Process:
    procs = host_processes(root)
    assert len(procs) == 1, f"expected one host process, found {len(procs)}"
    return procs[0]


def kill_host(root: Path) -> int:
    proc = the_host(root)
    proc.send_signal(signal.SIGKILL)
    proc.wait(5)
    return proc.pid


def sim(page, expression: str = "window.__sim"):
    return page.evaluate(f"() => JSON.parse(JSON.stringify({expression}))")


def dump(obj) -> str:
    return json.dumps(obj, indent=1, ensure_ascii=False)


# --- Whiteboard's in-page UI lives in closed shadow roots: read them through CDP. ---

def _find(node: dict, predicate):
    if predicate(node):
        return node
    for child in [*node.get("children", []), *node.get("shadowRoots", [])]:
        found = _find(child, predicate)
        if found:
            return found
    return None


def _text(node: dict, parts: list[str]) -> None:
    if node.get("nodeType") == 3:
        parts.append(node.get("nodeValue", ""))
    if node.get("localName") == "style":
        return
    for child in [*node.get("children", []), *node.get("shadowRoots", [])]:
        _text(child, parts)


def shadow_ui(page, tag: str) -> dict | None:
    """{text, tags} of the closed shadow root of the first <tag> element, or None."""
    cdp = page.context.new_cdp_session(page)
    try:
        doc = cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})
        host = _find(doc["root"], lambda n: n.get("localName") == tag)
        if not host or not host.get("shadowRoots"):
            return None
        root = host["shadowRoots"][0]
        parts: list[str] = []
        _text(root, parts)
        tags: list[str] = []
        _find(root, lambda n: tags.append(n.get("localName", "")) and False)
        return {"text": " ".join(p.strip() for p in parts if p.strip()), "tags": [t for t in tags if t]}
    finally:
        cdp.detach()


def close_panel(page) -> None:
    """A real click on the session panel's close button (it sits bottom right, over some
    sites' send buttons in the unstyled saved pages). The panel lays itself out again as the
    session it shows fills (a fresh run once clicked where the button had just been), so the
    button is found again and clicked again while the panel stays open."""
    for attempt in range(3):
        if not ui_visible(page, "whiteboard-panel"):
            return
        page.mouse.click(*_close_button_centre(page))
        try:
            wait_for(lambda: not ui_visible(page, "whiteboard-panel"), timeout=4.0, what="the panel closed")
            return
        except AssertionError:
            if attempt == 2:
                raise


def _close_button_centre(page) -> tuple[float, float]:
    cdp = page.context.new_cdp_session(page)
    try:
        doc = cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})
        panel = _find(doc["root"], lambda n: n.get("localName") == "whiteboard-panel")

        def is_close(n):
            attrs = n.get("attributes", [])
            return n.get("localName") == "button" and "class" in attrs and attrs[attrs.index("class") + 1] == "close"

        button = _find(panel["shadowRoots"][0], is_close)
        box = cdp.send("DOM.getBoxModel", {"nodeId": button["nodeId"]})["model"]["content"]
    finally:
        cdp.detach()
    return (box[0] + box[4]) / 2, (box[1] + box[5]) / 2


def ui_visible(page, tag: str) -> bool:
    return page.evaluate("t => { const e = document.querySelector(t); return !!e && !e.hidden; }", tag)


def click_ui(page, tag: str) -> None:
    """A real mouse click in the middle of a Whiteboard UI element."""
    box = page.locator(tag).bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def select_text(page, selector: str) -> str:
    """Select an element's text with a real triple click (so mouseup fires)."""
    page.locator(selector).first.click(click_count=3)
    return page.evaluate("() => document.getSelection().toString().trim()")


def capture_selection(browser, page, selector: str, key: str) -> str:
    """Select text, click the Whiteboard button, wait until the host holds the selection."""
    text = select_text(page, selector)
    wait_for(lambda: ui_visible(page, "whiteboard-capture"), what="the capture button")

    def selections() -> int:
        return sum(1 for m in session_messages(browser.context, key) if m["source"] == "selection")

    before = selections()
    click_ui(page, "whiteboard-capture")
    wait_for(lambda: selections() > before, what="the selection in the session")
    return text


def editor_css(site: str) -> str:
    """The site's composer in its saved layouts, and a composer in a form on a page no selector knows."""
    return f"{SITES[site].editor}, form [contenteditable=true]"


def type_draft(page, site: str, text: str) -> None:
    editor = page.locator(SITES[site].editor)
    (editor if editor.count() else page.locator(editor_css(site))).first.click()
    page.keyboard.type(text)


def sent(page) -> list[dict]:
    """What the simulated site received, one entry a send."""
    return sim(page, "window.__sim.sent")


def send_typed(page, site: str, text: str) -> dict:
    """Type `text` into the site's composer, press Enter, and return what the site received."""
    before = len(sent(page))
    type_draft(page, site, text)
    page.keyboard.press("Enter")
    wait_for(lambda: len(sent(page)) == before + 1, what="the send")
    return sent(page)[-1]


def composer_text(page, site: str) -> str:
    """What the composer holds, as the user sees it."""
    editor = page.locator(SITES[site].editor)
    return editor.input_value() if SITES[site].read == "value" else editor.inner_text()


def open_chat(page, site: str, name: str, **query) -> None:
    page.goto(chat_url(site, name, **query))
    page.wait_for_function("() => window.__sim !== undefined")
