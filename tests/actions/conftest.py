import pytest

from support.inprocess import InProcessHost


@pytest.fixture
def host(host_env):
    """The real dispatch core and actions, in this process (support/inprocess.py)."""
    with InProcessHost(env=host_env) as h:
        yield h
