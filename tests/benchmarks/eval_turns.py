"""Evidence-turn recall over raw turns, on the recall development and blind sets.

Each set (``tests/sets/recall_dev/<name>/``, ``tests/sets/recall_blind/<name>/``) holds
``conversations.jsonl`` (turns) and ``questions.jsonl`` (a question, the user
who asks it, the evidence turns). The conversations are ingested into a
temporary store (clock fixed, so nothing drifts with the calendar); every
question is recalled over turns on behalf of its user
(``Recaller.search(q, over="turns", subject="user:<user>")``, what
``memdesk recall --over turns --subject user:NAME`` runs), and the ranks of
its evidence turns are scored:

* ``R@k``: the share of a question's evidence turns in the top k, averaged;
* ``hit@1``: whether the first result is an evidence turn;
* ``short@5``: the share of questions whose recall asked for 5 (``-k 5``,
  a search of its own) came back with fewer than 5 turns although the user
  has 5 or more: the ranked list must be whole.

Questions without evidence (asked about something never said) are left out.

    python -m tests.benchmarks.eval_turns                       # the dev sets
    python -m tests.benchmarks.eval_turns --sets dev/en,dev/zh_streams
    python -m tests.benchmarks.eval_turns --sets blind/en,blind/zh,blind/zh_streams
    python -m tests.benchmarks.eval_turns --turn-embedder use   # the old default, to compare
    python -m tests.benchmarks.eval_turns --words 0             # no BM25 (dense only)
    python -m tests.benchmarks.eval_turns --dense 0             # BM25 only

``--json FILE`` writes every figure, per set and per question kind.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any

from memdesk import ManualClock, Store
from memdesk.db.tables import TurnRow
from memdesk.recall import Recaller, RecallWeights
from sqlalchemy import func, select

ROOT = Path(__file__).resolve().parents[2]
SETS = {"dev": ROOT / "tests" / "sets" / "recall_dev", "blind": ROOT / "tests" / "sets" / "recall_blind"}
CLOCK = datetime.fromisoformat("2026-12-01T00:00:00+00:00")
KS = (1, 3, 5, 10)


def find_set(spec: str) -> Path | None:
    """The folder of a set named ``dev/NAME`` or ``blind/NAME``; None (said on
    stderr) when there is no such set."""
    part, _, name = spec.partition("/")
    if part not in SETS:
        print(f"{spec}: no such set (dev/NAME or blind/NAME)", file=sys.stderr)
        return None
    folder = SETS[part] / name
    if not (folder / "questions.jsonl").exists():
        print(f"{spec}: no such set ({folder})", file=sys.stderr)
        return None
    return folder


def load_set(folder: Path) -> tuple[Path, list[dict[str, Any]]]:
    questions = [json.loads(line) for line in
                 (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    return folder / "conversations.jsonl", questions


def score_set(recaller: Recaller, questions: list[dict[str, Any]],
              turn_ids: dict[tuple[str, int], int],
              turns_of: dict[str, int] | None = None) -> dict[str, Any]:
    """R@k, hit@1 and short@5 over the questions with evidence, overall and
    per kind. ``turns_of``: each user's number of turns (short@5 is left out
    without it)."""
    per: dict[str, list[dict[str, float]]] = defaultdict(list)
    started = time.perf_counter()
    asked = 0
    for q in questions:
        if not q["evidence"]:
            continue
        asked += 1
        hits = recaller.search(q["question"], k=max(KS), over="turns", subject=f"user:{q['user']}")
        ranked = [h.turn_id for h in hits]
        evidence = {turn_ids[(e["session"], e["turn"])] for e in q["evidence"]}
        row = {f"R@{k}": len(evidence & set(ranked[:k])) / len(evidence) for k in KS}
        row["hit@1"] = float(bool(ranked) and ranked[0] in evidence)
        if turns_of is not None:
            five = recaller.search(q["question"], k=5, over="turns", subject=f"user:{q['user']}")
            row["short@5"] = float(len(five) < min(5, turns_of.get(q["user"], 0)))
        per["all"].append(row)
        per[q["kind"]].append(row)
    ms = 1000 * (time.perf_counter() - started) / max(1, asked)
    table = {kind: {"n": len(rows), **{m: sum(r[m] for r in rows) / len(rows) for m in rows[0]}}
             for kind, rows in per.items()}
    return {"table": table, "ms_per_question": ms}


METRICS = ("hit@1", *[f"R@{k}" for k in KS], "short@5")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default="dev/en,dev/zh,dev/zh_streams",
                    help="comma-separated: dev/NAME or blind/NAME (default: the dev sets)")
    ap.add_argument("--turn-embedder", default=None, help="embedder of turns (default: e5)")
    ap.add_argument("--dense", type=float, default=None, help="weight of the dense channel")
    ap.add_argument("--words", type=float, default=None, help="weight of the BM25 channel")
    ap.add_argument("--dated", type=float, default=None,
                    help="bonus of a turn naming a day when the question asks when")
    ap.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    ap.add_argument("--keep", metavar="DIR", help="keep each set's store (and its vectors) in "
                    "DIR and reuse it on the next run (tuning without re-embedding)")
    args = ap.parse_args(argv)
    # only what is asked for is passed on, so the script also measures older code
    options: dict[str, Any] = {}
    chosen = {name: value for name, value in
              (("dense", args.dense), ("words", args.words), ("dated", args.dated))
              if value is not None}
    if chosen:
        options["weights"] = RecallWeights(**chosen)
    if args.turn_embedder:
        options["turn_embedder"] = args.turn_embedder
    out: dict[str, Any] = {}
    print(f"{'set':<18} {'kind':<17} {'n':>4} " + " ".join(f"{m:>7}" for m in METRICS))
    for spec in [s.strip() for s in args.sets.split(",") if s.strip()]:
        folder = find_set(spec)
        if folder is None:
            return 2
        conversations, questions = load_set(folder)
        with tempfile.TemporaryDirectory() as scratch:
            tmp = Path(args.keep) / spec.replace("/", "-") if args.keep else Path(scratch)
            tmp.mkdir(parents=True, exist_ok=True)
            fresh = not (tmp / "eval.db").exists()
            store = Store.open(tmp / "eval.db", clock=ManualClock(CLOCK))
            try:
                if fresh:
                    store.facts.ingest_file(conversations)
                with store.engine.connect() as conn:
                    turn_ids = {(s, t): i for i, s, t in conn.execute(
                        select(TurnRow.id, TurnRow.session, TurnRow.turn))}
                    turns_of = {str(u): int(n) for u, n in conn.execute(
                        select(TurnRow.user, func.count()).group_by(TurnRow.user))}
                recaller = Recaller(store, index_dir=tmp / "index", **options)
                started = time.perf_counter()
                recaller.search("warm up", k=1, over="turns")  # embeds every turn once
                embed_s = time.perf_counter() - started
                result = score_set(recaller, questions, turn_ids, turns_of)
            finally:
                store.close()
        result["embed_seconds"] = embed_s
        result["turns"] = len(turn_ids)
        out[spec] = result
        for kind, row in sorted(result["table"].items(), key=lambda kv: (kv[0] != "all", kv[0])):
            print(f"{spec:<18} {kind:<17} {row['n']:>4} " + " ".join(
                f"{row[m]:>7.3f}" for m in METRICS))
        print(f"{spec:<18} {len(turn_ids)} turns embedded in {embed_s:.0f} s; "
              f"{result['ms_per_question']:.1f} ms per question")
    # dev and blind apart: the sets tuned on, and those scored once after tuning
    for part in ("dev", "blind"):
        mine = {spec: r["table"]["all"] for spec, r in out.items() if spec.startswith(part + "/")}
        if mine:
            print(f"{part}: " + "; ".join(f"{spec.partition('/')[2]} R@5 {row['R@5']:.3f} "
                                          f"R@10 {row['R@10']:.3f} short@5 {row['short@5']:.3f}"
                                          for spec, row in mine.items()))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
