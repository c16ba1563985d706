"""Sync's rows in the vault (migration 008_sync): a mixin of Vault, on its connection, key
and write transaction, like suggestions.py. Everything that says anything about a memory
is AES-GCM ciphertext under the vault key; plain are ids, revs, the keyed text hash (as in
`memories`) and the folder's file names with how far each was read.
"""

from __future__ import annotations

import json
from typing import Iterable

from cryptography.exceptions import InvalidTag

from ... import crypto
from ..model import Memory

CONFIG_AAD = b"whiteboard:sync:config"


def _element_aad(element_id: str) -> bytes:
    return b"whiteboard:sync:element:" + element_id.encode()


def _outbox_aad(seq: int) -> bytes:
    return b"whiteboard:sync:outbox:%d" % seq


class SyncRows:
    # ---- the settings: folder, sync key, this computer's id and clock, the last status -----

    def sync_config(self) -> dict | None:
        with self.lock:
            row = self._conn.execute("SELECT value FROM vault_meta WHERE name = 'sync'").fetchone()
        return None if row is None else json.loads(self._open(row[0], CONFIG_AAD))

    def set_sync_config(self, config: dict | None) -> None:
        with self._write():
            if config is None:
                self._conn.execute("DELETE FROM vault_meta WHERE name = 'sync'")
                return
            blob = crypto.encrypt(self._key, json.dumps(config).encode(), CONFIG_AAD)
            self._conn.execute("INSERT OR REPLACE INTO vault_meta (name, value) VALUES ('sync', ?)", (blob,))

    def clear_sync(self) -> None:
        """Forget sync on this computer (the folder is not touched)."""
        with self._write():
            for table in ("sync_elements", "sync_files", "sync_outbox", "sync_deletes"):
                self._conn.execute(f"DELETE FROM {table}")
            self._conn.execute("DELETE FROM vault_meta WHERE name = 'sync'")

    # ---- elements: each memory's merge state ----------------------------------------------

    def sync_revisions(self) -> dict[str, int | None]:
        """{element id: the vault rev it was reconciled at (None: not in the vault)}; nothing decrypted."""
        with self.lock:
            return dict(self._conn.execute("SELECT id, rev FROM sync_elements"))

    def sync_elements(self, ids: Iterable[str]) -> dict[str, dict]:
        """The merge states of these elements (those that exist). One that does not open (a
        damaged row) is left out: it is rebuilt from the vault and the folder."""
        rows = self._select("SELECT id, state FROM sync_elements", "id", list(ids))
        out = {}
        for element_id, blob in rows:
            try:
                out[element_id] = json.loads(self._open(blob, _element_aad(element_id)))
            except (InvalidTag, ValueError, TypeError):
                continue
        return out

    def sync_group(self, text_key: bytes) -> list[str]:
        """The live elements with this text (the same fact added on two computers)."""
        with self.lock:
            return [r[0] for r in self._conn.execute("SELECT id FROM sync_elements WHERE text_key = ?", (text_key,))]

    def put_sync_elements(self, items: Iterable[tuple[str, int | None, bytes | None, dict]]) -> None:
        """(id, rev, text key, state) each, in the caller's transaction (or one of its own)."""
        with self._write():
            self._conn.executemany(
                "INSERT OR REPLACE INTO sync_elements (id, rev, text_key, state) VALUES (?, ?, ?, ?)",
                [(i, rev, key, crypto.encrypt(self._key, json.dumps(state).encode(), _element_aad(i)))
                 for i, rev, key, state in items])

    def set_sync_revs(self, revs: dict[str, int | None]) -> None:
        with self._write():
            self._conn.executemany("UPDATE sync_elements SET rev = ? WHERE id = ?",
                                   [(rev, i) for i, rev in revs.items()])

    def note_delete(self, memory_id: str, when: float) -> None:
        """A synced memory is being deleted (in the caller's transaction): when, for its delete's stamp."""
        self._conn.execute("INSERT OR REPLACE INTO sync_deletes (id, deleted_at) SELECT id, ? FROM sync_elements "
                           "WHERE id = ?", (when, memory_id))

    def sync_deletes(self) -> dict[str, float]:
        """{memory id: when it was deleted here} since the last exchange (which clears them)."""
        with self._write():
            found = dict(self._conn.execute("SELECT id, deleted_at FROM sync_deletes"))
            self._conn.execute("DELETE FROM sync_deletes")
        return found

    # ---- the folder's files: how far each was read ----------------------------------------

    def sync_progress(self) -> dict[str, tuple[int, int]]:
        """{file name: (bytes read, records read)}."""
        with self.lock:
            return {n: (o, r) for n, o, r in self._conn.execute("SELECT name, offset, records FROM sync_files")}

    def set_sync_progress(self, progress: dict[str, tuple[int, int] | None]) -> None:
        """None drops a file's entry (the file is gone from the folder)."""
        with self._write():
            for name, at in progress.items():
                if at is None:
                    self._conn.execute("DELETE FROM sync_files WHERE name = ?", (name,))
                else:
                    self._conn.execute("INSERT OR REPLACE INTO sync_files (name, offset, records) VALUES (?, ?, ?)",
                                       (name, *at))

    # ---- the outbox: changes made here, until they are in this computer's change file -------

    def add_outbox(self, ops: list) -> None:
        with self._write():
            row = self._conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM sync_outbox").fetchone()
            blob = crypto.encrypt(self._key, json.dumps(ops).encode(), _outbox_aad(row[0]))
            self._conn.execute("INSERT INTO sync_outbox (seq, ops) VALUES (?, ?)", (row[0], blob))

    def outbox(self) -> list[tuple[int, list]]:
        with self.lock:
            rows = self._conn.execute("SELECT seq, ops FROM sync_outbox ORDER BY seq").fetchall()
        return [(seq, json.loads(self._open(blob, _outbox_aad(seq)))) for seq, blob in rows]

    def drop_outbox(self, seqs: list[int]) -> None:
        with self._write():
            self._conn.executemany("DELETE FROM sync_outbox WHERE seq = ?", [(s,) for s in seqs])

    # ---- memories as the merge decided ----------------------------------------------------

    def replace_synced(self, removed: Iterable[str], memories: list[Memory]) -> list[Memory]:
        """Remove these rows (and their vectors), then store these memories as they are
        (each under a new rev; a row of the same id is replaced), in the caller's transaction.
        Removing first lets two memories swap texts without tripping the unique text key."""
        with self._write():
            ids = [*removed, *(m.id for m in memories)]
            self._conn.executemany("DELETE FROM memory_vectors WHERE memory_id = ?", [(i,) for i in ids])
            self._conn.executemany("DELETE FROM memories WHERE id = ?", [(i,) for i in ids])
            return self.insert(memories)

    def _open(self, blob: bytes, aad: bytes) -> bytes:
        return self._aead.decrypt(blob[:crypto.NONCE_BYTES], blob[crypto.NONCE_BYTES:], aad)
