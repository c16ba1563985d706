"""E2E helpers for the model features: Chromium whose host is pointed at the loopback
OpenAI-compatible test server (WHITEBOARD_LLM_* in the launcher's environment), and
reading/clicking parts of Whiteboard's closed-shadow-root panel through CDP."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Error as PlaywrightError

from e2e import harness
from whiteboard.config import EXTENSION_ID
from whiteboard.install import register_for_profile


class ModelBrowser:
    """Like conftest's Browser, but the host gets `llm_env` (e.g. the fake server's URL)."""

    def __init__(self, playwright, root: Path, llm_env: dict[str, str]):
        self.root = root
        profile, env = harness.prepare_profile(root)
        host_env = {"WHITEBOARD_CONFIG_DIR": str(root / "wb-config"), "WHITEBOARD_DATA_DIR": str(root / "wb-data"),
                    **llm_env}
        register_for_profile(profile, EXTENSION_ID, env=host_env)  # rewrites the launcher with llm_env
        self.context = playwright.chromium.launch_persistent_context(
            str(profile), executable_path=harness.chromium_path(), headless=True, args=harness.CHROMIUM_ARGS,
            env=env, viewport={"width": 1280, "height": 860})
        harness.install_routes(self.context)
        harness.wait_connected(self.context)

    def request(self, message: dict, timeout_ms: int = 5000) -> dict:
        return harness.host_request(self.context, message, timeout_ms)

    def close(self):
        self.context.close()


def fake_llm_env(fake) -> dict[str, str]:
    return {"WHITEBOARD_LLM_BASE_URL": fake.base_url, "WHITEBOARD_LLM_MODEL": "fake-model",
            "WHITEBOARD_LLM_API_KEY": "sk-e2e-test-key"}


def _has_class(node: dict, cls: str) -> bool:
    attrs = node.get("attributes") or []
    values = dict(zip(attrs[::2], attrs[1::2]))
    return cls in values.get("class", "").split()


def _panel_root(cdp) -> dict | None:
    doc = cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})
    host = harness._find(doc["root"], lambda n: n.get("localName") == "whiteboard-panel")
    return host["shadowRoots"][0] if host and host.get("shadowRoots") else None


def panel_texts(page, cls: str) -> list[str]:
    """The text of every element with class `cls` in the panel, in order."""
    cdp = page.context.new_cdp_session(page)
    try:
        root = _panel_root(cdp)
        found: list[dict] = []
        if root:
            harness._find(root, lambda n: _has_class(n, cls) and found.append(n) and False)
        texts = []
        for node in found:
            parts: list[str] = []
            harness._text(node, parts)
            texts.append("".join(parts))
        return texts
    finally:
        cdp.detach()


def panel_text(page, cls: str) -> str:
    texts = panel_texts(page, cls)
    return texts[-1] if texts else ""


def panel_part_visible(page, cls: str) -> bool:
    """Whether the element with class `cls` is rendered (has a box)."""
    cdp = page.context.new_cdp_session(page)
    try:
        root = _panel_root(cdp)
        node = root and harness._find(root, lambda n: _has_class(n, cls))
        if not node:
            return False
        try:
            cdp.send("DOM.getBoxModel", {"nodeId": node["nodeId"]})
            return True
        except PlaywrightError:  # CDP answers an error for an element without a box (hidden)
            return False
    finally:
        cdp.detach()


def click_panel(page, cls: str) -> None:
    """A real mouse click in the middle of the panel element with class `cls`."""
    cdp = page.context.new_cdp_session(page)
    try:
        node = harness._find(_panel_root(cdp), lambda n: _has_class(n, cls))
        assert node, f"no .{cls} in the panel"
        quad = cdp.send("DOM.getBoxModel", {"nodeId": node["nodeId"]})["model"]["content"]
    finally:
        cdp.detach()
    xs, ys = quad[0::2], quad[1::2]
    page.mouse.click(sum(xs) / 4, sum(ys) / 4)


def ask(page, question: str) -> None:
    """Type a question into the panel's box (focused when the panel opened) and press Enter."""
    click_panel(page, "question-input")
    page.keyboard.type(question)
    page.keyboard.press("Enter")
