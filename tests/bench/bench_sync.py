"""Sync (issue 33): N new memories from one computer reach another in one exchange, and a
history of edits compacts to a file close to the encrypted vault's size.
Run: python tests/bench/run.py sync [-- 1000 10000]  (WB_BENCH_SYNC_SIZES is the same list).

For each N: computer A stores N memories, exchanges (writes its change file); computer B
exchanges once and holds them all. Printed: A's and B's exchange seconds, the change file's
size, B's vault size, and after a compaction (every memory edited twice, then a snapshot)
the size of A's change file against A's vault file. Real vaults, real encryption, one folder.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from whiteboard.memory.model import Memory, new_memory_id
from whiteboard.memory.service import MemoryService
from whiteboard.memory.sync import exchange, passphrase
from whiteboard.memory.sync.exchange import Sync
from whiteboard.sites import SiteStore

PASSPHRASE = "correct horse battery"


def computer(root: Path, name: str) -> tuple[MemoryService, Sync]:
    (root / name).mkdir()
    service = MemoryService(root / name / "memories.db", root / name / "secret.key",
                            sites=SiteStore(root / name / "config"))
    return service, Sync(service)


def run(n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = root / "Sync"
        folder.mkdir()
        a, sync_a = computer(root, "a")
        b, sync_b = computer(root, "b")
        sync_a.enable(folder, PASSPHRASE, "a")
        sync_b.join(folder, PASSPHRASE, "b")
        now = time.time()
        a.store([Memory(id=new_memory_id(), type="context", created_at=now, updated_at=now,
                        text=f"Knows fact number {i} about the garden and the bicycle") for i in range(n)])
        started = time.perf_counter()
        sync_a.exchange()
        sent = time.perf_counter() - started
        started = time.perf_counter()
        outcome = sync_b.exchange()
        received = time.perf_counter() - started
        assert len(b.list()) == n and outcome.arrived == n
        changes = sum(p.stat().st_size for p in folder.glob("*.wbsync"))
        for round_ in range(2):
            with a.batch():  # one transaction: N fsyncs would time the disk, not sync
                for m in a.list():
                    a.update(m.id, m.text + f" (edit {round_})")
            sync_a.exchange()
        history = sum(p.stat().st_size for p in folder.glob(f"{sync_a.status()['device']}-*.wbsync"))
        exchange.ROTATE_BYTES = 0  # compact now
        a.add("Prefers tea", "preference")
        sync_a.exchange()
        compacted = sum(p.stat().st_size for p in folder.glob(f"{sync_a.status()['device']}-*.wbsync"))
        a.close()
        b.close()
        vault = (root / "a" / "memories.db").stat().st_size
        print(f"| {n:>7,} | {sent:6.2f} | {received:6.2f} | {changes / 1e6:7.2f} | {history / 1e6:7.2f} "
              f"| {compacted / 1e6:7.2f} | {vault / 1e6:7.2f} |", flush=True)
        exchange.ROTATE_BYTES = 4 << 20


def main(argv: list[str]) -> None:
    sizes = [int(s) for s in (argv or os.environ.get("WB_BENCH_SYNC_SIZES", "1000,10000").split(","))]
    print(f"scrypt N={passphrase.SCRYPT['n']} (once per enable/join)")
    print("| memories | A sends s | B applies s | first file MB | after 2 edits each MB | compacted MB | "
          "A's vault MB |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n in sizes:
        run(n)


if __name__ == "__main__":
    main([a for arg in sys.argv[1:] for a in arg.split(",")])
