"""A minimal Chrome DevTools Protocol client over --remote-debugging-pipe (fds 3/4).

Messages are JSON, each ended by a NUL byte. Enough for the demo's headless tour:
commands to the browser or to an attached page session, and waiting for events.
"""

from __future__ import annotations

import json
import os
import select
import time


class CdpError(Exception):
    pass


class CdpPipe:
    def __init__(self):
        self.to_browser_r, self.to_browser_w = os.pipe()
        self.from_browser_r, self.from_browser_w = os.pipe()
        self.next_id = 0
        self.buffer = b""
        self.events: list[dict] = []

    def child_fds(self) -> tuple[int, int]:
        """(the browser's command input, its output): become its fds 3 and 4."""
        return self.to_browser_r, self.from_browser_w

    def started(self) -> None:
        # The browser holds its ends now; ours must close so EOF is seen when it exits.
        os.close(self.to_browser_r)
        os.close(self.from_browser_w)

    def close(self) -> None:
        for fd in (self.to_browser_w, self.from_browser_r):
            try:
                os.close(fd)
            except OSError:
                pass

    def send(self, method: str, params: dict | None = None, session: str | None = None, timeout: float = 30) -> dict:
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser_w, json.dumps(message).encode() + b"\0")
        reply = self._wait(lambda m: m.get("id") == message["id"], timeout, method)
        if "error" in reply:
            raise CdpError(f"{method}: {reply['error'].get('message')}")
        return reply.get("result", {})

    def wait_event(self, method: str, timeout: float = 30, session: str | None = None) -> dict:
        for i, event in enumerate(self.events):
            if event.get("method") == method and (session is None or event.get("sessionId") == session):
                return self.events.pop(i)
        return self._wait(lambda m: m.get("method") == method and (session is None or m.get("sessionId") == session),
                          timeout, method)

    def _wait(self, match, timeout: float, what: str) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\0", 1)
                message = json.loads(raw)
                if match(message):
                    return message
                if "method" in message:
                    self.events.append(message)
            left = deadline - time.monotonic()
            if left <= 0:
                raise CdpError(f"no answer to {what} within {timeout:.0f} s")
            ready, _, _ = select.select([self.from_browser_r], [], [], left)
            if ready:
                chunk = os.read(self.from_browser_r, 1 << 16)
                if not chunk:
                    raise CdpError("the browser closed the DevTools pipe")
                self.buffer += chunk
