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
    correction              heard: exactly the interval of the row it corrects (the
                            row told last when it starts after t, else the one
                            holding at t, else the latest);
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

A stated start has a precision: it lies somewhere in ``[valid_from,
latest]`` ("last month": the whole month; ``latest`` None: exactly
``valid_from``), never after the claim was told when that lies inside. An
evolution with a stated start happened after every instant the user said
another value held, before it was told: each current row's latest start (for
a heard row, when it was said) and what the claims merged into its lineage
said (their latest start), when the row holds then and the instant lies in
``[t, stop)``, ``stop`` being where the evolution would end. The evolution
then starts one microsecond after the last such instant: ``bounded`` when
that is still within the stated precision, ``clamped`` (latest: when it was
told) when the whole stated precision lay before it. An instant at which
its own value was said to hold, at or after that start, is the latest its
start can be.

Every operation has two times. *Recorded*: the store's clock, at least one
microsecond after the previous operation (``recorded_at``/``retired_at``,
never moved by input). *Told*: a claim's source time (a decision: its
recorded time); rows it writes are known from then and rows it retires
known until then (never before they were known from).

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
                 "insert": "superseded", "refinement": "superseded", "ending": "superseded"}
# how values relate beyond equality (the catalog's ``values``): tastes by their
# head, places as paths (written here for the objects the tests draw)
VALUES = {"lives_in": "place", "likes": "taste", "dislikes": "taste"}


def norm(text: str) -> str:
    """Objects compare case- and space-insensitively."""
    return " ".join(text.split()).casefold()


def _is_cjk(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def relation(kind: str, a: str, b: str) -> str:
    """What ``b`` is to ``a``: same, within (finer), contains (coarser) or other.
    A taste is within another whose words (characters, in Chinese) end it; a
    place is within another that begins or ends its path (comma parts in
    English; characters, coarsest first, in Chinese)."""
    a, b = norm(a), norm(b)
    if a == b:
        return "same"
    if _is_cjk(a) != _is_cjk(b):
        return "other"
    if _is_cjk(a):
        x, y = list(a.replace(" ", "")), list(b.replace(" ", ""))
    elif kind == "place":
        x, y = [p.strip() for p in a.split(",")], [p.strip() for p in b.split(",")]
    else:
        x, y = a.split(), b.split()
    if x == y:
        return "same"

    def within(short: list, long: list) -> bool:
        n = len(short)
        if len(long) <= n:
            return False
        if kind == "taste":
            return long[-n:] == short
        return long[-n:] == short or long[:n] == short

    if within(x, y):
        return "within"
    if within(y, x):
        return "contains"
    return "other"


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
    latest: int | None = None  # a stated start said with a precision: the last instant it can be

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
    kind: str = "stated"  # stated | heard | bounded | clamped
    latest: int = 0  # the latest instant its start can be
    known_from: int = 0  # the told axis
    known_until: float = INF

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
        """Believed as told by ``k`` (the told axis)."""
        return self.known_from <= k < self.known_until

    def recorded_by(self, r: float, k: float) -> bool:
        """Believed as told by ``k`` among what was recorded by ``r``."""
        return (self.recorded_at <= r and self.known_from <= k
                and not (self.retired_at <= r and self.known_until <= k))


@dataclass
class Decision:
    kind: str  # insert | evolution | backfill | correction | merge | conflict | retract
    span: tuple[float, float] | None = None
    conflict_with: tuple[int, ...] = ()
    stated: bool = True  # whether the new row's start counts as stated
    start_kind: str = "stated"
    latest: int = 0
    merge_into: MRow | None = None


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
    opened_at: int  # on the told axis
    row_ids: tuple[int, ...]
    statement: MClaim | None = None  # the contradicting claim, as it was submitted
    seq: int = 0  # the order conflicts were opened in (the store's conflict ids)


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
    # claim number -> (lineage claim number, the instant it said the value held,
    # whether it said so in the present tense), for every claim merged into a
    # lineage and not taken back
    mentions: dict[int, tuple[int, int, bool]] = field(default_factory=dict)
    told: int = 0  # the told time of the operation being carried out
    opened: int = 0  # conflicts opened so far

    # ------------------------------------------------------------- queries
    def current(self, predicate: str | None = None) -> list[MRow]:
        return [r for r in self.rows if r.is_current and predicate in (None, r.predicate)]

    def as_of(self, predicate: str, valid_at: float, known_at: float,
              recorded_at: float | None = None) -> list[MRow]:
        return [
            r for r in self.rows
            if r.predicate == predicate and r.holds_at(valid_at)
            and (r.known_at(known_at) if recorded_at is None
                 else r.recorded_by(recorded_at, known_at))
        ]

    def slot_rows(self, slot: tuple) -> list[MRow]:
        return [r for r in self.rows if r.is_current and r.slot() == slot]

    def meeting_rows(self, c: MClaim) -> list[MRow]:
        """The rows a claim meets: its slot's, and for a taste the current
        tastes of the other polarity whose value is its head or has it as head."""
        rows = self.slot_rows(c.slot())
        if VALUES.get(c.predicate) == "taste":
            mine = c.identity().polarity
            rows += [r for r in self.rows if r.is_current and VALUES.get(r.predicate) == "taste"
                     and r.slot() != c.slot()
                     and {mine, r.identity().polarity} == {"positive", "negative"}
                     and relation("taste", r.object, c.object) in ("within", "contains")]
        return sorted(rows, key=lambda r: (r.valid_from, r.id))

    # ---------------------------------------------------------------- time
    def _tick(self, clock: int) -> int:
        """Every operation is recorded at the store's clock, at least one
        microsecond after the previous one: recorded time never moves back."""
        self.last_tx = max(self.last_tx + 1, clock)
        return self.last_tx

    def _tick_decision(self, clock: int) -> int:
        """A person's decision: recorded at the clock, and told then too."""
        tx = self._tick(clock)
        self.told = tx
        return tx

    def unchanged(self, clock: int) -> Outcome:
        """An operation that wrote nothing leaves the store as it was (its time too)."""
        return Outcome("unchanged", self.last_tx)

    # ------------------------------------------------------------- writes
    def submit(self, claim: MClaim, identity: Any, clock: int) -> Outcome:
        """A claim told at ``claim.told``, written when the store's clock says
        ``clock``. ``identity`` names (turn, content): the same claim from the
        same turn again changes nothing."""
        if identity in self.seen:
            return self.unchanged(clock)
        self.seen.add(identity)
        tx = self._tick(clock)
        self.told = claim.told
        self.claims += 1
        number = self.claims
        decision = self.decide(claim)
        if decision.kind == "merge":
            return self._merge(number, claim, decision, tx)
        if claim.needs_review():
            self.pending[number] = claim
            return Outcome("pending", tx, number)
        return self._carry_out(number, claim, decision, tx)

    def _merge(self, number: int, c: MClaim, d: Decision, tx: int) -> Outcome:
        """A mention of the row it merges into: what it said is evidence."""
        assert d.merge_into is not None
        said = c.valid_from if c.latest is None else c.latest
        self.mentions[number] = (d.merge_into.claim, said, not c.stated)
        return Outcome("merge", tx, number)

    def approve(self, number: int, clock: int) -> Outcome:
        claim = self.pending.pop(number)
        tx = self._tick_decision(clock)
        decision = self.decide(claim)
        if decision.kind == "merge":
            return self._merge(number, claim, decision, tx)
        return self._carry_out(number, claim, decision, tx)

    def reject(self, number: int, clock: int) -> Outcome:
        del self.pending[number]
        return Outcome("rejected", self._tick_decision(clock), number)

    def retract(self, row_id: int, clock: int) -> Outcome:
        tx = self._tick_decision(clock)
        row = self.rows[row_id]
        assert row.is_current
        self._retire(row, tx, "retracted")
        return Outcome("retracted", tx)

    def _retire(self, row: MRow, tx: int, reason: str) -> None:
        row.retired_at, row.retire_reason = tx, reason
        row.known_until = max(self.told, row.known_from)

    # ------------------------------------------------------------ evidence
    def said(self, row: MRow) -> list[tuple[int, bool]]:
        """The instants the user said ``row``'s value held, within the row, and
        whether in the present tense: the latest its start can be (present
        for a heard start), and what the mentions merged into its lineage said."""
        instants = [(row.latest, not row.stated)] + [
            (t, heard) for lineage, t, heard in self.mentions.values() if lineage == row.claim]
        return [(t, heard) for t, heard in instants if row.holds_at(t)]

    # ------------------------------------------------------------- rules
    def decide(self, c: MClaim) -> Decision:
        rows = self.meeting_rows(c)
        if c.change == "retraction":  # the value taken back: its rows, whenever they held
            return Decision("retract", conflict_with=tuple(
                r.id for r in rows if r.identity() == c.identity()))
        if c.change == "ending":
            return self._ending(c, rows)
        t, end = c.valid_from, c.end
        hi = t if c.latest is None or c.latest < t else c.latest
        if c.latest is not None and t <= c.told < hi:
            hi = c.told  # a start said with a precision, but told by then
        kind = "stated" if c.stated else "heard"

        def holder_at(x: float) -> MRow | None:
            holders = [r for r in rows if r.holds_at(x)]
            assert len(holders) <= 1 or VALUES.get(c.predicate) == "taste", \
                "model invariant: current rows of a slot never overlap"
            return holders[0] if holders else None  # the earliest start, then the first written

        holder = holder_at(t)
        mine = c.identity()

        if c.change is None and VALUES.get(c.predicate) == "place":
            # a place beside the one other place holding over its time: the same
            # or coarser place is a mention of it; a finer one refines it
            other = [r for r in rows if r.overlaps(t, end) and r.identity() != mine]
            if len(other) == 1 and other[0].polarity == c.polarity:
                r = other[0]
                how = relation("place", r.object, c.object)
                if how in ("same", "contains") and r.valid_from <= t and end <= r.valid_to:
                    return Decision("merge", merge_into=r)
                if how == "within":
                    d = self.decide(dataclasses.replace(c, change="correction"))
                    return dataclasses.replace(d, kind="refinement") if d.kind == "correction" else d

        if c.change is None:
            hit = [r for r in rows if r.overlaps(t, end)]
            if not hit:
                return Decision("insert", span=(t, end), stated=c.stated, start_kind=kind, latest=hi)
            clash = tuple(r.id for r in hit if r.identity() != mine)
            if clash:
                return Decision("conflict", conflict_with=clash)
            covering = [r for r in hit if r.valid_from <= t and end <= r.valid_to]
            if covering:
                return Decision("merge", merge_into=covering[0])
            return Decision("insert", span=(t, end), stated=c.stated, start_kind=kind, latest=hi)

        if c.change == "correction":
            if c.stated:  # "from t it was X": what held from t, up to end or that row's end
                if holder is None:  # nothing known for that time yet
                    later = [r.valid_from for r in rows if r.valid_from > t]
                    return Decision("backfill" if later else "insert",
                                    span=(t, min([end, *later])), stated=True,
                                    start_kind=kind, latest=hi)
                if holder.identity() == mine and holder.valid_from == t:
                    return Decision("merge", merge_into=holder)
                return Decision("correction", span=(t, min(end, holder.valid_to)), stated=True,
                                start_kind=kind, latest=hi)
            told_last = max(rows, key=lambda r: r.claim) if rows else None
            if told_last is not None and told_last.valid_from > t:  # a value told last for a time to come
                target = told_last
            elif holder is not None:
                target = holder
            elif rows:
                target = max(rows, key=lambda r: r.valid_from)
            else:
                return Decision("insert", span=(t, end), stated=c.stated, start_kind=kind, latest=hi)
            if target.identity() == mine:
                return Decision("merge", merge_into=target)
            return Decision("correction", span=(target.valid_from, target.valid_to),
                            stated=target.stated, start_kind=target.kind, latest=target.latest)

        assert c.change == "evolution", c.change

        def overtaken(r: MRow) -> bool:
            """Said to hold in the present tense before this was told: a heard
            start, or a mention."""
            spoken = not r.stated or any(heard and x < c.told for x, heard in self.said(r))
            return c.stated and spoken and r.valid_from <= c.told and r.valid_from < end

        if c.stated:
            # what was said before it was told bounds where the change can be
            later = [r.valid_from for r in rows if r.valid_from > t and not overtaken(r)]
            stop = min([end, *later])
            said = [(x, heard, r) for r in rows if r.identity() != mine
                    for x, heard in self.said(r) if t <= x < c.told and x < stop]
            if said:
                last, heard, after = max(said, key=lambda p: (p[0], p[1]))
                if end <= last + 1:
                    return Decision("conflict", conflict_with=(after.id,))
                if last < hi:
                    kind = "bounded"
                elif not heard and last == after.valid_from:  # both said to begin then
                    return Decision("conflict", conflict_with=(after.id,))
                else:
                    kind, hi = "clamped", max(c.told, last + 1)
                t = last + 1
                holder = holder_at(t)
            own = [x for r in rows if r.identity() == mine for x, _ in self.said(r)
                   if t <= x < hi]
            hi = min([hi, *own])

        if holder is not None and holder.identity() == mine and (
                not c.stated or holder.valid_from == t):
            return Decision("merge", merge_into=holder)
        if (holder is not None and holder.valid_from == t and c.stated
                and not (not holder.stated and holder.valid_from <= c.told)):
            return Decision("conflict", conflict_with=(holder.id,))  # two values, one instant

        later = [r.valid_from for r in rows if r.valid_from > t and not overtaken(r)]
        stop = min([end, *later])
        if later:
            change = "backfill"
        elif holder is not None or any(overtaken(r) and t < r.valid_from < stop for r in rows):
            change = "evolution"
        else:
            change = "insert"
        return Decision(change, span=(t, stop), stated=c.stated, start_kind=kind, latest=hi)

    @staticmethod
    def _ending(c: MClaim, rows: list[MRow]) -> Decision:
        """A value that stopped holding at ``c.valid_from``: the rows of it (for
        a place, of the places within it; naming no value, in a single-valued
        slot: any) holding before and at it end there; one of a named value
        begun then or later but said to hold no later than the ending was told
        ends whole. Nothing is inserted."""
        t, named = c.valid_from, bool(c.object.strip())

        def ends(r: MRow) -> bool:
            if not named:
                return SINGLE_VALUED[c.predicate]
            return r.identity() == c.identity() or (
                VALUES.get(c.predicate) == "place" and r.polarity == c.polarity
                and relation("place", c.object, r.object) == "within")

        return Decision("ending", conflict_with=tuple(
            r.id for r in rows if ends(r) and t < r.valid_to
            and (r.valid_from < t or (named and r.valid_from <= c.told))))

    def _carry_out(self, number: int, c: MClaim, d: Decision, tx: int) -> Outcome:
        if d.kind == "ending":
            for row_id in d.conflict_with:
                old = self.rows[row_id]
                self._retire(old, tx, "superseded")
                if old.valid_from < c.valid_from:
                    self._copy(old, old.valid_from, c.valid_from, tx, old.stated, old.kind,
                               min(old.latest, c.valid_from - 1))
            return Outcome("ending", tx, number)
        if d.kind == "retract":
            for row_id in d.conflict_with:
                self._retire(self.rows[row_id], tx, "retracted")
            return Outcome("retract", tx, number)
        if d.kind == "conflict":
            self.opened += 1
            self.conflicts.append(MConflict(number, c.predicate, self.told, d.conflict_with, c,
                                            seq=self.opened))
            return Outcome("conflict", tx, number, d.conflict_with)
        assert d.span is not None
        a, b = d.span
        for old in [r for r in self.meeting_rows(c) if r.overlaps(a, b)]:
            self._retire(old, tx, RETIRE_REASON[d.kind])
            if old.valid_from < a:
                self._copy(old, old.valid_from, a, tx, old.stated, old.kind, min(old.latest, a - 1))
            if b < old.valid_to:
                self._copy(old, b, old.valid_to, tx, True, "stated", int(b))
        self.rows.append(MRow(
            id=len(self.rows), claim=number, predicate=c.predicate, object=c.object,
            value=c.value, polarity=c.polarity, valid_from=int(a), valid_to=b, recorded_at=tx,
            stated=d.stated, kind=d.start_kind, latest=d.latest, known_from=self.told,
        ))
        return Outcome(d.kind, tx, number)

    def _copy(self, old: MRow, a: float, b: float, tx: int, stated: bool, kind: str,
              latest: int) -> None:
        assert a < b
        self.rows.append(MRow(
            id=len(self.rows), claim=old.claim, predicate=old.predicate, object=old.object,
            value=old.value, polarity=old.polarity, valid_from=int(a), valid_to=b,
            recorded_at=tx, copy_of=old.id, stated=stated, kind=kind, latest=latest,
            known_from=self.told,
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
                        self._retire(r, tx, "retracted")
            out = Outcome("rejected", tx, conflict.claim)
        else:
            if d.kind == "merge":
                out = self._merge(conflict.claim, claim, d, tx)
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
            self._retire(r, tx, "retracted")
        copies = {}
        for i in res.retired:
            copies[i] = len(self.rows)
            old = self.rows[i]
            self._copy(old, old.valid_from, old.valid_to, tx, old.stated, old.kind, old.latest)
        conflict = res.conflict
        conflict.row_ids = tuple(copies.get(i, i) for i in conflict.row_ids)
        self.mentions.pop(conflict.claim, None)  # in conflict again: no longer a mention
        self.resolutions.remove(res)
        self.conflicts.append(conflict)
        self.conflicts.sort(key=lambda c: c.seq)
        return Outcome("reopened", tx, conflict.claim)
