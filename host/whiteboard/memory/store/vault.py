"""The encrypted vault: one SQLite file in the user data dir (design §5).

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
import logging
import math
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Iterable

import numpy as np
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from ... import crypto
from ... import text as T
from ...files import unwritable
from ...protocol.bounds import MAX_COUNT
from ...settings_store import SettingsFile, default_paths
from ..errors import MemoryDamaged, RowRejected, VaultUnavailable
from ..model import MAX_OLD_TEXTS, MEMORY_TYPES, Damaged, Memory, OldText
from .clamp import clamped_memory
from .imported import ImportedChats
from .schema import LyingMigrations, MigrationFailed, NewerVault, migrate
from .suggestions import SuggestionRows
from .sync_rows import SyncRows

log = logging.getLogger("whiteboard.memory")

SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")  # next to the vault file, while SQLite writes or after a crash
KEY_CHECK_PLAIN = b"whiteboard vault key check v1"
KEY_CHECK_AAD = b"whiteboard:vault:key_check"
_COLUMNS = "id, type, site, confidence, created_at, updated_at, usage_count, last_used_at, rev, pinned_at, content"
_INSERT = f"INSERT INTO memories ({_COLUMNS}, text_key) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"
TEXT_KEY_PURPOSE = b"whiteboard:vault:text_key"
VECTOR_DAMAGED = ("its stored meaning vector does not decrypt with this key (damaged, tampered or written with "
                  "another key)")
BUSY_SECONDS = 5.0  # how long a write waits for another process's


def _aad(memory_id: str) -> bytes:
    return b"whiteboard:memory:" + memory_id.encode()


def _vector_aad(memory_id: str, model: str, rev: int) -> bytes:
    return f"whiteboard:vector:{memory_id}\n{model}\n{rev}".encode()


def vault_exists(path: Path) -> bool:
    return path.exists() and path.stat().st_size > 0


class Vault(SuggestionRows, ImportedChats, SyncRows):
    def __init__(self, conn: sqlite3.Connection, key: bytes, path: Path):
        self._conn = conn
        self._key = key
        # Rows are whiteboard.crypto blobs (nonce || ciphertext+tag); one AESGCM object
        # opens them all, which matters when 100k rows are read at start.
        self._aead = AESGCM(key)
        self._text_key = crypto.derive_key(key, TEXT_KEY_PURPOSE)
        self.path = path
        self.lock = threading.RLock()
        self._depth = 0  # open transactions (a batch and the writes inside it)

    # ---- opening -------------------------------------------------------------------

    @classmethod
    def open(cls, path: Path | None = None, key_path: Path | None = None) -> Vault:
        """Open (creating when new) the vault. A missing key for an existing vault, or a
        key that does not open it, raises VaultUnavailable: no new key is ever made then."""
        default_path, default_key = default_paths()
        path, key_path = path or default_path, key_path or default_key
        if vault_exists(path):
            try:
                key = crypto.load_key(key_path)
            except crypto.KeyFileError as exc:
                raise VaultUnavailable(f"the memory vault {path} cannot be opened: {exc}. Restore the key file "
                                       "it was written with; without it the memories cannot be read",
                                       reason="key_missing" if not key_path.exists() else "key_unreadable") \
                    from None
        else:
            # The stored API key shares the key file: no new key while it exists.
            try:
                key = crypto.load_or_create_key(key_path, SettingsFile(key_path.parent).encrypted_files())
                path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                # Created 0600 before SQLite opens it; its -wal and -shm files take the same mode.
                os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
            except crypto.KeyMissing as exc:
                raise VaultUnavailable(f"cannot create the memory vault {path}: {exc}", reason="key_missing") \
                    from None
            except crypto.KeyFileError as exc:
                raise VaultUnavailable(f"cannot set up the encryption key {key_path}: {exc}",
                                       reason="key_unreadable") from None
            except OSError as exc:
                err = unwritable(exc, Path(exc.filename) if exc.filename else path)
                raise VaultUnavailable(err.message, reason=err.reason) from None
        conn = None
        try:
            conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=BUSY_SECONDS)
            _set_wal(conn)
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA secure_delete=ON")
            migrate(conn)
        except BaseException as exc:  # every failed open closes its connection
            if conn is not None:
                conn.close()
            if not isinstance(exc, (sqlite3.DatabaseError, NewerVault, MigrationFailed, LyingMigrations)):
                raise
            if isinstance(exc, LyingMigrations):
                raise VaultUnavailable(f"the memory vault {path} cannot be opened: {exc}. It was changed by "
                                       "another program or is damaged; restore it from a backup",
                                       reason="damaged") from None
            if isinstance(exc, NewerVault):
                raise VaultUnavailable(f"the memory vault {path} cannot be opened: {exc}. Update Whiteboard",
                                       reason="newer_vault") from None
            if isinstance(exc, MigrationFailed):
                raise VaultUnavailable(f"the memory vault {path} cannot be upgraded to this version: {exc}. "
                                       "It is unchanged (no migration was kept): the earlier version still "
                                       "opens it; report this, with the migration's name",
                                       reason="migration_failed") from None
            raise VaultUnavailable(f"the memory vault {path} cannot be opened ({_describe(exc)})",
                                   reason=_reason(exc)) from None
        vault = cls(conn, key, path)
        try:
            vault._check_key(key_path)
        except BaseException:
            vault.close()  # closed already for a wrong key; closing twice is harmless
            raise
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
                                   "restore the key file the vault was written with. Nothing was changed",
                                   reason="key_wrong")

    def close(self) -> None:
        with self.lock:
            self._conn.close()

    # ---- reading -------------------------------------------------------------------

    def data_version(self) -> int:
        """Changes when another connection (the CLI, another host) commits to the file."""
        with self.lock:
            return self._conn.execute("PRAGMA data_version").fetchone()[0]

    def changes(self) -> tuple[int, int]:
        """Moves whenever anything is committed to the file: by another connection (SQLite's
        data_version) or by this one (its total_changes)."""
        with self.lock:
            return self._conn.execute("PRAGMA data_version").fetchone()[0], self._conn.total_changes

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
        return self._select(f"SELECT {_COLUMNS} FROM memories", "id", ids)

    def _select(self, select: str, id_column: str, ids: Iterable[str] | None, where: str = "",
                params: tuple = ()) -> list[tuple]:
        """`select`'s rows matching `where` (with `params`): all, or (`ids` given) those whose
        `id_column` is one of them, asked 500 at a time (SQLite bounds a statement's parameters)."""
        with self.lock:
            if ids is None:
                return self._conn.execute(f"{select} WHERE {where}" if where else select, params).fetchall()
            rows = []
            ids = list(ids)
            for i in range(0, len(ids), 500):
                chunk = ids[i:i + 500]
                conditions = [*([where] if where else []), f"{id_column} IN ({','.join('?' * len(chunk))})"]
                rows += self._conn.execute(f"{select} WHERE {' AND '.join(conditions)}", (*params, *chunk)).fetchall()
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
        memory_id, type_, site, confidence, created, updated, usage, last_used, rev, pinned_at, blob = row
        memory_id = str(memory_id)
        problem = _plain_column_problem(type_, site, confidence, created, updated, usage, last_used, rev, pinned_at,
                                        blob)
        if problem:
            raise MemoryDamaged(memory_id, problem)
        try:
            raw = json.loads(self._aead.decrypt(blob[:crypto.NONCE_BYTES], blob[crypto.NONCE_BYTES:],
                                                _aad(memory_id)))
            # Authenticated by the tag: only a holder of the key wrote this; check the shape only.
            text, tags, keywords, old = raw["text"], raw.get("tags", []), raw.get("keywords", []), raw.get("old_texts")
            if not (isinstance(text, str) and isinstance(tags, list) and isinstance(keywords, list)):
                raise TypeError("unexpected content shape")
            return clamped_memory(memory_id, type_, text, tags, keywords, confidence, site, rev,
                                  created, updated, usage, last_used, pinned_at, old, raw.get("origin"))
        except InvalidTag:
            raise MemoryDamaged(memory_id, "its content does not decrypt with this key (tampered or written "
                                           "with another key)") from None
        except (ValueError, KeyError, TypeError, AttributeError):
            raise MemoryDamaged(memory_id, "its decrypted content is not a memory record") from None

    def text_key(self, text: str) -> bytes:
        """The row's uniqueness key: a keyed hash of the normalised text (dedupe across processes)."""
        return crypto.keyed_hash(self._text_key, T.normalized(text).encode())

    def find_text(self, text: str) -> str | None:
        """The id of the memory whose normalised text equals text's, if any."""
        with self.lock:
            row = self._conn.execute("SELECT id FROM memories WHERE text_key = ?", (self.text_key(text),)).fetchone()
        return row[0] if row else None

    def fill_text_keys(self, memories: Iterable[Memory]) -> int:
        """Give rows from before migration 004 their uniqueness key. A row whose text another
        row already has keeps none (both stay: nothing is ever deleted for being a duplicate)."""
        with self.lock:
            missing = {r[0] for r in self._conn.execute("SELECT id FROM memories WHERE text_key IS NULL")}
        todo = [(self.text_key(m.text), m.id) for m in memories if m.id in missing]
        if not todo:
            return 0
        with self._write():
            self._conn.executemany("UPDATE OR IGNORE memories SET text_key = ? WHERE id = ? AND text_key IS NULL",
                                   todo)
        return len(todo)

    # ---- vectors -------------------------------------------------------------------

    def load_vectors(self, model: str, ids: list[str] | None = None
                     ) -> tuple[dict[str, tuple[int, np.ndarray]], list[Damaged]]:
        """{memory id: (rev, vector as stored: float16)} of the vectors this model made (all, or
        those of `ids`); vectors of other models are left for the indexer to replace. A vector
        that does not decrypt is reported."""
        rows = self._select("SELECT memory_id, rev, vector FROM memory_vectors", "memory_id", ids, "model = ?",
                            (model,))
        vectors, damaged = {}, []
        for memory_id, rev, blob in rows:
            raw = self._open_vector(memory_id, model, rev, blob)
            if raw is None:
                damaged.append(Damaged(memory_id, VECTOR_DAMAGED))
            else:
                vectors[memory_id] = (rev, np.frombuffer(raw, dtype=np.float16))
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
                blob = self._seal_vector(memory_id, model, rev, np.asarray(vector, dtype=np.float16).tobytes())
                self._conn.execute("INSERT OR REPLACE INTO memory_vectors (memory_id, model, rev, vector) "
                                   "VALUES (?, ?, ?, ?)", (memory_id, model, rev, blob))
                stored += 1
        return stored

    # ---- writing -------------------------------------------------------------------

    def insert(self, memories: Iterable[Memory]) -> list[Memory]:
        """Store new memories in one transaction; returns those stored. One whose normalised
        text a row already has (stored by another process a moment ago, say) is skipped:
        the unique text key decides, inside the write lock, so no text is ever stored twice."""
        memories = list(memories)
        stored = []
        with self._write():
            rev = self._next_rev(len(memories))
            for i, m in enumerate(memories):
                m.rev = rev + i
                try:
                    cursor = self._conn.execute(_INSERT + " ON CONFLICT(text_key) DO NOTHING", self._encode(m))
                except (sqlite3.IntegrityError, OverflowError) as exc:
                    # NOT NULL / CHECK failures name the column; OverflowError an integer past 64 bits.
                    raise RowRejected(i, str(exc)) from None
                if cursor.rowcount:
                    stored.append(m)
        return stored

    def update(self, memory_id: str, now: float, text: str | None = None, pinned: bool | None = None,
               expected_rev: int | None = None, **fields) -> Memory:
        """Change a memory as it is in the file now, and return it as stored. The row is read
        inside the write's transaction (which holds SQLite's write lock), so what is written
        is built on the current row, never on a copy another process has changed since: a
        new type or pin keeps the current text. expected_rev: the revision the caller's
        change was based on (a text the user edited); RevisionConflict when the row has
        moved on, nothing changed. A new text keeps the old one for undo; pinning alone
        re-encrypts nothing and keeps updated_at. KeyError when there is no such row,
        MemoryDamaged when it does not open (left as it is), DuplicateText when another
        memory already says the new text."""
        with self._write():
            current = self.get(memory_id)
            if current is None:
                raise KeyError(memory_id)
            if expected_rev is not None and current.rev != expected_rev:
                raise RevisionConflict(memory_id, expected_rev, current.rev)
            old_rev, was_pinned = current.rev, current.pinned
            changed = {n: v for n, v in fields.items() if v is not None and v != getattr(current, n)}
            new_text = text is not None and text != current.text
            if pinned is not None and pinned != was_pinned:
                current.pinned_at = now if pinned else None
            if not (new_text or changed):
                if current.pinned == was_pinned:
                    return current
                current.rev = self._next_rev(1)
                self._conn.execute("UPDATE memories SET pinned_at = ?, rev = ? WHERE id = ?",
                                   (current.pinned_at, current.rev, memory_id))
                self._rebind_vector(memory_id, old_rev, current.rev)
                return current
            if new_text:
                current.old_texts = [*current.old_texts, OldText(current.text, now)][-MAX_OLD_TEXTS:]
                current.text = text
            for name, value in changed.items():
                setattr(current, name, value)
            current.updated_at = now
            current.rev = self._next_rev(1)
            encoded = self._encode(current)
            twin = self._conn.execute("SELECT id FROM memories WHERE text_key = ? AND id != ?",
                                      (encoded[-1], memory_id)).fetchone()
            if twin is not None:
                raise DuplicateText(twin[0])
            self._conn.execute("DELETE FROM memories WHERE id = ?", (memory_id,))
            self._conn.execute(_INSERT, encoded)
            if not new_text:
                self._rebind_vector(memory_id, old_rev, current.rev)
        return current

    def _rebind_vector(self, memory_id: str, old_rev: int, rev: int) -> None:
        """The row has a new rev but the same text (a pin, a new type): its meaning vector still
        holds, so it is bound to the new rev (inside the caller's write) rather than made again.
        One that does not open is dropped (and named in the log) for the indexer to make again:
        a damaged vector never stops the change."""
        row = self._conn.execute("SELECT model, vector FROM memory_vectors WHERE memory_id = ? AND rev = ?",
                                 (memory_id, old_rev)).fetchone()
        if row is None:
            return
        model, blob = row
        raw = self._open_vector(memory_id, model, old_rev, blob)
        if raw is None:
            log.warning("memory %s: %s; dropped, the indexer makes it again", memory_id, VECTOR_DAMAGED)
            self._conn.execute("DELETE FROM memory_vectors WHERE memory_id = ?", (memory_id,))
            return
        self._conn.execute("UPDATE memory_vectors SET rev = ?, vector = ? WHERE memory_id = ?",
                           (rev, self._seal_vector(memory_id, model, rev, raw), memory_id))

    def _open_vector(self, memory_id: str, model: str, rev: int, blob) -> bytes | None:
        """A stored vector's bytes; None when it does not open as this memory's, this model's, at
        this rev: a wrong tag (InvalidTag), or a blob too short or not bytes at all (ValueError,
        TypeError from the nonce or the cipher) alike."""
        try:
            return self._aead.decrypt(blob[:crypto.NONCE_BYTES], blob[crypto.NONCE_BYTES:],
                                      _vector_aad(memory_id, model, rev))
        except (InvalidTag, ValueError, TypeError):
            return None

    def _seal_vector(self, memory_id: str, model: str, rev: int, raw: bytes) -> bytes:
        return crypto.encrypt(self._key, raw, _vector_aad(memory_id, model, rev))

    def delete(self, memory_id: str, expected_rev: int | None = None) -> bool:
        """False when there is no such row; RevisionConflict when expected_rev is given and
        the row has moved on since (the user confirmed deleting what they saw)."""
        with self._write():
            row = self._conn.execute("SELECT rev FROM memories WHERE id = ?", (memory_id,)).fetchone()
            if row is None:
                return False
            if expected_rev is not None and row[0] != expected_rev:
                raise RevisionConflict(memory_id, expected_rev, row[0])
            self._conn.execute("DELETE FROM memory_vectors WHERE memory_id = ?", (memory_id,))
            self._conn.execute("DELETE FROM memories WHERE id = ?", (memory_id,))
            self.note_delete(memory_id, time.time())
            return True

    def wipe(self) -> int:
        with self._write():
            self._conn.execute("DELETE FROM memory_vectors")
            self._conn.execute("DELETE FROM suggestions")
            self._conn.execute("DELETE FROM imported_chats")  # forgotten too: an import may run again
            self.clear_sync()  # sync's merge states hold texts too: sync is off here after a wipe
            n = self._conn.execute("DELETE FROM memories").rowcount
        with self.lock:
            # Deleted pages were zeroed (secure_delete); fold the WAL back and shrink the file.
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._conn.execute("VACUUM")
        return n

    def record_usage(self, memory_ids: Iterable[str], when: float) -> None:
        """Usage counters are plain columns: no decryption, and no rev bump (not a content change).
        One statement adds to the stored count, so nothing read earlier is written back."""
        with self._write():
            # Capped: an old import's usage_count near 2**63 would overflow into a float.
            self._conn.executemany(f"UPDATE memories SET usage_count = MIN(usage_count, {MAX_COUNT - 1}) + 1, "
                                   "last_used_at = ? WHERE id = ?", [(when, i) for i in memory_ids])

    def _encode(self, m: Memory) -> tuple:
        blob = crypto.encrypt(self._key, json.dumps(m.content(), ensure_ascii=False).encode(), _aad(m.id))
        return (m.id, m.type, m.site, m.confidence, m.created_at, m.updated_at, m.usage_count, m.last_used_at,
                m.rev, m.pinned_at, blob, self.text_key(m.text))

    def _next_rev(self, n: int) -> int:
        row = self._conn.execute("SELECT value FROM vault_meta WHERE name = 'rev'").fetchone()
        first = (int(row[0]) if row else 0) + 1
        self._conn.execute("INSERT OR REPLACE INTO vault_meta (name, value) VALUES ('rev', ?)", (first + n - 1,))
        return first

    def _write(self):
        return _Transaction(self)

    def batch(self):
        """One transaction around many writes (an import): every write inside it joins it,
        so all of them are committed at its end or, on any error or a crash, none."""
        return _Transaction(self)


class RevisionConflict(Exception):
    """The memory changed (another process, another window) since the revision a change was based on."""

    def __init__(self, memory_id: str, expected_rev: int, rev: int):
        super().__init__(memory_id)
        self.memory_id, self.expected_rev, self.rev = memory_id, expected_rev, rev


class DuplicateText(Exception):
    """Another memory already has this (normalised) text."""

    def __init__(self, memory_id: str):
        super().__init__(memory_id)
        self.memory_id = memory_id


def _number(value, integer: bool = False) -> bool:
    """A finite number (NaN or infinity would make a reply that is not JSON)."""
    wanted = int if integer else (int, float)
    return isinstance(value, wanted) and not isinstance(value, bool) and math.isfinite(value)


def _plain_column_problem(type_, site, confidence, created, updated, usage, last_used, rev, pinned_at, blob) -> str:
    """Why a row's plain columns are not a memory this version can serve ('' when they are):
    a newer version's memory type, a value another program wrote. Names no content."""
    if type_ not in MEMORY_TYPES:
        shown = type_ if isinstance(type_, str) and len(type_) <= 40 and type_.isprintable() else type(type_).__name__
        return f"its type {shown!r} is not one this version knows ({', '.join(MEMORY_TYPES)}); " \
               "a newer Whiteboard may have written it"
    columns = (("confidence", confidence, False, False), ("created_at", created, False, False),
               ("updated_at", updated, False, False), ("usage_count", usage, True, False),
               ("last_used_at", last_used, False, True), ("rev", rev, True, False),
               ("pinned_at", pinned_at, False, True))
    for name, value, integer, optional in columns:
        if not (_number(value, integer) or (optional and value is None)):
            return f"its {name} column holds {type(value).__name__}, not a finite number"
    if not 0 <= confidence <= 1:
        return "its confidence is outside 0..1"
    if site is not None and not isinstance(site, str):
        return f"its site column holds {type(site).__name__}, not text"
    if not isinstance(blob, bytes) or len(blob) < crypto.NONCE_BYTES + 16:
        return "its content column is not a ciphertext"
    return ""


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT under the vault's lock; ROLLBACK on any error. Inside
    another (a batch), a SAVEPOINT instead: the inner write undoes itself on error and the
    outer one decides what is committed. SQLite errors become VaultUnavailable here."""

    def __init__(self, vault: Vault):
        self.vault = vault

    def __enter__(self):
        vault = self.vault
        vault.lock.acquire()
        self.nested = vault._depth > 0
        try:
            vault._conn.execute("SAVEPOINT inner" if self.nested else "BEGIN IMMEDIATE")
        except sqlite3.DatabaseError as exc:
            vault.lock.release()
            raise VaultUnavailable(f"the memory vault {vault.path} cannot be written ({_describe(exc)})",
                                   reason=_reason(exc)) from None
        vault._depth += 1
        return self

    def __exit__(self, exc_type, exc, tb):
        vault, conn = self.vault, self.vault._conn
        vault._depth -= 1
        try:
            if exc_type is None:
                try:
                    conn.execute("RELEASE inner" if self.nested else "COMMIT")
                except sqlite3.DatabaseError as err:
                    self._undo(conn)
                    raise VaultUnavailable(f"the memory vault {vault.path} cannot be written "
                                           f"({_describe(err)}); nothing was changed", reason=_reason(err)) from None
            else:
                self._undo(conn)
                if isinstance(exc, sqlite3.DatabaseError):
                    raise VaultUnavailable(f"the memory vault {vault.path} cannot be written "
                                           f"({_describe(exc)}); nothing was changed", reason=_reason(exc)) from None
        finally:
            vault.lock.release()
        return False

    def _undo(self, conn: sqlite3.Connection) -> None:
        if self.nested:
            conn.execute("ROLLBACK TO inner")
            conn.execute("RELEASE inner")
        elif conn.in_transaction:
            conn.execute("ROLLBACK")


def _set_wal(conn: sqlite3.Connection) -> None:
    """Switch a new vault to WAL. Two hosts opening a new vault at once: the switch needs
    the file to itself and SQLite answers "locked" without waiting, so wait here."""
    deadline = time.monotonic() + BUSY_SECONDS
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


# SQLite's codes for a write the disk refused: full (ENOSPC: SQLITE_FULL), over quota
# (EDQUOT comes as a failed write or sync). The file is whole: free space and retry.
DISK_REFUSED = frozenset({"SQLITE_FULL", "SQLITE_IOERR_WRITE", "SQLITE_IOERR_FSYNC", "SQLITE_IOERR_DIR_FSYNC",
                          "SQLITE_IOERR_TRUNCATE", "SQLITE_IOERR_SHMSIZE"})


def _disk_refused(exc: sqlite3.DatabaseError) -> bool:
    return getattr(exc, "sqlite_errorname", None) in DISK_REFUSED or "disk is full" in str(exc)


def _reason(exc: sqlite3.DatabaseError) -> str:
    text = str(exc)
    if _disk_refused(exc):
        return "write_failed"
    if "readonly" in text or "unable to open" in text:
        return "read_only"
    if "locked" in text or "busy" in text:
        return "locked"
    return "damaged"


def _describe(exc: sqlite3.DatabaseError) -> str:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return "another program holds it locked; try again"
    if _disk_refused(exc):
        return "the disk refused the write: it is full or over quota; free some space and try again"
    if "not a database" in text or "malformed" in text:
        return "the file is damaged or is not a Whiteboard vault"
    if "readonly" in text or "unable to open" in text:
        return "no permission to open or write the file"
    return type(exc).__name__
