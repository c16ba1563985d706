"""The vault is opened and indexed when the host starts (design §5), but only for a user
who opted in somewhere: the first send on an opted-in site does not wait for it."""

import os
import time
from pathlib import Path

import pytest

from support.host import HostProcess, isolated_env
from support.waiting import wait_for

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="reads /proc/<pid>/fd")


def open_files(pid: int) -> set[str]:
    names = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            names.add(os.path.basename(os.readlink(fd)))
        except OSError:
            pass
    return names


def started(host: HostProcess) -> None:
    wait_for(lambda: host.request("ping")["tokenizer_ready"], timeout=10, interval=0.02,
             what="the host to finish starting")


def vault_opened_soon(pid: int, wait: float) -> bool:
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if "memories.db" in open_files(pid):
            return True
        time.sleep(0.05)
    return False


def test_opted_in_user_gets_the_vault_opened_at_start(tmp_path):
    env = isolated_env(tmp_path)
    with HostProcess(env=env) as host:
        assert host.request("site.settings", site="claude.ai", long_term=True)["ok"]
        assert host.request("memory.add", text="Prefers TypeScript", memory_type="preference")["ok"]
    with HostProcess(env=env) as host:
        started(host)
        assert vault_opened_soon(host.proc.pid, 5), "the vault was not opened at start"


def test_a_user_who_never_opted_in_gets_no_vault_opened(tmp_path):
    env = isolated_env(tmp_path)
    with HostProcess(env=env) as host:
        # A vault exists (a memory added by hand) but no site has long-term memory on.
        assert host.request("memory.add", text="Prefers TypeScript", memory_type="preference")["ok"]
    with HostProcess(env=env) as host:
        started(host)
        assert not vault_opened_soon(host.proc.pid, 1.0)
        # Nor the memory service, whose numpy alone is ~14 MB of RSS.
        with open(f"/proc/{host.proc.pid}/maps") as maps:
            assert "numpy" not in maps.read()
