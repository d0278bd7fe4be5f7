"""Embedding throughput, and turns per second through ingest *with* embeddings.

Recall embeds memories with USE and raw turns with e5 (docs/DESIGN.md §4.2).
This prints, in one run, for both embedders on the same texts (the turns of
the English and Chinese development conversations):

* sentences/s when embedding in batches of 256 (what ``reindex`` and the
  first recall after an ingest do), and the ratio e5 / USE;
* one query's embedding, p50 / p99;
* turns/s of ``ingest`` alone, and of ``ingest`` followed by embedding every
  new turn and memory (``Recaller.reindex``), so what an agent's store pays
  for vectors is visible next to the ingest figure.

    python -m tests.benchmarks.bench_embed
    python -m tests.benchmarks.bench_embed --texts 512     # a shorter run
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import numpy as np
from memdesk import ManualClock, Store
from memdesk.recall import Recaller, make_embedder

ROOT = Path(__file__).resolve().parents[2]
SETS = [ROOT / "tests" / "sets" / "recall_dev" / name / "conversations.jsonl" for name in ("en", "zh")]
CLOCK = datetime.fromisoformat("2026-12-01T00:00:00+00:00")


def texts(limit: int) -> list[str]:
    out: list[str] = []
    for path in SETS:
        out += [json.loads(line)["text"] for line in path.read_text(encoding="utf-8").splitlines()
                if line.strip()]
    return out[:limit]


def throughput(spec: str, sample: list[str]) -> dict[str, float]:
    embedder = make_embedder(spec)
    embedder.embed(["warm up"])
    started = time.perf_counter()
    for s in range(0, len(sample), 256):
        embedder.embed(sample[s:s + 256])
    per_s = len(sample) / (time.perf_counter() - started)
    times = []
    for text in sample[:100]:
        t = time.perf_counter()
        embedder.embed([text[:80]], query=True)
        times.append(time.perf_counter() - t)
    return {"sentences_per_s": per_s, "query_p50_ms": float(np.percentile(times, 50)) * 1000,
            "query_p99_ms": float(np.percentile(times, 99)) * 1000}


def ingest_with_vectors(path: Path) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open(Path(tmp) / "b.db", clock=ManualClock(CLOCK))
        try:
            started = time.perf_counter()
            turns = store.facts.ingest_file(path).turns
            ingest_s = time.perf_counter() - started
            recaller = Recaller(store, index_dir=Path(tmp) / "idx")
            started = time.perf_counter()
            reports = recaller.reindex()
            embed_s = time.perf_counter() - started
        finally:
            store.close()
    return {"turns": turns, "ingest_turns_per_s": turns / ingest_s,
            "with_vectors_turns_per_s": turns / (ingest_s + embed_s),
            "embedded": sum(r.embedded for r in reports)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--texts", type=int, default=1024, help="sentences to embed per embedder")
    args = ap.parse_args(argv)
    sample = texts(args.texts)
    print(f"{len(sample)} sentences from the development conversations (mean "
          f"{sum(map(len, sample)) / len(sample):.0f} characters)")
    figures = {spec: throughput(spec, sample) for spec in ("use", "e5")}
    for spec, row in figures.items():
        print(f"{spec:<4} {row['sentences_per_s']:8.1f} sentences/s   one query: "
              f"p50 {row['query_p50_ms']:6.2f} ms  p99 {row['query_p99_ms']:6.2f} ms")
    print(f"e5 / use throughput: {figures['e5']['sentences_per_s'] / figures['use']['sentences_per_s']:.3f}x")
    for path in SETS:
        row = ingest_with_vectors(path)
        print(f"{path.parent.name}: {row['turns']} turns; ingest {row['ingest_turns_per_s']:7.1f} turns/s; "
              f"ingest + embedding {int(row['embedded'])} turns and memories "
              f"{row['with_vectors_turns_per_s']:6.1f} turns/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
