"""The structured path: a query that names a predicate ("where does alice
live", "预算多少") gets the store's current value of it, per subject, pinned
first; the structured path decides values, not the wording of memories.
Values are read through the Store (``as_of``, ``sources``), the subjects
holding a predicate through ``memdesk.db.recall.holders``. Raises what the
Store, the database driver and the embedder raise."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..db.recall import holders
from ..lang.text import is_chinese
from ..store import Store
from .hits import RecallHit
from .intent import PredicateMatcher
from .probe import Probe
from .results import fact_hit, label_of
from .scoring import RecallWeights


def structured(p: Probe, hits: list[RecallHit], store: Store, predicates: PredicateMatcher,
               w: RecallWeights,
               passages: Callable[[list[str]], np.ndarray]) -> list[RecallHit]:
    """Current values of the predicates ``p.query`` names, pinned first: of
    the subject asked for, else of the subjects the query names, else of
    every subject in scope that holds one ("预算多少" asked for zhou: the
    budget of the trip project zhou's conversation set), else (unscoped) of
    the subjects holding one, those of the best memories (``hits``) first,
    at most ``p.k`` subjects. Several values held at once (decisions,
    likes): at most three, the closest to the query first (``passages``
    embeds their statements). Empty when the statuses asked for leave out
    ``active``. Raises what the embedder raises."""
    f = p.filters
    in_scope, scopes, statuses, now, known_at = f.scope, f.scopes, f.statuses, p.now, p.known_at
    if statuses is not None and "active" not in statuses:
        return []
    wanted = predicates.predicates(p.query)
    if not wanted:
        return []
    if in_scope.scope.subject:
        subjects = [in_scope.scope.subject]
    elif p.named:
        subjects = list(p.named)
    else:
        asked = set(wanted)
        first = [h.subject for h in hits if h.subject and h.predicate in asked
                 and in_scope.covers_subject(h.subject)]
        subjects = list(dict.fromkeys(first + holders(store.engine, wanted, in_scope.subjects,
                                                      now, known_at)))[:p.k]
    if not subjects:
        return []
    zh = is_chinese(p.query)
    out: list[RecallHit] = []
    for subj in subjects:
        for pred in wanted:
            facts = store.facts.as_of(subj, pred, valid_at=now, known_at=known_at
                                if known_at is not None else now, include_expired=False)
            if scopes:
                facts = [x for x in facts if x.scope in scopes]
            if not facts:
                continue
            sources = store.facts.sources(x.claim_id for x in facts)
            label = label_of(store, pred, zh)
            facts.sort(key=lambda x: (-x.told_from, -x.id))
            semantic = {x.id: 1.0 for x in facts}
            if len(facts) > 1 and not all(x.single_valued for x in facts):
                # several values hold at once (decisions, likes): at most three,
                # the ones whose statement is closest to the query first ...
                texts = [sources[x.claim_id].text if x.claim_id in sources else x.object
                         for x in facts]
                cos = passages(texts) @ p.q
                semantic = {x.id: float(c) for x, c in zip(facts, cos, strict=True)}
                # ... the chosen options before the rejected ones
                facts = sorted(facts, key=lambda x: (x.polarity == "negative",
                                                     -semantic[x.id]))[:3]
            out.extend(fact_hit(x, label, sources.get(x.claim_id), now, known_at, p.conflicts,
                                zh, w, semantic=semantic[x.id])
                       for x in facts)
    return out


__all__ = ["structured"]
