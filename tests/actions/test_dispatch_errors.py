"""What the dispatch core answers whatever the action: ids echoed, schema errors naming the
request, no content in an error or the log, a reply too large for Chrome refused."""

import json

import pytest

KEY = "chatgpt.com:7"


def test_string_ids_are_echoed(host):
    host.send({"id": "abc-1", "type": "ping"})
    assert host.recv()["id"] == "abc-1"


@pytest.mark.parametrize("message,code", [
    ({"id": 1, "type": "no.such.type"}, "unknown_type"),
    ({"id": 2}, "bad_request"),
    ({"id": 3, "type": 7}, "bad_request"),
    ({"id": 4, "type": "session.add", "key": KEY, "role": "user"}, "bad_request"),
    ({"id": 5, "type": "session.add", "key": KEY, "role": "system", "content": "x"}, "bad_request"),
    ({"id": 6, "type": "session.add", "key": "no-colon", "role": "user", "content": "x"}, "bad_request"),
    ({"id": 7, "type": "session.context", "key": KEY, "budget": -5}, "bad_request"),
    ({"id": 8, "type": "session.context", "key": KEY, "budget": "lots"}, "bad_request"),
    ({"id": 9, "type": "ping", "surprise": True}, "bad_request"),
    ({"id": 10, "type": "session.get", "key": "chatgpt.com:999"}, "not_found"),
])
def test_schema_errors_name_the_request(host, message, code):
    host.send(message)
    reply = host.recv()
    assert reply["id"] == message["id"] and reply["ok"] is False
    assert reply["error"]["code"] == code
    assert host.request("ping")["ok"]


def test_error_messages_never_quote_content(host):
    host.send({"id": 1, "type": "session.add", "key": KEY, "role": "robot", "content": "TOPSECRET-CONTENT"})
    reply = host.recv()
    assert reply["error"]["code"] == "bad_request"
    assert "TOPSECRET" not in json.dumps(reply)
    host.send({"id": 2, "type": "session.add", "key": "TOPSECRET-KEY", "role": "user", "content": "x"})
    assert "TOPSECRET" not in json.dumps(host.recv())
    host.close()
    assert "TOPSECRET" not in host.stderr_text


def test_reply_over_1_mib_becomes_too_large(host):
    for _ in range(3):
        assert host.request("session.add", key=KEY, role="user", content="y" * 500_000)["ok"]
    reply = host.request("session.get", key=KEY)
    assert reply["ok"] is False and reply["error"]["code"] == "too_large"
    assert host.request("session.list")["ok"]
