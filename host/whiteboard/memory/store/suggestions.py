"""Suggestions in the vault: the rows of the `suggestions` table (migration 006).

A mixin of Vault: the same connection, key and write transaction. Content (text, tags,
keywords) is AES-GCM ciphertext bound to the suggestion's id; the text key is the same
keyed hash memories use, so a suggestion never repeats a memory's text or another
suggestion's, and a discarded one (content dropped, key kept) is not suggested again; with
sync on, on no other computer either (sync_rows.py).
"""

from __future__ import annotations

import json

from cryptography.exceptions import InvalidTag

from ... import crypto
from ..model import MEMORY_TYPES, Damaged, Suggestion

MAX_WAITING = 200  # suggestions waiting at once; later ones are not stored until some are handled
_COLUMNS = "id, type, site, confidence, created_at, content"


def _aad(suggestion_id: str) -> bytes:
    return b"whiteboard:suggestion:" + suggestion_id.encode()


class SuggestionRows:
    def put_suggestions(self, items: list[Suggestion]) -> list[Suggestion]:
        """Store new suggestions in one transaction; returns those stored (not one whose text
        a memory, a waiting suggestion or a discarded one already has)."""
        stored = []
        with self._write():
            waiting = self._conn.execute("SELECT count(*) FROM suggestions WHERE discarded_at IS NULL").fetchone()[0]
            discarded_elsewhere = self.discarded_filter()
            for s in items[:max(0, MAX_WAITING - waiting)]:
                if discarded_elsewhere(s.text):
                    continue
                key = self.text_key(s.text)
                if self._conn.execute("SELECT 1 FROM memories WHERE text_key = ?", (key,)).fetchone():
                    continue
                fields = {"text": s.text, "tags": s.tags, "keywords": s.keywords}
                if s.origin:
                    fields["origin"] = s.origin
                content = json.dumps(fields, ensure_ascii=False)
                blob = crypto.encrypt(self._key, content.encode(), _aad(s.id))
                cursor = self._conn.execute(
                    "INSERT INTO suggestions (id, type, site, confidence, created_at, text_key, content) "
                    "VALUES (?,?,?,?,?,?,?) ON CONFLICT(text_key) DO NOTHING",
                    (s.id, s.type, s.site, s.confidence, s.created_at, key, blob))
                if cursor.rowcount:
                    stored.append(s)
        return stored

    def load_suggestions(self, suggestion_id: str | None = None) -> tuple[list[Suggestion], list[Damaged]]:
        """The waiting suggestions (or the one asked for), oldest first; rows that do not
        decrypt are reported."""
        where = "discarded_at IS NULL" + (" AND id = ?" if suggestion_id else "")
        with self.lock:
            rows = self._conn.execute(f"SELECT {_COLUMNS} FROM suggestions WHERE {where} ORDER BY created_at, id",
                                      (suggestion_id,) if suggestion_id else ()).fetchall()
        found, damaged = [], []
        for sid, type_, site, confidence, created_at, blob in rows:
            try:
                raw = json.loads(self._aead.decrypt(blob[:crypto.NONCE_BYTES], blob[crypto.NONCE_BYTES:], _aad(sid)))
                if type_ not in MEMORY_TYPES or not isinstance(raw.get("text"), str):
                    raise ValueError("not a suggestion")
                found.append(Suggestion(id=sid, type=type_, text=raw["text"], confidence=float(confidence),
                                        created_at=float(created_at), site=site, tags=list(raw.get("tags", [])),
                                        keywords=list(raw.get("keywords", [])),
                                        origin=raw["origin"] if isinstance(raw.get("origin"), str) else None))
            except (InvalidTag, ValueError, TypeError, AttributeError):
                damaged.append(Damaged(sid, "this suggestion does not decrypt or is not a suggestion record"))
        return found, damaged

    def count_suggestions(self) -> int:
        """How many wait for the user (a plain count: nothing is decrypted)."""
        with self.lock:
            return self._conn.execute("SELECT COUNT(*) FROM suggestions WHERE discarded_at IS NULL").fetchone()[0]

    def drop_suggestion(self, suggestion_id: str, discarded_at: float | None) -> bool:
        """Accepted (discarded_at None): the row goes. Discarded: its content goes, its text
        key stays so that the same fact is not suggested again. False when there is no such
        waiting suggestion."""
        with self._write():
            if discarded_at is not None:
                found = self.load_suggestions(suggestion_id)[0]
                if found:
                    self.note_discard(found[0].text)  # travels when sync is on
            if discarded_at is None:
                sql, args = "DELETE FROM suggestions WHERE id = ?", (suggestion_id,)
            else:
                sql, args = ("UPDATE suggestions SET content = NULL, discarded_at = ? "
                             "WHERE id = ? AND discarded_at IS NULL", (discarded_at, suggestion_id))
            return self._conn.execute(sql, args).rowcount > 0

