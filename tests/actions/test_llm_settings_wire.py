"""llm.settings.* and llm.test through the real dispatch core in-process, the model a real HTTP
server; the API key is never returned (tests/protocol/test_api_key_privacy.py checks disk and stderr)."""

import ipaddress
import socket
import subprocess
import sys

import pytest

from support.fake_openai import FakeOpenAI, fail
from support.host import isolated_env
from support.inprocess import InProcessHost
from whiteboard.llm.presets import PRESETS

API_KEY = "sk-proj-NEVER-LEAK-0123456789abcdefghijklmnopqrstuv"


@pytest.fixture
def env(tmp_path):
    return isolated_env(tmp_path / "env")


def test_settings_round_trip_without_ever_returning_the_key(env, fake_openai):
    with InProcessHost(env=env) as host:
        empty = host.request("llm.settings.get")
        assert empty["ok"] and empty["configured"] is False and empty["api_key_set"] is False
        assert {p["name"] for p in empty["presets"]} == set(PRESETS)
        assert all(p["note"] for p in empty["presets"]) and empty["preset"] == ""
        saved = host.request("llm.settings.set", base_url=fake_openai.base_url, model="fake-model", api_key=API_KEY,
                             read_timeout=20)
        assert saved["ok"] and saved["configured"] and saved["api_key_set"] and saved["api_key_source"] == "stored"
        assert saved["preset"] == "custom" and saved["read_timeout"] == 20
        assert API_KEY not in str(saved) and API_KEY not in str(host.request("llm.settings.get"))
        cleared = host.request("llm.settings.set", clear_api_key=True)
        assert cleared["api_key_set"] is False and cleared["model"] == "fake-model"


def test_env_overrides_are_reported(tmp_path, fake_openai):
    env = isolated_env(tmp_path / "env", WHITEBOARD_LLM_BASE_URL=fake_openai.base_url,
                       WHITEBOARD_LLM_MODEL="env-model", WHITEBOARD_LLM_API_KEY=API_KEY)
    with InProcessHost(env=env) as host:
        got = host.request("llm.settings.get")
        test = host.request("llm.test")
    assert got["configured"] and got["model"] == "env-model" and got["api_key_source"] == "env"
    assert got["overridden_by_env"] == ["base_url", "model", "api_key"] and API_KEY not in str(got)
    assert test["ok"] and test["model"] == "env-model" and test["endpoint"] == f"http://127.0.0.1:{fake_openai.port}"
    assert fake_openai.requests[0].headers["authorization"] == f"Bearer {API_KEY}"


def test_llm_test_needs_a_model_and_reports_failures(env, fake_openai):
    with InProcessHost(env=env) as host:
        none = host.request("llm.test")
        assert none["error"]["code"] == "unavailable" and "whiteboard config" in none["error"]["message"]
        host.request("llm.settings.set", base_url=fake_openai.base_url, model="fake-model")
        fake_openai.chat_answer = "OK"
        ok = host.request("llm.test")
        assert ok["ok"] and ok["sample"] == "OK" and ok["latency_ms"] >= 0
        fake_openai.script(fail(404))
        missing = host.request("llm.test")
        assert missing["error"]["code"] == "unavailable" and "no such model" in missing["error"]["message"]


@pytest.mark.parametrize("fields,words", [
    ({"preset": "skynet"}, "preset"),
    ({"base_url": "javascript:alert(1)"}, "base_url"),
    ({"read_timeout": 0}, "read_timeout"),
    ({"api_key": 12345}, "api_key"),
    ({"unknown": 1}, "unknown"),
])
def test_bad_settings_are_bad_request_and_change_nothing(env, fields, words):
    with InProcessHost(env=env) as host:
        host.request("llm.settings.set", preset="ollama")
        before = host.request("llm.settings.get")
        bad = host.request("llm.settings.set", **fields)
        assert bad["error"]["code"] == "bad_request" and words in bad["error"]["message"]
        after = host.request("llm.settings.get")
    assert {k: v for k, v in after.items() if k != "id"} == {k: v for k, v in before.items() if k != "id"}


def test_a_running_host_sees_settings_changed_by_the_cli(env, fake_openai):
    with InProcessHost(env=env) as host:
        assert host.request("llm.settings.get")["configured"] is False
        done = subprocess.run([sys.executable, "-c", "from whiteboard.cli import main; main()", "config", "set",
                               "--base-url", fake_openai.base_url, "--model", "cli-model"],
                              env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        got = host.request("llm.settings.get")
        assert got["configured"] and got["model"] == "cli-model"
        assert host.request("llm.test")["ok"]


def this_machines_other_address() -> str | None:
    """A non-loopback address of this machine: a stand-in for another computer on the network."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # no packet is sent: this only picks a route
        except OSError:
            return None
        address = probe.getsockname()[0]
    return None if ipaddress.ip_address(address).is_loopback else address


@pytest.fixture
def remote_fake():
    address = this_machines_other_address()
    if address is None:
        pytest.skip("this machine has no non-loopback address")
    with FakeOpenAI(host=address) as fake:
        yield fake


def test_http_to_another_computer_is_refused_until_the_user_allows_it(env, remote_fake):
    with InProcessHost(env=env) as host:
        host.request("llm.settings.set", preset="ollama")
        before = host.request("llm.settings.get")
        refused = host.request("llm.settings.set", base_url=remote_fake.base_url, model="fake-model", api_key=API_KEY)
        assert refused["error"]["code"] == "bad_request" and refused["error"]["reason"] == "insecure_url"
        assert API_KEY not in str(refused)
        assert host.request("llm.settings.get")["base_url"] == before["base_url"]
        allowed = host.request("llm.settings.set", base_url=remote_fake.base_url, model="fake-model",
                               api_key=API_KEY, allow_insecure=True)
        assert allowed["ok"] and allowed["base_url"] == remote_fake.base_url
        assert host.request("llm.test")["ok"]
    assert remote_fake.chat_requests()[0].headers["authorization"] == f"Bearer {API_KEY}"


def test_an_insecure_url_from_the_environment_sends_nothing(tmp_path, remote_fake):
    settings = dict(WHITEBOARD_LLM_BASE_URL=remote_fake.base_url, WHITEBOARD_LLM_MODEL="fake-model",
                    WHITEBOARD_LLM_API_KEY=API_KEY)
    with InProcessHost(env=isolated_env(tmp_path / "a", **settings)) as host:
        shown = host.request("llm.settings.get")
        refused = host.request("llm.test")
    assert shown["ok"] and shown["base_url"] == remote_fake.base_url
    assert refused["error"]["code"] == "unavailable" and refused["error"]["reason"] == "insecure_url"
    assert remote_fake.requests == []
    with InProcessHost(env=isolated_env(tmp_path / "b", WHITEBOARD_LLM_ALLOW_INSECURE="1", **settings)) as host:
        assert host.request("llm.test")["ok"]
    assert len(remote_fake.chat_requests()) == 1
