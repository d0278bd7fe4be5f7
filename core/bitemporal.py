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
    (``source`` None) over [start, end)."""

    start: int
    end: int | None
    source: SlotRow | None = None


class Plan(NamedTuple):
    """What to do with one incoming value in one slot.

    kind is one of:
      ``insert``     nothing in the slot overlaps: insert the new value;
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


def plan_change(
    rows: Sequence[SlotRow],
    key: ValueId,
    start: int,
    end: int | None,
    change: str | None,
) -> Plan:
    """Decide how an incoming value ``key`` valid over [start, end) enters a slot
    whose current-belief rows are ``rows`` (non-overlapping, any order).

    ``change`` is ``"evolution"``, ``"correction"`` or None (no signal).
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
            return Plan("insert", insert=(Piece(start, end),))
        differing = tuple(r for r in hit if row_key(r) != key)
        if differing:
            return Plan("conflict", conflict_with=differing)
        same = holding if holding is not None and row_key(holding) == key else hit[0]
        return Plan("merge", merge_into=same)

    if change == CORRECTION:
        target = holding if holding is not None else (rows[-1] if rows else None)
        if target is None:
            return Plan("insert", insert=(Piece(start, end),))
        if row_key(target) == key:
            return Plan("merge", merge_into=target)
        return Plan(
            "correction",
            retire=(target,),
            insert=(Piece(target.valid_from, target.valid_to),),
        )

    # evolution: the new value holds from `start` until `end` or the next known change
    if holding is not None and row_key(holding) == key:
        return Plan("merge", merge_into=holding)
    next_change = min((r.valid_from for r in rows if r.valid_from > start), default=None)
    new_end = end if (end is not None and not _end_lt(next_change, end)) else next_change
    if holding is None:
        kind = "backfill" if next_change is not None else "insert"
        return Plan(kind, insert=(Piece(start, new_end),))
    pieces: list[Piece] = []
    if holding.valid_from < start:
        pieces.append(Piece(holding.valid_from, start, holding))
    pieces.append(Piece(start, new_end))
    if new_end is not None and _end_lt(new_end, holding.valid_to):
        pieces.append(Piece(new_end, holding.valid_to, holding))
    kind = "backfill" if next_change is not None else "evolution"
    return Plan(kind, retire=(holding,), insert=tuple(pieces))
