"""The extension this host ships with: where its folder is, and its zip for a store upload.

An installed wheel carries it as package data (whiteboard/extension, copied in by setup.py
at build time); an editable install finds the checkout's extension/ next to host/.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1]
# Every zip entry gets this time, so the same extension packs to the same bytes.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)


class ExtensionNotFound(Exception):
    pass


def extension_dir() -> Path:
    """The folder to load as an unpacked extension."""
    for candidate in (PACKAGE_DIR / "extension", PACKAGE_DIR.parents[1] / "extension"):
        if (candidate / "manifest.json").is_file():
            return candidate
    raise ExtensionNotFound(f"the extension is not in this install (looked in {PACKAGE_DIR / 'extension'} and "
                            f"{PACKAGE_DIR.parents[1] / 'extension'}): reinstall Whiteboard from its wheel")


def store_manifest(folder: Path) -> dict:
    """manifest.json without `key`: the store assigns the id of a store build and rejects an upload with one."""
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest.pop("key", None)
    return manifest


def pack_chrome(out: Path, folder: Path | None = None) -> Path:
    """Write the Chrome Web Store zip of `folder` (default: this install's extension) to `out`."""
    folder = folder or extension_dir()
    files = sorted(p for p in folder.rglob("*")
                   if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts))
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in files:
            name = path.relative_to(folder).as_posix()
            data = (json.dumps(store_manifest(folder), indent=2) + "\n").encode() if name == "manifest.json" \
                else path.read_bytes()
            info = zipfile.ZipInfo(name, ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, data)
    tmp.replace(out)
    return out
