"""A megabyte of hostile text over real pipes (issue 12 item 2): the privacy filter runs on the
reader thread, so it must neither stall the replies nor keep the host alive after EOF."""

import time

import pytest

from support.hostile_text import BASE64URL, random_text, repeat_to

MB = 1_000_000
KEY = "chatgpt.com:12"
# Generous for a loaded machine: the old patterns took minutes on each of these.
PROMPT = 10.0

HOSTILE = {
    "a.a.": repeat_to("a.", MB),
    "foo-foo-": repeat_to("foo-", MB),
    "key-key-": repeat_to("key-", MB),
    "x=x=": repeat_to("x=", MB),
    "base64url": random_text(BASE64URL, MB, seed=12),
}


def wait_exit(proc, limit: float) -> float:
    start = time.monotonic()
    proc.wait(limit)
    return time.monotonic() - start


@pytest.mark.parametrize("name", HOSTILE)
def test_session_add_of_a_hostile_megabyte_is_answered_promptly(host, name):
    start = time.monotonic()
    reply = host.request("session.add", key=KEY, role="user", content=HOSTILE[name])
    assert reply["ok"] and time.monotonic() - start < PROMPT
    assert host.request("ping")["ok"]


@pytest.mark.parametrize("name", ["a.a.", "base64url"])
def test_eof_right_after_a_hostile_chat_attach_stops_the_host(host, name):
    host.send({"id": 1, "type": "chat.attach", "key": KEY, "site": "chatgpt",
               "turns": [{"role": "user", "content": HOSTILE[name]},
                         {"role": "assistant", "content": HOSTILE["foo-foo-"][:500_000]}]})
    host.proc.stdin.close()
    assert wait_exit(host.proc, PROMPT + 5) < PROMPT


def test_eof_right_after_a_hostile_session_add_stops_the_host(host):
    host.send({"id": 1, "type": "session.add", "key": KEY, "role": "user", "content": HOSTILE["key-key-"]})
    host.proc.stdin.close()
    assert wait_exit(host.proc, PROMPT + 5) < PROMPT


# Issue 20 item 2: the injection-block pattern began `\n*^---`, quadratic on a run of newlines;
# a draft of 60,000 newlines held the reader thread 15.8 s, the ping behind it included.
DRAFTS = {
    "60k newlines": "\n" * 60_000 + "Hello",
    "newlines after a header word": "[Whiteboard context]" + "\n" * 60_000,
    "400k of newlines and dashes": repeat_to("\n---", 400_000),  # the reply echoes it: 1 MB at most
}


@pytest.mark.parametrize("name", DRAFTS)
def test_a_hostile_draft_delays_neither_its_reply_nor_a_ping(host, name):
    start = time.monotonic()
    host.send({"id": 1, "type": "chat.prepare_send", "key": KEY, "site": "chatgpt.com", "draft": DRAFTS[name]})
    host.send({"id": 2, "type": "ping"})
    replies = {}
    while len(replies) < 2:
        reply = host.recv(timeout=PROMPT + 20)
        if reply.get("id") in (1, 2):
            replies[reply["id"]] = (reply, time.monotonic() - start)
    assert replies[1][0]["ok"] and replies[2][0]["ok"], replies
    assert replies[1][1] < PROMPT / 2 and replies[2][1] < PROMPT / 2, {i: t for i, (_, t) in replies.items()}
