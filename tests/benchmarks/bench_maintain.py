"""Benchmark: ``store.admin.maintain`` on a store of ~50,000 memories.

    python -m tests.benchmarks.bench_maintain                  # 10,000 subjects, SQLite
    python -m tests.benchmarks.bench_maintain --subjects 1000  # quick run

Each subject says, as conversation ingest would store them (memory texts):
  lives_in    asserted, then moved (evolution)            -> the first memory goes stale
  likes       one taste said three times, worded a little -> two near duplicates fold
              differently each time ("!", ".", "  ")
  likes       another taste once
  todo        a reminder (structured: no memory)          -> expires (TTL 168 h)
That is 5 memories and 6 fact rows per subject. The clock is then set a year
later and the benchmark times a dry run, the run, a second run (nothing to
do) and ``verify``. Target: seconds, not minutes, at 50,000 memories.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from memdesk import ClaimInput, ManualClock, SourceRef, Store
from memdesk.timeutil import to_us

TZ = timezone(timedelta(hours=8))
BASE = datetime(2026, 1, 1, 9, 0, tzinfo=TZ)
PLACES = ["徐家汇", "张江", "静安", "Hackney", "Leeds", "Kreuzberg"]
TASTES = ["cilantro", "jazz", "地铁通勤", "hiking", "咖啡", "tea"]


def _claim(subject: str, predicate: str, obj: str, at: int, session: str, turn: int,
           text: str, change: str | None = None) -> ClaimInput:
    return ClaimInput(subject=subject, predicate=predicate, object=obj,
                      source=SourceRef(session=session, turn=turn, text=text, time=at, tz=480,
                                       kind="user_explicit"),
                      valid_from=at, confidence=0.95, change=change, start_stated=False)


def claims(subjects: int) -> list[ClaimInput]:
    out = []
    for i in range(subjects):
        s, sess = f"user:u{i}", f"s{i}"
        t = to_us(BASE) + i * 1_000_000
        day = 86_400_000_000
        a, b = PLACES[i % 6], PLACES[(i + 1) % 6]
        taste, other = TASTES[i % 6], TASTES[(i + 3) % 6]
        out += [
            _claim(s, "lives_in", a, t, sess, 1, f"I live in {a}, near the station."),
            _claim(s, "likes", taste, t + day, sess, 2, f"I really like {taste}!"),
            _claim(s, "todo", f"call {i}", t + day, sess, 3, f"remind me to call {i}"),
            _claim(s, "likes", taste, t + 2 * day, sess, 4, f"i really like {taste}."),
            _claim(s, "likes", taste, t + 3 * day, sess, 5, f"I really like  {taste}"),
            _claim(s, "likes", other, t + 4 * day, sess, 6, f"Also {other}, every week."),
            _claim(s, "lives_in", b, t + 10 * day, sess, 7, f"We moved to {b} last week.",
                   change="evolution"),
        ]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--subjects", type=int, default=10_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        clock = ManualClock(BASE)
        with Store.open(Path(tmp) / "bench.db", clock=clock) as store:
            items = claims(args.subjects)
            t0 = time.perf_counter()
            with store._core.write() as batch:  # as conversation ingest writes: memories too
                batch.route_memories = True
                batch.prefetch(items)
                for c in items:
                    batch.submit(c)
                batch.record_operation("bench", "ingest", detail={})
            with store.engine.connect() as conn:
                n = conn.exec_driver_sql("SELECT count(*) FROM memory").scalar()
            print(f"built {n:,} memories from {len(items):,} claims in "
                  f"{time.perf_counter() - t0:.1f} s")
            clock.set(BASE + timedelta(days=365))
            for label, kwargs in (("dry run", {"dry_run": True}), ("run", {}),
                                  ("second run", {})):
                t0 = time.perf_counter()
                report = store.admin.maintain(**kwargs)
                took = time.perf_counter() - t0
                print(f"{label:<10} {took:6.2f} s  {report.plan.counts()}  "
                      f"audit entry {report.audit_entry}")
            t0 = time.perf_counter()
            ok = store.audit.verify().ok
            print(f"verify     {time.perf_counter() - t0:6.2f} s  ok={ok}")
            t0 = time.perf_counter()
            steps = [s for s in store.audit.of("user:u7", "lives_in", PLACES[7 % 6]).chain
                     if s.step == "maintenance"]
            print(f"audit      {time.perf_counter() - t0:6.3f} s  {len(steps)} maintenance step(s)")


if __name__ == "__main__":
    main()
