"""A brute-force reference model of memdesk's bitemporal write rules.

Written from docs/DESIGN.md §2 and deliberately independent of ``core``
(nothing is imported from it, ``core.bitemporal.plan_change`` in particular).
The model keeps every row it ever wrote in one list and answers every question
by scanning that list. Open interval ends are ``math.inf`` instead of None.

Every accepted change is stated the same way, as *overwriting* a valid-time
span ``[a, b)`` of one slot with a new value at transaction time ``T``:

    every current row of the slot that overlaps [a, b) is retired at T and the
    parts of it that lie outside [a, b) are re-inserted as copies recorded at
    T; then the new value is inserted over [a, b), recorded at T.

The kinds of change only differ in which span they overwrite:

    assert     (no signal)  [valid_from, valid_to) if nothing else overlaps it
                            and no row of the same value covers it (else merge)
    evolution  at t         [t, min(valid_to, first start after t of a current
                            row that is not overtaken)); a conflict when a
                            row of another value starts at t too
    correction              heard: exactly the interval of the row it corrects;
                            stated: [t, min(valid_to, that row's end)), or,
                            nothing holding then, [t, the next start)

so the model never needs to special-case "copy before", "copy after" or
"backfill": they fall out of the overwrite.

Starts are *stated* (a time given for the change) or only *heard* (the time
the claim was told). A row whose start was only heard is *overtaken* by a
stated evolution told at or after that start (and starting before it, within
the claim's interval): the evolution's span runs through it. An evolution
with a stated start merges into the row holding at t only when that row
starts at t; a heard one whenever the row holds the same value. A copy keeps
its row's start kind, except a copy resuming after the span, which starts at
a stated time (the span's end).

A reviewer resolves a conflict by deciding its claim again with a signal:
``changed`` as an evolution (refused when that is itself a conflict: two
values said to start at one instant), ``incoming`` as a correction
(``existing`` rejects it, ``neither`` also retracts the rows it contradicted). An undo of a
resolution takes back exactly what the resolution did, as remembered when it
was taken: the rows it wrote are retracted, the rows it retired come back as
copies over their whole interval, and the conflict is open again, unless a
later write changed those rows (then it is refused and nothing happens).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

INF = math.inf
REVIEW_THRESHOLD = 0.75
SINGLE_VALUED = {"lives_in": True, "likes": False, "dislikes": False}
# "dislikes X" says "likes X" with the other polarity: one slot, one meaning
OPPOSITE_OF = {"dislikes": "likes"}
FLIP = {"positive": "negative", "negative": "positive", "neutral": "neutral"}

RETIRE_REASON = {"evolution": "superseded", "backfill": "superseded", "correction": "corrected",
                 "insert": "superseded"}


def norm(text: str) -> str:
    """Objects compare case- and space-insensitively."""
    return " ".join(text.split()).casefold()


def slot_of(predicate: str, obj: str) -> tuple:
    """What holds one value at a time (scope is always global here); a
    predicate and its opposite share their slots."""
    predicate = OPPOSITE_OF.get(predicate, predicate)
    if SINGLE_VALUED[predicate]:
        return (predicate,)
    return (predicate, norm(obj))


class Identity:
    """When two statements in one slot say the same thing: same polarity, and
    the same normalised value when both carry one, else the same object."""

    def __init__(self, obj: str, value: Any, polarity: str) -> None:
        self.obj, self.value, self.polarity = norm(obj), value, polarity

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Identity):
            return NotImplemented
        if self.polarity != other.polarity:
            return False
        if self.value is not None and other.value is not None:
            return self.value == other.value
        return self.obj == other.obj

    __hash__ = None  # type: ignore[assignment]


def identity_of(predicate: str, obj: str, value: Any, polarity: str) -> Identity:
    """Seen from the slot's own predicate: an opposite's polarity is flipped."""
    return Identity(obj, value, FLIP[polarity] if predicate in OPPOSITE_OF else polarity)


@dataclass(frozen=True)
class MClaim:
    predicate: str
    object: str
    valid_from: int
    valid_to: int | None
    value: Any = None
    polarity: str = "positive"
    change: str | None = None
    confidence: float = 1.0
    kind: str = "imported"
    stated: bool = True
    told: int = 0

    @property
    def end(self) -> float:
        return INF if self.valid_to is None else self.valid_to

    def slot(self) -> tuple:
        return slot_of(self.predicate, self.object)

    def identity(self) -> Identity:
        return identity_of(self.predicate, self.object, self.value, self.polarity)

    def needs_review(self) -> bool:
        return self.confidence < REVIEW_THRESHOLD or self.kind == "agent_inferred"


@dataclass
class MRow:
    id: int
    claim: int
    predicate: str
    object: str
    value: Any
    polarity: str
    valid_from: int
    valid_to: float
    recorded_at: int
    retired_at: float = INF
    retire_reason: str | None = None
    copy_of: int | None = None
    stated: bool = True

    def slot(self) -> tuple:
        return slot_of(self.predicate, self.object)

    def identity(self) -> Identity:
        return identity_of(self.predicate, self.object, self.value, self.polarity)

    @property
    def is_current(self) -> bool:
        return self.retired_at == INF

    def holds_at(self, t: float) -> bool:
        return self.valid_from <= t < self.valid_to

    def overlaps(self, a: float, b: float) -> bool:
        return self.valid_from < b and a < self.valid_to

    def known_at(self, k: float) -> bool:
        return self.recorded_at <= k < self.retired_at


@dataclass
class Decision:
    kind: str  # insert | evolution | backfill | correction | merge | conflict
    span: tuple[float, float] | None = None
    conflict_with: tuple[int, ...] = ()
    stated: bool = True  # the start kind of the new row


@dataclass
class Outcome:
    """What one operation did. ``kind`` is a Decision kind, or pending /
    unchanged / rejected / retracted. ``tx`` is its transaction time."""

    kind: str
    tx: int
    claim: int | None = None
    conflict_with: tuple[int, ...] = ()


@dataclass
class MConflict:
    claim: int
    predicate: str
    opened_at: int
    row_ids: tuple[int, ...]
    statement: MClaim | None = None  # the contradicting claim, as it was submitted


@dataclass
class MResolution:
    """A resolution taken, and what it did (row ids), kept for its undo."""

    conflict: MConflict
    keep: str
    tx: int
    wrote: tuple[int, ...]
    retired: tuple[int, ...]


@dataclass
class Model:
    rows: list[MRow] = field(default_factory=list)
    last_tx: int = 0
    pending: dict[int, MClaim] = field(default_factory=dict)  # claim number -> claim
    conflicts: list[MConflict] = field(default_factory=list)  # open ones, oldest first
    resolutions: list[MResolution] = field(default_factory=list)  # standing ones
    claims: int = 0
    seen: set = field(default_factory=set)

    # ------------------------------------------------------------- queries
    def current(self, predicate: str | None = None) -> list[MRow]:
        return [r for r in self.rows if r.is_current and predicate in (None, r.predicate)]

    def as_of(self, predicate: str, valid_at: float, known_at: float) -> list[MRow]:
        return [
            r for r in self.rows
            if r.predicate == predicate and r.known_at(known_at) and r.holds_at(valid_at)
        ]

    def slot_rows(self, slot: tuple) -> list[MRow]:
        return [r for r in self.rows if r.is_current and r.slot() == slot]

    # ---------------------------------------------------------------- time
    def _tick(self, t: int) -> int:
        """Transaction time never moves backwards."""
        self.last_tx = max(self.last_tx, t)
        return self.last_tx

    def _tick_decision(self, t: int) -> int:
        """A single decision (approve, reject, retract) gets an instant of its
        own: at least one microsecond after the previous write."""
        self.last_tx = max(self.last_tx + 1, t)
        return self.last_tx

    # ------------------------------------------------------------- writes
    def submit(self, claim: MClaim, identity: Any, source_time: int) -> Outcome:
        """A claim from a turn whose time is ``source_time`` (the replay clock).
        ``identity`` names (turn, content): the same claim from the same turn
        again changes nothing."""
        if identity in self.seen:
            return Outcome("unchanged", self.last_tx)
        self.seen.add(identity)
        tx = self._tick(source_time)
        self.claims += 1
        number = self.claims
        decision = self.decide(claim)
        if decision.kind == "merge":
            return Outcome("merge", tx, number)
        if claim.needs_review():
            self.pending[number] = claim
            return Outcome("pending", tx, number)
        return self._carry_out(number, claim, decision, tx)

    def approve(self, number: int, clock: int) -> Outcome:
        claim = self.pending.pop(number)
        tx = self._tick_decision(clock)
        decision = self.decide(claim)
        if decision.kind == "merge":
            return Outcome("merge", tx, number)
        return self._carry_out(number, claim, decision, tx)

    def reject(self, number: int, clock: int) -> Outcome:
        del self.pending[number]
        return Outcome("rejected", self._tick_decision(clock), number)

    def retract(self, row_id: int, clock: int) -> Outcome:
        tx = self._tick_decision(clock)
        row = self.rows[row_id]
        assert row.is_current
        row.retired_at = tx
        row.retire_reason = "retracted"
        return Outcome("retracted", tx)

    # ------------------------------------------------------------- rules
    def decide(self, c: MClaim) -> Decision:
        rows = self.slot_rows(c.slot())
        t, end = c.valid_from, c.end
        holders = [r for r in rows if r.holds_at(t)]
        assert len(holders) <= 1, "model invariant: current rows of a slot never overlap"
        holder = holders[0] if holders else None
        mine = c.identity()

        if c.change is None:
            hit = [r for r in rows if r.overlaps(t, end)]
            if not hit:
                return Decision("insert", span=(t, end), stated=c.stated)
            clash = tuple(r.id for r in hit if r.identity() != mine)
            if clash:
                return Decision("conflict", conflict_with=clash)
            if any(r.valid_from <= t and end <= r.valid_to for r in hit):
                return Decision("merge")
            return Decision("insert", span=(t, end), stated=c.stated)

        if c.change == "correction":
            if c.stated:  # "from t it was X": what held from t, up to end or that row's end
                if holder is None:  # nothing known for that time yet
                    later = [r.valid_from for r in rows if r.valid_from > t]
                    return Decision("backfill" if later else "insert",
                                    span=(t, min([end, *later])), stated=True)
                if holder.identity() == mine and holder.valid_from == t:
                    return Decision("merge")
                return Decision("correction", span=(t, min(end, holder.valid_to)), stated=True)
            if holder is not None:
                target = holder
            elif rows:
                target = max(rows, key=lambda r: r.valid_from)
            else:
                return Decision("insert", span=(t, end), stated=c.stated)
            if target.identity() == mine:
                return Decision("merge")
            return Decision("correction", span=(target.valid_from, target.valid_to),
                            stated=target.stated)

        assert c.change == "evolution", c.change
        if holder is not None and holder.identity() == mine and (
                not c.stated or holder.valid_from == t):
            return Decision("merge")

        def overtaken(r: MRow) -> bool:
            return c.stated and not r.stated and r.valid_from <= c.told and r.valid_from < end

        if (holder is not None and holder.valid_from == t and c.stated
                and not (not holder.stated and holder.valid_from <= c.told)):
            return Decision("conflict", conflict_with=(holder.id,))  # two values, one instant

        later = [r.valid_from for r in rows if r.valid_from > t and not overtaken(r)]
        stop = min([end, *later])
        if later:
            kind = "backfill"
        elif holder is not None or any(overtaken(r) and t < r.valid_from < stop for r in rows):
            kind = "evolution"
        else:
            kind = "insert"
        return Decision(kind, span=(t, stop), stated=c.stated)

    def _carry_out(self, number: int, c: MClaim, d: Decision, tx: int) -> Outcome:
        if d.kind == "conflict":
            self.conflicts.append(MConflict(number, c.predicate, tx, d.conflict_with, c))
            return Outcome("conflict", tx, number, d.conflict_with)
        assert d.span is not None
        a, b = d.span
        for old in [r for r in self.slot_rows(c.slot()) if r.overlaps(a, b)]:
            old.retired_at = tx
            old.retire_reason = RETIRE_REASON[d.kind]
            if old.valid_from < a:
                self._copy(old, old.valid_from, a, tx, old.stated)
            if b < old.valid_to:
                self._copy(old, b, old.valid_to, tx, True)
        self.rows.append(MRow(
            id=len(self.rows), claim=number, predicate=c.predicate, object=c.object,
            value=c.value, polarity=c.polarity, valid_from=a, valid_to=b, recorded_at=tx,
            stated=d.stated,
        ))
        return Outcome(d.kind, tx, number)

    def _copy(self, old: MRow, a: float, b: float, tx: int, stated: bool) -> None:
        assert a < b
        self.rows.append(MRow(
            id=len(self.rows), claim=old.claim, predicate=old.predicate, object=old.object,
            value=old.value, polarity=old.polarity, valid_from=int(a), valid_to=b,
            recorded_at=tx, copy_of=old.id, stated=stated,
        ))

    # --------------------------------------------------------- resolutions
    def resolve(self, conflict: MConflict, keep: str, clock: int) -> Outcome:
        """Resolve an open conflict (``both`` is not modelled: one scope only)."""
        assert conflict in self.conflicts and conflict.statement is not None
        if keep in ("changed", "incoming"):
            signal = {"changed": "evolution", "incoming": "correction"}[keep]
            claim = dataclasses.replace(conflict.statement, change=signal)
            d = self.decide(claim)
            if d.kind == "conflict":  # a change at the very instant the other value starts
                return Outcome("refused", self.last_tx)
        tx = self._tick_decision(clock)
        rows_before = len(self.rows)
        current_before = {r.id for r in self.rows if r.is_current}
        self.conflicts.remove(conflict)
        if keep in ("existing", "neither"):
            if keep == "neither":
                for r in self.rows:
                    if r.id in conflict.row_ids and r.is_current:
                        r.retired_at, r.retire_reason = tx, "retracted"
            out = Outcome("rejected", tx, conflict.claim)
        else:
            if d.kind == "merge":
                out = Outcome("merge", tx, conflict.claim)
            else:
                out = self._carry_out(conflict.claim, claim, d, tx)
        wrote = tuple(r.id for r in self.rows[rows_before:])
        retired = tuple(sorted(i for i in current_before if not self.rows[i].is_current))
        self.resolutions.append(MResolution(conflict, keep, tx, wrote, retired))
        return out

    def undo_resolution(self, res: MResolution, clock: int) -> Outcome:
        """Take back a standing resolution; ``refused`` when a later write
        changed what it wrote, what it left of the conflict, or the time the
        rows it retired would come back to."""
        assert res in self.resolutions
        wrote = [self.rows[i] for i in res.wrote]
        left = [self.rows[i] for i in res.conflict.row_ids if i not in res.retired]
        if (any(not r.is_current for r in wrote)
                or any(r.retired_at != INF and r.retired_at > res.tx for r in left)):
            return Outcome("refused", self.last_tx)
        written = set(res.wrote)
        for i in res.retired:
            old = self.rows[i]
            if any(r.id not in written and r.overlaps(old.valid_from, old.valid_to)
                   for r in self.slot_rows(old.slot())):
                return Outcome("refused", self.last_tx)
        tx = self._tick_decision(clock)
        for r in wrote:
            r.retired_at, r.retire_reason = tx, "retracted"
        copies = {}
        for i in res.retired:
            copies[i] = len(self.rows)
            old = self.rows[i]
            self._copy(old, old.valid_from, old.valid_to, tx, old.stated)
        conflict = res.conflict
        conflict.row_ids = tuple(copies.get(i, i) for i in conflict.row_ids)
        self.resolutions.remove(res)
        self.conflicts.append(conflict)
        self.conflicts.sort(key=lambda c: (c.opened_at, c.claim))
        return Outcome("reopened", tx, conflict.claim)
