"""AES-GCM with a 256-bit key kept in a 0600 file in the user config dir.

Shared by the memory vault and the stored model API key. A missing or wrong key is
reported as such; nothing here ever creates a new key over an existing file.
"""

from __future__ import annotations

import os
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

KEY_BYTES = 32
NONCE_BYTES = 12


class KeyFileError(Exception):
    """The key file is missing, unreadable or malformed."""


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
    """Write a new random key with mode 0600; refuses to replace an existing file."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    key = AESGCM.generate_key(bit_length=KEY_BYTES * 8)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key)
        f.flush()
        os.fsync(f.fileno())
    return key


def load_or_create_key(path: Path) -> bytes:
    if path.exists():
        return load_key(path)
    return create_key(path)


def encrypt(key: bytes, plaintext: bytes, aad: bytes = b"") -> bytes:
    """nonce || ciphertext+tag; aad binds the ciphertext to its row/purpose."""
    nonce = os.urandom(NONCE_BYTES)
    return nonce + AESGCM(key).encrypt(nonce, plaintext, aad)


def decrypt(key: bytes, blob: bytes, aad: bytes = b"") -> bytes:
    if len(blob) < NONCE_BYTES + 16:
        raise DecryptError("ciphertext is too short")
    try:
        return AESGCM(key).decrypt(blob[:NONCE_BYTES], blob[NONCE_BYTES:], aad)
    except InvalidTag:
        raise DecryptError("ciphertext does not open with this key (wrong key or tampered data)") from None
