"""A native host for the end-to-end tests that speaks another protocol version.

Registered in a test profile in place of the launcher (test_version_mismatch.py), it starts
the real host and relays every frame both ways unchanged, except the replies to `ping`,
whose `protocol` and `version` it sets to what the file named by argv[1] says
({"protocol": N, "version": "..."}), read once at start. So the extension meets a host
that is older or newer than it, while every request still reaches a real host.

    python protocol_proxy.py REPORT_FILE chrome-extension://<id>/ [parent window]
"""

import json
import struct
import subprocess
import sys
import threading

HEADER = struct.Struct("=I")  # native messaging: a 32-bit length in native byte order


def read_frame(stream) -> bytes | None:
    header = stream.read(HEADER.size)
    if len(header) < HEADER.size:
        return None
    body = stream.read(HEADER.unpack(header)[0])
    return body if len(body) == HEADER.unpack(header)[0] else None


def write_frame(stream, body: bytes) -> None:
    stream.write(HEADER.pack(len(body)) + body)
    stream.flush()


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as f:
        report = json.load(f)
    host = subprocess.Popen([sys.executable, "-P", "-m", "whiteboard.server.main", *sys.argv[2:]],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    pings: set[str] = set()  # ids of the pings sent, as JSON

    def to_host() -> None:
        while (body := read_frame(sys.stdin.buffer)) is not None:
            try:
                message = json.loads(body)
            except ValueError:
                message = None
            if isinstance(message, dict) and message.get("type") == "ping":
                pings.add(json.dumps(message.get("id")))
            write_frame(host.stdin, body)
        host.stdin.close()  # the browser closed the port: the host ends as it would

    threading.Thread(target=to_host, daemon=True).start()
    while (body := read_frame(host.stdout)) is not None:
        reply = json.loads(body)
        if isinstance(reply, dict) and reply.get("ok") and json.dumps(reply.get("id")) in pings:
            reply.update(protocol=report["protocol"], version=report["version"])
            body = json.dumps(reply).encode()
        write_frame(sys.stdout.buffer, body)
    return host.wait()


if __name__ == "__main__":
    sys.exit(main())
