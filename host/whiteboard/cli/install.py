"""`whiteboard install`, `whiteboard uninstall`, `whiteboard doctor`: register the host with browsers."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .. import HOST_NAME
from ..config import EXTENSION_ID, FIREFOX_ADDON_ID
from ..install import (
    BROWSERS,
    Change,
    InstallError,
    Platform,
    Target,
    detected_browsers,
    diagnose,
    diagnose_profile,
    install,
    uninstall,
    validate_extension_id,
)
from ..install.doctor import Check, Report, check_embedding_model, exit_code
from ..install.extension import ExtensionNotFound, extension_dir
from ..install.manifest import origin_for
from ..protocol.errors import WhiteboardError
from ..server.origin import is_firefox_caller
from . import main

BROWSER_CHOICE = click.Choice([*BROWSERS, "all"], case_sensitive=False)
BROWSER_HELP = "Browser to act on (repeatable); 'all' for every supported browser."
SYSTEM_HELP = "System-wide locations (/etc/..., /Library/..., HKLM) instead of this user's; needs root/admin."


def _extension_ids(ctx, param, values):
    try:
        return [validate_extension_id(v) for v in values]
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def _symbols() -> dict[object, str]:
    fancy = {True: "✓", False: "✗", None: "!", "skip": "–"}
    try:
        "".join(fancy.values()).encode(sys.stdout.encoding or "ascii")
        return fancy
    except (UnicodeEncodeError, LookupError):
        return {True: "ok", False: "FAIL", None: "warn", "skip": "-"}


def _selected(browsers: tuple[str, ...], default: list[str]) -> list[str]:
    if not browsers:
        return default
    return list(BROWSERS) if "all" in (b.lower() for b in browsers) else [b.lower() for b in browsers]


def _echo_changes(changes: list[Change]) -> None:
    for c in changes:
        who = c.who or c.what
        what = f"{c.what} " if c.who else ""
        note = f"  ({c.note})" if c.note else ""
        click.echo(f"  {who:<17} {c.action:<10} {what}{c.where}{note}")


def with_bundled_ids(extension_ids: list[str]) -> list[str]:
    """The ids named, plus the bundled id of each browser kind none of them is for: naming a
    Chrome store id does not unregister the Firefox add-on, and the other way round."""
    ids = list(extension_ids)
    if not any(is_firefox_caller(i) for i in ids):
        ids.append(FIREFOX_ADDON_ID)
    if all(is_firefox_caller(i) for i in ids):
        ids.insert(0, EXTENSION_ID)
    return ids


def next_steps(browsers: list[str], extension_ids: list[str]) -> str:
    try:
        folder = str(extension_dir())
    except ExtensionNotFound:
        folder = "the folder `whiteboard extension path` prints"
    lines = ["Next: load the extension"]
    chrome = [b for b in browsers if not BROWSERS[b].firefox]
    if chrome or not browsers:
        pages = list(dict.fromkeys(BROWSERS[b].extensions_page for b in chrome)) or ["chrome://extensions"]
        chrome_ids = [i for i in extension_ids if not is_firefox_caller(i)]
        ids = chrome_ids[0] if len(chrome_ids) == 1 else "one of " + ", ".join(chrome_ids)
        lines += [
            f"  1. Open {' or '.join(pages)}",
            '  2. Turn on "Developer mode" (top right)',
            f'  3. Click "Load unpacked" and choose: {folder}',
            f"  4. The extension id shown must be {ids}",
        ]
    if "firefox" in browsers:
        lines += [
            "  In Firefox: install the add-on file `whiteboard extension pack` writes (whiteboard-*-firefox.zip),",
            f"  or for this session only: open {BROWSERS['firefox'].extensions_page}, \"Load Temporary Add-on...\",",
            f"  and choose {folder}/manifest.json. Then allow it on the chat sites: Extensions > Whiteboard >",
            '  Permissions, turn on "Access your data for" each site (Firefox asks the user for these).',
        ]
    return "\n".join([*lines, "  Then check everything with: whiteboard doctor"])


@main.command("install")
@click.option("--browser", "browsers", type=BROWSER_CHOICE, multiple=True,
              help=BROWSER_HELP + " Default: every browser installed or used here.")
@click.option("--system", is_flag=True, help=SYSTEM_HELP)
@click.option("--extension-id", "extension_ids", multiple=True, callback=_extension_ids,
              help="Extension id to allow (repeatable): 32 letters a-p, e.g. the store build's and the "
                   "unpacked one's; or a Firefox add-on id (name@domain). Default: the bundled ids "
                   f"({EXTENSION_ID}, {FIREFOX_ADDON_ID}) and every id already allowed here.")
@click.option("--no-next-steps", is_flag=True, hidden=True, help="Leave out the how-to-load text (install.sh).")
def install_command(browsers, system, extension_ids, no_next_steps):
    """Register the native host with your browsers."""
    target = Target(Platform.current(), system=system)
    chosen = _selected(browsers, detected_browsers(target))
    if not chosen:
        looked = ", ".join(str(target.profile_dir(b)) for b in BROWSERS.values())
        raise click.ClickException(
            f"no supported browser found (looked for its command or app, and for {looked}).\n"
            "Install one, or name yours if it is elsewhere: whiteboard install --browser chrome")
    click.echo(f"Registering {HOST_NAME} ({target.scope}) with: {', '.join(BROWSERS[b].label for b in chosen)}")
    # Named ids are exactly what is allowed (with the bundled id of a browser kind none is
    # for); none named keeps what an earlier install allowed.
    ids = with_bundled_ids(extension_ids)
    try:
        changes = install(target, chosen, ids, keep_allowed=not extension_ids)
    except InstallError as exc:
        raise click.ClickException(str(exc)) from None
    _echo_changes(changes)
    wrote = any(c.action in ("created", "updated") for c in changes)
    click.echo("Done." if wrote else "Done: everything was already in place.")
    if not no_next_steps:
        click.echo("\n" + next_steps(chosen, ids))


@main.command("uninstall")
@click.option("--browser", "browsers", type=BROWSER_CHOICE, multiple=True, help=BROWSER_HELP + " Default: all.")
@click.option("--system", is_flag=True, help=SYSTEM_HELP)
@click.option("--purge", is_flag=True, help="Also delete your memories, their key and your settings (asks first).")
@click.option("--yes", is_flag=True, help="With --purge: do not ask.")
def uninstall_command(browsers, system, purge, yes):
    """Remove what `whiteboard install` registered; your memories stay unless --purge."""
    from ..install.userdata import purge as delete_files
    from ..install.userdata import running_hosts, user_files

    if yes and not purge:
        raise click.UsageError("--yes goes with --purge")
    kept = user_files()
    if purge and kept:
        running = running_hosts()
        if running:
            raise click.ClickException(_still_running(running))
        click.echo("This deletes, for good:")
        for path in kept:
            click.echo(f"  {path}")
        if not yes:
            click.confirm("Your memories cannot be recovered after this. Delete them?", abort=True)
    target = Target(Platform.current(), system=system)
    chosen = _selected(browsers, list(BROWSERS))
    try:
        changes = uninstall(target, chosen)
    except InstallError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"Unregistering {HOST_NAME} ({target.scope}):")
    _echo_changes(changes)
    removed = any(c.action == "removed" for c in changes)
    click.echo("Done." if removed else "Nothing to remove: Whiteboard was not registered here.")
    if purge:
        try:
            delete_files(kept)
        except OSError as exc:
            raise click.ClickException(f"could not delete {exc.filename}: {exc.strerror}") from None
        click.echo("Deleted your memories, their key and your settings." if kept
                   else "No memories, key or settings to delete.")
    elif kept:
        click.echo("\nKept your memories, their key and your settings:")
        for path in kept:
            click.echo(f"  {path}")
        click.echo("Delete them too with: whiteboard uninstall --purge")


def _echo_report(report: Report, sym: dict) -> None:
    if report.skipped:
        click.echo(f"{sym['skip']} {report.label}: {report.skipped}")
        return
    click.echo(f"{report.label}")
    for check in report.checks:
        click.echo(f"  {sym[check.ok]} {check.label}")
        if check.fix and check.ok is not True:
            click.echo(f"      next step: {check.fix}")


def desktop_app_checks() -> list[Check]:
    """The desktop apps Whiteboard is registered with (whiteboard mcp install) and whether
    they can start it; and the switch, when an app is registered but memories are off."""
    from ..mcp.apps import APPS, check_registered, config_path
    from ..memory import hub

    checks = [Check(*found) for app in APPS.values() if (found := check_registered(app, config_path(app)))]
    if not checks:
        return checks
    try:
        enabled = hub.desktop_apps().load().enabled
    except WhiteboardError as exc:  # mcp.json damaged: its message names the file and the fix
        return [*checks, Check(False, exc.message)]
    if not enabled:
        checks.append(Check(None, "desktop apps (MCP) are off: registered apps get no memory",
                            "To let them read memories, run: whiteboard mcp enable"))
    return checks


@main.command("doctor")
@click.option("--browser", "browsers", type=BROWSER_CHOICE, multiple=True,
              help=BROWSER_HELP + " Default: check what is registered, warn about what is not.")
@click.option("--system", is_flag=True, help="Check the system-wide registration.")
@click.option("--extension-id", "extension_ids", multiple=True, callback=_extension_ids,
              help=f"The extension id that must reach the host (repeatable; default {EXTENSION_ID}, and "
                   f"{FIREFOX_ADDON_ID} for Firefox).")
@click.option("--user-data-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Check a browser profile registered for --user-data-dir=DIR instead.")
@click.option("--timeout", default=10.0, show_default=True, help="Seconds to wait for the host's reply.")
def doctor_command(browsers, system, extension_ids, user_data_dir, timeout):
    """Check each browser can reach the host; exit 1 if something you need is broken."""
    ids = with_bundled_ids(extension_ids)
    origins = [origin_for(i) for i in ids if not is_firefox_caller(i)]  # each id given is checked
    firefox_origin = [i for i in ids if is_firefox_caller(i)]
    sym = _symbols()
    if user_data_dir is not None:
        reports = [diagnose_profile(user_data_dir, origins, timeout)]
    else:
        target = Target(Platform.current(), system=system)
        chosen = _selected(browsers, []) or None
        try:
            reports = diagnose(target, origins, chosen, timeout=timeout, firefox_origin=firefox_origin)
        except InstallError as exc:
            raise click.ClickException(str(exc)) from None
    for report in reports:
        _echo_report(report, sym)
    model = check_embedding_model()
    click.echo(f"\n{sym[model.ok]} {model.label}" + (f"\n      next step: {model.fix}" if model.fix else ""))
    for check in desktop_app_checks():
        click.echo(f"{sym[check.ok]} {check.label}" + (f"\n      next step: {check.fix}" if check.fix else ""))
    code = exit_code(reports)
    ready = [r.label for r in reports if r.ready]
    if code == 0:
        click.echo(f"\nAll good: the host answers for {', '.join(ready)}.")
    elif not any(r.ready or r.failed for r in reports):
        click.echo(f"\n{sym[False]} Whiteboard is not registered with any browser. Run: whiteboard install")
    else:
        click.echo(f"\n{sym[False]} Something needs fixing: see the next steps above.")
    click.get_current_context().exit(code)


def _still_running(running: list[tuple[str, int]]) -> str:
    """Why purge refuses: which processes hold the vault open, and what closes each."""
    hosts = [str(pid) for kind, pid in running if kind == "host"]
    servers = [str(pid) for kind, pid in running if kind != "host"]
    what, steps = [], []
    if hosts:
        what.append(f"host pid {', '.join(hosts)}")
        steps.append("close your browser")
    if servers:
        what.append(f"desktop apps' server pid {', '.join(servers)}")
        steps.append("quit the desktop apps using Whiteboard (Claude Desktop, Cursor, VS Code...; "
                     "`whiteboard mcp disable` does not stop them)")
    return (f"Whiteboard is running ({'; '.join(what)}): {' and '.join(steps)} first, then run this again. "
            "Nothing was changed.")
