"""The lexical channel: character n-grams for exact names and numbers.

Sentence embeddings blur exactly the things a memory must get right: "上限五千元"
and "上限八千元" embed almost alike, and a rare name (Biscuit, 煤球, C01X00T47)
may sit far from a question about it. This channel scores how much of the
query's wording a text contains, by the grams of the language layer
(``memdesk.lang.text``: character bigrams of Chinese runs, words and
trigrams of Latin ones, Chinese numerals folded to digits so that "预算5000"
and "预算五千" meet).

``lexical_score(query, text)`` is the share of the query's grams (common
function words removed) that the text contains, 0–1. ``AnchorIndex`` finds
the items that contain a query's rare *anchors* (numbers, Latin words, ids)
even when the vector search did not bring them up.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from ..lang.text import anchors, fold, starts_cjk


def lexical_score(query_grams: set[str] | QueryGrams, text: str) -> float:
    """Share of the query's grams found in ``text`` (0–1). Whole words and
    numbers weigh three times a trigram or bigram. A gram counts when it
    occurs in the folded text (words on word boundaries). Pass a
    ``QueryGrams`` when one query is scored against many texts."""
    q = query_grams if isinstance(query_grams, QueryGrams) else QueryGrams.of(query_grams)
    if not q.total:
        return 0.0
    doc = fold(text)
    weight = 0.0
    for needle, w, whole_word in q.needles:
        if (_word_in(needle, doc) if whole_word else needle in doc):
            weight += w
    return weight / q.total


@dataclass(frozen=True, slots=True)
class QueryGrams:
    """A query's grams prepared for ``lexical_score``: what to look for, its
    weight, and whether it must stand as a whole word."""

    needles: tuple[tuple[str, float, bool], ...]
    total: float

    @classmethod
    def of(cls, query_grams: set[str]) -> QueryGrams:
        needles = []
        for g in sorted(query_grams):
            part = g.startswith("#") or bool(starts_cjk(g))
            needles.append((g.lstrip("#") if part else g, 1.0 if part else 3.0, not part))
        return cls(tuple(needles), sum(w for _, w, _ in needles))


def _word_in(word: str, doc: str) -> bool:
    start = doc.find(word)
    while start >= 0:
        end = start + len(word)
        if (start == 0 or not doc[start - 1].isalnum()) and (end == len(doc) or not doc[end].isalnum()):
            return True
        start = doc.find(word, start + 1)
    return False


class AnchorIndex:
    """Item ids by anchor token, built lazily from item texts and extended as
    items arrive. Tokens found in more than ``max_df`` items are not anchors
    (too common to single anything out). Thread-safe."""

    def __init__(self, max_df: int = 200) -> None:
        self.max_df = max_df
        self._postings: dict[str, list[int]] = defaultdict(list)
        self._lock = threading.Lock()
        self.max_item_id = 0

    def add(self, items: Iterable[tuple[int, str]]) -> None:
        with self._lock:
            for item_id, text in items:
                for token in anchors(text):
                    self._postings[token].append(item_id)
                self.max_item_id = max(self.max_item_id, item_id)

    def lookup(self, tokens: Iterable[str], limit: int = 50) -> list[int]:
        """Items holding any of the tokens (rare tokens only), newest first."""
        found: set[int] = set()
        with self._lock:
            for token in tokens:
                ids = self._postings.get(token)
                if ids and len(ids) <= self.max_df:
                    found.update(ids)
        return sorted(found, reverse=True)[:limit]
