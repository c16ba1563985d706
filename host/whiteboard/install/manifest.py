"""The native-messaging host manifest (design §2): build it, write it, read and check it.

manifests/chrome/ and manifests/firefox/com.whiteboard.host.json are the reference templates
of what this writes; a test renders them and compares. The Chrome family names its callers
by `allowed_origins` (chrome-extension://<id>/), Firefox by `allowed_extensions` (add-on
ids). One list of callers holds both kinds: each browser's manifest takes its own.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from .. import HOST_NAME
from ..files import atomic_write
from ..server.origin import CHROME_ORIGIN_RE, GECKO_ID_RE, is_firefox_caller

DESCRIPTION = "Whiteboard: privacy-first memory for AI chats (local native host)"
EXTENSION_ID_RE = re.compile(r"^[a-p]{32}$")
BASE_FIELDS = ("name", "description", "path", "type")


class ManifestError(Exception):
    """A manifest that is missing, unreadable or not valid JSON."""


def validate_extension_id(extension_id: str) -> str:
    """A Chrome extension id or a Firefox add-on id."""
    if not (EXTENSION_ID_RE.fullmatch(extension_id or "") or GECKO_ID_RE.fullmatch(extension_id or "")):
        raise ValueError(f"{extension_id!r} is not an extension id: a Chrome id is 32 letters a-p "
                         "(shown on chrome://extensions with Developer mode on); a Firefox add-on id "
                         "looks like name@domain (shown on about:debugging)")
    return extension_id


def origin_for(extension_id: str) -> str:
    """How the host names this caller: the Chrome origin, or the Firefox add-on id itself."""
    validate_extension_id(extension_id)
    return extension_id if is_firefox_caller(extension_id) else f"chrome-extension://{extension_id}/"


def allowed_field(firefox: bool) -> str:
    return "allowed_extensions" if firefox else "allowed_origins"


def build_manifest(host_path: Path, origins: list[str], *, firefox: bool = False) -> dict:
    """The manifest for the Chrome family, or for Firefox, allowing the callers of its kind.
    The path must be absolute: browsers refuse relative ones on Linux and macOS."""
    if not host_path.is_absolute():
        raise ValueError(f"host path {host_path} is not absolute")
    bad = [o for o in origins if not (CHROME_ORIGIN_RE.fullmatch(o) or is_firefox_caller(o))]
    if bad or not origins:
        raise ValueError("allowed origins must be chrome-extension://<id>/ values or Firefox add-on ids, "
                         f"got {bad or origins}")
    mine = sorted({o for o in origins if is_firefox_caller(o) == firefox})
    if not mine:
        kind = "Firefox add-on id" if firefox else "chrome-extension://<id>/ origin"
        raise ValueError(f"no {kind} among the allowed origins {origins}: name one with --extension-id")
    return {
        "name": HOST_NAME,
        "description": DESCRIPTION,
        "path": str(host_path),
        "type": "stdio",
        allowed_field(firefox): mine,
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


def field_problems(data: dict, *, firefox: bool = False) -> list[str]:
    """What a browser would reject or what would stop it reaching our host, in words."""
    field = allowed_field(firefox)
    problems = [f'missing "{f}"' for f in (*BASE_FIELDS, field) if f not in data]
    if data.get("name", HOST_NAME) != HOST_NAME:
        problems.append(f'"name" is {data["name"]!r}, must be {HOST_NAME!r} (the file name\'s host)')
    if "type" in data and data["type"] != "stdio":
        problems.append(f'"type" is {data["type"]!r}, must be "stdio"')
    if "path" in data and (not isinstance(data["path"], str) or not data["path"]):
        problems.append('"path" must be a non-empty string')
    origins = data.get(field, [])
    if not isinstance(origins, list) or not all(isinstance(o, str) for o in origins):
        problems.append(f'"{field}" must be a list of strings')
    elif field in data:
        bad = [o for o in origins if not (is_firefox_caller(o) if firefox else CHROME_ORIGIN_RE.fullmatch(o))]
        rule = "a Firefox add-on id (name@domain or {GUID})" if firefox else \
            "chrome-extension://<32 letters a-p>/, no wildcards"
        if bad:
            problems.append(f'"{field}" has entries browsers reject: {bad} (each must be {rule})')
    return problems


def is_ours(data: dict, launcher: Path) -> bool:
    """Written by us for this scope: our host name, pointing at our launcher."""
    return data.get("name") == HOST_NAME and data.get("path") == str(launcher)


def origins_of(path: Path, launcher: Path, *, firefox: bool = False) -> set[str]:
    """The callers a manifest of ours allows; empty if the file is absent or not ours."""
    try:
        data = read_manifest(path)
    except ManifestError:
        return set()
    if not is_ours(data, launcher) or field_problems(data, firefox=firefox):
        return set()
    return set(data[allowed_field(firefox)])
