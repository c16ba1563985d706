"""Handoff summary (design §7): six sections in the conversation's language, so the
conversation can go on in another chat site. Made by the model when one is configured
(it answers a JSON object), otherwise - or when the model fails or answers something
unusable - extractively from the session's own sentences.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from dataclasses import dataclass
from typing import Sequence

from ..sessions.store import Message
from ..sessions.summary import ExtractiveSummarizer
from ..tokens import TokenCounter
from .errors import Cancelled
from .layer import ModelLayer
from .prompts import handoff_messages

log = logging.getLogger("whiteboard.llm.handoff")

SECTIONS: tuple[tuple[str, str], ...] = (
    ("user_background", "who the user is: role, skills, preferences, constraints"),
    ("project_topic", "what the conversation is about: the project or topic and its goal"),
    ("current_status", "where things stand now: what has been done, answered or decided"),
    ("key_information", "facts, names, numbers, decisions and details the next chat needs"),
    ("open_items", "questions and next steps not yet resolved"),
    ("continuation_point", "exactly where to pick up: the latest request and what to do next"),
)
TITLES = {
    "en": ("User / Background", "Project / Topic", "Current Status", "Key Information", "Open Items",
           "Continuation Point"),
    "zh": ("用户 / 背景", "项目 / 主题", "当前状态", "关键信息", "待解决事项", "接续点"),
    "ja": ("ユーザー / 背景", "プロジェクト / トピック", "現在の状況", "重要な情報", "未解決の項目", "再開ポイント"),
    "ko": ("사용자 / 배경", "프로젝트 / 주제", "현재 상태", "핵심 정보", "미결 항목", "이어갈 지점"),
}
HEADERS = {
    "en": "Handoff from a previous conversation. Please read it and continue from the continuation point.",
    "zh": "以下是之前一段对话的交接摘要。请阅读后从接续点继续。",
    "ja": "以下は前の会話の引き継ぎメモです。読んだうえで再開ポイントから続けてください。",
    "ko": "이전 대화의 인수인계 요약입니다. 읽고 이어갈 지점부터 계속해 주세요.",
}
NOTHING = {"en": "(nothing noted)", "zh": "（无）", "ja": "（なし）", "ko": "(없음)"}
LANGUAGE_NAMES = {"en": "English", "zh": "Chinese (the same script as the conversation)", "ja": "Japanese",
                  "ko": "Korean"}
# The model reads this much of the conversation (the tab's context for the latest request).
TRANSCRIPT_TOKENS = 6000

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_KANA = re.compile(r"[\u3040-\u30ff]")
_HANGUL = re.compile(r"[\uac00-\ud7af]")
_LATIN = re.compile(r"[A-Za-z]")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_ROLE_PREFIX = re.compile(r"^-\s*((user|assistant):\s*)?")
# English sentences end at punctuation plus space (not inside "3.5"); CJK ones at 。！？ alone.
_SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n+")
_ABOUT_ME = re.compile(r"\b(i am|i'm|i work|i use|i prefer|i like|i have|i've|my)\b"
                       r"|我是|我在|我的|我用|我喜欢|我更喜欢|我习惯|我负责|私は|僕は|저는|제가", re.IGNORECASE)
_OPEN = re.compile(r"[?？]\s*$|\b(todo|next step|still need|not yet|remaining|open question|to do)\b"
                   r"|下一步|还需要|还没|尚未|待办|未完成|次に|まだ|다음 단계|아직", re.IGNORECASE)


@dataclass(frozen=True)
class Handoff:
    sections: tuple[tuple[str, str, str], ...]  # (id, title, text)
    text: str
    language: str
    method: str
    tokens: int


def detect_language(messages: Sequence[Message]) -> str:
    """en, zh, ja or ko from the user's own words (all messages when there are none)."""
    sample = " ".join(m.content for m in messages if m.role == "user") or " ".join(m.content for m in messages)
    cjk = len(_HAN.findall(sample)) + len(_KANA.findall(sample)) + len(_HANGUL.findall(sample))
    # One CJK character carries about as much as one word; an English word is ~5 letters.
    if cjk == 0 or cjk < len(_LATIN.findall(sample)) / 5:
        return "en"
    if len(_KANA.findall(sample)) >= cjk / 10:
        return "ja"
    if len(_HANGUL.findall(sample)) >= cjk / 2:
        return "ko"
    return "zh"


def make_handoff(messages: Sequence[Message], summary: str, conversation: str, counter: TokenCounter,
                 layer: ModelLayer, budget: int, cancel: threading.Event | None = None) -> Handoff:
    """`conversation` is what the model reads: the tab's context (sessions/context.py) within
    TRANSCRIPT_TOKENS, built for the latest request (latest_request)."""
    language = detect_language(messages)
    texts, method = None, "extractive"
    if layer.configured():
        try:
            texts = _by_model(conversation, layer, language, cancel)
            method = "model"
        except Cancelled:
            raise
        except Exception as exc:  # noqa: BLE001 - the extractive handoff is always there
            log.warning("model handoff failed (%s); using the extractive one", type(exc).__name__)
    if texts is None:
        texts = extractive_sections(messages, summary, counter)
    return render(texts, language, method, counter, budget)


def render(texts: dict[str, str], language: str, method: str, counter: TokenCounter, budget: int) -> Handoff:
    titles = TITLES[language]
    texts = {sid: (texts.get(sid) or "").strip() or NOTHING[language] for sid, _ in SECTIONS}

    def full() -> str:
        body = "\n\n".join(f"## {title}\n{texts[sid]}" for (sid, _), title in zip(SECTIONS, titles))
        return f"{HEADERS[language]}\n\n{body}"

    # Over the budget: shorten the longest section by a quarter until the note fits.
    while counter.count(full()) > budget:
        longest = max(texts, key=lambda sid: counter.count(texts[sid]))
        size = counter.count(texts[longest])
        if size <= 8:
            break
        texts[longest] = counter.truncate(texts[longest], size * 3 // 4)
    text = full()
    sections = tuple((sid, title, texts[sid]) for (sid, _), title in zip(SECTIONS, titles))
    return Handoff(sections, text, language, method, counter.count(text))


def latest_request(messages: Sequence[Message]) -> str:
    """The user's last message: what the next chat has to pick up."""
    return next((m.content for m in reversed(messages) if m.role == "user"), "")


def extractive_sections(messages: Sequence[Message], summary: str, counter: TokenCounter) -> dict[str, str]:
    used: set[str] = set()
    user = [m for m in messages if m.role == "user"]
    assistant = [m for m in messages if m.role == "assistant"]

    def pick(candidates: Sequence[str], limit: int) -> str:
        """Up to limit lines, none already used by another section."""
        out = []
        for s in candidates:
            if s not in used and len(out) < limit:
                used.add(s)
                out.append(f"- {s}")
        return "\n".join(out)

    # The latest request is always the continuation point, even if another section quotes it too.
    last_request = _sentences(user[-1])[-3:] if user else []
    seed = _sentences(user[0] if user else messages[0])
    texts = {
        "continuation_point": "\n".join(f"- {s}" for s in last_request),
        "project_topic": pick([s for s in seed if not _ABOUT_ME.search(s)][:2] or seed[:1], 2),
        "user_background": pick([s for m in user for s in _sentences(m) if _ABOUT_ME.search(s)], 4),
        "current_status": pick(_sentences(assistant[-1])[:3] if assistant else [], 3),
        "open_items": pick([s for m in reversed(user[-6:]) for s in _sentences(m) if _OPEN.search(s)], 4),
    }
    # One sentence per pseudo-message, so the summarizer's picks are exactly our sentences.
    singles = [Message(m.seq, m.role, s, m.timestamp) for m in messages for s in _sentences(m)]
    key_lines = ExtractiveSummarizer(counter).fold(summary, singles, 350).splitlines()
    texts["key_information"] = pick([_ROLE_PREFIX.sub("", line) for line in key_lines], 6)
    return texts


def _sentences(message: Message) -> list[str]:
    """Normalised sentences; bare acknowledgements ("Great.", "OK") carry nothing to hand off."""
    out = (" ".join(s.split())[:300] for s in _SENTENCE.split(message.content) if s)
    return [s for s in out if len(s) >= 8 or _CJK.search(s)]


def _by_model(conversation, layer, language, cancel) -> dict[str, str]:
    prompt = handoff_messages(conversation, LANGUAGE_NAMES[language], SECTIONS)
    return parse_sections(layer.client().complete(prompt, cancel=cancel))


def parse_sections(answer: str) -> dict[str, str]:
    """The six sections from a model's JSON answer (code fences and chatter around it allowed)."""
    start, end = answer.find("{"), answer.rfind("}")
    if start < 0 or end <= start:
        raise ValueError("no JSON object in the model's answer")
    obj = json.loads(answer[start:end + 1])
    if not isinstance(obj, dict):
        raise ValueError("the model's answer is not a JSON object")
    texts = {}
    for sid, _ in SECTIONS:
        value = obj.get(sid)
        if isinstance(value, list):
            value = "\n".join(f"- {v}" for v in value if isinstance(v, (str, int, float)))
        texts[sid] = value.strip() if isinstance(value, str) else ""
    if not any(texts.values()):
        raise ValueError("the model's answer has none of the sections")
    return texts
