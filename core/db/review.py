"""The statements of ``store.review`` (``core/facets/review.py``): the review
queue's candidates (a page, a count, one), a candidate with its turn for
checking a reviewer's edits, and, in the write transaction, taking a pending
claim and writing what approving it did.

Reads open their own connection; the writes run on the transaction's
connection they are handed. Errors are those of the driver
(``memdesk.db.errors``).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Engine, func, or_, select, update

from ..records import Candidate
from .reads import candidate_from_row, candidate_stmt, claim_row
from .tables import CLAIM, TURN


def candidates(engine: Engine, state: str, *, subject: str | None,
               after: tuple[float, int] | None, limit: int | None,
               offset: int) -> list[Candidate]:
    """Candidates in ``state`` ("all": any), lowest confidence first, then
    by id: ``subject``'s only (if given), after the (confidence, id) key
    ``after`` (if given), ``limit`` of them (None: all) from ``offset`` on."""
    stmt = candidate_stmt().order_by(CLAIM.c.confidence, CLAIM.c.id).offset(offset)
    if subject is not None:
        stmt = stmt.where(CLAIM.c.subject == subject)
    if after is not None:
        stmt = stmt.where(or_(CLAIM.c.confidence > after[0],
                              (CLAIM.c.confidence == after[0]) & (CLAIM.c.id > after[1])))
    if state != "all":
        stmt = stmt.where(CLAIM.c.state == state)
    if limit is not None:
        stmt = stmt.limit(limit)
    with engine.connect() as conn:
        return [candidate_from_row(r) for r in conn.execute(stmt)]


def count_candidates(engine: Engine, state: str, subject: str | None) -> int:
    """How many claims are in ``state`` (``subject``'s only, if given)."""
    stmt = select(func.count()).select_from(CLAIM).where(CLAIM.c.state == state)
    if subject is not None:
        stmt = stmt.where(CLAIM.c.subject == subject)
    with engine.connect() as conn:
        return conn.execute(stmt).scalar_one()


def candidate(engine: Engine, candidate_id: int) -> Candidate | None:
    """One claim as a review candidate, or None."""
    with engine.connect() as conn:
        row = conn.execute(candidate_stmt().where(CLAIM.c.id == candidate_id)).first()
    return None if row is None else candidate_from_row(row)


def claim_with_turn(engine: Engine, candidate_id: int) -> dict[str, Any] | None:
    """Every column of one claim, by name, with its turn's ``session``,
    ``turn_no``, ``speaker``, ``text``, ``time`` and ``time_tz``; None when
    there is no such claim."""
    with engine.connect() as conn:
        found = conn.execute(select(*CLAIM.c, TURN.c.session, TURN.c.turn.label("turn_no"),
                                    TURN.c.speaker, TURN.c.text, TURN.c.time, TURN.c.time_tz)
                             .join(TURN, TURN.c.id == CLAIM.c.turn_id)
                             .where(CLAIM.c.id == candidate_id)).first()
    return None if found is None else dict(found._mapping)


def take_pending(conn: Connection, candidate_id: int,
                 values: dict[str, Any]) -> tuple[bool, dict[str, Any] | None]:
    """Set ``values`` on the claim if it is still pending, then read it back
    (on ``conn``, the write transaction): whether this call moved it, and
    the claim's row by name (None when there is no such claim)."""
    done = conn.execute(
        update(CLAIM).where(CLAIM.c.id == candidate_id, CLAIM.c.state == "pending").values(**values)
    )
    return done.rowcount == 1, claim_row(conn, candidate_id)


def record_approval(conn: Connection, candidate_id: int, *, state: str, fact_id: int | None,
                    merged_into: int | None, gates: str) -> None:
    """Write what approving the claim did: its state, the fact it asserted,
    the lineage it merged into, its gate steps (on ``conn``)."""
    conn.execute(update(CLAIM).where(CLAIM.c.id == candidate_id).values(
        state=state, fact_id=fact_id, merged_into=merged_into, gates=gates))
