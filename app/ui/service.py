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

from memdesk.core import (
    AuditReport,
    Candidate,
    Conflict,
    Fact,
    FactNotFound,
    Store,
    TurnRecord,
)
from memdesk.core.recall import Recaller, RecallHit
from memdesk.core.timeutil import iso

REVIEW_PAGE = 60


def iso_day(us: int) -> str:
    """A stored time as its UTC day."""
    return (iso(us) or "")[:10]
CONFLICT_PAGE = 500


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
        subjects = self.store.subjects(limit=1)
        return Overview(self.store_label(), self.reviewer, self.store.review_count(),
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
        return self.store.conflict_count("open")

    def subjects(self, prefix: str = "", limit: int = 200) -> list[str]:
        return self.store.subjects(prefix, limit=limit)

    def predicates(self) -> list[str]:
        return [p.id for p in self.store.predicates()]

    def timeline(self, subject: str) -> TimelineData:
        return TimelineData(subject, tuple(self.store.history(subject)), self.store.now())

    def fact_detail(self, fact_id: int) -> FactDetail:
        """Raises FactNotFound."""
        fact = self.store.fact(fact_id)
        data = self.store.fact_dicts([fact])[0]
        try:
            report = self.store.audit(fact.subject, fact.predicate, fact.object)
        except FactNotFound:
            report = None
        return FactDetail(data, report)

    def review_page(self, after: tuple[float, int] | None = None,
                    limit: int = REVIEW_PAGE, subject: str | None = None) -> ReviewPage:
        """A page of the pending queue (``subject``'s candidates only, if given)."""
        items = self.store.review_list("pending", limit=limit + 1, after=after, subject=subject)
        return ReviewPage(tuple(items[:limit]), self.store.review_count(subject=subject),
                          len(items) > limit)

    def candidate_context(self, candidate_id: int, radius: int = 4) -> CandidateContext:
        """Raises CandidateNotFound."""
        cand = self.store.candidate(candidate_id)
        turns = self.store.conversation(cand.source.session, cand.source.turn, radius)
        return CandidateContext(cand, tuple(turns))

    def conflicts(self, state: str = "open", limit: int = CONFLICT_PAGE) -> list[Conflict]:
        """The oldest ``limit`` conflicts in ``state`` (resolving one brings the next in)."""
        return self.store.conflicts(state, limit=limit)

    def audit(self, subject: str, predicate: str, obj: str | None) -> AuditReport:
        """Raises FactNotFound."""
        return self.store.audit(subject, predicate, obj or None)

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
        first = self.store.first_recorded(subject)
        whose = f"about {subject} " if subject else ""
        if first is None:
            return f"the store holds nothing {whose}yet"
        if at < first:
            return (f"nothing {whose}was recorded before {iso_day(first)}: recall as of "
                    f"{iso_day(at)} comes before the first record")
        return ""

    def turn_context(self, session: str, turn: int, radius: int = 2) -> tuple[TurnRecord, ...]:
        """The turns around ``turn`` of ``session`` (the source of a result)."""
        return tuple(self.store.conversation(session, turn, radius))

    # --------------------------------------------------------------- writes
    def approve(self, candidate_id: int, edits: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.store.approve(candidate_id, by=self.reviewer, edits=edits)

    def reject(self, candidate_id: int, reason: str) -> Candidate:
        return self.store.reject(candidate_id, by=self.reviewer, reason=reason)

    def undo(self, candidate_id: int) -> Candidate:
        self.store.undo_decision(candidate_id, by=self.reviewer)
        return self.store.candidate(candidate_id)

    def resolve(self, conflict_id: int, keep: str, scope: str | None = None,
                reason: str | None = None) -> Conflict:
        return self.store.resolve_conflict(conflict_id, keep, by=self.reviewer, scope=scope,
                                           reason=reason)

    def resolution_preview(self, conflict_id: int) -> list[dict[str, Any]]:
        """What each resolution would make of the conflict's timeline (a dry
        run of the gates; nothing is written). Raises ConflictNotFound,
        AlreadyDecided."""
        return self.store.resolution_preview(conflict_id)

    def undo_resolution(self, conflict_id: int) -> Conflict:
        """Reopen a resolved conflict, the timeline as before the resolution.
        Raises ConflictNotFound, AlreadyDecided, InvalidInput."""
        self.store.undo_resolution(conflict_id, by=self.reviewer)
        return self.store.conflict(conflict_id)

