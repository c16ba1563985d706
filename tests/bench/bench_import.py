"""Importing chat history (issue 30): a generated 20,000-turn export of each format
(ChatGPT, Claude, Gemini Takeout) through `hub.import_chats` on a fresh vault, end to end:
both passes over the file, the learned extractor, dedupe, the vault's transactions, and
the embedding of every memory found (as the host's indexer does after an import).

    python tests/bench/bench_import.py [import] [parsers] [--turns N] [--pad BYTES]

import: per format, user turns/s end to end, facts found per 1,000 turns, peak RSS of the
process, and on our own labelled set (data/import_planted.json, written for this and never
trained on): planted lasting facts found (a memory or a suggestion holds the keyword),
one-offs kept as memories, the assistant's planted words kept (must be 0).
parsers: the streaming JSON parsers compared on one generated ChatGPT file (each in its own
process): seconds to read every conversation and peak RSS.
--pad pads each assistant reply to BYTES (e.g. 15000: a ~300 MB conversations.json).
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PLANTED = json.loads((HERE / "data" / "import_planted.json").read_text(encoding="utf-8"))
REQUESTS = [
    "Write a Python function that sorts a list of {x} by length.", "What is the capital of {x}?",
    "Can you explain {x} in simple terms?", "Translate into French: where is the {x}?",
    "Give me five names for a {x} shop.", "How do I fix a {x} error in my build?",
    "Summarise the history of {x} in three sentences.", "Is {x} a good idea for a weekend project?",
    "I need a regex that matches {x} at the start of a line.", "Draft an email to my landlord about the {x}.",
    "Compare {x} and its main alternative.", "What does {x} mean in this context?",
    "Make this sentence sound more formal: the {x} is late again.", "List the pros and cons of {x}.",
]
TOPICS = ["Kubernetes", "sourdough", "Peru", "monads", "heat pumps", "the Roman empire", "TypeScript", "oat milk",
          "solar panels", "quantum tunnelling", "a leaking tap", "Rust lifetimes", "tax returns", "bonsai"]
PASTED = "Here is the log:\n```\n" + "\n".join(f"line {i}: ok" for i in range(12)) + "\n```\nWhat went wrong?"
MB = 1024 * 1024


def user_turns(total: int, rng: random.Random) -> list[str]:
    """`total` user turns: requests (some with code pasted), the planted lasting facts and
    one-offs each said once, alone or before a request."""
    turns = []
    for _ in range(total):
        turns.append(PASTED if rng.random() < 0.05 else rng.choice(REQUESTS).format(x=rng.choice(TOPICS)))
    for sentence, _ in PLANTED["lasting"] + PLANTED["one_off"]:
        i = rng.randrange(total)
        turns[i] = sentence if rng.random() < 0.5 else f"{sentence} {turns[i]}"
    return turns


def reply(rng: random.Random, pad: int) -> str:
    text = "Sure. Here is what I would do: start small, measure, then change one thing at a time."
    if rng.random() < 0.01:
        text = rng.choice(PLANTED["assistant"])[0] + " " + text
    return text + (" lorem" * (pad // 6) if pad else "")


def generate(fmt: str, path: Path, total: int, pad: int = 0, seed: int = 30) -> None:
    """Write an export of `fmt` with `total` user turns, one conversation at a time."""
    rng = random.Random(seed)
    turns = user_turns(total, rng)
    with open(path, "w", encoding="utf-8") as f:
        f.write("[")
        i, n = 0, 0
        while i < len(turns):
            size = 1 if fmt == "gemini" else rng.randint(2, 14)
            chunk, i = turns[i:i + size], i + size
            f.write(("," if n else "") + json.dumps(conversation(fmt, n, chunk, rng, pad), ensure_ascii=False))
            n += 1
        f.write("]")


def conversation(fmt: str, n: int, turns: list[str], rng: random.Random, pad: int) -> dict:
    when = 1_700_000_000 + n * 3600
    if fmt == "gemini":
        return {"header": "Gemini Apps", "title": "Prompted " + turns[0], "products": ["Gemini Apps"],
                "time": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(when)),
                "safeHtmlItem": [{"html": "<p>" + reply(rng, pad) + "</p>"}]}
    if fmt == "claude":
        messages = []
        for j, t in enumerate(turns):
            a = reply(rng, pad)
            messages += [{"uuid": f"{n}-{j}-h", "sender": "human", "text": t, "content": [{"type": "text", "text": t}]},
                         {"uuid": f"{n}-{j}-a", "sender": "assistant", "text": a,
                          "content": [{"type": "text", "text": a}]}]
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(when))
        return {"uuid": f"conv-{n}", "name": f"chat {n}", "created_at": stamp, "updated_at": stamp,
                "chat_messages": messages}
    mapping = {"root": {"id": "root", "message": None, "parent": None, "children": []}}
    parent = "root"
    for j, t in enumerate(turns):
        for role, text in (("user", t), ("assistant", reply(rng, pad))):
            node = f"{j}{role[0]}"
            mapping[parent]["children"].append(node)
            mapping[node] = {"id": node, "parent": parent, "children": [],
                             "message": {"id": node, "author": {"role": role}, "create_time": when + j,
                                         "content": {"content_type": "text", "parts": [text]}}}
            parent = node
    return {"title": f"chat {n}", "create_time": when, "update_time": when + 60, "id": f"conv-{n}",
            "current_node": parent, "mapping": mapping}


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# ---- in a child process: one measurement each -----------------------------------------------


def child_import(path: str) -> dict:
    from whiteboard.memory import hub
    from whiteboard.memory.service import MemoryService

    model, _ = hub.bundled_embedder()
    model.embed_queries(["warm up"])
    service = MemoryService()
    start = time.perf_counter()
    surveyed = hub.survey_chats(Path(path))
    summary = hub.import_chats(service, Path(path))
    texts = [m.text for m in service.list()]
    for i in range(0, len(texts), 16):  # as the indexer embeds an import's memories
        model.embed_passages(texts[i:i + 16])
    seconds = time.perf_counter() - start
    waiting = [s.text for s in service.suggestions()[0]]
    service.close()
    found = lambda key, pool: any(key.lower() in t.lower() for t in pool)  # noqa: E731
    return {"turns": surveyed.turns, "seconds": seconds, "rss": peak_rss_mb(), "memories": len(texts),
            "suggestions": len(waiting), "facts": summary.facts,
            "planted": sum(found(k, texts + waiting) for _, k in PLANTED["lasting"]),
            "planted_kept": sum(found(k, texts) for _, k in PLANTED["lasting"]),
            "one_off": sum(found(k, texts) for _, k in PLANTED["one_off"]),
            "assistant": sum(found(k, texts + waiting) for _, k in PLANTED["assistant"])}


def child_parse(parser: str, path: str) -> dict:
    start = time.perf_counter()
    n = 0
    with open(path, "rb") as f:
        if parser == "json.load":
            n = len(json.load(f))
        elif parser.startswith("ijson"):
            import ijson

            backend = ijson.get_backend(parser.split(" ")[1])
            n = sum(1 for _ in backend.items(f, "item", use_float=True))
        elif parser == "json-stream":
            import json_stream

            n = sum(1 for c in json_stream.load(f, persistent=False) for _ in [json_stream.to_standard_types(c)])
    return {"seconds": time.perf_counter() - start, "rss": peak_rss_mb(), "conversations": n}


def in_child(*args: str, env: dict | None = None) -> dict:
    done = subprocess.run([sys.executable, "-m", "bench.bench_import", "--child", *args], capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, cwd=HERE.parents[1])
    if done.returncode:
        raise RuntimeError(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str]) -> None:
    if argv[:1] == ["--child"]:
        result = child_import(argv[2]) if argv[1] == "import" else child_parse(argv[1], argv[2])
        print(json.dumps(result))
        return
    turns = int(argv[argv.index("--turns") + 1]) if "--turns" in argv else 20_000
    pad = int(argv[argv.index("--pad") + 1]) if "--pad" in argv else 0
    only = {a for a in argv if a in ("import", "parsers")} or {"import", "parsers"}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if "import" in only:
            print(f"| format | user turns | file MB | turns/s end to end | facts / 1,000 turns | peak RSS MB | "
                  f"planted found (of {len(PLANTED['lasting'])}) | kept at once | one-offs kept "
                  f"(of {len(PLANTED['one_off'])}) | assistant's kept |")
            print("|---|---|---|---|---|---|---|---|---|---|")
            for fmt in ("chatgpt", "claude", "gemini"):
                path = tmp / f"{fmt}.json"
                generate(fmt, path, turns, pad)
                env = {"WHITEBOARD_DATA_DIR": str(tmp / fmt / "data"), "WHITEBOARD_CONFIG_DIR": str(tmp / fmt / "cfg")}
                r = in_child("import", str(path), env=env)
                print(f"| {fmt} | {r['turns']:,} | {path.stat().st_size / MB:.0f} | {r['turns'] / r['seconds']:.0f} | "
                      f"{1000 * r['facts'] / r['turns']:.1f} | {r['rss']:.0f} | {r['planted']} | "
                      f"{r['planted_kept']} | {r['one_off']} | {r['assistant']} |", flush=True)
                path.unlink()
        if "parsers" in only:
            path = tmp / "parsers.json"
            generate("chatgpt", path, turns, pad)
            print(f"\nParsers, one ChatGPT conversations.json of {path.stat().st_size / MB:.0f} MB "
                  f"({turns:,} user turns):\n")
            print("| parser | seconds | peak RSS MB |")
            print("|---|---|---|")
            for parser in ("ijson yajl2_c", "ijson yajl2", "ijson python", "json-stream", "json.load"):
                try:
                    r = in_child(parser, str(path))
                except RuntimeError as exc:
                    print(f"| {parser} | failed: {str(exc).splitlines()[-1]} | |")
                    continue
                print(f"| {parser} | {r['seconds']:.1f} | {r['rss']:.0f} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
