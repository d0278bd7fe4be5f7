"""Fit the query map (``core.recall.query_map``) from texts in the repository.

    python -m memdesk.recall.train_query_map            # writes data/recall/query_map.npz
    python -m memdesk.recall.train_query_map --check    # the held-out figures only, nothing written

Texts: every labelled turn and clause of ``data/signals/train`` (what people
tell an assistant, zh and en), the demo conversations (``data/conversations``)
and the questions of the recall development sets (``tests/sets/recall_dev/*/
questions.jsonl``: what agents ask). Never the recall blind sets nor the
probes, which measure the map (``docs/query-map.md``). Each text (its first
300 characters, once) is embedded as a query by both default embedders, USE
and e5; the map is the ridge least-squares fit from the first to the second.
Every tenth text is held out first, to report how close the mapped vectors
come (mean cosine, against the mean vector alone); then the map is fitted on
all of them and written. About five minutes on one core, nearly all of it
e5. Same data, same embedders, same file. Raises SystemExit with one line
when a data folder is missing or a line is not JSON.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from ..signals.labelled import lines, turns
from .embedders import E5Embedder, Embedder, UseEmbedder, embedder_key
from .query_map import MAP_FILE, QueryMap, fit

ROOT = Path(__file__).resolve().parents[2]  # the repository (the trainer runs from a checkout)
DATA = ROOT / "data"
DEV_QUESTIONS = ROOT / "tests" / "sets" / "recall_dev"
CUT = 300  # characters of a text embedded (queries are short; e5 reads at most 512 tokens)


def texts(data: Path = DATA, dev_questions: Path = DEV_QUESTIONS) -> list[str]:
    """The training texts, each once, in file order."""
    folders = [data / "signals" / "train", data / "conversations", dev_questions]
    for folder in folders:
        if not folder.is_dir():
            raise SystemExit(f"no training texts at {folder}")
    out: dict[str, None] = {}

    def add(text: str | None) -> None:
        text = (text or "").strip()[:CUT]
        if text:
            out.setdefault(text, None)

    for _, line, _ in turns(folders[0]):
        add(line.get("text"))
        for clause in line.get("clauses", []):
            add(clause.get("span"))
    for path in sorted(folders[1].glob("*.jsonl")):
        for _, line in lines(path):
            add(line.get("text"))
    for path in sorted(folders[2].glob("*/questions.jsonl")):
        for _, line in lines(path):
            add(line.get("question"))
    return list(out)


def embed(embedder: Embedder, items: list[str], batch: int, label: str) -> np.ndarray:
    """``items`` embedded as queries, with progress on stderr."""
    parts = []
    started = time.perf_counter()
    for i in range(0, len(items), batch):
        parts.append(embedder.embed(items[i:i + batch], query=True))
        done = min(i + batch, len(items))
        if done == len(items) or (i // batch) % 20 == 19:
            print(f"  {label}: {done:,}/{len(items):,} texts, {time.perf_counter() - started:.0f} s",
                  file=sys.stderr, flush=True)
    return np.vstack(parts)


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    a = a / np.linalg.norm(a, axis=1, keepdims=True)
    return float((a * b).sum(axis=1).mean())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=DATA.joinpath(*MAP_FILE))
    ap.add_argument("--ridge", type=float, default=1.0, help="the L2 penalty (default 1.0)")
    ap.add_argument("--check", action="store_true", help="report the held-out figures only")
    args = ap.parse_args(argv)
    items = texts()
    source, target = UseEmbedder(), E5Embedder()
    print(f"{len(items):,} texts; embedding with {embedder_key(source)} and {embedder_key(target)}",
          file=sys.stderr)
    u = embed(source, items, 256, "use")
    e = embed(target, items, 64, "e5")
    held = np.arange(len(items)) % 10 == 9
    mapped = QueryMap(embedder_key(source), embedder_key(target),
                      fit(u[~held], e[~held], args.ridge)).rows(u[held])
    mean = np.tile(e[~held].mean(axis=0), (int(held.sum()), 1))
    print(f"held out ({int(held.sum()):,} texts): mean cosine to e5's vector {_cosine(mapped, e[held]):.4f} "
          f"(the mean vector alone: {_cosine(mean, e[held]):.4f})")
    if args.check:
        return 0
    qmap = QueryMap(embedder_key(source), embedder_key(target), fit(u, e, args.ridge))
    qmap.save(args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size / 1024:.0f} KiB): {qmap.source} -> {qmap.target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
