import os
import shutil
import tempfile
from pathlib import Path

import pytest

from support.host import HostProcess, isolated_env
from support.inprocess import loaded_tokens
from whiteboard.app import App

pytest_plugins = ["support.fake_openai"]  # the fake_openai fixture

E2E = Path(__file__).resolve().parent / "e2e"


def pytest_configure(config):
    """The training texts' vectors (our own data, never a user's) are embedded once per run, not
    once per worker: every process shares one folder (training/vectors.py locks each file), made
    by the first process (xdist's workers inherit the variable) and removed by it at the end."""
    if not os.environ.get("WB_TRAIN_CACHE"):
        config._train_cache = tempfile.mkdtemp(prefix="whiteboard-train-vectors-")
        os.environ["WB_TRAIN_CACHE"] = config._train_cache


def pytest_unconfigure(config):
    made = getattr(config, "_train_cache", None)
    if made:
        shutil.rmtree(made, ignore_errors=True)
        os.environ.pop("WB_TRAIN_CACHE", None)


def pytest_collection_modifyitems(items):
    """tests/e2e/ is marked `e2e`, and its tests share one xdist worker: one Chromium at a
    time, as in a serial run, while the other workers take the rest (tests/README.md)."""
    for item in items:
        if E2E in item.path.parents:
            item.add_marker(pytest.mark.e2e)
            item.add_marker(pytest.mark.xdist_group("e2e"))


@pytest.fixture
def host_env(tmp_path):
    return isolated_env(tmp_path / "env")


@pytest.fixture
def host(host_env):
    """The real host process over real pipes (tests/actions overrides it with the in-process core)."""
    with HostProcess(env=host_env) as h:
        yield h


@pytest.fixture
def app(tmp_path, monkeypatch):
    """An App (the tokenizer loaded) whose config and data dirs are in tmp_path; its memory
    service, if one was made, closed after."""
    monkeypatch.setenv("WHITEBOARD_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("WHITEBOARD_CONFIG_DIR", str(tmp_path / "config"))
    app = App(tokens=loaded_tokens())
    yield app
    app.stopping.set()
    service = app.__dict__.get("_memory_service")
    if service is not None:
        service.close()
