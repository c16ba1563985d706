"""The host's sync: a daemon thread that exchanges with the folder when something changed
there or in the vault. Never on a request's path: a send waits at most MEMORY_WAIT for the
service while an exchange writes, then goes without memories (service.turn).

Polling is cheap: a listing of the folder (names, sizes, times) and two numbers from
SQLite (another process's commit, this connection's changes) are compared with those after
the last exchange; only a difference costs an exchange. After an exchange that took t
seconds the thread waits at least DUTY * t, so sync never takes more than a tenth of a core.
"""

from __future__ import annotations

import logging
import os
import threading
import time

from ...config import SYNC_SECONDS_RANGE, SYNC_SECONDS_VARIABLE, number_from_env
from ...protocol.errors import WhiteboardError
from .exchange import Sync

log = logging.getLogger("whiteboard.memory")
INTERVAL_ENV = SYNC_SECONDS_VARIABLE
INTERVAL = 30.0
DUTY = 10  # wait at least this many times an exchange's duration before the next one


def interval() -> float:
    """WHITEBOARD_SYNC_SECONDS (the host's start refuses one out of range, config.py); one
    out of range here anyway (the variable set under a running host's feet?) is logged and
    the default used: never a wait that overflows and ends the thread without a word."""
    raw = os.environ.get(INTERVAL_ENV)
    if not raw:
        return INTERVAL
    try:
        return float(number_from_env(INTERVAL_ENV, raw, *SYNC_SECONDS_RANGE))
    except ValueError as exc:
        log.warning("sync: %s; using %g", exc, INTERVAL)
        return INTERVAL


class SyncPoller:
    def __init__(self, service, stopping: threading.Event):
        self.sync = Sync(service)
        self.service, self.stopping = service, stopping
        self.seen = None
        self.thread = threading.Thread(target=self._run, name="whiteboard-sync", daemon=True)

    def start(self) -> SyncPoller:
        self.thread.start()
        return self

    def _run(self) -> None:
        pause = interval()
        while not self.stopping.wait(pause):
            pause = interval()
            try:
                signature = self._signature()
                if signature is None or signature == self.seen:
                    continue
                started = time.monotonic()
                outcome = self.sync.exchange()
                pause = max(pause, DUTY * (time.monotonic() - started))
                self.seen = self._signature()
                if outcome.arrived:
                    log.info("sync: %d memories changed by other computers", outcome.arrived)
            except WhiteboardError as exc:
                log.warning("sync: %s", type(exc).__name__)  # the status names the problem, a log line never content
            except Exception as exc:  # noqa: BLE001 - a bug here must not stop the host
                log.error("sync failed: %s", type(exc).__name__)

    def _signature(self) -> tuple | None:
        """What an exchange would look at, cheaply; None when sync is off (or no vault)."""
        vault = self.service.vault()
        config = vault.sync_config() if vault is not None else None
        if config is None:
            return None
        try:
            # Never following a link: one to nowhere (the folder's entries come from other
            # devices) would fail the whole listing and hide every change in the folder.
            listing = tuple(sorted((e.name, e.stat(follow_symlinks=False).st_size,
                                    e.stat(follow_symlinks=False).st_mtime_ns)
                                   for e in os.scandir(config["folder"])))
        except OSError:
            listing = None
        return listing, vault.changes()
