"""The encrypted vault: one SQLite file in the user data dir (DESIGN §5).

Each row's content (text, tags, keywords, old texts) is AES-GCM ciphertext with the
row id as associated data, so a row copied over another is detected too. The key is
the shared 256-bit key file in the user config dir (whiteboard.crypto). A check value
in `vault_meta` tells a wrong key from a tampered row even in an empty vault.

Durability: WAL with synchronous=FULL. A commit is on disk when it returns; in WAL mode
NORMAL would only risk the newest commits on power loss, but memory writes are rare
(a user's edit, an extraction every 30 s at most), so the fsync per commit is cheap and
we take it. Every write is one transaction: a crash leaves the last commit or the one
before, never half a memory. secure_delete overwrites deleted rows' pages.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from pathlib import Path
from typing import Iterable

import numpy as np
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from .. import crypto
from ..config import config_dir, data_dir
from .errors import MemoryDamaged, VaultUnavailable
from .model import MAX_OLD_TEXTS, Damaged, Memory, OldText
from .schema import migrate

VAULT_FILE = "memories.db"
KEY_FILE = "secret.key"  # shared with the stored model API key (whiteboard.llm.settings)
KEY_CHECK_PLAIN = b"whiteboard vault key check v1"
KEY_CHECK_AAD = b"whiteboard:vault:key_check"
_COLUMNS = "id, type, site, confidence, created_at, updated_at, usage_count, last_used_at, rev, content"


def default_paths() -> tuple[Path, Path]:
    return data_dir() / VAULT_FILE, config_dir() / KEY_FILE


def _aad(memory_id: str) -> bytes:
    return b"whiteboard:memory:" + memory_id.encode()


def _vector_aad(memory_id: str, model: str, rev: int) -> bytes:
    return f"whiteboard:vector:{memory_id}\n{model}\n{rev}".encode()


def vault_exists(path: Path) -> bool:
    return path.exists() and path.stat().st_size > 0


class Vault:
    def __init__(self, conn: sqlite3.Connection, key: bytes, path: Path):
        self._conn = conn
        self._key = key
        # Rows are whiteboard.crypto blobs (nonce || ciphertext+tag); one AESGCM object
        # opens them all, which matters when 100k rows are read at start.
        self._aead = AESGCM(key)
        self.path = path
        self.lock = threading.RLock()

    # ---- opening -------------------------------------------------------------------

    @classmethod
    def open(cls, path: Path | None = None, key_path: Path | None = None) -> "Vault":
        """Open (creating when new) the vault. A missing key for an existing vault, or a
        key that does not open it, raises VaultUnavailable: no new key is ever made then."""
        default_path, default_key = default_paths()
        path, key_path = path or default_path, key_path or default_key
        existed = vault_exists(path)
        if existed:
            try:
                key = crypto.load_key(key_path)
            except crypto.KeyFileError as exc:
                raise VaultUnavailable(f"the memory vault {path} cannot be opened: {exc}. Restore the key file "
                                       "it was written with; without it the memories cannot be read") from None
        else:
            try:
                key = crypto.load_or_create_key(key_path)
            except (crypto.KeyFileError, OSError) as exc:
                raise VaultUnavailable(f"cannot set up the encryption key {key_path}: "
                                       f"{getattr(exc, 'strerror', None) or exc}") from None
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            # Created 0600 before SQLite opens it; its -wal and -shm files take the same mode.
            os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
        try:
            conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=5.0)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA secure_delete=ON")
            migrate(conn)
        except sqlite3.DatabaseError as exc:
            raise VaultUnavailable(f"the memory vault {path} cannot be opened ({_describe(exc)})") from None
        except RuntimeError as exc:
            raise VaultUnavailable(f"the memory vault {path} cannot be opened: {exc}") from None
        vault = cls(conn, key, path)
        vault._check_key(key_path)
        return vault

    def _check_key(self, key_path: Path) -> None:
        with self._write():
            row = self._conn.execute("SELECT value FROM vault_meta WHERE name = 'key_check'").fetchone()
            if row is None:
                blob = crypto.encrypt(self._key, KEY_CHECK_PLAIN, KEY_CHECK_AAD)
                self._conn.execute("INSERT INTO vault_meta (name, value) VALUES ('key_check', ?)", (blob,))
                return
        try:
            ok = crypto.decrypt(self._key, row[0], KEY_CHECK_AAD) == KEY_CHECK_PLAIN
        except crypto.DecryptError:
            ok = False
        if not ok:
            self.close()
            raise VaultUnavailable(f"the key file {key_path} does not open the memory vault {self.path} (wrong key); "
                                   "restore the key file the vault was written with. Nothing was changed")

    def close(self) -> None:
        with self.lock:
            self._conn.close()

    # ---- reading -------------------------------------------------------------------

    def data_version(self) -> int:
        """Changes when another connection (the CLI, another host) commits to the file."""
        with self.lock:
            return self._conn.execute("PRAGMA data_version").fetchone()[0]

    def count(self) -> int:
        with self.lock:
            return self._conn.execute("SELECT count(*) FROM memories").fetchone()[0]

    def revisions(self) -> dict[str, int]:
        with self.lock:
            return dict(self._conn.execute("SELECT id, rev FROM memories"))

    def load(self, ids: Iterable[str] | None = None) -> tuple[list[Memory], list[Damaged]]:
        """Decrypt rows (all, or the given ids). Rows that fail are reported, not skipped."""
        return self.decode(self.rows(ids))

    def rows(self, ids: Iterable[str] | None = None) -> list[tuple]:
        """The raw rows, still encrypted (decode them with `decode`, in chunks if need be)."""
        with self.lock:
            if ids is None:
                return self._conn.execute(f"SELECT {_COLUMNS} FROM memories").fetchall()
            rows = []
            ids = list(ids)
            for i in range(0, len(ids), 500):
                chunk = ids[i:i + 500]
                rows += self._conn.execute(f"SELECT {_COLUMNS} FROM memories WHERE id IN "
                                           f"({','.join('?' * len(chunk))})", chunk).fetchall()
            return rows

    def decode(self, rows: list[tuple]) -> tuple[list[Memory], list[Damaged]]:
        memories, damaged = [], []
        for row in rows:
            try:
                memories.append(self._decode(row))
            except MemoryDamaged as exc:
                damaged.append(Damaged(exc.memory_id, exc.problem))
        return memories, damaged

    def get(self, memory_id: str) -> Memory | None:
        """The memory, None when there is no such row; MemoryDamaged when it does not open."""
        with self.lock:
            row = self._conn.execute(f"SELECT {_COLUMNS} FROM memories WHERE id = ?", (memory_id,)).fetchone()
        return None if row is None else self._decode(row)

    def _decode(self, row) -> Memory:
        memory_id, type_, site, confidence, created, updated, usage, last_used, rev, blob = row
        try:
            raw = json.loads(self._aead.decrypt(blob[:crypto.NONCE_BYTES], blob[crypto.NONCE_BYTES:],
                                                _aad(memory_id)))
            # Authenticated by the tag: only a holder of the key wrote this; check the shape only.
            text, tags, keywords, old = raw["text"], raw.get("tags", []), raw.get("keywords", []), raw.get("old_texts")
            if not (isinstance(text, str) and isinstance(tags, list) and isinstance(keywords, list)):
                raise TypeError("unexpected content shape")
            return Memory(memory_id, type_, text, created, updated, tags, keywords, confidence, site, usage, last_used,
                          [OldText(t, at) for t, at in old] if old else [], rev)
        except InvalidTag:
            raise MemoryDamaged(memory_id, "its content does not decrypt with this key (tampered or written "
                                           "with another key)") from None
        except (ValueError, KeyError, TypeError, AttributeError):
            raise MemoryDamaged(memory_id, "its decrypted content is not a memory record") from None

    # ---- vectors -------------------------------------------------------------------

    def load_vectors(self, model: str) -> tuple[dict[str, tuple[int, np.ndarray]], list[Damaged]]:
        """{memory id: (rev, vector)} of the vectors this model made; vectors of other models
        are left for the indexer to replace. A vector that does not decrypt is reported."""
        with self.lock:
            rows = self._conn.execute("SELECT memory_id, rev, vector FROM memory_vectors WHERE model = ?",
                                      (model,)).fetchall()
        vectors, damaged = {}, []
        for memory_id, rev, blob in rows:
            try:
                raw = self._aead.decrypt(blob[:crypto.NONCE_BYTES], blob[crypto.NONCE_BYTES:],
                                         _vector_aad(memory_id, model, rev))
                vectors[memory_id] = (rev, np.frombuffer(raw, dtype=np.float16).astype(np.float32))
            except (InvalidTag, ValueError, TypeError):
                damaged.append(Damaged(memory_id, "its stored meaning vector does not decrypt with this key "
                                                  "(tampered or written with another key)"))
        return vectors, damaged

    def put_vectors(self, model: str, items: list[tuple[str, int, np.ndarray]]) -> int:
        """Store (memory id, rev, vector) as float16 in one transaction; a vector whose memory
        was deleted or changed meanwhile is not stored. Returns how many were stored."""
        stored = 0
        with self._write():
            for memory_id, rev, vector in items:
                if self._conn.execute("SELECT 1 FROM memories WHERE id = ? AND rev = ?",
                                      (memory_id, rev)).fetchone() is None:
                    continue
                blob = crypto.encrypt(self._key, np.asarray(vector, dtype=np.float16).tobytes(),
                                      _vector_aad(memory_id, model, rev))
                self._conn.execute("INSERT OR REPLACE INTO memory_vectors (memory_id, model, rev, vector) "
                                   "VALUES (?, ?, ?, ?)", (memory_id, model, rev, blob))
                stored += 1
        return stored

    # ---- writing -------------------------------------------------------------------

    def insert(self, memories: Iterable[Memory]) -> list[Memory]:
        """Store new memories in one transaction."""
        memories = list(memories)
        with self._write():
            rev = self._next_rev(len(memories))
            for i, m in enumerate(memories):
                m.rev = rev + i
                self._conn.execute(f"INSERT INTO memories ({_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?)",
                                   self._encode(m))
        return memories

    def replace_text(self, memory_id: str, text: str, now: float, **fields) -> Memory:
        """Give a memory new text, keeping the old one for undo; other fields (type, tags,
        keywords, confidence) may change with it. A row that does not decrypt is left as it is."""
        with self._write():
            current = self.get(memory_id)
            if current is None:
                raise KeyError(memory_id)
            if text != current.text:
                current.old_texts = [*current.old_texts, OldText(current.text, now)][-MAX_OLD_TEXTS:]
                current.text = text
            for name, value in fields.items():
                if value is not None:
                    setattr(current, name, value)
            current.updated_at = now
            current.rev = self._next_rev(1)
            self._conn.execute(f"INSERT OR REPLACE INTO memories ({_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?)",
                               self._encode(current))
        return current

    def delete(self, memory_id: str) -> bool:
        with self._write():
            self._conn.execute("DELETE FROM memory_vectors WHERE memory_id = ?", (memory_id,))
            return self._conn.execute("DELETE FROM memories WHERE id = ?", (memory_id,)).rowcount > 0

    def wipe(self) -> int:
        with self._write():
            self._conn.execute("DELETE FROM memory_vectors")
            n = self._conn.execute("DELETE FROM memories").rowcount
        with self.lock:
            # Deleted pages were zeroed (secure_delete); fold the WAL back and shrink the file.
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._conn.execute("VACUUM")
        return n

    def record_usage(self, memory_ids: Iterable[str], when: float) -> None:
        """Usage counters are plain columns: no decryption, and no rev bump (not a content change)."""
        with self._write():
            self._conn.executemany("UPDATE memories SET usage_count = usage_count + 1, last_used_at = ? WHERE id = ?",
                                   [(when, i) for i in memory_ids])

    def _encode(self, m: Memory) -> tuple:
        blob = crypto.encrypt(self._key, json.dumps(m.content(), ensure_ascii=False).encode(), _aad(m.id))
        return (m.id, m.type, m.site, m.confidence, m.created_at, m.updated_at, m.usage_count, m.last_used_at,
                m.rev, blob)

    def _next_rev(self, n: int) -> int:
        row = self._conn.execute("SELECT value FROM vault_meta WHERE name = 'rev'").fetchone()
        first = (int(row[0]) if row else 0) + 1
        self._conn.execute("INSERT OR REPLACE INTO vault_meta (name, value) VALUES ('rev', ?)", (first + n - 1,))
        return first

    def _write(self):
        return _Transaction(self)


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT under the vault's lock; ROLLBACK on any error.
    SQLite errors become VaultUnavailable here, at the edge."""

    def __init__(self, vault: Vault):
        self.vault = vault

    def __enter__(self):
        self.vault.lock.acquire()
        try:
            self.vault._conn.execute("BEGIN IMMEDIATE")
        except sqlite3.DatabaseError as exc:
            self.vault.lock.release()
            raise VaultUnavailable(f"the memory vault {self.vault.path} cannot be written ({_describe(exc)})") \
                from None
        return self

    def __exit__(self, exc_type, exc, tb):
        conn = self.vault._conn
        try:
            if exc_type is None:
                try:
                    conn.execute("COMMIT")
                except sqlite3.DatabaseError as err:
                    conn.execute("ROLLBACK")
                    raise VaultUnavailable(f"the memory vault {self.vault.path} cannot be written "
                                           f"({_describe(err)}); nothing was changed") from None
            else:
                conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.DatabaseError):
                    raise VaultUnavailable(f"the memory vault {self.vault.path} cannot be written "
                                           f"({_describe(exc)}); nothing was changed") from None
        finally:
            self.vault.lock.release()
        return False


def _describe(exc: sqlite3.DatabaseError) -> str:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return "another program holds it locked; try again"
    if "not a database" in text or "malformed" in text:
        return "the file is damaged or is not a Whiteboard vault"
    if "readonly" in text or "unable to open" in text:
        return "no permission to open or write the file"
    return type(exc).__name__
