"""Rebuild ``data/demo/vectors.npz``: the vectors of the passages the demo store embeds (``memdesk.KnownVectors``).

    python -m memdesk.app.demo_vectors

Builds the demo store in a temporary folder with the default embedders, records every passage they embed
and its vector, and writes them tagged with each embedder's ``name@version``. Run it after changing the demo
data, the extraction (it changes the memories' texts) or an embedder; ``tests/test_known_vectors.py`` fails
when the table no longer covers the demo. Raises EmbedderUnavailable when an embedder cannot load.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from memdesk import Embedder, ManualClock, Recaller, Store, save_known

from .demo import build_demo
from .screenshots import DEMO_NOW

OUT = Path(__file__).resolve().parents[1] / "data" / "demo" / "vectors.npz"


class _Recording:
    """An embedder that keeps every passage it embeds and its vector."""

    def __init__(self, inner: Embedder) -> None:
        self.inner, self.name, self.version, self.dim = inner, inner.name, inner.version, inner.dim
        self.seen: dict[str, np.ndarray] = {}

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        vectors = self.inner.embed(texts, query=query)
        if not query:
            self.seen.update(zip(texts, vectors, strict=True))
        return vectors


def demo_passages() -> dict[str, dict[str, np.ndarray]]:
    """Embedder key -> passage -> vector, for every passage building the demo store embeds."""
    with tempfile.TemporaryDirectory() as tmp:
        with Store.open(Path(tmp) / "demo.db", clock=ManualClock(DEMO_NOW)) as store:
            build_demo(store)
            defaults = Recaller(store, index_dir=Path(tmp) / "index")  # the default embedders, as the demo's
            try:
                memory, turn = _Recording(defaults.embedder), _Recording(defaults.turn_embedder)
            finally:
                defaults.close()
            recaller = Recaller(store, embedder=memory, turn_embedder=turn, index_dir=Path(tmp) / "index")
            try:
                recaller.reindex()
            finally:
                recaller.close()
    tables: dict[str, dict[str, np.ndarray]] = {}
    for rec in (memory, turn):
        tables.setdefault(f"{rec.name}@{rec.version}", {}).update(rec.seen)
    return tables


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT, help=f"where to write (default: {OUT})")
    args = parser.parse_args(argv)
    tables = demo_passages()
    save_known(args.out, tables)
    for key, table in sorted(tables.items()):
        print(f"{key}: {len(table)} passages", file=sys.stderr)
    print(f"-> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
