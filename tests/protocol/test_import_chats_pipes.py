"""memory.import_chats over real pipes: the largest chunk the page may send passes the host's
inbound cap even at JSON's worst escaping, a chunk that is no export is a clear bad_request,
and a real export in full-size chunks is read whole; the host serves on."""

import json
from pathlib import Path

import pytest

from support.host import ok

pytestmark = pytest.mark.slow  # megabytes through the host

DATA = Path(__file__).resolve().parents[1] / "data" / "chat_exports"
MAX_CHUNK_CHARS = 512 * 1024


def test_the_largest_chunk_passes_the_pipe_and_a_bad_one_is_refused(host):
    worst = "\x01" * MAX_CHUNK_CHARS  # 6 bytes a character once JSON-escaped: 3 MiB on the pipe
    reply = host.request("memory.import_chats", import_id="imp_worst001", seq=0, text=worst)
    assert reply["error"]["code"] == "bad_request" and "this is not an export" in reply["error"]["message"]
    assert ok(host.request("ping"))


def test_an_export_in_full_size_chunks(host):
    items = json.loads((DATA / "claude_conversations.json").read_text())
    items += [{"uuid": f"f{i}", "chat_messages": [{"sender": "human", "text": "Write a haiku about café " * 20}]}
              for i in range(3000)]
    text = json.dumps(items, ensure_ascii=False)
    chunks = [text[i:i + MAX_CHUNK_CHARS] for i in range(0, len(text), MAX_CHUNK_CHARS)]
    assert len(chunks) >= 3
    for seq, chunk in enumerate(chunks):
        reply = ok(host.request("memory.import_chats", import_id="imp_full0001", seq=seq, text=chunk,
                                last=seq == len(chunks) - 1))
    assert reply["done"] and reply["conversations"] == 3002
    assert "Is vegetarian" in {s["text"] for s in reply["suggested"]}
