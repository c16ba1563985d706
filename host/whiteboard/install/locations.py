"""Where things go for one OS and scope (user or --system), computed without touching the OS.

Everything is derived from a `Platform` value, so tests can ask for macOS or Windows paths
on Linux, and point the system-wide root at a temporary directory.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from .. import HOST_NAME
from ..config import data_dir
from .browsers import Browser, windows_host_key

MANIFEST_FILE = f"{HOST_NAME}.json"
SUPPORTED_OS = ("linux", "darwin", "win32")


@dataclass(frozen=True)
class Platform:
    os: str  # "linux" | "darwin" | "win32"
    home: Path
    data_dir: Path  # the user's Whiteboard data dir (holds the user-level launcher)
    env: Mapping[str, str] = field(default_factory=dict)
    # Prefix of system-wide paths: "/" for real; tests point it at a temporary dir.
    system_root: Path = Path("/")

    def __post_init__(self):
        if self.os not in SUPPORTED_OS:
            raise ValueError(f"unsupported OS {self.os!r}: Whiteboard supports Linux, macOS and Windows")

    @classmethod
    def current(cls) -> Platform:
        name = "linux" if sys.platform.startswith(("linux", "freebsd", "openbsd")) else sys.platform
        return cls(os=name, home=Path.home(), data_dir=data_dir(), env=dict(os.environ))

    def system_path(self, absolute: str) -> Path:
        return self.system_root / absolute.lstrip("/")


@dataclass(frozen=True)
class Target:
    """One platform in one scope: user-level (default) or system-wide."""

    platform: Platform
    system: bool = False

    @property
    def windows(self) -> bool:
        return self.platform.os == "win32"

    @property
    def scope(self) -> str:
        return "system-wide" if self.system else "for this user"

    def profile_dir(self, browser: Browser) -> Path:
        """The browser's default user data dir: its existence means the browser is in use here."""
        p = self.platform
        if p.os == "linux":
            base = p.home if browser.firefox else Path(p.env.get("XDG_CONFIG_HOME") or p.home / ".config")
            return base / browser.linux_profile
        if p.os == "darwin":
            return self._mac_support / browser.mac_profile
        if browser.firefox:
            return Path(p.env.get("APPDATA") or p.home / "AppData" / "Roaming") / browser.windows_profile
        return Path(p.env.get("LOCALAPPDATA") or p.home / "AppData" / "Local") / browser.windows_profile

    @property
    def _mac_support(self) -> Path:
        return self.platform.home / "Library" / "Application Support"

    def browser_installed(self, browser: Browser) -> bool:
        """The browser is installed here, even if never run (its command on PATH, its app)."""
        p = self.platform
        if p.os == "linux":
            path = p.env.get("PATH", "")
            return any(shutil.which(command, path=path) for command in browser.linux_commands)
        if p.os == "darwin":
            return any((base / browser.mac_app).is_dir()
                       for base in (p.system_path("/Applications"), p.home / "Applications"))
        return False  # Windows: the registry registers a browser whether or not it ran

    def manifest_path(self, browser: Browser) -> Path:
        """Where this browser's manifest goes. On Windows one file serves every browser:
        the registry keys name it."""
        p = self.platform
        if self.windows:
            return self.windows_manifest(browser)
        if not self.system and browser.firefox:
            hosts = p.home / browser.linux_user_hosts if p.os == "linux" else self._mac_support / browser.mac_user_hosts
            return hosts / MANIFEST_FILE
        if not self.system:
            return self.profile_dir(browser) / "NativeMessagingHosts" / MANIFEST_FILE
        system_dir = browser.linux_system_dir if p.os == "linux" else browser.mac_system_dir
        return p.system_path(system_dir) / MANIFEST_FILE

    @property
    def windows_manifest_path(self) -> Path:
        """The one manifest the Chrome family's registry keys name."""
        return self.whiteboard_dir / "NativeMessagingHosts" / MANIFEST_FILE

    def windows_manifest(self, browser: Browser) -> Path:
        """Firefox's manifest names callers differently, so it is a file of its own."""
        if browser.firefox:
            return self.whiteboard_dir / "NativeMessagingHosts" / "firefox" / MANIFEST_FILE
        return self.windows_manifest_path

    def registry_keys(self, browser: Browser) -> list[str]:
        return [windows_host_key(vendor, HOST_NAME) for vendor in browser.windows_keys]

    @property
    def registry_hive(self) -> str:
        return "HKLM" if self.system else "HKCU"

    @property
    def whiteboard_dir(self) -> Path:
        """Our own directory in this scope: launcher (and on Windows the manifest) live here."""
        p = self.platform
        if not self.system:
            return p.data_dir
        if p.os == "linux":
            return p.system_path("/usr/local/lib/whiteboard")
        if p.os == "darwin":
            return p.system_path("/Library/Application Support/Whiteboard")
        return Path(p.env.get("PROGRAMDATA") or r"C:\ProgramData") / "Whiteboard"

    @property
    def launcher_path(self) -> Path:
        return self.whiteboard_dir / "bin" / ("whiteboard-host.bat" if self.windows else "whiteboard-host")
