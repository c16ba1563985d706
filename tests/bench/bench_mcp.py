"""`whiteboard mcp` as a desktop app meets it (issue 31). Run: python tests/bench/run.py mcp

The real server process over real pipes, driven by the MCP SDK's client, on a vault of
10,000 memories with their meanings stored (random unit vectors under the bundled model's
id, as in bench_send: the values do not change the timings; every query is embedded by
the real model). Measured: the process start to `initialize`'s answer (Python, the SDK's
import, the handshake), the first search (the vault opened, the model loaded, the stored
meanings read) and warm searches (each a new request). Target: warm searches well within 0.5 s.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from bench.bench_memory import Corpus
from bench.bench_send import fill_vault, percentile

SIZE = 10_000
WARM = 30


async def measure(env: dict) -> dict:
    corpus = Corpus(seed=11)
    queries = [corpus.draft() for _ in range(WARM + 1)]  # drafts in the memories' vocabulary
    params = StdioServerParameters(command=sys.executable, args=["-m", "whiteboard.mcp"], env=env)
    started = time.perf_counter()
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, client_info=types.Implementation(name="bench", version="1"),
                                     read_timeout_seconds=300) as session:
                await session.initialize()
                ready = time.perf_counter() - started
                t = time.perf_counter()
                await session.send_ping()
                ping = time.perf_counter() - t
                t = time.perf_counter()
                first = await session.call_tool("search_memories", {"query": queries[0]})
                first_s = time.perf_counter() - t
                warm, methods = [], set()
                for i in range(WARM):
                    t = time.perf_counter()
                    result = await session.call_tool("search_memories", {"query": queries[i + 1]})
                    warm.append(time.perf_counter() - t)
                    methods.add(result.content[0].text.split(" found (by ", 1)[-1].split(")", 1)[0])
    return {"initialize": ready, "ping": ping, "first": first_s, "first_text": first.content[0].text.splitlines()[0],
            "warm": warm, "methods": methods}


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t = time.perf_counter()
        fill_vault(root, SIZE)
        print(f"{SIZE:,} memories and their stored meanings written in {time.perf_counter() - t:.0f} s\n")
        env = {**os.environ, "WHITEBOARD_DATA_DIR": str(root / "wb-data"),
               "WHITEBOARD_CONFIG_DIR": str(root / "wb-config")}
        subprocess.run([sys.executable, "-c", "from whiteboard.cli import main; main()", "mcp", "enable"], env=env,
                       check=True, capture_output=True)
        r = anyio.run(measure, env)
    warm_ms = [s * 1000 for s in r["warm"]]
    print("| step | time |\n|---|---|")
    print(f"| process start to `initialize` answered | {r['initialize'] * 1000:.0f} ms |")
    print(f"| `ping` after it | {r['ping'] * 1000:.1f} ms |")
    print(f"| first search (vault opened, model loaded, meanings read) | {r['first']:.1f} s |")
    print(f"| warm search p50 / p95 / max ({WARM}) | {statistics.median(warm_ms):.0f} / "
          f"{percentile(warm_ms, 95):.0f} / {max(warm_ms):.0f} ms |")
    print(f"\nFirst search: {r['first_text']}; warm searches by: {', '.join(sorted(r['methods']))}")


if __name__ == "__main__":
    main()
