"""The vault's schema as an ordered list of migrations, each recorded in the database.

Like simonw/llm: `_migrations` names every migration applied and when; opening a vault
applies the ones it lacks, each in its own transaction. Never edit or reorder a
migration once released: add a new one.
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
]


def applied(conn: sqlite3.Connection) -> list[str]:
    conn.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
    return [row[0] for row in conn.execute("SELECT name FROM _migrations ORDER BY rowid")]


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Apply what is missing; returns the names applied now. conn must be in autocommit mode."""
    done = set(applied(conn))
    known = {name for name, _ in MIGRATIONS}
    unknown = done - known
    if unknown:
        raise RuntimeError(f"the vault was written by a newer Whiteboard (migrations {sorted(unknown)})")
    ran = []
    for name, statements in MIGRATIONS:
        if name in done:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated between our check and the lock.
            if conn.execute("SELECT 1 FROM _migrations WHERE name = ?", (name,)).fetchone() is None:
                for statement in statements:
                    conn.execute(statement)
                conn.execute("INSERT INTO _migrations (name, applied_at) VALUES (?, ?)", (name, time.time()))
                ran.append(name)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return ran
