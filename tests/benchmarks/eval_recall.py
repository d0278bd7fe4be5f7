"""Recall quality on the probe set (``tests/sets/probes/recall.jsonl``).

Builds the demo store from ``data/conversations/`` in a temporary folder (the
clock fixed at 2026-06-01, so statuses do not drift with the calendar), runs
every probe through ``Recaller.search`` and prints hit@1 and hit@5 per
language and per embedder, and the probes whose stale value ranked first.

    python -m tests.benchmarks.eval_recall                      # default embedder (use)
    python -m tests.benchmarks.eval_recall --embedders use,e5,use+e5
    python -m tests.benchmarks.eval_recall --verbose            # every miss, with its top 5

A hit matches a probe when its source turn is one of the probe's
``{"session", "turn"}`` targets, or when it is a fact whose object is one of
its ``{"object"}`` targets.
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
from memdesk.ingest import demo_files
from memdesk.recall import Recaller, RecallHit
from sqlalchemy import select

ROOT = Path(__file__).resolve().parents[2]
PROBES = ROOT / "tests" / "sets" / "probes" / "recall.jsonl"
CLOCK = datetime.fromisoformat("2026-06-01T00:00:00+00:00")


def load_probes(path: Path = PROBES) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def build_demo_store(folder: Path) -> Store:
    store = Store.open(folder / "demo.db", clock=ManualClock(CLOCK))
    for path in demo_files():
        store.facts.ingest_file(path)
    return store


def matches(hit: RecallHit, targets: list[dict[str, Any]]) -> bool:
    for t in targets:
        if "object" in t and hit.kind == "fact" and hit.object == t["object"]:
            return True
        if "session" in t and hit.source is not None and hit.source.session == t["session"] \
                and hit.source.turn == t["turn"] and hit.kind in ("memory", "fact", "turn"):
            return True
    return False


def sessions_of(store: Store) -> dict[str, str]:
    """Each session's user (whose conversation it is)."""
    with store.engine.connect() as conn:
        return {s: u or "me" for s, u in conn.execute(select(TurnRow.session, TurnRow.user).distinct())}


def leaks(hits: list[RecallHit], subject: str | None, owner: dict[str, str]) -> list[str]:
    """The hits of a recall asked for ``user:X`` that carry someone else's
    words (a source turn of another user's conversation) or are about another
    user."""
    if not subject or not subject.startswith("user:"):
        return []
    user = subject.split(":", 1)[1]
    return [h.text for h in hits
            if (h.source is not None and owner.get(h.source.session, user) != user)
            or (h.subject or "").startswith("user:") and h.subject != subject]


def evaluate(recaller: Recaller, probes: list[dict[str, Any]], k: int = 5) -> dict[str, Any]:
    """hit@1, hit@5 per language and per kind, stale-first violations, scope
    leaks (another user's memory in a recall asked for one user) and misses."""
    per: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    stale_first: list[str] = []
    leaked: list[str] = []
    misses: list[dict[str, Any]] = []
    owner = sessions_of(recaller.store)
    started = time.perf_counter()
    for p in probes:
        hits = recaller.search(p["query"], k=k, subject=p.get("subject"),
                               over=p.get("over", "memories"))
        ranked = hits[:k]
        h1 = bool(ranked) and matches(ranked[0], p["expect"])
        h5 = any(matches(h, p["expect"]) for h in ranked)
        per[p["lang"]].append((h1, h5))
        per["all"].append((h1, h5))
        per[f"kind:{p.get('kind', 'memory')}"].append((h1, h5))
        if ranked and any(s in ranked[0].text for s in p.get("stale", [])):
            stale_first.append(p["id"])
        if leaks(hits, p.get("subject"), owner):
            leaked.append(p["id"])
        if not h1:
            misses.append({"id": p["id"], "query": p["query"], "hit@5": h5,
                           "top": [f"{h.kind}/{h.status} {h.score:.3f} {h.text[:50]}"
                                   for h in ranked]})
    seconds = time.perf_counter() - started
    table = {lang: {"n": len(v), "hit@1": sum(a for a, _ in v) / len(v),
                    "hit@5": sum(b for _, b in v) / len(v)} for lang, v in per.items()}
    return {"table": table, "stale_first": stale_first, "leaks": leaked, "misses": misses,
            "ms_per_query": 1000 * seconds / max(1, len(probes))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--embedders", default="use", help="comma-separated: use, e5, use+e5")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    probes = load_probes()
    print(f"probe set: {PROBES.relative_to(ROOT)} ({len(probes)} probes: "
          f"{sum(p['lang'] == 'zh' for p in probes)} zh, {sum(p['lang'] == 'en' for p in probes)} en)")
    print(f"{'embedder':<10} {'lang':<16} {'n':>3} {'hit@1':>6} {'hit@5':>6} {'ms/query':>9}  stale first")
    worst = 1.0
    with tempfile.TemporaryDirectory() as tmp:
        store = build_demo_store(Path(tmp))
        try:
            for spec in [s.strip() for s in args.embedders.split(",") if s.strip()]:
                recaller = Recaller(store, embedder=spec, index_dir=Path(tmp) / f"index-{spec}")
                recaller.search("warm up", k=1)  # embeds the store and loads the model
                recaller.search("warm up", k=1, over="turns")  # and the turns (as `memdesk demo`)
                result = evaluate(recaller, probes)
                kinds = sorted(key for key in result["table"] if key.startswith("kind:"))
                for lang in ("zh", "en", "all", *kinds):
                    row = result["table"][lang]
                    print(f"{spec:<10} {lang:<16} {row['n']:>3} {row['hit@1']:>6.3f} {row['hit@5']:>6.3f} "
                          f"{result['ms_per_query']:>9.1f}  "
                          f"{', '.join(result['stale_first']) if lang == 'all' else ''}")
                if result["leaks"]:
                    print(f"  scope leaks: {', '.join(result['leaks'])}")
                if spec == "use":
                    worst = min(worst, result["table"]["all"]["hit@5"])
                if args.verbose:
                    for m in result["misses"]:
                        print(f"  miss@1 {m['id']} ({'in top 5' if m['hit@5'] else 'not in top 5'}): "
                              f"{m['query']}")
                        for line in m["top"]:
                            print(f"      {line}")
        finally:
            store.close()
    print("target: hit@5 >= 0.9 with the default embedder (use)")
    return 0 if worst >= 0.9 else 1


if __name__ == "__main__":
    sys.exit(main())
