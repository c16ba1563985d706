import pytest

from support.host import HostProcess, isolated_env

pytest_plugins = ["support.fake_openai"]  # the fake_openai fixture


@pytest.fixture
def host_env(tmp_path):
    return isolated_env(tmp_path / "env")


@pytest.fixture
def host(host_env):
    """The real host process over real pipes (tests/actions overrides it with the in-process core)."""
    with HostProcess(env=host_env) as h:
        yield h
