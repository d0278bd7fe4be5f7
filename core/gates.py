"""The write-time gates of docs/DESIGN.md §3, as pure rules.

Every claim passes the gates in one order::

    provenance -> idempotency -> dedup -> review -> conflict

* **provenance**: the claim cites a stored turn (the writer registers it and
  refuses a turn that disagrees with the stored one; the gate records which);
* **idempotency**: the same claim from the same turn again changes nothing;
* **dedup**: the same value already holds over the claim's time: the claim is
  a mention of that fact (merged), not a new fact;
* **review**: low confidence, or the agent's own inference, waits for a person;
* **conflict**: the bitemporal plan (``core.bitemporal.plan_change``) either
  takes effect (insert, evolution, backfill, correction) or, when another
  value holds and nothing said it changed, opens a conflict.

The functions here take what the writer knows (the claim's statement, the
current-belief rows of its subject and predicate, whether the turn already
gave this claim) and return a :class:`Decision`: the outcome, the plan to
carry out, and the gate steps to record. Nothing here touches a database;
``core.writer`` applies decisions, and a reviewer's approval, a conflict
resolution and an undo get their decisions from here too.

Gate steps are stored as a JSON array of ``{"gate", "result", "note"}``
objects (``encode_steps``/``decode_steps``), so no text that reaches a note (a
reviewer's name, a reason) can add or change a step.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import Any, NamedTuple, Protocol, cast

from .bitemporal import (
    CORRECTION,
    ENDING,
    EVOLUTION,
    RETRACTION,
    Plan,
    Said,
    SlotRow,
    covers,
    normalise_object,
    overlaps,
    plan_change,
    plan_ending,
    row_key,
    value_key,
)
from .errors import InvalidInput
from .lang.values import Relation, relate

_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))

REFINEMENT = "refinement"
"""The plan kind of a place made more exact (上海, then 上海浦东): the finer
value replaces the coarser one over its interval, which is closed as history
(superseded, not "never true")."""


class BeliefRow(SlotRow, Protocol):
    """A current-belief row as the gates see it: a slot row with its scope and
    predicate."""

    @property
    def scope(self) -> str: ...
    @property
    def predicate(self) -> str: ...


_FLIPPED = {"positive": "negative", "negative": "positive", "neutral": "neutral"}


@dataclass(frozen=True, slots=True)
class _Opposed:
    """A row of the opposite predicate as the claim's predicate sees it: the
    same row with its polarity flipped ("dislikes X" is "likes X", negative).
    Only the planner sees it; decisions name the row itself (``row``)."""

    row: BeliefRow
    polarity: str

    @property
    def id(self) -> int:
        return self.row.id

    @property
    def object(self) -> str:
        return self.row.object

    @property
    def value_json(self) -> str | None:
        return self.row.value_json

    @property
    def valid_from(self) -> int:
        return self.row.valid_from

    @property
    def valid_to(self) -> int | None:
        return self.row.valid_to

    @property
    def single_valued(self) -> bool:
        return self.row.single_valued

    @property
    def start_stated(self) -> bool | None:
        return self.row.start_stated

    @property
    def start_kind(self) -> str | None:
        return self.row.start_kind

    @property
    def start_latest(self) -> int | None:
        return self.row.start_latest

    @property
    def claim_id(self) -> int:
        return self.row.claim_id

    @property
    def scope(self) -> str:
        return self.row.scope

    @property
    def predicate(self) -> str:
        return self.row.predicate


class Gate(StrEnum):
    """The gates, in the order a claim passes them."""

    PROVENANCE = "provenance"
    IDEMPOTENCY = "idempotency"
    DEDUP = "dedup"
    REVIEW = "review"
    CONFLICT = "conflict"


class Outcome(StrEnum):
    """What becomes of a claim."""

    UNCHANGED = "unchanged"  # already stored from this turn: nothing is written
    MERGED = "merged"  # the same value holds: a mention of that fact
    PENDING = "pending"  # waits in the review queue
    CONFLICT = "conflict"  # another value holds and nothing said it changed
    APPLIED = "applied"  # the plan takes effect (insert, evolution, backfill, correction)
    REJECTED = "rejected"  # a resolution kept the existing value (or neither)


class Resolution(StrEnum):
    """How a reviewer resolves a conflict (``store.conflicts.resolve``)."""

    EXISTING = "existing"  # the incoming claim is rejected; current belief stays
    INCOMING = "incoming"  # the existing value was wrong: corrected to the incoming one
    CHANGED = "changed"  # the value changed: the incoming one holds from its own valid time
    BOTH = "both"  # both hold, the incoming one in another scope
    NEITHER = "neither"  # the existing facts are retracted and the claim rejected


class ConflictKind(StrEnum):
    VALUE = "value"  # another value holds
    POLARITY = "polarity"  # the same thing holds with the other polarity


class GateStep(NamedTuple):
    """One gate's result for one claim; ``note`` says why or which row.
    (A named tuple: one is made per claim on the bulk import path.)"""

    gate: Gate
    result: str
    note: str | None = None

    def to_dict(self) -> dict[str, str | None]:
        return {"gate": str(self.gate), "result": self.result, "note": self.note}

    @property
    def json(self) -> str:
        """Its stored form: ``{"gate": …, "result": …, "note": …}`` (kept for a
        constant step, found by identity: this runs per claim on imports)."""
        kept = _STEP_JSON.get(id(self))
        if kept is not None and kept[0] is self:
            return kept[1]
        return _ENCODER.encode(self.to_dict())


_STEP_JSON: dict[int, tuple[GateStep, str]] = {}


def _constant(step: GateStep) -> GateStep:
    """A step made once (module level): its JSON is kept, found by identity."""
    _STEP_JSON[id(step)] = (step, _ENCODER.encode(step.to_dict()))
    return step


class Statement(NamedTuple):
    """What the gates need of a claim: its value, scope, valid time, change
    signal and trust. ``value_json`` is the canonical JSON of the normalised
    value (or None). ``start_stated`` says whether ``valid_from`` was stated
    or only heard, ``told`` when the claim was said (its turn's time; None:
    ``valid_from``), ``start_latest`` the latest instant a stated start can
    be (None: exactly ``valid_from``), see ``core.bitemporal.plan_change``."""

    object: str
    value_json: str | None
    polarity: str
    scope: str
    single_valued: bool
    valid_from: int
    valid_to: int | None
    change: str | None
    confidence: float
    source_kind: str
    start_stated: bool = True
    told: int | None = None
    opposite: str | None = None  # the catalog's opposite of the claim's predicate
    start_latest: int | None = None
    values: str | None = None  # how the predicate's values relate ("taste", "place"), if at all

    @classmethod
    def of(cls, claim: Mapping[str, Any], told: int | None = None,
           opposite: str | None = None, values: str | None = None) -> Statement:
        """The statement of a claim row (a ``claim`` table row as a mapping,
        whose ``value`` column holds the canonical JSON) said at ``told``. A
        claim from before starts were recorded counts as stated."""
        return cls(claim["object"], claim["value"], claim["polarity"], claim["scope"],
                   bool(claim["single_valued"]), claim["valid_from"], claim["valid_to"],
                   claim["change"], float(claim["confidence"]), claim["source_kind"],
                   claim.get("start_stated") is not False, told, opposite,
                   claim.get("start_latest"), values)

    @property
    def needs_evidence(self) -> bool:
        """Whether its plan reads what was said of the slot's values before
        (``plan_for``'s ``said``): an evolution with a stated start."""
        return self.change == EVOLUTION and self.start_stated


@dataclass(frozen=True, slots=True)
class Decision:
    """What the gates decided for one claim.

    ``plan`` is the bitemporal plan to carry out (its kind is ``merge`` for a
    merged claim, ``conflict`` for a conflict); ``steps`` are the gate steps to
    record, in order. For a conflict the writer allocates the conflict's id
    and records ``steps_with_conflict(id)``.
    """

    outcome: Outcome
    steps: tuple[GateStep, ...]
    plan: Plan | None = None
    reasons: tuple[str, ...] = ()
    conflict_kind: ConflictKind | None = None

    def steps_with_conflict(self, conflict_id: int) -> tuple[GateStep, ...]:
        """The steps, ending with the conflict gate's opening of ``conflict_id``."""
        assert self.plan is not None and self.conflict_kind is not None
        ids = ", ".join(str(r.id) for r in self.plan.conflict_with)
        return (*self.steps, GateStep(
            Gate.CONFLICT, "opened", f"conflict {conflict_id} ({self.conflict_kind} differs from "
                                     f"fact {ids}, no change or correction signal)"))


# ------------------------------------------------------------- the steps
_DEDUP_NEW = _constant(GateStep(Gate.DEDUP, "new"))
_REVIEW_QUEUED = _constant(GateStep(Gate.REVIEW, "queued"))
_REPEATED = _constant(GateStep(Gate.IDEMPOTENCY, "repeated",
                               "the same claim from the same turn is stored"))
_CONFLICT_NONE = {kind: _constant(GateStep(Gate.CONFLICT, "none", kind))
                  for kind in ("insert", "evolution", "backfill", "correction", REFINEMENT,
                                "retract", "ending")}


def provenance_step(turn_id: int) -> GateStep:
    """The provenance gate's step for a claim citing stored turn ``turn_id``."""
    return GateStep(Gate.PROVENANCE, "ok", f"turn {int(turn_id)}")


@lru_cache(maxsize=64)
def review_pass_step(threshold: float) -> GateStep:
    return _constant(GateStep(Gate.REVIEW, "pass", f"confidence >= {threshold}"))


def review_reasons(confidence: float, source_kind: str, threshold: float) -> tuple[str, ...]:
    """Why a claim must wait for a reviewer (empty: it need not)."""
    reasons: tuple[str, ...] = ()
    if confidence < threshold:
        reasons += (f"confidence {confidence:.2f} is below the review threshold {threshold:.2f}",)
    if source_kind == "agent_inferred":
        reasons += ("agent_inferred: the agent's own inference needs a person's confirmation",)
    return reasons


OCCASION = "occasion"
"""The value kind of a dated item whose day is part of its value (core/catalog.py)."""

_OPPOSITE_POLARITY = frozenset({("positive", "negative"), ("negative", "positive")})


def _opposed_taste(row: BeliefRow, statement: Statement) -> bool:
    """A taste of the other polarity at another granularity: "likes dark
    chocolate" and "dislikes chocolate" (core/lang/values.py)."""
    return ((row.polarity, statement.polarity) in _OPPOSITE_POLARITY
            and relate("taste", row.object, statement.object) in (Relation.WITHIN,
                                                                  Relation.CONTAINS))


def slot_rows(rows: Iterable[BeliefRow], statement: Statement) -> list[BeliefRow]:
    """The rows, among the current-belief rows of the claim's subject and
    predicate (and of its opposite, polarity flipped), that share its slot:
    the same scope and, for a multi-valued predicate, the same object
    (docs/DESIGN.md §2). A taste (catalog ``values = "taste"``) also meets
    the rows of the other polarity whose value is its head or has it as
    head, so opposites at two granularities meet. An occasion (catalog
    ``values = "occasion"``: a plan, a to-do) said for another day without a
    change meets only the rows of its day (or of none), told as a change also
    those of the latest day it held (``_occasion_rows``). Sorted by valid-time
    start, then id."""
    scope = statement.scope
    same: list[BeliefRow] = [r for r in rows if r.scope == scope]
    opposite = statement.opposite
    if opposite is not None and any(r.predicate == opposite for r in same):
        same = [_Opposed(r, _FLIPPED[r.polarity]) if r.predicate == opposite else r
                for r in same]
    if not statement.single_valued:
        obj = normalise_object(statement.object)
        taste = statement.values == "taste"
        same = [r for r in same if normalise_object(r.object) == obj
                or (taste and _opposed_taste(r, statement))]
        if statement.values == OCCASION and statement.value_json is not None:
            same = _occasion_rows(same, statement)
    return sorted(same, key=lambda r: (r.valid_from, r.id))


def _occasion_rows(same: list[BeliefRow], statement: Statement) -> list[BeliefRow]:
    """The rows of a dated item's slot that a statement of it for a day meets: said without a change, the
    rows of its own day (or of none: another day is another occasion of the thing); told as a change (moved),
    also the rows of the latest day it held, the item's own day (an earlier one is a reminder before it, which
    the move leaves alone)."""
    kept = {None, statement.value_json}
    if statement.change is not None:
        days = [_due_of(r.value_json) for r in same if r.value_json is not None]
        if any(days):
            latest = max(d for d in days if d)
            kept |= {r.value_json for r in same if r.value_json is not None and _due_of(r.value_json) == latest}
    return [r for r in same if r.value_json in kept]


def _due_of(value_json: str) -> str:
    """The ISO day a dated item's value holds ("" when none)."""
    value = json.loads(value_json)
    return str(value.get("due") or "") if isinstance(value, dict) else ""


def _own(row: Any) -> Any:
    return row.row if isinstance(row, _Opposed) else row


Evidence = Mapping[int, Sequence[Said]]
"""What mentions merged into each lineage said (lineage claim id -> the
instants they said its value held, ``core.bitemporal.Said``): evidence for
``plan_change``."""


def plan_for(statement: Statement, rows: Iterable[BeliefRow], said: Evidence | None = None) -> Plan:
    """The bitemporal plan for ``statement`` against the current-belief rows of
    its subject and predicate, and of the predicate's opposite when it has
    one: "I love X" then "X is the worst" is the same thing with the other
    polarity, whichever predicates say it. ``said``: what merged mentions
    said (see ``Evidence``; None: none). The plan names the rows themselves.
    A retraction (``change`` "retraction") plans to retire the rows holding
    its very value (kind ``retract``), whatever their valid time; an ending
    (``change`` "ending") closes the row of its value where it stopped
    holding (kind ``ending``, ``_ending_plan``). Raises ValueError for an
    empty valid interval."""
    key = value_key(statement.object, statement.value_json, statement.polarity)
    same = slot_rows(rows, statement)
    if statement.change == RETRACTION:  # its value taken back, whenever it held
        return Plan("retract", retire=tuple(_own(r) for r in same if row_key(r) == key))
    if statement.change == ENDING:
        plan = _ending_plan(statement, same, key)
    else:
        plan = _place_plan(statement, same, key, said) or plan_change(
            same, key, statement.valid_from, statement.valid_to, statement.change,
            start_stated=statement.start_stated, told=statement.told,
            latest=statement.start_latest, said=said)
    if not any(isinstance(r, _Opposed) for r in same):
        return plan
    return plan._replace(
        retire=tuple(map(_own, plan.retire)),
        insert=tuple(p._replace(source=_own(p.source)) for p in plan.insert),
        merge_into=_own(plan.merge_into),
        conflict_with=tuple(map(_own, plan.conflict_with)))


_NAMED_PATHS = ("place", "organisation", "means")
"""Value kinds named coarse or fine (core/lang/values.py): 上海 / 上海浦东, 橙桔 / 橙桔网络, 地铁 / 地铁2号线."""


def _ending_plan(statement: Statement, same: Sequence[BeliefRow], key: Any) -> Plan:
    """The plan of an ending (``core.bitemporal.plan_ending``): the rows of its
    value end, and for a place, an organisation or a way of getting about (catalog ``values``) those
    the same or within it too (left 上海: 上海浦东 ends; left 橙桔: 橙桔网络; no more 骑车: 共享单车,
    the same mode). An ending that names no
    value ends whatever holds then in a single-valued slot, nothing in a
    multi-valued one."""
    if not statement.object.strip():
        rows = same if statement.single_valued else ()
        return plan_ending(rows, lambda r: True, statement.valid_from, statement.told,
                           any_value=True)
    kind = statement.values if statement.values in _NAMED_PATHS else None

    def ends(r: BeliefRow) -> bool:
        if row_key(r) == key:
            return True
        return (kind is not None and r.polarity == statement.polarity
                and relate(kind, statement.object, r.object) in (Relation.SAME, Relation.WITHIN))

    return plan_ending(same, ends, statement.valid_from, statement.told)


def _place_plan(statement: Statement, same: Sequence[BeliefRow], key: Any,
                said: Evidence | None) -> Plan | None:
    """A place (or an organisation) said without a change signal beside the
    one other value that holds over its time (catalog ``values``): the same
    value or a coarser one (上海 while 上海浦东张江 holds; 橙桔 while 橙桔网络
    holds) is a mention of it; a finer one (上海浦东张江 while 上海 holds)
    refines it (plan kind ``refinement``). None: the ordinary plan decides."""
    kind = statement.values
    if kind not in _NAMED_PATHS or statement.change is not None:
        return None
    start, end = statement.valid_from, statement.valid_to
    differing = [r for r in same if overlaps(start, end, r) and row_key(r) != key]
    if len(differing) != 1 or differing[0].polarity != statement.polarity:
        return None
    row = differing[0]
    relation = relate(kind, row.object, statement.object)
    if relation in (Relation.SAME, Relation.CONTAINS):
        return Plan("merge", merge_into=row) if covers(row, start, end) else None
    if relation != Relation.WITHIN:
        return None
    plan = plan_change(same, key, start, end, CORRECTION, start_stated=statement.start_stated,
                       told=statement.told, latest=statement.start_latest, said=said)
    return plan._replace(kind=REFINEMENT) if plan.kind == "correction" else plan


def _conflict_kind(plan: Plan, statement: Statement) -> ConflictKind:
    incoming = value_key(statement.object, statement.value_json, statement.polarity)
    if all(row_key(r).same_thing(incoming) or r.polarity != statement.polarity
           for r in plan.conflict_with):
        return ConflictKind.POLARITY
    return ConflictKind.VALUE


def _take_effect(plan: Plan, statement: Statement, before: tuple[GateStep, ...]) -> Decision:
    """The dedup and conflict gates' part: merge, conflict, or apply the plan."""
    if plan.kind == "merge":
        assert plan.merge_into is not None
        return Decision(Outcome.MERGED, (*before, GateStep(
            Gate.DEDUP, "merged", f"fact {plan.merge_into.id}")), plan)
    if plan.kind == "conflict":
        return Decision(Outcome.CONFLICT, before, plan,
                        conflict_kind=_conflict_kind(plan, statement))
    return Decision(Outcome.APPLIED, (*before, _CONFLICT_NONE[plan.kind]), plan)


# ------------------------------------------------------------ decisions
def admit(statement: Statement | None, rows: Sequence[BeliefRow], *, turn_id: int,
          threshold: float, said: Evidence | None = None) -> Decision:
    """Decide a new claim citing stored turn ``turn_id``. ``statement`` None
    means the turn already gave this very claim (idempotency: unchanged);
    ``rows`` are the current-belief rows of its subject and predicate,
    ``said`` what mentions merged into their lineages said (``plan_for``).
    Raises ValueError for an empty valid interval."""
    provenance = provenance_step(turn_id)
    if statement is None:
        return Decision(Outcome.UNCHANGED, (provenance, _REPEATED))
    plan = plan_for(statement, rows, said)
    if plan.kind == "merge":
        return _take_effect(plan, statement, (provenance,))
    reasons = review_reasons(statement.confidence, statement.source_kind, threshold)
    if reasons:
        return Decision(Outcome.PENDING, (provenance, _DEDUP_NEW, _REVIEW_QUEUED), plan, reasons)
    return _take_effect(plan, statement, (provenance, _DEDUP_NEW, review_pass_step(threshold)))


def approve(statement: Statement, rows: Sequence[BeliefRow], *, by: str, edited: bool,
            said: Evidence | None = None) -> Decision:
    """Decide a pending claim a reviewer approved (``edited``: after changing
    it): the dedup and conflict gates again, against current belief now.
    Raises ValueError for an empty valid interval."""
    step = GateStep(Gate.REVIEW, "approved", f"by {by}" + (" after edits" if edited else ""))
    return _take_effect(plan_for(statement, rows, said), statement, (step,))


def resolve(keep: Resolution, statement: Statement, rows: Sequence[BeliefRow], *,
            conflict_id: int, conflict_scope: str, by: str, scope: str | None = None,
            fact_ids: Iterable[int] = (), said: Evidence | None = None
            ) -> tuple[Decision, Statement]:
    """Decide the incoming claim of conflict ``conflict_id`` as a reviewer
    resolved it. Returns the decision and the statement as it takes effect
    (a correction for ``incoming``, an evolution for ``changed``, moved to
    ``scope`` for ``both``).

    For ``existing`` and ``neither`` the claim is rejected; for ``neither`` the
    decision's plan (kind ``retract``) retires the rows among ``rows`` whose ids
    are in ``fact_ids`` (the conflict's facts still in current belief). Raises
    InvalidInput when ``both`` names no other scope or one that already holds
    another value, and when ``changed`` would itself be a conflict (the
    incoming value is said to start at the very instant the existing one does).
    """
    step = GateStep(Gate.CONFLICT, "resolved", f"conflict {conflict_id} kept {keep} by {by}")
    if keep == Resolution.EXISTING:
        return Decision(Outcome.REJECTED, (step,)), statement
    if keep == Resolution.NEITHER:
        named = set(fact_ids)
        plan = Plan("retract", retire=tuple(r for r in rows if r.id in named))
        return Decision(Outcome.REJECTED, (step,), plan), statement
    if keep in (Resolution.INCOMING, Resolution.CHANGED):
        taken = statement._replace(change=CORRECTION if keep == Resolution.INCOMING else EVOLUTION)
        decision = _take_effect(plan_for(taken, rows, said), taken, (step,))
        if decision.outcome == Outcome.CONFLICT:  # an evolution at the instant another starts
            raise InvalidInput("the incoming value is said to start when the existing one does, "
                               "so it cannot be a change from then; keep incoming (the existing "
                               "one was wrong) or both")
        return decision, taken
    if not scope or scope == conflict_scope:
        raise InvalidInput("keep=both needs --scope naming a scope other than "
                           f"{conflict_scope!r}, so the two values do not overlap")
    moved = statement._replace(scope=scope)
    decision = _take_effect(plan_for(moved, rows, said), moved, (step,))
    if decision.outcome == Outcome.CONFLICT:
        raise InvalidInput(f"scope {scope!r} already holds another value; choose another")
    return decision, moved


# ------------------------------------------------- what a resolution would do
RETIRED_AS = {"evolution": "superseded", "backfill": "superseded", "correction": "corrected",
              REFINEMENT: "superseded", "ending": "superseded",
              "insert": "superseded", "retract": "retracted"}
"""The retire reason each plan kind stamps on the rows it retires: what the
writer stamps (``Batch.apply``) and what a resolution's preview says."""

OTHER_SCOPE = "(the scope you name)"
"""The scope a preview of ``both`` shows before the reviewer has named one."""


class Span(NamedTuple):
    """One value on the timeline a resolution would leave: an unchanged row
    (``origin`` "kept"), a copy of a retired row over part of its interval
    ("history"), or the incoming value ("incoming", ``fact_id`` None)."""

    object: str
    polarity: str
    scope: str
    start: int
    end: int | None
    origin: str
    fact_id: int | None
    predicate: str | None = None  # set for a row of the claim predicate's opposite

    @property
    def label(self) -> str:
        return (f"{self.predicate} " if self.predicate else "") + self.object


class Retired(NamedTuple):
    """A row a resolution would retire, and the reason it would be stamped with."""

    fact_id: int
    object: str
    start: int
    end: int | None
    reason: str
    predicate: str | None = None  # set for a row of the claim predicate's opposite

    @property
    def label(self) -> str:
        return (f"{self.predicate} " if self.predicate else "") + self.object


_REASON_TEXT = {
    "superseded": "superseded: closed, kept as history",
    "corrected": "marked corrected: never true",
    "retracted": "retracted",
}


Clock = Callable[[int | None], str | None]
"""How a caller shows a time (microseconds) in a preview: ``None`` stays ``None``."""


@dataclass(frozen=True, slots=True)
class Outlook:
    """What one resolution of a conflict would do, computed by a dry run of
    :func:`resolve`: the outcome, the plan's kind, the timeline of the slot
    afterwards (current belief, in valid-time order) and the rows it would
    retire. ``error`` says why the choice cannot be taken as things stand."""

    keep: Resolution
    outcome: Outcome | None
    kind: str | None
    incoming: str
    timeline: tuple[Span, ...] = ()
    retired: tuple[Retired, ...] = ()
    error: str | None = None

    def describe(self, when: Clock) -> str:
        """One line: the timeline as it would become, then what is retired;
        ``when`` shows a time."""
        if self.error is not None:
            return f"not possible now: {self.error}"
        scopes = {s.scope for s in self.timeline}
        parts = []
        for s in self.timeline:
            text = s.label + ("" if s.polarity == "positive" else f" ({s.polarity})")
            if s.end is None:
                text += f" from {when(s.start)}"
            else:
                text += f" {when(s.start)} → {when(s.end)}"
            if len(scopes) > 1:
                text += f" in {s.scope}"
            parts.append(text)
        notes = [f"fact {r.fact_id} {r.label} {_REASON_TEXT.get(r.reason, r.reason)}"
                 for r in self.retired]
        if self.outcome == Outcome.REJECTED:
            notes.append(f"incoming {self.incoming} rejected")
        elif self.outcome == Outcome.MERGED:
            notes.append(f"incoming {self.incoming} merged as a mention of the value that holds")
        return "; ".join([", ".join(parts) or "no value", *notes])

    def to_dict(self, when: Clock, short: Clock | None = None) -> dict[str, Any]:
        """JSON-ready: times shown by ``when``, the ``text`` line by ``short`` (default ``when``)."""
        return {
            "keep": str(self.keep), "outcome": None if self.outcome is None else str(self.outcome),
            "plan": self.kind, "error": self.error,
            "timeline": [{"object": s.object, "polarity": s.polarity, "scope": s.scope,
                          "valid_from": when(s.start), "valid_to": when(s.end),
                          "origin": s.origin, "fact_id": s.fact_id, "predicate": s.predicate}
                         for s in self.timeline],
            "retired": [{"fact_id": r.fact_id, "object": r.object, "valid_from": when(r.start),
                         "valid_to": when(r.end), "reason": r.reason, "predicate": r.predicate}
                        for r in self.retired],
            "text": self.describe(short or when),
        }


def outlook(keep: Resolution, statement: Statement, rows: Sequence[BeliefRow], *,
            conflict_scope: str, fact_ids: Iterable[int], scope: str | None = None,
            predicate: str | None = None, said: Evidence | None = None) -> Outlook:
    """What resolving the conflict as ``keep`` would do now, without doing it.
    ``rows`` are the current-belief rows of its subject and predicate (and of
    the predicate's opposite, as ``admit`` sees them). For
    ``both`` without ``scope`` the incoming value is shown in a scope that
    holds nothing yet (:data:`OTHER_SCOPE`). ``predicate`` (the claim's) labels
    the values when the timeline mixes it with its opposite."""
    fact_ids = tuple(fact_ids)
    if keep == Resolution.BOTH and scope is None:
        scope = OTHER_SCOPE
    try:
        decision, taken = resolve(keep, statement, rows, conflict_id=0, conflict_scope=conflict_scope,
                                  by="preview", scope=scope, fact_ids=fact_ids, said=said)
    except (InvalidInput, ValueError) as exc:
        return Outlook(keep, None, None, statement.object, error=str(exc))
    plan = decision.plan
    # the plan retires rows among ``rows`` themselves (plan_for unwraps opposite rows)
    retire = cast(tuple[BeliefRow, ...], plan.retire
                  if plan is not None and decision.outcome != Outcome.MERGED else ())
    gone = {r.id for r in retire}
    affected: dict[int, BeliefRow] = {
        r.id: _own(r) for r in (*slot_rows(rows, statement), *slot_rows(rows, taken), *retire)}

    def other(row: BeliefRow) -> str | None:  # the opposite predicate's name, shown
        return row.predicate if statement.opposite and row.predicate == statement.opposite else None

    spans = [Span(r.object, r.polarity, r.scope, r.valid_from, r.valid_to, "kept", r.id, other(r))
             for r in affected.values() if r.id not in gone]
    if decision.outcome == Outcome.APPLIED and plan is not None:
        for piece in plan.insert:
            if piece.source is None:
                spans.append(Span(taken.object, taken.polarity, taken.scope, piece.start,
                                  piece.end, "incoming", None))
            else:  # a copy of a retired row, which is one of ``rows``
                src = cast(BeliefRow, piece.source)
                spans.append(Span(src.object, src.polarity, src.scope, piece.start, piece.end,
                                  "history", src.id, other(src)))
    # likes and dislikes in one slot: every value names its predicate, the incoming one too
    mixed = predicate is not None and any(other(r) for r in affected.values())
    if mixed:
        spans = [s if s.predicate else s._replace(predicate=predicate) for s in spans]
    spans.sort(key=lambda s: (s.scope != conflict_scope, s.start, s.fact_id is None))
    reason = RETIRED_AS.get(plan.kind, "superseded") if plan is not None else ""
    retired = tuple(Retired(r.id, r.object, r.valid_from, r.valid_to, reason, other(r))
                    for r in retire)
    return Outlook(keep, decision.outcome, plan.kind if plan is not None else None,
                   f"{predicate} {statement.object}" if mixed else statement.object,
                   tuple(spans), retired)


def outlooks(statement: Statement, rows: Sequence[BeliefRow], *, conflict_scope: str,
             fact_ids: Iterable[int], predicate: str | None = None,
             said: Evidence | None = None) -> tuple[Outlook, ...]:
    """:func:`outlook` for every resolution, in the order of :class:`Resolution`."""
    fact_ids = tuple(fact_ids)
    return tuple(outlook(keep, statement, rows, conflict_scope=conflict_scope, fact_ids=fact_ids,
                         predicate=predicate, said=said) for keep in Resolution)


def reopened(conflict_id: int, keep: str, by: str) -> GateStep:
    """The conflict gate's step when a reviewer undoes the resolution of
    conflict ``conflict_id``: the claim is in conflict again."""
    return GateStep(Gate.CONFLICT, "reopened", f"conflict {conflict_id}: kept {keep} undone by {by}")


def undone(verdict: str, by: str) -> GateStep:
    """The review gate's step when a reviewer undoes an ``approved`` or
    ``rejected`` decision: the claim is pending again."""
    return GateStep(Gate.REVIEW, "undone", f"{verdict} undone by {by}")


# ------------------------------------------------------------- storage
def encode_steps(steps: Iterable[GateStep]) -> str:
    """The ``gates`` column's JSON for ``steps``: an array of
    ``{"gate", "result", "note"}`` objects in order."""
    return "[" + ",".join([step.json for step in steps]) + "]"


def decode_steps(text: str | None) -> tuple[GateStep, ...]:
    """The gate steps stored in a ``gates`` column. Raises ValueError for
    text that is not such a JSON array (a store not upgraded, or damaged)."""
    if not text:
        return ()
    data = json.loads(text)
    if not isinstance(data, list):
        raise ValueError("gate steps must be a JSON array")
    out = []
    for item in data:
        if not isinstance(item, dict) or set(item) != {"gate", "result", "note"}:
            raise ValueError(f"not a gate step: {item!r}")
        out.append(GateStep(Gate(item["gate"]), str(item["result"]),
                            None if item["note"] is None else str(item["note"])))
    return tuple(out)


def append_steps(stored: str | None, added: Iterable[GateStep]) -> str:
    """A ``gates`` column's JSON with ``added`` after the steps already stored."""
    return encode_steps((*decode_steps(stored), *added))


__all__ = [
    "BeliefRow", "ConflictKind", "Decision", "Gate", "GateStep", "Outcome", "Outlook", "Resolution",
    "Evidence", "Retired", "Span", "Statement",
    "admit", "append_steps", "approve", "decode_steps", "encode_steps", "outlook", "outlooks",
    "plan_for", "provenance_step", "reopened", "resolve", "review_reasons", "slot_rows", "undone",
]
