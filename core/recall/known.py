"""Vectors worked out before: an embedder that answers the passages it holds vectors for from a table.

The demo store embeds the same few hundred texts on every machine it is built on, and the turns' e5 vectors
took most of the time ``memdesk demo`` takes (17 of 23 s). ``data/demo/vectors.npz`` holds those vectors,
computed by the same embedders and tagged with their ``name@version``; ``KnownVectors`` wraps an embedder and
takes a passage's vector from the table when the table was made by that embedder at that version, and asks the
embedder for every other text (and for every query). A newer embedder, or a text the table lacks, is embedded
as before: the table only saves time, and the vectors stored are those the embedder gives (``tests/
test_known_vectors.py`` checks it against the embedder). ``python -m memdesk.app.demo_vectors`` rebuilds the table.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from .embedders import Embedder, embedder_key

__all__ = ["KnownVectors", "load_known", "save_known"]


class KnownVectors:
    """``inner`` with the vectors of the passages in ``table`` (text -> vector) taken from it."""

    def __init__(self, inner: Embedder, table: Mapping[str, np.ndarray]) -> None:
        self.inner = inner
        self.name = inner.name
        self.version = inner.version
        self.dim = inner.dim
        self.table = table
        self.asked = 0  # passages the table did not hold, embedded by ``inner``

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        if query:
            return self.inner.embed(texts, query=True)
        missing = [t for t in dict.fromkeys(texts) if t not in self.table]
        fresh = dict(zip(missing, self.inner.embed(missing), strict=True)) if missing else {}
        self.asked += len(missing)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            out[i] = fresh[text] if text in fresh else self.table[text]
        return out


def load_known(path: Path, embedder: Embedder) -> dict[str, np.ndarray]:
    """The texts and vectors ``path`` holds for ``embedder`` at its version (empty when it holds none, or the
    file is missing). Raises ValueError for a file that is not such a table."""
    if not path.is_file():
        return {}
    key = embedder_key(embedder)
    with np.load(path, allow_pickle=False) as npz:
        keys = json.loads(str(npz["keys"]))
        if key not in keys:
            return {}
        i = keys.index(key)
        texts = json.loads(str(npz[f"texts_{i}"]))
        vectors = npz[f"vectors_{i}"]
    if vectors.shape != (len(texts), embedder.dim):
        raise ValueError(f"{path}: the vectors of {key} are {vectors.shape}, not {len(texts)} x {embedder.dim}")
    return dict(zip(texts, vectors.astype(np.float32), strict=True))


def save_known(path: Path, tables: Mapping[str, Mapping[str, np.ndarray]]) -> None:
    """Write ``tables`` (embedder key -> text -> vector) to ``path``, texts sorted (the same tables give the
    same file)."""
    keys = sorted(tables)
    arrays: dict[str, np.ndarray] = {"keys": np.array(json.dumps(keys))}
    for i, key in enumerate(keys):
        texts = sorted(tables[key])
        arrays[f"texts_{i}"] = np.array(json.dumps(texts, ensure_ascii=False))
        arrays[f"vectors_{i}"] = np.stack([np.asarray(tables[key][t], dtype=np.float32) for t in texts])
    with path.open("wb") as fh:
        np.savez_compressed(fh, **arrays)  # type: ignore[arg-type]
