"""Where the manifest goes, per OS, browser and scope (design §2), computed for any OS on any OS.

Expected paths are written out here by hand, not derived from the code's table.
"""

from pathlib import Path

import pytest

from whiteboard.install import BROWSERS, Platform, Target
from whiteboard.install.locations import MANIFEST_FILE

HOME = Path("/home/ada")

LINUX_USER = {
    "chrome": "/home/ada/.config/google-chrome/NativeMessagingHosts",
    "chromium": "/home/ada/.config/chromium/NativeMessagingHosts",
    "brave": "/home/ada/.config/BraveSoftware/Brave-Browser/NativeMessagingHosts",
    "edge": "/home/ada/.config/microsoft-edge/NativeMessagingHosts",
    "vivaldi": "/home/ada/.config/vivaldi/NativeMessagingHosts",
    # Firefox's user-level dir is outside its profile, whatever XDG_CONFIG_HOME says.
    "firefox": "/home/ada/.mozilla/native-messaging-hosts",
}
LINUX_SYSTEM = {
    "chrome": "/etc/opt/chrome/native-messaging-hosts",
    "chromium": "/etc/chromium/native-messaging-hosts",
    "brave": "/etc/opt/brave/native-messaging-hosts",
    "edge": "/etc/opt/edge/native-messaging-hosts",
    "vivaldi": "/etc/opt/vivaldi/native-messaging-hosts",
    "firefox": "/usr/lib/mozilla/native-messaging-hosts",
}
MAC_USER = {
    "chrome": "/home/ada/Library/Application Support/Google/Chrome/NativeMessagingHosts",
    "chromium": "/home/ada/Library/Application Support/Chromium/NativeMessagingHosts",
    "brave": "/home/ada/Library/Application Support/BraveSoftware/Brave-Browser/NativeMessagingHosts",
    "edge": "/home/ada/Library/Application Support/Microsoft Edge/NativeMessagingHosts",
    "vivaldi": "/home/ada/Library/Application Support/Vivaldi/NativeMessagingHosts",
    "firefox": "/home/ada/Library/Application Support/Mozilla/NativeMessagingHosts",
}
MAC_SYSTEM = {
    "chrome": "/Library/Google/Chrome/NativeMessagingHosts",
    "chromium": "/Library/Application Support/Chromium/NativeMessagingHosts",
    "brave": "/Library/Application Support/BraveSoftware/Brave-Browser/NativeMessagingHosts",
    "edge": "/Library/Microsoft/Edge/NativeMessagingHosts",
    "vivaldi": "/Library/Application Support/Vivaldi/NativeMessagingHosts",
    "firefox": "/Library/Application Support/Mozilla/NativeMessagingHosts",
}
WINDOWS_KEYS = {
    "chrome": r"Software\Google\Chrome\NativeMessagingHosts\com.whiteboard.host",
    "chromium": r"Software\Chromium\NativeMessagingHosts\com.whiteboard.host",
    "brave": r"Software\BraveSoftware\Brave-Browser\NativeMessagingHosts\com.whiteboard.host",
    "edge": r"Software\Microsoft\Edge\NativeMessagingHosts\com.whiteboard.host",
    # Vivaldi on Windows reads Google Chrome's key.
    "vivaldi": r"Software\Google\Chrome\NativeMessagingHosts\com.whiteboard.host",
    "firefox": r"Software\Mozilla\NativeMessagingHosts\com.whiteboard.host",
}


def platform(os_name, **env):
    return Platform(os=os_name, home=HOME, data_dir=Path("/data/whiteboard"), env=env)


def test_every_browser_in_the_table_is_covered():
    assert set(BROWSERS) == set(LINUX_USER) == set(MAC_USER) == set(WINDOWS_KEYS)


@pytest.mark.parametrize("os_name, system, expected", [
    ("linux", False, LINUX_USER), ("linux", True, LINUX_SYSTEM),
    ("darwin", False, MAC_USER), ("darwin", True, MAC_SYSTEM),
])
@pytest.mark.parametrize("browser", sorted(LINUX_USER))
def test_manifest_path_per_os_scope_and_browser(os_name, system, expected, browser):
    target = Target(platform(os_name), system=system)
    assert target.manifest_path(BROWSERS[browser]) == Path(expected[browser]) / MANIFEST_FILE
    assert MANIFEST_FILE == "com.whiteboard.host.json"


def test_linux_user_level_follows_xdg_config_home():
    # Chrome derives its user data dir (and so NativeMessagingHosts) from XDG_CONFIG_HOME.
    target = Target(platform("linux", XDG_CONFIG_HOME="/cfg"))
    assert target.manifest_path(BROWSERS["chrome"]) == Path("/cfg/google-chrome/NativeMessagingHosts") / MANIFEST_FILE
    assert target.manifest_path(BROWSERS["firefox"]) == Path(LINUX_USER["firefox"]) / MANIFEST_FILE


@pytest.mark.parametrize("browser", sorted(WINDOWS_KEYS))
@pytest.mark.parametrize("system, hive", [(False, "HKCU"), (True, "HKLM")])
def test_windows_registry_keys_and_hive(browser, system, hive):
    target = Target(platform("win32", LOCALAPPDATA="C:/Users/ada/AppData/Local", PROGRAMDATA="C:/ProgramData"),
                    system=system)
    assert target.registry_keys(BROWSERS[browser]) == [WINDOWS_KEYS[browser]]
    assert target.registry_hive == hive


def test_windows_one_manifest_file_per_scope_for_the_chrome_family_one_for_firefox():
    env = dict(LOCALAPPDATA="/L", PROGRAMDATA="/P")
    user, system = Target(platform("win32", **env)), Target(platform("win32", **env), system=True)
    paths = {user.manifest_path(b) for b in BROWSERS.values() if not b.firefox}
    assert paths == {Path("/data/whiteboard/NativeMessagingHosts") / MANIFEST_FILE}
    assert user.manifest_path(BROWSERS["firefox"]) == Path("/data/whiteboard/NativeMessagingHosts/firefox") / \
        MANIFEST_FILE
    assert system.manifest_path(BROWSERS["edge"]) == Path("/P/Whiteboard/NativeMessagingHosts") / MANIFEST_FILE
    assert user.launcher_path == Path("/data/whiteboard/bin/whiteboard-host.bat")
    assert system.launcher_path == Path("/P/Whiteboard/bin/whiteboard-host.bat")


@pytest.mark.parametrize("os_name, system, expected", [
    ("linux", False, "/data/whiteboard/bin/whiteboard-host"),
    ("linux", True, "/usr/local/lib/whiteboard/bin/whiteboard-host"),
    ("darwin", False, "/data/whiteboard/bin/whiteboard-host"),
    ("darwin", True, "/Library/Application Support/Whiteboard/bin/whiteboard-host"),
])
def test_launcher_location(os_name, system, expected):
    assert Target(platform(os_name), system=system).launcher_path == Path(expected)


@pytest.mark.parametrize("os_name, expected", [
    ("linux", "/home/ada/.config/BraveSoftware/Brave-Browser"),
    ("darwin", "/home/ada/Library/Application Support/BraveSoftware/Brave-Browser"),
    ("win32", "/L/BraveSoftware/Brave-Browser/User Data"),
])
def test_profile_dir_used_to_detect_a_browser(os_name, expected):
    assert Target(platform(os_name, LOCALAPPDATA="/L")).profile_dir(BROWSERS["brave"]) == Path(expected)


@pytest.mark.parametrize("os_name, expected", [
    ("linux", "/home/ada/.mozilla/firefox"),
    ("darwin", "/home/ada/Library/Application Support/Firefox"),
    ("win32", "/R/Mozilla/Firefox"),
])
def test_firefox_profile_dir_used_to_detect_it(os_name, expected):
    target = Target(platform(os_name, LOCALAPPDATA="/L", APPDATA="/R", XDG_CONFIG_HOME="/cfg"))
    assert target.profile_dir(BROWSERS["firefox"]) == Path(expected)


def test_system_root_prefixes_system_paths_only(tmp_path):
    p = Platform(os="linux", home=HOME, data_dir=Path("/data/whiteboard"), system_root=tmp_path)
    assert Target(p, system=True).manifest_path(BROWSERS["chrome"]) == \
        tmp_path / "etc/opt/chrome/native-messaging-hosts" / MANIFEST_FILE
    assert Target(p).manifest_path(BROWSERS["chrome"]) == Path(LINUX_USER["chrome"]) / MANIFEST_FILE


def test_unknown_os_is_refused():
    with pytest.raises(ValueError, match="unsupported OS"):
        Platform(os="plan9", home=HOME, data_dir=Path("/d"))
