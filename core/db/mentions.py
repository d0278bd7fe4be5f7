"""The reads behind ``core.mentions``: the names a person's ``name`` claims
give, and the rows whose text columns may name them, narrowed by the
database with ``ILIKE`` patterns (``Names.likes``; a superset that
``core.mentions`` checks row by row). Errors are the driver's.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, or_, select

from .tables import AUDIT, CLAIM, FACT, MEMORY, TURN


def _narrow(columns: Iterable[Any], likes: list[str]) -> Any:
    return or_(*(c.ilike(p, escape="\\") for c in columns for p in likes))


def claimed_objects(conn: Connection, subject: str, predicate: str) -> list[Any]:
    """The distinct objects of ``subject``'s claims of ``predicate``, in any state."""
    return [o for (o,) in conn.execute(
        select(CLAIM.c.object).where(CLAIM.c.subject == subject,
                                     CLAIM.c.predicate == predicate).distinct())]


def turns_like(conn: Connection, likes: list[str]) -> list[tuple[int, str | None, str, str]]:
    """(id, user, session, text) of the turns whose text matches a pattern, by id."""
    stmt = select(TURN.c.id, TURN.c.user, TURN.c.session, TURN.c.text).where(
        _narrow([TURN.c.text], likes)).order_by(TURN.c.id)
    return [(tid, user, session, text) for tid, user, session, text in conn.execute(stmt)]


def memories_like(conn: Connection, likes: list[str]) -> list[tuple[int, str, str]]:
    """(id, subject, text) of the memories whose text matches a pattern, by id."""
    stmt = select(MEMORY.c.id, MEMORY.c.subject, MEMORY.c.text).where(
        _narrow([MEMORY.c.text], likes)).order_by(MEMORY.c.id)
    return [(mid, subject, text) for mid, subject, text in conn.execute(stmt)]


def claims_like(conn: Connection, likes: list[str]
                ) -> list[tuple[int, str, str, str | None, str | None]]:
    """(id, subject, predicate, object, value) of the claims whose object or
    value matches a pattern, by id."""
    stmt = select(CLAIM.c.id, CLAIM.c.subject, CLAIM.c.predicate, CLAIM.c.object,
                  CLAIM.c.value).where(_narrow([CLAIM.c.object, CLAIM.c.value], likes)
                                       ).order_by(CLAIM.c.id)
    return [(cid, subject, predicate, obj, value)
            for cid, subject, predicate, obj, value in conn.execute(stmt)]


def claims_of(conn: Connection, subject: str) -> list[tuple[int, str, str]]:
    """(id, predicate, object) of every claim about ``subject``, by id."""
    rows = conn.execute(select(CLAIM.c.id, CLAIM.c.predicate, CLAIM.c.object)
                        .where(CLAIM.c.subject == subject).order_by(CLAIM.c.id))
    return [(cid, predicate, obj) for cid, predicate, obj in rows]


def fact_ids_of_claim(conn: Connection, claim_id: int) -> list[int]:
    """The ids of the fact rows of claim ``claim_id``, in order."""
    return [int(i) for (i,) in conn.execute(
        select(FACT.c.id).where(FACT.c.claim_id == claim_id).order_by(FACT.c.id))]


def entries_like(conn: Connection, likes: list[str]
                 ) -> list[tuple[int, str, str | None, str | None, str | None]]:
    """(id, action, subject, reason, detail) of the audit entries whose
    subject, reason or detail matches a pattern, by id."""
    stmt = select(AUDIT.c.id, AUDIT.c.action, AUDIT.c.subject, AUDIT.c.reason,
                  AUDIT.c.detail).where(_narrow([AUDIT.c.subject, AUDIT.c.reason,
                                                 AUDIT.c.detail], likes)).order_by(AUDIT.c.id)
    return [(aid, action, subject, reason, detail)
            for aid, action, subject, reason, detail in conn.execute(stmt)]


__all__ = ["claimed_objects", "claims_like", "claims_of", "entries_like", "fact_ids_of_claim",
           "memories_like", "turns_like"]
