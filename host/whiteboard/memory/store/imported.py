"""Chat exports' conversations already read into the vault: the `imported_chats` table
(migration 007), a mixin of Vault like suggestions.py (the same connection, key and write
transaction). Each is kept as a keyed hash of its key, so nothing of it can be read back,
or tested against a guess, without the vault key.
"""

from __future__ import annotations

from ... import crypto


class ImportedChats:
    def chat_key(self, key: str) -> bytes:
        return crypto.keyed_hash(self._text_key, b"chat:" + key.encode())

    def imported(self, keys: list[str]) -> set[str]:
        """Those of `keys` already imported."""
        with self.lock:
            return {k for k in keys if self._conn.execute("SELECT 1 FROM imported_chats WHERE chat_key = ?",
                                                          (self.chat_key(k),)).fetchone()}

    def mark_imported(self, keys: list[str], when: float) -> None:
        """Joins the write it runs in (an import's batch): marked with the facts found, or not at all."""
        with self._write():
            self._conn.executemany("INSERT OR IGNORE INTO imported_chats (chat_key, imported_at) VALUES (?, ?)",
                                   [(self.chat_key(k), when) for k in keys])
