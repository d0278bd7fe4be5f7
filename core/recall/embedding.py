"""The vectors of queries and statements a Recaller embeds, kept
(``QueryVectors``): an agent asks the same question over memories and over
turns, the prompt and the results, and told facts and several held values
are compared by the same few statements again and again. Raises what the
embedder raises (EmbedderUnavailable when it cannot load)."""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np

from .embedders import Embedder

EMBED_CACHE = 1024  # query and statement vectors kept per Recaller


class QueryVectors:
    """Texts embedded by the embedder of ``memory`` or ``turn`` items, as
    queries or as stored texts; the last ``EMBED_CACHE`` kept in ``cache``
    (keyed ((kind, as query), text)). Thread-safe (``lock`` guards the cache)."""

    def __init__(self, embedder_for: Callable[[str], Embedder], lock: threading.Lock) -> None:
        self._embedder_for = embedder_for
        self._lock = lock
        self.cache: dict[tuple[tuple[str, bool], str], np.ndarray] = {}

    def clear(self) -> None:
        self.cache.clear()

    def query(self, kind: str, query: str) -> np.ndarray:
        """``query`` embedded as a query by the embedder of ``kind`` items."""
        return self.embedded((kind, True), [query])[0]

    def passages(self, texts: list[str]) -> np.ndarray:
        """``texts`` embedded by the embedder of memories as stored texts (the
        statements told facts and several held values are compared by)."""
        return self.embedded(("memory", False), texts)

    def embedded(self, how: tuple[str, bool], texts: list[str]) -> np.ndarray:
        """``texts`` embedded ``how`` ((kind, as query)), one row each."""
        kind, query = how
        embedder = self._embedder_for(kind)
        cache = self.cache
        with self._lock:
            found = {t: cache[(how, t)] for t in texts if (how, t) in cache}
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        if missing:
            found.update(zip(missing, embedder.embed(missing, query=query), strict=True))
            with self._lock:
                for t in missing:
                    cache[(how, t)] = found[t]
                while len(cache) > EMBED_CACHE:
                    cache.pop(next(iter(cache)))
        if not texts:
            return np.zeros((0, embedder.dim), np.float32)
        return np.stack([found[t] for t in texts])


__all__ = ["EMBED_CACHE", "QueryVectors"]
