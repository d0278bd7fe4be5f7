"""Recall over memories with the told facts' turn vector mapped (the default,
``core/recall/query_map.py``) against embedded by e5 (``IndexSettings(
told_query_map=False)``), in the same run, on the same store.

* the probe set (``tests/sets/probes/recall.jsonl``, its probes over memories):
  hit@1 and hit@5 as ``eval_recall`` scores them;
* the recall sets (``tests/sets/recall_dev``, ``tests/sets/recall_blind``): each question
  with evidence recalled over memories for its user (k 10, what ``memdesk
  recall --subject user:NAME`` runs); **hit@5 / hit@10**: a memory or fact
  told in an evidence turn, or in the turn right after it (the assistant's
  confirmation), among the first 5 / 10; the questions whose top 10 is the
  same both ways; milliseconds per question.

Dev and blind apart. The model card (``docs/query-map.md``) quotes this.

    python -m tests.benchmarks.eval_told
    python -m tests.benchmarks.eval_told --sets blind/en,blind/zh --no-probes
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from memdesk import ManualClock, Store
from memdesk.recall import IndexSettings, Recaller

from .eval_recall import build_demo_store, evaluate, load_probes
from .eval_turns import CLOCK, find_set, load_set

WAYS = {"mapped": IndexSettings(), "e5": IndexSettings(told_query_map=False)}


def score_memories(recaller: Recaller, questions: list[dict[str, Any]]) -> dict[str, Any]:
    """hit@5, hit@10, each question's top 10 (keys) and ms per question."""
    hit5 = hit10 = asked = 0
    tops: list[tuple] = []
    started = time.perf_counter()
    for q in questions:
        if not q["evidence"]:
            continue
        asked += 1
        told = {(e["session"], e["turn"] + d) for e in q["evidence"] for d in (0, 1)}
        hits = recaller.search(q["question"], k=10, subject=f"user:{q['user']}")
        found = [h.source is not None and (h.source.session, h.source.turn) in told for h in hits]
        hit5 += any(found[:5])
        hit10 += any(found)
        tops.append(tuple(h.key for h in hits))
    return {"n": asked, "hit@5": hit5 / max(1, asked), "hit@10": hit10 / max(1, asked),
            "tops": tops, "ms": 1000 * (time.perf_counter() - started) / max(1, asked)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default="dev/en,dev/zh,blind/en,blind/zh",
                    help="comma-separated: dev/NAME or blind/NAME")
    ap.add_argument("--no-probes", action="store_true", help="skip the probe set")
    args = ap.parse_args(argv)
    if not args.no_probes:
        probes = [p for p in load_probes() if p.get("over", "memories") == "memories"]
        with tempfile.TemporaryDirectory() as tmp:
            store = build_demo_store(Path(tmp))
            try:
                for way, settings in WAYS.items():
                    recaller = Recaller(store, index_dir=Path(tmp) / "index", index=settings)
                    recaller.search("warm up", k=1)
                    recaller.search("warm up", k=1, over="turns")
                    row = evaluate(recaller, probes)["table"]["all"]
                    print(f"probes (over memories, {row['n']})  told {way:<6} hit@1 {row['hit@1']:.3f} "
                          f"hit@5 {row['hit@5']:.3f}")
            finally:
                store.close()
    for spec in [s.strip() for s in args.sets.split(",") if s.strip()]:
        folder = find_set(spec)
        if folder is None:
            return 2
        conversations, questions = load_set(folder)
        with tempfile.TemporaryDirectory() as tmp:
            store = Store.open(Path(tmp) / "eval.db", clock=ManualClock(CLOCK))
            try:
                store.facts.ingest_file(conversations)
                results = {}
                for way, settings in WAYS.items():
                    recaller = Recaller(store, index_dir=Path(tmp) / "index", index=settings)
                    recaller.search("warm up", k=1)
                    recaller.search("warm up", k=1, over="turns")  # embeds every turn once
                    results[way] = score_memories(recaller, questions)
            finally:
                store.close()
        same = sum(a == b for a, b in zip(results["mapped"]["tops"], results["e5"]["tops"],
                                          strict=True))
        for way, r in results.items():
            print(f"{spec:<10} ({r['n']} questions) told {way:<6} hit@5 {r['hit@5']:.3f} "
                  f"hit@10 {r['hit@10']:.3f}  {r['ms']:.1f} ms per question")
        print(f"{spec:<10} the same top 10 both ways: {same} of {results['e5']['n']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
