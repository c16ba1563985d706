"""`whiteboard sync`: the memory vault on several computers through a folder that a sync
engine carries, end-to-end encrypted (docs/sync.md). The passphrase is read from a file or
asked on the terminal, never taken from the command line (argv is visible to every user
of the machine)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click

from ..memory import hub
from . import main
from .memories import vault_service

MAX_PASSPHRASE_FILE = 4096


def _passphrase(path: str | None, confirm: bool) -> str:
    if path is not None:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read(MAX_PASSPHRASE_FILE + 1)
        except (OSError, UnicodeDecodeError) as exc:
            raise click.ClickException(f"cannot read the passphrase file {path} ({exc})") from None
        lines = text.splitlines()
        if not lines or not lines[0] or len(text) > MAX_PASSPHRASE_FILE:
            raise click.ClickException(f"{path}: the passphrase is its first line (and the file is short)")
        return lines[0]
    if not sys.stdin.isatty():
        raise click.ClickException("no terminal to ask for the passphrase on: give --passphrase-file FILE")
    return click.prompt("Sync passphrase", hide_input=True, confirmation_prompt=confirm)


def _when(at: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(at)) if at else "never"


def _exchange(service) -> None:
    outcome = hub.sync_for(service).exchange()
    click.echo(f"Sent {outcome.sent} changes, received {outcome.received}; {outcome.arrived} memories arrived or "
               "changed from other computers.")
    for s in outcome.skipped:
        click.echo(f"Skipped {s.file}: {s.problem}", err=True)


@main.group("sync")
def sync_group() -> None:
    """Your memories on all your computers, through a folder that Syncthing, Dropbox, iCloud
    Drive, OneDrive or Nextcloud carries; only ciphertext goes there (docs/sync.md)."""


def _set_up(command: str, summary: str):
    """`enable` (the first computer: asks the passphrase twice) and `join` (the others)."""

    @sync_group.command(command, help=summary)
    @click.argument("folder", type=click.Path(file_okay=False))
    @click.option("--passphrase-file", type=click.Path(dir_okay=False),
                  help="Read the passphrase from the first line of this file (else it is asked).")
    @click.option("--name", help="This computer's name, as the others show it (default: the host name).")
    def set_up(folder: str, passphrase_file: str | None, name: str | None) -> None:
        secret = _passphrase(passphrase_file, confirm=command == "enable")
        with vault_service() as service:
            getattr(hub.sync_for(service), command)(Path(folder), secret, name)
            click.echo(f"Sync is on with {folder}. On your other computers: whiteboard sync join FOLDER (with the "
                       "same passphrase; without it the folder cannot be read, not even by us)."
                       if command == "enable" else f"Joined {folder}.")
            _exchange(service)

    return set_up


enable_cmd = _set_up("enable", "Make FOLDER the sync folder (the first computer): a new sync key, locked by a "
                               "passphrase.")
join_cmd = _set_up("join", "Join the sync folder another computer enabled; both computers' memories merge.")


@sync_group.command("now")
def now_cmd() -> None:
    """Exchange with the folder now (a running host does it by itself)."""
    with vault_service() as service:
        _exchange(service)


@sync_group.command("status")
@click.option("--json", "json_out", is_flag=True, help="As JSON.")
def status_cmd(json_out: bool) -> None:
    """The folder, the last exchange, the other computers, what was skipped and why."""
    with vault_service() as service:
        status = hub.sync_for(service).status()
    if json_out:
        click.echo(json.dumps(status, indent=2))
        return
    if status is None:
        click.echo("Sync is off.")
        return
    click.echo(f"Sync is on with {status['folder']}, as {status['name']}.")
    click.echo(f"Last exchange: {_when(status['last_exchange'])}.")
    for computer in sorted(status["computers"].values(), key=lambda c: c["name"]):
        click.echo(f"  {computer['name']}: last change {_when(computer['last_change'])}")
    if status.get("problem"):
        click.echo(f"Problem: {status['problem']}")
    for name, problem in status["skipped"]:
        click.echo(f"Skipped {name}: {problem}")


@sync_group.command("disable")
def disable_cmd() -> None:
    """Sync off on this computer. The folder and the other computers keep everything."""
    with vault_service() as service:
        was_on = hub.sync_for(service).disable()
    click.echo("Sync is off on this computer; the folder was not touched." if was_on else "Sync was off.")
