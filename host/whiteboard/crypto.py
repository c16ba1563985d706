"""AES-GCM with a 256-bit key kept in a 0600 file in the user config dir.

Shared by the memory vault and the stored model API key. A missing or wrong key is
reported as such; nothing here ever creates a new key over an existing file, nor a new
key while a file encrypted with the old one exists. Two hosts (two browsers) creating
the key at the same moment both end up with the one that was linked into place first.
"""

from __future__ import annotations

import hmac
import os
import tempfile
from hashlib import sha256
from pathlib import Path
from typing import Iterable

KEY_BYTES = 32
NONCE_BYTES = 12


class KeyFileError(Exception):
    """The key file is missing, unreadable or malformed."""


class KeyMissing(KeyFileError):
    """No key file, but files encrypted with a key exist: a new key would orphan them."""

    def __init__(self, path: Path, encrypted: list[Path]):
        names = " and ".join(str(p) for p in encrypted)
        super().__init__(f"encryption key file {path} is missing but {names} was encrypted with it; restore the "
                         "key file (from a backup), or remove what it encrypted to start afresh. No new key was made")
        self.path = path
        self.encrypted = encrypted


class DecryptError(Exception):
    """A ciphertext does not open with this key: wrong key or tampered data."""


def load_key(path: Path) -> bytes:
    try:
        key = path.read_bytes()
    except FileNotFoundError:
        raise KeyFileError(f"encryption key file {path} is missing") from None
    except OSError as exc:
        raise KeyFileError(f"encryption key file {path} cannot be read ({exc.strerror})") from None
    if len(key) != KEY_BYTES:
        raise KeyFileError(f"encryption key file {path} is not a {KEY_BYTES * 8}-bit key")
    return key


def create_key(path: Path) -> bytes:
    """Put a new random key (mode 0600) at path unless one is there; returns the key at
    path, which is another process's when it got there first. The key is written whole to
    a temp file and then linked into place, which fails if path exists: no reader ever
    sees a half-written key, and no key is ever replaced. OSError if the dir is unwritable."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # ~9 MB: only when a key is used

    key = AESGCM.generate_key(bit_length=KEY_BYTES * 8)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(key)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o600)
        try:
            # link() and Windows' rename() both refuse an existing target: O_EXCL for a whole file.
            (os.rename if os.name == "nt" else os.link)(tmp, path)
        except FileExistsError:
            return load_key(path)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return key


def load_or_create_key(path: Path, encrypted: Iterable[Path] = ()) -> bytes:
    """The key at path; a new one only when there is none and none of the files in
    `encrypted` (data written with a key from this path) exists: else KeyMissing."""
    if path.exists():
        return load_key(path)
    orphaned = [p for p in encrypted if p.exists()]
    if orphaned:
        raise KeyMissing(path, orphaned)
    return create_key(path)


def derive_key(key: bytes, purpose: bytes) -> bytes:
    """A 256-bit subkey for one purpose (HMAC-SHA256 as a PRF, the HKDF-Expand step with one block)."""
    return hmac.new(key, purpose + b"\x01", sha256).digest()


def keyed_hash(key: bytes, data: bytes) -> bytes:
    """HMAC-SHA256: equal inputs give equal outputs, but only to a holder of the key."""
    return hmac.new(key, data, sha256).digest()


def encrypt(key: bytes, plaintext: bytes, aad: bytes = b"") -> bytes:
    """nonce || ciphertext+tag; aad binds the ciphertext to its row/purpose."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    nonce = os.urandom(NONCE_BYTES)
    return nonce + AESGCM(key).encrypt(nonce, plaintext, aad)


def decrypt(key: bytes, blob: bytes, aad: bytes = b"") -> bytes:
    if len(blob) < NONCE_BYTES + 16:
        raise DecryptError("ciphertext is too short")
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    try:
        return AESGCM(key).decrypt(blob[:NONCE_BYTES], blob[NONCE_BYTES:], aad)
    except InvalidTag:
        raise DecryptError("ciphertext does not open with this key (wrong key or tampered data)") from None
