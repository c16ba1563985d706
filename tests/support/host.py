"""Start the real host process and talk to it over real pipes."""

from __future__ import annotations

import json
import os
import select
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO
from unittest import mock

from whiteboard.config import EXTENSION_ID
from whiteboard.server.control import runtime_dir

ORIGIN = f"chrome-extension://{EXTENSION_ID}/"


def ok(reply: dict) -> dict:
    """The reply, asserted successful (the failed reply is the assertion's message)."""
    assert reply["ok"], reply
    return reply


def isolated_env(root: Path, **extra: str) -> dict[str, str]:
    """HOME, XDG dirs and TMPDIR inside root: nothing the host writes can escape it."""
    dirs = {name: root / name for name in ("home", "config", "data", "cache", "state", "runtime", "tmp")}
    for d in dirs.values():
        d.mkdir(parents=True, exist_ok=True, mode=0o700)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WHITEBOARD_", "XDG_"))}
    env.update(HOME=str(dirs["home"]), XDG_CONFIG_HOME=str(dirs["config"]), XDG_DATA_HOME=str(dirs["data"]),
               XDG_CACHE_HOME=str(dirs["cache"]), XDG_STATE_HOME=str(dirs["state"]),
               XDG_RUNTIME_DIR=str(dirs["runtime"]), TMPDIR=str(dirs["tmp"]))
    env.update(extra)
    return env


def files_under(root: Path) -> Iterator[Path]:
    """Every regular file under root: what a privacy check on disk reads."""
    for dirpath, _, names in os.walk(root):
        for name in names:
            path = Path(dirpath) / name
            if path.is_file() and not path.is_symlink():
                yield path


def vault_path(root: Path) -> Path:
    """The memory vault of a host started with isolated_env(root)."""
    return root / "data" / "whiteboard" / "memories.db"


def key_path(root: Path) -> Path:
    """The vault's key file of a host started with isolated_env(root)."""
    return root / "config" / "whiteboard" / "secret.key"


def path_without_browsers(root: Path) -> str:
    """A PATH with every command of this one except the browsers' (root/bin holds links):
    for an installer run that must find no installed browser on a machine that has one."""
    from whiteboard.install.browsers import BROWSERS

    browsers = {c for b in BROWSERS.values() for c in b.linux_commands}
    bin_dir = root / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        if not os.path.isdir(directory):
            continue
        for name in os.listdir(directory):
            link = bin_dir / name
            if name not in browsers and not link.exists() and os.access(Path(directory, name), os.X_OK):
                link.symlink_to(Path(directory, name))
    return str(bin_dir)


class FramedPeer:
    """The browser's side of native messaging: length-prefixed JSON frames to the host, and
    its frames back. `to_host` is a binary file; `from_host` a file descriptor, read with
    select so that `recv`'s timeout holds even when the host sends nothing."""

    def __init__(self, to_host: BinaryIO, from_host: int):
        self._to_host, self._from_host = to_host, from_host
        self._next_id = 0

    def send_raw(self, body: bytes, length: int | None = None) -> None:
        self._to_host.write(struct.pack("<I", len(body) if length is None else length) + body)
        self._to_host.flush()

    def send(self, message: dict) -> None:
        self.send_raw(json.dumps(message).encode())

    def recv(self, timeout: float = 10.0) -> dict:
        deadline = time.monotonic() + timeout
        (n,) = struct.unpack("<I", self._read(4, deadline))
        return json.loads(self._read(n, deadline))

    def _read(self, n: int, deadline: float) -> bytes:
        out = b""
        while len(out) < n:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self._from_host], [], [], remaining)[0]:
                raise TimeoutError("no reply from the host in time")
            chunk = os.read(self._from_host, n - len(out))
            if not chunk:
                raise EOFError("host closed stdout")
            out += chunk
        return out

    def request(self, type_: str, **fields) -> dict:
        """Send one request and return its reply (events for it are skipped)."""
        self._next_id += 1
        rid = self._next_id
        self.send({"id": rid, "type": type_, **fields})
        while True:
            msg = self.recv()
            if msg.get("id") == rid:
                return msg

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class HostProcess(FramedPeer):
    """`whiteboard-host` as the browser starts it, over real pipes: for what only a process
    has (framing on stdin/stdout, the early responder, the origin check, exit, signals)."""

    def __init__(self, env: dict[str, str] | None = None, args: list[str] | None = None,
                 wrapper: list[str] = (), python: str = sys.executable, preexec_fn=None):
        """`wrapper` runs the host through another command (e.g. one that mounts a dir read-only)."""
        cmd = [*wrapper, python, "-m", "whiteboard.server.main", *(args if args is not None else [ORIGIN])]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=env, preexec_fn=preexec_fn)
        super().__init__(self.proc.stdin, self.proc.stdout.fileno())

    def close(self, timeout: float = 5.0) -> int:
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            return self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            self.stderr_text = self.proc.stderr.read().decode(errors="replace") if self.proc.stderr else ""


def socket_dir(env: dict) -> Path:
    """Where a host started with env puts its socket (the same rule the CLI follows)."""
    with mock.patch.dict(os.environ, env, clear=True):
        return runtime_dir()


def socket_of(host: HostProcess, env: dict, timeout: float = 15.0) -> Path:
    """The host's socket once it listens (the message stack loads on a thread first)."""
    path = socket_dir(env) / f"host-{host.proc.pid}.sock"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            return path
        time.sleep(0.05)
    raise AssertionError(f"no control socket at {path}")
