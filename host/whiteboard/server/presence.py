"""Which processes use this data folder: each running browser host and each desktop apps'
server (`whiteboard mcp`) holds a lock (flock) on a file of its own there,
data_dir()/hosts/host-<pid>.lock or mcp-<pid>.lock, from its start to its exit (the kernel
lets go when the process dies, however it dies). `whiteboard uninstall --purge` asks the
files of this data folder, so it finds the processes of this vault and only those, with or
without a control socket, whatever their HOME or runtime folder (docs/install.md). The file
holds the pid only. No flock on Windows: nothing is held there and purge finds none.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import IO

from ..config import data_dir

log = logging.getLogger(__name__)
HOSTS_DIR = "hosts"
HOST, MCP = "host", "mcp"  # what holds a lock: a browser's host, a desktop app's `whiteboard mcp`
KINDS = (HOST, MCP)

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None


def hosts_dir() -> Path:
    return data_dir() / HOSTS_DIR


def hold(kind: str = HOST) -> IO[bytes] | None:
    """This process's lock, held for as long as the returned file stays open (keep it)."""
    if kind not in KINDS:
        raise ValueError(f"kind: one of {', '.join(KINDS)}")
    if fcntl is None:
        return None
    folder = hosts_dir()
    path = folder / f"{kind}-{os.getpid()}.lock"
    try:
        folder.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        folder.mkdir(exist_ok=True, mode=0o700)
        held = open(os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600), "r+b")
    except OSError as exc:
        log.warning("cannot mark this host as running in %s (%s): uninstall --purge will not see it",
                    folder, exc.strerror or type(exc).__name__)
        return None
    fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a fresh pid's file: never held by another
    held.truncate(0)
    held.write(str(os.getpid()).encode())
    held.flush()
    return held


def running() -> list[tuple[str, int]]:
    """(kind, pid) of the processes holding their lock in this data folder now (kind: HOST or
    MCP); stale files (a process that died) are removed on the way."""
    folder = hosts_dir()
    if fcntl is None or not folder.is_dir():
        return []
    found = []
    for kind in KINDS:
        for path in folder.glob(f"{kind}-*.lock"):
            try:
                with open(os.open(path, os.O_RDONLY | os.O_NOFOLLOW)) as probe:
                    try:
                        fcntl.flock(probe, fcntl.LOCK_SH | fcntl.LOCK_NB)
                    except BlockingIOError:
                        pid = path.stem.removeprefix(f"{kind}-")
                        found.append((kind, int(pid) if pid.isdigit() else -1))
                        continue
                path.unlink(missing_ok=True)  # nobody holds it: its process is gone
            except OSError:
                continue
    return sorted(found)
