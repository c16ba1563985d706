"""What can stop an install, uninstall or check, said so a person can act on it."""


class InstallError(Exception):
    """Install/uninstall could not complete; the message names the path and the fix."""
