import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from support.host import HostProcess, isolated_env  # noqa: E402


@pytest.fixture
def host_env(tmp_path):
    return isolated_env(tmp_path / "env")


@pytest.fixture
def host(host_env):
    with HostProcess(env=host_env) as h:
        yield h
