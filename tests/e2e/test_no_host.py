"""No host installed: every send goes through unchanged and the popup says what to do."""

import tempfile
from pathlib import Path

import pytest

from e2e import harness
from e2e.harness import EXTENSION_ID, open_chat, service_worker, sim, type_draft
from support.waiting import wait_for


@pytest.fixture(scope="module")
def context(playwright):
    with tempfile.TemporaryDirectory(prefix="wb-e2e-nohost-") as tmp:
        ctx = harness.launch(playwright, Path(tmp), register=False)
        try:
            yield ctx
        finally:
            ctx.close()


def test_sends_go_through_unchanged_without_a_host(context):
    page = context.new_page()
    open_chat(page, "claude", "acb__claude_2026-04-13", reply="none")
    for n, text in enumerate(["First without a host", "Second without a host"], start=1):
        type_draft(page, "claude", text)
        page.keyboard.press("Enter")
        wait_for(lambda n=n: len(sim(page, "window.__sim.sent")) == n, timeout=2, what="the send")
        assert sim(page, "window.__sim.sent")[-1]["text"] == text
    status = service_worker(context).evaluate("() => globalThis.Whiteboard.worker.status()")
    assert status["state"] != "connected" and "not found" in status["lastError"].lower()
    page.close()


def test_popup_tells_the_user_to_run_whiteboard_install(context):
    popup = context.new_page()
    popup.goto(f"chrome-extension://{EXTENSION_ID}/popup/popup.html")
    popup.wait_for_selector("body[data-ready=true]")
    wait_for(lambda: "not found" in popup.locator("#connection-text").inner_text(), what="the missing-host state")
    step = popup.locator("#next-step")
    assert step.is_visible() and "whiteboard install" in step.inner_text()
    assert popup.locator("#retry").is_visible()
    popup.close()
