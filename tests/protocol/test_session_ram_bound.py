"""RAM per session is bounded by the caps at all times, over the real pipes (issue 12 item 4)."""

import psutil
import pytest


@pytest.mark.slow
def test_two_hundred_megabyte_adds_to_one_tab_keep_the_host_small(host):
    # Before the byte cap, the dropped messages waited for a context build: 312 MB measured.
    process = psutil.Process(host.proc.pid)
    big = "x" * (1 << 20)
    for i in range(200):
        assert host.request("session.add", key="chatgpt.com:1", role="user", content=f"{i} {big}")["ok"]
    rss_mb = process.memory_info().rss / 2**20
    assert rss_mb < 200, f"host RSS {rss_mb:.0f} MB after 200 x 1 MB to one tab"
    context = host.request("session.context", key="chatgpt.com:1", budget=500)
    assert context["ok"] and context["used_tokens"] <= 500
    assert host.request("ping")["ok"]
