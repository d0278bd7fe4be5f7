"""Character n-gram features of a clause in its dialogue context.

Shared by training (``core.signals.train``) and inference
(``core.signals.model``), so both read a clause the same way. A clause is
read in three namespaces: its own characters (1–4-grams), the assistant's
previous message and the clause before it in the turn (2–3-grams each, for
"who is it about" carried by a pronoun, and for answers to a suggestion).
Pure functions, no I/O.
"""

from __future__ import annotations

import math
import unicodedata
from collections import Counter
from collections.abc import Iterable

import numpy as np

CLAUSE_N = (1, 2, 3, 4)
CONTEXT_N = (2, 3)
CONTEXT_CHARS = 160  # of the assistant's message: its end, where a suggestion or question sits
# how much each namespace counts, after each is scaled to unit length
WEIGHTS = {"c": 1.0, "a": 0.5, "p": 0.4}
_NO_INDEX = np.zeros(0, dtype=np.int64)
_NO_VALUE = np.zeros(0)


def normal(text: str) -> str:
    """NFKC, lower case, runs of white space as one space."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def grams(text: str, ns: Iterable[int], prefix: str = "") -> Counter[str]:
    """Character n-grams of `` text `` (padded with a space at each end; an
    n-gram of spaces alone is left out), each prefixed with ``prefix``."""
    padded = f" {text} "
    out = Counter([prefix + padded[i:i + n] for n in ns for i in range(len(padded) - n + 1)])
    for n in ns:
        out.pop(prefix + " " * n, None)
    return out


def clause_grams(clause: str, assistant: str, previous: str) -> dict[str, Counter[str]]:
    """The raw n-gram counts of one clause, per namespace (n-grams prefixed
    ``c|``, ``a|``, ``p|``: one vocabulary for all three)."""
    return {"c": grams(normal(clause), CLAUSE_N, "c|"),
            "a": grams(normal(assistant)[-CONTEXT_CHARS:], CONTEXT_N, "a|") if assistant else Counter(),
            "p": grams(normal(previous), CONTEXT_N, "p|") if previous else Counter()}


def scaled(counter: Counter[str], vocab: dict[str, int], idf: np.ndarray, weight: float,
           ) -> tuple[np.ndarray, np.ndarray]:
    """One namespace's sparse TF-IDF (sublinear tf) over ``vocab``, scaled to
    length ``weight``: (indices, values). N-grams outside the vocabulary are dropped."""
    found = [(j, n) for j, n in zip(map(vocab.get, counter), counter.values(), strict=True) if j is not None]
    if not found:
        return _NO_INDEX, _NO_VALUE
    pairs = np.array(found, dtype=np.int64)
    idx = pairs[:, 0]
    val = (1.0 + np.log(pairs[:, 1])) * idf[idx]
    return idx, val * (weight / math.sqrt(float(val @ val)))


def weigh(counts: dict[str, Counter[str]], vocab: dict[str, int], idf: np.ndarray,
          ) -> tuple[np.ndarray, np.ndarray]:
    """The sparse feature vector of one clause: each namespace's ``scaled``
    TF-IDF at its weight, side by side."""
    parts = [scaled(counter, vocab, idf, WEIGHTS[ns]) for ns, counter in counts.items()]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
