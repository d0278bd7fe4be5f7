"""What one search looks for, as its parts see it (``Probe``), and the shape
of the open conflicts they are given (``Conflicts``). Pure data; raises nothing."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .filters import Filters
from .lexical import QueryGrams

Conflicts = dict[int, tuple[set[int], int, str]]
"""Open conflicts: id → (fact ids, claim id, subject)."""


@dataclass(frozen=True, slots=True)
class Probe:
    """One search: over what (``memories`` or ``turns``), the query, its
    vector and grams, how many results, the filters, the subjects the query
    names, the moment it is asked at (``now``) and as known at (``known_at``:
    None, now), the open conflicts then (memories only) and the store stamp."""

    over: str
    query: str
    q: np.ndarray
    qgrams: QueryGrams
    k: int
    filters: Filters
    named: tuple[str, ...]
    now: int
    known_at: int | None
    conflicts: Conflicts
    stamp: tuple


__all__ = ["Conflicts", "Probe"]
