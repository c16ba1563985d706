"""A local, read-only control channel so `whiteboard export` can reach a running host.

The browser starts the host over pipes nobody else can use, so the host also listens
on a Unix domain socket: `host-<pid>.sock` in the user's runtime directory
(platformdirs: $XDG_RUNTIME_DIR/whiteboard, else /run/user/<uid>/whiteboard, else
runtime-<uid>/whiteboard in the temp dir; `whiteboard-<uid>` in the temp dir when
that path is too long for a socket). The directory is 0700, the socket 0600, and on
Linux each peer's uid is checked (SO_PEERCRED); elsewhere the permissions alone
guard it. It speaks the same framing but serves only ALLOWED (read-only) requests:
anything else gets `forbidden`. One socket per host process, so several browsers'
hosts coexist; the socket is removed on exit (a host killed outright leaves a stale
one, which the next host removes and clients skip). Windows has no such channel.
WHITEBOARD_CONTROL_SOCKET=0 turns it off.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import socket
import stat
import struct
import sys
import tempfile
import threading
import warnings
from pathlib import Path

import platformdirs

from ..actions import HANDLERS
from ..app import App, RequestContext
from ..config import APP_NAME
from ..protocol.errors import Forbidden, Internal, TooLarge, WhiteboardError
from ..protocol.envelope import Rejected, read_request
from ..protocol.framing import HEADER, OversizeFrame, ShortRead, read_frame

log = logging.getLogger("whiteboard.control")

ALLOWED = frozenset({"ping", "session.list", "vbrief.export"})
REQUEST_CAP = 64 * 1024  # allowed requests are tiny
MAX_REPLY = 64 * 1024 * 1024  # no browser in between: only a sanity cap
MAX_CONNECTIONS = 4
IDLE_SECONDS = 60.0
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


def remove_stale_sockets(directory: Path) -> None:
    for path in directory.glob(SOCKET_GLOB):
        pid = path.stem.removeprefix("host-")
        if pid.isdigit() and int(pid) != os.getpid() and not pid_alive(int(pid)):
            path.unlink(missing_ok=True)


def peer_uid(conn: socket.socket) -> int | None:
    """The connecting process's uid (Linux SO_PEERCRED); None where the OS does not tell."""
    if not hasattr(socket, "SO_PEERCRED"):
        return None
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1]


class _SocketWriter:
    """Whole frames under one lock; a peer that went away is not the host's failure."""

    def __init__(self, stream):
        self._stream = stream
        self._lock = threading.Lock()

    def write(self, message: dict) -> None:
        body = json.dumps(message, ensure_ascii=True, separators=(",", ":")).encode()
        if len(body) > MAX_REPLY:
            raise TooLarge(f"reply of {len(body)} bytes exceeds the {MAX_REPLY}-byte limit")
        with self._lock:
            try:
                self._stream.write(HEADER.pack(len(body)) + body)
                self._stream.flush()
            except OSError:
                pass


class ControlConnection:
    """One client: the dispatch loop's rules (one reply per request, typed errors) behind the allowlist.

    Requests run inline on the connection's thread and are never registered in
    app.inflight, whose ids are the browser's.
    """

    def __init__(self, app: App, rfile, wfile):
        self.app = app
        self.rfile = rfile
        self.writer = _SocketWriter(wfile)

    def serve(self) -> None:
        while not self.app.stopping.is_set():
            try:
                body = read_frame(self.rfile, REQUEST_CAP)
            except OversizeFrame as exc:
                self._error(None, TooLarge(str(exc)))
                continue
            except (ShortRead, OSError):
                break
            if body is None:
                break
            self.handle_body(body)

    def handle_body(self, body: bytes) -> None:
        try:
            request = read_request(body, self._admit)
        except Rejected as rejected:
            self._error(rejected.request_id, rejected.error)
            return
        self._run(request)

    @staticmethod
    def _admit(raw: dict) -> WhiteboardError | None:
        if raw.get("type") in ALLOWED:
            return None
        return Forbidden(f"the control socket serves only {', '.join(sorted(ALLOWED))}")

    def _run(self, request) -> None:
        ctx = RequestContext(self.app, request.id, self._event)
        try:
            reply = HANDLERS[request.type].handler(request, ctx)
            message = {"id": request.id, "ok": True, **reply.model_dump(mode="json", by_alias=True)}
        except WhiteboardError as exc:
            self._error(request.id, exc)
            return
        except Exception as exc:  # noqa: BLE001 - a failing request never takes the host down
            log.error("control %s raised %s", request.type, type(exc).__name__)  # never the message: content
            self._error(request.id, Internal(f"{request.type} failed ({type(exc).__name__}); see the host log"))
            return
        try:
            self.writer.write(message)
        except TooLarge as exc:
            self._error(request.id, exc)

    def _event(self, event: dict) -> None:
        try:
            self.writer.write(event)
        except TooLarge:
            log.warning("dropped an oversize %s event", event.get("event"))

    def _error(self, request_id, error: WhiteboardError) -> None:
        self.writer.write({"id": request_id, "ok": False, "error": error.to_wire()})


class ControlSocket:
    def __init__(self, app: App, directory: Path):
        self.app = app
        self.path = socket_path(directory, os.getpid())
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
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
            if not self._slots.acquire(blocking=False):
                conn.close()
                continue
            threading.Thread(target=self._serve_client, args=(conn,), name="control-client", daemon=True).start()
        self.close()

    def _serve_client(self, conn: socket.socket) -> None:
        try:
            conn.settimeout(IDLE_SECONDS)
            with conn, conn.makefile("rb") as rfile, conn.makefile("wb") as wfile:
                uid = peer_uid(conn)
                if uid is not None and uid != os.getuid():
                    log.warning("refused a control connection from another user")
                    _SocketWriter(wfile).write({"id": None, "ok": False, "error": Forbidden(
                        "the control socket serves only the user running the host").to_wire()})
                    return
                ControlConnection(self.app, rfile, wfile).serve()
        except OSError:
            pass  # the client went away
        finally:
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
    atexit.register(control.close)
    threading.Thread(target=control.serve_forever, name="control-socket", daemon=True).start()
    return control
