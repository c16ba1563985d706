"""Desktop apps (MCP, docs/mcp.md): whether `whiteboard mcp` may hand memories to the apps
that start it, and which apps read them last. Kept in config_dir()/mcp.json beside the
per-site settings (atomic write, 0600), so every browser's host, the CLI and the MCP server
read the same switch. Holds a switch, app names as the apps give them, and times: never
a query, a memory or anything derived from one."""

from __future__ import annotations

import json
import threading
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from ...config import config_dir
from ...files import atomic_write, read_json, unwritable
from ...protocol.errors import Unavailable

DESKTOP_FILE = "mcp.json"
MAX_CLIENTS = 20  # the apps kept, those that read last; an older one is forgotten
MAX_CLIENT_NAME = 80  # characters of an app's name as it gives it at initialize
UNNAMED = "unnamed app"
# A read within this many seconds of the one noted is not written again (a search is not
# slowed by a file write each time; the time is shown to the minute).
READ_PRECISION = 30.0


@dataclass(frozen=True)
class DesktopClient:
    name: str
    last_read: float | None  # None: it started the server but has not read a memory yet


@dataclass(frozen=True)
class DesktopApps:
    enabled: bool = False
    clients: tuple[DesktopClient, ...] = ()  # the last to read first


def client_name(raw: object) -> str:
    """An app's name fit to show: printable, one line, at most MAX_CLIENT_NAME characters."""
    text = raw if isinstance(raw, str) else ""
    text = "".join(c if unicodedata.category(c)[0] not in "CZ" or c == " " else " " for c in text[:400])
    text = " ".join(text.split())[:MAX_CLIENT_NAME]
    return text or UNNAMED


class DesktopAppsStore:
    def __init__(self, directory: Path | None = None):
        self.path = (directory or config_dir()) / DESKTOP_FILE
        self._lock = threading.Lock()

    def load(self) -> DesktopApps:
        raw = read_json(self.path, f"the desktop apps settings file {self.path} cannot be read; fix or delete it "
                                   "(desktop apps are then off)")
        if raw is None:
            return DesktopApps()
        clients = raw.get("clients") if isinstance(raw, dict) else None
        if not isinstance(raw, dict) or not isinstance(raw.get("enabled", False), bool) \
                or not isinstance(clients or {}, dict):
            raise Unavailable(f"the desktop apps settings file {self.path} is malformed; fix or delete it")
        found = [DesktopClient(client_name(name), seen if isinstance(seen, (int, float)) else None)
                 for name, seen in (clients or {}).items()]
        found.sort(key=lambda c: (-(c.last_read or 0.0), c.name))
        return DesktopApps(raw.get("enabled", False), tuple(found[:MAX_CLIENTS]))

    def update(self, enabled: bool | None = None) -> DesktopApps:
        with self._lock:
            current = self.load()
            if enabled is not None and enabled != current.enabled:
                current = DesktopApps(enabled, current.clients)
                self._save(current)
            return current

    def saw(self, name: str, read_at: float | None) -> None:
        """Note that the app `name` started the server (read_at None) or read memories at
        `read_at`. Another MCP server may write at the same moment: the file is read again
        just before it is replaced, so at most one app's latest time can be lost, never the switch."""
        name = client_name(name)
        with self._lock:
            current = self.load()
            known = {c.name: c.last_read for c in current.clients}
            if name in known and (read_at is None or (known[name] or 0.0) > read_at - READ_PRECISION):
                return
            known[name] = read_at if read_at is not None else known.get(name)
            clients = sorted((DesktopClient(n, t) for n, t in known.items()),
                             key=lambda c: (-(c.last_read or 0.0), c.name))
            self._save(DesktopApps(current.enabled, tuple(clients[:MAX_CLIENTS])))

    def _save(self, apps: DesktopApps) -> None:
        data = {"enabled": apps.enabled, "clients": {c.name: c.last_read for c in apps.clients}}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            atomic_write(self.path, json.dumps(data, indent=2, sort_keys=True), 0o600)
        except OSError as exc:
            raise unwritable(exc, self.path) from None
