"""One version: pyproject.toml's. The host reports it (from its package metadata) and its
protocol in `ping`, and the protocol lies in the range the extension speaks."""

import re
import tomllib
from pathlib import Path

from whiteboard import version
from whiteboard.protocol import PROTOCOL_VERSION
from whiteboard.server.bootstrap import early_ping_reply

ROOT = Path(__file__).resolve().parents[2]


def pyproject_version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def extension_protocol_range() -> tuple[int, int]:
    source = (ROOT / "extension" / "background" / "native-port.js").read_text()
    found = re.search(r"PROTOCOL = Object\.freeze\(\{ min: (\d+), max: (\d+) \}\)", source)
    assert found, "native-port.js no longer declares PROTOCOL = Object.freeze({ min: N, max: M })"
    return int(found.group(1)), int(found.group(2))


def test_the_host_reports_pyprojects_version_and_its_protocol(host):
    assert version() == pyproject_version()
    early = early_ping_reply(b'{"id": 1, "type": "ping"}')
    for reply in (early, host.request("ping")):
        assert (reply["version"], reply["protocol"]) == (pyproject_version(), PROTOCOL_VERSION)


def test_the_extension_speaks_the_hosts_protocol():
    low, high = extension_protocol_range()
    assert low <= PROTOCOL_VERSION <= high
