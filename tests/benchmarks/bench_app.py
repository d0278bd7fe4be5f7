"""Benchmark: the app on a big store (1,000,000 fact rows, 10,000 pending candidates).

    python -m tests.benchmarks.bench_app                      # 100k subjects (1M rows)
    python -m tests.benchmarks.bench_app --subjects 5000      # quick run
    python -m tests.benchmarks.bench_app --keep /tmp/big      # keep (and reuse) the store
    python -m tests.benchmarks.bench_app --writer             # another process writes meanwhile

Prints, for the big store and, as the same-run baseline, for the small demo store:
  * first screen: from creating the app to the timeline drawn with the first
    subject's facts and the header's counts loaded (target <= 2 s on the big store);
  * review queue: from pressing 3 to the first page of candidates shown;
  * the longest time the event loop was blocked (no keypress may block the
    interface > 100 ms), measured by a watchdog task that wakes every 5 ms,
    while a scripted reviewer session runs: moving through the queue, paging
    past the first page, approving, rejecting, undoing, opening the edit form
    and the help, switching screens, stepping "known at", opening the subject
    picker and typing.
The app runs headless (Textual's ``run_test``) at 140x42, as in the snapshots.
Its live refresh (a worker reading the store's change stamp every second)
runs throughout. With ``--writer``, another process adds a pending candidate
every half second during the scripted session, so the open screens reload
while the reviewer works; the run reports how many writes it saw.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from memdesk import ManualClock, Store
from memdesk.app.screenshots import DEMO_NOW, SIZE, build_demo_store
from memdesk.app.ui.app import MemdeskApp
from memdesk.app.ui.screens.review import ReviewScreen
from memdesk.app.ui.service import MemdeskService
from memdesk.app.ui.widgets.timeline_chart import TimelineChart

from .bench_store import write_dataset

CANDIDATES = 10_000


def write_candidates(path: Path, count: int) -> None:
    """``count`` low-confidence facts from another pipeline: all wait for review."""
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(count):
            text = f"我养了一只猫，叫{i}号"
            fh.write(json.dumps({
                "subject": f"user:u{i:06d}", "predicate": "pet", "object": f"猫（{i}号）",
                "valid_from": "2026-05-01T10:00:00+08:00", "confidence": 0.3 + (i % 40) / 100,
                "source": {"session": f"pets{i:06d}", "turn": 1, "speaker": "user",
                           "kind": "user_explicit", "text": text,
                           "time": "2026-05-01T10:00:00+08:00"},
                "extractor": "bench-pipeline@1"}, ensure_ascii=False) + "\n")


def build_big_store(folder: Path, subjects: int) -> Path:
    db = folder / f"app-{subjects}.db"
    if db.exists():
        print(f"reusing {db}", file=sys.stderr)
        return db
    data, cands = folder / f"facts-{subjects}.jsonl", folder / "candidates.jsonl"
    lines = write_dataset(data, subjects)
    write_candidates(cands, min(CANDIDATES, subjects))
    print(f"building {db}: {lines:,} import lines + {min(CANDIDATES, subjects):,} candidates …",
          file=sys.stderr)
    t0 = time.perf_counter()
    partial = db.with_name(db.name + ".building")
    with Store.open(partial) as store, store.bulk():
        store.facts.import_file(data)
        store.facts.import_file(cands)
    partial.rename(db)
    print(f"built in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return db


class Watchdog:
    """Measures how long the event loop is blocked: a task that asks to wake
    every ``tick`` seconds and records how late it actually wakes."""

    def __init__(self, tick: float = 0.005) -> None:
        self.tick = tick
        self.lags: list[float] = []
        self._task: asyncio.Task | None = None

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            start = loop.time()
            await asyncio.sleep(self.tick)
            self.lags.append(max(0.0, loop.time() - start - self.tick))

    def start(self) -> None:
        self.lags.clear()
        self._task = asyncio.get_running_loop().create_task(self._run())

    def stop(self) -> None:
        if self._task:
            self._task.cancel()


def percentile(values: list[float], pct: int) -> float:
    """The ``pct``-th percentile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, -(-len(ordered) * pct // 100) - 1))]


async def wait_for(pilot, condition, timeout: float = 30.0) -> float:  # noqa: ANN001
    """Seconds until ``condition()`` holds (polling while the app runs)."""
    t0 = time.perf_counter()
    while not condition():
        if time.perf_counter() - t0 > timeout:
            raise TimeoutError("the app did not get there in time")
        await asyncio.sleep(0.002)
    return time.perf_counter() - t0


WRITE_EVERY_S = 0.5


def write_loop(db: Path) -> None:
    """Another process's writes: a pending candidate every ``WRITE_EVERY_S``
    until killed (run as ``python -m tests.benchmarks.bench_app --write-loop DB``)."""
    folder = Path(tempfile.mkdtemp(prefix="memdesk-bench-writer-"))
    with Store.open(db) as store:
        for i in range(1_000_000):
            path = folder / "one.jsonl"
            text = f"我还养了一只鹦鹉，叫{i}号"
            path.write_text(json.dumps({
                "subject": f"user:w{i:06d}", "predicate": "pet", "object": f"鹦鹉（{i}号）",
                "valid_from": "2026-05-02T10:00:00+08:00", "confidence": 0.2,
                "source": {"session": f"writer{i:06d}", "turn": 1, "speaker": "user",
                           "kind": "user_explicit", "text": text,
                           "time": "2026-05-02T10:00:00+08:00"},
                "extractor": "bench-writer@1"}, ensure_ascii=False) + "\n", encoding="utf-8")
            store.facts.import_file(path)
            time.sleep(WRITE_EVERY_S)


async def measure(source: Path, writer: bool = False) -> dict[str, float]:
    """Run the scripted session on a copy of ``source`` (the session writes;
    with ``writer``, another process writes too)."""
    folder = Path(tempfile.mkdtemp(prefix="memdesk-bench-app-"))
    db = folder / source.name
    shutil.copy(source, db)
    try:
        return await _measure(db, writer)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def _measure(db: Path, writer: bool) -> dict[str, float]:
    out: dict[str, float] = {}
    t0 = time.perf_counter()
    store = Store.open(db, clock=ManualClock(DEMO_NOW))
    app = MemdeskApp(MemdeskService(store, "bench"))
    dog = Watchdog()
    async with app.run_test(size=SIZE) as pilot:
        def timeline_drawn() -> bool:
            screen = app.screen
            if not hasattr(screen, "data") or app.overview is None:
                return False
            chart = screen.query(TimelineChart)
            return bool(chart) and chart.first().chart is not None and bool(chart.first().chart.lanes)

        await wait_for(pilot, timeline_drawn)
        out["first_screen_s"] = time.perf_counter() - t0
        other = (subprocess.Popen([sys.executable, "-m", "tests.benchmarks.bench_app",
                                   "--write-loop", str(db)]) if writer else None)
        seen_changes = getattr(app, "changes", 0)
        # the app settles right after start (the heap frozen, the first loads finishing)
        dog.start()
        await asyncio.sleep(2.0)
        dog.stop()
        out["settle_block_ms"] = max(dog.lags) * 1000
        dog.start()
        t1 = time.perf_counter()
        await pilot.press("3")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen) and bool(app.screen.items))
        out["review_first_page_s"] = time.perf_counter() - t1
        screen = app.screen
        presses: list[float] = []

        blocks: dict[str, list[float]] = {}  # key -> the longest block while each press ran

        async def press(*keys: str) -> None:
            for key in keys:
                t = time.perf_counter()
                seen = len(dog.lags)
                await pilot.press(key)
                presses.append(time.perf_counter() - t)
                blocks.setdefault(key, []).append(max(dog.lags[seen:], default=0.0))

        await press(*["j"] * 230)  # past the first page: the next page loads in a worker
        if screen.total > 200:
            await wait_for(pilot, lambda: len(screen.items) > 200)
        await press(*["a", "j"] * 10, *["u"] * 3)
        await press("x")
        await pilot.press(*"bench reason")
        await press("enter")
        await press("e", "escape", "question_mark", "escape")  # the edit form and the help
        await press("2", "1", "right_square_bracket", "left_square_bracket", "left_square_bracket",
                    "n", "j", "l", "enter", "5", "4", "1")
        await press("g")
        await pilot.press(*"user:u00012")
        await press("enter")
        await asyncio.sleep(0.3)
        if other is not None:
            other.kill()
            other.wait()
        await app.workers.wait_for_complete()
        dog.stop()
        out["changes_seen"] = getattr(app, "changes", 0) - seen_changes
        out["max_loop_block_ms"] = max(dog.lags) * 1000
        out["p99_loop_block_ms"] = statistics.quantiles(dog.lags, n=100)[98] * 1000
        out["key_p50_ms"] = statistics.median(presses) * 1000
        out["key_max_ms"] = max(presses) * 1000
        out["keys"] = len(presses)
        out["per_key"] = {key: (statistics.median(b), percentile(b, 99), max(b), len(b))
                          for key, b in blocks.items()}
    store.close()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--subjects", type=int, default=100_000, help="10 fact rows each (default 100k)")
    ap.add_argument("--keep", metavar="DIR", help="build the big store in DIR and reuse it next time")
    ap.add_argument("--no-baseline", action="store_true", help="skip the demo-store baseline run")
    ap.add_argument("--writer", action="store_true",
                    help="another process adds a candidate every half second during the session")
    ap.add_argument("--write-loop", metavar="DB", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.write_loop:
        write_loop(args.write_loop)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep) if args.keep else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        big = build_big_store(folder, args.subjects)
        small = build_demo_store(Path(tmp) / "demo.db")
        with Store.open(big) as store:
            rows = store.engine.connect().exec_driver_sql("SELECT count(*) FROM fact").scalar()
            pending = store.review.count()
        base = None if args.no_baseline else asyncio.run(measure(small, args.writer))
        load_before = os.getloadavg()
        result = asyncio.run(measure(big, args.writer))
        load_after = os.getloadavg()
    print(f"big store: {rows:,} fact rows, {pending:,} pending candidates; baseline: the demo store")
    print(f"load average (1 min) before / after the big-store run: {load_before[0]:.2f} / "
          f"{load_after[0]:.2f} on {os.cpu_count()} cores")
    base = base or {k: float("nan") for k in result}
    print(f"{'':<22} {'big':>10} {'demo':>10} {'ratio':>7}   target")
    targets = {"first_screen_s": "<= 2 s", "max_loop_block_ms": "<= 100 ms"}
    for key in ("first_screen_s", "settle_block_ms", "review_first_page_s", "max_loop_block_ms",
                "p99_loop_block_ms", "key_p50_ms", "key_max_ms"):
        ratio = result[key] / base[key] if base[key] else float("nan")
        print(f"{key:<22} {result[key]:>10.3f} {base[key]:>10.3f} {ratio:>6.2f}x   "
              f"{targets.get(key, '')}")
    print(f"keys pressed per run: {result['keys']}; key_* = time for Pilot to deliver and "
          "process a key (includes Pilot's own waiting)")
    print(f"store changes the app saw and refreshed for during the session: "
          f"{result['changes_seen']:.0f} (big), {base.get('changes_seen', float('nan')):.0f} (demo)"
          + (" — another process wrote every "
             f"{WRITE_EVERY_S} s" if args.writer else " — its own decisions only"))
    print("loop block while a key was processed (big store), worst keys first:")
    print(f"  {'key':<22} {'presses':>7} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for key, (p50, p99, top, n) in sorted(result["per_key"].items(), key=lambda kv: -kv[1][2]):
        print(f"  {key:<22} {n:>7} {p50 * 1000:>8.1f} {p99 * 1000:>8.1f} {top * 1000:>8.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
