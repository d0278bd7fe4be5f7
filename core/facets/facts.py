"""``store.facts``: what the store believes and how it is told.

Reads along both time axes (``as_of``, ``current``, ``history``, ``get``), the
memories of the vector path, the source turns and mention counts of claims,
and the writes that tell it things: claims (``add``, ``import_file``,
``import_claims``), conversations (``ingest_file``, ``ingest_turns``) and
retractions. Every write is one transaction: all or nothing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import parallel_parse
from ..access import Caller
from ..checks import (
    check_id,
    check_moment,
    check_name,
    check_predicate,
    check_required_text,
    check_subject,
)
from ..claims import (
    ClaimInput,
    read_claims,
)
from ..db import facts as sql
from ..db.errors import DBAPIError
from ..errors import (
    FactNotFound,
    FactRetired,
    InputFileError,
    InvalidInput,
    PredicateMismatch,
    StoreError,
    TurnMismatch,
)
from ..failpoints import point
from ..parallel_parse import ParsedClaim
from ..records import (
    Fact,
    ImportSummary,
    IngestSummary,
    MemoryRecord,
    PredicateInfo,
    Source,
    TurnRecord,
)
from ..timeutil import iso, to_us
from .base import StoreCore

if TYPE_CHECKING:
    from ..ingest import Extracted
    from ..pipeline import Turn


_ANALYZE_AFTER = 1_000  # rows written by one import before PostgreSQL statistics are refreshed


def _as_us(value: datetime | int | None, default: int, what: str = "time") -> int:
    """A time argument in µs: None gives ``default``; an int must lie within
    the calendar, a datetime must carry its offset. Raises InvalidInput."""
    if value is None:
        return default
    if isinstance(value, datetime):
        return to_us(value)
    return check_moment(value, what)


def _slot(subject: str, predicate: str | None) -> tuple[str, str | None]:
    """A (subject, predicate) to look up, checked as import lines are. Raises InvalidInput."""
    return check_subject(subject), None if predicate is None else check_predicate(predicate)


def _ingest_summary(summary: ImportSummary, counts: dict[str, int], extractor: Any) -> IngestSummary:
    """An ingest's summary: its claims' import summary, the per-turn ``counts``
    (core.ingest.ingest_turns), the extractor and the signal layer it ran behind."""
    layer = getattr(extractor, "layer", None)
    return IngestSummary(**dataclasses.asdict(summary), turns=counts["turns"],
                         turns_with_facts=counts["turns_with_facts"], dropped=counts["dropped"],
                         extraction_failed=counts["extraction_failed"],
                         reread=counts.get("reread", 0), extractor=extractor.name,
                         signals=None if layer is None else str(layer.name))


class Facts:
    """What the store believes and how it is told (``store.facts``)."""

    def __init__(self, core: StoreCore) -> None:
        self._core = core
        self._as_of = sql.AsOf(core.engine)  # compiled once for the store's dialect

    def as_of(
        self,
        subject: str,
        predicate: str | None = None,
        *,
        valid_at: datetime | int | None = None,
        known_at: datetime | int | None = None,
        include_expired: bool = True,
        recorded_at: datetime | int | None = None,
    ) -> list[Fact]:
        """Rows that hold at ``valid_at`` as the store had been told by
        ``known_at`` (both default to now; docs/DESIGN.md §2.1: the told axis,
        the times the source turns were said). With ``recorded_at``, only what
        this store had written by then (the recorded axis): what it would have
        answered at that moment.

        Facts whose TTL has run out by ``valid_at`` are dropped unless
        ``include_expired``. Raises InvalidInput for a malformed subject,
        predicate or time.
        """
        subject, predicate = _slot(subject, predicate)
        now = self._core.now() if valid_at is None or known_at is None else 0
        v = _as_us(valid_at, now, "valid_at")
        k = _as_us(known_at, now, "known_at")
        raw = self._core.raw()
        r = None if recorded_at is None else _as_us(recorded_at, now, "recorded_at")
        facts = self._as_of.facts(raw, subject, predicate, valid_at=v, known_at=k, recorded_at=r)
        if not include_expired:
            facts = [f for f in facts if f.expires_at is None or f.expires_at > v]
        return facts

    def current(self, subject: str, predicate: str | None = None) -> list[Fact]:
        """Current belief: every row not retired, whatever its valid time.
        Raises InvalidInput for a malformed subject or predicate."""
        subject, predicate = _slot(subject, predicate)
        return sql.current_facts(self._core.engine, subject, predicate)

    def history(self, subject: str, predicate: str | None = None) -> list[Fact]:
        """Every row ever recorded for the subject (and predicate), retired ones
        too. Raises InvalidInput for a malformed subject or predicate."""
        subject, predicate = _slot(subject, predicate)
        return sql.fact_history(self._core.engine, subject, predicate)

    def get(self, fact_id: int) -> Fact:
        """One row by id. Raises FactNotFound, InvalidInput for a malformed id."""
        found = sql.fact_with_id(self._core.engine, check_id(fact_id, "fact id"))
        if found is None:
            raise FactNotFound(f"no fact with id {fact_id}")
        return found

    def subjects(self, prefix: str = "", limit: int = 1000) -> list[str]:
        """Distinct subjects, sorted, optionally starting with ``prefix``."""
        return sql.subjects(self._core.engine, prefix, limit)

    def memories(self, subject: str | None = None, limit: int = 1000, *, offset: int = 0,
                 under: str | None = None, include_archived: bool = True
                 ) -> list[MemoryRecord]:
        """Memory texts of the vector path (sensitive data masked), newest first,
        with the turn each came from and how often it was said; archived ones
        too (unless ``include_archived`` is false), with when and why
        (``archived_at``, ``archive_reason``, and ``merged_into`` for a near
        duplicate folded by maintenance). ``subject``: only its memories;
        ``under``: also those of the subjects starting with it (a user's
        people, ``person:<user>/``). ``limit`` rows from ``offset`` on."""
        rows = sql.memories(self._core.engine, subject, under, include_archived, limit, offset)
        return [MemoryRecord(**{**r, "created_at": iso(r["created_at"]),
                                "archived_at": iso(r["archived_at"])}) for r in rows]

    def sources(self, claim_ids: Iterable[int]) -> dict[int, Source]:
        """The source turn of each claim id."""
        return sql.sources(self._core.engine, sorted(set(claim_ids)))

    def mentions(self, claim_ids: Iterable[int]) -> dict[int, int]:
        """How many claims stand behind each lineage (its own claim plus merged ones)."""
        ids = sorted(set(claim_ids))
        out = {i: 1 for i in ids}
        for claim_id, n in sql.merged_counts(self._core.engine, ids):
            out[claim_id] += n
        return out

    def as_json(self, facts: Sequence[Fact], at: int | None = None,
                   known_at: int | None = None) -> list[dict[str, Any]]:
        """JSON-ready dicts for facts, with their source turn and mention count.
        ``status`` is judged at valid time ``at`` (default now) as believed at
        ``known_at`` (default now)."""
        at = self._core.now() if at is None else at
        claim_ids = [f.claim_id for f in facts]
        sources = self.sources(claim_ids)
        mentions = self.mentions(claim_ids)
        return [
            f.to_dict(at=at, known_at=known_at, source=sources.get(f.claim_id),
                      mentions=mentions.get(f.claim_id, 1))
            for f in facts
        ]

    def predicates(self) -> list[PredicateInfo]:
        """The catalog's predicates followed by uncatalogued ones seen in this store."""
        out = [PredicateInfo(p.id, p.zh, p.en, p.single_valued, p.ttl, p.routing, True)
               for p in self._core.catalog]
        for name, single, seen in sql.predicates_seen(self._core.engine):
            if name not in self._core.catalog:
                out.append(PredicateInfo(name, None, None, bool(single), None, None, False, seen))
        return out

    def first_told(self, subject: str | None = None) -> int | None:
        """When the store was first told anything (µs, the told axis that
        ``known_at`` and recall's ``at`` read): a fact, a memory, or a turn;
        with ``subject``, anything about that subject (a user's own turns
        too). None when it holds nothing of the kind."""
        user = subject[5:] if subject and subject.startswith("user:") else None
        firsts = sql.first_told_times(self._core.engine, subject, user,
                                      turns=subject is None or user is not None)
        found = [int(t) for t in firsts if t is not None]
        return min(found) if found else None

    def conversation(self, session: str, around: int | None = None,
                     radius: int = 4) -> list[TurnRecord]:
        """The raw turns of a session in order; with ``around``, only the turns
        within ``radius`` of that turn number (the context a reviewer needs)."""
        return sql.conversation(self._core.engine, session, around, radius)

    def add(self, claims: ClaimInput | Iterable[ClaimInput], *, actor: str = "api") -> ImportSummary:
        """Run claims through the gates in one transaction (all or nothing).

        Transaction time for each claim is its source turn's time (replay),
        never earlier than what the store already recorded.
        Raises TurnMismatch or PredicateMismatch for inconsistent claims.
        """
        items = [claims] if isinstance(claims, ClaimInput) else list(claims)
        with self._core.write() as batch:
            batch.prefetch(items)
            for claim in items:
                batch.submit(claim)
            summary = batch.summary()
            batch.record_operation(actor, "claims.added", detail={"summary": summary.to_dict()},
                                   skip_if_unchanged=True)
            return summary

    def import_file(self, path: str | Path, *, actor: str = "import",
                    parallel: bool | None = None) -> ImportSummary:
        """Validate a JSONL file of facts and import it in one transaction.

        Inside ``store.bulk()``, large files (``parallel``: None decides by file
        size) are parsed in a second process while this one runs the gates, and
        on a SQLite file a third process writes the rows and owns the
        transaction. Outside it the file is parsed and written in this process
        (``parallel=True`` still parses it in a second one). Either way a bad
        line stops the import and rolls it back, so nothing is written.
        Raises InputFileError naming the first bad line, FileNotFoundError when
        the file is missing.
        """
        name = str(path)
        size = Path(path).stat().st_size
        bulk = self._core.in_bulk
        if parallel is None:
            parallel = (bulk and parallel_parse.available()
                        and size >= parallel_parse.PARALLEL_MIN_BYTES)
        if not parallel:
            return self._import_chunks([read_claims(path)], name, actor)
        chunks_in = parallel_parse.claim_chunks(path)  # forks now, before the writer starts
        try:
            return self._import_chunks(chunks_in, name, actor,
                                       elsewhere=bulk and self._core.can_write_elsewhere())
        finally:
            chunks_in.close()

    def import_claims(self, claims: Sequence[ClaimInput], *, actor: str = "import",
                      origin: str = "api", caller: Caller | None = None) -> ImportSummary:
        """Import claims held in memory through every gate, in one
        transaction, as ``import_file`` imports a file's lines; ``origin``
        names where they came from in the audit, ``caller`` who sent them
        through the agent's door. Raises InvalidInput naming the claim at
        fault (nothing is written)."""
        try:
            return self._import_chunks([list(enumerate(claims, 1))], origin, actor, caller=caller)
        except InputFileError as exc:
            raise InvalidInput(f"claim {exc.line}: {exc.detail}") from None

    def _import_chunks(self, numbered_chunks: Iterable[list[tuple[int, ClaimInput]]]
                       | Iterable[list[tuple[int, ParsedClaim]]],
                       path: str, actor: str, elsewhere: bool = False,
                       caller: Caller | None = None) -> ImportSummary:
        with self._core.write_elsewhere() if elsewhere else self._core.write() as batch:
            for numbered in numbered_chunks:
                point("import.chunk")
                batch.prefetch([c for _, c in numbered])
                for line, claim in numbered:
                    try:
                        batch.submit(claim)
                    except (TurnMismatch, PredicateMismatch) as exc:
                        raise InputFileError(line, str(exc), path) from None
            summary = batch.summary()
            detail: dict[str, Any] = {"file": path, "summary": summary.to_dict()}
            if caller is not None:
                detail["caller"] = caller.to_dict()
            batch.record_operation(actor, "import", reason=f"import of {path}", detail=detail,
                                   skip_if_unchanged=True)
        self._refresh_statistics(summary.lines - summary.unchanged)
        return summary

    def _refresh_statistics(self, added: int) -> None:
        """After a bulk write on PostgreSQL, refresh the planner's statistics.
        Until autovacuum gets to it the planner believes the tables nearly
        empty and, e.g., sorts the whole review queue instead of walking its
        index (measured: 12 ms instead of 0.1 ms for the first page of 2,000)."""
        if added < _ANALYZE_AFTER or self._core.engine.dialect.name != "postgresql":
            return
        try:
            sql.analyze(self._core.engine)
        except DBAPIError:  # only statistics: the write itself is committed
            pass

    def ingest_file(self, path: str | Path, *, extractor: Any = None, actor: str = "ingest",
                    progress: Any = None, signals: bool = True) -> IngestSummary:
        """Ingest a conversation file (one turn per line, docs/DESIGN.md §6) in one
        transaction: each turn stored raw, its claims extracted (by default
        with the offline rule extractor) and gated. Rerunning a file adds nothing.

        ``progress(done, total)`` is called as turns are processed. The
        extractor's claims pass the signal layer (``core.signals``) unless
        ``signals`` is false.
        Returns the import summary plus turns, turns_with_facts and dropped.
        Raises InputFileError naming the first bad line (nothing is written).
        """
        from ..ingest import ingest_turns, iter_turns

        extractor = self._extractor(extractor, signals)
        numbered = list(iter_turns(path))
        self._core.bounds.check_turns([t for _, t in numbered], lines=[n for n, _ in numbered], path=str(path))
        extracted, extractor = self._extract(numbered, extractor)
        with self._core.write() as batch:
            batch.route_memories = True
            counts = ingest_turns(batch, extracted, extractor, str(path), progress)
            summary = _ingest_summary(batch.summary(), counts, extractor)
            batch.record_operation(actor, "ingest", reason=f"ingest of {path}",
                                   detail={"file": str(path), "summary": summary.to_dict()},
                                   skip_if_unchanged=True)
            return summary

    def ingest_turns(self, turns: Sequence[Any], *, extractor: Any = None,
                     actor: str = "ingest", origin: str = "api",
                     caller: Caller | None = None, signals: bool = True) -> IngestSummary:
        """Ingest conversation turns held in memory (``pipeline.Turn``s) exactly
        as ``ingest_file`` ingests a file's lines, in one transaction: stored
        raw, claims extracted and gated; a turn already stored with the same
        text adds nothing. ``origin`` names where they came from in the audit,
        ``caller`` who sent them through the agent's door.

        Raises InvalidInput for a turn that breaks the rules of a conversation
        line or contradicts a stored one (same session and number, other
        text): nothing is written.
        """
        from ..ingest import checked_turn, ingest_turns

        extractor = self._extractor(extractor, signals)
        numbered = []
        for position, turn in enumerate(turns, 1):
            try:
                numbered.append((position, checked_turn(turn)))
            except InvalidInput as exc:
                raise InvalidInput(f"turn {position}: {exc}") from None
        self._core.bounds.check_turns([t for _, t in numbered])
        extracted, extractor = self._extract(numbered, extractor)
        try:
            with self._core.write() as batch:
                batch.route_memories = True
                counts = ingest_turns(batch, extracted, extractor, origin)
                summary = _ingest_summary(batch.summary(), counts, extractor)
                detail: dict[str, Any] = {"origin": origin, "summary": summary.to_dict()}
                if caller is not None:
                    detail["caller"] = caller.to_dict()
                batch.record_operation(actor, "ingest", reason=f"ingest from {origin}",
                                       detail=detail, skip_if_unchanged=True)
                return summary
        except InputFileError as exc:  # the "line" is the turn's position in the call
            raise InvalidInput(f"turn {exc.line}: {exc.detail}") from None

    def _extract(self, numbered: Sequence[tuple[int, Turn]], extractor: Any) -> tuple[Extracted, Any]:
        """Extraction, before the write transaction opens (``core.ingest.extract_turns``): the turns'
        context (and, for the signal layer, the people their users named) read through a plain
        connection, given back, then every turn run through the extractor with no transaction open;
        the write lock is then held only to write. Returns what was extracted and the extractor that
        did it (to read a turn again under the lock). Raises StoreError when the store cannot be read."""
        from ..ingest import SignalledExtractor, extract_turns, known_people, stored_context

        try:
            with self._core.engine.connect() as conn:
                context = stored_context(conn, [turn for _, turn in numbered])
                if isinstance(extractor, SignalledExtractor):  # the people users named before, as stored
                    extractor = dataclasses.replace(extractor, people=known_people(conn, [t.user for _, t in numbered]))
        except DBAPIError as exc:
            raise StoreError(f"the store could not be read: {exc.orig}; nothing was saved") from None
        return extract_turns(numbered, extractor, context), extractor

    def _extractor(self, extractor: Any, signals: bool) -> Any:
        """The extractor an ingest runs: the given one (default: the rules),
        behind the signal layer unless ``signals`` is false. The layer's model
        is loaded once per store."""
        from ..ingest import RuleExtractor, SignalledExtractor
        from ..signals.layer import SignalLayer

        extractor = extractor or RuleExtractor()
        if not signals:
            return extractor
        if self._core.signal_layer is None:
            self._core.signal_layer = SignalLayer(
                single_valued=frozenset(p.id for p in self._core.catalog if p.single_valued),
                team=frozenset(p.id for p in self._core.catalog if p.team))
        return SignalledExtractor(extractor, self._core.signal_layer)

    def retract(self, fact_id: int, *, by: str, reason: str) -> Fact:
        """Withdraw a current-belief row (it was never true and has no replacement).

        Raises FactNotFound, FactRetired if it is no longer current, InvalidInput
        for a malformed id, without a reason or the reviewer's name.
        """
        fact_id = check_id(fact_id, "fact id")
        by = check_name(by, "by (the reviewer's name)")
        reason = check_required_text(reason, "reason (why the fact is retracted)")
        with self._core.write() as batch:
            fact = sql.fact_to_retire(batch.conn, fact_id)
            if fact is None:
                raise FactNotFound(f"no fact with id {fact_id}")
            if fact.retired_at is not None:
                raise FactRetired(f"fact {fact_id} was already retired ({fact.retire_reason})")
            batch.retire(fact, "retracted", None, note=reason)
            batch.record_operation(by, "fact.retracted", subject=fact.subject,
                                   predicate=fact.predicate, reason=reason)
        return self.get(fact_id)
