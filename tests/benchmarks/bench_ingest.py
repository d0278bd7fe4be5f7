"""Benchmark: end-to-end conversation ingest throughput.

    python -m tests.benchmarks.bench_ingest               # store pre-filled with 100k facts
    python -m tests.benchmarks.bench_ingest --copies 5    # quicker

Fills a store with ~100,000 fact rows (the bench_store history for 10,000
subjects), then ingests the demo conversations in data/conversations/, copied
``--copies`` times under fresh session and user names, through
``store.facts.ingest_file``: raw turns stored, the rule extractor, every gate, the
audit entry. Prints turns/s, with the extractor alone on the same turns (same
run) as the baseline, and the ingest with the rules alone against the rules
behind the signal layer (the default), each on its own copy of the turns into
the same store. Target: >= 1,000 turns/s with the signal layer.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

from memdesk import Store
from memdesk.extract.rules import extract
from memdesk.ingest import iter_turns
from memdesk.signals.layer import SignalLayer

from tests.benchmarks.bench_store import write_dataset

CONVERSATIONS = Path(__file__).resolve().parents[2] / "data" / "conversations"


def write_conversations(path: Path, copies: int) -> int:
    """The demo conversations, ``copies`` times with distinct sessions and users."""
    n = 0
    with open(path, "w", encoding="utf-8") as out:
        for copy in range(copies):
            for src in sorted(CONVERSATIONS.glob("*.jsonl")):
                for line in src.read_text(encoding="utf-8").splitlines():
                    if not line.strip():
                        continue
                    turn = json.loads(line)
                    turn["session"] = f"{turn['session']}-c{copy}"
                    turn["user"] = f"{turn.get('user') or 'me'}{copy}"
                    if turn.get("project"):
                        turn["project"] = f"{turn['project']}{copy}"
                    out.write(json.dumps(turn, ensure_ascii=False) + "\n")
                    n += 1
    return n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--copies", type=int, default=20)
    ap.add_argument("--prefill-subjects", type=int, default=10_000)
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="memdesk-ingest-bench-"))
    try:
        facts = work / "facts.jsonl"
        write_dataset(facts, args.prefill_subjects)
        store = Store.open(work / "bench.db")
        t0 = time.perf_counter()
        with store.bulk():  # as the command line imports
            pre = store.facts.import_file(facts)
        print(f"prefill: {pre.fact_rows:,} fact rows in {time.perf_counter() - t0:.1f} s")

        convo = work / "turns.jsonl"
        n = write_conversations(convo, args.copies)
        plain = work / "turns-rules-only.jsonl"  # the same turns under other names, for the rules alone
        plain.write_text("".join(line.replace('"session": "', '"session": "r-').replace('"user": "', '"user": "r')
                                 .replace('"project": "', '"project": "r') + "\n"
                                 for line in convo.read_text("utf-8").splitlines()), "utf-8")
        turns = [t for _, t in iter_turns(convo)]
        t0 = time.perf_counter()
        extracted = sum(len(extract(t)) for t in turns)
        base = time.perf_counter() - t0
        print(f"baseline, same run: rule extractor alone on {n:,} turns: {n / base:,.0f} turns/s "
              f"({extracted:,} facts)")
        layer = SignalLayer()
        user_turns = [t for t in turns if t.speaker == "user"]
        t0 = time.perf_counter()
        clauses = sum(len(layer.read(t, ())) for t in user_turns)
        read = time.perf_counter() - t0
        print(f"signal layer alone: {len(user_turns):,} user turns, {clauses:,} clauses read in {read:.2f} s "
              f"({1000 * read / max(clauses, 1):.3f} ms per clause; {n / read:,.0f} turns/s over all {n:,} turns)")

        rates = {}
        for label, path, signals in (("rules only", plain, False), ("rules + signal layer", convo, True)):
            t0 = time.perf_counter()
            with store.bulk():  # as the command line imports
                summary = store.facts.ingest_file(path, signals=signals)
            dt = time.perf_counter() - t0
            rates[label] = summary.turns / dt
            print(f"ingest, {label}: {summary.turns:,} turns in {dt:.2f} s -> {rates[label]:,.0f} turns/s "
                  f"(all gates on; {summary.asserted:,} asserted, {summary.evolutions:,} evolutions, "
                  f"{summary.corrections:,} corrections, {summary.queued:,} queued, "
                  f"{summary.conflicts:,} conflicts, {summary.merged:,} merged, "
                  f"{summary.dropped:,} turns dropped); {dt / base:.2f}x the extractor-only time")
        print(f"the signal layer's cost: {rates['rules + signal layer'] / rates['rules only']:.2f}x the "
              f"rules-only ingest rate (target: >= 1,000 turns/s with the layer)")
        t0 = time.perf_counter()
        again = store.facts.ingest_file(convo)
        print(f"rerun of the same file: {again.unchanged:,} claims unchanged, "
              f"{again.fact_rows} new rows, {time.perf_counter() - t0:.2f} s")
        store.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
