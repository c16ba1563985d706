"""Registering the host with browsers: browser table, manifests, launcher, registry, doctor.

Public entry points: `install` / `uninstall` (what `whiteboard install` runs),
`diagnose` (`whiteboard doctor`) and `register_for_profile` (a browser started with
`--user-data-dir=X`: end-to-end tests and `whiteboard demo`).
"""

from .browsers import BROWSERS
from .doctor import diagnose, diagnose_profile
from .errors import InstallError
from .installer import Change, detected_browsers, install, uninstall
from .locations import Platform, Target
from .manifest import validate_extension_id
from .profile import register_for_profile

__all__ = ["BROWSERS", "Change", "InstallError", "Platform", "Target", "detected_browsers", "diagnose",
           "diagnose_profile", "install", "register_for_profile", "uninstall",
           "validate_extension_id"]
