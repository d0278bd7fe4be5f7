"""The word channel: BM25 over the items a recall may return (``bm25s``).

Dense vectors find paraphrases; BM25 finds the rare words a question shares
with its evidence (a name, a place, "vet", 宠物医院). The two fail on
different questions, which is why recall fuses them (``fusion``).

The analyzer, one for both languages (a turn may mix them):

* Latin words are folded (NFKC, lower case, Chinese numerals to digits, see
  ``lang.text.fold``), English stopwords dropped (bm25s's extended list plus
  memdesk's own) and Porter-stemmed by PyStemmer's Snowball English stemmer,
  so "moved" meets "move" and "vets" meets "vet";
* Chinese (and Japanese, Korean) runs give character bigrams, a
  one-character run itself. Bigrams beat word segmentation here: measured on
  the development sets and reported in docs/DESIGN.md §4.3, with no
  dictionary to ship and no out-of-vocabulary names (年糕, 青禾).

An index is built for one set of items (a person's turns: the IDF is that
person's, which the held-out Chinese streams measured better than a global
one) and kept while the store does not change. Built with ``bm25s``
(maintained, numpy-only, sparse matrices); k1 = 0.9 and b = 0.4, chosen on
the development sets (docs/DESIGN.md §4.3).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from ..lang.text import CJK, STOP_EN, fold

K1 = 0.9
B = 0.4
_TOKEN = re.compile(rf"([{CJK}]+)|([a-z0-9]+)")
_EMPTY = "\x00"  # the token of an item with no words (bm25s needs one per document)


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    import Stemmer  # PyStemmer: Snowball stemmers in C

    return Stemmer.Stemmer("english")


@lru_cache(maxsize=1)
def _stopwords() -> frozenset[str]:
    from bm25s.stopwords import STOPWORDS_EN_PLUS

    return frozenset(STOPWORDS_EN_PLUS) | STOP_EN


def analyze(text: str) -> list[str]:
    """The BM25 tokens of a text: stemmed English words without stopwords,
    Chinese character bigrams (a lone character for a one-character run)."""
    out: list[str] = []
    words: list[str] = []
    stop = _stopwords()
    for cjk, latin in _TOKEN.findall(fold(text)):
        if cjk:
            if len(cjk) == 1:
                out.append(cjk)
            else:
                out.extend(cjk[i:i + 2] for i in range(len(cjk) - 1))
        elif latin not in stop and (len(latin) > 1 or latin.isdigit()):
            words.append(latin)
    if words:
        out.extend(_stemmer().stemWords(words))
    return out


class Bm25Index:
    """BM25 over a fixed list of items (ids and texts); ``scores(query)`` gives
    one score per item, in the order the items were given. An empty list, or
    a query none of whose tokens occurs, scores 0 everywhere."""

    def __init__(self, item_ids: Sequence[int], texts: Sequence[str], *,
                 k1: float = K1, b: float = B,
                 known: Mapping[str, list[str]] | None = None) -> None:
        """``known``: tokens of texts analysed before (a former index's
        ``tokens``), taken over instead of analysing those texts again."""
        import bm25s

        self.item_ids = np.asarray(item_ids, dtype=np.int64)
        self._model = None
        known = known or {}
        self.tokens: dict[str, list[str]] = {
            t: known[t] if t in known else analyze(t) or [_EMPTY] for t in texts}
        if len(texts):
            corpus = [self.tokens[t] for t in texts]
            model = bm25s.BM25(k1=k1, b=b)
            model.index(corpus, show_progress=False)
            self._model = model
            self._vocab = model.vocab_dict

    def __len__(self) -> int:
        return int(self.item_ids.shape[0])

    def scores(self, query: str) -> np.ndarray:
        """BM25 scores of every item for ``query`` (float32, zeros when no
        query word occurs in any item)."""
        if self._model is None:
            return np.zeros(len(self), dtype=np.float32)
        tokens = [t for t in analyze(query) if t in self._vocab]
        if not tokens:
            return np.zeros(len(self), dtype=np.float32)
        return np.asarray(self._model.get_scores(tokens), dtype=np.float32)


__all__ = ["B", "K1", "Bm25Index", "analyze"]
