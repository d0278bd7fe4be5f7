"""Benchmark: what an erasure costs, and what finding the mentions adds.

    python -m tests.benchmarks.bench_erase                 # 200 users x 50 turns, SQLite
    python -m tests.benchmarks.bench_erase --users 40      # quick run
    python -m tests.benchmarks.bench_erase --db postgresql://…   # an empty PostgreSQL store

Every user tells where they live and what they like, and one turn in
``--every`` of other users names alice ("my colleague Alice …"). On the same
store, in the same run, the benchmark times ``verify`` (the baseline: every
erasure runs a full verify first), ``subject_mentions`` (the listing:
``erase --mentions``) and the erasure itself (which also lists the mentions,
strips tokens, scrubs and re-commits audit entries and, on SQLite, empties
the WAL), and prints each as a ratio of ``verify``.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from memdesk import Store
from memdesk.pipeline import Turn

TZ = timezone(timedelta(hours=1))
BASE = datetime(2026, 1, 1, 9, 0, tzinfo=TZ)
PLACES = ["Hackney", "Leeds", "Kreuzberg", "York", "Bath", "Lisbon"]
TASTES = ["jazz", "hiking", "tea", "cycling", "chess", "opera"]


def _turns(user: str, n: int, every: int, k: int) -> list[Turn]:
    out = []
    for i in range(1, n + 1):
        if user != "alice" and (k * n + i) % every == 0:
            text = f"My colleague Alice recommended {TASTES[i % 6]} to me."
        elif i % 2:
            text = f"I live in {PLACES[(k + i) % 6]} now."
        else:
            text = f"I really like {TASTES[(k + i) % 6]}."
        out.append(Turn(f"{user}-chat", i, "user", BASE + timedelta(days=k, minutes=i), text,
                        user))
    if user == "alice":
        out[0] = Turn("alice-chat", 1, "user", BASE, "Hi, my name is Alice Martin.", "alice")
    return out


def _timed(fn):  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=200)
    ap.add_argument("--turns", type=int, default=50)
    ap.add_argument("--every", type=int, default=50, help="one turn in N of others names alice")
    ap.add_argument("--db", help="a store URL (default: a new SQLite file)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.db or str(Path(tmp) / "bench.db")
        with Store.open(url) as store:
            users = ["alice"] + [f"user{k:04d}" for k in range(1, args.users)]
            t0 = time.perf_counter()
            for k, user in enumerate(users):
                store.facts.ingest_turns(_turns(user, args.turns, args.every, k), signals=False)
            store.admin.create_token("alice-laptop", users=["alice"], projects=["atlas"], by="admin")
            built = time.perf_counter() - t0
            print(f"store: {len(users)} users x {args.turns} turns "
                  f"({len(users) * args.turns:,} turns) built in {built:.1f} s")
            verified, t_verify = _timed(store.audit.verify)
            assert verified.ok
            found, t_list = _timed(lambda: store.admin.mentions_of("user:alice"))
            report, t_erase = _timed(lambda: store.admin.erase("user:alice", by="bench"))
            assert store.audit.verify().ok
            print(f"verify (baseline)        {t_verify:7.3f} s  1.00x  ({verified.entries} entries)")
            print(f"erase --mentions         {t_list:7.3f} s  {t_list / t_verify:4.2f}x  "
                  f"({len(found)} rows of others name her)")
            print(f"erase (all of it)        {t_erase:7.3f} s  {t_erase / t_verify:4.2f}x  "
                  f"({report.turns} turns, {report.tokens} token, "
                  f"{len(report.mentions)} mentions listed, WAL cleared: {report.wal_cleared})")


if __name__ == "__main__":
    main()
