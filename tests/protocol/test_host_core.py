"""The real host process over real pipes: good frames, bad frames, lifecycle (DESIGN §2-3)."""

import json
import signal
import struct
import time
from pathlib import Path

import pytest

from support.host import ORIGIN, HostProcess, isolated_env

KEY = "chatgpt.com:7"


def test_ping(host):
    reply = host.request("ping")
    assert reply["ok"] is True
    assert reply["version"] and reply["protocol"] == 1
    assert set(reply) == {"id", "ok", "version", "protocol", "tokenizer_ready"}


def test_string_ids_are_echoed(host):
    host.send({"id": "abc-1", "type": "ping"})
    assert host.recv()["id"] == "abc-1"


@pytest.mark.parametrize("body,code", [
    (b"{not json", "bad_json"),
    (b"\xff\xfe\x00garbage", "bad_json"),
    (b"[" * 5000 + b"]" * 5000, "bad_json"),
    (b"[1, 2]", "bad_request"),
    (b"42", "bad_request"),
    (b'"ping"', "bad_request"),
    (b"null", "bad_request"),
    (b'{"type": "ping"}', "bad_request"),
    (b'{"id": 1.5, "type": "ping"}', "bad_request"),
    (b'{"id": true, "type": "ping"}', "bad_request"),
    (b'{"id": {"x": 1}, "type": "ping"}', "bad_request"),
])
def test_bad_frames_get_an_error_with_null_id_and_the_host_keeps_serving(host, body, code):
    host.send_raw(body)
    reply = host.recv()
    assert reply == {"id": None, "ok": False, "error": {"code": code, "message": reply["error"]["message"]}}
    assert reply["error"]["message"]
    assert host.request("ping")["ok"]


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


def test_every_request_gets_exactly_one_reply_in_order(host):
    messages = []
    for i in range(200):
        kind = i % 4
        if kind == 0:
            messages.append({"id": i, "type": "ping"})
        elif kind == 1:
            messages.append({"id": i, "type": "session.add", "key": KEY, "role": "user", "content": f"m{i}"})
        elif kind == 2:
            messages.append({"id": i, "type": "bogus"})
        else:
            messages.append({"id": i, "type": "session.context", "key": KEY, "budget": 100})
    payload = b"".join(struct.pack("<I", len(b)) + b for b in (json.dumps(m).encode() for m in messages))
    host.proc.stdin.write(payload)
    host.proc.stdin.flush()
    replies = [host.recv() for _ in messages]
    assert [r["id"] for r in replies] == list(range(200))
    host.close()
    assert host.proc.stdout.read() == b""  # nothing but those frames on stdout


def test_oversize_inbound_frame_is_refused_and_the_stream_stays_in_sync(tmp_path):
    env = isolated_env(tmp_path, WHITEBOARD_INBOUND_CAP="4096")
    with HostProcess(env=env) as host:
        host.send({"id": 1, "type": "session.add", "key": KEY, "role": "user", "content": "x" * 10_000})
        reply = host.recv()
        assert reply["id"] is None and reply["error"]["code"] == "too_large"
        assert "4096" in reply["error"]["message"]
        assert host.request("ping")["ok"]


def test_reply_over_1_mib_becomes_too_large(host):
    for i in range(3):
        assert host.request("session.add", key=KEY, role="user", content="y" * 500_000)["ok"]
    reply = host.request("session.get", key=KEY)
    assert reply["ok"] is False and reply["error"]["code"] == "too_large"
    assert host.request("session.list")["ok"]


def wait_exit(proc, limit=2.0):
    start = time.monotonic()
    code = proc.wait(limit + 1)
    return code, time.monotonic() - start


def test_exits_within_2s_of_eof(host):
    assert host.request("ping")["ok"]
    host.proc.stdin.close()
    code, took = wait_exit(host.proc)
    assert code == 0 and took < 2.0


def test_exits_when_input_ends_inside_a_frame(host):
    host.proc.stdin.write(struct.pack("<I", 100) + b'{"id":1')
    host.proc.stdin.close()
    code, took = wait_exit(host.proc)
    assert took < 2.0


def test_exits_within_2s_of_sigterm(host):
    assert host.request("ping")["ok"]
    host.proc.send_signal(signal.SIGTERM)
    code, took = wait_exit(host.proc)
    assert code == 0 and took < 2.0


@pytest.mark.parametrize("args", [[], ["chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/"], ["/tmp/x.json"]])
def test_other_callers_are_served_nothing(host_env, args):
    with HostProcess(env=host_env, args=args) as host:
        host.send({"id": 1, "type": "session.add", "key": KEY, "role": "user", "content": "x"})
        reply = host.recv()
        assert reply["error"]["code"] == "forbidden"
        assert host.request("ping")["error"]["code"] == "forbidden"


def test_extra_arguments_are_ignored(host_env):
    with HostProcess(env=host_env, args=[ORIGIN, "--parent-window=1234", "unexpected"]) as host:
        assert host.request("ping")["ok"]


def test_firefox_style_arguments(host_env):
    env = dict(host_env, WHITEBOARD_ALLOWED_ORIGINS="whiteboard@example.org")
    with HostProcess(env=env, args=["/path/to/com.whiteboard.host.json", "whiteboard@example.org"]) as host:
        assert host.request("ping")["ok"]


@pytest.mark.skipif(not Path("/proc/self/limits").exists(), reason="needs /proc")
def test_core_dumps_are_disabled(host):
    assert host.request("ping")["ok"]
    limits = Path(f"/proc/{host.proc.pid}/limits").read_text()
    line = next(l for l in limits.splitlines() if l.startswith("Max core file size"))
    assert line.split()[4:6] == ["0", "0"]


def test_session_round_trip(host):
    assert host.request("session.add", key=KEY, role="user", content="Plan a trip to Kyoto in April")["count"] == 1
    assert host.request("session.add", key=KEY, role="assistant", content="Day one: Fushimi Inari")["count"] == 2
    got = host.request("session.get", key=KEY)
    assert [m["role"] for m in got["messages"]] == ["user", "assistant"]
    assert got["messages"][0]["content"] == "Plan a trip to Kyoto in April"
    ctx = host.request("session.context", key=KEY, budget=2000)
    assert "Kyoto" in ctx["context"] and "Fushimi" in ctx["context"]
    assert 0 < ctx["used_tokens"] <= 2000 and ctx["budget"] == 2000 and ctx["distilled"] is False
    assert host.request("session.context", key=KEY)["budget"] == 2000  # the default
    listed = host.request("session.list")["sessions"]
    assert [s["key"] for s in listed] == [KEY] and listed[0]["count"] == 2
    assert host.request("session.clear", key=KEY)["cleared"] is True
    assert host.request("session.clear", key=KEY)["cleared"] is False
    host.request("session.add", key="claude.ai:1", role="user", content="a")
    host.request("session.add", key="claude.ai:2", role="user", content="b")
    assert host.request("session.clear_all")["cleared"] == 2
    assert host.request("session.list")["sessions"] == []


def test_context_of_an_unknown_session_is_empty(host):
    reply = host.request("session.context", key="claude.ai:404", budget=100)
    assert reply["ok"] and reply["context"] == "" and reply["used_tokens"] == 0


def test_secrets_are_redacted_before_they_are_kept(host):
    reply = host.request("session.add", key=KEY, role="user",
                         content="key sk-proj-AbCdEf0123456789xyzXYZ01 <private>my salary</private> mail a@b.io")
    assert reply["redacted"] == 3 and set(reply["redacted_kinds"]) == {"api_key", "private", "email"}
    stored = host.request("session.get", key=KEY)["messages"][0]["content"]
    assert "sk-proj" not in stored and "salary" not in stored and "a@b.io" not in stored
    assert "[REDACTED]" in stored


def test_cap_keeps_the_seed_and_summarises_what_was_dropped(host_env):
    env = dict(host_env, WHITEBOARD_MAX_MESSAGES="5")
    with HostProcess(env=env) as host:
        host.request("session.add", key=KEY, role="user", content="SEED: we are building a Chrome extension.")
        for i in range(12):
            host.request("session.add", key=KEY, role="user", content=f"Erin decided on option {i}.")
        ctx = host.request("session.context", key=KEY, budget=2000)
        assert "SEED" in ctx["context"] and ctx["distilled"] is True
        got = host.request("session.get", key=KEY)
        assert got["messages"][0]["content"].startswith("SEED")
        assert "option 6" in got["summary"] and "option 7" not in got["summary"]


def test_context_for_a_query_brings_what_it_asks_about_and_says_what_it_kept(host):
    host.request("session.add", key=KEY, role="user", content="Plan my week, please.")
    host.request("session.add", key=KEY, role="assistant", content="My sister Ada moved to Lisbon last spring.")
    for i in range(40):
        host.request("session.add", key=KEY, role="user" if i % 2 else "assistant",
                     content=f"Turn {i}: small talk about the weather and what we had for lunch today.")
    plain = host.request("session.context", key=KEY, budget=300)
    asked = host.request("session.context", key=KEY, budget=300, query="Where did Ada move to?")
    line = "[assistant] My sister Ada moved to Lisbon last spring."
    assert line not in plain["context"] and line in asked["context"]  # (the summary may mention it)
    for reply in (plain, asked):
        assert reply["used_tokens"] <= 300 and reply["distilled"] is True
        assert sum(reply["kept"].values()) == 42 and reply["kept"]["summarised"] > 0
    assert "messages left out …]" in asked["context"] or "summarised above …]" in asked["context"]
    # The popup's meter reads the same counts from session.get.
    assert host.request("session.get", key=KEY)["kept"]["full"] > 0


def test_a_closed_reader_makes_the_host_exit_quietly(host):
    host.proc.stdout.close()  # the browser stopped reading
    host.send({"id": 1, "type": "ping"})
    host.send({"id": 2, "type": "ping"})
    host.proc.stdin.close()
    code, took = wait_exit(host.proc)
    assert code == 0 and took < 2.0
    assert b"Traceback" not in host.proc.stderr.read()
