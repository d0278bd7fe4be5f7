"""Scoring: relevance + recency + importance, every part kept for the breakdown.

    relevance  = (1 - lexical) * max(cosine, 0) + lexical * lexical_score
    recency    = 0.5 ** (age / half_life)               (1 for brand new, 0.5 at one half-life)
    importance = 0.6 * confidence + 0.4 * min(1, log2(1 + mentions) / 3)
    subject    = 1 when the query names the item's subject ("where does alice live"), else 0
    score      = (w_relevance * relevance + w_recency * recency
                  + w_importance * importance + w_subject * subject) * status_factor

Raw turns take their relevance from the fused channels instead:
``relevance = logistic(w_dense * z(cosine) + w_words * z(bm25))`` (see
``fusion``; weights set on the development sets, docs/DESIGN.md §4.3).

``status_factor`` is 1 for an active item and ``stale_factor`` for a memory
whose fact was superseded, corrected, retracted or expired: recency only tilts
(seed 000: a newer memory outranks an older one only while the recency term is
larger than their relevance gap), the store's status decides.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

from ..errors import InvalidInput

DAY_US = 86_400_000_000


@dataclass(frozen=True, slots=True)
class RecallWeights:
    """The knobs of the score (settings: ``[recall]`` in the config file or
    ``MEMDESK_RECALL_<NAME>``). Defaults chosen on the probe set
    (``tests/sets/probes/recall.jsonl``)."""

    relevance: float = 1.0
    recency: float = 0.1
    importance: float = 0.1
    subject: float = 0.2
    lexical: float = 0.25
    half_life_days: float = 30.0
    stale_factor: float = 0.5
    dense: float = 1.0  # raw turns: weight of the dense channel's z-score (fusion)
    words: float = 0.4  # raw turns: weight of the BM25 channel's z-score (fusion)
    dated: float = 1.5  # raw turns: added to the fused score of a turn naming a day, for "when" questions

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or math.isnan(value):
                raise InvalidInput(f"recall weight {f.name} must be a number, got {value!r}")
            if value < 0:
                raise InvalidInput(f"recall weight {f.name} must not be negative, got {value}")
        if self.lexical > 1 or self.stale_factor > 1:
            raise InvalidInput("recall weights lexical and stale_factor must be between 0 and 1")
        if self.half_life_days <= 0:
            raise InvalidInput("recall half_life_days must be above 0")

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))


def relevance(cosine: float, lexical: float, w: RecallWeights) -> float:
    return (1.0 - w.lexical) * max(cosine, 0.0) + w.lexical * lexical


def recency(item_time: int, now: int, w: RecallWeights) -> float:
    age_days = max(0, now - item_time) / DAY_US
    return 0.5 ** (age_days / w.half_life_days)


def importance(confidence: float | None, mentions: int) -> float:
    conf = 0.5 if confidence is None else min(max(confidence, 0.0), 1.0)
    return 0.6 * conf + 0.4 * min(1.0, math.log2(1 + max(mentions, 1)) / 3.0)


def status_factor(status: str, w: RecallWeights) -> float:
    return 1.0 if status == "active" else w.stale_factor


def score(rel: float, rec: float, imp: float, factor: float, w: RecallWeights,
          subject: float = 0.0) -> float:
    return (w.relevance * rel + w.recency * rec + w.importance * imp + w.subject * subject) * factor
