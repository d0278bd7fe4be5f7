"""Fusing the dense and the word channel into one relevance (pure, no I/O;
raises only ValueError, below).

Each channel scores every item a recall may return (a person's turns): the
cosine of the query to the item's vector, and BM25. Their scales have
nothing in common (a cosine of 0.8 is unremarkable for e5, a BM25 score has
no ceiling), so each channel's scores are standardised over those items for
this query (z-scores: how far above this query's typical item an item
stands), then summed with weights:

    fused = w_dense * z(cosine) + w_words * z(bm25)

Score-level fusion keeps how far ahead an item is in each channel, which
reciprocal-rank fusion throws away; on the development sets z-fusion beat
RRF (k = 60) by 0.05 R@5 (docs/DESIGN.md §4.3). A channel that has nothing to
say for this query (no query word occurs anywhere: every BM25 score equal)
contributes 0 rather than noise.

``relevance_of(fused)`` maps the fused value onto 0–1 (a logistic curve), so
it sits in the score formula beside recency and importance like the cosine
relevance of memories does.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .scoring import RecallWeights

RELEVANCE_SCALE = 2.0  # fused z of +2 (two standard deviations) → relevance 0.73


def zscores(scores: np.ndarray) -> np.ndarray:
    """Standardised scores (mean 0, standard deviation 1); all zeros when the
    scores do not vary (the channel tells nothing apart)."""
    x = np.asarray(scores, dtype=np.float64)
    if x.size == 0:
        return x
    sd = float(x.std())
    if sd < 1e-9:
        return np.zeros_like(x)
    return (x - float(x.mean())) / sd


def fuse(channels: Sequence[tuple[np.ndarray, float]]) -> np.ndarray:
    """The weighted sum of the channels' z-scores; every array must have one
    score per item, in the same order. Raises ValueError when they differ in
    length."""
    sizes = {int(np.asarray(s).shape[0]) for s, _ in channels}
    if len(sizes) > 1:
        raise ValueError(f"channels score different numbers of items: {sorted(sizes)}")
    if not channels:
        return np.zeros(0)
    out = np.zeros(sizes.pop(), dtype=np.float64)
    for scores, weight in channels:
        if weight:
            out += weight * zscores(scores)
    return out


def fuse_turns(cosines: np.ndarray, words: np.ndarray, present: np.ndarray,
               w: RecallWeights) -> np.ndarray:
    """The two channels of raw turns fused (``fuse``). A turn still
    waiting for its vector (``present`` False: just remembered, its vector
    being computed in the background) has its words stand for its meaning
    too: its dense z-score is its word z-score, and the dense channel is
    standardised over the turns that have a vector. A cosine of 0 would sink
    it (e5's cosines sit near 0.8 with a spread of a few hundredths: 0 is
    some twenty standard deviations down, and a turn just remembered missed
    the top 5 of a query naming its own rare word); the others' mean would
    leave it below every near-copy of it the person said before. With every
    vector there (or none) this is ``fuse`` itself."""
    if present.all() or not present.any():
        return fuse([(cosines, w.dense), (words, w.words)])
    zw = zscores(words)
    zd = zw.copy()
    zd[present] = zscores(cosines[present])
    out = np.zeros(len(words), dtype=np.float64)
    if w.dense:
        out += w.dense * zd
    if w.words:
        out += w.words * zw
    return out


def relevance_of(fused: float) -> float:
    """A fused value as a relevance between 0 and 1 (0.5 for a typical item)."""
    return float(1.0 / (1.0 + np.exp(-fused / RELEVANCE_SCALE)))


__all__ = ["RELEVANCE_SCALE", "fuse", "fuse_turns", "relevance_of", "zscores"]
