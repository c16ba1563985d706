"""The user's own Whiteboard data on disk: what `whiteboard uninstall` leaves in place and
`whiteboard uninstall --purge` deletes (the vault, its key and the settings).

Only these named files go: the data dir may also hold install.sh's virtualenv and the
launcher, and WHITEBOARD_DATA_DIR / WHITEBOARD_CONFIG_DIR may point at a shared folder.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..config import config_dir
from ..files import remove_empty_dir
from ..memory.hub import desktop_apps, memory_files
from ..server.control import pid_alive, runtime_dir, sockets_by_pid
from ..settings_store import SETTINGS_FILE as MODEL_SETTINGS_FILE
from ..settings_store import default_paths
from ..sites import SITES_FILE


def user_files() -> list[Path]:
    """The vault (and SQLite's side files), the key, the settings (desktop apps' too): those that exist."""
    vault_files, memory_settings = memory_files()
    settings = config_dir()
    candidates = [*vault_files, default_paths()[1], settings / MODEL_SETTINGS_FILE, memory_settings,
                  settings / SITES_FILE, desktop_apps().path]
    return [p for p in candidates if p.exists()]


def running_hosts() -> list[int]:
    """Pids of this user's hosts that are running now (their control sockets; none on Windows)."""
    if os.name == "nt" or not runtime_dir().is_dir():
        return []
    return sorted(pid for pid in sockets_by_pid(runtime_dir()) if pid_alive(pid))


def purge(files: list[Path]) -> None:
    """Delete `files`, then their folders if nothing else is left in them."""
    for path in files:
        path.unlink(missing_ok=True)
    for folder in dict.fromkeys(p.parent for p in files):
        remove_empty_dir(folder)
