"""Plain, frozen records that cross the engine's boundary. They hold no
database handles, so they are safe to pass between threads.

Times are integer microseconds since the epoch (``*_us`` properties are not
needed: the fields are the integers); ``to_dict`` renders them as ISO 8601 at
the offset of the statement they came from.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .bitemporal import ENDING, RETRACTION
from .timeutil import from_us, iso

STATUSES = ("active", "superseded", "corrected", "retracted", "expired")
LAYER_EXTRACTOR = "signals@1"  # the signal layer's name on the claims it makes (core.signals.layer)
UNPARSED_PREDICATE = "note"  # what an unparsed statement is until a reviewer says which fact it states


@dataclass(frozen=True, slots=True)
class Source:
    """The turn a claim (or a recall result) came from and how it was obtained.

    ``kind`` is the claim's source kind (``user_explicit``, ``agent_inferred``, …),
    or ``turn`` for a raw turn recalled as such (no claim: ``claim_id`` None).
    ``confidence`` and ``extractor`` are the claim's, when it is read from the
    store; ``approved_by`` is who approved an agent's inference (recall sets it).
    """

    session: str
    turn: int
    speaker: str
    text: str
    time: int
    tz: int
    kind: str
    claim_id: int | None = None
    confidence: float | None = None
    extractor: str | None = None
    approved_by: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The source as the JSON contract shows it (a recall result's also names ``approved_by``)."""
        return {
            "session": self.session,
            "turn": self.turn,
            "speaker": self.speaker,
            "text": self.text,
            "kind": self.kind,
            "time": iso(self.time, self.tz),
            "claim_id": self.claim_id,
        }


class Fact(NamedTuple):
    """One bitemporal fact row, field for field as stored (see core.schema.FactRow).

    An immutable named tuple rather than a dataclass: facts are built by the
    hundred thousand on bulk imports and on every lookup, and a tuple is ten
    times cheaper to make.
    """

    id: int
    subject: str
    predicate: str
    object: str
    value_json: str | None
    polarity: str
    scope: str
    valid_from: int
    valid_to: int | None
    recorded_at: int
    retired_at: int | None
    retired_by_claim: int | None
    retire_reason: str | None
    retire_note: str | None
    claim_id: int
    copy_of: int | None
    confidence: float
    source_kind: str
    extractor: str
    event_start: int | None
    event_end: int | None
    expires_at: int | None
    tz: int
    single_valued: bool
    sensitive: bool
    start_stated: bool | None = None
    known_from: int | None = None
    start_kind: str | None = None
    start_latest: int | None = None
    known_until: int | None = None

    @property
    def value(self) -> Any:
        """The normalised value (decoded JSON), or None."""
        return None if self.value_json is None else json.loads(self.value_json)

    @property
    def current(self) -> bool:
        """True while the row is in current belief (not retired)."""
        return self.retired_at is None

    @property
    def told_from(self) -> int:
        """Start of the row on the told axis: when the store was told what made
        it write the row (``known_from``; for a row from before revision 0007,
        when it recorded it: the two axes were one then)."""
        return self.recorded_at if self.known_from is None else self.known_from

    @property
    def told_until(self) -> int | None:
        """End of the row on the told axis (None: still believed)."""
        return self.retired_at if self.known_until is None else self.known_until

    @property
    def start(self) -> str:
        """How its start was arrived at: ``stated``, ``heard``, ``bounded``,
        ``clamped`` (docs/DESIGN.md §2.2); a row from before revision 0005
        counts as stated."""
        if self.start_kind is not None:
            return self.start_kind
        return "heard" if self.start_stated is False else "stated"

    @property
    def latest_start(self) -> int:
        """The latest instant the start can be (inclusive)."""
        return self.valid_from if self.start_latest is None else self.start_latest

    @property
    def due(self) -> int | None:
        """When a dated item (a todo, a plan) is due: its event time, where that
        is not the time its value started (a move's event is its start)."""
        if self.event_start is None or self.event_start == self.valid_from:
            return None
        return None if self.start in ("bounded", "clamped") else self.event_start

    def start_dict(self) -> dict[str, Any]:
        """Its start for the JSON contract: ``kind`` (stated, heard, bounded,
        clamped), ``earliest`` (None for a start only heard: it held since
        some unknown time) and ``latest`` instant it can be, and ``text``:
        the same in words ("between 2026-06-01 10:00 and 2026-06-30")."""
        kind = self.start
        return {"kind": kind,
                "earliest": None if kind == "heard" else iso(self.valid_from, self.tz),
                "latest": iso(self.latest_start, self.tz),
                "text": self.start_text()}

    def start_text(self) -> str:
        """How its start is known, in a few words: "stated 2026-06-01 10:00",
        "heard 2026-06-01 10:00 (held since before)", "stated between
        2026-06-01 and 2026-06-30", "bounded: between 2026-06-01 10:00 and
        2026-06-30" (after what was said of the value before), "clamped:
        between 2026-04-01 10:00 and 2026-04-20 09:00" (the stated time lay
        wholly before what was said before)."""
        kind, tz = self.start, self.tz
        if kind == "heard":
            return f"heard {moment_text(self.valid_from, tz)} (held since before)"
        span = span_text(self.valid_from, self.latest_start, tz)
        return f"{kind} {span}" if kind == "stated" else f"{kind}: {span}"

    def valid_at(self, t: int) -> bool:
        return self.valid_from <= t and (self.valid_to is None or t < self.valid_to)

    def known_at(self, t: int) -> bool:
        """Believed as told by ``t`` (the told axis)."""
        until = self.told_until
        return self.told_from <= t and (until is None or t < until)

    def status(self, at: int, known_at: int | None = None) -> str:
        """One of STATUSES, judged at valid time ``at`` as the store had been
        told by ``known_at`` (default: now, so any retirement counts)."""
        until = self.told_until  # set exactly when the row is retired
        if until is not None and (known_at is None or until <= known_at):
            if self.retire_reason in ("corrected", "retracted", "expired"):
                return self.retire_reason  # "expired": retired by maintenance (core.maintain)
            return "superseded"
        if self.expires_at is not None and self.expires_at <= at:
            return "expired"
        if self.valid_to is not None and self.valid_to <= at:
            return "superseded"
        return "active"

    def to_dict(
        self, *, at: int, known_at: int | None = None, source: Source | None = None,
        mentions: int = 1,
    ) -> dict[str, Any]:
        tz = self.tz
        event = None
        if self.event_start is not None or self.event_end is not None:
            event = {"start": iso(self.event_start, tz), "end": iso(self.event_end, tz)}
        return {
            "id": self.id,
            "subject": self.subject,
            "predicate": self.predicate,
            "object": self.object,
            "value": self.value,
            "polarity": self.polarity,
            "scope": self.scope,
            "valid_from": iso(self.valid_from, tz),
            "valid_to": iso(self.valid_to, tz),
            "recorded_at": iso(self.recorded_at, tz),
            "retired_at": iso(self.retired_at, tz),
            "retire_reason": self.retire_reason,
            "retired_by_claim": self.retired_by_claim,
            "confidence": self.confidence,
            "source": source.to_dict() if source else None,
            "event_time": event,
            "extractor": self.extractor,
            # how valid_from was arrived at, and the latest the start can be
            # (docs/DESIGN.md §2.2); a row from before revision 0005: stated
            "start": self.start_dict(),
            # the told axis: when the store was told what wrote and retired it
            "known_from": iso(self.told_from, tz),
            "known_until": iso(self.told_until, tz),
            "expires_at": iso(self.expires_at, tz),
            "due": iso(self.due, tz),  # when a dated item is due (``due``), or null
            "status": self.status(at, known_at),
            "single_valued": bool(self.single_valued),  # raw SQLite rows hold 0/1
            "sensitive": bool(self.sensitive),
            "claim_id": self.claim_id,
            "copy_of": self.copy_of,
            "mentions": mentions,
        }


def claimed_object(change: str | None, obj: str) -> str:
    """A claim's object as a reviewer reads it, saying what the claim asks for
    when that is no value to hold: ``retract: X`` (a retraction), ``ended: X``
    (an ending; ``ended: whatever holds then`` when it names no value)."""
    if change == RETRACTION:
        return f"retract: {obj}"
    if change == ENDING:
        return f"ended: {obj or 'whatever holds then'}"
    return obj


@dataclass(frozen=True, slots=True)
class Candidate:
    """A claim as the review queue shows it."""

    id: int
    subject: str
    predicate: str
    object: str
    value_json: str | None
    polarity: str
    scope: str
    valid_from: int
    valid_to: int | None
    confidence: float
    reasons: tuple[str, ...]
    state: str
    change: str | None
    source: Source
    created_at: int
    decided_by: str | None
    decided_at: int | None
    decision_reason: str | None
    fact_id: int | None
    edits: dict[str, Any] | None

    @property
    def value(self) -> Any:
        return None if self.value_json is None else json.loads(self.value_json)

    @property
    def reading(self) -> str:
        """How the candidate was read: ``unparsed`` (a clause the signal layer
        queued as said: no rule or tagger read its fact), ``tagged`` (a value
        the signal layer's tagger read where no rule did) or ``extracted``."""
        if self.source.extractor != LAYER_EXTRACTOR:
            return "extracted"
        value = self.value
        return "unparsed" if isinstance(value, dict) and "unparsed" in value else "tagged"

    def to_dict(self) -> dict[str, Any]:
        tz = self.source.tz
        return {
            "id": self.id,
            "reading": self.reading,
            "subject": self.subject,
            "predicate": self.predicate,
            "object": self.object,
            "value": self.value,
            "polarity": self.polarity,
            "scope": self.scope,
            "valid_from": iso(self.valid_from, tz),
            "valid_to": iso(self.valid_to, tz),
            "confidence": self.confidence,
            "reasons": list(self.reasons),
            "state": self.state,
            "change": self.change,
            "source": self.source.to_dict(),
            "created_at": iso(self.created_at, tz),
            "decided_by": self.decided_by,
            "decided_at": iso(self.decided_at, tz),
            "decision_reason": self.decision_reason,
            "fact_id": self.fact_id,
            "edits": self.edits,
        }


@dataclass(frozen=True, slots=True)
class Conflict:
    """An open or resolved contradiction. ``facts`` holds the current-belief rows
    involved (as dicts) followed by the incoming claim rendered as a fact with
    ``status`` "pending" and ``id`` None."""

    id: int
    kind: str
    state: str
    subject: str
    predicate: str
    scope: str
    fact_ids: tuple[int, ...]
    claim_id: int
    opened_at: int
    resolved_at: int | None
    resolved_by: str | None
    resolution: str | None
    reason: str | None
    facts: tuple[dict[str, Any], ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "state": self.state,
            "subject": self.subject,
            "predicate": self.predicate,
            "scope": self.scope,
            "fact_ids": list(self.fact_ids),
            "claim_id": self.claim_id,
            "opened_at": iso(self.opened_at),
            "resolved_at": iso(self.resolved_at),
            "resolved_by": self.resolved_by,
            "resolution": self.resolution,
            "reason": self.reason,
            "facts": list(self.facts),
        }


@dataclass(frozen=True, slots=True)
class AuditStep:
    """One step of a provenance chain: ``at`` when it happened as told (a
    turn's time; a person's decision: when it was taken), ``recorded`` when
    this store wrote it (None: not known)."""

    step: str
    at: int
    actor: str
    summary: str
    detail: dict[str, Any]
    tz: int = 0
    recorded: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "at": iso(self.at, self.tz),
            "recorded_at": iso(self.recorded, self.tz),
            "actor": self.actor,
            "summary": self.summary,
            "detail": self.detail,
        }


@dataclass(frozen=True, slots=True)
class AuditReport:
    """Answer to "since when does the system believe X, and why?":
    ``decided_at`` when the store was told what made it believe it (the told
    axis), ``recorded_at`` when this store wrote that down."""

    subject: str
    predicate: str
    object: str
    decided_at: int
    fact: dict[str, Any]
    chain: tuple[AuditStep, ...]
    tz: int = 0
    recorded_at: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "subject": self.subject,
            "predicate": self.predicate,
            "object": self.object,
            "decided_at": iso(self.decided_at, self.tz),
            "recorded_at": iso(self.recorded_at, self.tz),
            "fact": self.fact,
            "chain": [s.to_dict() for s in self.chain],
        }


@dataclass(frozen=True, slots=True)
class PredicateInfo:
    """A predicate as ``memdesk predicates`` lists it."""

    id: str
    zh: str | None
    en: str | None
    single_valued: bool
    ttl: str | None
    routing: str | None
    catalogued: bool
    first_seen_at: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "zh": self.zh,
            "en": self.en,
            "single_valued": self.single_valued,
            "ttl": self.ttl,
            "routing": self.routing,
            "catalogued": self.catalogued,
            "first_seen_at": iso(self.first_seen_at),
        }


@dataclass(frozen=True, slots=True)
class ImportSummary:
    """What one import (or one batch of claims) did."""

    lines: int = 0
    asserted: int = 0
    evolutions: int = 0
    corrections: int = 0
    backfills: int = 0
    refinements: int = 0
    retractions: int = 0
    merged: int = 0
    queued: int = 0
    conflicts: int = 0
    unchanged: int = 0
    turns_added: int = 0
    fact_rows: int = 0
    memories: int = 0
    new_predicates: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "lines": self.lines,
            "asserted": self.asserted,
            "evolutions": self.evolutions,
            "corrections": self.corrections,
            "backfills": self.backfills,
            "refinements": self.refinements,
            "retractions": self.retractions,
            "merged": self.merged,
            "queued": self.queued,
            "conflicts": self.conflicts,
            "unchanged": self.unchanged,
            "turns_added": self.turns_added,
            "fact_rows": self.fact_rows,
            "memories": self.memories,
            "new_predicates": list(self.new_predicates),
        }


@dataclass(frozen=True, slots=True)
class IngestSummary(ImportSummary):
    """What one ingest of conversation turns did (``store.facts.ingest_file``,
    ``ingest_turns``): the import summary of its claims, plus the turns read,
    those that gave facts, those dropped (nothing worth keeping), those whose
    extraction failed (stored raw; a rerun retries them), the extractor and
    the signal layer it ran behind (None: the extractor alone)."""

    turns: int = 0
    turns_with_facts: int = 0
    dropped: int = 0
    extraction_failed: int = 0
    reread: int = 0  # turns read again under the lock (their stored context changed meanwhile)
    extractor: str = ""
    signals: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {**ImportSummary.to_dict(self), "turns": self.turns,
               "turns_with_facts": self.turns_with_facts, "dropped": self.dropped,
               "extraction_failed": self.extraction_failed}
        if self.reread:
            out["reread"] = self.reread
        return {**out, "extractor": self.extractor, "signals": self.signals}


@dataclass(frozen=True, slots=True)
class Approval:
    """What approving a candidate did (``store.review.approve``): ``outcome``
    is the plan's kind (asserted, evolution, correction, …) or, when the
    gates did not let it take effect as a new row, the claim's state
    (merged, conflict)."""

    candidate: int
    outcome: str
    fact_id: int | None
    conflict_id: int | None

    def to_dict(self) -> dict[str, Any]:
        return {"candidate": self.candidate, "outcome": self.outcome, "fact_id": self.fact_id,
                "conflict_id": self.conflict_id}


@dataclass(frozen=True, slots=True)
class DecisionUndone:
    """What undoing a review decision did (``store.review.undo``): the decision
    undone, the fact rows retired and restored, the conflict withdrawn."""

    candidate: int
    undone: str
    retired: tuple[int, ...] = ()
    restored: tuple[int, ...] = ()
    withdrawn_conflict: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"candidate": self.candidate, "undone": self.undone, "retired": list(self.retired),
                "restored": list(self.restored), "withdrawn_conflict": self.withdrawn_conflict}


@dataclass(frozen=True, slots=True)
class ResolutionUndone:
    """What undoing a conflict's resolution did (``store.conflicts.undo``): the
    resolution undone (its ``keep``), the fact rows retired and restored."""

    conflict: int
    undone: str
    retired: tuple[int, ...] = ()
    restored: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"conflict": self.conflict, "undone": self.undone, "retired": list(self.retired),
                "restored": list(self.restored)}


@dataclass(frozen=True, slots=True)
class TableCounts:
    """Rows per table written by an export or loaded by a restore
    (``store.admin.export``, ``restore``), in the order of the tables."""

    counts: tuple[tuple[str, int], ...]

    def __getitem__(self, table: str) -> int:
        """The count of one table. Raises KeyError for a table not counted."""
        for name, n in self.counts:
            if name == table:
                return n
        raise KeyError(table)

    @property
    def total(self) -> int:
        return sum(n for _, n in self.counts)

    def to_dict(self) -> dict[str, int]:
        return dict(self.counts)


@dataclass(frozen=True, slots=True)
class UpgradeReport:
    """The schema revisions a store was upgraded from and to (``Store.upgrade``)."""

    from_revision: str | None
    to_revision: str | None

    def to_dict(self) -> dict[str, str | None]:
        return {"from": self.from_revision, "to": self.to_revision}


@dataclass(frozen=True, slots=True)
class PreviewSpan:
    """One row of current belief a resolution would leave (``origin``: kept,
    history or incoming); times as ISO text in the incoming claim's offset."""

    object: str
    polarity: str
    scope: str
    valid_from: str | None
    valid_to: str | None
    origin: str
    fact_id: int | None
    predicate: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"object": self.object, "polarity": self.polarity, "scope": self.scope,
                "valid_from": self.valid_from, "valid_to": self.valid_to, "origin": self.origin,
                "fact_id": self.fact_id, "predicate": self.predicate}


@dataclass(frozen=True, slots=True)
class PreviewRetired:
    """One fact row a resolution would retire, and why."""

    fact_id: int
    object: str
    valid_from: str | None
    valid_to: str | None
    reason: str
    predicate: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"fact_id": self.fact_id, "object": self.object, "valid_from": self.valid_from,
                "valid_to": self.valid_to, "reason": self.reason, "predicate": self.predicate}


@dataclass(frozen=True, slots=True)
class ResolutionChoice:
    """What one resolution of an open conflict would do now
    (``store.conflicts.preview``): its outcome and plan, or ``error`` (why it
    cannot be taken), the timeline afterwards, the rows retired, and all of it
    on one line (``text``)."""

    keep: str
    outcome: str | None
    plan: str | None
    error: str | None
    timeline: tuple[PreviewSpan, ...]
    retired: tuple[PreviewRetired, ...]
    text: str

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ResolutionChoice:
        """The record of a JSON-ready choice (``gates.Outlook.to_dict``)."""
        return cls(d["keep"], d["outcome"], d["plan"], d["error"],
                   tuple(PreviewSpan(**s) for s in d["timeline"]),
                   tuple(PreviewRetired(**r) for r in d["retired"]), d["text"])

    def to_dict(self) -> dict[str, Any]:
        return {"keep": self.keep, "outcome": self.outcome, "plan": self.plan, "error": self.error,
                "timeline": [s.to_dict() for s in self.timeline],
                "retired": [r.to_dict() for r in self.retired], "text": self.text}


@dataclass(frozen=True, slots=True)
class MemoryRecord:
    """A memory of the vector path (``store.facts.memories``): its text
    (sensitive data masked), how often it was said, the turn it came from;
    when archived, when, why, and the memory it was folded into."""

    id: int
    subject: str
    predicate: str | None
    text: str
    mentions: int
    claim_id: int
    created_at: str | None
    session: str
    turn: int
    archived_at: str | None
    archive_reason: str | None
    merged_into: int | None

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "subject": self.subject, "predicate": self.predicate,
                "text": self.text, "mentions": self.mentions, "claim_id": self.claim_id,
                "created_at": self.created_at, "session": self.session, "turn": self.turn,
                "archived_at": self.archived_at, "archive_reason": self.archive_reason,
                "merged_into": self.merged_into}


def moment_text(us: int, tz: int = 0) -> str:
    """An instant as the desk writes it: "2026-06-01 10:00", or the day
    alone at midnight."""
    at = from_us(us, tz)
    if (at.hour, at.minute, at.second, at.microsecond) == (0, 0, 0, 0):
        return at.strftime("%Y-%m-%d")
    return at.strftime("%Y-%m-%d %H:%M")


def span_text(earliest: int, latest: int, tz: int = 0) -> str:
    """The instants a start can be, inclusive: "2026-06-01 10:00" when exact,
    "between 2026-06-01 10:00 and 2026-06-30" otherwise (a latest instant
    that ends a day shows as that day)."""
    if latest <= earliest:
        return moment_text(earliest, tz)
    end = from_us(latest + 1, tz)
    if (end.hour, end.minute, end.second, end.microsecond) == (0, 0, 0, 0):
        last = from_us(latest, tz).strftime("%Y-%m-%d")
    else:
        last = moment_text(latest, tz)
    return f"between {moment_text(earliest, tz)} and {last}"


class TurnRecord(NamedTuple):
    """A raw conversation turn as stored (time in µs UTC, ``tz`` its offset in minutes)."""

    id: int
    session: str
    turn: int
    speaker: str
    text: str
    time: int
    tz: int
    user: str | None
    project: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"session": self.session, "turn": self.turn, "speaker": self.speaker,
                "text": self.text, "time": iso(self.time, self.tz), "user": self.user,
                "project": self.project}
