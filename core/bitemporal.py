"""The bitemporal rules of docs/DESIGN.md §2, as pure functions.

A *slot* is what holds one value at a time: (subject, predicate, scope) for a
single-valued predicate, (subject, predicate, scope, object) for a
multi-valued one (there the value that changes is the polarity). Given the
current-belief rows of one slot and an incoming value, ``plan_change`` says
which rows to retire and which rows to insert. The store carries the plan out;
nothing here touches a database, which keeps the rules testable on their own.

Intervals are half-open ``[start, end)`` of integer times; ``None`` as an end
means open.
"""

from __future__ import annotations

import builtins
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, NamedTuple, Protocol, TypeVar

EVOLUTION = "evolution"
CORRECTION = "correction"
CHANGES = (EVOLUTION, CORRECTION)
RETRACTION = "retraction"
"""A claim that takes a value back (an agent's ``forget``, approved by a
person): the rows of that value in its slot are retired as ``retracted`` and
nothing is inserted (``core.gates.plan_for``; not a change ``plan_change``
places on the timeline)."""
ENDING = "ending"
"""A claim that a value stopped holding at its ``valid_from`` ("I quit", 搬走了,
"no longer cycling"): the row of that value is closed then, kept as history,
and nothing takes its place (``plan_ending``). In a single-valued slot its
object may be empty: whatever value holds then ends."""
CLAIM_CHANGES = (*CHANGES, RETRACTION, ENDING)
"""What a claim's ``change`` may say: a change of value, a retraction, or an ending."""

# How a row's start was arrived at (``Piece.kind``, ``fact.start_kind``):
STATED = "stated"  # a time given for it (an event time in the text, an import line's valid_from)
HEARD = "heard"  # only the time it was said: it held then, since some unknown time
BOUNDED = "bounded"  # stated, and narrowed by what was said of the value before it
CLAMPED = "clamped"  # stated wholly before what was said of the value before it: moved after that


class SlotRow(Protocol):
    """What the planner needs of a current-belief row (read-only attributes,
    so a named tuple such as ``core.records.Fact`` is one)."""

    @property
    def id(self) -> int: ...
    @property
    def object(self) -> str: ...
    @property
    def value_json(self) -> str | None: ...
    @property
    def polarity(self) -> str: ...
    @property
    def valid_from(self) -> int: ...
    @property
    def valid_to(self) -> int | None: ...
    @property
    def single_valued(self) -> bool: ...
    @property
    def start_stated(self) -> bool | None: ...
    @property
    def start_kind(self) -> str | None: ...
    @property
    def start_latest(self) -> int | None: ...
    @property
    def claim_id(self) -> int: ...


_CANONICAL = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def canonical_json(value: Any) -> str | None:
    """Canonical JSON text for a normalised value (None stays None)."""
    if value is None:
        return None
    return _CANONICAL.encode(value)


@dataclass(frozen=True, eq=False, slots=True)
class ValueId:
    """What makes two statements in one slot "the same value".

    Polarity must match. When both statements carry a normalised value, the
    values decide (五千元 and 5000 元 are the same budget); otherwise the objects
    decide, compared case- and space-insensitively. (In a multi-valued slot the
    objects are equal by construction.) Not hashable: the relation is not
    transitive across the two ways of comparing.
    """

    object: str
    value_json: str | None
    polarity: str

    def same_thing(self, other: ValueId) -> bool:
        """Equal ignoring polarity: the same object or value."""
        if self.value_json is not None and other.value_json is not None:
            return self.value_json == other.value_json
        return self.object == other.object

    def __eq__(self, other: builtins.object) -> bool:
        if not isinstance(other, ValueId):
            return NotImplemented
        return self.polarity == other.polarity and self.same_thing(other)

    __hash__ = None  # type: ignore[assignment]


def normalise_object(text: str) -> str:
    return " ".join(text.split()).casefold()


def value_key(obj: str, value_json: str | None, polarity: str) -> ValueId:
    """The ValueId of a statement."""
    return ValueId(normalise_object(obj), value_json, polarity)


def row_key(row: SlotRow) -> ValueId:
    return value_key(row.object, row.value_json, row.polarity)


def _end_lt(a: int | None, b: int | None) -> bool:
    """a < b where None is +infinity."""
    if a is None:
        return False
    return b is None or a < b


def overlaps(start: int, end: int | None, row: SlotRow) -> bool:
    return _end_lt(row.valid_from, end) and _end_lt(start, row.valid_to)


def contains(row: SlotRow, t: int) -> bool:
    return row.valid_from <= t and _end_lt(t, row.valid_to)


class Piece(NamedTuple):
    """A row to insert: a copy of ``source`` (a retired row) or the new value
    (``source`` None) over [start, end). ``stated`` says whether its start was
    stated or only heard (None: not recorded, a row from before it was);
    ``kind`` how it was arrived at (STATED, HEARD, BOUNDED, CLAMPED; None: not recorded)
    and ``latest`` the latest instant the start can be (None: ``start``)."""

    start: int
    end: int | None
    source: SlotRow | None = None
    stated: bool | None = True
    kind: str | None = STATED
    latest: int | None = None


def whole_copy(row: SlotRow) -> Piece:
    """A copy of ``row`` over its whole valid interval, its start as the row has it."""
    return Piece(row.valid_from, row.valid_to, row, row.start_stated, row.start_kind,
                 row.start_latest)


def copy_until(row: SlotRow, end: int) -> Piece:
    """A copy of ``row`` over its part before ``end``: its start kept, its
    latest start no later than the copy's end."""
    latest = row.start_latest
    if latest is not None and latest >= end:
        latest = end - 1
    return Piece(row.valid_from, end, row, row.start_stated, row.start_kind, latest)


class Plan(NamedTuple):
    """What to do with one incoming value in one slot.

    kind is one of:
      ``insert``     nothing else holds over the value's interval: insert it
                     (retiring rows of the same value it covers more of);
      ``merge``      the same value already holds: record the source on ``merge_into``;
      ``conflict``   a different value holds and no change/correction was signalled;
      ``evolution``  the world changed at ``start``: the row holding then is closed;
      ``backfill``   an older change arrived late: inserted closed at the next change;
      ``correction`` the row was never true: retired and replaced over its interval;
      ``retract``    (a retraction claim, or a reviewer's ``neither``) the rows are
                     retired as retracted and nothing takes their place;
      ``ending``     (an ending claim) the rows are closed where the value
                     stopped holding and nothing takes their place.
    """

    kind: str
    retire: tuple[SlotRow, ...] = ()
    insert: tuple[Piece, ...] = ()
    merge_into: SlotRow | None = None
    conflict_with: tuple[SlotRow, ...] = ()


_CHANGE_SIGNALS = (None, *CHANGES)
_valid_from = attrgetter("valid_from")


def stated(row: SlotRow) -> bool:
    """Whether a row's start was stated. Rows from before the store recorded
    it count as stated: that is what every start was taken to be then."""
    return row.start_stated is not False


def covers(row: SlotRow, start: int, end: int | None) -> bool:
    """The row's valid interval contains all of [start, end)."""
    return row.valid_from <= start and not _end_lt(row.valid_to, end)


def _overwrite(kind: str, rows: Sequence[SlotRow], new: Piece) -> Plan:
    """The new value over [new.start, new.end): every row overlapping it is
    retired, and the parts of those rows outside it come back as copies (a
    copy keeps its row's start; one resuming at the end starts at a stated time)."""
    start, end = new.start, new.end
    retire = tuple(r for r in rows if overlaps(start, end, r))
    pieces: list[Piece] = [copy_until(r, start) for r in retire if r.valid_from < start]
    pieces.append(new)
    for r in retire:
        if end is not None and _end_lt(end, r.valid_to):
            pieces.append(Piece(end, r.valid_to, r, True, STATED, end))
    return Plan(kind, retire=retire, insert=tuple(pieces))


def _earlier(a: int | None, b: int | None) -> int | None:
    """The earlier of two ends (None: open)."""
    return a if (a is not None and not _end_lt(b, a)) else b


def _backfilled(rows: Sequence[SlotRow], new: Piece) -> Plan:
    """The value over [new.start, new.end), closed at the next change after
    its start (rows sorted by start; none holds at the start)."""
    next_change = min((r.valid_from for r in rows if r.valid_from > new.start), default=None)
    kind = "backfill" if next_change is not None else "insert"
    return Plan(kind, insert=(new._replace(end=_earlier(new.end, next_change)),))


_Row = TypeVar("_Row", bound=SlotRow)


def plan_ending(rows: Sequence[_Row], ends: Callable[[_Row], bool], end: int,
                told: int | None = None, *, any_value: bool = False) -> Plan:
    """How a value that stopped holding at ``end`` (told at ``told``; default
    ``end``) leaves a slot whose current-belief rows are ``rows``. ``ends``
    says which rows hold the value that ended; ``any_value``: the ending
    named no value (only the row holding at ``end`` can be meant).

    The row of the value holding before ``end`` and at it is closed there
    (its part before ``end`` is kept). A row of the value that began at or
    after ``end`` but was said to hold no later than the ending was told was
    said to have ended before it was heard of: it is retired whole, the later
    word being that it ended. An ending naming no value never touches a row
    beginning at or after it (a new value said with it: "moved out, now in X").
    Nothing is inserted. No such row: an empty plan (nothing held to end).
    Plan kind ``ending``."""
    told_at = end if told is None else told
    retire: list[SlotRow] = []
    pieces: list[Piece] = []
    for r in rows:
        if not ends(r) or not _end_lt(end, r.valid_to):
            continue
        if r.valid_from < end:
            retire.append(r)
            pieces.append(copy_until(r, end))
        elif not any_value and r.valid_from <= told_at:
            retire.append(r)
    return Plan("ending", retire=tuple(retire), insert=tuple(pieces))


class Said(NamedTuple):
    """An instant at which the user said a value held: ``heard`` when they said
    it held then, in the present tense (a start only heard: when it was said),
    else the latest a stated start can be (by then it had begun)."""

    at: int
    heard: bool


def said_by(valid_from: int, start_latest: int | None, start_stated: bool | None) -> Said:
    """What a statement (a row, a claim merged into a lineage) says of its
    value: it held at the latest its stated start can be, or, its start only
    heard, when it was said."""
    return Said(valid_from if start_latest is None else start_latest, start_stated is False)


def _said_of(row: SlotRow, said: Mapping[int, Sequence[Said]] | None) -> Sequence[Said]:
    """What the user said of ``row``'s value: the row's own start (``said_by``)
    and what the mentions merged into its lineage said (``said``: the
    lineage's claim id -> those instants); not all of it need lie within the row."""
    own = said_by(row.valid_from, row.start_latest, row.start_stated)
    mentions = said.get(row.claim_id) if said else None
    return (own,) if not mentions else (own, *mentions)


def evidence(row: SlotRow, said: Mapping[int, Sequence[Said]] | None) -> list[Said]:
    """``_said_of`` the row, within the row: the instants at which the user
    said its value held."""
    return [s for s in _said_of(row, said) if contains(row, s.at)]


class _Start(NamedTuple):
    """A stated start as evidence leaves it: the earliest instant, its kind,
    the latest instant (inclusive), the row whose evidence moved it, and
    whether that evidence was the stated start of that row itself."""

    at: int
    kind: str
    latest: int
    after: SlotRow | None
    at_its_start: bool = False


def bounded_start(rows: Sequence[SlotRow], key: ValueId, start: int, latest: int,
                  stop: int | None, told: int,
                  said: Mapping[int, Sequence[Said]] | None) -> _Start:
    """Where a change to ``key`` said to have happened within [start, latest]
    starts, given what the user said before it was told (``told``) of the
    values it replaces (docs/DESIGN.md §2.2). A value said to hold at t still
    held at t, so the change came after the last such instant in
    [start, stop) (``stop``: where the change would end, the next change
    after it). Evidence within [start, latest] narrows the start (bounded);
    evidence after ``latest`` means the whole stated interval lies before
    what was said: the change starts right after it all the same, by
    ``told`` at the latest (clamped). Evidence of ``key`` itself bounds the
    start from above (it held by then)."""
    last: Said | None = None
    after: SlotRow | None = None
    for r in rows:
        if not overlaps(start, stop, r):
            continue
        found = [s for s in _said_of(r, said) if start <= s.at < told and _end_lt(s.at, stop)
                 and contains(r, s.at)]
        if not found or row_key(r) == key:  # (the key compared only when it matters)
            continue
        for s in found:
            if last is None or (s.at, s.heard) > (last.at, last.heard):
                last, after = s, r  # the latest; at one instant, what was heard
    kind, at = STATED, start
    own = False
    if last is not None and after is not None:
        at = last.at + 1
        if last.at < latest:
            kind = BOUNDED
        else:
            kind, latest = CLAMPED, max(told, at)
            own = not last.heard and last.at == after.valid_from
    if latest > at:
        for r in rows:
            if not overlaps(at, latest + 1, r):
                continue
            found_at = [s.at for s in _said_of(r, said) if at <= s.at < latest
                        and contains(r, s.at)]
            if found_at and row_key(r) == key:
                latest = min(found_at)
    return _Start(at, kind, latest, after, own)


def plan_change(
    rows: Sequence[SlotRow],
    key: ValueId,
    start: int,
    end: int | None,
    change: str | None,
    *,
    start_stated: bool = True,
    told: int | None = None,
    latest: int | None = None,
    said: Mapping[int, Sequence[Said]] | None = None,
) -> Plan:
    """Decide how an incoming value ``key`` valid over [start, end) enters a slot
    whose current-belief rows are ``rows`` (non-overlapping, any order).

    ``change`` is ``"evolution"``, ``"correction"`` or None (no signal). A
    correction only heard ("no, it's X") replaces the row holding then over
    its whole interval (or, when the row told last holds from a time still to
    come, that row: the value just told for later is what it takes back); one
    with a stated start replaces what held from that start (up to ``end`` or
    the end of that row).

    ``start_stated`` says whether ``start`` was stated (an event time in the
    text or the import line) or only heard (the time it was said, ``told``;
    default: ``start``). A stated start has a precision: it lies in
    [start, latest] (``latest`` None: exactly ``start``; "上个月" said in July:
    the whole of June). A state heard in the present tense held from some
    unknown time up to when it was said, so its start bounds nothing.

    An evolution with a stated start happened after every instant at which
    the user said another value held (``bounded_start``: each row's latest
    start, and what mentions merged into its lineage said, ``said``: lineage
    claim id -> instants): its start moves to right after the last of them
    (kind ``bounded``, or ``clamped`` when that is after the stated
    precision), and the row holding then is closed there, kept as history;
    two values stated to begin at one instant (a clamp onto the other row's
    own stated start) stay a conflict. It runs through the rows after its
    start that the user said held, in the present tense, before it was told
    (a start only heard; a mention): the later word supersedes them. Only a
    stated start no one has spoken of since is a change the new value is
    backfilled up to.

    The same value merges only into a row that covers the incoming interval
    (for an evolution with a stated start: that starts with it too); a repeat
    over another interval is a value of its own (A, then B, then A again).

    Raises ValueError for an empty interval or an unknown change kind.
    """
    if end is not None and end <= start:
        raise ValueError("valid_to must be after valid_from")
    if change not in _CHANGE_SIGNALS:
        raise ValueError(f"unknown change kind {change!r}")
    if len(rows) > 1:
        rows = sorted(rows, key=_valid_from)
    told_at = start if told is None else told
    hi = start if latest is None or latest < start else latest
    if latest is not None and start <= told_at < hi:
        hi = told_at  # a change told as past happened by the time it was told
    new = Piece(start, end, None, start_stated, STATED if start_stated else HEARD, hi)

    def holding_at(t: int) -> SlotRow | None:
        for r in rows:
            if contains(r, t):
                return r
        return None

    holding = holding_at(start)

    if change is None:
        hit = [r for r in rows if overlaps(start, end, r)]
        if not hit:
            return Plan("insert", insert=(new,))
        differing = tuple(r for r in hit if row_key(r) != key)
        if differing:
            return Plan("conflict", conflict_with=differing)
        for r in hit:
            if covers(r, start, end):
                return Plan("merge", merge_into=r)
        # the same value over part of the interval only: the claim says more
        return _overwrite("insert", hit, new)

    if change == CORRECTION:
        if start_stated:
            # a dated correction ("from 2000 it was X"): says what held from its
            # own start; before any value is known for then (a dated history
            # arriving out of order), up to the next change
            if holding is None:
                return _backfilled(rows, new)
            if row_key(holding) == key and holding.valid_from == start:
                return Plan("merge", merge_into=holding)
            # (the same value from another start is a value of its own: A, B, A)
            # (in a slot of its own only ``holding`` overlaps that span; a taste
            # meeting tastes of the other polarity replaces each it overlaps)
            return _overwrite("correction", rows,
                              new._replace(end=_earlier(end, holding.valid_to)))
        # "no, it's X": the row holding when it was said was never true; but when the value told last holds
        # from a day still to come ("from the 13th as X" … "no, as Y"), that value is the one taken back
        told_last = max(rows, key=lambda r: r.claim_id) if rows else None
        if told_last is not None and told_last.valid_from > start:
            target: SlotRow | None = told_last
        else:
            target = holding if holding is not None else (rows[-1] if rows else None)
        if target is None:
            return Plan("insert", insert=(new,))
        if row_key(target) == key:
            return Plan("merge", merge_into=target)
        # the new value over the whole of the row it corrects, with that row's start
        return _overwrite("correction", rows, whole_copy(target)._replace(source=None))

    # evolution: the new value holds from `start` until `end` or the next known change
    def overtaken(r: SlotRow) -> bool:
        """Said to hold, in the present tense, before this stated change was
        told (its start only heard, or a mention): this later word supersedes it."""
        if not start_stated or r.valid_from > told_at:
            return False
        return not stated(r) or any(s.heard and s.at < told_at for s in evidence(r, said))

    def next_change(after: int) -> tuple[int | None, bool]:
        """The first start after ``after`` of a row this change does not run
        through, and whether it runs through any (overtaken) row first."""
        passed = False
        for r in rows:
            if r.valid_from <= after:
                continue
            if overtaken(r) and _end_lt(r.valid_from, end):
                passed = True
                continue
            return r.valid_from, passed
        return None, passed

    start_kind = new.kind
    if start_stated:
        stop, _ = next_change(start)
        bound = bounded_start(rows, key, start, hi, _earlier(end, stop), told_at, said)
        if bound.after is not None:
            if (end is not None and bound.at >= end) or bound.at_its_start:
                # what was said of the value before covers the whole claim, or the
                # two values were stated to begin at one instant: a change explains
                # neither (only a correction says which was wrong)
                return Plan("conflict", conflict_with=(bound.after,))
            start = bound.at
            holding = holding_at(start)
        start_kind, hi = bound.kind, bound.latest
    if (holding is not None and row_key(holding) == key
            and (not start_stated or holding.valid_from == start)):
        return Plan("merge", merge_into=holding)
    if (holding is not None and holding.valid_from == start and start_stated
            and not overtaken(holding)):
        # two values said to start at the same instant: a change explains
        # neither (only a correction says which was wrong)
        return Plan("conflict", conflict_with=(holding,))
    following, passed = next_change(start)
    new = Piece(start, _earlier(end, following), None, start_stated, start_kind, hi)
    if following is not None:
        kind = "backfill"
    elif holding is not None or passed:
        kind = "evolution"
    else:
        kind = "insert"
    return _overwrite(kind, rows, new)
