"""Evaluation: dated histories imported in shuffled order, as-of accuracy.

    python -m tests.benchmarks.eval_histories                  # 2,000 histories, 3 shuffles
    python -m tests.benchmarks.eval_histories --histories 200 --seed 3

Each history is one subject's single-valued ``lives_in`` over the years, told
as evolutions with a stated start (``valid_from``), the way a population
table or a dated CV is imported. The generator makes the cases a bitemporal
store must get right whatever order the lines arrive in:

* **returns**: a value that comes back after another (A, B, A);
* **equal starts**: the same change told twice (same start and value, another
  turn), and two subjects whose changes fall on the same instant;
* **late corrections**: "the value from year Y was wrong, it was X", said
  after later changes were already told (``change: correction`` with the
  corrected interval's start as ``valid_from``).

"plain" histories have none of these on purpose (a value may still recur by
chance, which is a return all the same).

Every history is imported line by line in a random order (each line its own
turn, recorded at its own time), then for every year boundary and a random
instant inside each interval, ``Store.as_of(subject, "lives_in", valid_at=T)``
(known now) is compared with the history's value at T. Prints the share of
exact answers overall and per case, and the histories with a wrong answer.
The goal is exact: every as-of answer right, whatever the order.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from memdesk.core import Store

PLACES = ["Leeds", "York", "Bath", "Hull", "Ely", "Wells", "Derby", "Truro", "徐家汇", "张江",
          "望京", "回龙观", "Fitzroy", "Marrickville"]
TOLD = datetime(2026, 1, 1, tzinfo=UTC)  # when the first line was told; each next line a minute later


@dataclass(frozen=True)
class Change:
    """One line of a history: ``value`` from ``start`` on (or, as a
    correction, instead of the value that held from ``start``)."""

    start: datetime
    value: str
    correction: bool = False


def make_history(rng: random.Random, shared_starts: list[datetime]) -> tuple[list[Change], str]:
    """A history and the case it exercises ("return", "equal-start", "correction", "plain")."""
    case = rng.choice(["return", "equal-start", "correction", "plain"])
    years = sorted(rng.sample(range(1900, 2025), rng.randint(3, 7)))
    starts = [datetime(y, rng.randint(1, 12), 1, tzinfo=UTC) for y in years]
    if case == "equal-start" and shared_starts:
        starts[rng.randrange(len(starts))] = rng.choice(shared_starts)
        starts = sorted(set(starts))
    shared_starts.extend(starts[:1])
    values: list[str] = []
    for _ in starts:
        options = [p for p in PLACES if not values or p != values[-1]]
        values.append(rng.choice(options))
    if case == "return" and len(values) >= 3:
        i = rng.randrange(2, len(values))
        values[i] = values[i - 2] if values[i - 2] != values[i - 1] else values[i]
    changes = [Change(s, v) for s, v in zip(starts, values, strict=True)]
    if case == "equal-start":
        changes.append(rng.choice(changes))  # told again in another turn
    if case == "correction":
        i = rng.randrange(len(changes))
        wrong = changes[i]
        right = rng.choice([p for p in PLACES if p not in (wrong.value,)
                            and (i == 0 or p != changes[i - 1].value)
                            and (i + 1 >= len(changes) or p != changes[i + 1].value)])
        changes.append(Change(wrong.start, right, correction=True))
    return changes, case


def truth(changes: list[Change], t: datetime) -> str | None:
    """The value at ``t``: the latest start at or before it, corrected if a
    correction names that start."""
    told = [c for c in changes if not c.correction]
    holding = [c for c in told if c.start <= t]
    if not holding:
        return None
    current = max(holding, key=lambda c: c.start)
    corrected = [c for c in changes if c.correction and c.start == current.start]
    return corrected[-1].value if corrected else current.value


def probes(changes: list[Change], rng: random.Random) -> list[datetime]:
    starts = sorted({c.start for c in changes})
    out = list(starts)
    for a, b in zip(starts, [*starts[1:], starts[-1] + timedelta(days=3650)], strict=True):
        span = int((b - a).total_seconds())
        if span > 1:
            out.append(a + timedelta(seconds=rng.randrange(1, span)))
    out.append(starts[0] - timedelta(days=1))
    return out


def import_line(subject: str, change: Change, number: int) -> str:
    told = TOLD + timedelta(minutes=number)
    return json.dumps({
        "subject": subject, "predicate": "lives_in", "object": change.value,
        "valid_from": change.start.isoformat(),
        "change": "correction" if change.correction else "evolution",
        "confidence": 0.95,
        "source": {"session": f"hist-{subject[5:]}", "turn": number, "speaker": "user",
                   "kind": "user_explicit", "time": told.isoformat(),
                   "text": f"{'correction: ' if change.correction else ''}from "
                           f"{change.start:%Y-%m} lived in {change.value}"},
        "extractor": "eval-histories@1",
    }, ensure_ascii=False)


def run(histories: int, seed: int, folder: Path) -> tuple[Counter, Counter, list[str]]:
    rng = random.Random(seed)
    shared: list[datetime] = []
    made = [(f"user:h{seed}-{i}", *make_history(rng, shared)) for i in range(histories)]
    lines = []
    for subject, changes, _case in made:
        order = list(changes)
        rng.shuffle(order)
        lines.extend((subject, c) for c in order)
    rng.shuffle(lines)
    path = folder / f"histories-{seed}.jsonl"
    path.write_text("\n".join(import_line(s, c, n) for n, (s, c) in enumerate(lines, 1)) + "\n",
                    encoding="utf-8")
    right: Counter = Counter()
    asked: Counter = Counter()
    wrong: list[str] = []
    with Store.open(str(folder / f"histories-{seed}.db")) as store:
        store.import_file(path)
        for subject, changes, case in made:
            bad = False
            for t in probes(changes, rng):
                rows = store.as_of(subject, "lives_in", valid_at=t)
                got = rows[0].object if len(rows) == 1 else (None if not rows else "|".join(
                    sorted(r.object for r in rows)))
                ok = got == truth(changes, t)
                asked[case] += 1
                right[case] += ok
                bad = bad or not ok
            if bad:
                wrong.append(f"{subject} ({case}): " + ", ".join(
                    f"{c.start:%Y-%m} {'corr ' if c.correction else ''}{c.value}" for c in changes))
    return asked, right, wrong


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--histories", type=int, default=2000)
    ap.add_argument("--shuffles", type=int, default=3, help="runs with different seeds")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--show", type=int, default=5, help="wrong histories to print per run")
    args = ap.parse_args(argv)
    total_asked: Counter = Counter()
    total_right: Counter = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(args.seed, args.seed + args.shuffles):
            asked, right, wrong = run(args.histories, seed, Path(tmp))
            total_asked += asked
            total_right += right
            n, r = sum(asked.values()), sum(right.values())
            print(f"shuffle {seed}: {r:,}/{n:,} as-of answers exact ({r / n:.4f}); "
                  f"{len(wrong)} of {args.histories:,} histories with a wrong answer")
            for line in wrong[:args.show]:
                print(f"  {line}")
    n, r = sum(total_asked.values()), sum(total_right.values())
    print(f"overall: {r:,}/{n:,} exact ({r / n:.4f})")
    for case in sorted(total_asked):
        print(f"  {case:<12} {total_right[case]:,}/{total_asked[case]:,} "
              f"({total_right[case] / total_asked[case]:.4f})")
    return 0 if r == n else 1


if __name__ == "__main__":
    raise SystemExit(main())
