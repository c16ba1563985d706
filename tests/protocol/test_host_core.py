"""The real host process over real pipes: good frames, bad frames, lifecycle (design §2-3)."""


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


def test_every_request_gets_exactly_one_reply_and_a_tabs_requests_in_order(host):
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
    ids = [host.recv()["id"] for _ in messages]
    assert sorted(ids) == list(range(200))
    # Pings and refusals are answered by the reader at once; one tab's requests in the order sent.
    tab = [i for i in ids if i % 4 in (1, 3)]
    assert tab == sorted(tab)
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


# Firefox's form is strict as Chrome's: the absolute manifest path, then a well-formed add-on id.
@pytest.mark.parametrize("args", [
    ["whiteboard@example.org"],  # the id alone, as if it were argv[1]
    ["com.whiteboard.host.json", "whiteboard@example.org"],  # relative manifest path
    ["/path/to/com.whiteboard.host.txt", "whiteboard@example.org"],  # not a manifest
    ["/path/to/com.whiteboard.host.json", f"chrome-extension://{'a' * 32}/"],  # a Chrome origin in Firefox's slot
    ["/path/to/com.whiteboard.host.json", "whiteboard@example.org\n"],
])
def test_firefox_callers_in_any_other_form_are_refused(host_env, args):
    env = dict(host_env, WHITEBOARD_ALLOWED_ORIGINS=f"whiteboard@example.org,chrome-extension://{'a' * 32}/")
    with HostProcess(env=env, args=args) as host:
        assert host.request("ping")["error"]["code"] == "forbidden"


def test_an_unknown_firefox_add_on_is_refused_with_a_clear_log_line(host_env):
    env = dict(host_env, WHITEBOARD_ALLOWED_ORIGINS="whiteboard@example.org")
    host = HostProcess(env=env, args=["/path/to/com.whiteboard.host.json", "intruder@example.org"])
    with host:
        assert host.request("ping")["error"]["code"] == "forbidden"
        host.send({"id": 2, "type": "session.add", "key": KEY, "role": "user", "content": "secret words"})
        assert host.recv()["error"]["code"] == "forbidden"
    assert "refusing caller" in host.stderr_text and "intruder@example.org" in host.stderr_text
    assert "Firefox add-on id" in host.stderr_text and "secret words" not in host.stderr_text


@pytest.mark.skipif(not Path("/proc/self/limits").exists(), reason="needs /proc")
def test_core_dumps_are_disabled(host):
    assert host.request("ping")["ok"]
    limits = Path(f"/proc/{host.proc.pid}/limits").read_text()
    line = next(l for l in limits.splitlines() if l.startswith("Max core file size"))
    assert line.split()[4:6] == ["0", "0"]


def test_a_closed_reader_makes_the_host_exit_quietly(host):
    host.proc.stdout.close()  # the browser stopped reading
    host.send({"id": 1, "type": "ping"})
    host.send({"id": 2, "type": "ping"})
    host.proc.stdin.close()
    code, took = wait_exit(host.proc)
    assert code == 0 and took < 2.0
    assert b"Traceback" not in host.proc.stderr.read()
