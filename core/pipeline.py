"""The types that flow down the write path, in the order data flows:

    Turn -> (extraction) ExtractedFact -> (claims) ClaimInput citing a SourceRef
         -> (gates, core.gates) -> (plan, core.bitemporal) -> (write, core.writer)

``ClaimInput`` lives in ``core.claims`` with the validation of the import line
format; the rest are here, with no dependencies, so that every stage can name
them without importing another stage.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

# a fact said unsure ("可能会换工作", "might sell the boat"), by the rules or as the signal layer reads it, is claimed
# at this confidence: below the default review threshold (0.75), for a reviewer
HEDGED_CONFIDENCE = 0.5


@dataclass(frozen=True)
class Turn:
    """One conversation turn (docs/DESIGN.md §6). ``time`` is an aware datetime."""

    session: str
    turn: int
    speaker: str
    time: datetime
    text: str
    user: str
    project: str | None = None


@dataclass(frozen=True)
class ExtractedFact:
    """One candidate fact extracted from a turn."""

    subject: str
    predicate: str
    object: str
    value: dict | None = None
    polarity: str = "positive"
    change: str | None = None
    scope: str = "global"
    source_kind: str = "user_explicit"
    confidence: float = 0.9
    event_start: datetime | None = None
    event_end: datetime | None = None
    condition: str | None = None
    # the turn said when the value began ("vegetarian since January", "从三月开始戒了"): the event
    # time is the value's stated start, as a change's is
    start_said: bool = False

    def ended_at(self, told: datetime) -> datetime | None:
        """When an ending (change ``ending``) told at ``told`` happened, from the time its text names
        (None: none, it is heard when told): after the time named ("quit in February": by 1 March;
        "last day is 30 April": from 1 May), or when it was told if that is earlier and the time had
        begun by then ("quit this week")."""
        if self.event_start is None:
            return None
        end = self.event_end or self.event_start
        return min(end, told) if self.event_start <= told else end


@dataclass(frozen=True)
class SourceRef:
    """The turn a claim cites. ``time`` is microseconds since the epoch."""

    session: str
    turn: int
    text: str
    time: int
    tz: int = 0
    speaker: str = "user"
    kind: str = "imported"
