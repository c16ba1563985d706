"""A local, read-only control channel so `whiteboard export` can reach a running host.

The browser starts the host over pipes nobody else can use, so the host also listens
on a Unix domain socket: `host-<pid>.sock` in the user's runtime directory
(platformdirs: $XDG_RUNTIME_DIR/whiteboard, else /run/user/<uid>/whiteboard, else
runtime-<uid>/whiteboard in the temp dir; `whiteboard-<uid>` in the temp dir when
that path is too long for a socket). The directory is 0700, the socket 0600, and on
Linux each peer's uid is checked (SO_PEERCRED); elsewhere the permissions alone
guard it. It speaks the same framing but serves only ALLOWED (read-only) requests:
anything else gets `forbidden`. At most MAX_CONNECTIONS clients at once; when all
are taken, the one idle longest is closed to make room (or, if every one is running a
request, the newcomer gets `unavailable`/"busy"). One socket per host process, so
several browsers' hosts coexist; the socket is removed on exit (a host killed outright
leaves a stale one, which the next host removes and clients skip). Windows has no such channel.
WHITEBOARD_CONTROL_SOCKET=0 turns it off.
"""

from __future__ import annotations

import logging
import os
import socket
import stat
import struct
import sys
import tempfile
import threading
import time
import warnings
from pathlib import Path

import platformdirs

from ..app import App
from ..config import APP_NAME
from ..protocol.errors import Forbidden, WhiteboardError, error_reply
from ..protocol.framing import FrameWriter, iter_frames
from .dispatch import Channel
from .pool import Busy

log = logging.getLogger("whiteboard.control")

ALLOWED = frozenset({"ping", "session.list", "vbrief.export"})
REQUEST_CAP = 64 * 1024  # allowed requests are tiny
MAX_REPLY = 64 * 1024 * 1024  # no browser in between: only a sanity cap
MAX_CONNECTIONS = 4
IDLE_SECONDS = 60.0
EVICT_SECONDS = 2.0
SOCKET_GLOB = "host-*.sock"
_MAX_SOCKET_PATH = 103  # sun_path holds 104 bytes with its NUL on macOS, 108 on Linux


def runtime_dir() -> Path:
    """Where host sockets live; the same answer for the host and the CLI in one environment."""
    if os.environ.get("WHITEBOARD_RUNTIME_DIR"):
        return Path(os.environ["WHITEBOARD_RUNTIME_DIR"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns when it falls back; the fallback is fine
        path = Path(platformdirs.user_runtime_dir(APP_NAME, ensure_exists=False))
    if len(os.fsencode(path / f"host-{2 ** 22}.sock")) > _MAX_SOCKET_PATH:  # 2**22: Linux's largest pid
        # TMPDIR read now: tempfile caches its answer for the process's life.
        path = Path(os.environ.get("TMPDIR") or tempfile.gettempdir()) / f"{APP_NAME}-{os.getuid()}"
    return path


def socket_path(directory: Path, pid: int) -> Path:
    return directory / f"host-{pid}.sock"


def ensure_private_dir(path: Path) -> None:
    """Create path 0700 or accept it only if it is ours, a real directory, and not open to others."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise PermissionError("the runtime directory is not a directory owned by this user")
    if stat.S_IMODE(info.st_mode) & 0o077:
        os.chmod(path, 0o700)


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sockets_by_pid(directory: Path) -> dict[int, Path]:
    """The host sockets in `directory`, by the pid their name carries (host-<pid>.sock)."""
    found = {}
    for path in directory.glob(SOCKET_GLOB):
        pid = path.stem.removeprefix("host-")
        if pid.isdigit():
            found[int(pid)] = path
    return found


def remove_stale_sockets(directory: Path) -> None:
    for pid, path in sockets_by_pid(directory).items():
        if pid != os.getpid() and not pid_alive(pid):
            path.unlink(missing_ok=True)


def peer_uid(conn: socket.socket) -> int | None:
    """The connecting process's uid (Linux SO_PEERCRED); None where the OS does not tell."""
    if not hasattr(socket, "SO_PEERCRED"):
        return None
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1]


def _allowlist(raw: dict) -> WhiteboardError | None:
    if raw.get("type") in ALLOWED:
        return None
    return Forbidden(f"the control socket serves only {', '.join(sorted(ALLOWED))}")


class _Connection:
    """One client: its socket, and since when it has waited for a frame (None while a request runs)."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.idle_since: float | None = time.monotonic()

    def frames(self, rfile):
        for item in iter_frames(rfile, REQUEST_CAP):
            self.idle_since = None
            yield item
            self.idle_since = time.monotonic()

    def evict(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)  # its blocked read returns EOF; its thread ends
        except OSError:
            pass


class ControlSocket:
    def __init__(self, app: App, directory: Path):
        self.app = app
        self.path = socket_path(directory, os.getpid())
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self._connections: set[_Connection] = set()
        self._connections_lock = threading.Lock()
        self._closed = threading.Event()
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.path.unlink(missing_ok=True)
        self.listener.bind(str(self.path))
        # The 0700 directory already keeps others out in the moment before this chmod.
        os.chmod(self.path, 0o600)
        self._inode = os.stat(self.path).st_ino
        self.listener.listen(MAX_CONNECTIONS)
        self.listener.settimeout(0.5)

    def serve_forever(self) -> None:
        while not self.app.stopping.is_set() and not self._closed.is_set():
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                break
            if not self._take_slot():
                self._refuse(conn)
                continue
            try:
                threading.Thread(target=self._serve_client, args=(conn,), name="control-client", daemon=True).start()
            except RuntimeError:  # the OS refused a thread (a process limit)
                self._slots.release()
                self._refuse(conn)
        self.close()

    def _take_slot(self) -> bool:
        """A slot for a new client; idle clients make room, longest idle first, so clients that
        connect and send nothing cannot lock the CLI out. False when every slot is busy."""
        if self._slots.acquire(blocking=False):
            return True
        with self._connections_lock:
            idle = [c for c in self._connections if c.idle_since is not None]
        if not idle:
            return False
        min(idle, key=lambda c: c.idle_since).evict()
        return self._slots.acquire(timeout=EVICT_SECONDS)

    @staticmethod
    def _refuse(conn: socket.socket) -> None:
        try:
            conn.settimeout(EVICT_SECONDS)
            with conn, conn.makefile("wb") as wfile:
                FrameWriter(wfile).write(error_reply(None, Busy(f"{MAX_CONNECTIONS} clients are being served")))
        except OSError:
            pass

    def _serve_client(self, conn: socket.socket) -> None:
        connection = _Connection(conn)
        with self._connections_lock:
            self._connections.add(connection)
        try:
            conn.settimeout(IDLE_SECONDS)
            with conn, conn.makefile("rb") as rfile, conn.makefile("wb") as wfile:
                writer = FrameWriter(wfile, MAX_REPLY)
                uid = peer_uid(conn)
                if uid is not None and uid != os.getuid():
                    log.warning("refused a control connection from another user")
                    refusal = Forbidden("the control socket serves only the user running the host")
                    writer.write(error_reply(None, refusal))
                    return
                # Requests run inline on this thread: not on the pool, not in app.inflight (the browser's ids).
                Channel(self.app, writer, name="control", admit=_allowlist).serve(connection.frames(rfile))
        except OSError:
            pass  # the client went away or idled out
        finally:
            with self._connections_lock:
                self._connections.discard(connection)
            self._slots.release()

    def close(self) -> None:
        if self._closed.is_set():
            return
        self._closed.set()
        self.listener.close()
        try:
            if os.stat(self.path).st_ino == self._inode:  # never remove another host's socket
                self.path.unlink()
        except OSError:
            pass


def start_control_socket(app: App) -> ControlSocket | None:
    """Listen for local read-only clients; None when off, unsupported or impossible (logged)."""
    if os.environ.get("WHITEBOARD_CONTROL_SOCKET", "1") == "0" or not hasattr(socket, "AF_UNIX") \
            or sys.platform == "win32":
        return None
    try:
        directory = runtime_dir()
        ensure_private_dir(directory)
        remove_stale_sockets(directory)
        control = ControlSocket(app, directory)
    except OSError as exc:
        log.warning("no control socket (%s); `whiteboard export` cannot reach this host", type(exc).__name__)
        return None
    app.on_close.append(control.close)  # the socket file goes when the host exits
    threading.Thread(target=control.serve_forever, name="control-socket", daemon=True).start()
    return control
