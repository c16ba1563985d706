"""The draft rewritten by the configured model (issue 29 item 5): what it costs a send.

Run: python tests/bench/run.py rewrite   (`-- --sends N`, default 200; `--size N`, default 10,000)

A vault of N memories (random stored vectors, as the scale benchmark's), the bundled model,
and the suite's loopback OpenAI-compatible server standing in for the user's endpoint. Each
send is of a new tab whose draft was offered as typing paused (chat.draft) and whose meaning
is ready, so the send's own embedding is not what varies. The modes take turns, in rounds of
a quarter of the drafts each. The send's recall (for_send: pinned
and recalled memories, the block) is timed:
- off: the switch off (the default), the offline path;
- on, not ready: the switch on, the endpoint silent (the rewrite still under way at Enter):
  what every send gets when the model is slower than the user, the fallback;
- on, ready: the rewrite came back (the server answers at once with four kinds), so recall
  searches with its phrases too.
Also the host's own part of a rewrite, from the offer to the rewrite held (loopback HTTP,
parsing, embedding the phrases), with a server that answers at once. The rewrite's quality is
not measured: no real model is reachable here, and a scripted answer would measure the script.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from bench.bench_memory import Corpus, _wait_ready, percentile
from support.fake_openai import FakeOpenAI, hang
from whiteboard.llm.client import ChatClient
from whiteboard.llm.endpoint import Endpoint
from whiteboard.memory.meaning import rewrite
from whiteboard.memory.meaning.embedder import local_embedder
from whiteboard.memory.model import Memory, new_memory_id
from whiteboard.memory.service import MemoryService
from whiteboard.sites import SiteStore
from whiteboard.tokens import TokenCounter

ROUNDS = 4
KINDS = json.dumps({"kinds": ["diet", "allergies", "pregnancy", "food preferences"]})


class Layer:
    """The host's model layer as the rewrite sees it, pointed at the loopback server."""

    def __init__(self, base_url: str):
        self.base_url = base_url

    def configured(self) -> bool:
        return True

    def client(self, timeouts=None, retries=2, max_reply_bytes=None):
        return ChatClient(Endpoint(self.base_url, "m"), timeouts, retries=retries, max_reply_bytes=max_reply_bytes)


def wait(predicate, timeout: float = 30.0) -> float:
    started = time.perf_counter()
    while not predicate():
        if time.perf_counter() - started > timeout:
            raise RuntimeError("timed out")
        time.sleep(0.0005)
    return time.perf_counter() - started


def vault(tmp: Path, size: int, embedder) -> tuple[Path, Path]:
    paths = (tmp / "data" / "memories.db", tmp / "config" / "secret.key")
    writer = MemoryService(*paths, sites=SiteStore(tmp / "config"))
    corpus, now = Corpus(), time.time()
    texts = corpus.distinct_memory_texts(size)
    for start in range(0, size, 5000):
        writer.store([Memory(new_memory_id(), "context", t, now, now) for t in texts[start:start + 5000]])
    rng = np.random.default_rng(size)
    items = [(m.id, m.rev, v / np.linalg.norm(v))
             for m, v in zip(writer.index.memories.values(), rng.standard_normal((size, embedder.dim)))]
    for start in range(0, size, 5000):
        writer.vault().put_vectors(embedder.model_id, items[start:start + 5000])
    writer.close()
    return paths


def sends(service, tokens, drafts: list[str], mode: str, tag: str) -> tuple[list[float], list[float]]:
    """(send ms, rewrite-held ms) for each draft, each of its own tab."""
    meanings = service.meanings
    model_id = meanings.embedder.model_id
    took, held = [], []
    for i, draft in enumerate(drafts):
        key = f"chatgpt.com:{tag}{i}"
        offered = time.perf_counter()
        service.offer_draft(key, draft)
        text = draft[:300]
        if mode == "ready":
            wait(lambda k=key, t=text: meanings.rewrites.lookup(k, t, model_id).vector is not None)
            held.append((time.perf_counter() - offered) * 1000)
        wait(lambda k=key, t=text: meanings.drafts.lookup(k, t, model_id).vector is not None)
        started = time.perf_counter()
        service.for_send(tokens, draft, key=key)
        took.append((time.perf_counter() - started) * 1000)
        service.forget_draft(key)
    return took, held


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sends", type=int, default=200)
    parser.add_argument("--size", type=int, default=10_000)
    args = parser.parse_args()
    embedder = local_embedder()
    if embedder is None:
        print("no bundled model here: nothing to measure")
        return 1
    tokens = TokenCounter().load_now()
    corpus = Corpus(seed=11)
    drafts = [corpus.draft() for _ in range(args.sends)]
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAI() as fake:
        tmp = Path(tmp)
        paths = vault(tmp, args.size, embedder)
        service = MemoryService(*paths, sites=SiteStore(tmp / "config"), embedder=lambda: embedder)
        assert service.ready()
        _wait_ready(service)
        service.rewrite_model = rewrite.model_from(Layer(fake.base_url), threading.Event())
        sends(service, tokens, drafts[:20], "off", "warm")  # the first sends of a process are slower
        fake.chat_answer = KINDS
        modes = {"off": "off", "silent": "on, not ready (endpoint silent)", "ready": "on, ready"}
        took: dict[str, list[float]] = {mode: [] for mode in modes}
        held: list[float] = []
        # In rounds, each mode a share of the drafts in turn, so that the machine's other work
        # weighs on all three alike.
        share = max(1, len(drafts) // ROUNDS)
        for n, start in enumerate(range(0, len(drafts), share)):
            for mode in modes:
                service.settings.update(rewrite_drafts=mode != "off")
                fake.unscript()
                if mode == "silent":
                    fake.script(*(hang(6) for _ in range(share)))
                times, rewrites = sends(service, tokens, drafts[start:start + share], mode, f"{mode}{n}-")
                took[mode] += times
                held += rewrites
                # The silent endpoint's last request ends at its time limit before the next mode.
                wait(lambda: service.meanings.rewrites._running is None, timeout=30)
        rows = [(modes[mode], took[mode], held) for mode in modes]
        service.close()
    print(f"{args.size:,} memories, {args.sends} sends each (in {ROUNDS} rounds), the draft's meaning ready at Enter\n")
    print("| send's recall | p50 ms | p95 ms | p99 ms | max ms |")
    print("|---|---|---|---|---|")
    for name, took, _ in rows:
        print(f"| {name} | {statistics.median(took):.1f} | {percentile(took, 95):.1f} | {percentile(took, 99):.1f} "
              f"| {max(took):.1f} |")
    held = rows[-1][2]
    print(f"\nrewrite held after the offer (server answering at once): p50 {statistics.median(held):.1f} ms, "
          f"p95 {percentile(held, 95):.1f} ms, p99 {percentile(held, 99):.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
