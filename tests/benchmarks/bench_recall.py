"""Recall at scale: the Annoy index against exact numpy search, and end-to-end
``Recaller.search`` latency with the real query embedder.

For each size (default 100k and 1M memories) it builds a SQLite store holding
that many memory rows (texts from templates, one claim each) and their
vectors, then through the production code:

* ``Recaller.reindex()``: reads the stored vectors and builds the index
  (build time, index file size);
* index only: ``LoadedIndex.search`` for synthetic queries, p50/p99 and
  recall@10 against exact search, for several ``search_k``;
* exact numpy search over the same vectors in the same run (the baseline);
* end to end: ``Recaller.search(text, k=10)`` with the default embedder
  (``use``), embedding included, p50/p99.

The vectors are synthetic but shaped like real ones: each is a random mix of
five real USE embeddings of the demo conversations plus noise, so that the
nearest neighbours are about as close (cosine ~0.4–0.5) and as crowded as in a
real memory store; uniform random vectors would make any index look bad and
exact copies of a few hundred vectors would make it look too good.

    python -m tests.benchmarks.bench_recall                       # 100k and 1M
    python -m tests.benchmarks.bench_recall --sizes 100000 --search-k 5000,20000 --rerank 200,1000
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import tempfile
import time
from pathlib import Path

import numpy as np
from memdesk import Store
from memdesk.recall import IndexSettings, Recaller, UseEmbedder

from .eval_recall import ROOT

QUERIES = ["where does she live now", "预算上限是多少", "book me transport", "帮我订交通方式",
           "what is the dog called", "她对什么过敏", "which database did they choose",
           "周末有什么安排", "does he eat meat", "笔记本电脑选了哪台"]


def base_vectors(embedder: UseEmbedder) -> tuple[np.ndarray, list[str]]:
    texts = []
    for f in sorted((ROOT / "data" / "conversations").glob("*.jsonl")):
        texts += [json.loads(line)["text"] for line in f.read_text(encoding="utf-8").splitlines()
                  if line.strip()]
    return embedder.embed(sorted(set(texts))), sorted(set(texts))


def synth(base: np.ndarray, n: int, seed: int, noise: float = 1.0, mix: int = 5) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = np.empty((n, base.shape[1]), np.float32)
    for s in range(0, n, 100_000):
        m = min(100_000, n - s)
        idx = rng.integers(0, len(base), (m, mix))
        w = rng.dirichlet(np.ones(mix) * 0.7, m).astype(np.float32)
        v = np.einsum("nk,nkd->nd", w, base[idx])
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        v += rng.standard_normal(v.shape).astype(np.float32) * (noise / np.sqrt(base.shape[1]))
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        out[s:s + m] = v
    return out


def fill_store(path: Path, vectors: np.ndarray, texts: list[str], embedder: UseEmbedder) -> None:
    """Memory rows, one claim each, one turn per 100 memories, and their vectors,
    written straight to the tables (the write path's own speed is bench_ingest's job)."""
    Store.open(path).close()
    n = len(vectors)
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=OFF")
    con.execute("CREATE TABLE IF NOT EXISTS recall_vector (id INTEGER PRIMARY KEY, kind VARCHAR NOT NULL, "
                "item_id INTEGER NOT NULL, embedder VARCHAR NOT NULL, embedder_version VARCHAR NOT NULL, "
                "dim INTEGER NOT NULL, vector BLOB NOT NULL, created_at BIGINT NOT NULL, "
                "CONSTRAINT uq_recall_vector_item UNIQUE (kind, embedder, embedder_version, item_id))")
    t0 = 1_772_330_400_000_000
    step = 60_000_000
    con.executemany("INSERT INTO turn (id, session, turn, speaker, text, time, time_tz, user, project, "
                    "recorded_at, imported_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                    [(i + 1, f"s{i // 50}", i % 50 + 1, "user", texts[i % len(texts)],
                      t0 + i * 100 * step, 480, f"u{i % 997}", None, t0 + i * 100 * step,
                      t0) for i in range((n + 99) // 100)])
    for s in range(0, n, 50_000):
        ids = range(s, min(n, s + 50_000))
        con.executemany(
            "INSERT INTO claim (id, turn_id, claim_key, subject, predicate, object, polarity, scope, "
            "valid_from, tz, confidence, source_kind, extractor, single_valued, sensitive, created_at, "
            "state, reasons, gates) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            [(i + 1, i // 100 + 1, f"k{i}", f"user:u{i % 997}", "likes", f"thing {i}", "positive",
              "global", t0 + i * step, 480, 0.9, "user_explicit", "bench", False, False,
              t0 + i * step, "asserted", "[]", "") for i in ids])
        con.executemany(
            "INSERT INTO memory (id, subject, predicate, text, text_key, claim_id, turn_id, created_at, "
            "mentions) VALUES (?,?,?,?,?,?,?,?,?)",
            [(i + 1, f"user:u{i % 997}", "likes", f"{texts[i % len(texts)]} (#{i})", f"k{i}", i + 1,
              i // 100 + 1, t0 + i * step, 1) for i in ids])
        con.executemany(
            "INSERT INTO recall_vector (id, kind, item_id, embedder, embedder_version, dim, vector, "
            "created_at) VALUES (?,?,?,?,?,?,?,?)",
            [(i + 1, "memory", i + 1, embedder.name, embedder.version, embedder.dim,
              vectors[i].astype("<f4").tobytes(), t0) for i in ids])
        con.commit()
    con.close()


def pct(values: list[float], p: float) -> float:
    return float(np.percentile(values, p)) * 1000


def run(size: int, embedder: UseEmbedder, base: np.ndarray, texts: list[str], n_trees: int,
        proj_dim: int, search_ks: list[int], reranks: list[int], n_queries: int,
        folder: Path) -> dict:
    print(f"\n== {size:,} memories (dim {embedder.dim}, n_trees {n_trees}, "
          f"projected to {proj_dim})", flush=True)
    t = time.perf_counter()
    vectors = synth(base, size, seed=1)
    queries = synth(base, n_queries, seed=2)
    db = folder / f"bench-{size}.db"
    fill_store(db, vectors, texts, embedder)
    print(f"store filled in {time.perf_counter() - t:.1f}s", flush=True)
    settings = IndexSettings(n_trees=n_trees, proj_dim=proj_dim)
    out: dict = {"size": size, "n_trees": n_trees}
    with Store.open(db) as store:
        recaller = Recaller(store, embedder=embedder, index_dir=folder / f"idx-{size}", index=settings)
        t = time.perf_counter()
        recaller.reindex(over="memories")
        out["build_s"] = time.perf_counter() - t
        col = recaller._collection("memories")
        out["index_mb"] = col.files.size_on_disk() / 1e6
        print(f"reindex (read {size:,} vectors from the store + build): {out['build_s']:.1f}s, "
              f"index {out['index_mb']:.0f} MB", flush=True)
        index = col._index
        # exact baseline, same vectors, same run
        truth, exact_t = [], []
        for q in queries:
            t = time.perf_counter()
            sims = vectors @ q
            top = np.argpartition(-sims, 10)[:10]
            exact_t.append(time.perf_counter() - t)
            truth.append(set((top + 1).tolist()))
        out["exact_p50"], out["exact_p99"] = pct(exact_t, 50), pct(exact_t, 99)
        print(f"exact numpy top-10:      p50 {out['exact_p50']:7.2f} ms  p99 {out['exact_p99']:7.2f} ms",
              flush=True)
        out["index"] = []
        combos = [(sk, rr) for rr in reranks for sk in search_ks]
        for sk, rr in combos:
            times, rec = [], 0.0
            for qi, q in enumerate(queries):
                t = time.perf_counter()
                ids, _ = index.search(q, 10, sk, rr)
                times.append(time.perf_counter() - t)
                rec += len(set(ids.tolist()) & truth[qi]) / 10
            row = {"search_k": sk, "rerank": rr, "p50": pct(times, 50), "p99": pct(times, 99),
                   "recall": rec / len(queries)}
            out["index"].append(row)
            print(f"annoy search_k {sk:>7,} rerank {rr:>5}:  p50 {row['p50']:7.2f} ms  "
                  f"p99 {row['p99']:7.2f} ms  recall@10 {row['recall']:.3f}  "
                  f"speed-up {out['exact_p50'] / row['p50']:.1f}x", flush=True)
        # the query embedding alone, same texts (part of every end-to-end figure)
        texts_e2e = [QUERIES[i % len(QUERIES)] + f" {i % 7}" for i in range(max(50, n_queries // 2))]
        emb_t = []
        for text in texts_e2e:
            t = time.perf_counter()
            embedder.embed([text], query=True)
            emb_t.append(time.perf_counter() - t)
        out["embed_p50"] = pct(emb_t, 50)
        print(f"query embedding alone:   p50 {out['embed_p50']:7.2f} ms  p99 {pct(emb_t, 99):7.2f} ms",
              flush=True)
        # end to end: Recaller.search with query embedding, index, tail, hydration, scoring
        for sk, rr in combos:
            recaller.index_settings = settings = IndexSettings(
                n_trees=n_trees, proj_dim=proj_dim, rerank=rr, search_k=sk)
            col.settings = settings
            for q in QUERIES[:3]:
                recaller.search(q, k=10)  # warm up (anchor index, caches)
            times = []
            for text in texts_e2e:
                t = time.perf_counter()
                recaller.search(text, k=10)
                times.append(time.perf_counter() - t)
            print(f"end to end search_k {sk:>7,} rerank {rr:>5} (embedding included): "
                  f"p50 {pct(times, 50):7.2f} ms  p99 {pct(times, 99):7.2f} ms  "
                  f"(load average {os.getloadavg()[0]:.1f})", flush=True)
            out.setdefault("e2e", []).append({"search_k": sk, "rerank": rr, "p50": pct(times, 50),
                                              "p99": pct(times, 99)})
        recaller.close()
    os.remove(db)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--n-trees", type=int, default=IndexSettings().n_trees)
    ap.add_argument("--search-k", default="5000,20000",
                    help="comma-separated Annoy search_k values to measure")
    ap.add_argument("--rerank", default="500,1000",
                    help="comma-separated candidate counts re-ranked exactly")
    ap.add_argument("--proj-dim", type=int, default=IndexSettings().proj_dim)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--folder", help="work folder (default: a temporary one)")
    args = ap.parse_args(argv)
    embedder = UseEmbedder()
    base, texts = base_vectors(embedder)
    t = time.perf_counter()
    for q in QUERIES * 5:
        embedder.embed([q], query=True)
    print(f"query embedding ({embedder.name}@{embedder.version}): "
          f"{(time.perf_counter() - t) * 1000 / 50:.2f} ms per query (mean of 50)")
    with tempfile.TemporaryDirectory(dir=args.folder) as tmp:
        for size in [int(s) for s in args.sizes.split(",")]:
            run(size, embedder, base, texts, args.n_trees, args.proj_dim,
                [int(s) for s in args.search_k.split(",")],
                [int(s) for s in args.rerank.split(",")], args.queries, Path(tmp))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
