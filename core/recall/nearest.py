"""Candidates by meaning: the dense channel (the Annoy index and its tail, or
an exact scan), joined by the lexical channel's anchors (items holding the
query's rare names and numbers) and by the items of the subjects the query
names; then hydrated, scored and collapsed.

The nearest items are over-fetched so that filters (subject, scope, status,
time, ``at``) never starve the top k: the fetch grows until k results pass
or everything was looked at, and a narrow filter (a person's items) is
searched exactly over just the items it admits. Raises what the database
driver raises, and InvalidInput when a subject the query names cannot be
resolved (``scope.Scope.of``)."""

from __future__ import annotations

from ..db.recall import HotReads
from ..lang.text import anchors
from .collapse import collapse
from .collection import Collection
from .filters import Filters
from .hits import RecallHit
from .hydrate import Admitted, Candidate, admit
from .probe import Probe
from .reads import FILTERED_EXACT_MAX, StoreView
from .results import ranked
from .scope import Scope
from .scoring import RecallWeights

DIRECT_EXACT_MAX = 2_000  # a narrow filter admitting at most this many: scored exactly, no index


def nearest(p: Probe, col: Collection, exact: bool, view: StoreView, hot: HotReads,
            w: RecallWeights) -> list[RecallHit]:
    """The best ``p.k`` results by meaning (fewer only when fewer pass the
    filters): fetches max(2k, 20) candidates, four times as many while
    filters or near-duplicates leave fewer than k. ``exact`` skips the index."""
    n = max(2 * p.k, 20)
    kept: dict[int, Admitted] = {}
    while True:
        hits, seen_all = _gather(p, n, col, exact, view, hot, w, kept)
        if len(hits) >= p.k or seen_all:
            return hits
        n *= 4


def _keep(kept: dict[int, Admitted], p: Probe, hot: HotReads, cands: list[Candidate]) -> None:
    for a in admit(hot, p.over, cands, p.filters, p.now, p.known_at, p.conflicts):
        kept[a.cand.item_id] = a


def _gather(p: Probe, n: int, col: Collection, exact: bool, view: StoreView, hot: HotReads,
            w: RecallWeights, kept: dict[int, Admitted]) -> tuple[list[RecallHit], bool]:
    """Candidates from the nearest ``n`` items (more while filters starve
    them), the subjects the query names and the lexical anchors, scored and
    collapsed; and whether every item was looked at. ``kept`` carries the
    admitted candidates over from a previous, smaller fetch."""
    over, q, filters, stamp = p.over, p.q, p.filters, p.stamp
    # lexical anchors: items holding the query's rare names and numbers,
    # hydrated together with the first nearest items (one round trip)
    tokens = anchors(p.query)
    lexical = view.anchor_index(over, stamp).lookup(tokens) if tokens else []
    seen_all = False
    if filters.narrow and not exact:
        # a narrow filter (a person's items) admitting few items: every one
        # of them is scored exactly, without first asking the index for the
        # nearest of everyone's (which the filter then mostly refused)
        ids = view.filtered_ids(over, filters, stamp)
        if len(ids) <= DIRECT_EXACT_MAX:
            anchor_set = set(lexical)
            cos = col.cosines(q, [i for i in ids if i not in kept])
            cands = [Candidate(i, c, "lexical" if i in anchor_set else "exact")
                     for i, c in cos.items()]
            # an item still waiting for its vector is a candidate by its words alone
            cands += [Candidate(i, 0.0, "lexical") for i in lexical
                      if i not in kept and i not in cos]
            _keep(kept, p, hot, cands)
            seen_all = True
    while not seen_all:
        found = col.search(q, n, exact=exact)
        fresh = [Candidate(int(i), float(c), ch) for i, c, ch in
                 zip(found.item_ids, found.cosines, found.channels, strict=True)
                 if int(i) not in kept]
        if lexical:
            seen = {c.item_id for c in fresh}
            anchored = [i for i in lexical if i not in kept and i not in seen]
            cos = col.cosines(q, anchored)
            # an item still waiting for its vector is a candidate by its words alone
            fresh += [Candidate(i, cos.get(i, 0.0), "lexical") for i in anchored]
            lexical = []
        _keep(kept, p, hot, fresh)
        seen_all = found.searched_all
        if len(kept) >= p.k or seen_all:
            break
        if filters.narrow and not exact:
            ids = view.filtered_ids(over, filters, stamp)
            if len(ids) <= FILTERED_EXACT_MAX:
                cos = col.cosines(q, [i for i in ids if i not in kept])
                _keep(kept, p, hot, [Candidate(i, c, "exact") for i, c in cos.items()])
                seen_all = True  # every item the filters admit was looked at
                break
        n *= 4
    for name in p.named[:3]:
        f = filters
        ids = view.filtered_ids(over, Filters(view.resolve(Scope.of(name), stamp), None, None,
                                              f.at, f.since, f.until, f.include_archived), stamp)
        if len(ids) <= FILTERED_EXACT_MAX:
            cos = col.cosines(q, [i for i in ids if i not in kept])
            order = sorted(cos, key=lambda i: -cos[i])[:n]
            _keep(kept, p, hot, [Candidate(i, cos[i], "subject") for i in order])
    hits = ranked(over, kept.values(), p.qgrams, p.now, set(p.named), w)
    return collapse(col, hits, p.k), seen_all


__all__ = ["DIRECT_EXACT_MAX", "nearest"]
