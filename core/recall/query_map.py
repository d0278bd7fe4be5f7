"""A query's turn vector without running the turn embedder: a linear map from
the memory embedder's query vectors (USE, 3 ms) to the turn embedder's (e5,
15–17 ms on one core), learned from texts in the repository
(``python -m memdesk.recall.train_query_map``; model card
``docs/query-map.md``).

Recall over memories ranks the person's turns to find the facts told in them
(``Recaller._told_facts``). That ranking needs the query in the turns' vector
space; embedding it with e5 was most of such a recall's time. The map gives
it from the query's USE vector, which the recall computes anyway: a vector
close to e5's (held-out cosine 0.95), ranking the person's turns nearly as
well (the card has the figures). Recall over turns still embeds its query
with e5.

The map applies only to the exact pair of embedders it was fitted on (name
and version of each, ``embedder_key``): any other pair, or a newer release
of either model, embeds the query with the turn embedder as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..resources import data_path

FORMAT = 1
MAP_FILE = ("recall", "query_map.npz")


@dataclass(frozen=True)
class QueryMap:
    """``weights`` (``source_dim + 1`` rows, the last one the bias, by
    ``target_dim`` columns) maps a unit query vector of the ``source`` embedder
    onto the ``target`` embedder's space (both ``embedder_key`` strings)."""

    source: str
    target: str
    weights: np.ndarray

    def applies(self, source: str, target: str) -> bool:
        """Whether the map was fitted for these two embedders (keys)."""
        return (source, target) == (self.source, self.target)

    def __call__(self, vector: np.ndarray) -> np.ndarray:
        """The unit-length target-space vector for one source query vector.
        Raises ValueError when ``vector`` is not of the source's dimension."""
        return self.rows(np.asarray(vector, dtype=np.float32).reshape(1, -1))[0]

    def rows(self, vectors: np.ndarray) -> np.ndarray:
        """``__call__`` for each row of ``vectors`` (one per source query vector)."""
        v = np.asarray(vectors, dtype=np.float32)
        if v.ndim != 2 or v.shape[1] + 1 != self.weights.shape[0]:
            raise ValueError(f"a query map from {self.source} takes {self.weights.shape[0] - 1} "
                             f"dimensions, got {v.shape[-1]}")
        out = v @ self.weights[:-1] + self.weights[-1]
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return (out / norms).astype(np.float32)

    def save(self, path: Path) -> None:
        """Write the map (float32, with its keys and format)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as fh:
            np.savez(fh, format=np.int32(FORMAT), source=np.frombuffer(self.source.encode(), np.uint8),
                     target=np.frombuffer(self.target.encode(), np.uint8),
                     weights=self.weights.astype(np.float32))

    @classmethod
    def load(cls, path: Path | None = None) -> QueryMap:
        """The bundled map (or the one at ``path``). Raises FileNotFoundError
        when it is missing, ValueError when the file is not a map of this format."""
        path = path or data_path(*MAP_FILE)
        with np.load(path, allow_pickle=False) as z:
            if "format" not in z or int(z["format"]) != FORMAT:
                raise ValueError(f"{path}: not a query map of format {FORMAT}")
            weights = z["weights"].astype(np.float32)
            if weights.ndim != 2 or weights.shape[0] < 2:
                raise ValueError(f"{path}: query map weights of shape {weights.shape}")
            return cls(bytes(z["source"]).decode(), bytes(z["target"]).decode(), weights)


def fit(source: np.ndarray, target: np.ndarray, ridge: float = 1.0) -> np.ndarray:
    """Least-squares weights (with a bias row) mapping the rows of ``source``
    onto those of ``target``, an L2 penalty of ``ridge`` (float64 normal
    equations: the same inputs give the same weights)."""
    a = np.hstack([source.astype(np.float64), np.ones((len(source), 1))])
    gram = a.T @ a + ridge * np.eye(a.shape[1])
    return np.linalg.solve(gram, a.T @ target.astype(np.float64)).astype(np.float32)
