"""Start the host the way a browser does and ping it over real pipes.

Like the browser: the manifest's path is executed directly, with the caller's origin as
argv[1] (Chrome) or the manifest's path and the add-on id as argv[1] and argv[2] (Firefox),
and the launcher's directory as the working directory; one framed `ping` goes in, one
framed reply must come back.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ..protocol.framing import HEADER, MAX_OUTBOUND, ShortRead, encode_frame, read_exact

PING_ID = "whiteboard-doctor"
STDERR_TAIL = 400


@dataclass(frozen=True)
class PingResult:
    ok: bool
    detail: str  # version and timing when ok; what went wrong otherwise
    refused: bool = False  # the host answered, but refused this origin


def ping_through(path: Path, origin: str, timeout: float = 10.0, *, firefox_manifest: Path | None = None
                 ) -> PingResult:
    started = time.monotonic()
    args = [str(firefox_manifest), origin] if firefox_manifest is not None else [origin]
    try:
        # Own process group, so a hung host and anything it started can be killed together.
        proc = subprocess.Popen([str(path), *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, cwd=str(path.parent), start_new_session=os.name != "nt")
    except OSError as exc:
        return PingResult(False, f"could not start it: {exc.strerror or exc}")
    outcome: dict = {}
    stderr_chunks: list[bytes] = []
    drain = threading.Thread(target=lambda: stderr_chunks.extend(iter(lambda: proc.stderr.read(4096), b"")),
                             daemon=True)
    drain.start()
    reader = threading.Thread(target=_read_reply, args=(proc, outcome), daemon=True)
    try:
        proc.stdin.write(encode_frame({"id": PING_ID, "type": "ping"}))
        proc.stdin.flush()
    except OSError:
        pass  # it already exited; the reader reports how
    reader.start()
    reader.join(timeout)
    timed_out = reader.is_alive()
    elapsed_ms = (time.monotonic() - started) * 1000
    _finish(proc)
    reader.join(1)
    drain.join(1)
    proc.stdout.close()
    proc.stderr.close()
    stderr = b"".join(stderr_chunks).decode("utf-8", "replace").strip()[-STDERR_TAIL:]
    if timed_out:
        return PingResult(False, f"no reply within {timeout:g} s")
    if "reply" not in outcome:
        code = proc.returncode
        why = outcome.get("error", "it closed its output")
        tail = f"; it said: {stderr}" if stderr else ""
        return PingResult(False, f"{why} before replying (exit code {code}){tail}")
    return _judge(outcome["reply"], elapsed_ms)


def _read_reply(proc: subprocess.Popen, outcome: dict) -> None:
    try:
        first = proc.stdout.read(HEADER.size)
        if not first:
            return  # closed its output without a word
        header = first + read_exact(proc.stdout, HEADER.size - len(first))
        (length,) = HEADER.unpack(header)
        if length > MAX_OUTBOUND:
            # Chrome would drop the port; most likely a print() to stdout, not a frame.
            outcome["error"] = f"it wrote to stdout something that is not a frame (header {header!r})"
            return
        body = read_exact(proc.stdout, length)
    except ShortRead:
        outcome["error"] = "it sent half a frame"
        return
    try:
        outcome["reply"] = json.loads(body)
    except ValueError:
        outcome["error"] = "its frame is not JSON"


def _judge(reply, elapsed_ms: float) -> PingResult:
    if not isinstance(reply, dict) or reply.get("id") != PING_ID:
        return PingResult(False, f"unexpected reply: {str(reply)[:200]}")
    if reply.get("ok"):
        return PingResult(True, f"version {reply.get('version')}, protocol {reply.get('protocol')}, "
                                f"{elapsed_ms:.0f} ms")
    error = reply.get("error") or {}
    return PingResult(False, f"it replied {error.get('code')}: {error.get('message')}",
                      refused=error.get("code") == "forbidden")


def _finish(proc: subprocess.Popen) -> None:
    """Close its input (the host exits on EOF within 2 s), then make sure it is gone."""
    try:
        proc.stdin.close()
    except OSError:
        pass
    try:
        proc.wait(3)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if os.name != "nt":
        # Whatever the launcher started and left behind (it should have exec'd) goes too.
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
