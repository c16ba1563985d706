"""Finding and starting a Chromium-family browser for the demo, in a throwaway profile.

Branded Google Chrome ignores --load-extension since version 137, so only Chromium
itself (and builds that keep the flag) can show the unpacked extension this way.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from pathlib import Path

CANDIDATES = ("chromium", "chromium-browser", "/usr/bin/chromium", "/snap/bin/chromium",
              "/Applications/Chromium.app/Contents/MacOS/Chromium")
# Keep the browser from calling home: with the resolver rules it could not anyway.
QUIET = ["--no-first-run", "--no-default-browser-check", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-default-apps", "--disable-domain-reliability",
         "--metrics-recording-only"]


class BrowserNotFound(Exception):
    pass


def find_chromium(explicit: str | None = None) -> str:
    for candidate in ([explicit] if explicit else [os.environ.get("WHITEBOARD_CHROMIUM"), *CANDIDATES]):
        if not candidate:
            continue
        path = candidate if os.path.isabs(candidate) else shutil.which(candidate)
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise BrowserNotFound("no Chromium found: install it (Debian/Ubuntu: apt-get install chromium; "
                          "macOS: brew install --cask chromium) or pass --browser PATH")


def chromium_args(profile: Path, extension: Path, resolver_rules: str, spki_hash: str, url: str,
                  headless: bool) -> list[str]:
    args = [f"--user-data-dir={profile}", f"--disable-extensions-except={extension}",
            f"--load-extension={extension}", f"--host-resolver-rules={resolver_rules}",
            f"--ignore-certificate-errors-spki-list={spki_hash}", "--window-size=1280,860", *QUIET]
    if headless:
        args += ["--headless", "--no-sandbox", "--remote-debugging-pipe"]
    elif getattr(os, "geteuid", lambda: 1)() == 0:
        args.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
    return [*args, url]


def start(binary: str, args: list[str], env: dict[str, str], log: Path, cdp_fds: tuple[int, int] | None = None
          ) -> subprocess.Popen:
    """Start the browser, its output going to `log`; with cdp_fds=(read_end, write_end)
    its DevTools pipe is fds 3 and 4."""
    out = log.open("ab")
    if cdp_fds is None:
        return subprocess.Popen([binary, *args], env=env, stdout=out, stderr=out)
    commands_in, events_out = cdp_fds

    def wire_pipe():
        # Move both out of the way first, so neither dup2 below can clobber the other.
        high_in, high_out = (fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (commands_in, events_out))
        os.dup2(high_in, 3)
        os.dup2(high_out, 4)

    # close_fds would close 3 and 4 after wire_pipe ran; Python's own fds are not inheritable anyway.
    return subprocess.Popen([binary, *args], env=env, stdout=out, stderr=out, close_fds=False, preexec_fn=wire_pipe)


def log_tail(log: Path, lines: int = 4) -> str:
    """The browser's last words, for an error message."""
    try:
        return "\n".join(log.read_text(errors="replace").strip().splitlines()[-lines:])
    except OSError:
        return ""
