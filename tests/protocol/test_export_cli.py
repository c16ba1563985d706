"""`whiteboard export` against real running hosts, through their control sockets."""

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from support.host import HostProcess, isolated_env, socket_of
from whiteboard.vbrief.models import VBriefDocument

KEY = "claude.ai:31"
TURNS = [("user", "We decided to ship the Whiteboard beta on May 2. My email is amy@example.com."),
         ("assistant", "Great. Next step: freeze the protocol and write the release notes for 0.1.0.")]


def whiteboard(env, *args, timeout=60):
    cmd = [sys.executable, "-c", "import sys; from whiteboard.cli import main; sys.exit(main())", *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def root():
    path = Path(tempfile.mkdtemp(prefix="wb-", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def started(env, turns=TURNS, key=KEY):
    host = HostProcess(env=env)
    for role, content in turns:
        assert host.request("session.add", key=key, role=role, content=content)["ok"]
    socket_of(host, env)
    return host


def test_lists_sessions_then_exports_one_to_stdout(root):
    env = isolated_env(root / "env")
    with started(env) as host:
        assert host.request("session.add", key="chatgpt.com:5", role="user", content="hello")["ok"]
        listed = whiteboard(env, "export")
        assert listed.returncode == 0, listed.stderr
        lines = listed.stdout.splitlines()
        assert lines[0].split() == ["KEY", "MESSAGES", "STARTED", "HOST", "PID"]
        rows = {line.split()[0]: line.split() for line in lines[1:]}
        assert rows[KEY][1] == "2" and rows["chatgpt.com:5"][1] == "1"
        assert rows[KEY][-1] == str(host.proc.pid)

        out = whiteboard(env, "export", "--key", KEY)
        assert out.returncode == 0, out.stderr
        document = json.loads(out.stdout)
        VBriefDocument.model_validate(document)
        over_pipes = host.request("vbrief.export", key=KEY)["document"]
        document["vBRIEFInfo"].pop("created"), over_pipes["vBRIEFInfo"].pop("created")
        assert document == over_pipes
        assert "amy@example.com" not in out.stdout
        # The control channel served the export and nothing else changed in the host.
        assert host.request("session.list")["sessions"][0]["count"] == 2


def test_writes_a_new_private_file_and_never_overwrites(root):
    env = isolated_env(root / "env")
    target = root / "session.vbrief.json"
    with started(env):
        out = whiteboard(env, "export", "--key", KEY, "-o", str(target))
        assert out.returncode == 0, out.stderr
        assert stat.S_IMODE(os.stat(target).st_mode) == 0o600
        assert json.loads(target.read_text())["sessionSnapshot"]["sessionInfo"]["agent"] == "claude.ai"
        before = target.read_bytes()
        again = whiteboard(env, "export", "--key", KEY, "-o", str(target))
        assert again.returncode == 1 and "already exists" in again.stderr
        assert target.read_bytes() == before


def test_an_unknown_key_fails_clearly(root):
    env = isolated_env(root / "env")
    with started(env):
        out = whiteboard(env, "export", "--key", "claude.ai:404")
    assert out.returncode == 1 and "no session 'claude.ai:404'" in out.stderr and out.stdout == ""


def test_no_running_host_fails_clearly(root):
    env = isolated_env(root / "env")
    out = whiteboard(env, "export")
    assert out.returncode == 1 and "no running Whiteboard host" in out.stderr


def test_a_stale_socket_is_skipped(root):
    env = isolated_env(root / "env")
    host = started(env)
    path = socket_of(host, env)
    host.proc.kill()  # killed outright: the socket file stays behind
    host.close()
    assert path.exists()
    out = whiteboard(env, "export")
    assert out.returncode == 1 and "no running Whiteboard host" in out.stderr


def test_several_hosts(root):
    env = isolated_env(root / "env")
    with started(env) as a, started(env, key="chatgpt.com:1") as b:
        listed = whiteboard(env, "export")
        assert listed.returncode == 0, listed.stderr
        pids = {line.split()[0]: line.split()[-1] for line in listed.stdout.splitlines()[1:]}
        assert pids == {KEY: str(a.proc.pid), "chatgpt.com:1": str(b.proc.pid)}
        # Each key is found in the host that holds it.
        out = whiteboard(env, "export", "--key", "chatgpt.com:1")
        assert out.returncode == 0
        assert json.loads(out.stdout)["sessionSnapshot"]["sessionInfo"]["agent"] == "chatgpt.com"
        # The same key in two hosts (two browsers): the user picks one.
        assert b.request("session.add", key=KEY, role="user", content="other browser")["ok"]
        both = whiteboard(env, "export", "--key", KEY)
        assert both.returncode == 1 and "--pid" in both.stderr and str(a.proc.pid) in both.stderr
        picked = whiteboard(env, "export", "--key", KEY, "--pid", str(b.proc.pid))
        assert picked.returncode == 0
        first = json.loads(picked.stdout)["sessionSnapshot"]["observations"][0]
        assert first["input"] == "other browser"
        assert whiteboard(env, "export", "--pid", "1").returncode == 1


def test_idle_connections_do_not_hide_the_host(root):
    env = isolated_env(root / "env")
    with started(env) as host:
        path = socket_of(host, env)
        idle = []
        for _ in range(8):  # more than the socket serves at once; none sends a byte
            conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            conn.connect(str(path))
            idle.append(conn)
        try:
            start = time.monotonic()
            listed = whiteboard(env, "export", timeout=30)
            assert listed.returncode == 0, listed.stderr
            assert KEY in listed.stdout and time.monotonic() - start < 10
        finally:
            for conn in idle:
                conn.close()
        assert host.request("ping")["ok"]


def test_a_write_that_fails_midway_leaves_no_file(root):
    """Issue 28: the export was written straight into the new file, so a full disk (here a
    file-size limit, the same failed write) left half a conversation behind."""
    import resource
    import signal

    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails (EFBIG) instead of killing
        resource.setrlimit(resource.RLIMIT_FSIZE, (200, 200))

    env = isolated_env(root / "env")
    target = root / "out" / "session.vbrief.json"
    target.parent.mkdir()
    with started(env):
        cmd = [sys.executable, "-c", "import sys; from whiteboard.cli import main; sys.exit(main())",
               "export", "--key", KEY, "-o", str(target)]
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60, preexec_fn=small_files)
        assert out.returncode == 1 and "nothing was written" in out.stderr, out.stderr
        assert list(target.parent.iterdir()) == []  # no half file, no temporary one
        whole = whiteboard(env, "export", "--key", KEY, "-o", str(target))
        assert whole.returncode == 0 and json.loads(target.read_text())["sessionSnapshot"]
