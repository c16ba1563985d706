"""WHITEBOARD_* limits are range-checked (issue 28): a value out of range, not a number, NaN
or infinite stops the host's start with a message naming the variable and its range, never
a session store that holds nothing or sessions that never expire."""

import subprocess
import sys
from dataclasses import fields

import pytest

from support.host import isolated_env
from whiteboard.config import LIMIT_RANGES, HostConfig, Limits


@pytest.mark.parametrize("value", ["0", "-5", "nan", "inf", "1e12", "ten", "2.5"])
@pytest.mark.parametrize("name", sorted(LIMIT_RANGES))
def test_a_limit_out_of_range_is_refused_by_name(name, value):
    kind = next(float if f.type == "float" else int for f in fields(Limits) if f.name == name)
    low, high = LIMIT_RANGES[name]
    if kind is float and value == "2.5" or name == "tail_messages" and value == "0":
        return  # in range for this one
    with pytest.raises(ValueError, match=f"WHITEBOARD_{name.upper()} must be .* from {low} to {high}"):
        HostConfig.from_env({f"WHITEBOARD_{name.upper()}": value})


def test_limits_in_range_are_taken():
    config = HostConfig.from_env({"WHITEBOARD_MAX_MESSAGES": "5", "WHITEBOARD_TTL_SECONDS": "3600.5",
                                  "WHITEBOARD_INBOUND_CAP": "1048576"})
    assert (config.limits.max_messages, config.limits.ttl_seconds, config.inbound_cap) == (5, 3600.5, 1048576)


@pytest.mark.parametrize("value", ["0", "-1", "x", str(1 << 40)])
def test_the_inbound_cap_is_range_checked(value):
    with pytest.raises(ValueError, match="WHITEBOARD_INBOUND_CAP must be a whole number of bytes from 1"):
        HostConfig.from_env({"WHITEBOARD_INBOUND_CAP": value})


def test_the_host_says_which_limit_and_exits(tmp_path):
    env = {**isolated_env(tmp_path), "WHITEBOARD_MAX_SESSIONS": "0"}
    done = subprocess.run([sys.executable, "-m", "whiteboard.server.main"], env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=60)
    assert done.returncode == 2
    assert "WHITEBOARD_MAX_SESSIONS must be a whole number from 1 to 10000, got '0'" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_host_refuses_a_sync_interval_that_would_stop_sync_and_exits(tmp_path):
    env = {**isolated_env(tmp_path), "WHITEBOARD_SYNC_SECONDS": "inf"}
    done = subprocess.run([sys.executable, "-m", "whiteboard.server.main"], env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=60)
    assert done.returncode == 2
    assert "WHITEBOARD_SYNC_SECONDS must be a number from 0.2 to 86400, got 'inf'" in done.stderr
    assert "Traceback" not in done.stderr
