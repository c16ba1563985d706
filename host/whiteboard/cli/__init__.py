"""`whiteboard`: the user's command line. Each command group lives in its own module."""

from __future__ import annotations

import importlib
import pkgutil

import click

from .. import version
from ..config import RelativeDirectory, check_directory_variables


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(version(), prog_name="whiteboard")
def main() -> None:
    """Whiteboard: privacy-first memory for AI chats."""
    try:
        check_directory_variables()
    except RelativeDirectory as exc:
        raise click.ClickException(str(exc)) from None


def _load_commands() -> None:
    # Every module in this package registers its commands on `main` when imported.
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")


_load_commands()
