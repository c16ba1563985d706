"""The extension this host ships with: where its folder is, and its zips for the stores.

An installed wheel carries it as package data (whiteboard/extension, copied in by setup.py
at build time); an editable install finds the checkout's extension/ next to host/.
"""

from __future__ import annotations

import json
import os
import tempfile
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


PACKS = ("chrome", "firefox")
# Left out of each browser's zip: `key` (the store assigns a store build's id and rejects an
# upload with one) and what only the other browser reads. extension/manifest.json serves both
# unpacked: each browser ignores the other's keys, with a warning at most.
LEFT_OUT = {"chrome": ("key", "browser_specific_settings"), "firefox": ("key", "minimum_chrome_version")}
# The background as each browser runs it: Chrome a service worker, Firefox scripts.
BACKGROUND_LEFT_OUT = {"chrome": "scripts", "firefox": "service_worker"}


def store_manifest(folder: Path, browser: str = "chrome") -> dict:
    """manifest.json as `browser`'s store gets it."""
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    for key in LEFT_OUT[browser]:
        manifest.pop(key, None)
    if isinstance(manifest.get("background"), dict):
        manifest["background"] = {k: v for k, v in manifest["background"].items() if k != BACKGROUND_LEFT_OUT[browser]}
    return manifest


def pack(out: Path, browser: str = "chrome", folder: Path | None = None) -> Path:
    """Write `browser`'s store zip of `folder` (default: this install's extension) to `out`.
    Firefox's is also the file a user installs (an .xpi is this zip, once signed)."""
    if browser not in PACKS:
        raise ValueError(f"no pack for {browser!r}: choose from {', '.join(PACKS)}")
    folder = folder or extension_dir()
    entries = [p for p in folder.rglob("*") if not any(part.startswith(".") for part in p.relative_to(folder).parts)]
    # A link would pack whatever it points at (outside the extension, perhaps): none is packed.
    links = sorted(p.relative_to(folder).as_posix() for p in entries if p.is_symlink())
    if links:
        raise ValueError(f"the extension folder {folder} holds symbolic links ({', '.join(links[:5])}); "
                         "replace them with the files themselves: nothing is packed through a link")
    files = sorted(p for p in entries if p.is_file())
    manifest = (json.dumps(store_manifest(folder, browser), indent=2) + "\n").encode()
    out.parent.mkdir(parents=True, exist_ok=True)
    # A new file of a fresh name (O_EXCL): a link planted at a fixed temporary name is never followed.
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as raw, zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as zf:
            for path in files:
                name = path.relative_to(folder).as_posix()
                info = zipfile.ZipInfo(name, ZIP_TIME)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                zf.writestr(info, manifest if name == "manifest.json" else path.read_bytes())
        os.chmod(tmp, 0o644)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return out
