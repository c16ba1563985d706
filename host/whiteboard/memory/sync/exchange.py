"""One exchange between this computer's vault and the sync folder, and sync's set-up.

An exchange (`Sync.exchange`), under a lock file so the CLI and a host never run two at once:
1. read the other computers' records past what was read (folder.read_changes), no lock held;
2. in one vault transaction (the service's batch): turn what changed in the vault since the
   last exchange into ops (stamped by this computer's clock), merge the records' ops into
   the elements (crdt.apply), write to the vault what the merge changed, and keep this
   computer's new ops in the outbox;
3. append the outbox to this computer's change file, then drop it from the outbox. A kill
   between the two writes the same ops again next time: applying an op twice changes nothing.

Which memories the vault shows: every live element, except that of elements with the same
text (the same fact added on two computers) only the one with the smallest id is shown.
That is a function of the merged elements alone, so every computer shows the same.
"""

from __future__ import annotations

import base64
import logging
import os
import re
import secrets
import socket
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ... import files
from ...protocol.errors import BadRequest, Unavailable
from ..model import Memory, OldText
from ..store.sync_rows import LOCK_FILE, sync_text_keyer
from . import crdt, passphrase
from .folder import OPS_PER_RECORD, FileLost, Skipped, append, file_name, read_changes, seal, write_whole

if TYPE_CHECKING:
    from ..service import MemoryService
    from ..store.vault import Vault

log = logging.getLogger("whiteboard.memory")
ROTATE_BYTES = 4 << 20  # a change file this much past its snapshot is replaced by a new snapshot
SKIPPED_KEPT = 20
NAME_CHARS = 64
FIELD_ORDER = {name: i for i, name in enumerate(crdt.FIELDS)}
_NAME_OK = re.compile(r"[^\x00-\x1f\x7f]{1,64}")


@dataclass
class Outcome:
    sent: int = 0  # ops this computer wrote to its change file
    received: int = 0  # ops read from other computers' files
    arrived: int = 0  # memories added or changed here by other computers' changes
    skipped: list[Skipped] = field(default_factory=list)


class SyncOff(BadRequest):
    """Sync is not set up on this computer."""

    def __init__(self):
        super().__init__("sync is off on this computer: `whiteboard sync enable FOLDER` (the first computer) or "
                         "`whiteboard sync join FOLDER` (the others)")


class Sync:
    def __init__(self, service: MemoryService, wall: Callable[[], float] = time.time):
        self.service, self.wall = service, wall

    # ---- set-up ----------------------------------------------------------------------------

    def enable(self, folder: Path, secret: str, name: str | None = None) -> dict:
        """Make `folder` a sync folder: a new sync key, wrapped by the passphrase, in it."""
        folder = self._usable(folder)
        self._not_on()
        passphrase.check_passphrase(secret)
        return self._start(folder, passphrase.create(folder, secret), name)

    def join(self, folder: Path, secret: str, name: str | None = None) -> dict:
        """Join the sync folder another computer enabled; its memories and this vault's merge
        at the first exchange. A wrong passphrase changes nothing."""
        folder = self._usable(folder)
        self._not_on()
        return self._start(folder, passphrase.unwrap(folder, secret), name)

    def disable(self) -> bool:
        """Sync off here: the vault forgets the folder, the sync key and the merge states. The
        folder and the other computers are not touched. False when it was off."""
        with self._locked(), self.service.lock:
            vault = self.service.vault()
            if vault is None or vault.sync_config() is None:
                return False
            vault.clear_sync()
            return True

    def config(self) -> dict | None:
        vault = self.service.vault()
        return None if vault is None else vault.sync_config()

    def status(self) -> dict | None:
        """The folder, this computer's name, the last exchange, the other computers, what was skipped."""
        config = self.config()
        if config is None:
            return None
        return {"folder": config["folder"], "name": config["name"], "device": config["device"], **config["status"]}

    def _usable(self, folder: Path) -> Path:
        folder = Path(folder).expanduser().resolve()
        if not folder.is_dir():
            raise BadRequest(f"{folder} is not a folder (make it, or let the sync engine make it, first)")
        return folder

    def _not_on(self) -> None:
        config = self.config()
        if config is not None:
            raise BadRequest(f"sync is already on here, with {config['folder']}: `whiteboard sync disable` first")

    def _start(self, folder: Path, key: bytes, name: str | None) -> dict:
        name = (name or socket.gethostname() or "computer").strip()
        if not _NAME_OK.fullmatch(name):
            raise BadRequest(f"name: 1 to {NAME_CHARS} printable characters")
        config = {"folder": str(folder), "key": base64.b64encode(key).decode(), "device": secrets.token_hex(8),
                  "name": name, "hlc": [0, 0], "generation": 1, "base": 0,
                  "status": {"last_exchange": None, "computers": {}, "skipped": [], "arrived": 0,
                             "arrived_at": None, "problem": None}}
        with self._locked(), self.service.lock:
            vault = self.service.vault(create=True)
            with vault.batch():
                if vault.sync_config() is not None:
                    raise BadRequest("sync was turned on here meanwhile")
                vault.clear_sync()
                vault.set_sync_config(config)
        return config

    # ---- an exchange ---------------------------------------------------------------------------

    def exchange(self) -> Outcome:
        """Send this vault's changes and apply the other computers'. SyncOff when sync is off;
        Unavailable when the folder cannot be read or written (the vault is then as the
        merge left it, and the changes wait in the outbox)."""
        with self._locked():
            config = self.config()
            if config is None:
                raise SyncOff()
            key, device, folder = base64.b64decode(config["key"]), config["device"], Path(config["folder"])
            if not (folder / passphrase.KEY_FILE).is_file():
                raise self._note_problem(Unavailable(
                    f"the sync folder {folder} is not there or lost its {passphrase.KEY_FILE} (an unmounted drive, "
                    "a sync engine still starting?); nothing was exchanged"))
            now_ms = int(self.wall() * 1000)
            progress = self.service.vault().sync_progress()
            records, skipped, reads = read_changes(folder, key, device, progress, now_ms)
            outcome = Outcome(received=sum(len(r.ops) for r in records), skipped=skipped)
            with self.service.batch() as vault:
                config = vault.sync_config()
                if config is None:  # wiped or turned off by another process meanwhile: nothing applied
                    raise SyncOff()
                clock = crdt.Clock(device, tuple(config["hlc"]), self.wall)
                merge = _Merge(vault, key)
                local = merge.local_changes(clock)
                for record in records:
                    for op in record.ops:
                        clock.receive(op[2])
                        merge.apply(op)
                outcome.arrived = merge.settle()
                if local:
                    vault.add_outbox(local)
                vault.set_sync_progress(reads)
                config["hlc"] = list(clock.state())
                config["status"] = self._status(config["status"], records, skipped, outcome.arrived)
                vault.set_sync_config(config)
            self.service.refresh_from_vault()
            outcome.sent = self._send(folder, key, config)
            return outcome

    def _status(self, status: dict, records, skipped: list[Skipped], arrived: int) -> dict:
        now = self.wall()
        computers = dict(status.get("computers", {}))
        for record in records:
            computers[record.device] = {"name": record.name, "last_change": record.at}
        status = {**status, "last_exchange": now, "computers": computers, "problem": None,
                  "skipped": [[s.file, s.problem] for s in skipped[:SKIPPED_KEPT]]}
        if arrived:
            names = sorted({r.name for r in records})
            status.update(arrived=arrived, arrived_at=now, arrived_from=names)
        return status

    def _note_problem(self, exc: Unavailable) -> Unavailable:
        vault = self.service.vault()
        config = vault.sync_config()
        if config is not None:  # else sync was turned off meanwhile: no status to note it in
            config["status"] = {**config["status"], "problem": exc.message}
            vault.set_sync_config(config)
        return exc

    def _send(self, folder: Path, key: bytes, config: dict) -> int:
        """Write the outbox to this computer's change file (a new snapshot file when the
        current one has grown well past its snapshot), then empty the outbox."""
        vault = self.service.vault()
        waiting = vault.outbox()
        if not waiting:
            return 0
        ops = [op for _, batch in waiting for op in batch]
        name = file_name(config["device"], config["generation"])
        at = vault.sync_progress().get(name, (0, 0))
        try:
            if at[0] > max(ROTATE_BYTES, 2 * config["base"]):
                name, at = self._snapshot(folder, key, config)  # it holds the outbox's ops too
            else:
                at = append(folder, name, at, self._seal(key, config, name, at[1], ops, False))
        except FileLost:  # deleted or replaced in the folder: a snapshot brings everything back
            name, at = self._snapshot(folder, key, config)
        except Unavailable as exc:
            raise self._note_problem(exc) from None
        with vault.batch():
            if vault.sync_config() is None:  # wiped or turned off by another process meanwhile
                raise SyncOff()
            vault.set_sync_progress({name: at})
            vault.drop_outbox([seq for seq, _ in waiting])
        return len(ops)

    def _snapshot(self, folder: Path, key: bytes, config: dict) -> tuple[str, tuple[int, int]]:
        """Every element's ops in a new generation of this computer's file; the older ones go."""
        vault = self.service.vault()
        with self.service.lock:
            ids = list(vault.sync_revisions())
            ops = [op for chunk in range(0, len(ids), 1000)
                   for element_id, element in vault.sync_elements(ids[chunk:chunk + 1000]).items()
                   for op in crdt.ops_of(element_id, element)]
            ops += [[k.hex(), "discard", [0, 0, config["device"]], None] for k in vault.all_discards()]
        generation = config["generation"] + 1
        name = file_name(config["device"], generation)
        try:
            at = write_whole(folder, name, self._seal(key, config, name, 0, ops, True))
        except Unavailable as exc:
            raise self._note_problem(exc) from None
        old = [file_name(config["device"], g) for g in range(1, generation)]
        with vault.batch():
            current = vault.sync_config()
            if current is None:  # wiped or turned off by another process meanwhile
                raise SyncOff()
            current.update(generation=generation, base=at[0])
            vault.set_sync_config(current)
            vault.set_sync_progress({n: None for n in old})
        config.update(generation=generation, base=at[0])
        for n in old:
            try:
                (folder / n).unlink(missing_ok=True)  # a link planted there goes, never what it points to
            except OSError:  # a folder planted under the name: left alone, never read
                pass
        return name, at

    def _seal(self, key: bytes, config: dict, name: str, index: int, ops: list, snapshot: bool) -> list[bytes]:
        chunks = [ops[i:i + OPS_PER_RECORD] for i in range(0, len(ops), OPS_PER_RECORD)] or [[]]
        return [seal(key, name, index + i, {"v": 1, "device": config["name"], "at": self.wall(),
                                            "snapshot": snapshot, "ops": chunk})
                for i, chunk in enumerate(chunks)]

    @contextmanager
    def _locked(self):
        """One exchange at a time on this computer (the CLI and the hosts of two browsers)."""
        path = self.service.vault_path.with_name(LOCK_FILE)
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except OSError as exc:
            raise files.unwritable(exc, path) from None
        try:
            try:
                import fcntl
            except ImportError:  # Windows: the vault's write lock still keeps each step whole
                fcntl = None
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)


class _Merge:
    """The elements an exchange touches, loaded on demand, and what the vault must show."""

    def __init__(self, vault: Vault, key: bytes):
        self.vault = vault
        self.text_key_of = sync_text_keyer(key)
        self.discarded: list[bytes] = []  # suggestions' text hashes other computers discarded
        self.loaded: dict[str, Memory] = {}  # the memories local_changes read from the vault
        self.elements: dict[str, dict] = {}
        self.touched: set[str] = set()
        self.remote: set[str] = set()
        self.old_keys: set[bytes] = set()

    def _element(self, element_id: str) -> dict:
        if element_id not in self.elements:
            self._load([element_id])
        return self.elements[element_id]

    def _load(self, ids: list[str]) -> None:
        """Load these elements (a new one where there is none), noting the texts they show now."""
        found = self.vault.sync_elements([i for i in ids if i not in self.elements])
        for i in ids:
            if i not in self.elements:
                self.elements[i] = found.get(i) or crdt.new_element()
                view = crdt.view(self.elements[i])
                if view is not None:
                    self.old_keys.add(self.text_key_of(view["text"]))

    def local_changes(self, clock: crdt.Clock) -> list[list]:
        """Ops for what changed in the vault since the last exchange (any process's edits),
        stamped in the order they were made (so an edit made before another computer's
        delete stays older than it, however late this computer exchanges)."""
        revisions = self.vault.revisions()
        synced = self.vault.sync_revisions()
        changed = [i for i, rev in revisions.items() if synced.get(i) != rev]
        gone = [i for i, rev in synced.items() if rev is not None and i not in revisions]
        deleted_at = self.vault.sync_deletes()
        now = clock.wall()
        found: list[tuple[float, str, str, object]] = []  # (when, element id, field, value)
        history: list[list] = []
        for start in range(0, len(changed), 1000):
            chunk = changed[start:start + 1000]
            self._load(chunk)
            memories, _ = self.vault.load(chunk)  # a row that does not open stays out of sync
            self.loaded.update((m.id, m) for m in memories)
            for m in memories:
                history += self._history_of(m, clock.node)
                found += self._changes_of(m, now)
        for element_id in gone:
            view = crdt.view(self._element(element_id))
            twins = self.vault.sync_group(self.text_key_of(view["text"])) if view else []
            # Its twins too (the same text from another computer, hidden here): else one shows up.
            found += [(deleted_at.get(element_id, now), i, "del", None) for i in sorted({element_id, *twins})
                      if crdt.alive(self._element(i))]
        ops = history + [[i, name, clock.tick(when), value] for when, i, name, value in
                         sorted(found, key=lambda c: (c[0] if c[0] is not None else now, c[1], FIELD_ORDER[c[2]]))]
        for op in ops:
            crdt.apply(self._element(op[0]), *op[1:])
            self.touched.add(op[0])
        return ops + [[k.hex(), "discard", clock.tick(), None] for k in self.vault.unsent_discards()]

    def _history_of(self, m: Memory, node: str) -> list[list]:
        """A memory seen for the first time brings its old texts, stamped when each was
        replaced (and older than its text, so they stay old texts)."""
        element = self._element(m.id)
        if element["texts"] or element["del"] is not None:
            return []
        latest = int(m.updated_at * 1000) - 1
        return [[m.id, "text", [min(int(old.replaced_at * 1000), latest), i, node], [old.text, [], []]]
                for i, old in enumerate(m.old_texts)]

    def _changes_of(self, m: Memory, now: float) -> list[tuple[float, str, str, object]]:
        """What differs between the memory and its element, each with when it was made where
        the vault knows it (a text or type change sets updated_at, a pin pinned_at); an
        unpin when this exchange finds it."""
        view = crdt.view(self._element(m.id))
        changes = []
        if view is None or (view["text"], view["tags"], view["keywords"]) != (m.text, m.tags, m.keywords):
            changes.append((m.updated_at, m.id, "text", [m.text, m.tags, m.keywords]))
        if view is None or view["type"] != m.type:
            changes.append((m.updated_at, m.id, "type", m.type))
        if view is None or view["pinned_at"] != m.pinned_at:
            changes.append((m.pinned_at if m.pinned_at is not None else now, m.id, "pin", m.pinned_at))
        origin = m.origin[:crdt.ORIGIN_CHARS] if m.origin else None
        if view is None or [view["site"], view["confidence"], view["created_at"], view["origin"]] != \
                [m.site, m.confidence, m.created_at, origin]:
            # The origin only when there is one: three items are what a reader before it takes.
            meta = [m.site, m.confidence, m.created_at] + ([origin] if origin else [])
            changes.append((m.updated_at, m.id, "meta", meta))
        self.touched.add(m.id)
        return changes

    def apply(self, op: list) -> None:
        if op[1] == "discard":
            self.discarded.append(bytes.fromhex(op[0]))
        elif crdt.apply(self._element(op[0]), *op[1:]):
            self.touched.add(op[0])
            self.remote.add(op[0])

    def settle(self) -> int:
        """Store the touched elements and write to the vault what they now show; how many
        memories arrived or changed here because of other computers' ops (removals not counted)."""
        if self.discarded:
            self.vault.discard_elsewhere(self.discarded)
        if not self.touched:
            return 0
        revisions = self.vault.revisions()
        keys = {}
        for i in self.touched:
            view = crdt.view(self.elements[i])
            keys[i] = self.text_key_of(view["text"]) if view else None
        self.vault.put_sync_elements([(i, None, keys[i], self.elements[i]) for i in self.touched])
        # Whoever shares a text with a touched element (now or before) may be shown or hidden now.
        shown: dict[str, bool] = {}
        for key in {k for k in keys.values() if k} | self.old_keys:
            group = sorted(self.vault.sync_group(key))
            for i in group:
                shown[i] = i == group[0]
        for i in self.touched:
            shown.setdefault(i, False)
        # The rows local_changes read are as they were (this transaction wrote none since).
        current = {i: self.loaded[i] for i in shown if i in self.loaded}
        current.update((m.id, m) for m in self.vault.load([i for i in shown if i in revisions and i not in current])[0])
        removed, written, kept = [], [], {}
        for i, show in shown.items():
            element = self._element(i)
            view = crdt.view(element) if show else None
            if view is None:
                if i in revisions:
                    removed.append(i)
                kept[i] = None
                continue
            now = current.get(i)
            if now is not None and _same(now, view):
                kept[i] = now.rev
                continue
            written.append(_memory(i, view, now))
        stored = self.vault.replace_synced(removed, written)
        kept.update({m.id: m.rev for m in stored})
        for m in written:
            if m.id not in kept:
                kept[m.id] = None
        self.vault.set_sync_revs(kept)
        return len([m for m in written if m.id in self.remote])


def _same(m: Memory, view: dict) -> bool:
    """The vault shows what the merge decided (old texts compared by text: a local edit's
    old text carries the edit's time, the merge's the time it was first written)."""
    return (m.text, m.tags, m.keywords, m.type, m.pinned_at, m.site, m.confidence, m.created_at,
            m.origin[:crdt.ORIGIN_CHARS] if m.origin else None, [o.text for o in m.old_texts]) == \
        (view["text"], view["tags"], view["keywords"], view["type"], view["pinned_at"], view["site"],
         view["confidence"], view["created_at"], view["origin"], [t for t, _ in view["old_texts"]])


def _memory(memory_id: str, view: dict, now: Memory | None) -> Memory:
    """The memory the merge decided. A row this vault has keeps what does not travel (its
    usage, and any field a later release adds that sync does not carry)."""
    fields = dict(type=view["type"], text=view["text"], created_at=view["created_at"],
                  updated_at=max(view["updated_at"], view["created_at"]), tags=view["tags"],
                  keywords=view["keywords"], confidence=view["confidence"], site=view["site"], origin=view["origin"],
                  old_texts=[OldText(t, at) for t, at in view["old_texts"]], pinned_at=view["pinned_at"])
    return replace(now, **fields) if now is not None else Memory(id=memory_id, **fields)
