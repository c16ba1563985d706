"""The user's own Whiteboard data on disk: what `whiteboard uninstall` leaves in place and
`whiteboard uninstall --purge` deletes (the vault, its key and the settings).

Only these named files go: the data dir may also hold install.sh's virtualenv and the
launcher, and WHITEBOARD_DATA_DIR / WHITEBOARD_CONFIG_DIR may point at a shared folder.
"""

from __future__ import annotations

from pathlib import Path

from ..config import config_dir
from ..files import remove_empty_dir
from ..memory.hub import desktop_apps, memory_files
from ..server import presence
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


def running_hosts() -> list[tuple[str, int]]:
    """(kind, pid) of the hosts and desktop apps' servers running now on this data folder
    (server/presence.py: their locks; none on Windows): another HOME's host is not one, a
    host without a control socket is."""
    return presence.running()


def purge(files: list[Path]) -> None:
    """Delete `files`, then their folders if nothing else is left in them."""
    for path in files:
        path.unlink(missing_ok=True)
    hosts = presence.hosts_dir()
    for folder in dict.fromkeys([hosts, *(p.parent for p in files)]):
        remove_empty_dir(folder)
