"""A small WebDriver BiDi client: Firefox's own remote protocol, over one websocket.

Firefox started with `--remote-debugging-port=N` serves BiDi at ws://127.0.0.1:N/session;
no driver (geckodriver) and nothing downloaded. Commands are JSON {id, method, params}
answered by {id, type: success|error}; events come without an id and go to the handlers
subscribed for their method. Why this and not a library: tests/README.md, "Firefox".
"""

from __future__ import annotations

import itertools
import json
import queue
import threading
from collections.abc import Callable

from websockets.exceptions import WebSocketException
from websockets.sync.client import connect


class BidiError(Exception):
    def __init__(self, method: str, reply: dict):
        self.error = reply.get("error", "")
        super().__init__(f"{method}: {self.error}: {reply.get('message', '')}")


class Bidi:
    def __init__(self, url: str, timeout: float = 30.0):
        # websockets wants its sync connection used as a context manager: entered here, left in close().
        self._connection = connect(url, max_size=256 * 1024 * 1024, open_timeout=timeout, compression=None)
        self.ws = self._connection.__enter__()
        self.timeout = timeout
        self._ids = itertools.count(1)
        self._pending: dict[int, queue.Queue] = {}
        self._lock = threading.Lock()
        self._handlers: dict[str, list[Callable[[dict], None]]] = {}
        self._reader = threading.Thread(target=self._read, name="bidi-reader", daemon=True)
        self._reader.start()

    def on(self, method: str, handler: Callable[[dict], None]) -> None:
        """Call `handler(params)` for each `method` event, on a thread of its own per event so
        a handler may itself send commands."""
        self._handlers.setdefault(method, []).append(handler)

    def _read(self) -> None:
        try:
            for raw in self.ws:
                message = json.loads(raw)
                if message.get("type") in ("success", "error") and "id" in message:
                    with self._lock:
                        waiter = self._pending.pop(message["id"], None)
                    if waiter is not None:
                        waiter.put(message)
                    continue
                for handler in self._handlers.get(message.get("method", ""), []):
                    threading.Thread(target=handler, args=(message.get("params", {}),), daemon=True).start()
        except (WebSocketException, OSError) as exc:  # the socket closed: fail whoever still waits
            with self._lock:
                waiters, self._pending = list(self._pending.values()), {}
            for waiter in waiters:
                waiter.put({"type": "error", "error": "connection closed", "message": str(exc)})

    def send(self, method: str, params: dict | None = None, timeout: float | None = None) -> dict:
        waiter: queue.Queue = queue.Queue()
        with self._lock:
            command_id = next(self._ids)
            self._pending[command_id] = waiter
        self.ws.send(json.dumps({"id": command_id, "method": method, "params": params or {}}))
        try:
            reply = waiter.get(timeout=timeout or self.timeout)
        except queue.Empty:
            raise TimeoutError(f"{method}: no reply within {timeout or self.timeout:g} s") from None
        if reply["type"] == "error":
            raise BidiError(method, reply)
        return reply["result"]

    def close(self) -> None:
        self._connection.__exit__(None, None, None)
