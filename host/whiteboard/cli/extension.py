"""`whiteboard extension path | pack`: the extension that ships with this host."""

from __future__ import annotations

from pathlib import Path

import click

from .. import version
from ..install.extension import ExtensionNotFound, extension_dir, pack_chrome
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
    """Print the folder to load with "Load unpacked" on chrome://extensions."""
    click.echo(str(bundled_extension()))


@extension_group.command("pack")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              help="Where to write the zip. Default: whiteboard-<version>-chrome.zip here.")
def pack_command(out: Path | None) -> None:
    """Write the Chrome Web Store zip (its manifest without `key`: the store assigns the id)."""
    out = out or Path(f"whiteboard-{version()}-chrome.zip")
    written = pack_chrome(out, bundled_extension())
    click.echo(f"Chrome: {written.resolve()}")
