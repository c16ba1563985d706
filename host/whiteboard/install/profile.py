"""Register the host for one browser profile: what `--user-data-dir=X` reads.

A browser started with `--user-data-dir=X` looks for `X/NativeMessagingHosts/<name>.json`
(Linux, macOS). End-to-end tests and `whiteboard demo` use this to run the real host
without touching the user's own browser profile or installation.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping

from ..config import EXTENSION_ID
from .launcher import default_python, write_launcher
from .locations import MANIFEST_FILE
from .manifest import build_manifest, origin_for, write_manifest


def register_for_profile(user_data_dir: str | os.PathLike, extension_id: str = EXTENSION_ID, *,
                         python: str | None = None, env: Mapping[str, str] | None = None) -> Path:
    """Write the launcher and manifest under `user_data_dir`; return the manifest's path.

    `env` adds variables the launcher exports to the host (e.g. WHITEBOARD_DATA_DIR for a
    throwaway vault); the launcher always sets WHITEBOARD_ALLOWED_ORIGINS to this id.
    Safe to call again: files are rewritten atomically.
    """
    hosts_dir = Path(user_data_dir).resolve() / "NativeMessagingHosts"
    launcher = hosts_dir / ("whiteboard-host.bat" if os.name == "nt" else "whiteboard-host")
    origin = origin_for(extension_id)
    write_launcher(launcher, python or default_python(), [origin], env)
    manifest_path = hosts_dir / MANIFEST_FILE
    write_manifest(manifest_path, build_manifest(launcher, [origin]))
    return manifest_path
