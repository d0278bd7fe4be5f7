"""The app's one door to the engine.

Screens never touch the database themselves: they call these methods from
``@work(thread=True)`` workers. Each call opens its own connection through the
Store and returns plain data (frozen dataclasses, named tuples, dicts), never
ORM rows, so results can cross threads safely.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memdesk import (
    AuditReport,
    AuditStep,
    Candidate,
    Conflict,
    Fact,
    FactNotFound,
    Recaller,
    RecallHit,
    Source,
    Store,
    TurnRecord,
    iso,
)

REVIEW_PAGE = 60


def iso_day(us: int) -> str:
    """A stored time as its UTC day."""
    return (iso(us) or "")[:10]
CONFLICT_PAGE = 500
CONFLICT_CONTEXT = 2
"""Turns shown before and after each side's source turn in the conflict detail."""


@dataclass(frozen=True)
class TimelineData:
    """Every row ever recorded for one subject (retired ones too)."""

    subject: str
    rows: tuple[Fact, ...]
    now: int


@dataclass(frozen=True)
class FactDetail:
    """One fact row as JSON-ready data, with the provenance of its value."""

    fact: dict[str, Any]
    audit: AuditReport | None


@dataclass(frozen=True)
class ReviewPage:
    """A page of pending candidates (lowest confidence first) and the queue's size."""

    items: tuple[Candidate, ...]
    total: int
    more: bool


@dataclass(frozen=True)
class CandidateContext:
    """A candidate with the conversation around its source turn."""

    candidate: Candidate
    turns: tuple[TurnRecord, ...]


@dataclass(frozen=True)
class RecallView:
    """One recall run: ranked hits; in index mode also the exact top-k hits the
    index did not return; the prompt block an agent would get."""

    query: str
    exact: bool
    over: str
    hits: tuple[RecallHit, ...]
    missed: tuple[RecallHit, ...]
    prompt: str
    message: str = ""
    subject: str | None = None  # the scope it ran in (None: everyone)


@dataclass(frozen=True)
class GateResult:
    """One write-time gate's result for a claim (``note`` says why or which row)."""

    gate: str
    result: str
    note: str | None


@dataclass(frozen=True)
class ConflictSide:
    """One side of a conflict: an existing fact or the incoming claim
    (``held``, the store's own record of it), with what the desk shows beside
    it: its ``status`` (the fact's now, the claim's state), how often it was
    said (``mentions``), where (``source``, the ``turns`` around it) and the
    gates it passed. Times in µs UTC, shown in ``tz`` (minutes east of UTC)."""

    held: Fact | Candidate
    status: str
    mentions: int
    source: Source | None
    turns: tuple[TurnRecord, ...]
    gates: tuple[GateResult, ...]

    @property
    def incoming(self) -> bool:
        return isinstance(self.held, Candidate)

    @property
    def fact_id(self) -> int | None:
        return None if isinstance(self.held, Candidate) else self.held.id

    @property
    def claim_id(self) -> int:
        return self.held.id if isinstance(self.held, Candidate) else self.held.claim_id

    @property
    def recorded_at(self) -> int | None:
        return None if isinstance(self.held, Candidate) else self.held.recorded_at

    @property
    def kind(self) -> str:
        return self.held.source.kind if isinstance(self.held, Candidate) else self.held.source_kind

    @property
    def extractor(self) -> str:
        held = self.held
        return (held.source.extractor or "") if isinstance(held, Candidate) else held.extractor

    @property
    def tz(self) -> int:
        return self.held.source.tz if isinstance(self.held, Candidate) else self.held.tz

    @property
    def reasons(self) -> tuple[str, ...]:
        return self.held.reasons if isinstance(self.held, Candidate) else ()


@dataclass(frozen=True)
class ConflictDetail:
    """A conflict and its sides (existing facts first, the incoming claim
    last); ``tz`` is the incoming claim's offset, which the conflict's own
    times (when it was opened) are shown in."""

    conflict: Conflict
    sides: tuple[ConflictSide, ...]
    tz: int


def gates_by_claim(chain: tuple[AuditStep, ...]) -> dict[int, tuple[GateResult, ...]]:
    """The gate results in an audit chain, by claim id. A chain gives each
    claim an "extraction" step (naming the claim) followed, at the same
    instant, by its "gates" step; several claims extracted at one instant are
    paired in order."""
    out: dict[int, tuple[GateResult, ...]] = {}
    waiting: list[int] = []  # claims extracted at the current instant, without their gates yet
    at: int | None = None
    for step in chain:
        if step.at != at:
            waiting, at = [], step.at
        if step.step == "extraction" and isinstance(step.detail.get("claim_id"), int):
            waiting.append(step.detail["claim_id"])
        elif step.step == "gates" and waiting:
            out[waiting.pop(0)] = tuple(
                GateResult(str(g.get("gate")), str(g.get("result")), g.get("note"))
                for g in step.detail.get("gates", ()))
    return out


@dataclass(frozen=True)
class Overview:
    """What the header and first screen need."""

    store: str
    reviewer: str
    pending: int
    open_conflicts: int
    first_subject: str | None


class MemdeskService:
    """Plain-data operations for the app. Thread-safe: every method uses its own
    connection. Errors are the engine's (``MemdeskError`` subclasses)."""

    def __init__(self, store: Store, reviewer: str, recaller: Recaller | None = None) -> None:
        self.store = store
        self.reviewer = reviewer
        self.recaller = recaller or Recaller(store)

    # ---------------------------------------------------------------- reads
    def now(self) -> int:
        return self.store.now()

    def overview(self) -> Overview:
        # the desk opens on a project or a user, not on someone a user told of (person:…)
        subjects = (self.store.facts.subjects("project:", limit=1) or self.store.facts.subjects("user:", limit=1)
                    or self.store.facts.subjects(limit=1))
        return Overview(self.store_label(), self.reviewer, self.store.review.count(),
                        self.conflict_count(), subjects[0] if subjects else None)

    def store_label(self) -> str:
        """The store as the header shows it: a SQLite file's name, or the URL without password."""
        url = self.store.engine.url
        if url.get_backend_name() == "sqlite" and url.database:
            return Path(url.database).name
        return self.store.safe_url

    def change_stamp(self) -> tuple:
        """Changes whenever a write commits, from any process (one cheap read)."""
        return self.store.change_stamp()

    def conflict_count(self) -> int:
        return self.store.conflicts.count("open")

    def subjects(self, prefix: str = "", limit: int = 200) -> list[str]:
        return self.store.facts.subjects(prefix, limit=limit)

    def predicates(self) -> list[str]:
        return [p.id for p in self.store.facts.predicates()]

    def timeline(self, subject: str) -> TimelineData:
        return TimelineData(subject, tuple(self.store.facts.history(subject)), self.store.now())

    def fact_detail(self, fact_id: int) -> FactDetail:
        """Raises FactNotFound."""
        fact = self.store.facts.get(fact_id)
        data = self.store.facts.as_json([fact])[0]
        try:
            report = self.store.audit.of(fact.subject, fact.predicate, fact.object)
        except FactNotFound:
            report = None
        return FactDetail(data, report)

    def review_page(self, after: tuple[float, int] | None = None,
                    limit: int = REVIEW_PAGE, subject: str | None = None) -> ReviewPage:
        """A page of the pending queue (``subject``'s candidates only, if given)."""
        items = self.store.review.list("pending", limit=limit + 1, after=after, subject=subject)
        return ReviewPage(tuple(items[:limit]), self.store.review.count(subject=subject),
                          len(items) > limit)

    def candidate_context(self, candidate_id: int, radius: int = 4) -> CandidateContext:
        """Raises CandidateNotFound."""
        cand = self.store.review.get(candidate_id)
        turns = self.store.facts.conversation(cand.source.session, cand.source.turn, radius)
        return CandidateContext(cand, tuple(turns))

    def conflicts(self, state: str = "open", limit: int = CONFLICT_PAGE) -> list[Conflict]:
        """The oldest ``limit`` conflicts in ``state`` (resolving one brings the next in)."""
        return self.store.conflicts.list(state, limit=limit)

    def audit(self, subject: str, predicate: str, obj: str | None) -> AuditReport:
        """Raises FactNotFound."""
        return self.store.audit.of(subject, predicate, obj or None)

    def recall(self, query: str, *, exact: bool = False, over: str = "memories",
               at: int | None = None, k: int = 10, subject: str | None = None) -> RecallView:
        """Run a recall (for ``subject`` only, if given: a user's scope covers
        their projects). In index mode the exact search runs too, so the view
        can show what the index missed. No result as of a time before anything
        was recorded says so. Raises InvalidInput, EmbedderUnavailable."""
        seen = len(self.recaller.messages)
        if exact:
            hits = tuple(self.recaller.search(query, k=k, at=at, exact=True, over=over,
                                              subject=subject))
            missed: tuple = ()
        else:
            comparison = self.recaller.compare(query, k, at=at, over=over, subject=subject)
            hits, missed = comparison.index, comparison.missed
        prompt = self.recaller.render_prompt(hits, at if at is not None else self.store.now())
        notes = list(self.recaller.messages[seen:])
        if not hits and at is not None:
            notes.append(self.before_first_record(at, subject))
        return RecallView(query, exact, over, hits, missed, prompt, "; ".join(n for n in notes if n),
                          subject)

    def before_first_record(self, at: int, subject: str | None) -> str:
        """Why a recall as of ``at`` can find nothing, when it is before the
        first record (of ``subject``); else ""."""
        first = self.store.facts.first_told(subject)
        whose = f"about {subject} " if subject else ""
        if first is None:
            return f"the store holds nothing {whose}yet"
        if at < first:
            return (f"nothing {whose}was recorded before {iso_day(first)}: recall as of "
                    f"{iso_day(at)} comes before the first record")
        return ""

    def turn_context(self, session: str, turn: int, radius: int = 2) -> tuple[TurnRecord, ...]:
        """The turns around ``turn`` of ``session`` (the source of a result)."""
        return tuple(self.store.facts.conversation(session, turn, radius))

    # --------------------------------------------------------------- writes
    def approve(self, candidate_id: int, edits: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.store.review.approve(candidate_id, by=self.reviewer, edits=edits).to_dict()

    def reject(self, candidate_id: int, reason: str) -> Candidate:
        return self.store.review.reject(candidate_id, by=self.reviewer, reason=reason)

    def undo(self, candidate_id: int) -> Candidate:
        self.store.review.undo(candidate_id, by=self.reviewer)
        return self.store.review.get(candidate_id)

    def resolve(self, conflict_id: int, keep: str, scope: str | None = None,
                reason: str | None = None) -> Conflict:
        return self.store.conflicts.resolve(conflict_id, keep, by=self.reviewer, scope=scope,
                                           reason=reason)

    def resolution_preview(self, conflict_id: int) -> list[dict[str, Any]]:
        """What each resolution would make of the conflict's timeline (a dry
        run of the gates; nothing is written). Raises ConflictNotFound,
        AlreadyDecided."""
        return [choice.to_dict() for choice in self.store.conflicts.preview(conflict_id)]

    def undo_resolution(self, conflict_id: int) -> Conflict:
        """Reopen a resolved conflict, the timeline as before the resolution.
        Raises ConflictNotFound, AlreadyDecided, InvalidInput."""
        self.store.conflicts.undo(conflict_id, by=self.reviewer)
        return self.store.conflicts.get(conflict_id)


    # ----- conflicts (detail pane)
    def conflict_detail(self, conflict_id: int, radius: int = CONFLICT_CONTEXT) -> ConflictDetail:
        """One conflict with each side in full: the existing facts, then the
        incoming claim, each with its score, the gates it passed (as the
        store recorded them) and the conversation within ``radius`` turns of
        its source turn. Raises ConflictNotFound, CandidateNotFound."""
        conflict = self.store.conflicts.get(conflict_id)
        claim = self.store.review.get(conflict.claim_id)
        facts: list[Fact] = []
        for fact_id in conflict.fact_ids:
            try:
                facts.append(self.store.facts.get(fact_id))
            except FactNotFound:  # erased since: the conflict lists what is left
                continue
        claim_ids = [f.claim_id for f in facts] + [claim.id]
        sources = self.store.facts.sources(claim_ids[:-1])
        mentions = self.store.facts.mentions(claim_ids)
        now = self.store.now()
        sides: list[ConflictSide] = []
        for fact in facts:
            source = sources.get(fact.claim_id)
            sides.append(ConflictSide(
                fact, status=fact.status(now), mentions=mentions.get(fact.claim_id, 1),
                source=source, turns=self._turns_around(source, radius), gates=self._fact_gates(fact)))
        source = claim.source
        sides.append(ConflictSide(
            claim, status=claim.state, mentions=mentions.get(claim.id, 1), source=source,
            turns=self._turns_around(source, radius), gates=()))
        return ConflictDetail(conflict, tuple(sides), claim.source.tz)

    def _turns_around(self, source: Source | None, radius: int) -> tuple[TurnRecord, ...]:
        if source is None:
            return ()
        return tuple(self.store.facts.conversation(source.session, source.turn, radius))

    def _fact_gates(self, fact: Fact) -> tuple[GateResult, ...]:
        """The gate results recorded for the claim behind ``fact``, read from
        its audit chain (empty when the store kept none)."""
        try:
            report = self.store.audit.of(fact.subject, fact.predicate, fact.object)
        except FactNotFound:
            return ()
        return gates_by_claim(report.chain).get(fact.claim_id, ())
