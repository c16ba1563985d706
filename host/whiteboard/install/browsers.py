"""The browsers we register with, and where each looks for native hosts.

Facts per design §2. On Linux and macOS a Chrome-family browser reads `<user data
dir>/NativeMessagingHosts` (so `--user-data-dir=X` reads `X/NativeMessagingHosts`) plus one
system-wide directory; Firefox reads `~/.mozilla/native-messaging-hosts` (Linux) or
`~/Library/Application Support/Mozilla/NativeMessagingHosts` (macOS), whatever its profile.
On Windows each reads the default value of a registry key naming the manifest file.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Browser:
    key: str  # what --browser takes
    label: str
    # User data dir relative to $XDG_CONFIG_HOME (Linux) / ~/Library/Application Support (macOS)
    # / %LOCALAPPDATA% (Windows); Firefox's relative to home / the same / %APPDATA%. For the
    # Chrome family its NativeMessagingHosts subdir is the user-level location.
    linux_profile: str
    mac_profile: str
    windows_profile: str
    linux_system_dir: str  # absolute, system-wide manifest dir
    mac_system_dir: str
    # Registry keys (under HKCU or HKLM) holding `NativeMessagingHosts\<host name>`.
    windows_keys: tuple[str, ...]
    extensions_page: str  # where the user loads an unpacked extension
    # How an installed browser that has never been run is found: its commands on PATH
    # (Linux) and its app bundle in /Applications or ~/Applications (macOS).
    linux_commands: tuple[str, ...] = ()
    mac_app: str = ""
    # Firefox: its manifest names callers by `allowed_extensions`; its user-level host dir is
    # not inside its profile dir (relative to home on Linux, to ~/Library/Application Support
    # on macOS); its profile lives under %APPDATA% on Windows.
    firefox: bool = False
    linux_user_hosts: str = ""
    mac_user_hosts: str = ""


BROWSERS: dict[str, Browser] = {b.key: b for b in (
    Browser("chrome", "Google Chrome",
            "google-chrome", "Google/Chrome", "Google/Chrome/User Data",
            "/etc/opt/chrome/native-messaging-hosts", "/Library/Google/Chrome/NativeMessagingHosts",
            (r"Software\Google\Chrome",), "chrome://extensions",
            ("google-chrome", "google-chrome-stable", "google-chrome-beta"), "Google Chrome.app"),
    Browser("chromium", "Chromium",
            "chromium", "Chromium", "Chromium/User Data",
            "/etc/chromium/native-messaging-hosts", "/Library/Application Support/Chromium/NativeMessagingHosts",
            (r"Software\Chromium",), "chrome://extensions", ("chromium", "chromium-browser"), "Chromium.app"),
    Browser("brave", "Brave",
            "BraveSoftware/Brave-Browser", "BraveSoftware/Brave-Browser", "BraveSoftware/Brave-Browser/User Data",
            "/etc/opt/brave/native-messaging-hosts",
            "/Library/Application Support/BraveSoftware/Brave-Browser/NativeMessagingHosts",
            (r"Software\BraveSoftware\Brave-Browser",), "brave://extensions", ("brave-browser", "brave"),
            "Brave Browser.app"),
    Browser("edge", "Microsoft Edge",
            "microsoft-edge", "Microsoft Edge", "Microsoft/Edge/User Data",
            "/etc/opt/edge/native-messaging-hosts", "/Library/Microsoft/Edge/NativeMessagingHosts",
            (r"Software\Microsoft\Edge",), "edge://extensions", ("microsoft-edge", "microsoft-edge-stable"),
            "Microsoft Edge.app"),
    # Vivaldi on Windows reads Google Chrome's registry key, not one of its own.
    Browser("vivaldi", "Vivaldi",
            "vivaldi", "Vivaldi", "Vivaldi/User Data",
            "/etc/opt/vivaldi/native-messaging-hosts", "/Library/Application Support/Vivaldi/NativeMessagingHosts",
            (r"Software\Google\Chrome",), "vivaldi://extensions", ("vivaldi", "vivaldi-stable"), "Vivaldi.app"),
    Browser("firefox", "Firefox",
            ".mozilla/firefox", "Firefox", "Mozilla/Firefox",
            "/usr/lib/mozilla/native-messaging-hosts", "/Library/Application Support/Mozilla/NativeMessagingHosts",
            (r"Software\Mozilla",), "about:debugging#/runtime/this-firefox",
            ("firefox", "firefox-esr"), "Firefox.app",
            firefox=True, linux_user_hosts=".mozilla/native-messaging-hosts",
            mac_user_hosts="Mozilla/NativeMessagingHosts"),
)}


def windows_host_key(vendor_key: str, host_name: str) -> str:
    return rf"{vendor_key}\NativeMessagingHosts\{host_name}"
