"""Atomic file writes: a reader (a browser, another host) never sees half a file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write(path: Path, text: str, mode: int = 0o644) -> str:
    """Write text to path via temp file + rename. Returns "unchanged", "updated" or "created"."""
    data = text.encode("utf-8")
    try:
        if path.read_bytes() == data and (os.name == "nt" or (path.stat().st_mode & 0o777) == mode):
            return "unchanged"
        outcome = "updated"
    except FileNotFoundError:
        outcome = "created"
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return outcome


def remove_empty_dir(path: Path) -> None:
    """Remove a directory of ours if nothing else is in it."""
    try:
        path.rmdir()
    except OSError:
        pass
