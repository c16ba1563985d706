"""memory.import_chats: a chat export streamed in chunks as the memory page sends it,
through the real dispatch core in-process, on a real vault."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.host import isolated_env, ok, vault_path
from support.inprocess import InProcessHost

DATA = Path(__file__).resolve().parents[1] / "data" / "chat_exports"


@pytest.fixture
def env(tmp_path):
    return isolated_env(tmp_path)


def stream(host, import_id: str, text: str, size: int = 300) -> list[dict]:
    chunks = [text[i:i + size] for i in range(0, len(text), size)]
    return [host.request("memory.import_chats", import_id=import_id, seq=i, text=c, last=i == len(chunks) - 1)
            for i, c in enumerate(chunks)]


def test_an_export_streamed_in_chunks_waits_as_suggestions_and_imports_once(env, tmp_path):
    with InProcessHost(env=env) as host:
        replies = [ok(r) for r in stream(host, "imp_claude01", (DATA / "claude_conversations.json").read_text())]
        assert all(not r["done"] for r in replies[:-1])
        done = replies[-1]
        assert done["done"] and done["format"] == "claude" and done["conversations"] == 2 and done["turns"] == 2
        texts = {s["text"]: s for s in done["suggested"]}
        assert "Is vegetarian" in texts and any("nurse" in t for t in texts)
        assert texts["Is vegetarian"]["origin"] == "imported 2024-05-02" and texts["Is vegetarian"]["site"] == \
            "claude.ai"
        assert not any(w in " ".join(texts) for w in ("jazz", "Oslo", "pilot", "Porto"))
        # The page always asks: nothing became a memory; all of it waits.
        assert ok(host.request("memory.list"))["total"] == 0
        waiting = ok(host.request("memory.suggestions"))["suggestions"]
        assert {s["suggestion_id"] for s in waiting} == {s["suggestion_id"] for s in done["suggested"]}
        kept = ok(host.request("memory.accept", suggestion_id=texts["Is vegetarian"]["suggestion_id"]))["memory"]
        assert kept["text"] == "Is vegetarian"
        again = ok(stream(host, "imp_claude02", (DATA / "claude_conversations.json").read_text(), 4000)[-1])
        assert again["already"] == 2 and again["conversations"] == 0 and again["suggested"] == []
        chatgpt = ok(stream(host, "imp_chatgpt1", (DATA / "chatgpt_conversations.json").read_text(), 1000)[-1])
        assert chatgpt["format"] == "chatgpt" and {s["text"] for s in chatgpt["suggested"]} >= {"Lives in Utrecht"}


def test_bad_files_and_chunks_out_of_order_write_nothing(env, tmp_path):
    with InProcessHost(env=env) as host:
        shape = [{"messages": [{"role": "user", "content": "I live in Oslo"}]}]
        wrong = stream(host, "imp_wrong001", json.dumps(shape))
        assert wrong[-1]["error"]["code"] == "bad_request" and "ChatGPT export" in wrong[-1]["error"]["message"]
        cut = stream(host, "imp_cut00001", (DATA / "chatgpt_conversations.json").read_text()[:2000])
        assert cut[-1]["error"]["code"] == "bad_request" and "ends in the middle" in cut[-1]["error"]["message"]
        text = (DATA / "claude_conversations.json").read_text()
        ok(host.request("memory.import_chats", import_id="imp_order001", seq=0, text=text[:100]))
        skipped = host.request("memory.import_chats", import_id="imp_order001", seq=2, text=text[200:300])
        assert skipped["error"]["code"] == "bad_request" and "chunk 1" in skipped["error"]["message"]
        unknown = host.request("memory.import_chats", import_id="imp_never001", seq=3, text="]", last=True)
        assert unknown["error"]["code"] == "bad_request" and "not under way" in unknown["error"]["message"]
        deep = host.request("memory.import_chats", import_id="imp_deep0001", seq=0, text="[" * 100_000)
        assert deep["error"]["code"] == "bad_request" and "nested" in deep["error"]["message"]
        too_big = host.request("memory.import_chats", import_id="imp_big00001", seq=0, text="x" * (512 * 1024 + 1))
        assert too_big["error"]["code"] == "bad_request"
    assert not vault_path(tmp_path).exists()  # nothing written, not even an empty vault


def test_cancel_drops_what_was_found_and_keeps_what_was_approved(env):
    with InProcessHost(env=env) as host:
        approved = ok(host.request("memory.add", text="Prefers Rust", memory_type="preference"))
        text = (DATA / "claude_conversations.json").read_text()
        half = len(text) // 2
        ok(host.request("memory.import_chats", import_id="imp_cancel01", seq=0, text=text[:half]))
        assert ok(host.request("memory.import_chats_cancel", import_id="imp_cancel01"))["cancelled"] is True
        assert ok(host.request("memory.import_chats_cancel", import_id="imp_cancel01"))["cancelled"] is False
        late = host.request("memory.import_chats", import_id="imp_cancel01", seq=1, text=text[half:], last=True)
        assert late["error"]["code"] == "bad_request"
        assert [m["memory_id"] for m in ok(host.request("memory.list"))["memories"]] == [approved["memory_id"]]
        assert ok(host.request("memory.suggestions"))["suggestions"] == []
