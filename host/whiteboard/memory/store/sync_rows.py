"""Sync's rows in the vault (migration 008_sync): a mixin of Vault, on its connection, key
and write transaction, like suggestions.py. Everything that says anything about a memory
is AES-GCM ciphertext under the vault key; plain are ids, revs, the keyed text hash (as in
`memories`) and the folder's file names with how far each was read.
"""

from __future__ import annotations

import base64
import json
import time
from typing import Callable, Iterable

from cryptography.exceptions import InvalidTag

from ... import crypto
from ... import text as T
from ..model import Memory

CONFIG_AAD = b"whiteboard:sync:config"
SYNC_TEXT_KEY_PURPOSE = b"whiteboard:sync:text_key"
LOCK_FILE = "sync.lock"  # beside the vault: one exchange at a time on this computer (empty)


def sync_text_keyer(sync_key: bytes) -> Callable[[str], bytes]:
    """The same fact's hash on every computer: HMAC of the normalised text under a key derived
    from the sync key (each vault's own text_key uses its own vault key, so they differ)."""
    key = crypto.derive_key(sync_key, SYNC_TEXT_KEY_PURPOSE)
    return lambda text: crypto.keyed_hash(key, T.normalized(text).encode())


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
            for table in ("sync_elements", "sync_files", "sync_outbox", "sync_deletes", "sync_discarded"):
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

    # ---- discarded suggestions: never suggested again on any computer ---------------------

    def _sync_keyer(self) -> Callable[[str], bytes] | None:
        config = self.sync_config()
        return None if config is None else sync_text_keyer(base64.b64decode(config["key"]))

    def discarded_filter(self) -> Callable[[str], bool]:
        """Whether a text was discarded as a suggestion on another computer (False while sync is off)."""
        keyer = self._sync_keyer()
        if keyer is None:
            return lambda text: False
        with self.lock:
            discarded = {r[0] for r in self._conn.execute("SELECT text_key FROM sync_discarded")}
        return lambda text: keyer(text) in discarded

    def note_discard(self, text: str) -> None:
        """A suggestion is discarded here (in the caller's transaction): to be sent, when sync is on."""
        keyer = self._sync_keyer()
        if keyer is not None:
            self._conn.execute("INSERT OR IGNORE INTO sync_discarded (text_key, sent) VALUES (?, 0)", (keyer(text),))

    def unsent_discards(self) -> list[bytes]:
        """Discards made here since the last exchange, marked sent (in the caller's transaction)."""
        with self._write():
            found = [r[0] for r in self._conn.execute("SELECT text_key FROM sync_discarded WHERE sent = 0")]
            self._conn.execute("UPDATE sync_discarded SET sent = 1 WHERE sent = 0")
        return found

    def all_discards(self) -> list[bytes]:
        with self.lock:
            return [r[0] for r in self._conn.execute("SELECT text_key FROM sync_discarded")]

    def discard_elsewhere(self, text_keys: list[bytes]) -> int:
        """Discards from other computers: kept, and the waiting suggestions they name are
        discarded here too (text gone, local key kept). How many waiting ones went."""
        keyer = self._sync_keyer()
        with self._write():
            self._conn.executemany("INSERT OR IGNORE INTO sync_discarded (text_key, sent) VALUES (?, 1)",
                                   [(k,) for k in text_keys])
            waiting, _ = self.load_suggestions()
            named = set(text_keys)
            gone = [s.id for s in waiting if keyer(s.text) in named]
            self._conn.executemany("UPDATE suggestions SET content = NULL, discarded_at = ? WHERE id = ?",
                                   [(time.time(), i) for i in gone])
        return len(gone)

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
            stored = self.insert(memories)
            # A suggestion another computer accepted is a memory now: it waits here no more.
            self._conn.execute("DELETE FROM suggestions WHERE discarded_at IS NULL AND text_key IN "
                               "(SELECT text_key FROM memories WHERE text_key IS NOT NULL)")
            return stored

    def _open(self, blob: bytes, aad: bytes) -> bytes:
        return self._aead.decrypt(blob[:crypto.NONCE_BYTES], blob[crypto.NONCE_BYTES:], aad)
