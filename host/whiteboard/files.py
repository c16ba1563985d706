"""Atomic file writes: a reader (a browser, another host) never sees half a file."""

from __future__ import annotations

import errno
import json
import os
import stat
import tempfile
from pathlib import Path

from .protocol.errors import BadRequest, Unavailable

# A dir the user cannot write: a read-only mount, or permissions.
_READ_ONLY = {errno.EROFS, errno.EACCES, errno.EPERM}


def read_json(path: Path, unreadable: str) -> object | None:
    """One of our JSON settings files, None when there is none; Unavailable(unreadable) when it
    cannot be read or is not JSON (the caller checks the shape)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        raise Unavailable(unreadable) from None


def unwritable(exc: OSError, path: Path) -> Unavailable:
    """A failed write of one of our files as the typed error, with reason `read_only` when
    the file system or permissions refuse it (the UI tells the user to fix the folder)."""
    if exc.errno in _READ_ONLY:
        return Unavailable(f"cannot write {path}: its folder is read-only or not writable by this user "
                           f"({exc.strerror}); make it writable and try again", reason="read_only")
    return Unavailable(f"cannot write {path} ({exc.strerror or type(exc).__name__})", reason="write_failed")


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
    tmp = _synced_temp(path, data)
    try:
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return outcome


def _synced_temp(path: Path, data: bytes) -> Path:
    """`data` in a new temp file beside `path` (mkstemp: exclusive, 0600), synced to disk."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp)


def write_private(path: Path, text: str) -> None:
    """A file only this user may read (an export of memories), replacing any file at path
    whole: the text goes to a new temp file beside it (mkstemp: O_CREAT | O_EXCL | O_NOFOLLOW,
    0600) that is renamed over it, so the old file's mode and its other hard links never see
    the text and no reader sees half of it. A symlink at path is refused, not followed (were
    one put there after this check, the rename replaces the link itself), and so is anything
    else but a regular file (a device, a pipe: the rename would replace it)."""
    try:
        kind = os.lstat(path).st_mode
    except FileNotFoundError:
        kind = stat.S_IFREG
    except OSError as exc:
        raise unwritable(exc, path) from None
    if stat.S_ISLNK(kind):
        raise BadRequest(f"{path} is a symbolic link; Whiteboard does not write through one: give the file itself "
                         "or a new name")
    if not stat.S_ISREG(kind):
        raise BadRequest(f"{path} is not a regular file; give a file name")
    try:
        atomic_write(path, text, 0o600)
    except OSError as exc:
        raise unwritable(exc, path) from None


def create_private(path: Path, text: str) -> None:
    """A new file only this user may read (an export of a conversation), whole or not at all:
    the text goes to a new temp file beside it (mkstemp: exclusive, 0600), synced, then is
    linked at `path`, which fails if anything is there (FileExistsError): nothing is ever
    overwritten, and a full disk or a kill mid-write leaves no half file at `path`."""
    tmp = _synced_temp(path, text.encode("utf-8"))
    try:
        os.link(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def remove_empty_dir(path: Path) -> None:
    """Remove a directory of ours if nothing else is in it."""
    try:
        path.rmdir()
    except OSError:
        pass
