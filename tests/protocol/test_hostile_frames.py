"""Hostile frames over the real pipes: each gets one reply (or a documented close) and the host serves on."""

import json
import time

import pytest

from support.host import HostProcess

KEY = "chatgpt.com:9"
HUGE_INT = "9" * 5000  # past Python's 4,300-digit int parsing limit
BIG_INT = "9" * 400  # parses, but is no id JavaScript could have sent

HOSTILE = {
    "huge int id": (b'{"id": ' + HUGE_INT.encode() + b', "type": "ping"}', "bad_json"),
    "huge int field": (b'{"id": 1, "type": "session.context", "key": "' + KEY.encode()
                       + b'", "budget": ' + HUGE_INT.encode() + b"}", "bad_json"),
    "huge int nested": (b'{"id": 1, "type": "ping", "x": [[{"y": -' + HUGE_INT.encode() + b"}]]}", "bad_json"),
    "big int id": (b'{"id": ' + BIG_INT.encode() + b', "type": "ping"}', "bad_json"),
    "1 MiB string id": (json.dumps({"id": "i" * (1 << 20) + "x", "type": "ping"}).encode(), "bad_request"),
    "long string id": (json.dumps({"id": "i" * 10_000, "type": "ping"}).encode(), "bad_request"),
    "id past 2**53": (json.dumps({"id": 2 ** 60, "type": "ping"}).encode(), "bad_request"),
    "empty frame": (b"", "bad_json"),
    # Not JSON, though Python reads them (issue 20 item 4): no field may ever see one.
    "NaN field": (b'{"id": 1, "type": "chat.prepare_send", "key": "' + KEY.encode()
                  + b'", "site": "chatgpt.com", "draft": "hi", "answer_by": NaN}', "bad_json"),
    "Infinity nested": (b'{"id": 1, "type": "memory.import", "document": {"memories": [{"updated_at": -Infinity}]}}',
                        "bad_json"),
    "float past 1e308": (b'{"id": 1, "type": "ping", "x": 1e400}', "bad_json"),
}


def assert_answered_without_an_id(host, name):
    body, code = HOSTILE[name]
    host.send_raw(body)
    reply = host.recv()
    assert reply["id"] is None and reply["ok"] is False and reply["error"]["code"] == code, name
    assert len(json.dumps(reply)) < 1000
    assert host.request("ping")["ok"]


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_first_frame_gets_an_error_without_an_id_and_the_host_serves_on(host, name):
    # The first frame meets the early responder while the message stack still loads.
    assert_answered_without_an_id(host, name)
    host.close()
    assert "Traceback" not in host.stderr_text and "critical" not in host.stderr_text.lower()


def test_hostile_frames_after_start_up_each_get_an_error_and_lose_nothing(host):
    assert host.request("session.add", key=KEY, role="user", content="kept")["ok"]
    for name in HOSTILE:
        assert_answered_without_an_id(host, name)
    assert host.request("session.get", key=KEY)["messages"][0]["content"] == "kept"
    host.close()
    assert "Traceback" not in host.stderr_text and "critical" not in host.stderr_text.lower()


def test_an_id_at_the_limits_is_echoed(host):
    for rid in (2 ** 53 - 1, -(2 ** 53 - 1), "k" * 128, ""):
        host.send({"id": rid, "type": "ping"})
        reply = host.recv()
        assert reply["ok"] and reply["id"] == rid


def test_an_empty_frame_sent_at_once_is_answered(host_env):
    # Sent before the message stack has loaded, while the early responder reads.
    with HostProcess(env=host_env) as host:
        host.send_raw(b"")
        host.send({"id": 2, "type": "ping"})
        assert host.recv()["error"]["code"] == "bad_json"
        assert host.recv()["id"] == 2


@pytest.mark.parametrize("first", [True, False], ids=["first frame", "after the stack loaded"])
def test_a_header_past_chromes_64_mib_is_answered_at_once_then_the_host_exits(host_env, first):
    with HostProcess(env=host_env) as host:
        if not first:
            assert host.request("ping")["ok"]
        host.send_raw(b"{", length=200 * 1024 * 1024)
        start = time.monotonic()
        reply = host.recv(timeout=5)
        assert reply["id"] is None and reply["error"]["code"] == "too_large"
        assert "67108864" in reply["error"]["message"]
        assert host.proc.wait(5) == 0 and time.monotonic() - start < 5


def test_an_oversize_frame_within_64_mib_is_answered_before_its_body_arrives(host_env):
    with HostProcess(env=host_env) as host:
        assert host.request("ping")["ok"]
        host.send_raw(b"", length=20 * 1024 * 1024)  # header only: the body has not come
        reply = host.recv(timeout=5)
        assert reply["id"] is None and reply["error"]["code"] == "too_large"
        host.proc.stdin.write(b" " * (20 * 1024 * 1024))  # the body, skipped: the stream stays in sync
        host.proc.stdin.flush()
        assert host.request("ping")["ok"]

