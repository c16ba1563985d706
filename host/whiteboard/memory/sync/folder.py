"""The change files in the sync folder: each computer appends to its own, never to another's.

A file `<device id>-<generation>.wbsync` (16 hex digits: a random id, not the computer's
name) is an 8-byte magic (format version in its last byte) and records, each a 4-byte
big-endian length and an AES-GCM blob under the sync key (whiteboard.crypto: nonce ||
ciphertext+tag) whose associated data is the file's name and the record's position in it:
a record moved to another file or place, a file renamed by the sync engine ("conflicted
copy"), a record cut short or changed, all fail to open. A record's plaintext is JSON
(this computer's name, whether it is a snapshot, the ops), padded with spaces to a whole
KiB so its size tells little about what changed.

Reading never applies part of a record; it stops at the first record it cannot use, says
why (`Skipped`), and starts there again next time, when the sync engine may have copied
the rest. The name pattern is matched whole by a regex with no nested repetition (linear).
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import struct
import tempfile
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from ... import crypto
from ...protocol.errors import Unavailable
from ..model import MAX_TEXT_CHARS
from .crdt import op_problem
from .passphrase import KEY_FILE

SUFFIX = ".wbsync"
NAME = re.compile(r"([0-9a-f]{16})-([0-9]{6})\.wbsync")
MAGIC = b"WBSYNC\x00"
VERSION = 1
HEADER = MAGIC + bytes([VERSION])
LENGTH = struct.Struct(">I")
MAX_RECORD = 64 << 20
PAD = 1024
OPS_PER_RECORD = 2000
MAX_AHEAD_MS = 24 * 3600 * 1000  # a record stamped further ahead of this clock waits (a clock set wrong)
# The folder's entries come from other devices (a sync engine copies links and may copy
# pipes): nothing in it is followed, and only regular files are read or written.
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
NONBLOCK = getattr(os, "O_NONBLOCK", 0)
NOT_REGULAR = "not a regular file (a link or a pipe the sync engine copied?); left alone, never read"


@dataclass
class Record:
    file: str
    device: str  # the writing computer's id
    name: str  # and its name, as it gave it
    at: float
    ops: list


@dataclass(frozen=True)
class Skipped:
    file: str
    problem: str


def file_name(device: str, generation: int) -> str:
    return f"{device}-{generation:06d}{SUFFIX}"


def _aad(name: str, index: int) -> bytes:
    return f"whiteboard:sync:record\n{name}\n{index}".encode()


def seal(key: bytes, name: str, index: int, payload: dict) -> bytes:
    plain = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    plain += b" " * (-len(plain) % PAD)
    blob = crypto.encrypt(key, plain, _aad(name, index))
    return LENGTH.pack(len(blob)) + blob


def read_changes(folder: Path, key: bytes, own: str, progress: dict[str, tuple[int, int]], now_ms: int
                 ) -> tuple[list[Record], list[Skipped], dict[str, tuple[int, int] | None]]:
    """The records of other computers' files past what was read (progress: {file: (bytes,
    records)}), what was skipped and why, and the new progress (None: the file is gone)."""
    aead = AESGCM(key)
    records: list[Record] = []
    skipped: list[Skipped] = []
    reads: dict[str, tuple[int, int] | None] = {}
    try:
        names = sorted(os.listdir(folder))
    except OSError as exc:
        raise Unavailable(f"the sync folder {folder} cannot be read ({exc.strerror})") from None
    present = set()
    for name in names:
        match = NAME.fullmatch(name)
        if match is None:
            if not name.startswith(".") and name != KEY_FILE and (SUFFIX in name or KEY_FILE in name):
                skipped.append(Skipped(name, "not a name Whiteboard writes: a copy the sync engine made (a "
                                             "conflicted copy?); left alone, never read"))
            continue
        present.add(name)
        if match[1] == own:
            continue
        at = progress.get(name, (0, 0))
        found, problem, end = _read_file(folder / name, name, aead, at, now_ms)
        records += found
        if end != at:
            reads[name] = end
        if problem:
            skipped.append(Skipped(name, problem))
    for name in progress:
        if name not in present and NAME.fullmatch(name)[1] != own:
            reads[name] = None
    return records, skipped, reads


def _read_file(path: Path, name: str, aead: AESGCM, at: tuple[int, int], now_ms: int
               ) -> tuple[list[Record], str, tuple[int, int]]:
    offset, index = at
    found: list[Record] = []
    try:
        fd = os.open(path, os.O_RDONLY | NOFOLLOW | NONBLOCK | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        return found, "", at
    except OSError as exc:
        if path.is_symlink():
            return found, NOT_REGULAR, at
        return found, f"cannot be read ({exc.strerror}); read again next time", at
    try:
        with os.fdopen(fd, "rb") as f:
            status = os.fstat(f.fileno())
            if not stat.S_ISREG(status.st_mode):
                return found, NOT_REGULAR, at
            size = status.st_size
            if size < offset:
                return [], "shorter than what was already read from it (replaced or cut short); read again " \
                           "when it is whole", at
            if offset == 0:
                header = f.read(len(HEADER))
                if len(header) < len(HEADER):
                    return [], "incomplete (still being copied?); read again when whole", at
                if header[:len(MAGIC)] != MAGIC:
                    return [], "not a Whiteboard change file (damaged?)", at
                if header[-1] > VERSION:
                    return [], f"written by a newer Whiteboard (format {header[-1]}): update Whiteboard here", at
                offset = len(HEADER)
            f.seek(offset)
            while offset < size:
                head = f.read(LENGTH.size)
                length = LENGTH.unpack(head)[0] if len(head) == LENGTH.size else 0
                if len(head) < LENGTH.size or offset + LENGTH.size + length > size:
                    return found, f"record {index} is incomplete (still being copied?); read again when whole", \
                        (offset, index)
                if length > MAX_RECORD:
                    return found, f"record {index} is larger than any Whiteboard writes (damaged?)", (offset, index)
                blob = f.read(length)
                record, problem = _open_record(aead, name, index, blob, now_ms)
                if problem:
                    return found, problem, (offset, index)
                found.append(record)
                offset += LENGTH.size + length
                index += 1
    except FileNotFoundError:
        return found, "", (offset, index)
    except OSError as exc:
        return found, f"cannot be read ({exc.strerror}); read again next time", (offset, index)
    return found, "", (offset, index)


def _open_record(aead: AESGCM, name: str, index: int, blob: bytes, now_ms: int) -> tuple[Record | None, str]:
    try:
        plain = aead.decrypt(blob[:crypto.NONCE_BYTES], blob[crypto.NONCE_BYTES:], _aad(name, index))
    except (InvalidTag, ValueError):
        return None, (f"record {index} does not open with the sync key (tampered with, damaged, or copied under "
                      "another name); left alone")
    try:
        payload = json.loads(plain)
        version, device, ops = payload["v"], payload["device"], payload["ops"]
        if not (isinstance(device, str) and isinstance(ops, list)):
            raise TypeError
    except (ValueError, KeyError, TypeError):
        return None, f"record {index} is not a change record"
    if version != VERSION:
        return None, f"record {index} was written by a newer Whiteboard (version {version!r:.20}): update " \
                     "Whiteboard here"
    for op in ops:
        problem = op_problem(op, MAX_TEXT_CHARS)
        if problem:
            return None, f"record {index} holds {problem} (a newer Whiteboard?); none of it applied"
        if op[2][0] > now_ms + MAX_AHEAD_MS:
            hours = (op[2][0] - now_ms) / 3600_000
            return None, (f"record {index} is dated {hours:.0f} hours ahead of this computer's clock (a clock set "
                          "wrong?); read again when this clock reaches it")
    return Record(name, NAME.fullmatch(name)[1], device[:100], float(payload.get("at", 0) or 0), ops), ""


def append(folder: Path, name: str, at: tuple[int, int], blobs: list[bytes]) -> tuple[int, int]:
    """Append sealed records (made for positions at[1], at[1]+1, ...) to this computer's file
    at `name`, which holds at[0] bytes that were written whole; the new (bytes, records). A
    tail beyond at[0] (an append that a kill cut short) is cut off first. On a full disk the
    file is cut back and nothing counts as written (Unavailable, reason write_failed).
    FileLost when the file is not what this computer wrote: shorter, not a regular file (a
    link is never followed), or there already when it should be new."""
    path = folder / name
    offset, index = at
    try:
        fd = os.open(path, os.O_RDWR | NOFOLLOW | (os.O_CREAT | os.O_EXCL if offset == 0 else 0), 0o600)
    except FileExistsError:
        raise FileLost(name) from None
    except FileNotFoundError:
        raise FileLost(name) from None
    except OSError as exc:
        if path.is_symlink():
            raise FileLost(name) from None
        raise _unwritable(path, exc) from None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode) or status.st_size < offset:
            raise FileLost(name)
        data = (HEADER if offset == 0 else b"") + b"".join(blobs)
        try:
            os.ftruncate(fd, offset)
            os.lseek(fd, offset, os.SEEK_SET)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        except OSError as exc:
            try:
                os.ftruncate(fd, offset)
            except OSError:
                pass
            raise _unwritable(path, exc) from None
    finally:
        os.close(fd)
    return offset + len(data), index + len(blobs)


def write_whole(folder: Path, name: str, blobs: list[bytes]) -> tuple[int, int]:
    """A new file written beside under a new hidden name (made by this call, never an entry
    already there) and renamed into place, replacing whatever entry had the name: a snapshot."""
    data = HEADER + b"".join(blobs)
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            if hasattr(os, "fchmod"):
                os.fchmod(f.fileno(), 0o600)
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, folder / name)
    except OSError as exc:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        raise _unwritable(folder / name, exc) from None
    return len(data), len(blobs)


class FileLost(Exception):
    """This computer's own change file is shorter than it wrote it (deleted or replaced in the folder)."""


def _unwritable(path: Path, exc: OSError) -> Unavailable:
    why = "the disk is full" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else exc.strerror
    return Unavailable(f"cannot write the change file {path} ({why}); nothing of it counts as written, it is "
                       "written again on the next exchange", reason="write_failed")
