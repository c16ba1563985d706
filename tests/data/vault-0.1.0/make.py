"""How this fixture was made: a vault and config written by the released Whiteboard 0.1.0.

It runs against a checkout of 0.1.0 (commit 5d75651), NOT against this tree:

    git worktree add /tmp/wb010 5d75651
    PYTHONPATH=/tmp/wb010/host .venv/bin/python tests/data/vault-0.1.0/make.py
    git worktree remove /tmp/wb010

It starts that release's host (`python -m whiteboard.server.main`) over real pipes with the
config and data dirs in a temp dir, talks to it as the extension does, then records usage with
0.1.0's own Vault (usage is counted by a send, which needs a browser). It copies what 0.1.0
wrote into config/ and data/ here, and what 0.1.0 answered about it into expected.json: the
upgrade test (tests/unit/test_vault_upgrade.py) checks the current release reads the same.
Everything in it is fake test data; the API key is a made-up string.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from whiteboard import __version__
from whiteboard.config import EXTENSION_ID
from whiteboard.memory.vault import Vault

HERE = Path(__file__).resolve().parent
FAKE_API_KEY = "sk-fake-0-1-0-fixture-not-a-real-key"
SITE_ON, SITE_ALSO_ON, SITE_OFF = "chatgpt.com", "claude.ai", "gemini.google.com"


class Host:
    def __init__(self, env: dict[str, str]):
        self.proc = subprocess.Popen([sys.executable, "-m", "whiteboard.server.main",
                                      f"chrome-extension://{EXTENSION_ID}/"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.next_id = 0

    def request(self, type_: str, **fields) -> dict:
        self.next_id += 1
        body = json.dumps({"id": self.next_id, "type": type_, **fields}).encode()
        self.proc.stdin.write(struct.pack("<I", len(body)) + body)
        self.proc.stdin.flush()
        while True:
            (n,) = struct.unpack("<I", self.proc.stdout.read(4))
            reply = json.loads(self.proc.stdout.read(n))
            if reply.get("id") == self.next_id:
                assert reply["ok"], reply
                return reply

    def close(self) -> None:
        self.proc.stdin.close()
        assert self.proc.wait(30) == 0


def main() -> None:
    assert __version__ == "0.1.0", f"run this against the 0.1.0 checkout, not {__version__}"
    root = Path(tempfile.mkdtemp(prefix="wb010-"))
    config, data = root / "config", root / "data"
    env = {k: v for k, v in os.environ.items() if not k.startswith("WHITEBOARD_")}
    env.update(WHITEBOARD_CONFIG_DIR=str(config), WHITEBOARD_DATA_DIR=str(data), HOME=str(root),
               TMPDIR=str(root))
    host = Host(env)
    for site in (SITE_ON, SITE_ALSO_ON):
        host.request("site.settings", site=site, long_term=True)
    host.request("site.settings", site=SITE_OFF, long_term=True)
    host.request("site.settings", site=SITE_OFF, paused=True)

    added = {}
    for text, type_, site, tags in [
        ("Prefers TypeScript over JavaScript", "preference", SITE_ON, ["coding"]),
        ("Answer in British English", "preference", None, []),
        ("Knows Rust and Go well", "skill", SITE_ALSO_ON, ["languages"]),
        ("Writes SQL every day", "skill", None, []),
        ("Is training for a marathon in April", "objective", SITE_ON, []),
        ("Wants to ship the beta by Friday", "objective", SITE_ALSO_ON, ["work"]),
        ("Lives in Lisbon with two cats", "context", None, ["home"]),
        ("Works at a small bakery supplier", "context", SITE_ON, []),
    ]:
        added[text] = host.request("memory.add", text=text, memory_type=type_, tags=tags,
                                   **({"site": site} if site else {}))["memory_id"]
    host.request("memory.update", memory_id=added["Answer in British English"], pinned=True)
    host.request("memory.update", memory_id=added["Knows Rust and Go well"], text="Knows Rust, Go and Zig well")

    # Every extracted fact waits for the user (suggest_below 1), so extraction makes suggestions.
    host.request("memory.settings", suggest_below=1.0)
    key = f"{SITE_ON}:7"
    for turn in ("I prefer tabs over spaces in every project.", "My daughter is called Ana.",
                 "I am learning Japanese this year."):
        host.request("session.add", key=key, role="user", content=turn)
    host.request("memory.extract", key=key, manual=True)
    waiting = host.request("memory.suggestions")["suggestions"]
    assert len(waiting) >= 2, waiting
    host.request("memory.discard", suggestion_id=waiting[0]["suggestion_id"])
    host.request("memory.settings", pinned_tokens=300, suggest_below=0.8)
    host.request("llm.settings.set", preset="openai", model="gpt-4o-mini", api_key=FAKE_API_KEY,
                 read_timeout=45.0)

    deadline = time.monotonic() + 120
    while host.request("memory.status")["meanings"]["state"] not in ("ready", "off"):
        assert time.monotonic() < deadline, "the meaning index did not finish"
        time.sleep(0.5)
    # Added after indexing and closed at once: most likely without a stored vector.
    added["Drinks oat milk"] = host.request("memory.add", text="Drinks oat milk", memory_type="preference")["memory_id"]
    host.close()

    vault = Vault.open(data / "memories.db", config / "secret.key")
    vault.record_usage([added["Prefers TypeScript over JavaScript"], added["Lives in Lisbon with two cats"]],
                       1_763_900_000.0)
    vault.record_usage([added["Prefers TypeScript over JavaScript"]], 1_763_900_100.0)
    vault.close()

    # What 0.1.0 says is in it, from a fresh host.
    host = Host(env)
    listed = host.request("memory.list", limit=200)["memories"]
    expected = {
        "version": __version__,
        "memories": [host.request("memory.get", memory_id=m["memory_id"])["memory"] for m in listed],
        "suggestions": host.request("memory.suggestions")["suggestions"],
        "memory_settings": {k: v for k, v in host.request("memory.settings").items() if k not in ("id", "ok")},
        "sites": {site: {k: v for k, v in host.request("site.settings", site=site).items() if k not in ("id", "ok")}
                  for site in (SITE_ON, SITE_ALSO_ON, SITE_OFF)},
        "llm_settings": {k: v for k, v in host.request("llm.settings.get").items() if k not in ("id", "ok")},
        "api_key": FAKE_API_KEY,
    }
    host.close()
    # The host leaves its WAL beside the file; fold it in, as the next open would.
    conn = sqlite3.connect(data / "memories.db")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    # Plain columns only: which memories have a stored meaning vector, which suggestion was discarded.
    expected["vectors"] = {memory_id: [model, rev] for memory_id, model, rev in
                           conn.execute("SELECT memory_id, model, rev FROM memory_vectors")}
    expected["discarded"] = [row[0] for row in
                             conn.execute("SELECT id FROM suggestions WHERE discarded_at IS NOT NULL")]
    expected["migrations"] = [row[0] for row in conn.execute("SELECT name FROM _migrations ORDER BY rowid")]
    conn.close()

    for name in ("config", "data"):
        shutil.rmtree(HERE / name, ignore_errors=True)
    shutil.copytree(config, HERE / "config")
    shutil.copytree(data, HERE / "data")
    (HERE / "expected.json").write_text(json.dumps(expected, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    shutil.rmtree(root)
    print("wrote", sorted(str(p.relative_to(HERE)) for p in HERE.rglob("*") if p.is_file()))


if __name__ == "__main__":
    main()
