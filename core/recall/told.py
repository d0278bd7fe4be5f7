"""Told facts: facts reached through the turns that told them.

A recall over memories asked for someone (or naming someone) also ranks
that person's turns (the two channels of ``over="turns"`` fused, without
its "when" raise and its split of joined asks) and returns the current
values of the facts the best turns told, at the turn's relevance. So "how
much money do we have for this?" finds the budget although it names no
predicate, and "帮我订个酒店" the hotel decision, whose statements are
facts, not memories. The turns' facts are read through
``memdesk.db.recall.told_in``, their current values through the Store."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from functools import partial

import numpy as np

from ..db.recall import told_in
from ..lang.text import is_chinese
from ..records import Fact
from ..store import Store
from .filters import Filters
from .fusion import fuse, fuse_turns, relevance_of
from .hits import RecallHit
from .probe import Probe
from .query_map import QueryMap
from .results import fact_hit, label_of
from .scoring import RecallWeights
from .turns import TurnCorpus

TOLD_TURNS = 3  # the best turns whose facts a recall over memories also returns
NEIGHBOUR_SHARE = 0.9  # a told turn's neighbours, at this share of its relevance


@dataclass(frozen=True, slots=True)
class ToldQuery:
    """What ``told_facts`` asks of whose turns: the query (the names of the
    person named taken out), the filters of that person's turns, and the
    query's vector among the turns' (computed on demand: ``turn_vector``)."""

    query: str
    filters: Filters
    turn_vector: Callable[[], np.ndarray]


@dataclass(frozen=True, slots=True)
class _Told:
    """Facts one turn told, as they hold now, and how they read."""

    turn: tuple[str, int]  # (session, turn)
    facts: tuple[Fact, ...]
    label: str  # the predicate's label in the query's language

    @property
    def statement(self) -> str:
        return f"{self.label} {' '.join(x.object for x in self.facts)}"


def turn_vector(text: str, own: np.ndarray | None, qmap: QueryMap | None,
                pending: Future[np.ndarray] | None,
                embed_query: Callable[[str, str], np.ndarray]) -> Callable[[], np.ndarray]:
    """How told facts get ``text``'s vector among the turns': mapped from
    its memory vector (``own`` when it is the query's, else embedded), the
    turn query being computed in a side thread (``pending``, for the
    query itself), or the turn embedder on demand (``embed_query(kind, text)``)."""
    if qmap is not None:
        return lambda: qmap(own if own is not None else embed_query("memory", text))
    if pending is not None and own is not None:
        return pending.result
    return partial(embed_query, "turn", text)


def told_facts(told: ToldQuery, corpus: TurnCorpus, p: Probe,
               turn_vectors: Callable[[TurnCorpus], tuple[np.ndarray, np.ndarray] | None],
               store: Store, w: RecallWeights,
               passages: Callable[[list[str]], np.ndarray]) -> list[RecallHit]:
    """The facts the turns of ``corpus`` that best answer ``told.query`` told,
    as they hold at ``p.now`` (as known at ``p.known_at``), ranked at the
    turn's relevance. ``turn_vectors``: the corpus's turn vectors and which
    are there, or None while too many turns wait for one (then the turns
    are ranked by their words only). A value told there and changed since
    comes back as its current value; one no longer held is left out.
    ``passages`` embeds the statements the query is compared with. Raises
    what the embedders raise."""
    query, f, q, now, known_at = told.query, told.filters, p.q, p.now, p.known_at
    zh = is_chinese(p.query)
    if not len(corpus.ids):
        return []
    words = corpus.words.scores(query)
    fused = fuse([(words, w.words)])
    found = turn_vectors(corpus)
    if found is not None:
        matrix, present = found
        fused = fuse_turns(matrix @ told.turn_vector(), words, present, w)
    told_at: dict[tuple[str, int], float] = {}
    for j in np.argsort(-fused, kind="stable")[:TOLD_TURNS]:
        if fused[j] <= 0:  # no better than the person's typical turn
            break
        session, number = corpus.keys[j]
        # a turn's neighbours share its relevance: the best turn is often
        # the assistant's confirmation of the statement before it
        for n in (number - 1, number, number + 1):
            share = 1.0 if n == number else NEIGHBOUR_SHARE
            told_at[(session, n)] = max(told_at.get((session, n), 0.0),
                                        share * relevance_of(float(fused[j])))
    if not told_at:
        return []
    rows = [(a, b, o, (c, d)) for a, b, o, c, d in
            told_in(store.engine, {s for s, _ in told_at}, {n for _, n in told_at})
            if (c, d) in told_at]
    # what each turn told, as the facts that hold now: a single value as
    # it holds now, whichever was told there; of several (decisions,
    # likes), only those told there
    current: dict[tuple[str, str], list[Fact]] = {}
    options: list[_Told] = []
    for subj, pred, obj, turn in rows:
        if not f.scope.covers_subject(subj):
            continue
        if (subj, pred) not in current:
            facts = store.facts.as_of(subj, pred, valid_at=now, known_at=known_at
                                if known_at is not None else now, include_expired=False)
            current[(subj, pred)] = [x for x in facts if not f.scopes or x.scope in f.scopes]
        held = tuple(x for x in current[(subj, pred)] if x.single_valued or x.object == obj)
        if held:
            options.append(_Told(turn, held, label_of(store, pred, zh)))
    if not options:
        return []
    # a turn may tell several facts ("I'm Carol, I live in Hackney and work
    # at Monzo"): it answers the query with the one whose statement is
    # closest to it
    closeness = passages([o.statement for o in options]) @ q
    best: dict[tuple[str, int], int] = {}
    for j, o in enumerate(options):
        if o.turn not in best or closeness[j] > closeness[best[o.turn]]:
            best[o.turn] = j
    out: list[RecallHit] = []
    placed: dict[int, int] = {}  # fact id → its position in out
    for turn, j in best.items():
        o, rel = options[j], told_at[turn]
        sources = store.facts.sources(x.claim_id for x in o.facts)
        for x in o.facts:
            hit = fact_hit(x, o.label, sources.get(x.claim_id), now, known_at, p.conflicts, zh, w,
                           relevance=rel, pinned=False, channel="told")
            if x.id not in placed:
                placed[x.id] = len(out)
                out.append(hit)
            elif out[placed[x.id]].relevance < rel:  # told by two turns: the better one
                out[placed[x.id]] = hit
    return out


__all__ = ["NEIGHBOUR_SHARE", "TOLD_TURNS", "ToldQuery", "told_facts", "turn_vector"]
