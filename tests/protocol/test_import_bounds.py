"""A memory import with a number out of range, over real pipes (issue 20 item 4): one clear
bad_request naming the entry and the field, nothing stored, and the host serves on. Before,
`usage_count: 10**25` at entry 550 of 600 raised mid-import (the first 500 stored) and
`updated_at: 1e300` imported and then broke every later recall."""

import pytest

from support.host import ok

ENTRIES = 600


def document(field, value):
    memories = [{"type": "preference", "text": f"Prefers tea number {i}", "updated_at": 1_700_000_000.0 + i}
                for i in range(ENTRIES)]
    memories[549][field] = value
    return {"format": "whiteboard.memories", "version": 1, "memories": memories}


@pytest.mark.parametrize("field, value", [("usage_count", 10 ** 25), ("updated_at", 1e300), ("updated_at", -1e18)])
def test_an_import_with_a_number_out_of_range_stores_nothing(host, field, value):
    reply = host.request("memory.import", document=document(field, value))
    error = reply["error"]
    assert error["code"] == "bad_request" and error["message"].startswith(f"document.memories.549.{field}:"), error
    assert ok(host.request("memory.list"))["total"] == 0
    assert ok(host.request("memory.import", document=document("usage_count", 3)))["added"] == ENTRIES
    assert ok(host.request("memory.recall", query="tea number 7"))["memories"]
