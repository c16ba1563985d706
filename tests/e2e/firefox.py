"""Real Firefox ESR with the real extension and the real host, for the end-to-end tests.

Debian's firefox-esr, driven over WebDriver BiDi (support/bidi.py; no geckodriver, nothing
downloaded). Firefox runs with HOME set to a throwaway dir, and the host is registered there
by the real installer (`whiteboard install --browser firefox` writes the same files), so
`~/.mozilla/native-messaging-hosts` is inside the test's root. The extension is installed as
a temporary add-on (`webExtension.install`). The saved chat pages are served at their real
URLs by intercepting every request (`network.addIntercept` + `network.provideResponse`, as
the Chromium harness does with context.route, from the same harness.served): nothing reaches the network.

Extension pages (popup, options) are opened from the browser's own chrome scope
(`--remote-allow-system-access`): BiDi refuses to navigate a tab to a moz-extension:// URL.
Their address is fixed by the profile's `extensions.webextensions.uuids` preference.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path
from urllib.parse import urlparse

from e2e.harness import EXTENSION, SITES, chat_url, served, wait_for
from support.bidi import Bidi, BidiError
from whiteboard.config import FIREFOX_ADDON_ID
from whiteboard.install import BROWSERS, Platform, Target, install

FIREFOX = os.environ.get("WHITEBOARD_FIREFOX", "/usr/bin/firefox-esr")
EXTENSION_UUID = "4f0a6d2e-3c1b-4d5e-8f90-a1b2c3d4e5f6"
EXTENSION_BASE = f"moz-extension://{EXTENSION_UUID}/"
# Quiet, offline, no first-run pages; the extension's internal address fixed.
PREFS = {
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "browser.aboutwelcome.enabled": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "app.update.enabled": False,
    "app.normandy.enabled": False,
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "extensions.getAddons.cache.enabled": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "extensions.webextensions.uuids": json.dumps({FIREFOX_ADDON_ID: EXTENSION_UUID}),
}
KEYS = {"Enter": "\ue007", "Backspace": "\ue003", "Escape": "\ue00c", "Shift": "\ue008", "Control": "\ue009"}


def firefox_path() -> str:
    """The Firefox binary; a missing one is an error, never a reason to skip."""
    if not (os.path.isfile(FIREFOX) and os.access(FIREFOX, os.X_OK)):
        raise RuntimeError(f"Firefox not found at {FIREFOX}: install it (apt-get install firefox-esr) "
                           "or set WHITEBOARD_FIREFOX; the Firefox end-to-end tests need it")
    return FIREFOX


def register_host(root: Path, home: Path) -> Path:
    """What `whiteboard install --browser firefox` writes, for a user whose home is `home`."""
    target = Target(Platform(os="linux", home=home, data_dir=root / "wb-launcher", env={}))
    install(target, ["firefox"], [FIREFOX_ADDON_ID])
    return target.manifest_path(BROWSERS["firefox"])


class Firefox:
    """One Firefox with the extension, in `root`; tabs are BiDi browsing context ids. `host_env`
    reaches the host through Firefox's environment (e.g. the fake model endpoint). `extension`
    is a folder (a temporary add-on) or a zip; `permanent` installs it for good, unsigned."""

    def __init__(self, root: Path, register: bool = True, extension: Path = EXTENSION,
                 host_env: dict[str, str] | None = None, permanent: bool = False):
        self.root = root
        profile, home = root / "profile", root / "home"
        for d in (profile, home, root / "wb-config", root / "wb-data", root / "tmp"):
            d.mkdir(parents=True, exist_ok=True)
        if register:
            self.host_manifest = register_host(root, home)
        self.downloads = root / "downloads"
        # Downloads (the popup's export) land in root without asking.
        prefs = {**PREFS, "browser.download.dir": str(self.downloads), "browser.download.folderList": 2,
                 "browser.download.useDownloadDir": True, "browser.download.alwaysOpenPanel": False,
                 "browser.download.always_ask_before_handling_new_types": False,
                 # A permanent install of the unsigned zip, as ESR allows a user to with this off.
                 "xpinstall.signatures.required": not permanent}
        (profile / "user.js").write_text("".join(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n"
                                                 for k, v in prefs.items()))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("WHITEBOARD_", "XDG_", "MOZ_"))}
        # The host inherits Firefox's environment: its vault and settings stay in root.
        env.update(HOME=str(home), TMPDIR=str(root / "tmp"), WHITEBOARD_CONFIG_DIR=str(root / "wb-config"),
                   WHITEBOARD_DATA_DIR=str(root / "wb-data"), MOZ_HEADLESS="1", **(host_env or {}))
        self.log: list[str] = []
        # Exact URLs a test serves besides the saved pages (url -> (body, content type)).
        self.served: dict[str, tuple[str, str]] = {}
        self.proc = subprocess.Popen(
            [firefox_path(), "--headless", "--no-remote", "--profile", str(profile), "--remote-debugging-port=0",
             "--remote-allow-system-access", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, start_new_session=True)
        try:
            self.bidi = Bidi(self._listening_on() + "/session")
            self.bidi.send("session.new", {"capabilities": {"alwaysMatch": {"acceptInsecureCerts": True}}})
            self.bidi.on("network.beforeRequestSent", self._serve)
            self.bidi.send("session.subscribe", {"events": ["network.beforeRequestSent"]})
            self.bidi.send("network.addIntercept", {"phases": ["beforeRequestSent"]})
            # A folder is what "Load Temporary Add-on" takes; a file is the zip a user installs.
            kind = "archivePath" if extension.is_file() else "path"
            self.bidi.send("webExtension.install", {"extensionData": {"type": kind, "path": str(extension)},
                                                    **({"moz:permanent": True} if permanent else {})})
            self.probe = self.open_extension_page("options/options.html")
        except BaseException:
            self.close()
            raise

    def _listening_on(self, timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        for raw in self.proc.stderr:
            line = raw.decode(errors="replace")
            self.log.append(line)
            found = re.search(r"WebDriver BiDi listening on (ws://\S+)", line)
            if found:
                threading.Thread(target=self._drain, daemon=True).start()
                return found.group(1)
            if time.monotonic() > deadline:
                break
        raise RuntimeError("Firefox did not start its remote agent: " + "".join(self.log[-20:]))

    def _drain(self) -> None:
        for raw in self.proc.stderr:
            self.log.append(raw.decode(errors="replace"))
            del self.log[:-400]

    def _serve(self, params: dict) -> None:
        if not params.get("isBlocked"):
            return
        request = params["request"]
        answer = self.served.get(request["url"]) or served(request["url"], params.get("navigation") is not None)
        try:
            if answer is None:
                self.bidi.send("network.failRequest", {"request": request["request"]})
                return
            body, content_type = answer
            self.bidi.send("network.provideResponse", {
                "request": request["request"], "statusCode": 200, "reasonPhrase": "OK",
                "headers": [{"name": "content-type", "value": {"type": "string", "value": content_type}}],
                "body": {"type": "string", "value": body}})
        except BidiError:
            pass  # the tab went away meanwhile

    # --- tabs ---

    def new_tab(self) -> str:
        return self.bidi.send("browsingContext.create", {"type": "tab"})["context"]

    def goto(self, tab: str, url: str) -> None:
        self.bidi.send("browsingContext.navigate", {"context": tab, "url": url, "wait": "complete"}, timeout=60)

    def close_tab(self, tab: str) -> None:
        try:
            self.bidi.send("browsingContext.close", {"context": tab})
        except BidiError:
            pass

    def tabs(self) -> list[dict]:
        return self.bidi.send("browsingContext.getTree", {"maxDepth": 0})["contexts"]

    def open_extension_page(self, path: str) -> str:
        """A tab showing the extension's page at `path` (with any query), opened by the browser
        itself: BiDi may not navigate a tab to moz-extension://."""
        url = EXTENSION_BASE + path
        [window] = self.bidi.send("browsingContext.getTree", {"moz:scope": "chrome"})["contexts"][:1]
        before = {t["context"] for t in self.tabs()}
        self.bidi.send("script.evaluate", {
            "expression": f"gBrowser.addTab({json.dumps(url)}, "
                          "{triggeringPrincipal: Services.scriptSecurityManager.getSystemPrincipal()}); 0",
            "target": {"context": window["context"]}, "awaitPromise": False})
        tab = wait_for(lambda: next((t["context"] for t in self.tabs()
                                     if t["context"] not in before and t["url"] == url), None),
                       timeout=15, what=f"the extension page {path}")
        wait_for(lambda: self.evaluate(tab, "() => document.readyState") == "complete", timeout=15,
                 what=f"{path} loaded")
        return tab

    def activate(self, tab: str) -> None:
        self.bidi.send("browsingContext.activate", {"context": tab})

    # --- script ---

    def evaluate(self, tab: str, function: str, *args):
        """`function(...args)` in the tab's page, awaited; its result through JSON."""
        expression = f"(async () => JSON.stringify(await ({function})(...{json.dumps(list(args))})))()"
        reply = self.bidi.send("script.evaluate", {"expression": expression, "target": {"context": tab},
                                                   "awaitPromise": True}, timeout=60)
        if reply["type"] == "exception":
            raise AssertionError(f"in the page: {reply['exceptionDetails'].get('text')}")
        value = reply["result"].get("value")
        return None if value is None else json.loads(value)

    def background(self, function: str, *args):
        """`function(...args)` with the background page's globals as `bg` (its Whiteboard.worker)."""
        return self.evaluate(self.probe, f"async (...a) => {{ const bg = await browser.runtime.getBackgroundPage(); "
                                         f"return ({function})(bg, ...a); }}", *args)

    # --- input: real, trusted events from the browser ---

    def _actions(self, tab: str, sources: list[dict]) -> None:
        self.bidi.send("input.performActions", {"context": tab, "actions": sources})

    def type_text(self, tab: str, text: str) -> None:
        keys = []
        for ch in text:
            keys += [{"type": "keyDown", "value": ch}, {"type": "keyUp", "value": ch}]
        self._actions(tab, [{"type": "key", "id": "keyboard", "actions": keys}])

    def press(self, tab: str, key: str) -> None:
        value = KEYS.get(key, key)
        self._actions(tab, [{"type": "key", "id": "keyboard",
                             "actions": [{"type": "keyDown", "value": value}, {"type": "keyUp", "value": value}]}])

    def center_of(self, tab: str, selector: str) -> tuple[int, int]:
        # Scrolled at once (a page's smooth scroll-behavior would go on moving it), and two
        # frames later: the scroll event has fired by then, so it cannot hide what the click
        # then shows (the capture button hides on scroll), nor move what it aims at.
        box = self.evaluate(tab, """async (s) => { const e = document.querySelector(s);
            if (!e) return null; e.scrollIntoView({block: 'center', behavior: 'instant'});
            await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
            const r = e.getBoundingClientRect();
            return [Math.round(r.x + r.width / 2), Math.round(r.y + r.height / 2)]; }""", selector)
        assert box, f"no element {selector}"
        return box[0], box[1]

    def click(self, tab: str, selector: str, count: int = 1) -> None:
        x, y = self.center_of(tab, selector)
        clicks = [{"type": "pointerMove", "x": x, "y": y}]
        for _ in range(count):
            clicks += [{"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]
        self._actions(tab, [{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
                             "actions": clicks}])

    def set_files(self, tab: str, selector: str, paths: list[Path]) -> None:
        """What a user picking files in the chooser of the <input type=file> at `selector` does."""
        node = self.bidi.send("script.evaluate", {"expression": f"document.querySelector({json.dumps(selector)})",
                                                  "target": {"context": tab}, "awaitPromise": False,
                                                  "resultOwnership": "root"})["result"]
        assert node.get("type") == "node", f"no element {selector}"
        self.bidi.send("input.setFiles", {"context": tab, "element": {"sharedId": node["sharedId"]},
                                          "files": [str(p) for p in paths]})

    def close(self) -> None:
        bidi = getattr(self, "bidi", None)
        if bidi is not None:
            try:
                bidi.send("session.end", {}, timeout=5)
                bidi.close()
            except Exception:  # noqa: BLE001 - closing whatever state it is in
                pass
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)
                self.proc.wait(5)
        shutil.rmtree(self.root / "profile", ignore_errors=True)


# --- what the tests ask, in the Chromium harness's words ---

def wait_connected(ff: Firefox, timeout: float = 20.0) -> dict:
    def status():
        s = ff.background("(bg) => bg.Whiteboard.worker.status()")
        return s if s["state"] == "connected" else None
    return wait_for(status, timeout=timeout, interval=0.2, what="the extension connected to the host")


def host_request(ff: Firefox, message: dict, timeout_ms: int = 5000) -> dict:
    return ff.background("(bg, m, t) => bg.Whiteboard.worker.request(m, {timeoutMs: t})", message, timeout_ms)


def tab_id(ff: Firefox, tab: str) -> int:
    """The extension's id of `tab`: it is made the active tab and the worker asked for that."""
    ff.activate(tab)
    tabs = ff.background("(bg) => bg.chrome.tabs.query({active: true})")
    assert len(tabs) == 1, tabs
    return tabs[0]["id"]


def session_key(ff: Firefox, tab: str) -> str:
    url = ff.evaluate(tab, "() => location.href")
    return f"{urlparse(url).hostname}:{tab_id(ff, tab)}"


def session_messages(ff: Firefox, key: str) -> list[dict]:
    reply = host_request(ff, {"type": "session.get", "key": key})
    if not reply["ok"]:
        assert reply["error"]["code"] == "not_found", reply
        return []
    return reply["messages"]


def sent(ff: Firefox, tab: str) -> list[dict]:
    return ff.evaluate(tab, "() => window.__sim.sent")


def open_chat(ff: Firefox, tab: str, site: str, name: str, **query) -> None:
    ff.goto(tab, chat_url(site, name, **query))
    wait_for(lambda: ff.evaluate(tab, "() => window.__sim !== undefined"), timeout=15, what="the page simulator")


def type_draft(ff: Firefox, tab: str, site: str, text: str) -> None:
    ff.click(tab, SITES[site].editor)
    ff.type_text(tab, text)


def ui_visible(ff: Firefox, tab: str, tag: str) -> bool:
    return ff.evaluate(tab, "(t) => { const e = document.querySelector(t); return !!e && !e.hidden; }", tag)
