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
from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, NamedTuple, Protocol

EVOLUTION = "evolution"
CORRECTION = "correction"
CHANGES = (EVOLUTION, CORRECTION)


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
    stated or only heard (None: not recorded, a row from before it was)."""

    start: int
    end: int | None
    source: SlotRow | None = None
    stated: bool | None = True


class Plan(NamedTuple):
    """What to do with one incoming value in one slot.

    kind is one of:
      ``insert``     nothing else holds over the value's interval: insert it
                     (retiring rows of the same value it covers more of);
      ``merge``      the same value already holds: record the source on ``merge_into``;
      ``conflict``   a different value holds and no change/correction was signalled;
      ``evolution``  the world changed at ``start``: the row holding then is closed;
      ``backfill``   an older change arrived late: inserted closed at the next change;
      ``correction`` the row was never true: retired and replaced over its interval.
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


def _overwrite(kind: str, rows: Sequence[SlotRow], start: int, end: int | None,
               is_stated: bool) -> Plan:
    """The new value over [start, end): every row overlapping it is retired,
    and the parts of those rows outside [start, end) come back as copies (a
    copy keeps its row's start; one resuming at ``end`` starts at a stated time)."""
    retire = tuple(r for r in rows if overlaps(start, end, r))
    pieces: list[Piece] = []
    for r in retire:
        if r.valid_from < start:
            pieces.append(Piece(r.valid_from, start, r, r.start_stated))
    pieces.append(Piece(start, end, None, is_stated))
    for r in retire:
        if end is not None and _end_lt(end, r.valid_to):
            pieces.append(Piece(end, r.valid_to, r, True))
    return Plan(kind, retire=retire, insert=tuple(pieces))


def _earlier(a: int | None, b: int | None) -> int | None:
    """The earlier of two ends (None: open)."""
    return a if (a is not None and not _end_lt(b, a)) else b


def _backfilled(rows: Sequence[SlotRow], start: int, end: int | None,
                is_stated: bool) -> Plan:
    """The value over [start, end), closed at the next change after ``start``
    (rows sorted by start; none holds at ``start``)."""
    next_change = min((r.valid_from for r in rows if r.valid_from > start), default=None)
    kind = "backfill" if next_change is not None else "insert"
    return Plan(kind, insert=(Piece(start, _earlier(end, next_change), None, is_stated),))


def plan_change(
    rows: Sequence[SlotRow],
    key: ValueId,
    start: int,
    end: int | None,
    change: str | None,
    *,
    start_stated: bool = True,
    told: int | None = None,
) -> Plan:
    """Decide how an incoming value ``key`` valid over [start, end) enters a slot
    whose current-belief rows are ``rows`` (non-overlapping, any order).

    ``change`` is ``"evolution"``, ``"correction"`` or None (no signal). A
    correction only heard ("no, it's X") replaces the row holding then over
    its whole interval; one with a stated start replaces what held from that
    start (up to ``end`` or the end of that row).
    ``start_stated`` says whether ``start`` was stated (an event time in the
    text or the import line) or only heard (the time it was said, ``told``;
    default: ``start``). A state heard in the present tense held from some
    unknown time up to when it was said, so its start bounds nothing: an
    evolution with a stated start supersedes the rows after that start whose
    own start was only heard, at or before this value was told. Only a stated
    start is a change the new value is backfilled up to.

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
    holding = None
    for r in rows:
        if contains(r, start):
            holding = r
            break

    if change is None:
        hit = [r for r in rows if overlaps(start, end, r)]
        if not hit:
            return Plan("insert", insert=(Piece(start, end, None, start_stated),))
        differing = tuple(r for r in hit if row_key(r) != key)
        if differing:
            return Plan("conflict", conflict_with=differing)
        for r in hit:
            if covers(r, start, end):
                return Plan("merge", merge_into=r)
        # the same value over part of the interval only: the claim says more
        return _overwrite("insert", hit, start, end, start_stated)

    if change == CORRECTION:
        if start_stated:
            # a dated correction ("from 2000 it was X"): says what held from its
            # own start; before any value is known for then (a dated history
            # arriving out of order), up to the next change
            if holding is None:
                return _backfilled(rows, start, end, start_stated)
            if row_key(holding) == key and holding.valid_from == start:
                return Plan("merge", merge_into=holding)
            # (the same value from another start is a value of its own: A, B, A)
            return _overwrite("correction", (holding,), start,
                              _earlier(end, holding.valid_to), start_stated)
        # "no, it's X": the row holding when it was said was never true
        target = holding if holding is not None else (rows[-1] if rows else None)
        if target is None:
            return Plan("insert", insert=(Piece(start, end, None, start_stated),))
        if row_key(target) == key:
            return Plan("merge", merge_into=target)
        return Plan(
            "correction",
            retire=(target,),
            insert=(Piece(target.valid_from, target.valid_to, None, target.start_stated),),
        )

    # evolution: the new value holds from `start` until `end` or the next known change
    if (holding is not None and row_key(holding) == key
            and (not start_stated or holding.valid_from == start)):
        return Plan("merge", merge_into=holding)
    told_at = start if told is None else told

    def overtaken(r: SlotRow) -> bool:
        """Heard before this stated change was told: this later word supersedes it."""
        return start_stated and not stated(r) and r.valid_from <= told_at

    if (holding is not None and holding.valid_from == start and start_stated
            and not overtaken(holding)):
        # two values said to start at the same instant: a change explains
        # neither (only a correction says which was wrong)
        return Plan("conflict", conflict_with=(holding,))
    next_change: int | None = None
    passed = False  # rows after `start` run through
    for r in rows:
        if r.valid_from <= start:
            continue
        if overtaken(r) and _end_lt(r.valid_from, end):
            passed = True
            continue
        next_change = r.valid_from
        break
    new_end = _earlier(end, next_change)
    if next_change is not None:
        kind = "backfill"
    elif holding is not None or passed:
        kind = "evolution"
    else:
        kind = "insert"
    return _overwrite(kind, rows, start, new_end, start_stated)
