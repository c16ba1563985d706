"""The native-messaging host manifest (design §2): build it, write it, read and check it.

manifests/chrome/com.whiteboard.host.json is the reference template of what this writes;
a test renders it and compares.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from .. import HOST_NAME
from ..files import atomic_write

DESCRIPTION = "Whiteboard: privacy-first memory for AI chats (local native host)"
EXTENSION_ID_RE = re.compile(r"^[a-p]{32}$")
ORIGIN_RE = re.compile(r"^chrome-extension://([a-p]{32})/$")
REQUIRED_FIELDS = ("name", "description", "path", "type", "allowed_origins")


class ManifestError(Exception):
    """A manifest that is missing, unreadable or not valid JSON."""


def validate_extension_id(extension_id: str) -> str:
    if not EXTENSION_ID_RE.match(extension_id or ""):
        raise ValueError(f"{extension_id!r} is not an extension id: it must be 32 letters a-p "
                         "(shown on chrome://extensions with Developer mode on)")
    return extension_id


def origin_for(extension_id: str) -> str:
    return f"chrome-extension://{validate_extension_id(extension_id)}/"


def build_manifest(host_path: Path, origins: list[str]) -> dict:
    """The Chrome-family manifest. The path must be absolute: browsers refuse relative ones
    on Linux and macOS."""
    if not host_path.is_absolute():
        raise ValueError(f"host path {host_path} is not absolute")
    bad = [o for o in origins if not ORIGIN_RE.match(o)]
    if bad or not origins:
        raise ValueError(f"allowed origins must be chrome-extension://<id>/ values, got {bad or origins}")
    return {
        "name": HOST_NAME,
        "description": DESCRIPTION,
        "path": str(host_path),
        "type": "stdio",
        "allowed_origins": sorted(set(origins)),
    }


def render(manifest: dict) -> str:
    return json.dumps(manifest, indent=2) + "\n"


def write_manifest(path: Path, manifest: dict) -> str:
    """Atomically write; returns "created", "updated" or "unchanged"."""
    return atomic_write(path, render(manifest), 0o644)


def read_manifest(path: Path) -> dict:
    """The manifest's JSON object; ManifestError saying what is wrong otherwise."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ManifestError(f"no manifest at {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ManifestError(f"cannot read {path}: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ManifestError(f"{path} is not valid JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(data, dict):
        raise ManifestError(f"{path} holds JSON but not an object")
    return data


def field_problems(data: dict) -> list[str]:
    """What a browser would reject or what would stop it reaching our host, in words."""
    problems = [f'missing "{f}"' for f in REQUIRED_FIELDS if f not in data]
    if data.get("name", HOST_NAME) != HOST_NAME:
        problems.append(f'"name" is {data["name"]!r}, must be {HOST_NAME!r} (the file name\'s host)')
    if "type" in data and data["type"] != "stdio":
        problems.append(f'"type" is {data["type"]!r}, must be "stdio"')
    if "path" in data and (not isinstance(data["path"], str) or not data["path"]):
        problems.append('"path" must be a non-empty string')
    origins = data.get("allowed_origins", [])
    if not isinstance(origins, list) or not all(isinstance(o, str) for o in origins):
        problems.append('"allowed_origins" must be a list of strings')
    elif "allowed_origins" in data:
        bad = [o for o in origins if not ORIGIN_RE.match(o)]
        if bad:
            problems.append(f'"allowed_origins" has entries browsers reject: {bad} '
                            "(each must be chrome-extension://<32 letters a-p>/, no wildcards)")
    return problems


def is_ours(data: dict, launcher: Path) -> bool:
    """Written by us for this scope: our host name, pointing at our launcher."""
    return data.get("name") == HOST_NAME and data.get("path") == str(launcher)


def origins_of(path: Path, launcher: Path) -> set[str]:
    """The origins a manifest of ours allows; empty if the file is absent or not ours."""
    try:
        data = read_manifest(path)
    except ManifestError:
        return set()
    if not is_ours(data, launcher) or field_problems(data):
        return set()
    return set(data["allowed_origins"])
