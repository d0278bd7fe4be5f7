"""Benchmark: bulk import and as-of lookups on a store of ~1,000,000 fact rows.

    python -m tests.benchmarks.bench_store                 # 100k subjects, SQLite
    python -m tests.benchmarks.bench_store --subjects 2000 # quick run
    python -m tests.benchmarks.bench_store --postgres      # the same on a throwaway PostgreSQL

Each subject gets a history with evolutions and a correction (10 fact rows
from 7 import lines):
  lives_in     asserted, then moved twice (evolutions)        -> 5 rows
  budget_limit asserted, raised (evolution), then corrected   -> 4 rows
  likes        asserted once                                  -> 1 row
The import goes through the public ``store.facts.import_file`` path (parsing,
validation, every gate, audit log). Then it times ``store.facts.as_of`` for one
(subject, predicate) at random (valid_at, known_at), and, on SQLite, the same
lookup as a hand-written ``sqlite3`` query on the same file, interleaved in the
same run, and prints the ratio. Targets: import >= 10,000 facts/s; as-of p50
<= 0.5 ms and <= 2x the hand-written query.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from memdesk import Store, parse_time_us

TZ = timezone(timedelta(hours=8))
BASE = datetime(2025, 1, 1, 9, 0, tzinfo=TZ)
DISTRICTS = ["徐家汇", "张江", "静安", "浦东", "闵行", "Berlin", "Munich", "Hamburg", "Lyon", "Osaka"]
LIKES = ["地铁通勤", "hiking", "jazz", "咖啡", "tea", "cycling"]


def _line(subject: str, pred: str, obj: str, day: int, session: str, turn: int, *,
          value=None, change=None, valid_day: int | None = None, text: str | None = None) -> str:
    t = (BASE + timedelta(days=day)).isoformat()
    vt = (BASE + timedelta(days=valid_day)).isoformat() if valid_day is not None else t
    return json.dumps({
        "subject": subject, "predicate": pred, "object": obj, "value": value,
        "valid_from": vt, "change": change, "confidence": 0.9,
        "source": {"session": session, "turn": turn, "speaker": "user", "kind": "user_explicit",
                   "text": text or f"{pred} {obj}", "time": t},
        "extractor": "bench@1",
    }, ensure_ascii=False)


def write_dataset(path: Path, subjects: int, seed: int = 7) -> int:
    """Write the import file in time order (round by round). Returns the line count."""
    rng = random.Random(seed)
    rounds: list[list[str]] = [[] for _ in range(5)]
    for i in range(subjects):
        s = f"user:u{i:06d}"
        sess = f"s{i:06d}"
        a, b, c = rng.sample(DISTRICTS, 3)
        budget = rng.randrange(30, 90) * 100
        like = rng.choice(LIKES)
        intro = f"我住在{a}，预算{budget}元，喜欢{like}"
        rounds[0].append(_line(s, "lives_in", a, 1, sess, 1, text=intro))
        rounds[0].append(_line(s, "budget_limit", f"{budget} 元", 1, sess, 1,
                               value={"amount": budget, "currency": "CNY"}, text=intro))
        rounds[0].append(_line(s, "likes", like, 1, sess, 1, text=intro))
        rounds[1].append(_line(s, "lives_in", b, 40, sess, 2, change="evolution", valid_day=35))
        rounds[2].append(_line(s, "budget_limit", f"{budget + 1500} 元", 60, sess, 3,
                               value={"amount": budget + 1500, "currency": "CNY"}, change="evolution"))
        rounds[3].append(_line(s, "budget_limit", f"{budget + 1000} 元", 61, sess, 4,
                               value={"amount": budget + 1000, "currency": "CNY"}, change="correction",
                               valid_day=60))
        rounds[4].append(_line(s, "lives_in", c, 90, sess, 5, change="evolution"))
    n = 0
    with open(path, "w", encoding="utf-8") as fh:
        for r in rounds:
            for line in r:
                fh.write(line + "\n")
                n += 1
    return n


def _cpu_seconds() -> tuple[float, float]:
    """CPU seconds (user + system) used so far by this process and by its
    finished child processes."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


# the told axis (docs/DESIGN.md §2.1): known_from/known_until, or for rows
# from before revision 0007 recorded_at/retired_at
HAND_SQL = (
    "SELECT * FROM fact WHERE subject = ? AND predicate = ? "
    "AND coalesce(known_from, recorded_at) <= ? "
    "AND (coalesce(known_until, retired_at) IS NULL OR coalesce(known_until, retired_at) > ?) "
    "AND valid_from <= ? AND (valid_to IS NULL OR valid_to > ?)"
)


def raw_insert_baseline(store_file: Path, target: Path) -> float:
    """Rows/s for inserting the store's fact rows into an empty copy of the fact
    table (same DDL and indexes) with plain sqlite3: the floor any import pays."""
    src = sqlite3.connect(store_file)
    ddl = [sql for (sql,) in src.execute(
        "SELECT sql FROM sqlite_master WHERE tbl_name = 'fact' AND sql IS NOT NULL")]
    rows = src.execute("SELECT * FROM fact ORDER BY id").fetchall()
    src.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    dst = sqlite3.connect(target)
    dst.execute("PRAGMA journal_mode=WAL")
    dst.execute("PRAGMA synchronous=NORMAL")
    for sql in ddl:
        dst.execute(sql)
    marks = ",".join("?" * len(rows[0]))
    t0 = time.perf_counter()
    with dst:
        dst.executemany(f"INSERT INTO fact VALUES ({marks})", rows)
    elapsed = time.perf_counter() - t0
    dst.close()
    return len(rows) / elapsed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--subjects", type=int, default=100_000)
    ap.add_argument("--lookups", type=int, default=20_000)
    ap.add_argument("--postgres", action="store_true", help="run on a throwaway PostgreSQL server")
    ap.add_argument("--keep", metavar="DIR", help="keep the store and data file in DIR")
    args = ap.parse_args(argv)

    workdir = Path(args.keep or tempfile.mkdtemp(prefix="memdesk-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    data = workdir / "facts.jsonl"
    server = None
    if args.postgres:
        from tests.pgserver import start_server

        server = start_server()
        url = server.url
    else:
        db = workdir / "bench.db"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        url = str(db)
    try:
        t0 = time.perf_counter()
        lines = write_dataset(data, args.subjects)
        print(f"dataset: {args.subjects:,} subjects, {lines:,} import lines "
              f"({time.perf_counter() - t0:.1f} s to write)")
        store = Store.open(url)
        cpu0 = _cpu_seconds()
        t0 = time.perf_counter()
        with store.bulk():  # as the command line imports
            summary = store.facts.import_file(data)
        dt = time.perf_counter() - t0
        own, helpers = (b - a for a, b in zip(cpu0, _cpu_seconds(), strict=True))
        print(f"import: {summary.fact_rows:,} fact rows from {summary.lines:,} lines in {dt:.1f} s "
              f"-> {summary.fact_rows / dt:,.0f} facts/s, {summary.lines / dt:,.0f} lines/s "
              f"(evolutions {summary.evolutions:,}, corrections {summary.corrections:,})")
        print(f"import CPU time: {own:.1f} s in this process, {helpers:.1f} s in its helper "
              f"processes (parsing, writing); {os.cpu_count()} CPUs, load average "
              f"{os.getloadavg()[0]:.1f} (other work on the machine slows the wall-clock figure)")

        rng = random.Random(11)
        lo = parse_time_us((BASE).isoformat())
        hi = parse_time_us((BASE + timedelta(days=120)).isoformat())
        queries = [
            (f"user:u{rng.randrange(args.subjects):06d}", rng.choice(["lives_in", "budget_limit"]),
             rng.randrange(lo, hi), rng.randrange(lo, hi))
            for _ in range(args.lookups)
        ]
        hand = None
        if not args.postgres:
            hand = sqlite3.connect(url)
        ours: list[float] = []
        theirs: list[float] = []
        hits = 0
        for _ in range(200):  # warm both paths
            s, p, v, k = queries[_ % len(queries)]
            store.facts.as_of(s, p, valid_at=v, known_at=k)
            if hand:
                hand.execute(HAND_SQL, (s, p, k, k, v, v)).fetchall()
        pc = time.perf_counter
        for s, p, v, k in queries:
            t = pc()
            got = store.facts.as_of(s, p, valid_at=v, known_at=k)
            ours.append(pc() - t)
            hits += bool(got)
            if hand:
                t = pc()
                ref = hand.execute(HAND_SQL, (s, p, k, k, v, v)).fetchall()
                theirs.append(pc() - t)
                if len(ref) != len(got):
                    print(f"MISMATCH for {s} {p} v={v} k={k}: {len(got)} vs {len(ref)}")
                    return 1
        p50, p99 = percentile(ours, 0.5) * 1e3, percentile(ours, 0.99) * 1e3
        print(f"as-of lookup (store.facts.as_of, {len(ours):,} lookups, {hits / len(ours):.0%} non-empty): "
              f"p50 {p50:.3f} ms, p99 {p99:.3f} ms, mean {statistics.fmean(ours) * 1e3:.3f} ms")
        if theirs:
            h50, h99 = percentile(theirs, 0.5) * 1e3, percentile(theirs, 0.99) * 1e3
            print(f"hand-written sqlite3 query (same file, same lookups): p50 {h50:.3f} ms, p99 {h99:.3f} ms")
            print(f"ratio store.facts.as_of / hand-written: p50 {p50 / h50:.2f}x, p99 {p99 / h99:.2f}x")
            hand.close()
        if not args.postgres:
            rate = raw_insert_baseline(Path(url), workdir / "baseline.db")
            print(f"baseline, same run: hand-written sqlite3 executemany of the same fact rows "
                  f"(fact table and its indexes only; no turns, claims, gates or validation): "
                  f"{rate:,.0f} rows/s; the full gated import runs at "
                  f"{summary.fact_rows / dt / rate:.2f}x of that")
        size = sum(f.stat().st_size for f in workdir.glob("bench.db*")) if not args.postgres else 0
        if size:
            print(f"store size on disk: {size / 2**20:,.0f} MiB")
        store.close()
    finally:
        if server is not None:
            server.stop()
        if not args.keep:
            import shutil

            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.getcwd())
    raise SystemExit(main())
