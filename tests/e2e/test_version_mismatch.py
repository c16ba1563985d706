"""A host older or newer than the extension (another protocol version in its ping): the
popup says which side to update and with what command, a send still goes through with
what the host added, and Retry after the update connects to the new host."""

import json
import shlex
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import pytest

from e2e import harness
from e2e.harness import EXTENSION_ID, capture_selection, open_chat, open_popup, session_key, sim, tab_id, type_draft
from support.waiting import wait_for
from whiteboard import version
from whiteboard.install.manifest import build_manifest, origin_for, write_manifest
from whiteboard.protocol import PROTOCOL_VERSION

PROXY = Path(__file__).resolve().with_name("protocol_proxy.py")
PAGE = "acb__chatgpt_2026-04-13"
ANSWER = "[data-message-author-role=assistant] .markdown p"


def register_proxy(root: Path, report: Path) -> None:
    """The test profile's host is protocol_proxy.py in front of the real host."""
    launcher = root / "proxy-host"
    env = {"WHITEBOARD_CONFIG_DIR": root / "wb-config", "WHITEBOARD_DATA_DIR": root / "wb-data"}
    exports = "".join(f"export {k}={shlex.quote(str(v))}\n" for k, v in env.items())
    launcher.write_text(f"#!/bin/sh\n{exports}exec {shlex.quote(sys.executable)} -P {shlex.quote(str(PROXY))} "
                        f"{shlex.quote(str(report))} \"$@\"\n")
    launcher.chmod(0o755)
    manifest = root / "profile" / "NativeMessagingHosts" / "com.whiteboard.host.json"
    write_manifest(manifest, build_manifest(launcher, [origin_for(EXTENSION_ID)]))


@pytest.fixture(scope="module")
def mismatched(playwright):
    """A browser whose host reports what `report` says (written before each host starts)."""
    with tempfile.TemporaryDirectory(prefix="wb-e2e-") as tmp:
        root = Path(tmp)
        report = root / "report.json"
        report.write_text(json.dumps({"protocol": PROTOCOL_VERSION + 1, "version": "9.0.0"}))
        (root / "profile").mkdir()
        register_proxy(root, report)
        context = harness.launch(playwright, root, register=False)
        try:
            yield context, report
        finally:
            context.close()


def test_the_popup_names_the_older_side_and_a_send_still_goes_through(mismatched):
    context, report = mismatched
    status = harness.wait_connected(context)
    assert status["mismatch"] == "host_newer"
    assert status["host"] == {"version": "9.0.0", "protocol": PROTOCOL_VERSION + 1}

    page = context.new_page()
    open_chat(page, "chatgpt", PAGE, reply="none")
    key = session_key(context, page)
    selected = capture_selection(SimpleNamespace(context=context), page, ANSWER, key)
    type_draft(page, "chatgpt", "Explain this in one sentence")
    page.keyboard.press("Enter")
    wait_for(lambda: len(sim(page, "window.__sim.sent")) == 1, what="the send")
    [sent] = sim(page, "window.__sim.sent")
    assert sent["text"].startswith("Explain this in one sentence") and selected[:60] in sent["text"]

    popup = open_popup(context, tab_id(context, page))
    assert popup.locator("#connection-text").inner_text() == \
        f"This extension ({version()}) is older than Whiteboard's helper 9.0.0"
    assert "whiteboard extension path" in popup.locator("#next-step").inner_text()
    assert popup.locator("#connection").get_attribute("data-state") == "mismatch"

    # The helper is replaced by an older one; Retry starts it.
    report.write_text(json.dumps({"protocol": PROTOCOL_VERSION - 1, "version": "0.0.1"}))
    popup.locator("#retry").click()
    wait_for(lambda: "older than this extension" in popup.locator("#connection-text").inner_text(), timeout=15,
             what="the popup naming the helper older")
    assert popup.locator("#connection-text").inner_text() == \
        f"Whiteboard's helper 0.0.1 is older than this extension ({version()})"
    assert "pipx upgrade whiteboard && whiteboard install" in popup.locator("#next-step").inner_text()

    # Updated to a matching helper: Retry, and the popup is plain again.
    report.write_text(json.dumps({"protocol": PROTOCOL_VERSION, "version": version()}))
    popup.locator("#retry").click()
    wait_for(lambda: popup.locator("#connection-text").inner_text().startswith("Connected to the Whiteboard host"),
             timeout=15, what="the popup connected without a mismatch")
    assert popup.locator("#next-step").is_hidden() and popup.locator("#retry").is_hidden()
    popup.close()
    page.close()
