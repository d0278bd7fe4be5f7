"""The work one request may ask for (issue 29): extraction time per KB of a turn, and ``remember`` and
``recall`` at the bounds of core/bounds.py, each against a baseline measured in the same run.

Run: ``.venv/bin/python -m tests.benchmarks.bench_bounds [--repeat N] [--keep DIR]``

1. Extraction as ``remember`` and ``ingest`` run it (the rules behind the signal layer) on one turn of
   realistic mixed Chinese and English (the gold set's turns, interleaved) of 1, 2, 5, 10 and 20 KB (UTF-8),
   and on hostile turns (runs of blanks, a run of digits, no punctuation, one clause repeated): milliseconds
   per KB and the ratio to the 1 KB turn's (linear: about constant).
2. ``remember`` at the bounds (one call of ``call_chars`` characters in messages of ``turn_chars``, and one
   of ``turns_per_call`` messages) on a new SQLite store, against one short message.
3. On a new store: one ``remember`` at the bounds and the first recalls after it, which embed what it
   stored (the index is brought up to date lazily, by the next recall); then ``recall`` at the bounds
   (a query of ``query_chars`` characters; one of ``query_asks`` asks) over memories and over raw turns
   with the default embedders, against a short question.

The medians of ``--repeat`` runs are printed with the load average (other jobs share the machine).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path

from memdesk import Memory
from memdesk.bounds import Bounds
from memdesk.ingest import RuleExtractor, SignalledExtractor
from memdesk.pipeline import Turn
from memdesk.signals.layer import SignalLayer

GOLD = Path(__file__).resolve().parents[2] / "tests" / "sets" / "gold"
CST = timezone(timedelta(hours=8))
WHEN = datetime(2026, 3, 2, 9, 0, tzinfo=CST)
SIZES_KB = (1, 2, 5, 10, 20)


def gold_texts(lang: str | None = None) -> list[str]:
    """The gold sets' turn texts (of one language), shuffled with a fixed seed."""
    out = []
    for name in ("extraction", "heldout", "chatty"):
        for line in (GOLD / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
            d = json.loads(line)
            if lang is None or d.get("lang") == lang:
                out.append(d["turn"]["text"])
    random.Random(7).shuffle(out)
    return out


def text_of(texts: Sequence[str], size: int, *, chars: bool = False) -> str:
    """Turn texts joined with spaces up to ``size`` bytes of UTF-8 (characters with ``chars``)."""
    out, n, i = [], 0, 0
    while n < size:
        t = texts[i % len(texts)]
        i += 1
        out.append(t)
        n += (len(t) if chars else len(t.encode("utf-8"))) + 1
    joined = " ".join(out)
    return joined[:size] if chars else joined


HOSTILE: dict[str, Callable[[int], str]] = {
    "blanks": lambda n: "I " + " " * (n - 16) + "like tea, " + "\n" * 4,
    "digits": lambda n: "My budget is " + "1" * (n - 13),
    "no punctuation": lambda n: " ".join(random.Random(1).choice(
        "the a I my we like love live in at work for budget next Friday tea London and not".split())
        for _ in range(n // 4)),
    "one clause repeated": lambda n: "我住在上海，喜欢喝咖啡。" * (n // 36),
}


def median_time(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def extraction(repeat: int) -> None:
    extractor = SignalledExtractor(RuleExtractor(), SignalLayer())
    mixed = gold_texts()

    def run(text: str) -> Callable[[], object]:
        turn = Turn("bench", 1, "user", WHEN, text, "me")
        return lambda: extractor.claims(turn, [])

    run(text_of(mixed, 1024))()  # warm: the rules and the signal model load once
    print("extraction (rules + signal layer) of one turn, realistic mixed zh/en")
    print(f"{'size':>6} {'chars':>7} {'claims':>6} {'seconds':>8} {'ms/KB':>7} {'ratio to 1 KB':>13}")
    base = None
    for kb in SIZES_KB:
        text = text_of(mixed, kb * 1024)
        claims = len(run(text)())
        per = median_time(run(text), repeat) / kb * 1000
        base = base or per
        print(f"{kb:>4}KB {len(text):>7} {claims:>6} {per * kb / 1000:>8.3f} {per:>7.1f} {per / base:>12.2f}x")
    print("hostile turns: ms/KB at 1 KB and 16 KB, ratio")
    for name, make in HOSTILE.items():
        small = median_time(run(make(1024)), repeat)
        large = median_time(run(make(16 * 1024)), repeat) / 16
        print(f"  {name:<20} {small * 1000:>7.1f} {large * 1000:>7.1f} {large / small:>6.2f}x")


def messages(texts: Sequence[str], count: int, size: int) -> list[dict[str, object]]:
    start = datetime(2026, 5, 1, 9, 0, tzinfo=CST)
    return [{"role": "user", "content": text_of(texts[i * 7:] + texts[:i * 7], size, chars=True),
             "time": start + timedelta(minutes=i)} for i in range(count)]


def at_the_bounds(repeat: int, folder: Path) -> None:
    b = Bounds()
    memory = Memory.open(folder / "bench.db", index_dir=folder / "index")
    try:
        zh, en, mixed = gold_texts("zh"), gold_texts("en"), gold_texts()
        calls = {
            "one short message (baseline)": lambda: [{"role": "user", "content": "I live in Leeds now"}],
            f"{b.call_chars // b.turn_chars} x {b.turn_chars} chars, mixed": lambda: messages(
                mixed, b.call_chars // b.turn_chars, b.turn_chars),
            f"{b.call_chars // b.turn_chars} x {b.turn_chars} chars, Chinese": lambda: messages(
                zh, b.call_chars // b.turn_chars, b.turn_chars),
            f"{b.call_chars // b.turn_chars} x {b.turn_chars} chars, English": lambda: messages(
                en, b.call_chars // b.turn_chars, b.turn_chars),
            f"{b.turns_per_call} x {b.call_chars // b.turns_per_call} chars, mixed": lambda: messages(
                mixed, b.turns_per_call, b.call_chars // b.turns_per_call),
            f"{b.call_chars // b.turn_chars} x {b.turn_chars} chars, digits": lambda: [
                {"role": "user", "content": "My budget is " + "1" * (b.turn_chars - 13)}
                for _ in range(b.call_chars // b.turn_chars)],
        }
        print(f"\nremember at the bounds (turn_chars {b.turn_chars}, turns_per_call {b.turns_per_call}, "
              f"call_chars {b.call_chars}), a new SQLite store")
        base = None
        for n, (name, make) in enumerate(calls.items()):
            users = iter(f"u{n}x{i}" for i in range(repeat))  # a new conversation each run
            seconds = median_time(lambda make=make, users=users: memory.remember(make(), user=next(users)),
                                  repeat)
            base = base or seconds
            print(f"  {name:<34} {seconds:>7.3f} s {seconds / base:>7.1f}x")
    finally:
        memory.close()
    catch_up_and_recall(repeat, folder / "fresh")


def catch_up_and_recall(repeat: int, folder: Path) -> None:
    """On a new store: one ``remember`` at the bounds, the first recalls after it (which embed what it
    stored), then recall at the bounds against a short question."""
    b = Bounds()
    folder.mkdir(parents=True, exist_ok=True)
    memory = Memory.open(folder / "bench.db", index_dir=folder / "index")
    try:
        zh, en, mixed = gold_texts("zh"), gold_texts("en"), gold_texts()
        memory.remember(messages(mixed, 1, 200), user="ana")
        memory.recall("warm up", user="ana", over="turns")
        memory.recall("warm up", user="ana")
        memory.remember(messages(mixed, b.call_chars // b.turn_chars, b.turn_chars), user="ana")
        for over in ("memories", "turns"):
            start = time.perf_counter()
            memory.recall("where do I live now?", user="ana", over=over)
            print(f"  first recall over {over} after it (embeds what it stored): "
                  f"{time.perf_counter() - start:.2f} s")
        # as the MCP server runs it: what a remember stored is embedded in a thread of its own
        memory.warm = True
        memory.remember(messages(list(reversed(mixed)), b.call_chars // b.turn_chars, b.turn_chars),
                        user="ana", session="warm")
        for over in ("turns", "memories"):
            start = time.perf_counter()
            memory.recall("where do I live now?", user="ana", over=over)
            print(f"  first recall over {over} after it, embedding in the background (the server): "
                  f"{time.perf_counter() - start:.2f} s")
        for thread in threading.enumerate():  # the figures below without it running beside them
            if thread.name == "memdesk-warm":
                thread.join()
        print(f"\nrecall at the bounds (query_chars {b.query_chars}, query_asks {b.query_asks}), "
              "default embedders")
        asked = "".join(f"第{i}次的预算是多少，什么时候定的？" for i in range(1, b.query_asks + 1))
        one_ask = str.maketrans({c: "，" for c in "。！？!?；;"})
        queries = {
            "a short question (baseline)": "where do I live now?",
            f"{b.query_chars} chars, English": text_of(en, b.query_chars, chars=True).replace("?", "."),
            f"{b.query_chars} chars, Chinese": text_of(zh, b.query_chars, chars=True).translate(one_ask),
            f"{b.query_asks} asks, {len(asked)} chars, Chinese": asked,
        }
        for over in ("memories", "turns"):
            base = None
            for name, query in queries.items():
                seconds = median_time(lambda q=query, o=over: memory.recall(q, user="ana", over=o), repeat)
                base = base or seconds
                print(f"  {over:<8} {name:<34} {seconds:>7.3f} s {seconds / base:>7.1f}x")
    finally:
        memory.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (the median is printed)")
    parser.add_argument("--keep", type=Path, help="folder for the store (default: a temporary one)")
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f}")
    extraction(args.repeat)
    with tempfile.TemporaryDirectory() as tmp:
        at_the_bounds(args.repeat, args.keep or Path(tmp))
    print(f"load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
