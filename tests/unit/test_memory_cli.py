"""`whiteboard memories ...` on the vault file, as a user runs it."""

import json
import os
import sqlite3
import stat
import time

import pytest
from click.testing import CliRunner

from whiteboard.cli import main
from whiteboard.memory.model import Memory, new_memory_id
from whiteboard.memory.service import MemoryService
from whiteboard.settings_store import default_paths


@pytest.fixture
def cli(tmp_path, monkeypatch):
    monkeypatch.setenv("WHITEBOARD_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("WHITEBOARD_CONFIG_DIR", str(tmp_path / "config"))
    runner = CliRunner()

    def run(*args, input=None):
        return runner.invoke(main, ["memories", *args], input=input, catch_exceptions=False)

    return run


def seed(*texts):
    service = MemoryService()
    ids = [service.add(t, "preference", site="claude.ai")[0].id for t in texts]
    service.close()
    return ids


def test_list_search_show(cli):
    a, b = seed("Prefers TypeScript", "Drinks oolong tea")
    listed = cli("list")
    assert listed.exit_code == 0 and a in listed.output and "Drinks oolong tea" in listed.output
    assert [m["text"] for m in json.loads(cli("list", "--json").output)] == ["Drinks oolong tea", "Prefers TypeScript"]
    found = cli("search", "oolong")
    assert b in found.output and a not in found.output
    shown = cli("show", a)
    assert "text:        Prefers TypeScript" in shown.output and "site:        claude.ai" in shown.output
    missing = cli("show", "mem_0000000000000000")
    assert missing.exit_code == 1 and "no memory mem_0000000000000000" in missing.output


def test_edit_with_rev_never_overwrites_an_edit_made_elsewhere(cli):
    """Issue 28: `memories edit` had no --rev, so it overwrote what the extension changed meanwhile."""
    [a] = seed("Prefers TypeScript")
    seen = int(cli("show", a).output.split("revision:")[1].split()[0])
    service = MemoryService()
    service.update(a, "Prefers TypeScript and Go")  # the memory manager, meanwhile
    service.close()
    stale = cli("edit", a, "Prefers Rust", "--rev", str(seen))
    assert stale.exit_code == 1 and f"changed since revision {seen}" in stale.output
    assert "text:        Prefers TypeScript and Go" in cli("show", a).output
    current = int(cli("show", a).output.split("revision:")[1].split()[0])
    assert cli("edit", a, "Prefers Rust", "--rev", str(current)).exit_code == 0
    assert "text:        Prefers Rust" in cli("show", a).output


def test_edit_keeps_old_text_and_delete_asks(cli):
    [a] = seed("Prefers TypeScript")
    assert cli("edit", a, "Prefers Rust", "--type", "skill").exit_code == 0
    shown = cli("show", a).output
    assert "text:        Prefers Rust" in shown and "type:        skill" in shown
    assert "earlier" in shown and "Prefers TypeScript" in shown
    assert cli("edit", a, "-", input="Prefers Zig\n").exit_code == 0
    assert "text:        Prefers Zig" in cli("show", a).output
    assert cli("edit", a).exit_code == 2  # nothing to change: a usage error
    refused = cli("delete", a, input="n\n")
    assert refused.exit_code == 1 and a in cli("list").output
    assert cli("delete", a, input="y\n").exit_code == 0
    assert cli("list").output.strip() == "No memories."


def test_export_import_roundtrip_with_progress_bar(cli, tmp_path):
    service = MemoryService()
    now = time.time()
    service.store([Memory(new_memory_id(), "context", f"Visited city number {i}", now, now) for i in range(450)])
    service.close()
    out = tmp_path / "export.json"
    assert cli("export", str(out)).exit_code == 0
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o600
    assert len(json.loads(out.read_text())["memories"]) == 450
    assert cli("wipe", "--yes").output.strip() == "Deleted 450 memories."
    result = CliRunner().invoke(main, ["memories", "import", str(out)])
    assert result.exit_code == 0 and "450 added" in result.output
    assert "450/450" in result.stderr  # tqdm's bar
    assert "450 unchanged" in cli("import", str(out)).output


def test_bad_import_stores_nothing(cli, tmp_path):
    seed("Prefers TypeScript")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "whiteboard.memories", "version": 1,
                               "memories": [{"type": "skill", "text": "Fine"}, {"type": "mood", "text": "x"}]}))
    result = cli("import", str(bad))
    assert result.exit_code == 1 and "document.memories.1.type" in result.output
    (tmp_path / "junk.json").write_text("{not json")
    assert cli("import", str(tmp_path / "junk.json")).exit_code == 1
    assert len(json.loads(cli("list", "--json").output)) == 1


@pytest.mark.parametrize("field, raw", [("updated_at", "1e300"), ("updated_at", "NaN"), ("created_at", "-Infinity"),
                                        ("usage_count", "1" + "0" * 25), ("last_used_at", "1e400")])
def test_an_import_file_with_a_number_out_of_range_stores_nothing(cli, tmp_path, field, raw):
    """Issue 20 item 4; a file may hold what JSON forbids (NaN, Infinity): Python reads it."""
    seed("Prefers TypeScript")
    entries = ",".join(f'{{"type": "skill", "text": "Knows tool {i}"}}' for i in range(599))
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "whiteboard.memories", "version": 1, "memories": [' + entries
                   + f', {{"type": "skill", "text": "Knows Rust", "{field}": {raw}}}]}}')
    result = cli("import", str(bad))
    assert result.exit_code == 1 and f"document.memories.599.{field}" in result.output, result.output
    assert len(json.loads(cli("list", "--json").output)) == 1


def test_wipe_asks_first(cli):
    seed("Prefers TypeScript", "Drinks tea")
    assert cli("wipe", input="n\n").exit_code == 1
    assert len(json.loads(cli("list", "--json").output)) == 2
    assert "Deleted 2 memories." in cli("wipe", input="y\n").output
    assert cli("list").output.strip() == "No memories."


def test_wrong_key_is_a_clear_error(cli, tmp_path):
    seed("Prefers TypeScript")
    (tmp_path / "config" / "secret.key").write_bytes(bytes(32))
    result = cli("list")
    assert result.exit_code == 1 and "wrong key" in result.output


def test_suggestions_accept_and_discard(cli):
    from whiteboard.memory.model import Suggestion, new_suggestion_id

    service = MemoryService()
    seed("Prefers TypeScript")
    rust, tea = (Suggestion(new_suggestion_id(), "preference", text, 0.55, time.time(), "claude.ai")
                 for text in ("Likes Rust", "Drinks oolong tea"))
    assert service.suggest([rust, tea]) == [rust, tea]
    service.close()
    listed = cli("suggestions").output
    assert rust.id in listed and " 55%  Likes Rust  (claude.ai)" in listed and "Drinks oolong tea" in listed
    assert "Likes Rust" not in cli("list").output  # waiting suggestions are no memories
    accepted = cli("accept", rust.id, "Likes Rust and Go").output
    assert accepted.startswith("mem_") and "Likes Rust and Go  (claude.ai)" in accepted
    assert cli("discard", tea.id).output.strip() == "Discarded."
    assert cli("suggestions").output.strip() == "No suggestions."
    assert "Likes Rust and Go" in cli("list").output
    missing = CliRunner().invoke(main, ["memories", "discard", tea.id])
    assert missing.exit_code == 1 and "no waiting suggestion" in missing.output


def test_an_entry_that_cannot_be_stored_stores_nothing_and_is_named(cli, tmp_path):
    # Every entry passes the document's checks, but the vault refuses the 551st write (a
    # trigger stands in for a full disk): the import once committed 500 entries before it
    # and said "nothing was changed".
    [kept] = seed("Prefers TypeScript")
    conn = sqlite3.connect(default_paths()[0])
    conn.execute("CREATE TRIGGER refuse_551 BEFORE INSERT ON memories WHEN (SELECT count(*) FROM memories) >= 550 "
                 "BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END")
    conn.commit()
    conn.close()
    entries = [{"memory_id": kept, "type": "skill", "text": "Prefers Rust now"}]
    entries += [{"type": "context", "text": f"Visited city number {i}"} for i in range(1, 600)]
    doc = tmp_path / "doc.json"
    doc.write_text(json.dumps({"format": "whiteboard.memories", "version": 1, "memories": entries}))
    result = CliRunner().invoke(main, ["memories", "import", str(doc)])
    assert result.exit_code == 1
    assert "memories.550" in result.output and "nothing was imported" in result.output, result.output
    assert [m["text"] for m in json.loads(cli("list", "--json").output)] == ["Prefers TypeScript"]


def test_export_replaces_an_existing_file_whole_and_private(cli, tmp_path):
    seed("Prefers TypeScript")
    out = tmp_path / "export.json"
    out.write_text("an older export\n")
    os.chmod(out, 0o644)
    other_name = tmp_path / "hard-link.json"
    os.link(out, other_name)  # writing into the file would change this name's content too
    before = os.stat(out).st_ino
    result = cli("export", str(out))
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o600 and os.stat(out).st_ino != before
    assert json.loads(out.read_text())["memories"][0]["text"] == "Prefers TypeScript"
    assert other_name.read_text() == "an older export\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".export")] == []  # no temp file left


def test_export_refuses_a_symlink(cli, tmp_path):
    seed("Prefers TypeScript")
    target = tmp_path / "elsewhere.txt"
    target.write_text("not yours to overwrite\n")
    link = tmp_path / "export.json"
    link.symlink_to(target)
    result = CliRunner().invoke(main, ["memories", "export", str(link)])
    assert result.exit_code == 1 and "symbolic link" in result.output
    assert target.read_text() == "not yours to overwrite\n" and link.is_symlink()
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # nor anything but a file: the rename would put a file in its place
    result = CliRunner().invoke(main, ["memories", "export", str(fifo)])
    assert result.exit_code == 1 and "not a regular file" in result.output and stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_import_checks_each_site_as_the_wire_does(cli, tmp_path):
    doc = tmp_path / "doc.json"
    doc.write_text(json.dumps({"format": "whiteboard.memories", "version": 1, "memories": [
        {"type": "skill", "text": "Writes Go", "site": "Claude.AI."},
        {"type": "skill", "text": "Writes Rust", "site": "<img src=x onerror=alert(1)>"}]}))
    result = cli("import", str(doc))
    assert result.exit_code == 1 and "document.memories.1.site" in result.output and "img" not in result.output
    assert cli("list").output.strip() == "No memories."
    doc.write_text(json.dumps({"format": "whiteboard.memories", "version": 1, "memories": [
        {"type": "skill", "text": "Writes Go", "site": "Claude.AI."}]}))
    assert cli("import", str(doc)).exit_code == 0
    assert [m["site"] for m in json.loads(cli("list", "--json").output)] == ["claude.ai"]
@pytest.mark.parametrize("column, value", [("updated_at", 1e300), ("updated_at", -1e18), ("created_at", 1e300),
                                           ("usage_count", 2 ** 63 - 1)])
def test_list_and_search_show_a_number_an_older_import_stored(cli, column, value):
    """Issue 20 item 4: such a row crashed list and search; it is read clamped into range."""
    a, b = seed("Prefers TypeScript", "Drinks oolong tea")
    conn = sqlite3.connect(default_paths()[0])
    conn.execute(f"UPDATE memories SET {column} = ? WHERE id = ?", (value, a))
    conn.commit()
    conn.close()
    listed = cli("list")
    assert listed.exit_code == 0 and a in listed.output and b in listed.output
    found = cli("search", "TypeScript")
    assert found.exit_code == 0 and a in found.output
    assert cli("show", a).exit_code == 0
    [kept] = [m for m in json.loads(cli("list", "--json").output) if m["memory_id"] == a]
    assert 0 <= kept["updated_at"] <= 253_402_214_400 and kept["usage_count"] <= 2 ** 53 - 1
