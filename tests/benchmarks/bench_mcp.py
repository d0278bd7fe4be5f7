"""Speed through the agent's door: ``memdesk mcp`` driven by the official SDK
client, against the Python API called directly, in the same run.

Builds a SQLite store of N memories (default 100,000; rows and synthetic
vectors as in ``bench_recall``), then for each door:

* ``recall`` on behalf of a user (their memories and turns), p50 / p99;
* ``remember`` of one new message (a write transaction through extraction
  and the gates), p50 / p99;

the Python API (``Memory.recall`` / ``Memory.remember`` in this process)
first, then the MCP server started as a subprocess over stdio, and prints the
protocol's overhead as the ratio of the two.

    python -m tests.benchmarks.bench_mcp
    python -m tests.benchmarks.bench_mcp --memories 20000 --calls 100
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from memdesk.core import Memory, Store
from memdesk.core.recall import Recaller, UseEmbedder

from .bench_recall import base_vectors, fill_store, synth

QUERIES = ["where do I live now", "预算多少", "what did we decide", "我对什么过敏",
           "when is the trip", "这周末有什么安排"]


def pct(values: list[float], p: float) -> float:
    return float(np.percentile(values, p)) * 1000


def message(i: int) -> list[dict]:
    return [{"role": "user", "content": f"Note {i}: I had green tea with Maya at the café",
             "time": f"2026-11-{1 + i // 1440 % 28:02d}T{i // 60 % 24:02d}:{i % 60:02d}:00+00:00"}]


def direct(db: Path, calls: int) -> dict[str, list[float]]:
    store = Store.open(db)
    memory = Memory(store, Recaller(store, index_dir=Path(f"{db}.recall")))
    try:
        memory.recall("warm up", user="u1")
        out: dict[str, list[float]] = {"recall": [], "remember": []}
        for i in range(calls):
            t = time.perf_counter()
            memory.recall(QUERIES[i % len(QUERIES)], user=f"u{i % 997}", k=10)
            out["recall"].append(time.perf_counter() - t)
        for i in range(calls):
            t = time.perf_counter()
            memory.remember(message(i), user="bench-direct")
            out["remember"].append(time.perf_counter() - t)
        return out
    finally:
        memory.close()


async def through_mcp(db: Path, calls: int) -> dict[str, list[float]]:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "memdesk.app.cli", "--db", str(db), "mcp"],
                                   env={**os.environ})
    out: dict[str, list[float]] = {"recall": [], "remember": []}
    async with Client(params) as client:
        await client.call_tool("recall", {"query": "warm up", "user": "u1"})
        for i in range(calls):
            t = time.perf_counter()
            r = await client.call_tool("recall", {"query": QUERIES[i % len(QUERIES)],
                                                  "user": f"u{i % 997}", "k": 10})
            out["recall"].append(time.perf_counter() - t)
            assert not r.is_error, r.content[0].text
        for i in range(calls):
            t = time.perf_counter()
            r = await client.call_tool("remember", {"messages": message(calls + i),
                                                    "user": "bench-mcp"})
            out["remember"].append(time.perf_counter() - t)
            assert not r.is_error, r.content[0].text
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--memories", type=int, default=100_000)
    ap.add_argument("--calls", type=int, default=200)
    args = ap.parse_args(argv)
    embedder = UseEmbedder()
    base, texts = base_vectors(embedder)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        started = time.perf_counter()
        fill_store(db, synth(base, args.memories, seed=1), texts, embedder)
        store = Store.open(db)
        Recaller(store, index_dir=Path(f"{db}.recall")).reindex(over="memories")
        store.close()
        print(f"{args.memories:,} memories filled and indexed in {time.perf_counter() - started:.0f} s "
              f"(load average {os.getloadavg()[0]:.1f})")
        api = direct(db, args.calls)
        door = asyncio.run(through_mcp(db, args.calls))
    print(f"{'call':<10} {'Python API p50 / p99':>22} {'MCP (stdio) p50 / p99':>24} {'ratio p50':>10}")
    for name in ("recall", "remember"):
        a, m = api[name], door[name]
        print(f"{name:<10} {pct(a, 50):9.2f} / {pct(a, 99):7.2f} ms {pct(m, 50):10.2f} / "
              f"{pct(m, 99):7.2f} ms {pct(m, 50) / pct(a, 50):9.2f}x")
    print(f"(load average {os.getloadavg()[0]:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
