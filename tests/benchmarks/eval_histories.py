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

Every history is imported line by line in a random order, the lines of all
subjects interleaved (each line its own turn, told at its own time: a minute
after the line before it), then for every year boundary and a random
instant inside each interval, ``store.facts.as_of(subject, "lives_in", valid_at=T)``
(known now) is compared with the history's value at T, and, known at the
time each third line of the subject was told, with the value the lines told
by then give (a correction whose wrong value was not told yet says what held
from its start).

**fuzzy** histories are told as a conversation is, in order: "I live in A"
(heard, said again now and then), then moves said with a precision ("last
month", "in April", "last year": ``valid_from`` and ``valid_from_latest``),
some after and some before what was said of the old value. The value a
history gives follows the rule of docs/DESIGN.md §2.2, computed here from the
story itself: the old value held at every instant it was said; a move starts
at the earliest instant its precision allows after the last of them (right
after it when the whole precision lies before it). Their lines are
interleaved with every other subject's, each keeping its own told time, and
are asked on a grid of valid times (each instant said, each move's bounds,
just before and after) as known at each time one of its lines was told.

Prints the share of exact answers overall and per case, and the histories
with a wrong answer. The goal is exact: every as-of answer right, whatever
the order.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
from collections import Counter
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from memdesk import Store

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


def told_truth(told: list[Change], t: datetime) -> str | None:
    """The value at ``t`` that the lines ``told`` so far give: as ``truth``,
    where a correction whose wrong value was not told yet is a change of its own."""
    starts = {c.start for c in told if not c.correction}
    return truth([replace(c, correction=False) if c.correction and c.start not in starts else c
                  for c in told], t)


def _answer(store: Store, subject: str, t: datetime, known: datetime | None = None) -> str | None:
    rows = store.facts.as_of(subject, "lives_in", valid_at=t, known_at=known)
    return rows[0].object if len(rows) == 1 else (None if not rows else "|".join(
        sorted(r.object for r in rows)))


# ------------------------------------------------------------ fuzzy starts
@dataclass(frozen=True)
class Said:
    """One line of a conversation-like history: at ``told``, ``value`` holds
    now (a move ``window`` None: heard) or a move to it happened within
    ``window`` = (earliest, latest), inclusive."""

    told: datetime
    value: str
    window: tuple[datetime, datetime] | None = None


US = timedelta(microseconds=1)


def make_fuzzy(rng: random.Random, start: datetime) -> list[Said]:
    """A person's home over a year or two, told in order: a first address,
    mentions of the address they live at (at least one before each move),
    moves said with the precision of a week, a month or a year, the stretch
    lying after what was said (the start is bounded), before it (clamped) or
    with nothing said in it."""
    places = rng.sample(PLACES, 5)
    told = start
    out = [Said(told, places[0])]
    current = places[0]
    for place in places[1:rng.randint(2, 5)]:
        # said again (at least once after the move before: a conversation goes on)
        for _ in range(rng.randint(1, 3)):
            told += timedelta(days=rng.randint(1, 40), hours=rng.randint(0, 9))
            out.append(Said(told, current))
        told += timedelta(days=rng.randint(2, 60), hours=rng.randint(0, 9))
        days = rng.choice([7, 30, 365])
        # the stretch ends this many days before it is told: mostly soon before
        # (what was said of the old value falls in it), now and then long before
        back = rng.choice([0, 1, rng.randint(0, days // 2 + 1), rng.randint(0, days + 60)])
        latest = told - timedelta(days=back)
        earliest = latest - timedelta(days=days) + US
        out.append(Said(told, place, (earliest, latest)))
        current = place
    return out


def fuzzy_truth(said: list[Said], t: datetime) -> str | None:
    """The value at ``t`` by the rule of docs/DESIGN.md §2.2, from the story
    alone: replay the lines in order, keeping each value's stretch and the
    instants it was said to hold (a heard value: when said; a move: the latest
    its start can be)."""
    spans: list[list] = []  # [value, start, end or None, instants said]
    for s in said:
        if s.window is None:
            holding = next((sp for sp in spans if sp[1] <= s.told and (sp[2] is None
                                                                      or s.told < sp[2])), None)
            if holding is None:
                spans.append([s.value, s.told, None, [s.told]])
            elif holding[0] == s.value:
                holding[3].append(s.told)
            continue
        earliest, latest = s.window
        latest = min(latest, s.told) if earliest <= s.told else latest
        evidence = [x for sp in spans if sp[0] != s.value for x in sp[3]
                    if sp[1] <= x and (sp[2] is None or x < sp[2]) and earliest <= x < s.told]
        begin, end_latest = earliest, latest
        if evidence:
            begin = max(evidence) + US
            if max(evidence) >= latest:
                end_latest = s.told
        for sp in spans:
            if sp[1] < begin and (sp[2] is None or sp[2] > begin):
                sp[2] = begin
        spans.append([s.value, begin, None, [end_latest]])
    for value, begin, end, _ in spans:
        if begin <= t and (end is None or t < end):
            return value
    return None


def fuzzy_line(subject: str, s: Said, number: int) -> str:
    line = {"subject": subject, "predicate": "lives_in", "object": s.value,
            "confidence": 0.95, "extractor": "eval-histories@1",
            "source": {"session": f"talk-{subject[5:]}", "turn": number, "speaker": "user",
                       "kind": "user_explicit", "time": s.told.isoformat(),
                       "text": f"I moved to {s.value}" if s.window else f"I live in {s.value}"}}
    if s.window is not None:
        line.update(valid_from=s.window[0].isoformat(), valid_from_latest=s.window[1].isoformat(),
                    change="evolution")
    return json.dumps(line, ensure_ascii=False)


def fuzzy_probes(said: list[Said]) -> list[datetime]:
    points = set()
    for s in said:
        points |= {s.told, s.told - US, s.told + US, s.told + timedelta(days=3)}
        if s.window:
            points |= {s.window[0], s.window[1], s.window[0] - US, s.window[1] + US}
    return sorted(points)


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
    text = [import_line(s, c, n) for n, (s, c) in enumerate(lines, 1)]
    told_by: dict[str, list[tuple[datetime, Change]]] = {}
    for n, (s, c) in enumerate(lines, 1):
        told_by.setdefault(s, []).append((TOLD + timedelta(minutes=n), c))
    # conversation-like histories with fuzzy starts, interleaved with everything else
    fuzzy = [(f"user:f{seed}-{i}", make_fuzzy(rng, TOLD + timedelta(days=rng.randint(0, 300))))
             for i in range(max(histories // 4, 1))]
    queue = [(subject, n, s) for subject, said in fuzzy for n, s in enumerate(said, 1)]
    for subject, n, s in queue:  # each keeps its own order and told time, at a random place
        text.insert(rng.randint(0, len(text)), (subject, n, s))  # type: ignore[arg-type]
    # a subject's lines must stay in order: put them back in order among the places drawn
    slots = [i for i, x in enumerate(text) if isinstance(x, tuple)]
    for i, item in zip(slots, queue, strict=True):
        text[i] = fuzzy_line(item[0], item[2], item[1])
    path = folder / f"histories-{seed}.jsonl"
    path.write_text("\n".join(text) + "\n", encoding="utf-8")
    right: Counter = Counter()
    asked: Counter = Counter()
    wrong: list[str] = []
    with Store.open(str(folder / f"histories-{seed}.db")) as store:
        store.facts.import_file(path)
        for subject, changes, case in made:
            bad = False
            told = told_by[subject]
            knowns = [(k, [c for when, c in told if when <= k]) for k, _ in told[2::3]]
            for t in probes(changes, rng):
                asks = [(_answer(store, subject, t), truth(changes, t))]
                asks += [(_answer(store, subject, t, k), told_truth(part, t)) for k, part in knowns]
                for got, want in asks:
                    asked[case] += 1
                    right[case] += got == want
                    bad = bad or got != want
            if bad:
                wrong.append(f"{subject} ({case}): " + ", ".join(
                    f"{c.start:%Y-%m} {'corr ' if c.correction else ''}{c.value}" for c in changes))
        for subject, said in fuzzy:
            for f in store.facts.history(subject, "lives_in"):
                if f.copy_of is None:
                    asked[f"fuzzy starts {f.start}"] += 1
            bad = False
            for k in [s.told for s in said]:
                part = [s for s in said if s.told <= k]
                for t in fuzzy_probes(said):
                    ok = _answer(store, subject, t, k) == fuzzy_truth(part, t)
                    asked["fuzzy"] += 1
                    right["fuzzy"] += ok
                    bad = bad or not ok
            if bad:
                wrong.append(f"{subject} (fuzzy): " + ", ".join(
                    f"{s.told:%Y-%m-%d} {s.value}" + (f" in {s.window[0]:%m-%d}..{s.window[1]:%m-%d}"
                                                      if s.window else "") for s in said))
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
            n = sum(v for c, v in asked.items() if not c.startswith("fuzzy starts"))
            r = sum(right.values())
            print(f"shuffle {seed}: {r:,}/{n:,} as-of answers exact ({r / n:.4f}); "
                  f"{len(wrong)} of {args.histories:,} histories with a wrong answer")
            for line in wrong[:args.show]:
                print(f"  {line}")
    answers = {c: n for c, n in total_asked.items() if not c.startswith("fuzzy starts")}
    n, r = sum(answers.values()), sum(total_right.values())
    print(f"overall: {r:,}/{n:,} exact ({r / n:.4f})")
    for case in sorted(total_asked):
        if case.startswith("fuzzy starts"):
            continue
        print(f"  {case:<12} {total_right[case]:,}/{total_asked[case]:,} "
              f"({total_right[case] / total_asked[case]:.4f})")
    kinds = {c[len("fuzzy starts "):]: n for c, n in total_asked.items()
             if c.startswith("fuzzy starts")}
    print("  fuzzy histories' rows by start: " + ", ".join(f"{k} {n:,}" for k, n in sorted(kinds.items())))
    return 0 if r == n else 1


if __name__ == "__main__":
    raise SystemExit(main())
