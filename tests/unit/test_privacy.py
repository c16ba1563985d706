"""Privacy filter (design §6): what is removed, and what is left alone."""

import pytest

from whiteboard.privacy import REDACTED, redact

SECRETS = [
    ("api_key", "use sk-proj-AbCdEf0123456789xyzXYZ01 please"),
    ("api_key", "sk-ant-api03-abcdefghijklmnopqrstuv"),
    ("api_key", "token ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
    ("api_key", "AKIAIOSFODNN7EXAMPLE is my aws id"),
    ("bearer_token", "Authorization: Bearer eyJhbGciOi.abc.def123"),
    ("assignment", "OPENAI_API_KEY=abc123"),
    ("assignment", "db password: hunter2"),
    ("assignment", 'SECRET="two words"'),
    ("email", "write to jane.doe+work@example.co.uk today"),
    ("long_token", "session 4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a"),
]


@pytest.mark.parametrize("kind,text", SECRETS)
def test_secrets_are_replaced(kind, text):
    out = redact(text)
    assert REDACTED in out.text
    assert out.count >= 1 and kind in out.kinds


@pytest.mark.parametrize("secret", ["hunter2", "abc123", "two words", "jane.doe", "eyJhbGciOi",
                                    "AbCdEf0123456789", "4f9a8b7c6d5e"])
def test_the_secret_text_is_gone(secret):
    joined = "\n".join(t for _, t in SECRETS)
    assert secret not in redact(joined).text


def test_private_spans_are_removed_entirely():
    out = redact("before <private>my diagnosis</private> after <PRIVATE>x\ny</PRIVATE>!")
    assert out.text == "before  after !"
    assert out.kinds == ("private",) and out.count == 2


def test_unclosed_private_span_removes_to_the_end():
    assert redact("keep <private>everything after").text == "keep "


@pytest.mark.parametrize("text", [
    "I prefer TypeScript and use Cursor daily.",
    "My keyboard and the monkey=banana test",
    "Meeting at 10:30 on 2026-03-01, budget 5000 dollars",
    "https://example.com/docs/getting-started",
    "def f(x): return x + 1",
])
def test_ordinary_text_is_left_alone(text):
    out = redact(text)
    assert out.text == text and out.count == 0
