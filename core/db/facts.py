"""The statements of ``store.facts`` (``core/facets/facts.py``): the rows that
hold at a moment on both time axes (``AsOf``, compiled once per store), a
subject's current and recorded rows, the subjects, memories, source turns,
mention counts, predicates seen, the earliest told time and a session's
turns; a fact read under the write lock (for a retraction) and the planner
statistics refreshed after a large import.

Every function opens its own connection unless it is handed one, and
returns plain values or the engine's records. Errors are those of the driver
(``memdesk.db.errors``).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Engine, bindparam, func, or_, select, text

from ..records import Fact, Source, TurnRecord
from .axes import KNOWN_FROM, recorded_by, told_by
from .engine import PreparedQuery
from .reads import select_facts, starts_with
from .tables import CLAIM, FACT, MEMORY, PRED, TURN
from .writes import chunks


class AsOf:
    """The rows of a subject (and predicate) that hold at a valid time as
    the store had been told by a known time, optionally among what it had
    written by a recorded time: four statements compiled once for the
    engine's dialect, run on a raw DBAPI connection."""

    def __init__(self, engine: Engine) -> None:
        cols = list(FACT.c)
        valid = [
            FACT.c.subject == bindparam("subject"),
            FACT.c.valid_from <= bindparam("valid_at"),
            or_(FACT.c.valid_to.is_(None), FACT.c.valid_to > bindparam("valid_at")),
        ]
        base = [*valid, *told_by(bindparam("known_at"))]
        order = (FACT.c.predicate, FACT.c.valid_from, FACT.c.id)
        by_p = FACT.c.predicate == bindparam("predicate")
        self._q_asof_p = PreparedQuery(select(*cols).where(*base, by_p).order_by(*order), engine)
        self._q_asof = PreparedQuery(select(*cols).where(*base).order_by(*order), engine)
        # the same, as this store had written by ``recorded_at`` (both axes)
        both = [*valid, *recorded_by(bindparam("recorded_at"), bindparam("known_at"))]
        self._q_asof_rp = PreparedQuery(select(*cols).where(*both, by_p).order_by(*order), engine)
        self._q_asof_r = PreparedQuery(select(*cols).where(*both).order_by(*order), engine)

    def facts(self, raw: Any, subject: str, predicate: str | None, *, valid_at: int,
              known_at: int, recorded_at: int | None) -> list[Fact]:
        """The rows, by predicate, valid time and id, read on the DBAPI
        connection ``raw``; ``predicate`` and ``recorded_at`` None: any."""
        if recorded_at is not None:
            if predicate is None:
                rows = self._q_asof_r.run(raw, subject=subject, valid_at=valid_at,
                                          known_at=known_at, recorded_at=recorded_at)
            else:
                rows = self._q_asof_rp.run(raw, subject=subject, predicate=predicate,
                                           valid_at=valid_at, known_at=known_at,
                                           recorded_at=recorded_at)
        elif predicate is None:
            rows = self._q_asof.run(raw, subject=subject, valid_at=valid_at, known_at=known_at)
        else:
            rows = self._q_asof_p.run(raw, subject=subject, predicate=predicate,
                                      valid_at=valid_at, known_at=known_at)
        return [Fact(*r) for r in rows]


def current_facts(engine: Engine, subject: str, predicate: str | None) -> list[Fact]:
    """The subject's rows not retired (of ``predicate``, unless None)."""
    where = [FACT.c.subject == subject, FACT.c.retired_at.is_(None)]
    if predicate is not None:
        where.append(FACT.c.predicate == predicate)
    return select_facts(engine, *where)


def fact_history(engine: Engine, subject: str, predicate: str | None) -> list[Fact]:
    """Every row of the subject (of ``predicate``, unless None), retired ones too."""
    where = [FACT.c.subject == subject]
    if predicate is not None:
        where.append(FACT.c.predicate == predicate)
    return select_facts(engine, *where)


def fact_with_id(engine: Engine, fact_id: int) -> Fact | None:
    """One row by id, or None."""
    rows = select_facts(engine, FACT.c.id == fact_id)
    return rows[0] if rows else None


def fact_to_retire(conn: Connection, fact_id: int) -> Fact | None:
    """One row by id, read on ``conn`` (the write transaction), or None."""
    row = conn.execute(select(*FACT.c).where(FACT.c.id == fact_id)).first()
    return None if row is None else Fact(*row)  # columns in FACT_COLUMNS order


def subjects(engine: Engine, prefix: str, limit: int) -> list[str]:
    """Distinct subjects of the fact rows, sorted, starting with ``prefix`` (if any)."""
    stmt = select(FACT.c.subject).distinct().order_by(FACT.c.subject).limit(limit)
    if prefix:
        stmt = stmt.where(starts_with(FACT.c.subject, prefix))
    with engine.connect() as conn:
        return [r[0] for r in conn.execute(stmt)]


def memories(engine: Engine, subject: str | None, under: str | None, include_archived: bool,
             limit: int, offset: int) -> list[dict[str, Any]]:
    """Memory rows, newest first, with their turn's session and number: the
    keys of ``MemoryRecord``, times in µs. ``subject``: only its memories;
    with ``under`` also those of the subjects starting with it."""
    stmt = (select(MEMORY.c.id, MEMORY.c.subject, MEMORY.c.predicate, MEMORY.c.text,
                   MEMORY.c.mentions, MEMORY.c.claim_id, MEMORY.c.created_at,
                   TURN.c.session, TURN.c.turn, MEMORY.c.archived_at,
                   MEMORY.c.archive_reason, MEMORY.c.merged_into)
            .join(TURN, TURN.c.id == MEMORY.c.turn_id)
            .order_by(MEMORY.c.created_at.desc(), MEMORY.c.id.desc())
            .limit(limit).offset(offset))
    if subject is not None and under is not None:
        stmt = stmt.where(or_(MEMORY.c.subject == subject, starts_with(MEMORY.c.subject, under)))
    elif subject is not None:
        stmt = stmt.where(MEMORY.c.subject == subject)
    if not include_archived:
        stmt = stmt.where(MEMORY.c.archived_at.is_(None))
    with engine.connect() as conn:
        return [dict(r._mapping) for r in conn.execute(stmt)]


def sources(engine: Engine, claim_ids: list[int]) -> dict[int, Source]:
    """The source turn of each claim id (sorted, distinct), 500 claims a query."""
    out: dict[int, Source] = {}
    if not claim_ids:
        return out
    with engine.connect() as conn:
        for part in chunks(claim_ids):
            stmt = select(
                TURN.c.session, TURN.c.turn, TURN.c.speaker, TURN.c.text, TURN.c.time,
                TURN.c.time_tz, CLAIM.c.source_kind, CLAIM.c.id, CLAIM.c.confidence,
                CLAIM.c.extractor,
            ).join(TURN, TURN.c.id == CLAIM.c.turn_id).where(CLAIM.c.id.in_(part))
            for row in conn.execute(stmt):
                out[row[7]] = Source(*row)  # a frozen dataclass of these columns
    return out


def merged_counts(engine: Engine, claim_ids: list[int]) -> list[tuple[int, int]]:
    """(lineage, how many claims were merged into it) for the lineages of
    ``claim_ids`` (sorted, distinct) that have any, 500 lineages a query."""
    out: list[tuple[int, int]] = []
    with engine.connect() as conn:
        for part in chunks(claim_ids):
            stmt = select(CLAIM.c.merged_into, func.count()).where(
                CLAIM.c.merged_into.in_(part)).group_by(CLAIM.c.merged_into)
            out.extend((claim_id, n) for claim_id, n in conn.execute(stmt))
    return out


def predicates_seen(engine: Engine) -> list[tuple[str, bool, int]]:
    """Every predicate the store has seen: (name, single-valued flag as
    stored, first seen at), by name."""
    with engine.connect() as conn:
        return [(name, single, seen) for name, single, seen in conn.execute(
            select(PRED.c.predicate, PRED.c.single_valued, PRED.c.first_seen_at)
            .order_by(PRED.c.predicate))]


def first_told_times(engine: Engine, subject: str | None, user: str | None,
                     turns: bool) -> list[Any]:
    """The earliest told time of the fact rows and of the memories (of
    ``subject``, if given) and, with ``turns``, of the turns (of ``user``,
    if given), in that order; None where there is none."""
    firsts = []
    with engine.connect() as conn:
        for table, column in ((FACT, KNOWN_FROM), (MEMORY, MEMORY.c.created_at)):
            stmt = select(func.min(column))
            if subject is not None:
                stmt = stmt.where(table.c.subject == subject)
            firsts.append(conn.execute(stmt).scalar())
        if turns:
            stmt = select(func.min(TURN.c.time))
            if user is not None:
                stmt = stmt.where(TURN.c.user == user)
            firsts.append(conn.execute(stmt).scalar())
    return firsts


def conversation(engine: Engine, session: str, around: int | None,
                 radius: int) -> list[TurnRecord]:
    """The turns of a session in order; with ``around``, those within ``radius`` of it."""
    stmt = select(TURN.c.id, TURN.c.session, TURN.c.turn, TURN.c.speaker, TURN.c.text,
                  TURN.c.time, TURN.c.time_tz, TURN.c.user, TURN.c.project
                  ).where(TURN.c.session == session).order_by(TURN.c.turn)
    if around is not None:
        stmt = stmt.where(TURN.c.turn >= around - radius, TURN.c.turn <= around + radius)
    with engine.connect() as conn:
        return [TurnRecord(*r) for r in conn.execute(stmt)]


def analyze(engine: Engine) -> None:
    """Refresh PostgreSQL's planner statistics of the tables an import fills."""
    with engine.connect() as conn:
        conn.execute(text("ANALYZE claim, fact, turn, memory"))
        conn.commit()

