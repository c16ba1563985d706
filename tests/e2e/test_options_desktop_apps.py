"""Options → Desktop apps (MCP) and the memory page's line, in real Chromium with the real
extension and host, and a real `whiteboard mcp` process on the same config dir and vault
(docs/mcp.md): the switch is what the server obeys, and the app it served is named with
its last read."""

import json
import os

from e2e.harness import EXTENSION_ID
from support.mcp_lines import LineClient
from support.waiting import wait_for
from whiteboard.mcp.desk import OFF_TEXT

OPTIONS = f"chrome-extension://{EXTENSION_ID}/options/options.html"
MANAGER = f"chrome-extension://{EXTENSION_ID}/memory/manager.html"


def app_lists(browser, name: str) -> str:
    """An app named `name` starts the server and lists memories; the tool's text."""
    env = {**os.environ, "WHITEBOARD_CONFIG_DIR": str(browser.root / "wb-config"),
           "WHITEBOARD_DATA_DIR": str(browser.root / "wb-data")}
    client = LineClient(env)
    try:
        client.call(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                      "clientInfo": {"name": name, "version": "1"}})
        client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        text = client.tool(1, "list_memories", {})["result"]["content"][0]["text"]
        assert client.close()[0] == 0
        return text
    finally:
        if client.proc.poll() is None:
            client.proc.kill()


def test_the_switch_in_options_lets_an_app_read_and_the_memory_page_names_it(browser):
    assert browser.request({"type": "memory.add", "text": "Prefers short answers",
                            "memory_type": "preference"})["ok"]
    page = browser.context.new_page()
    page.goto(OPTIONS)
    switch = page.locator("#desktop-apps-on")
    wait_for(lambda: switch.is_enabled(), what="the switch read from the host")
    assert not switch.is_checked() and page.locator("#desktop-apps h2").inner_text() == "Desktop apps (MCP)"
    assert app_lists(browser, "Claude") == OFF_TEXT

    switch.check()
    wait_for(lambda: page.locator("#desktop-apps-status").inner_text() == "Saved: desktop apps (MCP) are on.",
             what="the switch turned on")
    assert json.loads((browser.root / "wb-config" / "mcp.json").read_text())["enabled"] is True
    assert "Prefers short answers" in app_lists(browser, "Claude")

    manager = browser.context.new_page()
    manager.goto(MANAGER)
    line = manager.locator("#desktop-apps")
    wait_for(lambda: "Claude (last read" in line.inner_text(), what="the memory page's line")
    assert line.inner_text().startswith("Desktop apps (MCP) can read your memories.")

    page.reload()
    wait_for(lambda: page.locator("#desktop-apps-on").is_enabled(), what="the switch read again")
    assert page.locator("#desktop-apps-on").is_checked()
    assert "Claude (last read" in page.locator("#desktop-apps-clients").inner_text()
    page.locator("#desktop-apps-on").uncheck()
    wait_for(lambda: page.locator("#desktop-apps-status").inner_text() == "Saved: desktop apps (MCP) are off.",
             what="the switch turned off")
    assert app_lists(browser, "Claude") == OFF_TEXT
    manager.reload()
    wait_for(lambda: "are off" in manager.locator("#desktop-apps").inner_text(), what="the line after off")
