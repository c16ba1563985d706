"""Handoff summary (design §7): six sections in the conversation's language, by model or extractively."""

import json

import pytest

from support.fake_openai import fail, garbage, reply
from whiteboard.llm.handoff import SECTIONS, TITLES, detect_language, make_handoff, parse_sections, render
from whiteboard.llm.layer import ModelLayer
from whiteboard.llm.settings import SettingsStore
from whiteboard.sessions.store import Message
from whiteboard.tokens import TokenCounter

TOKENS = TokenCounter().load_now()
IDS = [sid for sid, _ in SECTIONS]

CHINESE = [
    Message(1, "user", "我是一名后端工程师，我更喜欢用Go。我们在做一个浏览器插件，叫Whiteboard。", 0.0),
    Message(2, "assistant", "好的。建议用SQLite存储记忆，并用AES-GCM加密，密钥放在配置目录。", 0.0),
    Message(3, "user", "决定了：用SQLite，预算3000元。下一步怎么做导出功能？还需要支持Firefox吗？", 0.0),
]
ENGLISH = [
    Message(1, "user", "I am a data engineer and I prefer Python 3.11. We are building a Chrome extension.", 0.0),
    Message(2, "assistant", "Great. We decided to store memories in SQLite with AES-GCM. The vault is done.", 0.0),
    Message(3, "user", "What is the next step for the export? Should it support Firefox?", 0.0),
]


def as_said(messages):
    return "\n".join(f"[{m.role}] {m.content}" for m in messages)


def no_model(tmp_path):
    return ModelLayer(SettingsStore(tmp_path), env={})


def model(tmp_path, fake):
    return ModelLayer(SettingsStore(tmp_path), env={"WHITEBOARD_LLM_BASE_URL": fake.base_url,
                                                    "WHITEBOARD_LLM_MODEL": "m"})


@pytest.mark.parametrize("text,lang", [
    ("How do I deploy this to production?", "en"),
    ("我们今天讨论一下数据库的设计。", "zh"),
    ("用 Python 写一个 HTTP server，需要支持 streaming 和 retry，怎么做比较好？", "zh"),
    ("The word 你好 means hello in Chinese, and I want to learn more phrases like it.", "en"),
    ("このコードのバグを直してください。", "ja"),
    ("이 코드를 설명해 주세요.", "ko"),
])
def test_language_is_detected_from_the_users_words(text, lang):
    assert detect_language([Message(1, "user", text, 0.0), Message(2, "assistant", "Sure, here you go.", 0.0)]) == lang


def test_a_chinese_conversation_gets_a_chinese_extractive_handoff(tmp_path):
    made = make_handoff(CHINESE, "", as_said(CHINESE), TOKENS, no_model(tmp_path), 1500)
    assert (made.language, made.method) == ("zh", "extractive")
    assert [sid for sid, _, _ in made.sections] == IDS
    assert [title for _, title, _ in made.sections] == list(TITLES["zh"])
    texts = dict((sid, text) for sid, _, text in made.sections)
    assert "后端工程师" in texts["user_background"]
    assert "浏览器插件" in texts["project_topic"]
    assert "SQLite" in texts["current_status"]
    assert "导出功能" in texts["open_items"] and "导出功能" in texts["continuation_point"]
    assert made.text.startswith("以下是之前一段对话的交接摘要") and "## 接续点" in made.text
    assert made.tokens == TOKENS.count(made.text)


def test_an_english_extractive_handoff(tmp_path):
    made = make_handoff(ENGLISH, "- user: Budget is 300 dollars.", as_said(ENGLISH), TOKENS, no_model(tmp_path), 1500)
    texts = dict((sid, text) for sid, _, text in made.sections)
    assert made.language == "en" and [t for _, t, _ in made.sections] == list(TITLES["en"])
    assert "data engineer" in texts["user_background"]
    assert "Chrome extension" in texts["project_topic"]
    assert "SQLite" in texts["current_status"] and "Great." not in texts["current_status"]
    assert "Budget is 300 dollars." in texts["key_information"]  # from the rolling summary
    assert "Firefox" in texts["continuation_point"]


def test_empty_sections_say_so_instead_of_vanishing():
    made = render({"project_topic": "- a topic"}, "zh", "extractive", TOKENS, 1500)
    assert len(made.sections) == 6 and dict((s, t) for s, _, t in made.sections)["open_items"] == "（无）"


def test_the_rendered_note_is_held_to_its_budget():
    texts = {sid: "\n".join(f"- detail {i} " + "words " * 30 for i in range(40)) for sid in IDS}
    made = render(texts, "en", "extractive", TOKENS, 400)
    assert made.tokens <= 400 and all(title in made.text for title in TITLES["en"])


def test_the_model_handoff_is_parsed_and_asked_for_in_the_conversations_language(tmp_path, fake_openai):
    answer = {sid: f"模型写的{sid}" for sid in IDS}
    answer["open_items"] = ["导出功能", "Firefox 支持"]
    fake_openai.script(reply("```json\n" + json.dumps(answer, ensure_ascii=False) + "\n```"))
    made = make_handoff(CHINESE, "", as_said(CHINESE), TOKENS, model(tmp_path, fake_openai), 1500)
    texts = dict((sid, text) for sid, _, text in made.sections)
    assert (made.method, made.language) == ("model", "zh")
    assert texts["current_status"] == "模型写的current_status"
    assert texts["open_items"] == "- 导出功能\n- Firefox 支持"
    system, user = fake_openai.chat_requests()[0].json["messages"]
    assert "Chinese" in system["content"] and "浏览器插件" in user["content"]


@pytest.mark.parametrize("step", [fail(500, times=3, retry_after=0), reply("Sorry, I can't help with that."),
                                  reply('{"unrelated": "json"}'), garbage(b"nonsense")])
def test_a_failing_or_unusable_model_falls_back_to_extractive(tmp_path, fake_openai, step):
    fake_openai.script(step)
    made = make_handoff(CHINESE, "", as_said(CHINESE), TOKENS, model(tmp_path, fake_openai), 1500)
    assert (made.method, made.language) == ("extractive", "zh")
    assert "导出功能" in made.text


def test_parse_sections_accepts_partial_answers_and_rejects_garbage():
    assert parse_sections('Here: {"current_status": "done", "x": 1} ok')["current_status"] == "done"
    for bad in ("no json here", "[1, 2]", "{}", '{"current_status": 5}'):
        with pytest.raises(ValueError):
            parse_sections(bad)
