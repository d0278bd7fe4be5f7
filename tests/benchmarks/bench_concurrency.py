"""Benchmark: reviewer processes deciding the review queue at the same time.

    python -m tests.benchmarks.bench_concurrency                  # PostgreSQL, then SQLite
    python -m tests.benchmarks.bench_concurrency --backend postgres --candidates 2000
    MEMDESK_TEST_PG_URL=postgresql://... python -m tests.benchmarks.bench_concurrency

10,000 low-confidence facts are imported (so every one waits in the review
queue); then 4 reviewer processes, started together behind a barrier, each
loop "take one of the first 8 pending candidates, approve it (70 %) or reject
it (30 %)" until the queue is empty. They race for the same candidates on
purpose: the loser of a race gets AlreadyDecided and takes another one.

Checked afterwards, from the audit log and the claim rows: every candidate
decided exactly once (decided 0 times and decided more than once must both
be 0), each approved one with exactly one fact and each rejected one with
none. A baseline in the same run: 1 process deciding the same number of
candidates on a fresh copy of the store. PostgreSQL runs on a throwaway
server (tests/pgserver.py) unless MEMDESK_TEST_PG_URL names one.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from memdesk import AlreadyDecided, Store
from memdesk.db.tables import AUDIT, CLAIM, FACT
from sqlalchemy import func, select

from ..helpers import pending_lines
from ..pgserver import reset_pg, start_server

PICK_FROM = 8
APPROVE_SHARE = 0.7


def reviewer(url: str, name: str, seed: int, barrier, results) -> None:
    """One reviewer process: decide pending candidates until none is left."""
    rng = random.Random(seed)
    made = lost = 0
    with Store.open(url) as store:
        store.review.count()  # connect before the start
        barrier.wait()
        started = time.perf_counter()
        while True:
            head = store.review.list(limit=PICK_FROM)
            if not head:
                break
            cand = rng.choice(head)
            try:
                if rng.random() < APPROVE_SHARE:
                    store.review.approve(cand.id, by=name)
                else:
                    store.review.reject(cand.id, by=name, reason="benchmark")
                made += 1
            except AlreadyDecided:
                lost += 1
        results.put((name, made, lost, time.perf_counter() - started))


def prepare(url: str, data: Path) -> int:
    with Store.open(url) as store:
        store.facts.import_file(data, parallel=False)
        return store.review.count()


def run(url: str, data: Path, processes: int) -> dict:
    queued = prepare(url, data)
    ctx = multiprocessing.get_context("fork")
    barrier, results = ctx.Barrier(processes + 1), ctx.Queue()
    procs = [ctx.Process(target=reviewer, args=(url, f"reviewer{i}", 100 + i, barrier, results))
             for i in range(processes)]
    for p in procs:
        p.start()
    barrier.wait()
    started = time.perf_counter()
    got = [results.get() for _ in procs]
    elapsed = time.perf_counter() - started
    for p in procs:
        p.join()
    check = verify(url)
    made = sum(g[1] for g in got)
    return {"processes": processes, "queued": queued, "decisions": made,
            "seconds": round(elapsed, 2), "decisions_per_s": round(made / elapsed, 1),
            "per_process": {g[0]: g[1] for g in sorted(got)},
            "races_lost": sum(g[2] for g in got), **check}


def verify(url: str) -> dict:
    """Decisions per candidate from the audit log, cross-checked with claim rows and facts."""
    with Store.open(url) as store, store.engine.connect() as conn:
        decided = Counter(dict(conn.execute(
            select(AUDIT.c.claim_from, func.count())
            .where(AUDIT.c.action.in_(["claim.approved", "claim.rejected"]))
            .group_by(AUDIT.c.claim_from)).all()))
        claims = dict(conn.execute(select(CLAIM.c.id, CLAIM.c.state)).all())
        facts = Counter(r[0] for r in conn.execute(select(FACT.c.claim_id)))
    never = [c for c, state in claims.items() if decided[c] == 0]
    twice = [c for c in claims if decided[c] > 1]
    still_pending = sum(1 for s in claims.values() if s == "pending")
    wrong = [c for c, s in claims.items()
             if (s == "approved" and facts[c] != 1) or (s == "rejected" and facts[c] != 0)
             or s not in ("approved", "rejected")]
    return {"decided_0_times": len(never), "decided_more_than_once": len(twice),
            "still_pending": still_pending, "rows_inconsistent": len(wrong)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--candidates", type=int, default=10_000)
    ap.add_argument("--processes", type=int, default=4)
    ap.add_argument("--backend", choices=["postgres", "sqlite", "both"], default="both")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="memdesk-bench-conc-"))
    data = tmp / "pending.jsonl"
    data.write_text("\n".join(json.dumps(x) for x in pending_lines(args.candidates)) + "\n")
    report = {}
    ok = True
    backends = ["postgres", "sqlite"] if args.backend == "both" else [args.backend]
    for backend in backends:
        server = None
        try:
            if backend == "postgres":
                server = start_server()
            for processes in (args.processes, 1):
                if backend == "postgres":
                    reset_pg(server.url)
                    url = server.url
                else:
                    url = str(tmp / f"p{processes}.db")
                r = run(url, data, processes)
                report[f"{backend} x{processes}"] = r
                print(f"{backend:8} {processes} process(es): {r['decisions']:,} decisions in "
                      f"{r['seconds']} s = {r['decisions_per_s']:,}/s; per process "
                      f"{r['per_process']}; races lost {r['races_lost']}; decided 0 times "
                      f"{r['decided_0_times']}, more than once {r['decided_more_than_once']}, "
                      f"inconsistent rows {r['rows_inconsistent']}", flush=True)
                ok &= (r["decided_0_times"] == 0 and r["decided_more_than_once"] == 0
                       and r["rows_inconsistent"] == 0 and r["decisions"] == args.candidates)
            many, one = report[f"{backend} x{args.processes}"], report[f"{backend} x1"]
            ratio = many["decisions_per_s"] / one["decisions_per_s"]
            report[f"{backend} ratio"] = round(ratio, 2)
            print(f"{backend:8} {args.processes} processes vs 1: {ratio:.2f}x the throughput",
                  flush=True)
        finally:
            if server is not None:
                server.stop()
    print(json.dumps(report, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
