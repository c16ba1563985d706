"""Whiteboard: privacy-first memory for AI chats (native-messaging host)."""

from functools import cache

HOST_NAME = "com.whiteboard.host"


@cache
def version() -> str:
    """This install's version, from its package metadata: pyproject.toml's is the one source.
    Imported on first use, not with the package: importlib.metadata costs ~30 ms to import."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed_version

    try:
        return installed_version("whiteboard")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"
