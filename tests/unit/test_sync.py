"""Sync of the vault through a folder (issue 33), with two and three "computers": each its own
vault and key file in its own directory, all sharing one folder as a sync engine would
leave it. The real vault, the real encryption, the real change files."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.host import files_under
from whiteboard.memory import hub
from whiteboard.memory.model import Memory, Suggestion, new_memory_id, new_suggestion_id
from whiteboard.memory.service import MemoryService
from whiteboard.memory.sync import crdt, passphrase
from whiteboard.memory.sync import exchange as exchange_module
from whiteboard.memory.sync import folder as folder_module
from whiteboard.memory.sync.exchange import Sync, SyncOff
from whiteboard.memory.sync.passphrase import KEY_FILE, WrongPassphrase
from whiteboard.protocol.errors import BadRequest, Unavailable
from whiteboard.sites import SiteStore

PASSPHRASE = "correct horse battery"


class Computer:
    def __init__(self, root: Path, name: str, skew: float = 0.0):
        self.root = root / name
        self.root.mkdir()
        self.name, self.skew = name, skew
        self.service = MemoryService(self.root / "memories.db", self.root / "secret.key",
                                     sites=SiteStore(self.root / "config"))
        self.sync = Sync(self.service, wall=lambda: time.time() + self.skew)

    def add(self, text: str, type_: str = "preference") -> str:
        return self.service.add(text, type_, site="claude.ai")[0].id

    def now(self):
        return self.sync.exchange()

    def shown(self) -> list[tuple]:
        return sorted((m.id, m.text, m.type, m.pinned, tuple(o.text for o in m.old_texts))
                      for m in self.service.list())

    def texts(self) -> list[str]:
        return sorted(m.text for m in self.service.list())


@pytest.fixture
def folder(tmp_path) -> Path:
    path = tmp_path / "Sync"
    path.mkdir()
    return path


@pytest.fixture
def computers(tmp_path, folder, monkeypatch):
    # A cheaper scrypt (the key file names its parameters, so join reads them): the real
    # ones cost half a second a call; test_sync_cli.py runs them.
    monkeypatch.setattr(passphrase, "SCRYPT", {"n": 2 ** 12, "r": 8, "p": 1})
    made = []

    def make(name: str, skew: float = 0.0, join: bool = True) -> Computer:
        computer = Computer(tmp_path, name, skew)
        made.append(computer)
        if join:
            if (folder / KEY_FILE).exists():
                computer.sync.join(folder, PASSPHRASE, name)
            else:
                computer.sync.enable(folder, PASSPHRASE, name)
        return computer

    yield make
    for computer in made:
        computer.service.close()


def settle(*computers: Computer) -> None:
    """Exchange until nothing moves: twice round, as two sync rounds of a real engine."""
    for _ in range(2):
        for computer in computers:
            computer.now()


def test_two_computers_hold_the_same_memories_after_edits_deletes_and_a_conflicting_edit(computers):
    laptop, desktop = computers("laptop"), computers("desktop")
    tea = laptop.add("Prefers green tea")
    cats = laptop.add("Has two cats", "context")
    laptop.add("Lives in Lyon", "context")
    desktop.add("Works as a nurse", "context")
    settle(laptop, desktop)
    assert laptop.shown() == desktop.shown() and len(laptop.shown()) == 4

    laptop.service.update(tea, "Prefers oolong tea")  # both edit the same memory before exchanging
    time.sleep(0.01)
    desktop.service.update(tea, "Prefers black tea")
    desktop.service.update(cats, pinned=True, type="skill")
    laptop.service.delete(_id(laptop, "Lives in Lyon"))
    settle(laptop, desktop)
    assert laptop.shown() == desktop.shown()
    memory = laptop.service.get(tea)
    assert memory.text == "Prefers black tea"  # the later edit
    assert [o.text for o in memory.old_texts] == ["Prefers green tea", "Prefers oolong tea"]  # nothing typed is lost
    assert laptop.service.get(cats).pinned and laptop.service.get(cats).type == "skill"
    assert "Lives in Lyon" not in desktop.texts()


def _id(computer: Computer, text: str) -> str:
    return next(m.id for m in computer.service.list() if m.text == text)


def test_a_delete_wins_over_an_older_edit_and_not_over_a_newer_one(computers):
    a, b = computers("a"), computers("b")
    first, second = a.add("Prefers tea"), a.add("Has a bike", "context")
    settle(a, b)
    b.service.update(first, "Prefers green tea")  # older than the delete below
    time.sleep(0.01)
    a.service.delete(first)
    a.service.delete(second)
    time.sleep(0.01)
    b.service.update(second, "Has a red bike")  # newer than the delete: it stays
    settle(a, b)
    assert a.texts() == b.texts() == ["Has a red bike"]


def test_the_same_fact_added_on_two_computers_is_stored_once_and_deleted_once(computers):
    a, b = computers("a"), computers("b")
    a.add("Has two cats", "context")
    b.add("has two cats.", "context")  # the same fact, normalised
    settle(a, b)
    assert len(a.service.list()) == len(b.service.list()) == 1
    assert a.shown() == b.shown()
    b.service.delete(b.service.list()[0].id)
    settle(a, b)
    assert a.texts() == b.texts() == []  # the twin that was hidden does not come back


def test_three_computers_converge(computers):
    a, b, c = computers("a"), computers("b"), computers("c")
    for i, computer in enumerate((a, b, c)):
        computer.add(f"Knows language {i}", "skill")
    shared = a.add("Prefers dark mode")
    settle(a, b, c)
    b.service.update(shared, "Prefers dark mode everywhere")
    c.service.update(shared, pinned=True)
    a.add("Runs on Sundays", "context")
    settle(c, b, a)
    assert a.shown() == b.shown() == c.shown()
    assert len(a.shown()) == 5 and a.service.get(shared).pinned


def test_the_folder_holds_no_text_in_the_clear(computers, folder):
    marker = "Zanzibarmarker"
    # Needles long enough never to turn up in random ciphertext by chance ("ada" once did).
    a = computers("laptop-of-adalovelace")
    b = computers("desktop-of-adalovelace")
    a.add(f"Prefers {marker} coffee")
    mid = a.add(f"Has a cat called {marker}cat", "context")
    a.service.update(mid, f"Has a cat called {marker}kitten")
    settle(a, b)
    assert marker in " ".join(b.texts())
    for path in files_under(folder):
        data = path.read_bytes()
        for needle in (marker, "adalovelace", "claude.ai", "preference", "context", "coffee"):
            assert needle.encode() not in data.lower(), (path.name, needle)
            assert needle.encode("utf-16-le") not in data.lower()
    # Record sizes are padded: a one-memory and a two-memory change look the same size.
    names = sorted(p.name for p in folder.iterdir())
    assert all(n == KEY_FILE or folder_module.NAME.fullmatch(n) for n in names)


def test_a_wrong_passphrase_is_refused_and_changes_nothing(computers, folder, tmp_path):
    computers("a").add("Prefers tea")
    computers("a2", join=False)  # not used: the folder gets its key from "a" alone
    b = computers("b", join=False)
    b.add("Has two cats")
    def files():  # SQLite's -shm index changes on a read; the vault and its log must not
        return {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in [*files_under(folder), *files_under(b.root)]
                if not p.name.endswith("-shm")}

    before = files()
    with pytest.raises(WrongPassphrase, match="does not open"):
        b.sync.join(folder, "wrong horse battery", "b")
    assert files() == before
    assert b.sync.status() is None
    with pytest.raises(SyncOff):
        b.now()


def test_a_half_copied_file_is_skipped_reported_and_read_again_when_whole(computers, folder):
    a, b = computers("a"), computers("b")
    a.add("Prefers tea")
    a.now()
    for i in range(3):
        a.add(f"Knows fact {i}", "context")
        a.now()
    (name,) = [p for p in folder.iterdir() if p.name.startswith(a.sync.status()["device"])]
    whole = name.read_bytes()
    name.write_bytes(whole[:-700])  # the sync engine has copied part of the last record
    outcome = b.now()
    assert b.texts() == ["Knows fact 0", "Knows fact 1", "Prefers tea"]  # the whole records, none of the rest
    assert any("incomplete" in s.problem for s in outcome.skipped)
    assert any("incomplete" in p for _, p in b.sync.status()["skipped"])
    b.add("Lives in Lyon", "context")  # sync goes on meanwhile
    b.now()
    a.now()
    assert "Lives in Lyon" in a.texts()
    name.write_bytes(whole)
    b.now()
    assert "Knows fact 2" in b.texts() and b.sync.status()["skipped"] == []


def test_conflicted_copies_tampered_and_newer_files_are_skipped_and_reported(computers, folder):
    a, b = computers("a"), computers("b")
    a.add("Prefers tea")
    a.now()
    a.add("Has two cats", "context")
    a.now()
    (own,) = [p for p in folder.iterdir() if p.suffix == ".wbsync"]
    data = own.read_bytes()
    (folder / own.name.replace(".wbsync", ".sync-conflict-20261127-101010-ABCDEF.wbsync")).write_bytes(data)
    (folder / f"{own.stem} (conflicted copy 2026-11-27).wbsync").write_bytes(data)
    own.write_bytes(data[:-5] + bytes([data[-5] ^ 1]) + data[-4:])  # the last record tampered with
    newer = folder / "0123456789abcdef-000001.wbsync"
    newer.write_bytes(folder_module.MAGIC + bytes([folder_module.VERSION + 1]) + b"\0" * 64)
    outcome = b.now()
    problems = {s.file: s.problem for s in outcome.skipped}
    assert b.texts() == ["Prefers tea"]  # the first record only; nothing of the tampered one
    assert "does not open" in problems[own.name]
    assert "newer Whiteboard" in problems[newer.name]
    assert sum("conflicted copy" in p for p in problems.values()) == 2
    own.write_bytes(data)  # the engine brings the good file back
    b.now()
    assert b.texts() == ["Has two cats", "Prefers tea"]


def test_a_record_dated_far_ahead_waits_and_clocks_hours_apart_still_merge(computers):
    ahead, behind = computers("ahead", skew=5 * 3600), computers("behind", skew=-3 * 3600)
    tea = ahead.add("Prefers tea")
    settle(ahead, behind)
    ahead.service.update(tea, "Prefers green tea")
    settle(ahead, behind)
    behind.service.update(tea, "Prefers black tea")  # after it saw the other edit: it wins, clock or not
    settle(ahead, behind)
    assert ahead.service.get(tea).text == behind.service.get(tea).text == "Prefers black tea"
    far = computers("far", skew=3 * 24 * 3600)
    far.add("Lives on Mars", "context")
    far.now()
    outcome = behind.now()
    assert "Lives on Mars" not in behind.texts()
    assert any("ahead of this computer's clock" in s.problem for s in outcome.skipped)
    behind.skew = 3 * 24 * 3600  # the clock reaches it
    behind.now()
    assert "Lives on Mars" in behind.texts()


def test_a_full_disk_writes_nothing_half_and_the_changes_go_later(computers, folder, monkeypatch):
    a, b = computers("a"), computers("b")
    a.add("Prefers tea")
    a.now()
    own = next(p for p in folder.iterdir() if p.suffix == ".wbsync")
    size = own.stat().st_size
    real_write = os.write

    def disk_fills(fd, data):
        real_write(fd, bytes(data[:100]))  # part of it fits
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(folder_module.os, "write", disk_fills)
    a.add("Has two cats", "context")
    with pytest.raises(Unavailable, match="disk is full"):
        a.now()
    assert own.stat().st_size == size  # cut back: no half record left behind
    assert "disk is full" in a.sync.status()["problem"]
    monkeypatch.setattr(folder_module.os, "write", real_write)
    a.now()
    b.now()
    assert b.texts() == ["Has two cats", "Prefers tea"]


def test_a_thousand_memories_travel_in_one_exchange(computers):
    a, b = computers("a"), computers("b")
    now = time.time()
    a.service.store([Memory(id=new_memory_id(), type="context", text=f"Knows fact number {i}", created_at=now,
                            updated_at=now) for i in range(1000)])
    a.now()
    started = time.monotonic()
    outcome = b.now()
    assert len(b.service.list()) == 1000 and outcome.arrived == 1000
    assert time.monotonic() - started < 60  # seconds here (tests/bench/bench_sync.py measures it)


def test_a_grown_change_file_compacts_into_a_snapshot_that_a_late_computer_reads(computers, folder, monkeypatch):
    monkeypatch.setattr(exchange_module, "ROTATE_BYTES", 4096)
    a = computers("a")
    tea = a.add("Prefers tea")
    for i in range(12):
        a.service.update(tea, f"Prefers tea number {i}")
        a.add(f"Knows fact {i}", "context")
        a.now()
    files = sorted(p.name for p in folder.glob("*.wbsync"))
    assert len(files) == 1 and not files[0].endswith("-000001.wbsync")  # the older generations are gone
    late = computers("late")
    late.now()
    assert late.shown() == a.shown()


def test_set_up_errors_and_disable(computers, folder, tmp_path):
    a = computers("a")
    with pytest.raises(BadRequest, match="already on"):
        a.sync.enable(folder, PASSPHRASE)
    other = computers("other", join=False)
    with pytest.raises(BadRequest, match="already a sync folder"):
        other.sync.enable(folder, PASSPHRASE)
    with pytest.raises(BadRequest, match="not a sync folder"):
        other.sync.join(tmp_path, PASSPHRASE)
    with pytest.raises(BadRequest, match="at least"):
        other.sync.enable(tmp_path, "short")
    a.add("Prefers tea")
    a.now()
    listing = sorted(p.name for p in folder.iterdir())
    assert a.sync.disable() and a.sync.status() is None
    assert sorted(p.name for p in folder.iterdir()) == listing  # the folder is not touched
    assert a.texts() == ["Prefers tea"]



def test_a_wipe_turns_sync_off_here_and_erases_the_merge_states(computers, folder):
    a, b = computers("a"), computers("b")
    a.add("Prefers tea")
    settle(a, b)
    listing = sorted(p.name for p in folder.iterdir())
    assert a.service.wipe() == 1
    assert a.sync.status() is None
    vault = a.service.vault()
    assert vault.sync_revisions() == {} and vault.outbox() == []
    assert sorted(p.name for p in folder.iterdir()) == listing
    b.now()
    assert b.texts() == ["Prefers tea"]  # the other computers keep theirs



def _suggest(computer: Computer, text: str) -> str:
    suggestion = Suggestion(id=new_suggestion_id(), type="context", text=text, confidence=0.6, created_at=time.time())
    assert computer.service.suggest([suggestion])
    return suggestion.id


def test_a_discarded_suggestion_is_discarded_everywhere_and_an_accepted_one_becomes_the_memory(computers, folder,
                                                                                              monkeypatch):
    a, b = computers("a"), computers("b")
    for computer in (a, b):  # both extracted the same two facts with too little confidence
        _suggest(computer, "Has a dog")
        _suggest(computer, "Plays the cello")
    waiting = {s.text: s.id for s in a.service.suggestions()[0]}
    a.service.drop_suggestion(waiting["Has a dog"], discarded=True)
    hub.accept(a.service, waiting["Plays the cello"])
    settle(a, b)
    assert b.service.suggestions()[0] == []  # one discarded there too, the other is a memory now
    assert b.texts() == a.texts() == ["Plays the cello"]
    assert b.service.suggest([Suggestion(id=new_suggestion_id(), type="context", text="has a dog.", confidence=0.6,
                                         created_at=time.time())]) == []  # never suggested again
    for path in files_under(folder):
        assert b"dog" not in path.read_bytes()
    monkeypatch.setattr(exchange_module, "ROTATE_BYTES", 0)
    a.add("Lives in Lyon", "context")
    a.now()  # a compacts: its first file, with the discard, is gone; its snapshot holds it
    assert not any(p.name.endswith("-000001.wbsync") and p.name.startswith(a.sync.status()["device"])
                   for p in folder.iterdir())
    late = computers("late")  # a computer that joins after the compaction learns the discards too
    late.now()
    assert late.service.suggest([Suggestion(id=new_suggestion_id(), type="context", text="Has a dog",
                                            confidence=0.6, created_at=time.time())]) == []


computer_step = st.one_of(
    st.tuples(st.just("add"), st.integers(0, 2), st.integers(0, 5)),
    st.tuples(st.just("edit"), st.integers(0, 2), st.integers(0, 20), st.integers(0, 5)),
    st.tuples(st.just("delete"), st.integers(0, 2), st.integers(0, 20)),
    st.tuples(st.just("pin"), st.integers(0, 2), st.integers(0, 20)),
    st.tuples(st.just("type"), st.integers(0, 2), st.integers(0, 20)),
    st.tuples(st.just("exchange"), st.integers(0, 2)),
)
FACTS = ("Has two cats", "Has three cats", "Prefers tea", "Lives in Lyon", "Prefers coffee", "Runs on Sundays")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(computer_step, max_size=30))
def test_three_computers_converge_after_random_changes_and_exchanges(tmp_path_factory, steps):
    """The whole path (vault, change files, merge, what the vault shows) converges, with the
    same fact added on several computers, edits racing deletes, and exchanges in any order."""
    root = tmp_path_factory.mktemp("three")
    folder = root / "Sync"
    folder.mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(passphrase, "SCRYPT", {"n": 2 ** 10, "r": 8, "p": 1})  # the file names them: join reads them
        trio = [Computer(root, name) for name in ("a", "b", "c")]
        trio[0].sync.enable(folder, PASSPHRASE, "a")
        for computer in trio[1:]:
            computer.sync.join(folder, PASSPHRASE, computer.name)
    try:
        for kind, r, *args in steps:
            computer = trio[r]
            memories = sorted(m.id for m in computer.service.list())
            target = memories[args[0] % len(memories)] if memories and kind in ("edit", "delete", "pin", "type") \
                else None
            try:
                if kind == "add":
                    computer.add(FACTS[args[0]])
                elif kind == "exchange":
                    computer.now()
                elif target is None:
                    continue
                elif kind == "edit":
                    computer.service.update(target, FACTS[args[1]] + f" ({r})")
                elif kind == "delete":
                    computer.service.delete(target)
                elif kind == "pin":
                    computer.service.update(target, pinned=not computer.service.get(target).pinned)
                else:
                    computer.service.update(target, type="skill")
            except BadRequest:  # an edit into a text another memory has: refused, as for the user
                pass
        settle(*trio)
        assert trio[0].shown() == trio[1].shown() == trio[2].shown()
    finally:
        for computer in trio:
            computer.service.close()


def test_a_half_copied_or_hostile_key_file_is_refused_and_changes_nothing(computers, folder):
    computers("a")
    key_file = folder / KEY_FILE
    whole = key_file.read_text()
    b = computers("b", join=False)
    key_file.write_text(whole[:len(whole) // 2])
    with pytest.raises(BadRequest, match="not fully copied yet"):
        b.sync.join(folder, PASSPHRASE)
    document = json.loads(whole)
    document["kdf"]["n"] = 2 ** 30  # 128 GiB of scrypt: refused before any is allocated
    key_file.write_text(json.dumps(document))
    with pytest.raises(BadRequest, match="not a Whiteboard sync key file"):
        b.sync.join(folder, PASSPHRASE)
    document["kdf"]["n"], document["version"] = 2 ** 12, 2
    key_file.write_text(json.dumps(document))
    with pytest.raises(BadRequest, match="newer Whiteboard"):
        b.sync.join(folder, PASSPHRASE)
    assert b.sync.status() is None


@pytest.fixture
def small_disk(folder):
    """The folder on a real 256 KiB file system (tmpfs; needs root, as CI and this machine have)."""
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", str(folder)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small file system here ({mounted.stderr.strip()})")
    yield folder
    subprocess.run(["umount", "-l", str(folder)], check=False)


def test_a_really_full_disk_keeps_the_change_file_whole(small_disk, computers):
    a, b = computers("a"), computers("b")
    a.add("Prefers tea")
    a.now()
    own = next(p for p in small_disk.iterdir() if p.suffix == ".wbsync")
    size = own.stat().st_size
    filler = small_disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)  # what else the sync engine keeps there fills the disk
    try:
        while os.write(fd, b"\0" * 512):
            pass
    except OSError as exc:
        assert exc.errno == errno.ENOSPC
    finally:
        os.close(fd)
    for i in range(40):
        a.add(f"Knows fact number {i} about the long garden path", "context")
    with pytest.raises(Unavailable, match="disk is full"):
        a.now()
    assert own.stat().st_size == size
    b.now()
    assert b.texts() == ["Prefers tea"]
    filler.unlink()
    a.now()
    b.now()
    assert len(b.texts()) == 41 and b.sync.status()["skipped"] == []


def _plant_link(link: Path, target: Path) -> None:
    target.write_bytes(b"the user's own file")
    link.symlink_to(target)


@pytest.mark.skipif(os.name == "nt", reason="symlinks need privileges on Windows")
def test_a_link_planted_at_this_computers_change_file_is_never_written_through(computers, folder, tmp_path):
    a, b = computers("a"), computers("b")
    device = a.sync.status()["device"]
    target = tmp_path / "bashrc"
    _plant_link(folder / folder_module.file_name(device, 1), target)  # another device's "copy" of a link
    _plant_link(folder / f".{folder_module.file_name(device, 2)}.tmp", tmp_path / "profile")
    a.add("Prefers tea")
    a.now()
    assert target.read_bytes() == b"the user's own file"
    assert (tmp_path / "profile").read_bytes() == b"the user's own file"
    b.now()
    assert b.texts() == ["Prefers tea"]  # written to a new file of its own instead


@pytest.mark.skipif(os.name == "nt", reason="symlinks need privileges on Windows")
def test_a_link_planted_at_the_snapshots_temporary_name_is_never_written_through(computers, folder, tmp_path,
                                                                                  monkeypatch):
    monkeypatch.setattr(exchange_module, "ROTATE_BYTES", 1024)
    a, b = computers("a"), computers("b")
    device = a.sync.status()["device"]
    a.add("Prefers tea")
    a.now()  # the file is past ROTATE_BYTES now: the next exchange writes a snapshot, generation 2
    target = tmp_path / "bashrc"
    _plant_link(folder / f".{folder_module.file_name(device, 2)}.tmp", target)
    a.add("Has two cats", "context")
    a.now()
    assert (folder / folder_module.file_name(device, 2)).is_file()
    assert target.read_bytes() == b"the user's own file"
    b.now()
    assert b.texts() == ["Has two cats", "Prefers tea"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes")
@pytest.mark.timeout(20)
def test_a_pipe_or_a_link_in_the_folder_is_skipped_and_the_exchange_finishes(computers, folder, tmp_path):
    a, b = computers("a"), computers("b")
    a.add("Prefers tea")
    a.now()
    os.mkfifo(folder / "0123456789abcdef-000001.wbsync")  # a read would wait for a writer forever
    (tmp_path / "elsewhere.wbsync").write_bytes(b"x")
    (folder / "fedcba9876543210-000001.wbsync").symlink_to(tmp_path / "elsewhere.wbsync")
    outcome = b.now()
    assert b.texts() == ["Prefers tea"]
    problems = {s.file: s.problem for s in outcome.skipped}
    assert "not a regular file" in problems["0123456789abcdef-000001.wbsync"]
    assert "not a regular file" in problems["fedcba9876543210-000001.wbsync"]


@pytest.mark.skipif(os.name == "nt", reason="symlinks need privileges on Windows")
def test_a_lock_file_that_cannot_be_opened_is_a_typed_error_not_a_traceback(computers, tmp_path):
    a = computers("a")
    lock = a.service.vault_path.with_name(exchange_module.LOCK_FILE)
    lock.unlink()
    _plant_link(lock, tmp_path / "bashrc")
    with pytest.raises(Unavailable) as caught:
        a.now()
    assert caught.value.reason == "write_failed"
    lock.unlink()
    lock.mkdir()
    with pytest.raises(Unavailable) as caught:
        a.now()
    assert caught.value.reason in ("write_failed", "read_only")


@pytest.mark.parametrize("code, reason", [(errno.ENOSPC, "write_failed"), (errno.EDQUOT, "write_failed"),
                                          (errno.EROFS, "read_only"), (errno.EACCES, "read_only")])
def test_a_key_file_that_cannot_be_written_says_why(computers, folder, monkeypatch, code, reason):
    a = computers("a", join=False)
    real_fsync = os.fsync

    def fails(fd):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(passphrase.os, "fsync", fails)
    with pytest.raises(Unavailable) as caught:
        a.sync.enable(folder, PASSPHRASE, "a")
    assert caught.value.reason == reason
    monkeypatch.setattr(passphrase.os, "fsync", real_fsync)
    assert list(folder.iterdir()) == [] and a.sync.status() is None


@pytest.mark.parametrize("value", ["inf", "1e13", "nan", "0", "-1", "ten"])
def test_a_sync_interval_out_of_range_stops_the_hosts_start_by_name(value):
    from whiteboard.config import HostConfig
    with pytest.raises(ValueError, match=r"WHITEBOARD_SYNC_SECONDS must be a number from 0\.2 to 86400"):
        HostConfig.from_env({"WHITEBOARD_SYNC_SECONDS": value})
    HostConfig.from_env({"WHITEBOARD_SYNC_SECONDS": "5"})


@pytest.mark.parametrize("value", ["inf", "1e13"])
def test_a_sync_interval_out_of_range_never_ends_the_sync_thread(computers, monkeypatch, caplog, value):
    import threading

    from whiteboard.memory.sync import background
    a = computers("a")
    monkeypatch.setenv("WHITEBOARD_SYNC_SECONDS", value)
    stopping = threading.Event()
    poller = background.SyncPoller(a.service, stopping).start()
    time.sleep(0.3)
    assert poller.thread.is_alive()  # an overflowing wait would have ended it
    assert "WHITEBOARD_SYNC_SECONDS must be a number from 0.2 to 86400" in caplog.text
    stopping.set()
    poller.thread.join(5)
    assert not poller.thread.is_alive()


@pytest.mark.parametrize("during", ["read_changes", "write_whole"])
def test_a_wipe_in_another_process_during_an_exchange_turns_it_into_sync_off(computers, folder, monkeypatch, during):
    monkeypatch.setattr(exchange_module, "ROTATE_BYTES", 1024)
    a, b = computers("a"), computers("b")
    b.add("Lives in Lyon", "context")
    b.now()
    a.add("Prefers tea")
    a.now()  # a's file is past ROTATE_BYTES: its next send is a snapshot (write_whole)
    a.add("Has two cats", "context")
    other = MemoryService(a.root / "memories.db", a.root / "secret.key", sites=SiteStore(a.root / "config"))
    real = getattr(exchange_module, during)

    def wiped_meanwhile(*args, **kwargs):
        other.wipe()  # `whiteboard memory wipe`, say, while the host's thread exchanges
        return real(*args, **kwargs)

    monkeypatch.setattr(exchange_module, during, wiped_meanwhile)
    try:
        with pytest.raises(SyncOff):
            a.now()
    finally:
        other.close()
    monkeypatch.setattr(exchange_module, during, real)
    a.service.refresh_from_vault()
    assert a.texts() == [] and a.sync.status() is None  # nothing came back into the wiped vault
    with pytest.raises(SyncOff):
        a.now()


def test_a_memorys_origin_travels_and_a_record_without_one_still_merges(computers):
    a, b = computers("a"), computers("b")
    now = time.time()
    imported = new_memory_id()
    a.service.store([Memory(id=imported, type="context", text="Has two cats", created_at=now, updated_at=now,
                            site="chatgpt.com", origin="chatgpt.com, imported 2024-05-01")])
    plain = a.add("Prefers tea")
    settle(a, b)
    assert b.service.get(imported).origin == "chatgpt.com, imported 2024-05-01"
    assert b.service.get(plain).origin is None
    # An older writer of this format sends meta as [site, confidence, created_at]: still read.
    element = crdt.new_element()
    crdt.apply(element, "text", [1, 0, "x"], ["Has two cats", [], []])
    crdt.apply(element, "meta", [1, 0, "x"], ["claude.ai", 0.5, 1.0])
    assert crdt.view(element)["origin"] is None and crdt.view(element)["site"] == "claude.ai"
    assert crdt.op_problem(["m1", "meta", [1, 0, "x"], ["claude.ai", 0.5, 1.0]], 1000) == ""
    assert crdt.op_problem(["m1", "meta", [1, 0, "x"], ["claude.ai", 0.5, 1.0, "x" * 41]], 1000) != ""
    # A memory without an origin is written as three items, which that older reader takes.
    ops = [op for op in crdt.ops_of(plain, b.service.vault().sync_elements([plain])[plain]) if op[1] == "meta"]
    assert len(ops[0][3]) == 3


@pytest.mark.skipif(os.name == "nt", reason="symlinks need privileges on Windows")
def test_a_dangling_link_in_the_folder_does_not_hide_the_folders_changes_from_the_sync_thread(computers, folder,
                                                                                              tmp_path):
    import threading

    from whiteboard.memory.sync import background
    a, b = computers("a"), computers("b")
    (folder / "notes.txt").symlink_to(tmp_path / "gone")
    poller = background.SyncPoller(a.service, threading.Event())
    before = poller._signature()
    b.add("Prefers tea")
    b.now()  # b's change file appears: a's thread must see a difference and exchange
    assert poller._signature() != before
    assert before[0] is not None


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes")
@pytest.mark.timeout(20)
def test_a_pipe_or_a_link_as_the_key_file_is_refused_not_waited_on(computers, folder, tmp_path):
    computers("a")
    key_file = folder / KEY_FILE
    (tmp_path / "elsewhere.key").write_bytes(key_file.read_bytes())
    b = computers("b", join=False)
    key_file.unlink()
    os.mkfifo(key_file)  # a read would wait for a writer forever
    with pytest.raises(BadRequest, match="not a regular file"):
        b.sync.join(folder, PASSPHRASE)
    key_file.unlink()
    key_file.symlink_to(tmp_path / "elsewhere.key")
    with pytest.raises(BadRequest, match="not a regular file"):
        b.sync.join(folder, PASSPHRASE)
    assert b.sync.status() is None
