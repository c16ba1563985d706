"""Per-site settings: long-term memory (opt-in, off by default) and pause.

Kept in config_dir()/sites.json, written atomically (temp file, fsync, rename), mode
0600. Holds site names and two booleans: nothing about what was said there.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path

from .config import config_dir
from .files import atomic_write, unwritable
from .protocol.errors import BadRequest, Unavailable
from .protocol.messages.core import HOST_NAME

SITES_FILE = "sites.json"


@dataclass(frozen=True)
class SiteSettings:
    site: str
    long_term: bool = False
    paused: bool = False

    @property
    def memory_on(self) -> bool:
        return self.long_term and not self.paused


def check_site(site: str) -> str:
    """A host name like chatgpt.com, lowercased; BadRequest otherwise."""
    name = site.strip().lower().rstrip(".")
    if not HOST_NAME.fullmatch(name):
        raise BadRequest("site: must be a host name such as chatgpt.com")
    return name


def site_of_key(key: str) -> str:
    """The site of a session key "domain:tabId"."""
    return check_site(key.split(":", 1)[0])


class SiteStore:
    def __init__(self, directory: Path | None = None):
        self.directory = directory or config_dir()
        self.path = self.directory / SITES_FILE
        self._lock = threading.Lock()

    def get(self, site: str) -> SiteSettings:
        site = check_site(site)
        raw = self._load().get(site, {})
        return SiteSettings(site, bool(raw.get("long_term", False)), bool(raw.get("paused", False)))

    def update(self, site: str, long_term: bool | None = None, paused: bool | None = None) -> SiteSettings:
        site = check_site(site)
        with self._lock:
            data = self._load()
            current = data.get(site, {})
            entry = {"long_term": bool(current.get("long_term", False)) if long_term is None else long_term,
                     "paused": bool(current.get("paused", False)) if paused is None else paused}
            if entry != current:
                data[site] = entry
                self._save(data)
        return SiteSettings(site, **entry)

    def all(self) -> list[SiteSettings]:
        return [self.get(site) for site in sorted(self._load())]

    def _load(self) -> dict:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):
            raise Unavailable(f"the site settings file {self.path} cannot be read; fix or delete it "
                              "(every site then has long-term memory off)") from None
        if not isinstance(raw, dict) or not all(isinstance(v, dict) for v in raw.values()):
            raise Unavailable(f"the site settings file {self.path} is not a settings object; fix or delete it")
        return raw

    def _save(self, data: dict) -> None:
        try:
            self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            atomic_write(self.path, json.dumps(data, indent=2, sort_keys=True), 0o600)
        except OSError as exc:
            raise unwritable(exc, self.path) from None

