"""The host's local control socket: private, read-only, one per host, gone when the host is."""

import contextlib
import json
import os
import shutil
import socket
import stat
import struct
import tempfile
from pathlib import Path

import pytest

from support.host import HostProcess, isolated_env, socket_dir, socket_of

KEY = "chatgpt.com:8"


class Client:
    def __init__(self, path: Path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(10)
        self.sock.connect(str(path))
        self.file = self.sock.makefile("rb")

    def send_raw(self, body: bytes) -> None:
        self.sock.sendall(struct.pack("<I", len(body)) + body)

    def recv(self) -> dict:
        (n,) = struct.unpack("<I", self.file.read(4))
        return json.loads(self.file.read(n))

    def request(self, rid, type_, **fields) -> dict:
        self.send_raw(json.dumps({"id": rid, "type": type_, **fields}).encode())
        return self.recv()

    def close(self):
        self.file.close()
        self.sock.close()


@contextlib.contextmanager
def short_dir():
    # pytest's tmp_path can be too long for a socket path (~104 bytes); a short one tests the usual case.
    root = Path(tempfile.mkdtemp(prefix="wb-", dir="/tmp"))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def short_tmp():
    with short_dir() as root:
        yield root


@contextlib.contextmanager
def host_with_a_session(root: Path):
    env = isolated_env(root / "env")
    with HostProcess(env=env) as host:
        assert host.request("session.add", key=KEY, role="user", content="We chose SQLite for 3 apps.")["ok"]
        yield host, env, socket_of(host, env)


@pytest.fixture(scope="module")
def running():
    """One host for the module: each test also checks that what it sent changed nothing."""
    with short_dir() as root, host_with_a_session(root) as running:
        yield running


def test_the_socket_is_private_to_the_user(running):
    _, _, path = running
    directory = os.lstat(path.parent)
    assert stat.S_IMODE(directory.st_mode) == 0o700 and directory.st_uid == os.getuid()
    info = os.lstat(path)
    assert stat.S_ISSOCK(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o600 and info.st_uid == os.getuid()


def test_read_only_requests_are_served(running):
    _, _, path = running
    client = Client(path)
    try:
        assert client.request(1, "ping")["ok"]
        assert [s["key"] for s in client.request(2, "session.list")["sessions"]] == [KEY]
        got = client.request("x", "vbrief.export", key=KEY)
        assert got["id"] == "x" and got["ok"]
        assert got["document"]["sessionSnapshot"]["observations"][0]["input"] == "We chose SQLite for 3 apps."
        assert client.request(4, "vbrief.export", key="claude.ai:1")["error"]["code"] == "not_found"
    finally:
        client.close()


@pytest.mark.parametrize("type_,fields", [
    ("session.add", {"key": KEY, "role": "user", "content": "injected"}),
    ("session.clear", {"key": KEY}),
    ("session.clear_all", {}),
    ("session.get", {"key": KEY}),
    ("session.context", {"key": KEY}),
    ("vbrief.import", {"key": KEY, "document": {}}),
    ("llm.settings.set", {}),
    ("no.such.type", {}),
])
def test_everything_else_is_forbidden_and_changes_nothing(running, type_, fields):
    host, _, path = running
    client = Client(path)
    try:
        got = client.request(7, type_, **fields)
        assert got["id"] == 7 and got["ok"] is False and got["error"]["code"] == "forbidden"
        assert "ping, session.list, vbrief.export" in got["error"]["message"]
        assert client.request(8, "ping")["ok"]  # the connection goes on
    finally:
        client.close()
    messages = host.request("session.get", key=KEY)["messages"]
    assert [m["content"] for m in messages] == ["We chose SQLite for 3 apps."]


def test_garbage_gets_typed_errors(running):
    _, _, path = running
    client = Client(path)
    try:
        client.send_raw(b"{not json")
        got = client.recv()
        assert got["id"] is None and got["error"]["code"] == "bad_json"
        client.send_raw(b"[1, 2]")
        assert client.recv()["error"]["code"] == "bad_request"
        assert client.request(3, "ping")["ok"]
    finally:
        client.close()


def test_an_oversize_request_is_too_large_and_the_connection_goes_on(running):
    _, _, path = running
    client = Client(path)
    try:
        client.send_raw(json.dumps({"id": 1, "type": "ping", "pad": "x" * 70_000}).encode())
        assert client.recv()["error"]["code"] == "too_large"
        assert client.request(2, "ping")["ok"]
    finally:
        client.close()


def test_the_socket_is_removed_when_the_host_exits(short_tmp):
    env = isolated_env(short_tmp / "env")
    host = HostProcess(env=env)
    path = socket_of(host, env)
    assert host.close() == 0
    assert not path.exists()


def test_a_stale_socket_of_a_dead_host_is_cleared_and_a_live_one_kept(short_tmp):
    env = isolated_env(short_tmp / "env")
    directory = socket_dir(env)
    directory.mkdir(mode=0o700, parents=True)
    dead = directory / "host-999999999.sock"  # beyond pid_max: no such process
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(dead))
    stale.close()
    live = directory / f"host-{os.getpid()}.sock"  # this test process: alive
    live.touch()
    with HostProcess(env=env) as host:
        socket_of(host, env)
        assert not dead.exists() and live.exists()


def test_two_hosts_have_a_socket_each(short_tmp):
    env = isolated_env(short_tmp / "env")
    with HostProcess(env=env) as a, HostProcess(env=env) as b:
        pa, pb = socket_of(a, env), socket_of(b, env)
        assert pa != pb
        for path in (pa, pb):
            client = Client(path)
            assert client.request(1, "ping")["ok"]
            client.close()


@pytest.mark.parametrize("setting", [{"WHITEBOARD_CONTROL_SOCKET": "0"}, "disallowed origin"])
def test_no_socket_when_turned_off_or_for_a_refused_caller(short_tmp, setting):
    extra = setting if isinstance(setting, dict) else {}
    args = ["chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/"] if setting == "disallowed origin" else None
    env = isolated_env(short_tmp / "env", **extra)
    with HostProcess(env=env, args=args) as host:
        # A reply to anything but ping comes once the stack has loaded, after the socket would be up.
        assert host.request("session.list")["ok"] is (args is None)
        directory = socket_dir(env)
        assert not directory.exists() or not list(directory.glob("host-*.sock"))


@pytest.mark.skipif(not hasattr(socket, "SO_PEERCRED") or os.getuid() != 0,
                    reason="needs Linux SO_PEERCRED and root to act as another user")
def test_another_user_is_refused_even_when_the_permissions_let_it_in(short_tmp):
    with host_with_a_session(short_tmp) as (_, _, path):
        reply = as_another_user(path, short_tmp)
    assert reply.get("error", {}).get("code") == "forbidden", reply
    assert "user running the host" in reply["error"]["message"]


def as_another_user(path: Path, short_tmp: Path) -> dict:
    # Open the directories and the socket up, as a misconfiguration would: the uid check still holds.
    for directory in [p for p in path.parents if p.is_relative_to(short_tmp)]:
        os.chmod(directory, 0o711)
    os.chmod(path, 0o666)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child becomes "nobody" and tries
        try:
            os.close(read_end)
            os.setgid(65534)
            os.setuid(65534)
            client = Client(path)
            try:
                client.send_raw(json.dumps({"id": 1, "type": "ping"}).encode())
            except BrokenPipeError:
                pass  # the host refuses at connect, then closes: its answer may beat the request
            os.write(write_end, json.dumps(client.recv()).encode())
        except BaseException as exc:  # noqa: BLE001 - reported to the parent
            os.write(write_end, json.dumps({"child_error": repr(exc)}).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as f:
        reply = json.loads(f.read())
    os.waitpid(pid, 0)
    return reply


def test_a_runtime_dir_too_long_for_a_socket_falls_back_to_the_temp_dir(short_tmp):
    env = isolated_env(short_tmp / "env")
    long_runtime = short_tmp / ("r" * 90)
    long_runtime.mkdir(mode=0o700)
    env["XDG_RUNTIME_DIR"] = str(long_runtime)
    assert socket_dir(env) == Path(env["TMPDIR"]) / f"whiteboard-{os.getuid()}"
    with HostProcess(env=env) as host:
        path = socket_of(host, env)
        assert stat.S_IMODE(os.lstat(path.parent).st_mode) == 0o700
        client = Client(path)
        assert client.request(1, "ping")["ok"]
        client.close()


@pytest.mark.parametrize("body,code", [
    (b'{"id": ' + b"9" * 5000 + b', "type": "ping"}', "bad_json"),
    (b'{"id": 1, "type": "vbrief.export", "key": "' + KEY.encode() + b'", "x": ' + b"9" * 5000 + b"}", "bad_json"),
    (json.dumps({"id": "i" * 60_000, "type": "ping"}).encode(), "bad_request"),
    (b"", "bad_json"),
])
def test_hostile_frames_get_typed_errors_and_the_connection_goes_on(running, body, code):
    host, _, path = running
    client = Client(path)
    try:
        client.send_raw(body)
        got = client.recv()
        assert got["id"] is None and got["error"]["code"] == code
        assert client.request(2, "ping")["ok"]
    finally:
        client.close()
    assert host.request("ping")["ok"]


def test_a_header_past_64_mib_is_answered_then_the_connection_closed(running):
    host, _, path = running
    client = Client(path)
    try:
        client.sock.sendall(struct.pack("<I", 200 * 1024 * 1024) + b"{")
        got = client.recv()
        assert got["id"] is None and got["error"]["code"] == "too_large"
        assert client.file.read(1) == b""  # closed: such a stream is not a client of ours
    finally:
        client.close()
    assert host.request("ping")["ok"]
