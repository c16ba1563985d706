"""The vault's schema as an ordered list of migrations, each recorded in the database.

Like simonw/llm: `_migrations` names every migration applied and when; opening a vault
applies the ones it lacks, together in one transaction, so an upgrade is whole or not
at all. Never edit or reorder a migration once released: add a new one.
"""

from __future__ import annotations

import sqlite3
import time

# Columns in plain text say nothing about the user (ids, type, site, times, counters);
# `content` is AES-GCM ciphertext of text, tags, keywords and old texts, the row id as AAD.
MIGRATIONS: list[tuple[str, tuple[str, ...]]] = [
    ("001_memories", (
        """CREATE TABLE memories (
            id TEXT PRIMARY KEY,
            type TEXT NOT NULL,
            site TEXT,
            confidence REAL NOT NULL,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            usage_count INTEGER NOT NULL DEFAULT 0,
            last_used_at REAL,
            rev INTEGER NOT NULL,
            content BLOB NOT NULL
        )""",
        "CREATE TABLE vault_meta (name TEXT PRIMARY KEY, value BLOB NOT NULL)",
    )),
    ("002_memories_updated_index", (
        "CREATE INDEX memories_updated ON memories (updated_at)",
    )),
    # A memory's embedding (derived personal data): AES-GCM ciphertext bound by its AAD to
    # the memory id, the model that made it and the memory revision it was made from.
    ("003_memory_vectors", (
        """CREATE TABLE memory_vectors (
            memory_id TEXT PRIMARY KEY,
            model TEXT NOT NULL,
            rev INTEGER NOT NULL,
            vector BLOB NOT NULL
        )""",
    )),
    # HMAC of the normalised text under a key derived from the vault key (never a plain
    # hash: that would let anyone test a guess). Unique, so two processes adding the same
    # text store it once. Rows from before stay NULL until the vault fills them in.
    ("004_memories_text_key", (
        "ALTER TABLE memories ADD COLUMN text_key BLOB",
        "CREATE UNIQUE INDEX memories_text_key ON memories (text_key)",
    )),
    # When the user pinned the memory (NULL: not pinned); pinned ones go with every send.
    ("005_memories_pinned", (
        "ALTER TABLE memories ADD COLUMN pinned_at REAL",
    )),
    # Facts extracted with low confidence, waiting for the user: content encrypted like a
    # memory's (AAD whiteboard:suggestion:<id>). A discarded one keeps only its text key
    # (content NULL), so the same sentence is not suggested again.
    ("006_memory_suggestions", (
        """CREATE TABLE suggestions (
            id TEXT PRIMARY KEY,
            type TEXT NOT NULL,
            site TEXT,
            confidence REAL NOT NULL,
            created_at REAL NOT NULL,
            text_key BLOB NOT NULL UNIQUE,
            content BLOB,
            discarded_at REAL
        )""",
    )),
    # Where memories came from besides live chats: the conversations of a chat export already
    # read (`whiteboard memories import-chats`), by a keyed hash of the conversation's id and
    # last change, so an import run again skips them and one stopped half-way resumes. The
    # memory's origin (site, "imported", the conversation's date) is in its encrypted content.
    ("007_memory_origin", (
        "CREATE TABLE imported_chats (chat_key BLOB PRIMARY KEY, imported_at REAL NOT NULL)",
    )),
    # Sync (docs/sync.md): per memory its merge state (encrypted like a memory, AAD
    # whiteboard:sync:element:<id>), the vault rev it was last reconciled at (NULL: not shown
    # in this vault) and a keyed hash of its text (NULL when deleted); how far each change
    # file in the folder was read; changes made here not yet written to the folder; when a
    # synced memory was deleted here (a delete is stamped with its time, not the exchange's);
    # the keyed hashes (sync key) of suggestions discarded on any computer, never suggested again.
    ("008_sync", (
        """CREATE TABLE sync_elements (
            id TEXT PRIMARY KEY,
            rev INTEGER,
            text_key BLOB,
            state BLOB NOT NULL
        )""",
        "CREATE INDEX sync_elements_text_key ON sync_elements (text_key)",
        "CREATE TABLE sync_files (name TEXT PRIMARY KEY, offset INTEGER NOT NULL, records INTEGER NOT NULL)",
        "CREATE TABLE sync_outbox (seq INTEGER PRIMARY KEY, ops BLOB NOT NULL)",
        "CREATE TABLE sync_deletes (id TEXT PRIMARY KEY, deleted_at REAL NOT NULL)",
        "CREATE TABLE sync_discarded (text_key BLOB PRIMARY KEY, sent INTEGER NOT NULL)",
    )),
]


class NewerVault(Exception):
    """The vault records migrations this release does not know: a newer Whiteboard wrote it."""


class MigrationFailed(Exception):
    """A pending migration failed: none of them was kept (`name` is the one that failed)."""

    def __init__(self, name: str, problem: str):
        super().__init__(f"migration {name} failed ({problem})")
        self.name = name


class LyingMigrations(Exception):
    """The migrations record is not one Whiteboard wrote: missing beside the tables it made,
    or a name that is empty, not text or repeated. (One migration missing among later ones is
    applied: a vault from a branch build, and the tests' way of making an older vault.)"""


def applied(conn: sqlite3.Connection) -> list[str]:
    """The names recorded, in order ([] for a new file: the table is made by the first migrate)."""
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "_migrations" not in tables:
        if tables - {"sqlite_sequence"}:
            raise LyingMigrations("its migrations record is missing beside its tables")
        return []
    names = [row[0] for row in conn.execute("SELECT name FROM _migrations ORDER BY rowid")]
    if not all(isinstance(n, str) and n for n in names) or len(set(names)) != len(names):
        raise LyingMigrations("its migrations record holds a name that is empty, not text or repeated")
    return names


def _pending(done: list[str]) -> list[tuple[str, tuple[str, ...]]]:
    unknown = set(done) - {name for name, _ in MIGRATIONS}
    if unknown:
        raise NewerVault(f"the vault was written by a newer Whiteboard (migrations {sorted(unknown)[:5]})")
    return [(name, statements) for name, statements in MIGRATIONS if name not in done]


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Apply what is missing, all in one transaction (SQLite's DDL is transactional): an
    upgrade is kept whole or not at all, so a failure leaves the file as the older release
    wrote it (MigrationFailed). Returns the names applied now; reads only, taking no write
    lock, when nothing is pending. conn must be in autocommit mode."""
    if not _pending(applied(conn)):
        return []
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
        # Another process may have migrated between our check and the lock.
        pending = _pending(applied(conn))
        for name, statements in pending:
            try:
                for statement in statements:
                    conn.execute(statement)
            except sqlite3.Error as exc:
                # SQLite's message names tables and columns, never a row's values.
                raise MigrationFailed(name, str(exc)) from None
            conn.execute("INSERT INTO _migrations (name, applied_at) VALUES (?, ?)", (name, time.time()))
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return [name for name, _ in pending]
