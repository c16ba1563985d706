"""`whiteboard demo`: see Whiteboard work in one command, without touching your browser.

Starts Chromium in a throwaway profile with the extension loaded and the host registered
for that profile only, on a saved chatgpt.com page served from this machine.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import click

from ..config import EXTENSION_ID
from . import main
from .extension import bundled_extension

DEMO_URL = "https://chatgpt.com/"


@main.command()
@click.option("--headless", is_flag=True, help="No window: run the tour with DevTools and take screenshots.")
@click.option("--screenshot", type=click.Path(dir_okay=False, path_type=Path),
              help="With --headless: save the page after an injected send here (PNG).")
@click.option("--popup-screenshot", type=click.Path(dir_okay=False, path_type=Path),
              help="With --headless: also save the popup for that tab here (PNG).")
@click.option("--browser", "browser_path", help="Chromium binary (default: WHITEBOARD_CHROMIUM or the first found).")
@click.option("--keep", is_flag=True, help="Keep the throwaway profile directory and print where it is.")
def demo(headless: bool, screenshot: Path | None, popup_screenshot: Path | None, browser_path: str | None,
         keep: bool) -> None:
    """Chromium with Whiteboard on a local demo chat page (nothing is fetched from the internet)."""
    from ..demo.browser import BrowserNotFound, chromium_args, find_chromium, start
    from ..demo.server import DemoServer
    from ..install import register_for_profile

    if (screenshot or popup_screenshot) and not headless:
        raise click.UsageError("--screenshot and --popup-screenshot go with --headless")
    if headless and not screenshot:
        raise click.UsageError("--headless needs --screenshot PATH (there is no window to look at)")
    if not headless and sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or
                                                                 os.environ.get("WAYLAND_DISPLAY")):
        raise click.UsageError("no display here: use --headless --screenshot PATH")
    try:
        binary = find_chromium(browser_path)
    except BrowserNotFound as exc:
        raise click.ClickException(str(exc)) from None

    root = Path(tempfile.mkdtemp(prefix="whiteboard-demo-"))
    try:
        profile = root / "profile"
        profile.mkdir()
        # The host keeps anything it would write (a vault, settings) inside the throwaway dir.
        register_for_profile(profile, EXTENSION_ID, env={"WHITEBOARD_CONFIG_DIR": str(root / "config"),
                                                         "WHITEBOARD_DATA_DIR": str(root / "data")})
        server = DemoServer(root).start()
        args = chromium_args(profile, bundled_extension(), server.resolver_rules(), server.certificate.spki_hash,
                             DEMO_URL, headless)
        env = {**os.environ, "HOME": os.environ.get("HOME", str(root))}
        try:
            if headless:
                _tour(binary, args, env, root / "browser.log", screenshot, popup_screenshot)
            else:
                click.echo(f"Whiteboard demo: {binary} with the extension ({EXTENSION_ID}) on {DEMO_URL} "
                           "(served from this machine). Close the window to end the demo.")
                browser = start(binary, args, env, root / "browser.log")
                try:
                    browser.wait()
                except KeyboardInterrupt:
                    browser.terminate()
                    browser.wait(10)
        finally:
            server.stop()
    finally:
        if keep:
            click.echo(f"profile kept in {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


def _tour(binary: str, args: list[str], env: dict, log: Path, screenshot: Path, popup_screenshot: Path | None
          ) -> None:
    from ..demo.browser import log_tail, start
    from ..demo.cdp import CdpError, CdpPipe
    from ..demo.tour import Tour

    cdp = CdpPipe()
    browser = start(binary, args, env, log, cdp.child_fds())
    cdp.started()
    try:
        tour = Tour(cdp)
        tour.attach(DEMO_URL)
        sent = tour.run(screenshot)
        click.echo(f"injected send: {screenshot}")
        click.echo("the site received:\n" + "\n".join(f"  | {line}" for line in sent.splitlines()))
        if popup_screenshot:
            tour.popup(popup_screenshot)
            click.echo(f"popup: {popup_screenshot}")
    except (CdpError, OSError) as exc:
        said = log_tail(log)
        raise click.ClickException(f"the demo did not complete: {exc}"
                                   + (f"\nthe browser said:\n{said}" if said else "")) from None
    finally:
        try:
            cdp.send("Browser.close", timeout=5)
        except (CdpError, OSError):
            pass
        cdp.close()
        try:
            browser.wait(10)
        except subprocess.TimeoutExpired:
            browser.kill()
            browser.wait()
