"""Multi-session conversations against what a careful note-taker would keep.

Each set (``tests/sets/convo_dev/<name>/``, ``tests/sets/convo_blind/<name>/``; the format in
``tests/sets/convo_dev/README.md``) holds ``conversations.jsonl`` (turns of several
sessions, one person or a team sharing a project) and ``expect.jsonl``: every
fact a careful person would record, and checks (what is current at a time, what
must never be stored, what waits for review, conflicts, stated starts, due
days). The turns are ingested into a fresh store (clock fixed after the last
turn) and scored:

* **fact recall**: expected facts some fact row holds (history included);
  ``queued`` also counts a pending review candidate holding it;
* **precision**: distinct values the store holds (rows not retired as never
  true; session states left out) that match an expected fact;
* **checks**: the share that pass, overall and per type;
* **leaks**: values of another person's expected fact the store holds as the
  user's (never right: "must never become the user's");
* **queue**: review candidates per 100 turns, and the share of them whose text
  holds the value of an expected fact said in the turn they cite (what a
  careful reviewer would approve, editing it into that fact where needed).

    python -m tests.benchmarks.eval_conversations                 # every dev set
    python -m tests.benchmarks.eval_conversations --sets blind    # the blind sets: score once
    python -m tests.benchmarks.eval_conversations --sets dev/devE --misses
    python -m tests.benchmarks.eval_conversations --no-signals    # the rules alone, to compare
    python -m tests.benchmarks.eval_conversations --extractor llm # an LLM endpoint, same layer and gates

``--json FILE`` writes every figure.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from memdesk import ManualClock, Store
from memdesk.records import Fact
from memdesk.signals.expected import Expected, load
from memdesk.timeutil import to_us

ROOT = Path(__file__).resolve().parents[2]
SETS = {"dev": ROOT / "tests" / "sets" / "convo_dev", "blind": ROOT / "tests" / "sets" / "convo_blind"}
NEVER_TRUE = ("corrected", "retracted")
DATED = ("todo", "plan", "deadline")


@dataclass
class SetScore:
    """The figures of one set."""

    name: str
    turns: int = 0
    facts: int = 0
    held: int = 0
    queued: int = 0
    values: int = 0
    values_ok: int = 0
    checks: Counter = field(default_factory=Counter)
    passed: Counter = field(default_factory=Counter)
    candidates: int = 0
    approvable: int = 0
    leaks: int = 0
    misses: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"set": self.name, "turns": self.turns, "facts": self.facts,
                "fact_recall": _ratio(self.held, self.facts),
                "fact_recall_with_queue": _ratio(self.queued, self.facts),
                "values": self.values, "precision": _ratio(self.values_ok, self.values),
                "checks": sum(self.checks.values()),
                "checks_passed": _ratio(sum(self.passed.values()), sum(self.checks.values())),
                "by_type": {t: [self.passed[t], n] for t, n in sorted(self.checks.items())},
                "candidates_per_100_turns": round(100 * self.candidates / max(self.turns, 1), 1),
                "candidates_approvable": _ratio(self.approvable, self.candidates),
                "leaks": self.leaks}


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 3) if b else None


def _subjects(store: Store, want: Expected) -> list[str]:
    subject = want.line["subject"]
    if not subject.startswith("person:"):
        return [subject]
    owner = subject.split("/", 1)[0]
    return [s for s in store.facts.subjects(owner + "/") if want.subject_ok(s)]


def _rows(store: Store, want: Expected) -> list[Fact]:
    return [f for s in _subjects(store, want) for f in store.facts.history(s)]


def _current(store: Store, want: Expected, at: int) -> list[Fact]:
    return [f for s in _subjects(store, want) for f in store.facts.as_of(s, valid_at=at, known_at=at)]


def _day(t: int, tz: int) -> str:
    return (datetime(1970, 1, 1) + timedelta(microseconds=t, minutes=tz)).date().isoformat()


def run_check(store: Store, check: Expected, end: int) -> bool:
    """Whether one check passes on the store."""
    c = check.line
    kind = c["type"]
    at = to_us(datetime.fromisoformat(c["at"])) if c.get("at") else end
    preds = check.predicates

    def match(f: Fact) -> bool:
        return ((f.predicate in preds or "*" in preds) and check.object_ok(f.object)
                and check.polarity_ok(f.polarity))

    if kind in ("current", "not_current"):
        hit = any(match(f) for f in _current(store, check, at))
        return hit if kind == "current" else not hit
    if kind == "never":
        return not any(match(f) for f in _rows(store, check))
    if kind == "review":
        for cand in store.review.list():
            if not check.subject_ok(cand.subject):
                continue
            if c.get("predicate") and c["predicate"] != "*" and cand.predicate not in preds:
                continue
            if (c.get("object") or c.get("keywords")) and not check.object_ok(cand.object):
                continue
            return True
        return False
    if kind in ("conflict", "no_conflict"):
        state = "open" if kind == "conflict" else "all"
        hit = any(check.subject_ok(x.subject) and x.predicate in preds for x in store.conflicts.list(state))
        return hit if kind == "conflict" else not hit
    if kind == "start":
        return any(match(f) and _day(f.valid_from, f.tz) == c["day"] for f in _current(store, check, at))
    if kind == "due":  # the format: "a todo/plan/deadline matching object/keywords", whichever of them
        return any(f.predicate in DATED and check.object_ok(f.object) and f.due is not None
                   and _day(f.due, f.tz) == c["day"] for f in _current(store, check, at))
    raise ValueError(f"unknown check type {kind!r}")


def score(name: str, folder: Path, *, signals: bool, misses: bool, extractor: Any = None) -> SetScore:
    """Ingest one set into a fresh store (``extractor``: None for the rules) and score it."""
    turns, facts, checks = load(folder)
    out = SetScore(name=name, turns=len(turns), facts=len(facts))
    last = max(datetime.fromisoformat(t["time"]) for t in turns)
    end = to_us(last + timedelta(minutes=1))
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "conversations.jsonl"
        src.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in turns), "utf-8")
        with Store.open(Path(tmp) / "eval.db", clock=ManualClock(last + timedelta(days=1))) as store:
            summary = store.facts.ingest_file(src, extractor=extractor, signals=signals)
            if summary.extraction_failed:
                print(f"{name}: extraction failed for {summary.extraction_failed} turn(s)", file=sys.stderr)
            subjects = store.facts.subjects()
            rows = [f for s in subjects for f in store.facts.history(s)]
            candidates = store.review.list()
            # fact recall
            for want in facts:
                in_rows = any(want.holds(f.subject, f.predicate, f.object, f.polarity)
                              for f in rows if f.retire_reason not in NEVER_TRUE)
                queued = in_rows or any(want.holds(c.subject, c.predicate, c.object, c.polarity)
                                        for c in candidates)
                out.held += in_rows
                out.queued += queued
                if misses and not in_rows:
                    out.misses.append(f"fact miss {want.line.get('id')}: {want.line['subject']} "
                                      f"{want.line.get('predicate', want.line.get('predicate_any'))} {want.line.get('object') or want.line.get('keywords')}"
                                      f"{' (queued)' if queued else ''}")
            # precision over distinct values held
            values = {(f.subject, f.predicate, f.object, f.polarity) for f in rows
                      if f.retire_reason not in NEVER_TRUE and f.predicate != "status"}
            out.values = len(values)
            theirs = [w for w in facts if w.line["subject"].startswith("person:")]
            for v in sorted(values):
                ok = any(want.holds(*v) for want in facts)
                out.values_ok += ok
                if misses and not ok:
                    out.misses.append(f"extra value: {v[0]} {v[1]} {v[2]!r} {v[3]}")
                # a leak: another person's expected fact (its predicate and value) held as the user's
                if not ok and v[0].startswith("user:") and any(
                        w.line["subject"].startswith(v[0].replace("user:", "person:") + "/")
                        and v[1] in w.predicates and w.object_ok(v[2]) for w in theirs):
                    out.leaks += 1
                    if misses:
                        out.misses.append(f"leak: {v[0]} {v[1]} {v[2]!r} is another person's")
            # checks
            for check in checks:
                kind = check.line["type"]
                out.checks[kind] += 1
                passed = run_check(store, check, end)
                out.passed[kind] += passed
                if misses and not passed:
                    out.misses.append(f"check fail {check.line.get('id')} {kind}: {check.line['subject']} "
                                      f"{check.line.get('predicate')} "
                                      f"{check.line.get('object') or check.line.get('keywords') or ''} "
                                      f"({check.line.get('why', '')})")
            # the review queue's cost
            said: dict[tuple[str, int], list[Expected]] = defaultdict(list)
            for f in facts:
                if f.line.get("turn"):
                    said[tuple(f.line["turn"])].append(f)  # type: ignore[index]
            out.candidates = len(candidates)
            # a candidate whose text holds the value of a fact said in its turn: a careful reviewer
            # would approve it (editing it into that fact)
            out.approvable = sum(any(f.object_ok(c.object, within=True) for f in said[(c.source.session, c.source.turn)])
                                 for c in candidates)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default="dev", help="dev, blind, or kind/name,… (default: dev)")
    parser.add_argument("--misses", action="store_true", help="list every missed fact, extra value and failed check")
    parser.add_argument("--no-signals", action="store_true", help="the extractor alone, without the signal layer")
    parser.add_argument("--extractor", choices=["rules", "llm"], default="rules",
                        help="llm: the OpenAI-compatible endpoint of MEMDESK_LLM_BASE_URL/_MODEL/_API_KEY, "
                             "through the same signal layer and gates")
    parser.add_argument("--json", metavar="FILE", help="write every figure to FILE")
    args = parser.parse_args(argv)
    chosen: list[tuple[str, Path]] = []
    for part in args.sets.split(","):
        kind, _, name = part.partition("/")
        if kind not in SETS:
            parser.error(f"unknown set kind {kind!r} (dev or blind)")
        folders = [SETS[kind] / name] if name else sorted(p for p in SETS[kind].iterdir() if p.is_dir())
        chosen += [(f"{kind}/{f.name}", f) for f in folders]
    extractor = None
    if args.extractor == "llm":
        from memdesk import InvalidInput
        from memdesk.extract.llm import LLMExtractor

        try:
            extractor = LLMExtractor.from_env()
        except InvalidInput as exc:
            parser.error(str(exc))
    results = []
    for name, folder in chosen:
        if not (folder / "expect.jsonl").exists():
            parser.error(f"no set at {folder}")
        s = score(name, folder, signals=not args.no_signals, misses=args.misses, extractor=extractor)
        results.append(s.as_dict())
        d = s.as_dict()
        print(f"{name}: {d['turns']} turns, {d['facts']} facts: recall {d['fact_recall']} "
              f"(with the queue {d['fact_recall_with_queue']}), precision {d['precision']} "
              f"of {d['values']} values; checks {d['checks_passed']} of {d['checks']}; queue "
              f"{d['candidates_per_100_turns']}/100 turns, approvable {d['candidates_approvable']}; "
              f"leaks {d['leaks']}")
        print("   by type: " + ", ".join(f"{t} {p}/{n}" for t, (p, n) in d["by_type"].items()))
        for m in s.misses:
            print("   " + m)
    if args.json:
        Path(args.json).write_text(json.dumps(results, ensure_ascii=False, indent=1), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
