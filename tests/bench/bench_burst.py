"""A burst of blocking requests over real pipes (issue 12). Run: python tests/bench/run.py burst

10,000 pipelined `memory.add` (each a vault write) into a fresh, isolated host: peak host
threads and RSS while they are answered, how many were stored and how many answered
`busy`, and how long a ping sent behind the burst waits for its reply.
"""

from __future__ import annotations

import json
import struct
import tempfile
import threading
import time
from pathlib import Path

from support.host import HostProcess, isolated_env

COUNT = 10_000


def status(pid: int) -> tuple[int, int]:
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
    return int(fields["Threads"]), int(fields["VmRSS"].split()[0]) // 1024


def bench_burst() -> dict:
    with tempfile.TemporaryDirectory() as root, HostProcess(env=isolated_env(Path(root))) as host:
        assert host.request("memory.add", text="warm the vault up", memory_type="context")["ok"]
        base_threads, base_rss = status(host.proc.pid)
        peak = [base_threads, base_rss]
        stop = threading.Event()

        def watch() -> None:
            while not stop.is_set():
                threads, rss = status(host.proc.pid)
                peak[0], peak[1] = max(peak[0], threads), max(peak[1], rss)
                time.sleep(0.005)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        bodies = [json.dumps({"id": i, "type": "memory.add", "text": f"fact number {i} about the build",
                              "memory_type": "context"}).encode() for i in range(COUNT)]
        bodies.append(json.dumps({"id": "ping", "type": "ping"}).encode())
        payload = b"".join(struct.pack("<I", len(b)) + b for b in bodies)
        start = time.perf_counter()
        threading.Thread(target=lambda: (host.proc.stdin.write(payload), host.proc.stdin.flush()),
                         daemon=True).start()
        stored = busy = 0
        ping_at = None
        for _ in range(COUNT + 1):
            reply = host.recv(timeout=300)
            if reply["id"] == "ping":
                ping_at = time.perf_counter() - start
            elif reply["ok"]:
                stored += 1
            elif reply["error"].get("reason") == "busy":
                busy += 1
        took = time.perf_counter() - start
        stop.set()
        watcher.join()
    return {"threads": (base_threads, peak[0]), "rss": (base_rss, peak[1]), "stored": stored, "busy": busy,
            "took": took, "ping_at": ping_at}


def main() -> None:
    r = bench_burst()
    rows = [
        ("host threads before / peak", f"{r['threads'][0]} / {r['threads'][1]}", "bounded (pool of 8)"),
        ("host RSS before / peak", f"{r['rss'][0]} / {r['rss'][1]} MB", ""),
        ("stored / answered busy", f"{r['stored']:,} / {r['busy']:,}", "every request answered"),
        ("all 10,001 replies", f"{r['took']:.1f} s", ""),
        ("ping sent behind the burst, answered after", f"{r['ping_at']:.2f} s", ""),
    ]
    print(f"| burst of {COUNT:,} pipelined memory.add | measured | target |\n|---|---|---|")
    for name, value, target in rows:
        print(f"| {name} | {value} | {target} |")


if __name__ == "__main__":
    main()
