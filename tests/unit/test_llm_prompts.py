"""The two prompt modes of design §4, and the summary and handoff prompts."""

from whiteboard.llm.handoff import SECTIONS
from whiteboard.llm.prompts import ask_messages, handoff_messages, summary_messages
from whiteboard.sessions.store import Message

CONTEXT = "Conversation so far in this tab:\n[user] We chose Postgres for the vault."


def test_follow_up_lets_the_model_refer_to_the_conversation_openly():
    system, user = ask_messages("follow_up", CONTEXT, "Why that one?", None)
    assert system["role"] == "system" and user["role"] == "user"
    assert "refer to it openly" in system["content"]
    assert "Never mention" not in system["content"]
    assert CONTEXT in system["content"] and CONTEXT not in user["content"]
    assert user["content"] == "Why that one?"


def test_new_selection_uses_context_as_background_never_mentioned():
    system, user = ask_messages("new_selection", CONTEXT, "Explain this.", "fn main() { }")
    text = system["content"]
    assert "Never mention it" in text and "fresh" in text and "Use it only where it helps" in text
    assert "refer to it openly" not in text
    assert CONTEXT in text
    # The selection is the subject: it goes with the question, before it, marked as selected text.
    assert user["content"].index("fn main() { }") < user["content"].index("Explain this.")
    assert "<selection>" in user["content"] and "<selection>" not in text


def test_modes_differ_only_in_how_context_may_be_used():
    a = ask_messages("follow_up", CONTEXT, "Q", "S")
    b = ask_messages("new_selection", CONTEXT, "Q", "S")
    assert a[1] == b[1] and a[0] != b[0]


def test_no_context_means_no_context_rules():
    system, user = ask_messages("new_selection", "", "What is 2+2?", None)
    assert "tab_context" not in system["content"] and "Never mention" not in system["content"]
    assert user["content"] == "What is 2+2?"


def test_summary_prompt_folds_new_messages_into_the_previous_summary():
    new = [Message(7, "user", "Alice picked plan B.", 0.0), Message(8, "assistant", "x" * 5000, 0.0)]
    system, user = summary_messages("- user: budget is 300", new, 800)
    assert "At most 480 words" in system["content"] and "own language" in system["content"]
    assert "- user: budget is 300" in user["content"]
    assert "[user] Alice picked plan B." in user["content"]
    assert "x" * 1500 + "…" in user["content"] and "x" * 1501 not in user["content"]
    assert "(empty)" in summary_messages("", new, 800)[1]["content"]


def test_handoff_prompt_names_the_language_and_every_section():
    system, user = handoff_messages("[user] 你好", "Chinese", SECTIONS)
    for key, _ in SECTIONS:
        assert key in system["content"]
    assert "in Chinese" in system["content"] and "JSON object" in system["content"]
    assert "[user] 你好" in user["content"]
