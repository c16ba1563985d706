"""`whiteboard extension path | pack`: the extension that ships with this host."""

from __future__ import annotations

from pathlib import Path

import click

from .. import version
from ..install.extension import PACKS, ExtensionNotFound, extension_dir, pack
from . import main


def bundled_extension() -> Path:
    try:
        return extension_dir()
    except ExtensionNotFound as exc:
        raise click.ClickException(str(exc)) from None


@main.group("extension")
def extension_group() -> None:
    """The browser extension that goes with this host."""


@extension_group.command("path")
def path_command() -> None:
    """Print the folder to load with "Load unpacked" (Chrome) or "Load Temporary Add-on" (Firefox)."""
    click.echo(str(bundled_extension()))


@extension_group.command("pack")
@click.option("--browser", type=click.Choice(PACKS), help="Only this browser's zip. Default: both.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              help="Where to write the zip (with --browser). Default: whiteboard-<version>-<browser>.zip here.")
def pack_command(browser: str | None, out: Path | None) -> None:
    """Write the store zips: Chrome Web Store's and Firefox's (addons.mozilla.org, or install it
    in Firefox ESR/Developer Edition unsigned), each manifest without `key` and the other's keys."""
    if out is not None and browser is None:
        raise click.UsageError("--out names one zip: say which with --browser chrome or --browser firefox")
    folder = bundled_extension()
    for name in [browser] if browser else PACKS:
        try:
            written = pack(out or Path(f"whiteboard-{version()}-{name}.zip"), name, folder)
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None
        click.echo(f"{name.capitalize()}: {written.resolve()}")
