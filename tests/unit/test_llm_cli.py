"""`whiteboard config`: set, show, test, clear - the API key read hidden, never printed."""

import pytest
from click.testing import CliRunner

from support.fake_openai import fail
from whiteboard.cli import main

KEY = "sk-cli-test-KEY-1234567890abcdef"


@pytest.fixture
def run(tmp_path, monkeypatch):
    for var in ("WHITEBOARD_LLM_BASE_URL", "WHITEBOARD_LLM_MODEL", "WHITEBOARD_LLM_API_KEY",
                "WHITEBOARD_LLM_ALLOW_INSECURE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("WHITEBOARD_CONFIG_DIR", str(tmp_path / "cfg"))
    runner = CliRunner()

    def invoke(*args, input=None):
        return runner.invoke(main, ["config", *args], input=input, catch_exceptions=False)

    return invoke


def test_set_show_and_clear(run, tmp_path):
    result = run("set", "--preset", "openai", "--api-key", input=KEY + "\n")
    assert result.exit_code == 0, result.output
    assert KEY not in result.output
    shown = run("show")
    assert "preset:    openai" in shown.output and "https://api.openai.com/v1" in shown.output
    assert "API key:   set (stored encrypted" in shown.output and KEY not in shown.output
    for path in (tmp_path / "cfg").iterdir():
        assert KEY.encode() not in path.read_bytes()
    assert "Cleared." in run("clear").output
    assert "No model configured" in run("show").output


def test_a_preset_that_needs_a_key_says_so(run):
    result = run("set", "--preset", "gemini")
    assert "needs an API key" in result.output
    assert "no model name yet" in run("set", "--preset", "lmstudio").output


def test_bad_input_is_a_clear_error_and_changes_nothing(run):
    run("set", "--preset", "ollama")
    result = run("set", "--base-url", "file:///etc/passwd")
    assert result.exit_code != 0 and "http:// or https://" in result.output
    assert "http://localhost:11434/v1" in run("show").output
    assert run("set").exit_code != 0  # nothing to change
    assert run("set", "--preset", "nope").exit_code != 0


def test_environment_overrides_are_shown(run, monkeypatch):
    run("set", "--preset", "ollama")
    monkeypatch.setenv("WHITEBOARD_LLM_MODEL", "qwen2.5")
    shown = run("show").output
    assert "model:     qwen2.5" in shown and "WHITEBOARD_LLM_MODEL" in shown


def test_test_round_trips_to_the_model(run, fake_openai):
    fake_openai.require_api_key = KEY
    run("set", "--base-url", fake_openai.base_url, "--model", "fake-model", "--api-key", input=KEY + "\n")
    fake_openai.chat_answer = "OK"
    result = run("test")
    assert result.exit_code == 0, result.output
    assert "OK: fake-model at http://127.0.0.1:" in result.output and KEY not in result.output
    assert fake_openai.requests[0].headers["authorization"] == f"Bearer {KEY}"


def test_test_reports_failures_with_exit_code_1(run, fake_openai):
    run("set", "--base-url", fake_openai.base_url, "--model", "fake-model", "--api-key", input="sk-wrong\n")
    fake_openai.script(fail(401))
    result = run("test")
    assert result.exit_code == 1 and "refused the API key" in result.output and "sk-wrong" not in result.output
    run("clear")
    result = run("test")
    assert result.exit_code == 1 and "no model is configured" in result.output


def test_presets_are_listed(run):
    out = run("presets").output
    for name in ("openai", "xai", "gemini", "ollama", "lmstudio", "custom"):
        assert name in out


def test_http_to_another_computer_needs_allow_insecure(run):
    run("set", "--preset", "ollama")
    refused = run("set", "--base-url", "http://192.168.1.5:11434/v1")
    assert refused.exit_code != 0 and "--allow-insecure" in refused.output and "unencrypted" in refused.output
    assert "http://localhost:11434/v1" in run("show").output
    allowed = run("set", "--base-url", "http://192.168.1.5:11434/v1", "--allow-insecure")
    assert allowed.exit_code == 0, allowed.output
    assert "http://192.168.1.5:11434/v1" in run("show").output
