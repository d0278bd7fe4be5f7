"""What names, escaping and masking cost (issue 29 §3 and §7), each against a
baseline measured in the same run:

* ``check_name`` (NFKC, refusal of control, format and invisible
  characters) against the check it replaced (strip, length, no NUL), on
  ASCII names and on Chinese names;
* a bulk ``import`` of N lines (every line's subject, scope, extractor and
  session go through the identifier rule) against the same import with the
  rule replaced by a plain strip;
* ``Recaller.search`` over raw turns (k = 10; every hit's text and source
  turn masked) against the same search with masking left out, and
  ``render_prompt`` (every text quoted) against the former unquoted lines;
* ``table`` (every cell shown on one line) against the former cell text.

    python -m tests.benchmarks.bench_names
    python -m tests.benchmarks.bench_names --lines 20000 --turns 3000
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from memdesk import Store, checks
from memdesk.app import tables
from memdesk.names import shown
from memdesk.recall import Recaller
from memdesk.recall import service as recall_service

from ..recall_fixtures import HashEmbedder


def best_of(fn: Callable[[], Any], rounds: int = 5) -> float:
    """The best wall time of ``rounds`` calls (seconds)."""
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def old_check_name(value: Any, label: str, *, limit: int = checks.MAX_NAME) -> str:
    """The check before the identifier rule (strip, not empty, length, no NUL)."""
    text = checks.check_required_text(value, label)
    if len(text) > limit:
        raise ValueError(label)
    return text


@contextmanager
def patched(module: Any, name: str, value: Any):
    saved = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, saved)


def names_part(n: int) -> None:
    ascii_names = [f"reviewer-{i}@team" for i in range(n)]
    zh_names = [f"王工{i}号" for i in range(n)]
    for label, names in (("ascii", ascii_names), ("zh", zh_names)):
        new = best_of(lambda names=names: [checks.check_name(x, "user") for x in names])
        old = best_of(lambda names=names: [old_check_name(x, "user") for x in names])
        print(f"check_name {label:<5} {n:,} names: {new / n * 1e6:.2f} µs each, before "
              f"{old / n * 1e6:.2f} µs ({new / old:.2f}×)")


def import_part(lines: int, folder: Path) -> None:
    path = folder / "facts.jsonl"
    with path.open("w") as f:
        for i in range(lines):
            f.write(json.dumps({
                "subject": f"user:u{i % 997}", "predicate": "likes", "object": f"thing {i}",
                "scope": "global", "extractor": "bench@1", "confidence": 0.95,
                "source": {"session": f"s{i % 503}", "turn": i, "speaker": "user",
                           "text": f"I like thing {i}",
                           "time": f"2026-03-{1 + i % 28:02d}T10:00:00+08:00"}},
                ensure_ascii=False) + "\n")

    def run(tag: str) -> float:
        db = folder / f"{tag}.db"
        with Store.open(db) as store:
            t = time.perf_counter()
            store.facts.import_file(path)
            return time.perf_counter() - t

    rounds = []
    for r in range(2):  # alternate, so a busy moment of the machine hits both
        new = run(f"new{r}")
        with patched(checks, "identifier", lambda text, label: text.strip()):
            old = run(f"old{r}")
        rounds.append((new, old))
    new, old = min(r[0] for r in rounds), min(r[1] for r in rounds)
    print(f"import {lines:,} lines: {lines / new:,.0f} lines/s with the identifier rule, "
          f"{lines / old:,.0f} without ({new / old:.2f}× the time)")


TEMPLATES = [
    "call me on {phone} about the trip to {city}",
    "my budget for {city} is {n} euros\nand not a cent more",
    "we land in {city} on day {n}, write to me at u{n}@example.org",
    "I booked the hotel in {city}; the card ends in {n}",
    "my new number is {phone}, the old one is gone",
    "remind me to pack the charger before {city}",
    "the meeting about {city} moved to Thursday",
]
CITIES = ["York", "Leeds", "Bath", "Hull", "杭州", "张江", "Porto", "Bonn", "Lyon", "Graz"]


def old_render_prompt(hits: list, now: int | None = None) -> str:
    """``Recaller.render_prompt`` before texts were quoted (the baseline)."""
    from memdesk.timeutil import iso

    lines = ["Relevant memory" + (f" (as of {(iso(now) or '')[:10]})" if now is not None else "")
             + ":"]
    for h in hits:
        date = (iso(h.time, h.tz) or "")[:10]
        conf = f"confidence {h.confidence:.2f}" if h.confidence is not None else "raw turn"
        text = " ".join(h.text.split())
        if h.subject and text.startswith(h.subject + " "):
            text = text[len(h.subject) + 1:]
        who = f"{h.subject}: " if h.subject else ""
        lines.append(f"- [{date}] [{conf}] {who}{text}")
    return "\n".join(lines)


def recall_part(turns: int, folder: Path, calls: int) -> None:
    db = folder / "recall.db"
    path = folder / "turns.jsonl"
    with path.open("w") as f:
        for i in range(turns):
            f.write(json.dumps({
                "session": f"s{i // 20}", "turn": i % 20 + 1, "speaker": "user",
                "user": f"u{i % 7}", "time": f"2026-0{1 + i % 9}-{1 + i % 28:02d}T10:00:00+08:00",
                "text": TEMPLATES[i % len(TEMPLATES)].format(
                    phone=f"1360000{i % 10000:04d}", n=i, city=CITIES[i % len(CITIES)])})
                    + "\n")
    with Store.open(db) as store:
        store.facts.ingest_file(path, signals=False)
        recaller = Recaller(store, embedder=HashEmbedder(), turn_embedder=HashEmbedder(),
                            index_dir=folder / "idx")
        queries = ["what is my number", "trip to York", "budget euros", "call me"]
        recaller.search("warm up", over="turns", user="u1")

        def search(i: int) -> list:
            return recaller.search(queries[i % len(queries)], over="turns", user=f"u{i % 7}",
                                   k=10)

        def timed() -> list[float]:
            out = []
            for i in range(calls):
                t = time.perf_counter()
                search(i)
                out.append(time.perf_counter() - t)
            return out

        masked_runs, plain_runs = [], []
        for _ in range(3):
            masked_runs += timed()
            with patched(recall_service, "masked", lambda hit: hit):
                plain_runs += timed()
        new, old = np.percentile(masked_runs, 50), np.percentile(plain_runs, 50)
        print(f"recall over {turns:,} turns (k=10), p50: {new * 1000:.2f} ms masked, "
              f"{old * 1000:.2f} ms without masking ({new / old:.2f}×)")
        hits = search(0)
        now = store.now()

        new_p = best_of(lambda: [Recaller.render_prompt(hits, now) for _ in range(200)])
        old_p = best_of(lambda: [old_render_prompt(hits, now) for _ in range(200)])
        print(f"render_prompt of {len(hits)} hits: {new_p / 200 * 1e6:.0f} µs, the unquoted "
              f"lines {old_p / 200 * 1e6:.0f} µs ({new_p / old_p:.2f}×)")


def table_part(rows: int) -> None:
    data = [(i, f"user:u{i}", "lives_in", f"城市 {i} with a long name", "2026-03-01 10:00")
            for i in range(rows)]
    headers = ["id", "subject", "predicate", "object", "valid"]
    new = best_of(lambda: tables.table(headers, data))
    with patched(tables, "shown", lambda text: text):
        old = best_of(lambda: tables.table(headers, data))
    print(f"table of {rows:,} rows: {new * 1000:.1f} ms, without shown {old * 1000:.1f} ms "
          f"({new / old:.2f}×)")
    assert shown("a\nb") == "a\\nb"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--names", type=int, default=100_000)
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--turns", type=int, default=2_000)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--rows", type=int, default=5_000)
    args = parser.parse_args()
    print(f"load average (1 min) at start: {os.getloadavg()[0]:.2f}")
    names_part(args.names)
    table_part(args.rows)
    with tempfile.TemporaryDirectory() as tmp:
        import_part(args.lines, Path(tmp))
        recall_part(args.turns, Path(tmp), args.calls)
    print(f"load average (1 min) at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
