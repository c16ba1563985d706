"""The sync key, wrapped by a key derived from the user's passphrase, in the folder.

The folder holds `whiteboard-sync.key`: scrypt's parameters and salt, and the 256-bit sync
key sealed with AES-GCM under scrypt(passphrase). Every computer that knows the
passphrase unwraps the same sync key; each keeps it in its own vault (encrypted under its
own vault key), so the passphrase is asked once per computer. A wrong passphrase fails the
AES-GCM tag: refused, nothing changed. Parameters: N = 2^17, r = 8, p = 1 (128 MiB, about
half a second here: OWASP's scrypt minimum); the file names them, so a later release can
raise them and still read older files. A hostile file cannot make us allocate more than
MAX_SCRYPT_BYTES.
"""

from __future__ import annotations

import base64
import json
import os
import stat
from pathlib import Path

from ... import crypto, files
from ...protocol.errors import BadRequest, Unavailable

KEY_FILE = "whiteboard-sync.key"
FORMAT = "whiteboard-sync-key"
SCRYPT = {"n": 2 ** 17, "r": 8, "p": 1}
SALT_BYTES = 16
MAX_SCRYPT_BYTES = 1 << 30  # 128 * r * n: what a key file may make us allocate
MAX_FILE_BYTES = 64 * 1024
WRAP_AAD = b"whiteboard:sync:key"
MIN_PASSPHRASE = 8


class WrongPassphrase(BadRequest):
    """The passphrase does not unwrap the folder's sync key."""


def _kek(passphrase: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

    return Scrypt(salt=salt, length=crypto.KEY_BYTES, n=n, r=r, p=p).derive(passphrase.encode())


def check_passphrase(passphrase: str) -> str:
    if len(passphrase) < MIN_PASSPHRASE:
        raise BadRequest(f"passphrase: at least {MIN_PASSPHRASE} characters (it is all that protects the folder's "
                         "copies of your memories)")
    return passphrase


def create(folder: Path, passphrase: str) -> bytes:
    """A new sync key, wrapped into the folder's key file; the key. The file is written whole
    and linked into place, so two computers enabling the same folder at once cannot both win."""
    path = folder / KEY_FILE
    key = os.urandom(crypto.KEY_BYTES)
    salt = os.urandom(SALT_BYTES)
    wrapped = crypto.encrypt(_kek(check_passphrase(passphrase), salt, **SCRYPT), key, WRAP_AAD)
    document = {"format": FORMAT, "version": 1, "kdf": {"name": "scrypt", **SCRYPT, "salt": _b64(salt)},
                "key": _b64(wrapped)}
    tmp = folder / f".{KEY_FILE}.{os.getpid()}.tmp"
    try:
        with open(tmp, "x", encoding="utf-8") as f:
            f.write(json.dumps(document, indent=1) + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.link(tmp, path)
    except FileExistsError:
        raise BadRequest(f"{path} exists: this folder is already a sync folder; use `whiteboard sync join`") \
            from None
    except OSError as exc:
        raise files.unwritable(exc, path) from None
    finally:
        tmp.unlink(missing_ok=True)
    return key


def unwrap(folder: Path, passphrase: str) -> bytes:
    """The sync key from the folder's key file; WrongPassphrase when the passphrase does not open it."""
    path = folder / KEY_FILE
    not_regular = BadRequest(f"{path} is not a regular file (a link or a pipe the sync engine copied?): not read; "
                             "replace it with the key file from the computer that enabled sync")
    try:
        # Never through a link, never waiting on a pipe: the folder's entries come from other devices.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
                     | getattr(os, "O_BINARY", 0))
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise not_regular
            raw = f.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise BadRequest(f"{folder} holds no {KEY_FILE}: not a sync folder (yet). Use `whiteboard sync enable` on "
                         "the first computer, or wait until the sync engine has copied the folder here") from None
    except OSError as exc:
        if path.is_symlink():
            raise not_regular from None
        raise Unavailable(f"cannot read {path} ({exc.strerror})") from None
    try:
        document = json.loads(raw)
        kdf = document["kdf"]
        n, r, p = kdf["n"], kdf["r"], kdf["p"]
        salt, wrapped = base64.b64decode(kdf["salt"], validate=True), base64.b64decode(document["key"], validate=True)
        if document["format"] != FORMAT or kdf["name"] != "scrypt":
            raise ValueError
        if document["version"] != 1:
            raise BadRequest(f"{path} was written by a newer Whiteboard (version {document['version']!r:.20}): "
                             "update Whiteboard here")
        if not (all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in (n, r, p))
                and n & (n - 1) == 0 and 1 < n and 128 * r * n <= MAX_SCRYPT_BYTES and p <= 16):
            raise ValueError
    except (ValueError, KeyError, TypeError):
        raise BadRequest(f"{path} is not a Whiteboard sync key file (not fully copied yet, damaged or tampered "
                         "with)") from None
    try:
        return crypto.decrypt(_kek(passphrase, salt, n, r, p), wrapped, WRAP_AAD)
    except crypto.DecryptError:
        raise WrongPassphrase(f"the passphrase does not open {path} (wrong passphrase, or the file was tampered "
                              "with); nothing was changed") from None


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()
