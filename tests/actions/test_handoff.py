"""handoff.summary through the real dispatch core in-process: six sections in the conversation's
language, by model or extractively."""

import json
import time

import pytest

from support.fake_openai import fail, hang, reply
from support.host import isolated_env
from support.inprocess import InProcessHost

KEY = "chatgpt.com:21"
ZH_TITLES = ["用户 / 背景", "项目 / 主题", "当前状态", "关键信息", "待解决事项", "接续点"]
IDS = ["user_background", "project_topic", "current_status", "key_information", "open_items", "continuation_point"]
CHINESE = [
    ("user", "我是一名前端工程师，习惯用TypeScript。我们在做一个记账小程序。"),
    ("assistant", "好的。建议用云数据库存账单，前端用React。已经完成了登录页面。"),
    ("user", "预算只有5000元，必须在6月上线。下一步怎么做报表功能？"),
]


def add_all(host, conversation):
    for role, content in conversation:
        assert host.request("session.add", key=KEY, role=role, content=content)["ok"]


def test_a_chinese_conversation_gets_a_chinese_handoff_without_a_model(tmp_path):
    with InProcessHost(env=isolated_env(tmp_path / "env")) as host:
        add_all(host, CHINESE)
        got = host.request("handoff.summary", key=KEY)
    assert got["ok"] and got["language"] == "zh" and got["method"] == "extractive"
    assert [s["id"] for s in got["sections"]] == IDS and [s["title"] for s in got["sections"]] == ZH_TITLES
    sections = {s["id"]: s["text"] for s in got["sections"]}
    assert "前端工程师" in sections["user_background"] and "报表功能" in sections["continuation_point"]
    assert all(f"## {t}" in got["text"] for t in ZH_TITLES) and 0 < got["tokens"] <= 1500


def test_a_chinese_conversation_gets_a_chinese_handoff_from_the_model(tmp_path, fake_openai):
    answer = {"user_background": "前端工程师，偏好 TypeScript", "project_topic": "记账小程序",
              "current_status": "登录页面已完成", "key_information": ["预算 5000 元", "6 月上线"],
              "open_items": "报表功能", "continuation_point": "设计报表功能"}
    fake_openai.script(reply(json.dumps(answer, ensure_ascii=False)))
    env = isolated_env(tmp_path / "env", WHITEBOARD_LLM_BASE_URL=fake_openai.base_url, WHITEBOARD_LLM_MODEL="m")
    with InProcessHost(env=env) as host:
        add_all(host, CHINESE)
        got = host.request("handoff.summary", key=KEY, budget=800)
    assert got["ok"] and (got["language"], got["method"]) == ("zh", "model")
    sections = {s["id"]: s["text"] for s in got["sections"]}
    assert sections["key_information"] == "- 预算 5000 元\n- 6 月上线" and sections["project_topic"] == "记账小程序"
    assert [s["title"] for s in got["sections"]] == ZH_TITLES
    system, user = fake_openai.chat_requests()[0].json["messages"]
    assert "Chinese" in system["content"] and "记账小程序" in user["content"]


@pytest.mark.parametrize("step", [fail(500, times=3, retry_after=0), reply("no json, sorry")])
def test_a_failing_model_falls_back_to_extractive(tmp_path, fake_openai, step):
    fake_openai.script(step)
    env = isolated_env(tmp_path / "env", WHITEBOARD_LLM_BASE_URL=fake_openai.base_url, WHITEBOARD_LLM_MODEL="m")
    with InProcessHost(env=env) as host:
        add_all(host, CHINESE)
        got = host.request("handoff.summary", key=KEY)
        assert host.request("ping")["ok"]
    assert got["ok"] and got["method"] == "extractive" and got["language"] == "zh"
    assert "warning" in host.stderr_text.lower() and "报表" not in host.stderr_text


def test_a_handoff_can_be_cancelled(tmp_path, fake_openai):
    fake_openai.script(hang(30))
    env = isolated_env(tmp_path / "env", WHITEBOARD_LLM_BASE_URL=fake_openai.base_url, WHITEBOARD_LLM_MODEL="m")
    with InProcessHost(env=env) as host:
        add_all(host, CHINESE)
        host.send({"id": "h", "type": "handoff.summary", "key": KEY})
        time.sleep(0.3)  # the request's thread registers itself as in flight
        assert host.request("ask.cancel", ref="h")["cancelled"] is True
        got = host.recv(timeout=2)
    assert got["id"] == "h" and got["error"]["code"] == "unavailable" and "cancelled" in got["error"]["message"]


def test_unknown_tab_and_bad_budget(tmp_path):
    with InProcessHost(env=isolated_env(tmp_path / "env")) as host:
        assert host.request("handoff.summary", key="claude.ai:404")["error"]["code"] == "not_found"
        add_all(host, CHINESE)
        assert host.request("handoff.summary", key=KEY, budget=10)["error"]["code"] == "bad_request"
