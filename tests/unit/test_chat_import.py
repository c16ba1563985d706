"""`whiteboard memories import-chats`: lasting facts from ChatGPT, Claude and Gemini data
exports (tests/data/chat_exports holds a small written file of each shape), through the
real CLI on a real encrypted vault; bad files refused with the vault unchanged."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from support.host import files_under, isolated_env
from whiteboard.memory.extract import chat_export, history
from whiteboard.memory.extract.chat_export import conversations
from whiteboard.memory.service import MemoryService

from .test_memory_cli import cli  # noqa: F401 - fixture: `whiteboard memories` in this process

DATA = Path(__file__).resolve().parents[1] / "data" / "chat_exports"
CHATGPT = DATA / "chatgpt_conversations.json"
CLAUDE = DATA / "claude_conversations.json"
GEMINI = DATA / "gemini_MyActivity.json"
# Said by the assistant, a tool, hidden custom instructions, an attachment or an abandoned
# edit of a message: never the user's own words in the conversation as it stands.
NOT_THE_USERS = ("Lisbon", "sardines", "rye", "Paris", "shellfish", "sailor", "jazz", "Oslo", "pilot", "tea",
                 "cloud")


def memories() -> list:
    service = MemoryService()
    try:
        return service.list()
    finally:
        service.close()


def chatgpt_zip(tmp_path: Path) -> Path:
    path = tmp_path / "chatgpt-export.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.write(CHATGPT, "conversations.json")
        z.writestr("chat.html", "<html></html>")
        z.writestr("user.json", json.dumps({"email": "someone@example.com"}))
    return path


# ---- the shapes --------------------------------------------------------------------------


def test_each_format_gives_the_users_own_turns_only():
    chatgpt = list(conversations(CHATGPT))
    assert [c.format for c in chatgpt] == ["chatgpt", "chatgpt"]
    # current_node's branch only (the edited-away message is not read), no hidden custom
    # instructions, no tool or assistant message; an image part is left out of its turn.
    assert chatgpt[0].turns == ["I live in Utrecht and I bake bread every weekend. "
                                "How do I feed a sourdough starter?"]
    assert chatgpt[1].turns == ["I prefer answers in metric units."]
    claude = list(conversations(CLAUDE))
    assert [c.turns for c in claude] == [["I am vegetarian. Where should I eat in Porto tonight?"],
                                         ["I work as a nurse on night shifts."]]
    gemini = list(conversations(GEMINI))
    assert [c.turns for c in gemini] == [["I have two cats and I want to learn Japanese."]]
    assert chat_export.day(claude[0].started_at) == "2024-05-02" and chat_export.day(gemini[0].started_at) == \
        "2024-09-14"
    # The keys are stable and say nothing readable of the conversation.
    assert [c.key for c in conversations(CLAUDE)] == [c.key for c in claude]
    assert all("Trip" not in c.key and "0b7e4a52" not in c.key for c in claude)


def test_a_folder_and_split_files_are_read(tmp_path):
    folder = tmp_path / "export"
    (folder / "sub").mkdir(parents=True)
    (folder / "conversations-000.json").write_bytes(CHATGPT.read_bytes())
    (folder / "sub" / "conversations-001.json").write_bytes(CLAUDE.read_bytes())
    (folder / "projects.json").write_text("[]")
    assert [c.format for c in conversations(folder)] == ["chatgpt", "chatgpt", "claude", "claude"]


# ---- the command ------------------------------------------------------------------------


def test_a_chatgpt_zip_and_a_claude_file_import_once(cli, tmp_path):  # noqa: F811 - the fixture imported above
    first = cli("import-chats", str(chatgpt_zip(tmp_path)), "--yes")
    assert first.exit_code == 0, first.output
    assert "a chatgpt export, 2 conversations, 2 turns of yours" in first.output
    second = cli("import-chats", str(CLAUDE), "--yes")
    assert second.exit_code == 0, second.output
    kept = memories()
    texts = " | ".join(m.text for m in kept)
    for fact in ("Utrecht", "bread", "metric", "vegetarian", "nurse"):
        assert fact in texts, texts
    for word in NOT_THE_USERS:
        assert word not in texts, (word, texts)
    assert "Porto" not in texts  # a one-off ("tonight")
    by_site = {m.site for m in kept}
    assert by_site == {"chatgpt.com", "claude.ai"}
    nurse = next(m for m in kept if "nurse" in m.text)
    assert nurse.origin == "imported 2023-08-10"
    shown = cli("show", nurse.id).output
    assert "origin:      imported 2023-08-10" in shown and "site:        claude.ai" in shown
    # The same exports again: nothing added, nothing read twice.
    vault = tmp_path / "data" / "memories.db"
    before = {m.id: m.rev for m in memories()}
    again = cli("import-chats", str(chatgpt_zip(tmp_path)), "--yes")
    assert again.exit_code == 0 and "Imported 0 conversations" in again.output and "2 imported before" in again.output
    assert cli("import-chats", str(CLAUDE), "--yes").exit_code == 0
    assert {m.id: m.rev for m in memories()} == before and vault.exists()


def test_review_keeps_everything_waiting_with_its_origin(cli):  # noqa: F811 - the fixture imported above
    result = cli("import-chats", str(GEMINI), "--yes", "--review", "--site", "gemini.example")
    assert result.exit_code == 0, result.output
    assert memories() == []
    service = MemoryService()
    waiting, _ = service.suggestions()
    service.close()
    assert {s.text for s in waiting} >= {"Has two cats"} and all(s.site == "gemini.example" for s in waiting)
    assert all(s.origin == "imported 2024-09-14" for s in waiting)
    accepted = cli("accept", waiting[0].id)
    assert accepted.exit_code == 0
    assert memories()[0].origin == "imported 2024-09-14"


def test_it_asks_before_reading(cli):  # noqa: F811 - the fixture imported above
    refused = cli("import-chats", str(CLAUDE), input="n\n")
    assert refused.exit_code == 1 and "Read them for lasting facts" in refused.output
    assert memories() == []


# ---- bad files: a clear error, the vault unchanged ---------------------------------------


def seeded_vault(tmp_path: Path) -> bytes:
    service = MemoryService()
    service.add("Prefers Rust", "preference")
    service.close()
    return vault_digest(tmp_path)


def vault_digest(tmp_path: Path) -> bytes:
    h = hashlib.sha256()
    for p in sorted((tmp_path / "data").iterdir()):
        h.update(p.name.encode() + p.read_bytes())
    return h.digest()


def bad_files(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    whole = chatgpt_zip(tmp_path).read_bytes()
    cut = tmp_path / "cut.zip"
    cut.write_bytes(whole[:len(whole) // 2])
    cut_json = tmp_path / "cut.json"
    cut_json.write_bytes(CLAUDE.read_bytes()[:300])
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps([{"messages": [{"role": "user", "content": "I live in Oslo"}]}]))
    an_object = tmp_path / "object.json"
    an_object.write_text(json.dumps({"conversations": []}))
    latin1 = tmp_path / "latin1.json"
    latin1.write_bytes(CLAUDE.read_bytes().replace(b"vegetarian", b"v\xe9g\xe9tarien"))
    deep = tmp_path / "deep.json"
    deep.write_bytes(b"[" * 200_000 + b"]" * 200_000)
    nothing = tmp_path / "empty.json"
    nothing.write_text("[]")
    return {
        "truncated zip": (cut, "not a readable zip"),
        "truncated json": (cut_json, "ends in the middle"),
        "wrong shape": (wrong, "ChatGPT export"),
        "an object": (an_object, "ChatGPT export"),
        "invalid UTF-8": (latin1, "not valid UTF-8"),
        "deep nesting": (deep, "nested more than"),
        "no conversation": (nothing, "holds no conversation"),
    }


@pytest.mark.parametrize("case", ["truncated zip", "truncated json", "wrong shape", "an object", "invalid UTF-8",
                                  "deep nesting", "no conversation"])
def test_bad_files_are_refused_and_change_nothing(cli, tmp_path, case):  # noqa: F811 - the fixture imported above
    before = seeded_vault(tmp_path)
    path, said = bad_files(tmp_path)[case]
    result = cli("import-chats", str(path), "--yes")
    assert result.exit_code == 1, result.output
    assert said in result.output and str(path) in result.output
    assert "Traceback" not in result.output
    assert vault_digest(tmp_path) == before


def test_a_huge_message_is_refused_before_it_is_held(cli, tmp_path):  # noqa: F811 - the fixture imported above
    before = seeded_vault(tmp_path)
    path = tmp_path / "huge.json"
    with open(path, "wb") as f:  # 100 MB in one user message
        f.write(b'[{"uuid": "u", "chat_messages": [{"sender": "human", "text": "')
        block = b"I live in Oslo. " * 65536
        for _ in range(100):
            f.write(block)
        f.write(b'"}]}]')
    result = cli("import-chats", str(path), "--yes")
    assert result.exit_code == 1 and "a single value longer than 8 MB" in result.output
    assert vault_digest(tmp_path) == before


def test_a_zip_bomb_stops_at_the_cap(cli, tmp_path, monkeypatch):  # noqa: F811 - the fixture imported above
    before = seeded_vault(tmp_path)
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        with z.open("conversations.json", "w") as member:
            item = json.dumps({"uuid": "u", "chat_messages": [{"sender": "assistant", "text": "ok " * 1000}]})
            member.write(b"[")
            for _ in range(64 * 1024 * 1024 // len(item)):
                member.write(item.encode() + b",")
            member.write(item.encode() + b"]")
    assert bomb.stat().st_size < 200_000
    monkeypatch.setattr(chat_export, "MAX_UNCOMPRESSED", 16 << 20)
    result = cli("import-chats", str(bomb), "--yes")
    assert result.exit_code == 1 and "unpacks to more than" in result.output
    assert vault_digest(tmp_path) == before


def test_an_escape_cut_between_reads_is_read_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(chat_export, "READ_BYTES", 7)
    quoted = tmp_path / "quoted.json"
    quoted.write_text(json.dumps([{"uuid": "q", "chat_messages": [
        {"sender": "human", "text": 'I said \\"hi\\" \\\\ and I live in "Gent".'}]}]))
    [c] = conversations(quoted)
    assert c.turns == ['I said \\"hi\\" \\\\ and I live in "Gent".']


# ---- resumable: a batch is whole or not there ---------------------------------------------


def many_conversations(tmp_path: Path, n: int = 40) -> Path:
    cities = ["Utrecht", "Gent", "Bergen", "Kyoto", "Quito", "Tartu", "Cork", "Graz", "Pula", "Nice"]
    jobs = ["nurse", "baker", "pilot", "tailor"]
    items = [{"uuid": f"c{i}", "created_at": f"2024-01-{i % 28 + 1:02d}T10:00:00Z",
              "chat_messages": [{"sender": "human", "text": f"I work as a {jobs[i % 4]} in {cities[i % 10]}."},
                                {"sender": "human", "text": "Can you write me a limerick about a goose?"}]}
             for i in range(n)]
    path = tmp_path / "many.json"
    path.write_text(json.dumps(items))
    return path


def test_a_failed_batch_keeps_nothing_of_itself_and_the_next_run_resumes(tmp_path, monkeypatch):
    monkeypatch.setenv("WHITEBOARD_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("WHITEBOARD_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setattr(history, "BATCH_TURNS", 10)  # 5 conversations a batch
    path = many_conversations(tmp_path)
    real_keep, calls = history.keep, []

    def failing_keep(*args, **kwargs):
        calls.append(1)
        if len(calls) == 13:  # the third batch, half-way
            raise KeyboardInterrupt
        return real_keep(*args, **kwargs)

    monkeypatch.setattr(history, "keep", failing_keep)
    service = MemoryService()
    with pytest.raises(KeyboardInterrupt):
        history.import_chats(service, path)
    service.close()
    kept_first = memories()
    assert len(kept_first) and {m.origin for m in kept_first} <= {f"imported 2024-01-{d:02d}" for d in range(1, 11)}
    monkeypatch.setattr(history, "keep", real_keep)
    service = MemoryService()
    resumed = history.import_chats(service, path)
    service.close()
    assert resumed.already == 10 and resumed.conversations == 30
    # The same as one import that was never stopped.
    other = tmp_path / "other"
    monkeypatch.setenv("WHITEBOARD_DATA_DIR", str(other / "data"))
    monkeypatch.setenv("WHITEBOARD_CONFIG_DIR", str(other / "config"))
    service = MemoryService()
    whole = history.import_chats(service, path)
    service.close()
    assert whole.conversations == 40
    once = sorted(m.text for m in memories())
    monkeypatch.setenv("WHITEBOARD_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("WHITEBOARD_CONFIG_DIR", str(tmp_path / "config"))
    assert sorted(m.text for m in memories()) == once


def test_a_stop_ends_after_the_batch_and_the_rest_comes_next_time(tmp_path, monkeypatch):
    import threading

    monkeypatch.setenv("WHITEBOARD_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("WHITEBOARD_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setattr(history, "BATCH_TURNS", 10)
    path = many_conversations(tmp_path)
    stop = threading.Event()
    service = MemoryService()
    first = history.import_chats(service, path, progress=lambda turns, facts: stop.set(), stop=stop)
    assert first.stopped == "stopped" and first.conversations == 5
    rest = history.import_chats(service, path)
    service.close()
    assert rest.already == 5 and rest.conversations == 35 and rest.stopped is None


def test_full_suggestions_stop_the_import_until_the_user_reviews(tmp_path, monkeypatch):
    monkeypatch.setenv("WHITEBOARD_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("WHITEBOARD_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setattr(history, "MAX_WAITING", 12)
    path = many_conversations(tmp_path)
    service = MemoryService()
    first = history.import_chats(service, path, review=True)
    assert first.stopped == "suggestions_full" and 0 < first.conversations < 40
    assert service.suggestion_count() <= 12
    for s in service.suggestions()[0]:
        service.drop_suggestion(s.id, discarded=True)
    rest = history.import_chats(service, path, review=True)
    service.close()
    assert rest.already == first.conversations and rest.conversations > 0


# ---- nothing of the conversations is kept ---------------------------------------------------

MARKER = "Zyxquorble"


def test_no_conversation_text_in_any_file_log_or_temp_file(tmp_path):
    env = isolated_env(tmp_path / "env")
    export = tmp_path / "marked"
    export.mkdir()
    items = json.loads(CLAUDE.read_text())
    items[0]["chat_messages"][0]["text"] = f"Summarise the {MARKER} memo for me please."
    items[0]["chat_messages"][0]["content"] = [{"type": "text", "text": items[0]["chat_messages"][0]["text"]}]
    items[0]["chat_messages"][1]["text"] = f"The {MARKER} memo says the launch moved."
    items[0]["name"] = f"{MARKER} memo"
    with zipfile.ZipFile(export / "claude.zip", "w") as z:
        z.writestr("conversations.json", json.dumps(items))
    result = subprocess.run([str(Path(sys.executable).parent / "whiteboard"), "memories", "import-chats",
                             str(export / "claude.zip"), "--yes"], env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert MARKER not in result.stdout + result.stderr
    assert "1 added" in result.stdout  # the nurse: the vault was written
    written = list(files_under(tmp_path / "env"))
    assert any(p.name == "memories.db" for p in written)
    for p in written:
        assert MARKER.encode() not in p.read_bytes(), p
        assert MARKER.encode("utf-16-le") not in p.read_bytes(), p


# ---- the labelled set: planted facts found, one-offs and the assistant's words kept out -------


@pytest.mark.slow  # 1,500 turns through the embedding model
def test_planted_lasting_facts_are_found_and_the_assistants_words_are_not(tmp_path, monkeypatch):
    from bench.bench_import import PLANTED, generate

    monkeypatch.setenv("WHITEBOARD_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("WHITEBOARD_CONFIG_DIR", str(tmp_path / "config"))
    path = tmp_path / "conversations.json"
    generate("claude", path, 1500)
    service = MemoryService()
    from whiteboard.memory import hub

    summary = hub.import_chats(service, path)
    kept = [m.text.lower() for m in service.list()]
    waiting = [s.text.lower() for s in service.suggestions()[0]]
    service.close()
    assert summary.method == "classifier"
    found = [k for _, k in PLANTED["lasting"] if any(k.lower() in t for t in kept + waiting)]
    assert len(found) >= 0.8 * len(PLANTED["lasting"]), found
    assert sum(any(k.lower() in t for t in kept) for _, k in PLANTED["one_off"]) <= 2
    assert not [k for _, k in PLANTED["assistant"] if any(k.lower() in t for t in kept + waiting)]


@pytest.mark.slow  # three CLI imports of 3,200 turns, each loading the model
def test_an_import_killed_half_way_resumes_to_the_same_vault(tmp_path):
    import signal
    import sqlite3

    from support.waiting import wait_for

    export = tmp_path / "requests.json"
    jobs, cities = ["nurse", "baker", "pilot", "tailor"], ["Utrecht", "Gent", "Bergen", "Kyoto", "Quito"]
    export.write_text(json.dumps([{"uuid": f"r{i}", "created_at": "2024-02-01T10:00:00Z", "chat_messages": [
        {"sender": "human", "text": f"I work as a {jobs[i % 4]} in {cities[i % 5]}." if i % 20 == 0 else
         f"Can you write me a limerick about goose number {i}?"},
        {"sender": "human", "text": "Make it rhyme better, please."}]} for i in range(1600)]))
    whiteboard = str(Path(sys.executable).parent / "whiteboard")
    killed_env, clean_env = isolated_env(tmp_path / "killed"), isolated_env(tmp_path / "clean")
    vault = tmp_path / "killed" / "data" / "whiteboard" / "memories.db"

    def marked() -> int:
        if not vault.exists():
            return 0
        try:
            with sqlite3.connect(f"file:{vault}?mode=ro", uri=True, timeout=1) as conn:
                return conn.execute("SELECT count(*) FROM imported_chats").fetchone()[0]
        except sqlite3.OperationalError:  # not made yet
            return 0

    run = subprocess.Popen([whiteboard, "memories", "import-chats", str(export), "--yes"], env=killed_env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: marked() > 0 or run.poll() is not None, timeout=240, what="a first batch committed")
        run.send_signal(signal.SIGKILL)
    finally:
        run.wait(timeout=30)
    assert run.returncode == -signal.SIGKILL, "the import finished before it could be killed"
    first = marked()
    assert 0 < first < 1600
    resumed, _ = (subprocess.run([whiteboard, "memories", "import-chats", str(export), "--yes"], env=env,
                                 capture_output=True, text=True, timeout=600) for env in (killed_env, clean_env))
    assert f"Imported {1600 - first} conversations" in resumed.stdout and f"{first} imported before" in resumed.stdout
    listed = [subprocess.run([whiteboard, "memories", "list", "--json"], env=env, capture_output=True, text=True,
                             timeout=120).stdout for env in (killed_env, clean_env)]
    killed, clean = (sorted((m["text"], m["type"]) for m in json.loads(text)) for text in listed)
    assert killed == clean and marked() == 1600


def test_the_origin_survives_an_export_and_import_and_a_bad_site_is_refused(cli, tmp_path):  # noqa: F811 - the fixture imported above
    assert cli("import-chats", str(CLAUDE), "--yes", "--site", "x y").exit_code == 2
    assert cli("import-chats", str(CLAUDE), "--yes", "--site", "Claude.AI").exit_code == 0
    assert {m.site for m in memories()} == {"claude.ai"}
    exported = tmp_path / "memories.json"
    assert cli("export", str(exported)).exit_code == 0
    document = json.loads(exported.read_text())
    assert {m.get("origin") for m in document["memories"]} == {"imported 2024-05-02", "imported 2023-08-10"}
    assert cli("wipe", "--yes").exit_code == 0
    assert cli("import", str(exported)).exit_code == 0
    assert {m.origin for m in memories()} == {"imported 2024-05-02", "imported 2023-08-10"}
