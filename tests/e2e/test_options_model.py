"""Options → Model against the real worker and host, and the loopback OpenAI-compatible
test server for the Test button: the API key reaches the host and nothing in the browser
keeps it."""

import json

import pytest

from e2e.harness import EXTENSION_ID, service_worker
from support.fake_openai import FakeOpenAI
from support.waiting import wait_for

KEY = "sk-e2e-options-7f3a9c2b1d"


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAI() as server:
        yield server


def open_options(browser):
    page = browser.context.new_page()
    page.goto(f"chrome-extension://{EXTENSION_ID}/options/options.html")
    page.wait_for_selector("#model-form")
    return page


def browser_storage(browser) -> str:
    return service_worker(browser.context).evaluate("""async () => JSON.stringify([
        await chrome.storage.local.get(null), await chrome.storage.sync.get(null),
        await chrome.storage.session.get(null)])""")


def status(page) -> str:
    return page.locator("#model-status").inner_text()


def test_set_a_model_with_a_key_then_test_it(browser, fake):
    page = open_options(browser)
    page.select_option("#model-preset", "custom")
    page.fill("#model-base-url", fake.base_url)
    page.fill("#model-name", "fake-model")
    page.fill("#model-api-key", KEY)
    page.click("#model-save")
    wait_for(lambda: status(page) == "Saved.", what="the save")
    assert page.input_value("#model-api-key") == ""
    assert "set (stored encrypted" in page.locator("#model-key-state").inner_text()

    settings = browser.request({"type": "llm.settings.get"})
    assert settings["ok"] and settings["configured"] and settings["api_key_source"] == "stored"
    assert (settings["preset"], settings["base_url"], settings["model"]) == ("custom", fake.base_url, "fake-model")
    assert KEY not in json.dumps(settings)
    assert KEY not in browser_storage(browser)
    on_disk = b"".join(p.read_bytes() for p in (browser.root / "wb-config").rglob("*") if p.is_file())
    assert KEY.encode() not in on_disk and b"api_key" in on_disk  # stored, but encrypted

    page.click("#model-test")
    wait_for(lambda: status(page).startswith("OK: fake-model at http://127.0.0.1"), timeout=15, what="the test")
    assert fake.chat_requests()[-1].headers["authorization"] == f"Bearer {KEY}"

    page.reload()
    page.wait_for_selector("#model-form")
    assert page.input_value("#model-base-url") == fake.base_url
    assert page.input_value("#model-name") == "fake-model"
    assert page.input_value("#model-api-key") == ""
    page.close()


def test_a_bad_base_url_is_refused_and_nothing_is_lost(browser, fake):
    assert browser.request({"type": "llm.settings.set", "base_url": fake.base_url, "model": "fake-model"})["ok"]
    page = open_options(browser)
    page.select_option("#model-preset", "custom")
    page.fill("#model-base-url", "ftp://user:pw@example.com/v1")
    page.click("#model-save")
    wait_for(lambda: status(page).startswith("Not saved:"), what="the refusal")
    assert "pw" not in status(page)
    assert page.input_value("#model-base-url") == "ftp://user:pw@example.com/v1"  # what was typed stays
    assert browser.request({"type": "llm.settings.get"})["base_url"] == fake.base_url
    page.close()


INSECURE_URL = "http://192.168.1.5:11434/v1"


def test_http_to_another_computer_asks_before_it_is_saved(browser, fake):
    assert browser.request({"type": "llm.settings.set", "base_url": fake.base_url, "model": "fake-model"})["ok"]
    page = open_options(browser)
    asked: list[str] = []

    def answer(accept: bool):
        def on_dialog(dialog) -> None:
            asked.append(dialog.message)
            dialog.accept() if accept else dialog.dismiss()
        return on_dialog

    page.select_option("#model-preset", "custom")
    page.fill("#model-base-url", INSECURE_URL)
    page.fill("#model-name", "fake-model")
    page.once("dialog", answer(False))
    page.click("#model-save")
    wait_for(lambda: status(page).startswith("Not saved:"), what="the refusal")
    assert len(asked) == 1 and INSECURE_URL in asked[0] and "unencrypted" in asked[0]
    assert browser.request({"type": "llm.settings.get"})["base_url"] == fake.base_url

    page.once("dialog", answer(True))
    page.click("#model-save")
    wait_for(lambda: status(page) == "Saved.", what="the save after consent")
    assert len(asked) == 2
    assert browser.request({"type": "llm.settings.get"})["base_url"] == INSECURE_URL
    page.fill("#model-base-url", fake.base_url)  # loopback: saved without a question
    page.click("#model-save")
    wait_for(lambda: browser.request({"type": "llm.settings.get"})["base_url"] == fake.base_url,
             what="the loopback save")
    assert len(asked) == 2 and status(page) == "Saved."
    page.close()


def test_a_preset_fills_its_defaults_and_the_key_can_be_forgotten(browser, fake):
    assert browser.request({"type": "llm.settings.set", "base_url": fake.base_url, "api_key": KEY})["ok"]
    page = open_options(browser)
    page.select_option("#model-preset", "ollama")
    assert page.input_value("#model-base-url") == "http://localhost:11434/v1"
    assert page.input_value("#model-name") == "llama3.2"
    page.click("#model-save")
    wait_for(lambda: status(page) == "Saved.", what="the save")
    settings = browser.request({"type": "llm.settings.get"})
    assert (settings["preset"], settings["model"]) == ("ollama", "llama3.2")
    assert settings["api_key_set"]
    page.click("#model-clear-key")
    wait_for(lambda: page.locator("#model-key-state").inner_text() == "API key: not set.", what="the key to go")
    assert not browser.request({"type": "llm.settings.get"})["api_key_set"]
    assert page.locator("#model-clear-key").is_hidden()
    page.close()
