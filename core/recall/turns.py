"""The word channel over raw turns: a scope's turns with a BM25 index over
them (``TurnCorpus``, cached per scope by ``TurnCorpora``), and every turn in
scope ranked by the dense and the word channel fused (``rank_turns``). A
recall over turns uses it while a scope holds at most
``IndexSettings.fused_max`` turns (above it the index serves); told facts
(``told``) rank the person's turns with it too. Turns are read through
``memdesk.db.recall``; what the database driver raises comes up as it is."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..db import recall as sql
from ..lang.questions import asks, asks_when
from ..lang.times import find_times
from ..timeutil import from_us
from .bm25 import Bm25Index
from .collapse import collapse
from .collection import Collection
from .filters import Filters
from .fusion import fuse_turns
from .hits import RecallHit
from .hydrate import Admitted, Candidate, admit
from .probe import Probe
from .results import ranked
from .scoring import RecallWeights

CORPUS_CACHE = 16  # word indexes kept per Recaller (one per scope recently asked for)


@dataclass(frozen=True, slots=True)
class TurnCorpus:
    """The turns of one scope with a word index over them."""

    stamp: tuple
    mark: tuple  # (count, highest id) of the turns in scope: unchanged, the corpus is current
    ids: np.ndarray
    words: Bm25Index
    keys: tuple[tuple[str, int], ...]  # (session, turn) of each
    said: tuple[tuple[str, int, int], ...]  # (text, time µs, offset minutes) of each
    _dated: list[np.ndarray] = field(default_factory=list)
    _known: dict[tuple[str, int, int], float] = field(default_factory=dict)  # a former corpus's

    def dated(self) -> np.ndarray:
        """1 for each turn whose text names a day ("next Friday", 5月13日,
        上周末: ``lang.times.find_times`` against the turn's own time),
        else 0; worked out on first use (what the scope's former corpus
        worked out is taken over) and kept."""
        if not self._dated:
            known = self._known
            self._dated.append(np.fromiter(
                (known[x] if x in known else 1.0 if find_times(x[0], from_us(x[1], x[2])) else 0.0
                 for x in self.said), np.float64, len(self.said)))
        return self._dated[0]

    def dated_by_turn(self) -> dict[tuple[str, int, int], float]:
        """What ``dated`` worked out, by turn (empty before its first use)."""
        return dict(zip(self.said, self._dated[0].tolist(), strict=True)) if self._dated else {}


def built_corpus(rows: Sequence[Any], stamp: tuple, mark: tuple,
                 former: TurnCorpus | None) -> TurnCorpus:
    """A corpus of ``rows`` (id, session, turn, text, time, offset, in
    session order), taking over what ``former`` (the scope's previous
    corpus) worked out for the texts it shares. Each turn is indexed
    between its neighbours in the session, so that "民宿吧" carries the
    question it answers."""
    texts = []
    for j, (_, session, number, text, _, _) in enumerate(rows):
        parts = [text]
        if j and tuple(rows[j - 1][1:3]) == (session, number - 1):
            parts.insert(0, rows[j - 1][3])
        if j + 1 < len(rows) and tuple(rows[j + 1][1:3]) == (session, number + 1):
            parts.append(rows[j + 1][3])
        texts.append("\n".join(parts))
    ids = [int(r[0]) for r in rows]
    return TurnCorpus(stamp, mark, np.asarray(ids, dtype=np.int64),
                      Bm25Index(ids, texts, known=former.words.tokens if former else None),
                      tuple((str(r[1]), int(r[2])) for r in rows),
                      tuple((str(r[3]), int(r[4]), int(r[5] or 0)) for r in rows),
                      _known=former.dated_by_turn() if former else {})


class TurnCorpora:
    """The corpora of the scopes recently asked for (``by_scope``), on one
    engine; thread-safe (``lock`` guards the cache)."""

    def __init__(self, engine: sql.Engine, lock: threading.Lock) -> None:
        self.engine = engine
        self.by_scope: dict[tuple, TurnCorpus] = {}
        self._lock = lock
        self._turn_count: tuple[tuple, bool] | None = None

    def clear(self) -> None:
        self.by_scope.clear()

    def get(self, f: Filters, stamp: tuple, most: int) -> TurnCorpus | None:
        """The turns the filters admit, each with its indexed text, and a
        word index over them. None when more than ``most``
        (``IndexSettings.fused_max``) turns are in play: then the index
        path serves. Cached per scope: when the store changed, one query
        counts the scope's turns (turns are only added, an erasure drops
        every cache: ``clear``), and an unchanged count and highest id keep
        the corpus (another person's remember changes nothing here); a
        changed one builds it again, the word analysis of every indexed
        text and the days the turns name taken over from the former corpus."""
        if most <= 0 or (not f.scope.scoped and int(stamp[sql.STAMP_TURN] or 0) > most
                         and self._more_turns_than(most, stamp)):
            return None
        key = (f.scope.subjects, f.scope.turn_users, f.scope.turn_projects,
               f.scope.sessions, f.at, f.since, f.until, f.include_archived)
        cached = self.by_scope.get(key)
        if cached is not None and cached.stamp == stamp:
            return cached
        mark, rows = sql.scope_turns(self.engine, f.turns(), most=most,
                                     unless=None if cached is None else cached.mark)
        if cached is not None and cached.mark == mark:
            corpus = replace(cached, stamp=stamp)
        elif rows is None or len(rows) > most:
            return None
        else:
            corpus = built_corpus(rows, stamp, mark, cached)
        with self._lock:
            self.by_scope.pop(key, None)
            if len(self.by_scope) >= CORPUS_CACHE:
                self.by_scope.pop(next(iter(self.by_scope)))
            self.by_scope[key] = corpus
        return corpus

    def _more_turns_than(self, n: int, stamp: tuple) -> bool:
        """Whether the store holds more than ``n`` turns (counts at most n + 1,
        once per store stamp)."""
        key = (n, stamp)
        if self._turn_count is not None and self._turn_count[0] == key:
            return self._turn_count[1]
        self._turn_count = (key, sql.turns_upto(self.engine, n + 1) > n)
        return self._turn_count[1]


def corpus_vectors(col: Collection, corpus: TurnCorpus) -> tuple[np.ndarray, np.ndarray]:
    """The stored vectors of the corpus's turns, one row per turn in its
    order (zeros for a turn without one yet), and which turns have one."""
    vectors = col.vectors_of(corpus.ids.tolist())
    zero = np.zeros(col.embedder.dim, np.float32)
    present = np.fromiter((int(i) in vectors for i in corpus.ids), bool, len(corpus.ids))
    return np.stack([vectors.get(int(i), zero) for i in corpus.ids]), present


def rank_turns(p: Probe, corpus: TurnCorpus, col: Collection, hot: sql.HotReads,
               w: RecallWeights,
               embed_asks: Callable[[list[str]], np.ndarray]) -> list[RecallHit]:
    """Every turn in ``corpus`` ranked by the dense channel (its cosine) and
    BM25 over its indexed text, fused (``fusion``), then filtered, scored
    and collapsed like any candidate, the best ``p.k``. A "when" question
    raises the turns that name a day; a query joining several asks ranks
    each turn by its best ask (``embed_asks``: their vectors among the
    turns'). Raises what the embedder raises."""
    if not len(corpus.ids):
        return []
    query, q = p.query, p.q
    matrix, present = corpus_vectors(col, corpus)
    cosines = matrix @ q
    words = corpus.words.scores(query)
    fused = fuse_turns(cosines, words, present, w)
    if w.dated and asks_when(query):  # "when did I move?": the turns that date it
        fused = fused + w.dated * corpus.dated()
    parts = asks(query)
    if len(parts) > 1:  # "哪天考试？跑鞋多大码？": each ask finds its own turn
        for part, pq in zip(parts, embed_asks(parts), strict=True):
            fused = np.maximum(fused, fuse_turns(matrix @ pq, corpus.words.scores(part),
                                                 present, w))
    order = np.argsort(-fused, kind="stable")
    kept: dict[int, Admitted] = {}
    named_set = set(p.named)
    done, n = 0, max(3 * p.k, 30)
    while True:  # more while filters or near-duplicates leave fewer than k
        cands = [Candidate(int(corpus.ids[j]), float(cosines[j]), "fused", fused=float(fused[j]),
                           words=float(words[j])) for j in order[done:n]]
        for a in admit(hot, "turns", cands, p.filters, p.now, None, {}):
            kept[a.cand.item_id] = a
        done = n
        hits = collapse(col, ranked("turns", kept.values(), p.qgrams, p.now, named_set, w), p.k)
        if len(hits) >= p.k or done >= len(order):
            return hits
        n *= 4


__all__ = ["CORPUS_CACHE", "TurnCorpora", "TurnCorpus", "built_corpus", "corpus_vectors",
           "rank_turns"]
