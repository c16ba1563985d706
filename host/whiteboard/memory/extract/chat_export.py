"""Reading a chat service's data export: ChatGPT, Claude, Gemini (Google Takeout).

PATH is the export's zip, its unpacked folder, or one JSON file in it. The format is told
from the file's first conversation; only the user's own turns come out (ChatGPT: the
branch that `current_node` ends, from the root, so abandoned edits are not read; Claude:
`sender` human; Gemini Takeout: the "Prompted ..." activity entries).

Everything is a stream (ijson's C backend, docs/memory.md "Importing your history" says
why): at most one conversation's user turns are in RAM at once. Before the JSON parser
sees a byte, `_Guard` checks what an export never has and a parser would pay for: a
string longer than MAX_STRING_BYTES (a parser builds it whole), nesting deeper than
MAX_DEPTH, and more than MAX_UNCOMPRESSED bytes out of a zip (a bomb). Problems are
`ExportRefused` with a message that names the file, never its content.
"""

from __future__ import annotations

import calendar
import hashlib
import io
import re
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Callable, Iterator

import ijson
import numpy as np

FORMATS = ("chatgpt", "claude", "gemini")
SITE_OF = {"chatgpt": "chatgpt.com", "claude": "claude.ai", "gemini": "gemini.google.com"}
UNDERSTOOD = ("a ChatGPT export (conversations.json with a `mapping` per conversation), a Claude export "
              "(conversations.json with `chat_messages`) or a Google Takeout Gemini Apps activity file "
              "(MyActivity.json), as a zip, its folder or the JSON file")
MAX_STRING_BYTES = 8 * 1024 * 1024  # no chat message is this long; a parser would hold it whole
MAX_DEPTH = 64  # an export nests about 8 deep
MAX_UNCOMPRESSED = 4 * 1024 ** 3  # read out of a zip at most; a bomb stops here
MAX_TURN_CHARS = 64 * 1024  # a longer user turn was pasted, not said: skipped (and counted)
READ_BYTES = 256 * 1024
# The JSON files of an export, by name; ChatGPT's newer exports split conversations-000.json, ...
_EXPORT_NAME = re.compile(r"(?:^|/)(?:conversations(?:-\d+)?|MyActivity|My Activity)\.json$", re.IGNORECASE)
_GEMINI_PROMPT = re.compile(r"^Prompted\s", re.DOTALL)
_ISO_TIME = re.compile(r"(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d))?)?")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


class ExportRefused(Exception):
    """This file is not an export we read, or it is damaged; names the file, never its text."""


@dataclass
class Conversation:
    """One conversation's user turns (in order), the day it was held and its stable key."""

    key: str  # format:id:updated: the same conversation, unchanged, has the same key
    format: str
    started_at: float | None
    turns: list[str]
    skipped_turns: int = 0  # too long (pasted)

    @property
    def site(self) -> str:
        return SITE_OF[self.format]


# ---- the files of an export ------------------------------------------------------------


def export_files(path: Path) -> list[tuple[str, Callable[[], IO[bytes]]]]:
    """(name, opener) for each JSON file of the export at `path`, in a stable order. An opener
    gives a binary stream (guarded against zip bombs)."""
    if path.is_dir():
        found = sorted(p for p in path.rglob("*.json") if _EXPORT_NAME.search(p.as_posix()))
        if not found:
            raise ExportRefused(f"{path} holds no conversations.json or MyActivity.json; it should be {UNDERSTOOD}")
        return [(str(p), (lambda p=p: open(p, "rb"))) for p in found]
    if not path.is_file():
        raise ExportRefused(f"{path} does not exist")
    with open(path, "rb") as f:
        head = f.read(4)
    if head.startswith(b"PK"):
        return _zip_files(path)
    return [(str(path), lambda: open(path, "rb"))]


def _zip_files(path: Path) -> list[tuple[str, Callable[[], IO[bytes]]]]:
    try:
        with zipfile.ZipFile(path) as z:
            names = sorted(i.filename for i in z.infolist() if _EXPORT_NAME.search(i.filename) and not i.is_dir())
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise ExportRefused(f"{path} is not a readable zip ({type(exc).__name__}: it may be cut short; "
                            "download the export again)") from None
    if not names:
        raise ExportRefused(f"{path} holds no conversations.json or MyActivity.json; it should be {UNDERSTOOD}")
    budget = _Budget(MAX_UNCOMPRESSED)

    def opener(name: str):
        def open_member():
            archive = zipfile.ZipFile(path)
            return _ZipMember(archive, archive.open(name), budget, f"{path}:{name}")
        return open_member

    return [(f"{path}:{n}", opener(n)) for n in names]


class _Budget:
    def __init__(self, left: int):
        self.left = left


class _ZipMember(io.RawIOBase):
    """A zip member's bytes, counted against the export's budget of uncompressed bytes."""

    def __init__(self, archive: zipfile.ZipFile, member: IO[bytes], budget: _Budget, name: str):
        self.archive, self.member, self.budget, self.name = archive, member, budget, name

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        if n == 0:
            return b""
        try:
            data = self.member.read(n if n and n > 0 else READ_BYTES)
        except (zipfile.BadZipFile, EOFError, OSError, ValueError) as exc:  # a cut or corrupt member
            raise ExportRefused(f"{self.name} cannot be read from the zip ({type(exc).__name__}: it may be cut "
                                "short; download the export again)") from None
        self.budget.left -= len(data)
        if self.budget.left < 0:
            raise ExportRefused(f"{self.name}: the zip unpacks to more than {MAX_UNCOMPRESSED // 1024 ** 3} GiB; "
                                "this is not an export we read")
        return data

    def close(self) -> None:
        self.member.close()
        self.archive.close()
        super().close()


class _Check:
    """What the bytes of one JSON file may not hold before a parser sees them: a value longer
    than MAX_STRING_BYTES (a parser builds a string whole) or nesting deeper than MAX_DEPTH
    (ijson slows down with the square of the depth and holds every level). Linear and in C:
    per chunk, escapes are dropped and the rest split at its quotes: the pieces between quotes
    are the strings and what lies between them, and the brackets outside strings give the
    depth. A run of MAX_STRING_BYTES with no quote at all is refused too: no export has one.
    An escape cut between two chunks may shift a count by a byte: these are bounds, not parsing."""

    def __init__(self, name: str):
        self.name = name
        self.offset = 0  # bytes checked
        self.in_string = False
        self.run = 0  # bytes since the last quote
        self.depth = 0

    def check(self, chunk: bytes) -> None:
        pieces = chunk.replace(b"\\\\", b"").replace(b'\\"', b"").split(b'"')
        longest = max(self.run + len(pieces[0]), max(map(len, pieces[1:]), default=0))
        if longest > MAX_STRING_BYTES:
            raise ExportRefused(f"{self.name}: a single value longer than {MAX_STRING_BYTES // 1024 ** 2} MB; "
                                "this is not an export we read")
        self.run = longest if len(pieces) == 1 else len(pieces[-1])
        outside = b"".join(pieces[1 if self.in_string else 0::2]).translate(None, _NOT_BRACKETS)
        if outside:
            # ] and } have bit 2 set, [ and { do not.
            levels = self.depth + np.cumsum(np.where(np.frombuffer(outside, dtype=np.uint8) & 0x04, -1, 1))
            if levels.max() > MAX_DEPTH:
                raise ExportRefused(f"{self.name}: JSON nested more than {MAX_DEPTH} deep; "
                                    "this is not an export we read")
            self.depth = int(levels[-1])
        self.in_string ^= (len(pieces) - 1) % 2 == 1
        self.offset += len(chunk)


class _Guard(io.RawIOBase):
    """The bytes of one JSON file as they go to the parser, checked first (_Check)."""

    def __init__(self, raw: IO[bytes], name: str):
        self.raw = raw
        self.checked = _Check(name)

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        if n == 0:  # ijson asks for nothing to learn whether the stream gives bytes
            return b""
        chunk = self.raw.read(n if n and 0 < n < READ_BYTES else READ_BYTES)
        if chunk.endswith(b"\\"):  # an escape cut in two: its second byte joins this chunk
            chunk += self.raw.read(1)
        self.checked.check(chunk)
        return chunk

    def readinto(self, buffer) -> int:
        """ijson's C backend reads so; one byte is kept free for an escape's second half."""
        data = self.read(max(1, len(buffer) - 1))
        buffer[:len(data)] = data
        return len(data)

    def close(self) -> None:
        self.raw.close()
        super().close()


# ---- conversations ------------------------------------------------------------------


def conversations(path: Path) -> Iterator[Conversation]:
    """Every conversation of the export at `path`, file by file, as a stream. ExportRefused
    for a file that is no export we read (named with the formats understood) or is damaged."""
    for name, opener in export_files(path):
        yield from _file_conversations(name, opener)


def _file_conversations(name: str, opener) -> Iterator[Conversation]:
    raw = opener()
    try:
        stream = _Guard(raw, name)
        items = ijson.items(stream, "item", use_float=True)
        kind = None
        try:
            for item in items:
                if kind is None:
                    kind = detect(item)
                    if kind is None:
                        raise ExportRefused(f"{name} is not a chat export we read; it should be {UNDERSTOOD}")
                found = READERS[kind](item)
                if found is not None:
                    yield found
        except ijson.common.IncompleteJSONError as exc:
            raise ExportRefused(_json_problem(name, exc)) from None
        except ijson.common.JSONError as exc:
            raise ExportRefused(_json_problem(name, exc)) from None
        except UnicodeDecodeError:
            raise ExportRefused(f"{name} is not valid UTF-8; this is not an export we read") from None
        if kind is None and stream.checked.offset and stream.checked.depth == 0:
            # No list of conversations at the top (an object, a number): not an export.
            if not _empty_list(opener):
                raise ExportRefused(f"{name} is not a chat export we read; it should be {UNDERSTOOD}")
    finally:
        raw.close()


class ExportFeed:
    """The same reading, pushed: one JSON file given in chunks as they arrive (the memory
    page sends the file it was given so, within native messaging's limits). feed() returns
    the conversations completed so far; close() says whether the file ended where it should."""

    def __init__(self, name: str):
        self.name = name
        self.checked = _Check(name)
        self.kind: str | None = None
        self._items = ijson.sendable_list()
        self._parser = ijson.items_coro(self._items, "item", use_float=True)

    def feed(self, chunk: bytes) -> list[Conversation]:
        self.checked.check(chunk)
        if self.checked.offset > MAX_UNCOMPRESSED:
            raise ExportRefused(f"{self.name} is longer than {MAX_UNCOMPRESSED // 1024 ** 3} GiB; "
                                "this is not an export we read")
        try:
            self._parser.send(chunk)
        except (ijson.common.JSONError, UnicodeDecodeError) as exc:
            raise ExportRefused(_json_problem(self.name, exc)) from None
        return self._take()

    def close(self) -> list[Conversation]:
        try:
            self._parser.close()
        except (ijson.common.JSONError, UnicodeDecodeError) as exc:
            raise ExportRefused(_json_problem(self.name, exc)) from None
        found = self._take()
        if self.kind is None:
            raise ExportRefused(f"{self.name} is not a chat export we read; it should be {UNDERSTOOD}")
        return found

    def _take(self) -> list[Conversation]:
        found = []
        for item in self._items:
            if self.kind is None:
                self.kind = detect(item)
                if self.kind is None:
                    raise ExportRefused(f"{self.name} is not a chat export we read; it should be {UNDERSTOOD}")
            c = READERS[self.kind](item)
            if c is not None:
                found.append(c)
        del self._items[:]
        return found


def _json_problem(name: str, exc: Exception) -> str:
    text = str(exc).lower()
    if isinstance(exc, UnicodeDecodeError) or "utf" in text or "unicode" in text or "byte" in text:
        return f"{name} is not valid UTF-8; this is not an export we read"
    if "incomplete" in text or "premature" in text:
        return f"{name} ends in the middle of the JSON (cut short? download the export again)"
    return f"{name} is not valid JSON; this is not an export we read"


def _empty_list(opener) -> bool:
    raw = opener()
    try:
        return raw.read(64).strip() in (b"[]", b"")
    finally:
        raw.close()


def detect(item: object) -> str | None:
    """The format of an export by its first entry; None when it is none we read."""
    if not isinstance(item, dict):
        return None
    if isinstance(item.get("mapping"), dict):
        return "chatgpt"
    if isinstance(item.get("chat_messages"), list):
        return "claude"
    if isinstance(item.get("title"), str) and ("header" in item or "products" in item) and "time" in item:
        return "gemini"
    return None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _seconds(value: object) -> float | None:
    """Epoch seconds (ChatGPT) or an ISO 8601 time in UTC (Claude, Takeout)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value) if 0 < value < 1e11 else None
    if isinstance(value, str):
        m = _ISO_TIME.match(value)
        if m:
            try:
                parts = [int(g) if g else 0 for g in m.groups()]
                return float(calendar.timegm((*parts, 0, 0, 0)))
            except (ValueError, OverflowError):
                return None
    return None


def _key(kind: str, ident: object, *more: object) -> str:
    """A stable key; the conversation id is hashed so that nothing readable is kept of it."""
    digest = hashlib.sha256(repr((ident, *more)).encode()).hexdigest()[:32]
    return f"{kind}:{digest}"


def _finish(kind: str, key: str, started: float | None, texts: list[str]) -> Conversation:
    turns = [t for t in texts if len(t) <= MAX_TURN_CHARS and t.strip()]
    return Conversation(key, kind, started, turns, skipped_turns=sum(len(t) > MAX_TURN_CHARS for t in texts))


def read_chatgpt(c: dict) -> Conversation | None:
    mapping = c.get("mapping")
    if not isinstance(mapping, dict):
        return None
    node_id = c.get("current_node")
    if node_id not in mapping:  # no current node recorded: the newest leaf
        leaves = [k for k, n in mapping.items() if isinstance(n, dict) and not n.get("children")]
        node_id = leaves[-1] if leaves else None
    path, seen = [], set()
    while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        node = mapping[node_id]
        if not isinstance(node, dict):
            break
        path.append(node.get("message"))
        node_id = node.get("parent")
    texts = []
    for message in reversed(path):
        if not isinstance(message, dict):
            continue
        author = message.get("author")
        content = message.get("content")
        if not (isinstance(author, dict) and author.get("role") == "user" and isinstance(content, dict)):
            continue
        # Custom instructions ride along as hidden "user" messages of another content type.
        if content.get("content_type") not in ("text", "multimodal_text"):
            continue
        metadata = message.get("metadata")
        if isinstance(metadata, dict) and metadata.get("is_visually_hidden_from_conversation"):
            continue
        parts = content.get("parts")
        if isinstance(parts, list):
            text = "\n".join(p for p in parts if isinstance(p, str))
            if text.strip():
                texts.append(text)
    ident = c.get("conversation_id") or c.get("id") or c.get("title")
    started = _seconds(c.get("create_time"))
    return _finish("chatgpt", _key("chatgpt", ident, c.get("create_time"), c.get("update_time")), started, texts)


def read_claude(c: dict) -> Conversation | None:
    messages = c.get("chat_messages")
    if not isinstance(messages, list):
        return None
    texts = []
    for m in messages:
        if not isinstance(m, dict) or m.get("sender") not in ("human", "user"):
            continue
        blocks = m.get("content")
        if isinstance(blocks, list) and blocks:
            text = "\n".join(b["text"] for b in blocks
                             if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str))
        else:
            text = _text(m.get("text")) or ""
        if text.strip():
            texts.append(text)
    started = _seconds(c.get("created_at"))
    return _finish("claude", _key("claude", c.get("uuid") or c.get("name"), c.get("created_at"),
                                  c.get("updated_at")), started, texts)


def read_gemini(entry: dict) -> Conversation | None:
    """A Takeout activity entry is one prompt; each is read as a conversation of one turn."""
    title = _text(entry.get("title")) or ""
    if not _GEMINI_PROMPT.match(title):  # "Used ...", "Created ...": not something the user wrote
        return None
    prompt = _GEMINI_PROMPT.sub("", title, count=1)
    when = entry.get("time")
    return _finish("gemini", _key("gemini", when, title), _seconds(when), [prompt])


READERS = {"chatgpt": read_chatgpt, "claude": read_claude, "gemini": read_gemini}


def day(seconds: float | None) -> str | None:
    """The conversation's date as the memory records it (UTC, YYYY-MM-DD)."""
    return time.strftime("%Y-%m-%d", time.gmtime(seconds)) if seconds is not None else None
