"""Stored model settings: encrypted API key, atomic 0600 writes, presets, env overrides, clear errors."""

import json
import stat

import pytest

from whiteboard.llm.errors import InsecureUrl, InsecureUrlInForce
from whiteboard.llm.layer import ModelLayer
from whiteboard.llm.presets import PRESETS
from whiteboard.llm.settings import SettingsStore, resolve
from whiteboard.protocol.errors import BadRequest, Unavailable

KEY = "sk-proj-SETTINGS-TEST-abcdefghijklmnop"


def mode(path):
    return stat.S_IMODE(path.stat().st_mode)


def test_api_key_is_stored_encrypted_in_0600_files(tmp_path):
    store = SettingsStore(tmp_path / "cfg")
    store.update(preset="openai", api_key=KEY)
    raw = store.path.read_bytes()
    assert KEY.encode() not in raw and KEY[8:20].encode() not in raw
    assert json.loads(raw)["api_key_enc"]
    assert mode(store.path) == 0o600 and mode(store.key_path) == 0o600
    assert mode(store.directory) == 0o700
    assert resolve(store, env={}).api_key == KEY
    assert KEY not in repr(resolve(store, env={}))


def test_a_preset_fills_in_url_and_model_and_a_custom_url_makes_it_custom(tmp_path):
    store = SettingsStore(tmp_path)
    s = store.update(preset="ollama")
    assert (s.base_url, s.model) == (PRESETS["ollama"].base_url, "llama3.2")
    s = store.update(model="qwen2.5:7b")
    assert (s.preset, s.model) == ("ollama", "qwen2.5:7b")
    s = store.update(base_url="http://192.168.1.5:11434/v1/", allow_insecure=True)
    assert (s.preset, s.base_url) == ("custom", "http://192.168.1.5:11434/v1")
    assert {"openai", "xai", "gemini", "ollama", "lmstudio", "custom"} <= set(PRESETS)


def test_updates_keep_other_fields_and_the_key_can_be_cleared(tmp_path):
    store = SettingsStore(tmp_path)
    store.update(preset="xai", api_key=KEY)
    store.update(model="grok-4", read_timeout=30)
    r = resolve(store, env={})
    assert (r.model, r.api_key, r.timeouts.read, r.key_source) == ("grok-4", KEY, 30.0, "stored")
    store.update(clear_api_key=True)
    assert resolve(store, env={}).api_key is None


@pytest.mark.parametrize("fields,words", [
    ({"preset": "nope"}, "preset: must be one of"),
    ({"base_url": "ftp://example.org"}, "http:// or https://"),
    ({"base_url": "localhost:11434"}, "http:// or https://"),
    ({"base_url": "https://user:pw@api.example.org/v1"}, "must not hold credentials"),
    ({"base_url": "https://api.example.org/v1?key=abc"}, "must not hold credentials"),
    ({"read_timeout": -1}, "between 0 and 3600"),
    ({"api_key": "sk-abc\u00e9def"}, "printable ASCII"),
    ({"api_key": "sk-abc def"}, "printable ASCII"),
])
def test_bad_values_are_refused_and_nothing_is_lost(tmp_path, fields, words):
    store = SettingsStore(tmp_path)
    store.update(preset="openai", api_key=KEY)
    before = store.path.read_bytes()
    with pytest.raises(BadRequest) as err:
        store.update(**fields)
    assert words in err.value.message and "abc" not in err.value.message
    assert store.path.read_bytes() == before


def test_a_failed_write_leaves_the_old_file_and_no_temp_file(tmp_path, monkeypatch):
    store = SettingsStore(tmp_path)
    store.update(preset="openai")
    before = store.path.read_bytes()

    def disk_full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    import whiteboard.files

    monkeypatch.setattr(whiteboard.files.os, "fsync", disk_full)
    with pytest.raises(Unavailable, match="No space left") as failed:
        store.update(model="gpt-4.1")
    assert failed.value.reason == "write_failed"
    assert store.path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["llm.json"]


def test_environment_overrides_stored_values(tmp_path):
    store = SettingsStore(tmp_path)
    store.update(preset="openai", api_key=KEY)
    env = {"WHITEBOARD_LLM_BASE_URL": "http://127.0.0.1:9999/v1", "WHITEBOARD_LLM_MODEL": "local",
           "WHITEBOARD_LLM_API_KEY": "sk-from-env", "WHITEBOARD_LLM_READ_TIMEOUT": "2.5"}
    r = resolve(store, env=env)
    assert (r.base_url, r.model, r.api_key, r.key_source) == ("http://127.0.0.1:9999/v1", "local", "sk-from-env", "env")
    assert r.from_env == ("base_url", "model", "api_key") and r.timeouts.read == 2.5
    only_model = resolve(store, env={"WHITEBOARD_LLM_MODEL": "gpt-4.1"})
    assert (only_model.base_url, only_model.model, only_model.api_key) == (PRESETS["openai"].base_url, "gpt-4.1", KEY)


def test_environment_alone_configures_a_model(tmp_path):
    r = resolve(SettingsStore(tmp_path / "nothing"), env={"WHITEBOARD_LLM_BASE_URL": "http://127.0.0.1:1/v1",
                                                          "WHITEBOARD_LLM_MODEL": "m"})
    assert r.configured and r.api_key is None and r.key_source == "none"
    assert not resolve(SettingsStore(tmp_path / "nothing"), env={}).configured


def test_bad_environment_values_are_named(tmp_path):
    with pytest.raises(Unavailable) as err:
        resolve(SettingsStore(tmp_path), env={"WHITEBOARD_LLM_TOTAL_TIMEOUT": "soon"})
    assert "WHITEBOARD_LLM_TOTAL_TIMEOUT" in err.value.message
    with pytest.raises(Unavailable, match="WHITEBOARD_LLM_BASE_URL: must be an http"):
        resolve(SettingsStore(tmp_path), env={"WHITEBOARD_LLM_BASE_URL": "not a url"})
    assert not ModelLayer(SettingsStore(tmp_path), env={"WHITEBOARD_LLM_BASE_URL": "not a url"}).configured()


def test_a_replaced_key_file_gives_a_clear_error_without_the_key(tmp_path):
    store = SettingsStore(tmp_path)
    store.update(preset="openai", api_key=KEY)
    store.key_path.write_bytes(b"\x01" * 32)
    with pytest.raises(Unavailable) as err:
        resolve(store, env={})
    assert "cannot be decrypted" in err.value.message and "whiteboard config set --api-key" in err.value.message
    assert KEY not in err.value.message


def test_a_tampered_ciphertext_gives_a_clear_error(tmp_path):
    store = SettingsStore(tmp_path)
    store.update(preset="openai", api_key=KEY)
    data = json.loads(store.path.read_text())
    data["api_key_enc"] = data["api_key_enc"][:-6] + "AAAA=="
    store.path.write_text(json.dumps(data))
    with pytest.raises(Unavailable, match="cannot be decrypted"):
        resolve(store, env={})


# A timeout out of update's range too (issue 20 item 4): NaN, 1e300, 0.
@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"model": 5}', '{"read_timeout": "x"}',
                                     '{"read_timeout": NaN}', '{"total_timeout": 1e300}', '{"read_timeout": 0}'])
def test_a_malformed_settings_file_is_reported_not_overwritten(tmp_path, content):
    store = SettingsStore(tmp_path)
    store.path.write_text(content)
    with pytest.raises(Unavailable) as err:
        store.load()
    assert str(store.path) in err.value.message and "whiteboard config clear" in err.value.message
    assert store.path.read_text() == content


def test_clear_forgets_settings_but_keeps_the_shared_key_file(tmp_path):
    store = SettingsStore(tmp_path)
    store.update(preset="openai", api_key=KEY)
    assert store.clear() is True
    assert not store.path.exists() and store.key_path.exists()
    assert store.clear() is False


def test_the_layer_sees_changes_made_by_another_process(tmp_path):
    store = SettingsStore(tmp_path)
    layer = ModelLayer(SettingsStore(tmp_path), env={})
    assert not layer.configured()
    store.update(base_url="http://127.0.0.1:5/v1", model="m1")
    assert layer.configured() and layer.settings().model == "m1"
    store.update(model="a-longer-model-name")
    assert layer.settings().model == "a-longer-model-name"


def test_a_broken_key_file_is_reported_when_saving_a_key(tmp_path):
    store = SettingsStore(tmp_path)
    store.key_path.write_bytes(b"short")
    with pytest.raises(Unavailable) as err:
        store.update(preset="openai", api_key=KEY)
    assert str(store.key_path) in err.value.message and "not saved" in err.value.message
    assert not store.path.exists() and store.key_path.read_bytes() == b"short"


INSECURE = ["http://192.168.1.5:11434/v1", "http://api.example.org/v1", "http://10.0.0.2/v1", "http://[fe80::1]:8080/v1",
            "http://127.0.0.1.example.org/v1", "http://localhost.example.org/v1", "http://0.0.0.0:11434/v1"]
LOOPBACK = ["http://localhost:11434/v1", "http://LOCALHOST:1234/v1", "http://127.0.0.1:1234/v1",
            "http://127.8.9.10/v1", "http://[::1]:8080/v1", "https://api.example.org/v1", "https://192.168.1.5/v1"]


@pytest.mark.parametrize("url", INSECURE)
def test_http_to_another_computer_is_refused_without_consent(tmp_path, url):
    store = SettingsStore(tmp_path)
    store.update(preset="openai", api_key=KEY)
    before = store.path.read_bytes()
    with pytest.raises(InsecureUrl) as err:
        store.update(base_url=url)
    assert err.value.code == "bad_request" and err.value.to_wire()["reason"] == "insecure_url"
    assert "--allow-insecure" in err.value.message and "unencrypted" in err.value.message
    assert store.path.read_bytes() == before
    saved = store.update(base_url=url, allow_insecure=True)
    assert saved.allow_insecure and resolve(store, env={}).endpoint().base_url == url


@pytest.mark.parametrize("url", LOOPBACK)
def test_loopback_and_https_need_no_consent(tmp_path, url):
    store = SettingsStore(tmp_path)
    assert store.update(base_url=url, model="m").allow_insecure is False
    assert resolve(store, env={}).endpoint().base_url == url.rstrip("/")


def test_consent_belongs_to_the_url_it_was_given_with(tmp_path):
    store = SettingsStore(tmp_path)
    store.update(base_url="http://192.168.1.5/v1", model="m", allow_insecure=True)
    assert store.update(model="other").allow_insecure  # other fields keep it
    with pytest.raises(InsecureUrl):
        store.update(base_url="http://192.168.1.6/v1")
    assert store.update(preset="ollama").allow_insecure is False


def test_an_insecure_url_in_force_sends_nothing(tmp_path):
    """A hand-edited settings file, or the environment without WHITEBOARD_LLM_ALLOW_INSECURE=1:
    the settings still show, but no request is built."""
    store = SettingsStore(tmp_path)
    store.update(preset="openai", api_key=KEY)
    edited = json.loads(store.path.read_text())
    store.path.write_text(json.dumps({**edited, "base_url": "http://api.example.org/v1"}))
    r = resolve(store, env={})
    assert r.configured and r.base_url == "http://api.example.org/v1"
    with pytest.raises(InsecureUrlInForce) as err:
        ModelLayer(store, env={}).client()
    assert err.value.code == "unavailable" and err.value.to_wire()["reason"] == "insecure_url"
    assert KEY not in err.value.message
    env = {"WHITEBOARD_LLM_BASE_URL": "http://10.1.2.3:8000/v1"}
    with pytest.raises(InsecureUrlInForce):
        resolve(SettingsStore(tmp_path / "fresh"), env=env).endpoint()
    allowed = resolve(SettingsStore(tmp_path / "fresh"), env={**env, "WHITEBOARD_LLM_ALLOW_INSECURE": "1"})
    assert allowed.endpoint().base_url == "http://10.1.2.3:8000/v1"
