"""What the agent's door (``core.memory.Memory``) gives back: the store's
records with every time an aware ``datetime`` (in the offset of the statement
it came from), never the integers the store keeps inside (docs/DESIGN.md §6.1).

Each view is built from the record's JSON form (``Fact.to_dict``,
``AuditReport.to_dict``, ``Candidate.to_dict``, ``RecallHit.to_json``), the
public contract of §6.3, so the two never disagree; ``to_dict`` gives that
JSON back.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any


def _at(text: str | None) -> datetime | None:
    """An ISO 8601 time of the JSON contract (always with its offset) as a datetime."""
    return None if text is None else datetime.fromisoformat(text)


def _req(text: str | None) -> datetime:
    value = _at(text)
    if value is None:
        raise ValueError("a required time is missing")
    return value


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


if TYPE_CHECKING:
    from .records import MemoryRecord


@dataclass(frozen=True, slots=True)
class SourceView:
    """The turn a fact or candidate came from: who said what, when."""

    session: str
    turn: int
    speaker: str
    text: str
    kind: str
    time: datetime
    claim_id: int | None = None

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> SourceView:
        return cls(data["session"], int(data["turn"]), data.get("speaker") or "", data["text"],
                   data["kind"], _req(data["time"]), data.get("claim_id"))

    def to_dict(self) -> dict[str, Any]:
        return {"session": self.session, "turn": self.turn, "speaker": self.speaker,
                "text": self.text, "kind": self.kind, "time": self.time.isoformat(),
                "claim_id": self.claim_id}


def _source(data: Mapping[str, Any] | None) -> SourceView | None:
    return None if data is None else SourceView.of(data)


@dataclass(frozen=True, slots=True)
class StartView:
    """How a fact's start is known (docs/DESIGN.md §2.2): ``kind`` is
    ``stated``, ``heard``, ``bounded`` or ``clamped``; the start lies in
    [``earliest``, ``latest``] (``earliest`` None: held since some unknown
    time); ``text`` says it in words."""

    kind: str
    earliest: datetime | None
    latest: datetime
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "earliest": _iso(self.earliest),
                "latest": self.latest.isoformat(), "text": self.text}


@dataclass(frozen=True, slots=True)
class MemoryFact:
    """A fact row as the agent's door gives it. Valid time [``valid_from``,
    ``valid_to``); told time [``known_from``, ``known_until``) (when the store
    was told what wrote and retired it); recorded time [``recorded_at``,
    ``retired_at``) (when this store wrote that down). ``status`` is judged at
    the valid time asked about."""

    id: int
    subject: str
    predicate: str
    object: str
    value: Any
    polarity: str
    scope: str
    valid_from: datetime
    valid_to: datetime | None
    start: StartView
    known_from: datetime
    known_until: datetime | None
    recorded_at: datetime
    retired_at: datetime | None
    retire_reason: str | None
    retired_by_claim: int | None
    status: str
    confidence: float
    extractor: str
    source: SourceView | None
    event_start: datetime | None
    event_end: datetime | None
    expires_at: datetime | None
    due: datetime | None
    single_valued: bool
    sensitive: bool
    claim_id: int
    copy_of: int | None
    mentions: int

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> MemoryFact:
        """From a fact's JSON form (``store.facts.as_json``)."""
        event = d.get("event_time") or {}
        start = d["start"]
        return cls(
            id=d["id"], subject=d["subject"], predicate=d["predicate"], object=d["object"],
            value=d["value"], polarity=d["polarity"], scope=d["scope"],
            valid_from=_req(d["valid_from"]), valid_to=_at(d["valid_to"]),
            start=StartView(start["kind"], _at(start["earliest"]), _req(start["latest"]),
                            start["text"]),
            known_from=_req(d["known_from"]), known_until=_at(d["known_until"]),
            recorded_at=_req(d["recorded_at"]), retired_at=_at(d["retired_at"]),
            retire_reason=d["retire_reason"], retired_by_claim=d["retired_by_claim"],
            status=d["status"], confidence=d["confidence"], extractor=d["extractor"],
            source=_source(d["source"]), event_start=_at(event.get("start")),
            event_end=_at(event.get("end")), expires_at=_at(d["expires_at"]), due=_at(d["due"]),
            single_valued=d["single_valued"], sensitive=d["sensitive"], claim_id=d["claim_id"],
            copy_of=d["copy_of"], mentions=d["mentions"])

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract's fact object (docs/DESIGN.md §6.3)."""
        event = None
        if self.event_start is not None or self.event_end is not None:
            event = {"start": _iso(self.event_start), "end": _iso(self.event_end)}
        return {
            "id": self.id, "subject": self.subject, "predicate": self.predicate,
            "object": self.object, "value": self.value, "polarity": self.polarity,
            "scope": self.scope, "valid_from": self.valid_from.isoformat(),
            "valid_to": _iso(self.valid_to), "recorded_at": self.recorded_at.isoformat(),
            "retired_at": _iso(self.retired_at), "retire_reason": self.retire_reason,
            "retired_by_claim": self.retired_by_claim, "confidence": self.confidence,
            "source": None if self.source is None else self.source.to_dict(),
            "event_time": event, "extractor": self.extractor, "start": self.start.to_dict(),
            "known_from": self.known_from.isoformat(), "known_until": _iso(self.known_until),
            "expires_at": _iso(self.expires_at), "due": _iso(self.due), "status": self.status,
            "single_valued": self.single_valued, "sensitive": self.sensitive,
            "claim_id": self.claim_id, "copy_of": self.copy_of, "mentions": self.mentions,
        }


@dataclass(frozen=True, slots=True)
class MemoryItem:
    """One memory of the vector path as ``Memory.memories`` lists it: its
    text (sensitive data masked), whose it is, the turn it came from, how
    often it was said, and whether maintenance archived it."""

    id: int
    subject: str
    predicate: str | None
    text: str
    mentions: int
    created_at: datetime
    session: str
    turn: int
    claim_id: int
    archived_at: datetime | None
    archive_reason: str | None
    merged_into: int | None

    @classmethod
    def of(cls, m: MemoryRecord) -> MemoryItem:
        """From a memory of ``store.facts.memories``."""
        return cls(int(m.id), m.subject, m.predicate, m.text, int(m.mentions),
                   _req(m.created_at), m.session, int(m.turn), int(m.claim_id),
                   _at(m.archived_at), m.archive_reason, m.merged_into)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "subject": self.subject, "predicate": self.predicate,
                "text": self.text, "mentions": self.mentions,
                "created_at": self.created_at.isoformat(), "session": self.session,
                "turn": self.turn, "claim_id": self.claim_id,
                "archived_at": _iso(self.archived_at), "archive_reason": self.archive_reason,
                "merged_into": self.merged_into}


@dataclass(frozen=True, slots=True)
class AuditStepView:
    """One step of a provenance chain: ``at`` when it happened as told,
    ``recorded_at`` when this store wrote it (None: not known)."""

    step: str
    at: datetime
    recorded_at: datetime | None
    actor: str
    summary: str
    detail: Mapping[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"step": self.step, "at": self.at.isoformat(),
                "recorded_at": _iso(self.recorded_at), "actor": self.actor,
                "summary": self.summary, "detail": dict(self.detail)}


@dataclass(frozen=True, slots=True)
class MemoryAudit:
    """Since when, and why, the store believes a value: ``decided_at`` when it
    was told what made it believe it, ``recorded_at`` when it wrote that
    down, the fact, and the provenance chain in the order it was told."""

    subject: str
    predicate: str
    object: str
    decided_at: datetime
    recorded_at: datetime | None
    fact: MemoryFact
    chain: tuple[AuditStepView, ...]

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> MemoryAudit:
        """From an audit's JSON form (``AuditReport.to_dict``)."""
        return cls(d["subject"], d["predicate"], d["object"], _req(d["decided_at"]),
                   _at(d["recorded_at"]), MemoryFact.of(d["fact"]),
                   tuple(AuditStepView(s["step"], _req(s["at"]), _at(s["recorded_at"]),
                                       s["actor"], s["summary"], s["detail"])
                         for s in d["chain"]))

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract's audit object (docs/DESIGN.md §6.3)."""
        return {"subject": self.subject, "predicate": self.predicate, "object": self.object,
                "decided_at": self.decided_at.isoformat(), "recorded_at": _iso(self.recorded_at),
                "fact": self.fact.to_dict(), "chain": [s.to_dict() for s in self.chain]}


@dataclass(frozen=True, slots=True)
class MemoryCandidate:
    """A claim in the review queue (or decided), as the agent's door gives it."""

    id: int
    subject: str
    predicate: str
    object: str
    value: Any
    polarity: str
    scope: str
    valid_from: datetime
    valid_to: datetime | None
    confidence: float
    reasons: tuple[str, ...]
    state: str
    change: str | None
    source: SourceView
    created_at: datetime
    decided_by: str | None
    decided_at: datetime | None
    decision_reason: str | None
    fact_id: int | None

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> MemoryCandidate:
        """From a candidate's JSON form (``Candidate.to_dict``)."""
        return cls(d["id"], d["subject"], d["predicate"], d["object"], d["value"], d["polarity"],
                   d["scope"], _req(d["valid_from"]), _at(d["valid_to"]), d["confidence"],
                   tuple(d["reasons"]), d["state"], d["change"], SourceView.of(d["source"]),
                   _req(d["created_at"]), d["decided_by"], _at(d["decided_at"]),
                   d["decision_reason"], d["fact_id"])


@dataclass(frozen=True, slots=True)
class MemoryHit:
    """One recall result as the agent's door gives it: what it says, its
    score and parts, where it came from, and when (``time``)."""

    kind: str
    text: str
    score: float
    relevance: float
    recency: float
    importance: float
    status: str
    conflict: tuple[int, ...]
    time: datetime
    subject: str | None
    predicate: str | None
    object: str | None
    confidence: float | None
    source: SourceView | None
    memory_id: int | None
    fact_id: int | None
    turn_id: int | None
    claim_id: int | None
    json: Mapping[str, Any]

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> MemoryHit:
        """From a hit's JSON form (``RecallHit.to_json``)."""
        return cls(d["kind"], d["text"], d["score"], d["relevance"], d["recency"],
                   d["importance"], d["status"], tuple(d["conflict"]), _req(d["time"]),
                   d["subject"], d["predicate"], d["object"], d["confidence"],
                   _source(d["source"]), d["memory_id"], d["fact_id"], d["turn_id"],
                   d["claim_id"], dict(d))

    def to_json(self) -> dict[str, Any]:
        """The JSON contract's recall object (docs/DESIGN.md §6.3), score parts included."""
        return dict(self.json)


__all__ = ["AuditStepView", "MemoryAudit", "MemoryCandidate", "MemoryFact", "MemoryHit",
           "MemoryItem", "SourceView", "StartView"]
