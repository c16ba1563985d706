"""Fixtures for the end-to-end tests: one real Chromium (with the real extension and the
real host) per test module, a fresh tab per test."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from e2e import harness


@pytest.fixture(scope="session")
def playwright():
    harness.chromium_path()  # missing Chromium fails every e2e test, it never skips them
    with sync_playwright() as p:
        yield p


class Browser:
    def __init__(self, playwright, root: Path):
        self.root = root
        self.context = harness.launch(playwright, root)
        harness.wait_connected(self.context)

    def request(self, message: dict, timeout_ms: int = 5000) -> dict:
        return harness.host_request(self.context, message, timeout_ms)

    def close(self):
        self.context.close()


@pytest.fixture(scope="module")
def browser(playwright):
    with tempfile.TemporaryDirectory(prefix="wb-e2e-") as tmp:
        b = Browser(playwright, Path(tmp))
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser):
    page = browser.context.new_page()
    yield page
    if not page.is_closed():
        page.close()
