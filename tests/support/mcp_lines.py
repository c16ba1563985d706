"""A plain MCP client for tests: the real `whiteboard mcp` process (python -m whiteboard.mcp)
and one JSON-RPC message a line on its stdin and stdout, as any MCP client speaks it."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time


class LineClient:
    """A plain MCP client: one JSON-RPC message a line on the server's stdin and stdout."""

    def __init__(self, env: dict):
        self.proc = subprocess.Popen([sys.executable, "-m", "whiteboard.mcp"], env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self._buffer = b""

    def send(self, raw: bytes | dict) -> None:
        self.proc.stdin.write(raw if isinstance(raw, bytes) else json.dumps(raw).encode() + b"\n")
        self.proc.stdin.flush()

    def receive(self, timeout: float = 60) -> dict:
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            assert left > 0, "no reply in time"
            if select.select([self.proc.stdout], [], [], left)[0]:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                assert chunk, f"the server closed stdout: {self.proc.stderr.read().decode()[-2000:]}"
                self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def call(self, request_id, method: str, params: dict | None = None, timeout: float = 60) -> dict:
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, **({"params": params} if params else {})})
        reply = self.receive(timeout)
        assert reply.get("id") == request_id, reply
        return reply

    def initialize(self) -> dict:
        reply = self.call(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                            "clientInfo": {"name": "line client", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return reply

    def tool(self, request_id, name: str, arguments: dict, timeout: float = 60) -> dict:
        return self.call(request_id, "tools/call", {"name": name, "arguments": arguments}, timeout)

    def close(self, timeout: float = 15) -> tuple[int, str]:
        self.proc.stdin.close()
        code = self.proc.wait(timeout)
        return code, self.proc.stderr.read().decode()
