"""chat.prepare_send and chat.attach through the real dispatch core in-process."""

import time

import pytest

from whiteboard.blocks import strip_blocks

KEY = "chatgpt.com:41"


def prepare(host, draft, **fields):
    reply = host.request("chat.prepare_send", key=fields.pop("key", KEY), site=fields.pop("site", "chatgpt.com"),
                         draft=draft, **fields)
    assert reply["ok"], reply
    return reply


def messages(host, key=KEY):
    reply = host.request("session.get", key=key)
    assert reply["ok"], reply
    return [(m["role"], m["source"], m["content"]) for m in reply["messages"]]


def test_plain_send_is_recorded_and_returned_unchanged(host):
    reply = prepare(host, "How do I sort a list in Python?")
    assert reply["text"] == "How do I sort a list in Python?"
    assert reply["injected"] is False and reply["parts"] == []
    assert messages(host) == [("user", "chat", "How do I sort a list in Python?")]


def test_selection_is_injected_once_with_the_next_send_then_cleared(host):
    host.request("session.add", key=KEY, role="user", source="selection",
                 content="Kyoto has 1,600 temples.\nMany date from the Heian period.")
    first = prepare(host, "Summarise this for me")
    assert first["injected"] is True
    assert [p["kind"] for p in first["parts"]] == ["selection"]
    assert first["parts"][0]["items"] == 1 and first["parts"][0]["tokens"] > 5
    text = first["text"]
    assert text.startswith("Summarise this for me\n\n---\n[Whiteboard selection · 1 passage]\n")
    assert "> Kyoto has 1,600 temples.\n> Many date from the Heian period." in text
    assert text.endswith("\n---")
    assert strip_blocks(text) == "Summarise this for me"
    # The next send has nothing pending: the selection went with the previous one.
    second = prepare(host, "And the shrines?")
    assert second["injected"] is False and second["text"] == "And the shrines?"


def test_a_late_reply_injects_nothing_and_the_selection_waits_for_the_next_send(host):
    # The page stopped waiting (answer_by passed) and sent the draft as typed: the host
    # records that draft, but must not use up the selection it never delivered.
    host.request("session.add", key=KEY, role="user", source="selection", content="Kyoto has 1,600 temples.")
    late = prepare(host, "Sent unchanged", answer_by=time.time() - 1)
    assert late["late"] is True and late["injected"] is False and late["text"] == "Sent unchanged"
    assert ("user", "chat", "Sent unchanged") in messages(host)
    on_time = prepare(host, "Now with it", answer_by=time.time() + 30)
    assert on_time["late"] is False and on_time["injected"] is True
    assert "> Kyoto has 1,600 temples." in on_time["text"]


def test_several_selections_are_quoted_in_order(host):
    for text in ("first passage", "second passage"):
        host.request("session.add", key=KEY, role="user", source="selection", content=text)
    reply = prepare(host, "Compare them")
    assert reply["parts"][0]["items"] == 2
    assert "[Whiteboard selection · 2 passages]" in reply["text"]
    assert reply["text"].index("> first passage") < reply["text"].index("> second passage")


def test_injected_blocks_in_the_draft_are_stripped_before_recording(host):
    draft = "My question\n\n---\n[Whiteboard selection · 1 passage]\n> old quote\n(x)\n---"
    reply = prepare(host, draft)
    assert reply["text"] == "My question"
    assert messages(host) == [("user", "chat", "My question")]


def test_secrets_are_redacted_in_the_record_but_the_users_text_is_sent_as_typed(host):
    draft = "My key is sk-proj-abcdefghijklmnop1234567890 <private>my diagnosis</private> ok?"
    reply = prepare(host, draft)
    assert reply["text"] == draft
    assert reply["redacted"] == 2
    [(_, _, recorded)] = messages(host)
    assert "sk-proj" not in recorded and "diagnosis" not in recorded and "[REDACTED]" in recorded


def test_selected_secrets_never_reach_the_injected_block(host):
    host.request("session.add", key=KEY, role="user", source="selection",
                 content="export API_KEY=hunter2hunter2 and mail bob@example.com")
    reply = prepare(host, "What does this do?")
    assert "hunter2" not in reply["text"] and "bob@example.com" not in reply["text"]
    assert "[REDACTED]" in reply["text"]


def test_new_conversation_gets_earlier_tab_content_as_background_without_the_message_itself(host):
    host.request("session.add", key=KEY, role="user", content="We are planning a trip to Lisbon in May.")
    host.request("session.add", key=KEY, role="assistant", content="Lisbon in May is warm and sunny.")
    reply = prepare(host, "Suggest three day trips", conversation_new=True)
    assert [p["kind"] for p in reply["parts"]] == ["background"]
    text = reply["text"]
    assert "[Whiteboard background · earlier in this tab]" in text
    assert "never mention it" in text  # the new_selection (background only) mode
    assert "Lisbon in May is warm" in text
    assert text.count("Suggest three day trips") == 1
    assert strip_blocks(text) == "Suggest three day trips"


def test_follow_up_in_the_same_conversation_gets_no_background(host):
    host.request("session.add", key=KEY, role="user", content="We are planning a trip to Lisbon.")
    reply = prepare(host, "And in June?", conversation_new=False)
    assert reply["injected"] is False


def test_new_conversation_in_a_fresh_tab_gets_no_background(host):
    reply = prepare(host, "Hello", conversation_new=True)
    assert reply["injected"] is False


def test_selection_and_background_never_repeat_each_other(host):
    host.request("session.add", key=KEY, role="user", content="Earlier chat about Rust lifetimes.")
    host.request("session.add", key=KEY, role="user", source="selection", content="fn longest<'a>(x: &'a str)")
    reply = prepare(host, "Explain this signature", conversation_new=True)
    assert [p["kind"] for p in reply["parts"]] == ["selection", "background"]
    assert reply["text"].count("fn longest") == 1
    assert "Earlier chat about Rust lifetimes." in reply["text"]


def test_only_a_selection_in_the_tab_is_not_background(host):
    host.request("session.add", key=KEY, role="user", source="selection", content="A quoted paragraph.")
    reply = prepare(host, "What does it mean?", conversation_new=True)
    assert [p["kind"] for p in reply["parts"]] == ["selection"]


def test_budget_bounds_what_is_injected(host):
    long = " ".join(f"word{i}" for i in range(3000))
    host.request("session.add", key=KEY, role="user", source="selection", content=long)
    reply = prepare(host, "Too long?", budget=100)
    [part] = reply["parts"]
    assert part["tokens"] <= 100
    assert reply["text"].endswith("\n---") and strip_blocks(reply["text"]) == "Too long?"


def test_a_long_many_line_selection_is_cut_to_the_budget_not_dropped(host):
    lines = "\n".join(f"line {i} of a long quoted listing" for i in range(400))
    host.request("session.add", key=KEY, role="user", source="selection", content=lines)
    reply = prepare(host, "Summarise", budget=150)
    [part] = reply["parts"]
    assert part["kind"] == "selection" and 100 < part["tokens"] <= 150
    assert "> line 0 of a long quoted listing" in reply["text"] and "line 399" not in reply["text"]


def test_a_body_line_of_dashes_cannot_end_the_block_early(host):
    host.request("session.add", key=KEY, role="user", content="Intro\n---\nafter the rule")
    reply = prepare(host, "Next topic", conversation_new=True)
    assert strip_blocks(reply["text"]) == "Next topic"


def test_html_in_a_selection_is_returned_as_literal_text(host):
    host.request("session.add", key=KEY, role="user", source="selection",
                 content='<img src=x onerror="alert(1)"><b>bold</b>')
    reply = prepare(host, "What is this markup?")
    assert '> <img src=x onerror="alert(1)"><b>bold</b>' in reply["text"]


@pytest.mark.parametrize("fields,needle", [
    ({"site": "gemini"}, "site"),
    ({"site": "claude.ai"}, "site"),  # not the key's host
    ({"site": ""}, "site"),
    ({"draft": 5}, "draft"),
    ({"key": "no colon"}, "key"),
    ({"budget": 0}, "budget"),
    ({"conversation_new": "perhaps"}, "conversation_new"),
])
def test_bad_fields_get_bad_request_naming_the_field_and_lose_nothing(host, fields, needle):
    host.request("session.add", key=KEY, role="user", source="selection", content="keep me")
    base = {"key": KEY, "site": "chatgpt.com", "draft": "hi"}
    reply = host.request("chat.prepare_send", **{**base, **fields})
    assert reply["ok"] is False and reply["error"]["code"] == "bad_request"
    assert needle in reply["error"]["message"]
    assert "keep me" not in reply["error"]["message"]
    # The pending selection is still there for the next good send.
    assert "> keep me" in prepare(host, "now")["text"]


def test_a_site_other_than_the_keys_host_names_the_host_expected(host):
    reply = host.request("chat.prepare_send", key=KEY, site="bard.example", draft="hi")
    assert reply["error"]["code"] == "bad_request" and "'chatgpt.com'" in reply["error"]["message"]


def test_any_host_name_is_a_chat_site_the_host_has_no_list_of_them(host):
    # The extension's sites table decides which hosts are chat sites (docs/extension.md).
    reply = prepare(host, "Hello from a new site", key="chat.example:9", site="chat.example")
    assert reply["text"] == "Hello from a new site"
    attached = host.request("chat.attach", key="chat.example:9", site="chat.example",
                            turns=[{"role": "assistant", "content": "Hi"}])
    assert attached["ok"] and attached["count"] == 2


@pytest.mark.parametrize("kind", ["chat.prepare_send", "chat.attach", "chat.preview"])
@pytest.mark.parametrize("site,key", [("chatgpt", KEY), ("claude", "claude.ai:3")])
def test_the_old_site_ids_are_accepted_for_one_release(host, kind, site, key):
    fields = {"turns": [{"role": "user", "content": "old form"}]} if kind == "chat.attach" else {"draft": "old form"}
    reply = host.request(kind, key=key, site=site, **fields)
    assert reply["ok"], reply


def test_a_draft_that_is_only_a_whiteboard_block_is_refused(host):
    reply = host.request("chat.prepare_send", key=KEY, site="chatgpt.com",
                         draft="---\n[Whiteboard selection · 1 passage]\n> x\n---")
    assert reply["ok"] is False and reply["error"]["code"] == "bad_request"
    assert host.request("session.get", key=KEY)["ok"] is False  # nothing recorded


def test_attach_records_shown_turns_once_even_after_a_reload(host):
    turns = [{"role": "user", "content": "yes"}, {"role": "assistant", "content": "Done."},
             {"role": "user", "content": "yes"}]
    first = host.request("chat.attach", key=KEY, site="chatgpt.com", turns=turns)
    assert first["ok"] and first["recorded"] == 3 and first["count"] == 3
    again = host.request("chat.attach", key=KEY, site="chatgpt.com",
                         turns=[*turns, {"role": "assistant", "content": "New reply"}])
    assert again["recorded"] == 1 and again["count"] == 4
    assert [c for _, _, c in messages(host)] == ["yes", "Done.", "yes", "New reply"]


def test_attach_strips_blocks_so_a_sent_message_matches_its_record(host):
    sent = prepare(host, "Plan my week")
    host.request("session.add", key=KEY, role="user", source="selection", content="Monday: dentist")
    shown = prepare(host, "And Tuesday?")["text"]
    reply = host.request("chat.attach", key=KEY, site="chatgpt.com",
                         turns=[{"role": "user", "content": sent["text"]}, {"role": "user", "content": shown}])
    assert reply["recorded"] == 0


def test_attach_rejects_unknown_roles(host):
    reply = host.request("chat.attach", key=KEY, site="chatgpt.com", turns=[{"role": "system", "content": "x"}])
    assert reply["ok"] is False and reply["error"]["code"] == "bad_request"
