"""Which hosts use this data folder: each running host holds a lock (flock) on a file of its
own there, data_dir()/hosts/host-<pid>.lock, from its start to its exit (the kernel lets go
when the process dies, however it dies). `whiteboard uninstall --purge` asks the files of
this data folder, so it finds the hosts of this vault and only those, with or without a
control socket, whatever their HOME or runtime folder (docs/install.md). The file holds the
pid only. No flock on Windows: nothing is held there and purge finds no host.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import IO

from ..config import data_dir

log = logging.getLogger(__name__)
HOSTS_DIR = "hosts"

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None


def hosts_dir() -> Path:
    return data_dir() / HOSTS_DIR


def hold() -> IO[bytes] | None:
    """This host's lock, held for as long as the returned file stays open (keep it)."""
    if fcntl is None:
        return None
    folder = hosts_dir()
    path = folder / f"host-{os.getpid()}.lock"
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


def running() -> list[int]:
    """Pids of the hosts holding their lock in this data folder now; stale files (a host that
    died) are removed on the way."""
    folder = hosts_dir()
    if fcntl is None or not folder.is_dir():
        return []
    pids = []
    for path in folder.glob("host-*.lock"):
        try:
            with open(os.open(path, os.O_RDONLY | os.O_NOFOLLOW)) as probe:
                try:
                    fcntl.flock(probe, fcntl.LOCK_SH | fcntl.LOCK_NB)
                except BlockingIOError:
                    pid = path.stem.removeprefix("host-")
                    pids.append(int(pid) if pid.isdigit() else -1)
                    continue
            path.unlink(missing_ok=True)  # nobody holds it: its host is gone
        except OSError:
            continue
    return sorted(pids)
