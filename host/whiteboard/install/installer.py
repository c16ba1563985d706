"""Install and uninstall the host for a set of browsers in one scope.

Both are idempotent and report every step as a `Change`. Uninstall removes only what
this install wrote: a manifest whose "path" is our launcher, a registry value naming our
manifest, and the launcher once no manifest of ours points at it any more.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..files import remove_empty_dir
from .browsers import BROWSERS, Browser
from .errors import InstallError
from .launcher import default_python, is_our_launcher, write_launcher
from .locations import Target
from .manifest import ManifestError, build_manifest, is_ours, origin_for, origins_of, read_manifest, write_manifest
from .registry import Registry, default_registry


@dataclass(frozen=True)
class Change:
    who: str  # browser key(s) or "" for shared parts
    action: str  # created | updated | unchanged | removed | absent | kept
    what: str  # "launcher" | "manifest" | "registry"
    where: str
    note: str = ""


def detected_browsers(target: Target) -> list[str]:
    """Browsers in use here (their user data dir exists) or installed but not yet run: a
    manifest written before the first run is read once the browser starts."""
    return [key for key, b in BROWSERS.items() if target.profile_dir(b).is_dir() or target.browser_installed(b)]


def install(target: Target, browsers: list[str], extension_ids: list[str], *, keep_allowed: bool = False,
            python: str | None = None, registry: Registry | None = None) -> list[Change]:
    """Write the launcher and each browser's manifest allowing `extension_ids`; with
    `keep_allowed`, also every id a manifest of ours in this scope allows already (a rerun
    after an upgrade keeps a store build's id that an earlier install was given)."""
    browsers = _known(browsers)
    launcher = target.launcher_path
    try:
        origins = sorted({origin_for(i) for i in extension_ids} | (_allowed_now(target) if keep_allowed else set()))
        # Firefox's manifest names callers differently: one manifest per kind of browser.
        manifests = {kind: build_manifest(launcher, origins, firefox=kind)
                     for kind in {BROWSERS[b].firefox for b in browsers}}
    except ValueError as exc:
        raise InstallError(str(exc)) from None
    changes = []
    try:
        # Keep callers the manifests of ours that this install does not rewrite still allow
        # (on Windows the Chrome family shares one file: the ids given now are its ids).
        kept = _allowed_now(target, skip={target.manifest_path(BROWSERS[b]) for b in browsers})
        if not target.system:  # the launcher's folder is the data folder: private (docs/memory.md)
            target.platform.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        action = _write_launcher(launcher, python or default_python(), sorted(kept | set(origins)))
        changes.append(Change("", action, "launcher", str(launcher)))
        if target.windows:
            changes += _install_windows(target, browsers, manifests, default_registry(registry))
        else:
            for key in browsers:
                path = target.manifest_path(BROWSERS[key])
                note = _previous_owner(path, launcher)
                manifest = manifests[BROWSERS[key].firefox]
                changes.append(Change(key, write_manifest(path, manifest), "manifest", str(path), note))
    except PermissionError as exc:
        raise InstallError(f"no permission to write {exc.filename}"
                           + (" (--system needs root: run with sudo)" if target.system else "")) from None
    except OSError as exc:
        raise InstallError(f"cannot write {exc.filename}: {exc.strerror}") from None
    return changes


def _allowed_now(target: Target, skip: set[Path] | frozenset[Path] = frozenset()) -> set[str]:
    """The callers our manifests allow now (all but those at `skip`)."""
    return set().union(*(origins_of(target.manifest_path(b), target.launcher_path, firefox=b.firefox)
                         for b in BROWSERS.values() if target.manifest_path(b) not in skip))


def _write_launcher(launcher: Path, python: str, origins: list[str]) -> str:
    try:
        return write_launcher(launcher, python, origins)
    except ValueError as exc:
        raise InstallError(str(exc)) from None


def _install_windows(target: Target, browsers: list[str], manifests: dict[bool, dict],
                     reg: Registry) -> list[Change]:
    changes = []
    for firefox, manifest in sorted(manifests.items()):
        path = target.manifest_path(next(BROWSERS[b] for b in browsers if BROWSERS[b].firefox == firefox))
        changes.append(Change("firefox" if firefox else "", write_manifest(path, manifest), "manifest", str(path)))
    for who, key, browser in _keys_of(target, browsers):
        path = target.manifest_path(browser)
        where = f"{target.registry_hive}\\{key}"
        previous = reg.get_default(target.registry_hive, key)
        if previous == str(path):
            changes.append(Change(who, "unchanged", "registry", where))
            continue
        reg.set_default(target.registry_hive, key, str(path))
        note = f"it named {previous}" if previous else ""
        changes.append(Change(who, "updated" if previous else "created", "registry", where, note))
    return changes


def uninstall(target: Target, browsers: list[str], *, registry: Registry | None = None) -> list[Change]:
    browsers = _known(browsers)
    launcher = target.launcher_path
    try:
        if target.windows:
            changes, still_used = _uninstall_windows(target, browsers, default_registry(registry))
        else:
            changes = [_remove_manifest(key, target.manifest_path(BROWSERS[key]), launcher) for key in browsers]
            still_used = [k for k, b in BROWSERS.items()
                          if origins_of(target.manifest_path(b), launcher, firefox=b.firefox)]
        changes += _retire_launcher(target, still_used)
    except PermissionError as exc:
        raise InstallError(f"no permission to remove {exc.filename}"
                           + (" (--system needs root: run with sudo)" if target.system else "")) from None
    except OSError as exc:
        raise InstallError(f"cannot remove {exc.filename}: {exc.strerror}") from None
    return changes


def _remove_manifest(key: str, path: Path, launcher: Path) -> Change:
    if not path.exists():
        return Change(key, "absent", "manifest", str(path))
    try:
        data = read_manifest(path)
    except ManifestError:
        return Change(key, "kept", "manifest", str(path), "not valid JSON, so not provably ours: delete it by hand")
    if not is_ours(data, launcher):
        return Change(key, "kept", "manifest", str(path), f"it points at {data.get('path')}, not at this install")
    path.unlink()
    return Change(key, "removed", "manifest", str(path))


def _uninstall_windows(target: Target, browsers: list[str], reg: Registry) -> tuple[list[Change], list[str]]:
    hive = target.registry_hive
    changes = []
    for who, key, browser in _keys_of(target, browsers):
        path = str(target.manifest_path(browser))
        where = f"{hive}\\{key}"
        value = reg.get_default(hive, key)
        sharers = [BROWSERS[b].label for b in BROWSERS
                   if b not in browsers and key in target.registry_keys(BROWSERS[b])]
        if value is None:
            changes.append(Change(who, "absent", "registry", where))
        elif value != path:
            changes.append(Change(who, "kept", "registry", where, f"it names {value}, not this install"))
        elif sharers:
            changes.append(Change(who, "kept", "registry", where, f"{', '.join(sharers)} reads the same key; "
                                  "uninstall that browser too to remove it"))
        else:
            reg.delete_key(hive, key)
            changes.append(Change(who, "removed", "registry", where))
    still_used = [k for k, b in BROWSERS.items()
                  if any(reg.get_default(hive, key) == str(target.manifest_path(b)) for key in target.registry_keys(b))]
    # Each manifest file (the Chrome family's shared one, Firefox's) goes once no key names it.
    for path in dict.fromkeys(target.manifest_path(b) for b in BROWSERS.values()):
        if not any(target.manifest_path(BROWSERS[b]) == path for b in still_used):
            who = "firefox" if path != target.windows_manifest_path else ""
            if path.exists() or who == "":
                changes.append(_remove_manifest(who, path, target.launcher_path))
    return changes, still_used


def _retire_launcher(target: Target, still_used: list[str]) -> list[Change]:
    launcher = target.launcher_path
    if still_used:
        return [Change("", "kept", "launcher", str(launcher), f"still used by {', '.join(still_used)}")]
    if not launcher.exists():
        return [Change("", "absent", "launcher", str(launcher))]
    if not is_our_launcher(launcher):
        return [Change("", "kept", "launcher", str(launcher), "not written by whiteboard install")]
    launcher.unlink()
    remove_empty_dir(launcher.parent)
    return [Change("", "removed", "launcher", str(launcher))]


def _keys_of(target: Target, browsers: list[str]) -> list[tuple[str, str, Browser]]:
    """(the browsers named, registry key, the first of them) for each key, once even when
    browsers share it (they share its manifest too)."""
    by_key: dict[str, list[str]] = {}
    for b in browsers:
        for key in target.registry_keys(BROWSERS[b]):
            by_key.setdefault(key, []).append(b)
    return [(", ".join(who), key, BROWSERS[who[0]]) for key, who in by_key.items()]


def _previous_owner(path: Path, launcher: Path) -> str:
    try:
        data = read_manifest(path)
    except ManifestError:
        return "replaced an unreadable file" if path.exists() else ""
    return "" if is_ours(data, launcher) else f"replaced one pointing at {data.get('path')}"


def _known(browsers: list[str]) -> list[str]:
    unknown = [b for b in browsers if b not in BROWSERS]
    if unknown:
        raise InstallError(f"unknown browser {unknown[0]!r}: choose from {', '.join(BROWSERS)}")
    return list(dict.fromkeys(browsers))

