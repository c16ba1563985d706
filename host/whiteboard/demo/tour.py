"""The headless demo: what a newcomer would do, done through DevTools with real input
events, then screenshots. Select a sentence in an answer, click "Ask Whiteboard", type
a question, press Enter, wait for the (simulated) reply; optionally the popup too.
"""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path

from ..config import EXTENSION_ID
from .cdp import CdpError, CdpPipe

SENTENCE = "[data-message-author-role=assistant] .markdown p"
QUESTION = "Can you say that in one sentence for a beginner?"


class Tour:
    def __init__(self, cdp: CdpPipe):
        self.cdp = cdp
        self.session = None

    def attach(self, url_prefix: str, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            targets = self.cdp.send("Target.getTargets")["targetInfos"]
            page = next((t for t in targets if t["type"] == "page" and t["url"].startswith(url_prefix)), None)
            if page:
                self.session = self.cdp.send("Target.attachToTarget", {"targetId": page["targetId"],
                                                                       "flatten": True})["sessionId"]
                self.page("Page.enable")
                self.page("Emulation.setDeviceMetricsOverride",
                          {"width": 1280, "height": 860, "deviceScaleFactor": 1, "mobile": False})
                return
            time.sleep(0.1)
        raise CdpError(f"no page at {url_prefix} within {timeout:.0f} s")

    def page(self, method: str, params: dict | None = None) -> dict:
        return self.cdp.send(method, params, session=self.session)

    def js(self, expression: str):
        result = self.page("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            why = details.get("exception", {}).get("description") or details.get("text")
            raise CdpError(f"page script failed: {why}")
        return result["result"].get("value")

    def until(self, expression: str, what: str, timeout: float = 15):
        """Poll until the expression is truthy. A page still loading (no body yet, a script not
        run yet) can make it throw: that counts as "not yet", as on a slow, busy machine."""
        deadline = time.monotonic() + timeout
        failure = None
        while time.monotonic() < deadline:
            try:
                value = self.js(expression)
            except CdpError as error:
                value, failure = None, error
            if value:
                return value
            time.sleep(0.1)
        raise CdpError(f"timed out waiting for {what}" + (f" (last: {failure})" if failure else ""))

    def shadow_text(self, tag: str) -> str:
        """The text in the closed shadow root of the first <tag> (DevTools sees through it)."""
        texts: list[str] = []

        def walk(node: dict, inside: bool) -> None:
            if inside and node.get("nodeType") == 3:
                texts.append(node.get("nodeValue", ""))
            for child in node.get("children", []):
                walk(child, inside)
            for root in node.get("shadowRoots", []):
                walk(root, inside or node.get("localName") == tag)

        walk(self.page("DOM.getDocument", {"depth": -1, "pierce": True})["root"], False)
        return "".join(texts)

    def until_shadow_text(self, tag: str, text: str, what: str, timeout: float = 15) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.shadow_text(tag):
                return
            time.sleep(0.1)
        raise CdpError(f"timed out waiting for {what}")

    def center(self, selector: str) -> tuple[float, float]:
        box = self.until(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null;"
                         " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
                         " return r.width ? [r.x + r.width / 2, r.y + r.height / 2] : null; })()", selector)
        return box[0], box[1]

    def click(self, x: float, y: float, count: int = 1) -> None:
        for n in range(1, count + 1):
            for kind in ("mousePressed", "mouseReleased"):
                self.page("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": n})

    def press_enter(self) -> None:
        for kind in ("keyDown", "keyUp"):
            self.page("Input.dispatchKeyEvent", {"type": kind, "key": "Enter", "code": "Enter",
                                                 "windowsVirtualKeyCode": 13,
                                                 "text": "\r" if kind == "keyDown" else ""})

    def screenshot(self, path: Path) -> None:
        data = self.page("Page.captureScreenshot", {"format": "png"})["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))

    def run(self, screenshot: Path) -> str:
        """The injected send; returns the text the site received."""
        self.until("window.__sim !== undefined && document.querySelector('#prompt-textarea') !== null", "the chat page")
        time.sleep(0.5)  # the extension's content scripts attach at document idle at the latest
        x, y = self.center(SENTENCE)
        self.click(x, y, count=3)
        self.until("(() => { const b = document.querySelector('whiteboard-capture'); return b && !b.hidden; })()",
                   "the Ask Whiteboard button")
        self.click(*self.center("whiteboard-capture"))
        # The panel opens at once ("Adding the selection..."); the send must wait for the host's answer.
        self.until_shadow_text("whiteboard-panel", "Selection added", "the selection added to the session")
        self.click(*self.center("#prompt-textarea"))
        self.page("Input.insertText", {"text": QUESTION})
        self.press_enter()
        self.until("window.__sim.replies.length > 0", "the reply", timeout=20)
        sent = self.js("window.__sim.sent[0].text")
        self.js("window.scrollTo(0, document.body.scrollHeight)")
        time.sleep(0.3)
        self.screenshot(screenshot)
        return sent

    def popup(self, screenshot: Path) -> None:
        """The popup for the demo tab, opened as a page of its own."""
        worker = next(t for t in self.cdp.send("Target.getTargets")["targetInfos"]
                      if t["type"] == "service_worker" and EXTENSION_ID in t["url"])
        sw = self.cdp.send("Target.attachToTarget", {"targetId": worker["targetId"], "flatten": True})["sessionId"]
        tabs = self.cdp.send("Runtime.evaluate", {"expression": "chrome.tabs.query({})", "awaitPromise": True,
                                                  "returnByValue": True}, session=sw)["result"]["value"]
        tab = tabs[0]["id"]
        url = f"chrome-extension://{EXTENSION_ID}/popup/popup.html?tab={tab}"
        self.cdp.send("Target.createTarget", {"url": url})
        self.attach(url)
        self.page("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 600, "deviceScaleFactor": 2,
                                                         "mobile": False})
        self.until("document.body.dataset.ready === 'true'", "the popup")
        time.sleep(0.3)
        self.screenshot(screenshot)
