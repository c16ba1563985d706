"""Every number that enters the host has a documented range (issue 20 item 4; docs/protocol.md,
Numbers): the wire's fields, memory import entries and vBRIEF dates. A value outside it is
`bad_request` naming the field (and the entry) before anything is stored; a value an older
version already stored is clamped when read, so recall, the preview and listing still work."""

import copy
import sqlite3
import types
import typing
from datetime import datetime

import annotated_types
import pytest
from pydantic import AfterValidator, AwareDatetime, BaseModel
from pydantic.fields import FieldInfo

from support.host import isolated_env, ok, vault_path
from support.inprocess import InProcessHost
from whiteboard.protocol.bounds import MAX_COUNT, MAX_UNIX_SECONDS
from whiteboard.protocol.messages import REQUESTS

KEY = "chatgpt.com:20"


# ---- the wire: every numeric field of every request is bounded on both sides ----------------

def _bounds(metadata) -> set[str]:
    found = set()
    for item in metadata:
        if isinstance(item, FieldInfo):
            found |= _bounds(item.metadata)
        elif isinstance(item, (annotated_types.Ge, annotated_types.Gt)):
            found.add("low")
        elif isinstance(item, (annotated_types.Le, annotated_types.Lt)):
            found.add("high")
        elif isinstance(item, AfterValidator) and item.func.__module__ == "whiteboard.protocol.bounds":
            found |= {"low", "high"}  # a date's range (BoundedDatetime)
    return found


def _numbers(annotation, metadata, path, seen):
    """(path, bounds) of each int, float or date inside a field's type, through models, lists,
    dicts, unions and Annotated."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        yield from _numbers(args[0], [*metadata, *args[1:]], path, seen)
    elif isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if annotation in seen:
            return
        for name, field in annotation.model_fields.items():
            yield from _numbers(field.annotation, field.metadata, f"{path}.{name}", seen | {annotation})
    elif origin in (typing.Union, types.UnionType):
        for arg in args:
            yield from _numbers(arg, metadata, path, seen)
    elif origin in (list, tuple, set, frozenset):
        for arg in args:
            if arg is not Ellipsis:
                yield from _numbers(arg, [], f"{path}[]", seen)
    elif origin is dict:
        yield from _numbers(args[1], [], f"{path}{{}}", seen)
    elif annotation in (int, float, datetime, AwareDatetime):
        yield path, _bounds(metadata)


def test_every_number_a_request_carries_has_a_range():
    unbounded = [path for type_, (model, _) in REQUESTS.items()
                 for path, bounds in _numbers(model, [], type_, frozenset()) if bounds != {"low", "high"}]
    assert not unbounded


@pytest.mark.parametrize("request_, field", [
    ({"type": "chat.prepare_send", "key": KEY, "site": "chatgpt.com", "draft": "hi", "answer_by": 1e300}, "answer_by"),
    ({"type": "chat.prepare_send", "key": KEY, "site": "chatgpt.com", "draft": "hi", "answer_by": -1e18},
     "answer_by"),
    ({"type": "memory.list", "offset": 10 ** 25}, "offset"),
    ({"type": "memory.export", "offset": 2 ** 63}, "offset"),
])
def test_a_wire_number_out_of_range_is_bad_request_naming_its_field(host, request_, field):
    fields = dict(request_)
    reply = host.request(fields.pop("type"), **fields)
    assert reply["error"]["code"] == "bad_request" and reply["error"]["message"].startswith(field), reply
    assert host.request("ping")["ok"]


# ---- memory import: every entry checked before anything is stored ---------------------------

def entries(n):
    return [{"type": "preference", "text": f"Prefers tea number {i}", "created_at": 1_700_000_000.0 + i,
             "updated_at": 1_700_000_000.0 + i} for i in range(n)]


def document(memories):
    return {"format": "whiteboard.memories", "version": 1, "memories": memories}


@pytest.mark.parametrize("field, value", [
    ("updated_at", 1e300), ("updated_at", -1e18), ("created_at", 1e300), ("last_used_at", -1.0),
    ("pinned_at", MAX_UNIX_SECONDS + 1), ("usage_count", 10 ** 25), ("usage_count", -1), ("confidence", 2.0),
])
def test_an_import_entry_out_of_range_is_refused_whole_naming_entry_and_field(host, field, value):
    memories = entries(600)
    memories[549][field] = value
    reply = host.request("memory.import", document=document(memories))
    error = reply["error"]
    assert error["code"] == "bad_request" and error["message"].startswith(f"document.memories.549.{field}:"), error
    assert ok(host.request("memory.list"))["total"] == 0  # nothing stored, not even the 549 before it


def test_an_old_text_time_out_of_range_is_refused(host):
    memories = entries(2)
    memories[1]["old_texts"] = [{"text": "Prefers coffee", "replaced_at": 1e300}]
    error = host.request("memory.import", document=document(memories))["error"]
    assert error["code"] == "bad_request" and error["message"].startswith("document.memories.1.old_texts.0.replaced_at")


def test_the_edges_of_the_ranges_import(host):
    memories = entries(2)
    memories[0].update(created_at=0.0, updated_at=MAX_UNIX_SECONDS, usage_count=MAX_COUNT,
                       last_used_at=MAX_UNIX_SECONDS)
    assert ok(host.request("memory.import", document=document(memories)))["added"] == 2
    [kept] = [m for m in ok(host.request("memory.list"))["memories"] if m["usage_count"]]
    assert kept["updated_at"] == MAX_UNIX_SECONDS and kept["usage_count"] == MAX_COUNT


# ---- vBRIEF dates ---------------------------------------------------------------------------

def exported(host):
    assert host.request("session.add", key=KEY, role="user", content="Should we use SQLite?")["ok"]
    assert host.request("session.add", key=KEY, role="assistant", content="Yes, SQLite fits.")["ok"]
    return ok(host.request("vbrief.export", key=KEY))["document"]


@pytest.mark.parametrize("when", ["9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+23:59", "1969-12-31T23:59:59Z",
                                  "2026-01-01T00:00:00+19:00", "9999-12-31T12:00:00Z"])
def test_a_vbrief_date_out_of_range_is_refused_and_the_tab_stays_exportable(host, when):
    doc = exported(host)
    bad = copy.deepcopy(doc)
    bad["sessionSnapshot"]["observations"][1]["timestamp"] = when
    reply = host.request("vbrief.import", key="chatgpt.com:21", document=bad)
    error = reply["error"]
    assert error["code"] == "bad_request" and "observations.1.timestamp" in error["message"], error
    assert host.request("vbrief.export", key="chatgpt.com:21")["error"]["code"] == "not_found"
    fine = copy.deepcopy(doc)
    fine["sessionSnapshot"]["observations"][1]["timestamp"] = "9999-12-30T09:59:59-14:00"
    ok(host.request("vbrief.import", key="chatgpt.com:22", document=fine))
    ok(host.request("vbrief.export", key="chatgpt.com:22"))


# ---- values an older version stored: clamped when read --------------------------------------

@pytest.mark.parametrize("column, value", [("updated_at", 1e300), ("created_at", -1e18), ("last_used_at", 1e300),
                                           ("pinned_at", 1e300), ("usage_count", 2 ** 63 - 1)])
def test_a_stored_number_out_of_range_is_clamped_and_recall_still_works(tmp_path, column, value):
    env = isolated_env(tmp_path)
    with InProcessHost(env=env) as host:
        ok(host.request("site.settings", site="chatgpt.com", long_term=True))
        bad = ok(host.request("memory.add", text="Prefers TypeScript for all projects",
                              memory_type="preference"))["memory_id"]
        if column == "pinned_at":
            ok(host.request("memory.update", memory_id=bad, pinned=True))
    conn = sqlite3.connect(vault_path(tmp_path))
    conn.execute(f"UPDATE memories SET {column} = ? WHERE id = ?", (value, bad))  # as the old import did
    conn.commit()
    conn.close()
    draft = "Set up a new frontend project in TypeScript?"
    with InProcessHost(env=env) as host:
        recalled = ok(host.request("memory.recall", query=draft))
        assert [m["memory_id"] for m in recalled["memories"]] == [bad]
        memory = recalled["memories"][0]
        assert 0 <= memory["updated_at"] <= MAX_UNIX_SECONDS and 0 <= memory["created_at"] <= MAX_UNIX_SECONDS
        assert memory["usage_count"] <= MAX_COUNT
        preview = ok(host.request("chat.preview", key=KEY, site="chatgpt.com", draft=draft))
        assert [m["memory_id"] for m in preview["memories"]] == [bad]
        sent = ok(host.request("chat.prepare_send", key=KEY, site="chatgpt.com", draft=draft))
        assert sent["injected"] and "Prefers TypeScript" in sent["text"]
        assert ok(host.request("memory.list"))["total"] == 1
        ok(host.request("memory.export"))
