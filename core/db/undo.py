"""The statements of an undo (``core.undo``): the audit entries of the
decision or resolution being undone, the rows it touched, and the updates
that put a claim and a conflict back. Run on the undo's write transaction."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, select, update

from ..records import Fact
from .tables import AUDIT, CLAIM, CONFLICT, FACT


def decision_entry(conn: Connection, claim_id: int, actions: Sequence[str]) -> dict[str, Any] | None:
    """The newest audit entry about claim ``claim_id`` alone whose action is
    one of ``actions``, as a dict of its columns; None when there is none."""
    row = conn.execute(
        select(*AUDIT.c).where(AUDIT.c.claim_from == claim_id, AUDIT.c.claim_to == claim_id,
                               AUDIT.c.action.in_(actions))
        .order_by(AUDIT.c.id.desc()).limit(1)
    ).first()
    return dict(row._mapping) if row is not None else None


def resolution_entry(conn: Connection, conflict_id: int) -> dict[str, Any] | None:
    """The newest ``conflict.resolved`` audit entry of the conflict, as a dict; None when there is none."""
    row = conn.execute(
        select(*AUDIT.c).where(AUDIT.c.conflict_id == conflict_id,
                               AUDIT.c.action == "conflict.resolved")
        .order_by(AUDIT.c.id.desc()).limit(1)
    ).first()
    return dict(row._mapping) if row is not None else None


def approval_of(conn: Connection, claim_id: int, conflict_id: int) -> tuple[str, int, str | None] | None:
    """The newest approval of claim ``claim_id`` that opened conflict
    ``conflict_id``: (actor, at, reason) of its audit entry; None when there is none."""
    row = conn.execute(
        select(AUDIT.c.actor, AUDIT.c.at, AUDIT.c.reason).where(
            AUDIT.c.claim_from == claim_id, AUDIT.c.claim_to == claim_id,
            AUDIT.c.action == "claim.approved", AUDIT.c.conflict_id == conflict_id)
        .order_by(AUDIT.c.id.desc()).limit(1)).first()
    return (row.actor, row.at, row.reason) if row is not None else None


def facts_between(conn: Connection, first: int, last: int, *, by_id: bool = False) -> list[Fact]:
    """The fact rows with ids from ``first`` to ``last`` (inclusive); ``by_id``: in id order."""
    stmt = select(*FACT.c).where(FACT.c.id >= first, FACT.c.id <= last)
    return [Fact(*r) for r in conn.execute(stmt.order_by(FACT.c.id) if by_id else stmt)]


def facts_with_ids(conn: Connection, ids: Sequence[int], *, by_id: bool = False) -> list[Fact]:
    """The fact rows whose ids are in ``ids``; ``by_id``: in id order."""
    stmt = select(*FACT.c).where(FACT.c.id.in_(ids))
    return [Fact(*r) for r in conn.execute(stmt.order_by(FACT.c.id) if by_id else stmt)]


def set_claim(conn: Connection, claim_id: int, values: dict[str, Any]) -> None:
    """Set columns of claim ``claim_id`` to ``values``."""
    conn.execute(update(CLAIM).where(CLAIM.c.id == claim_id).values(**values))


def set_conflict_if(conn: Connection, conflict_id: int, state: str, values: dict[str, Any]) -> bool:
    """Set columns of conflict ``conflict_id`` to ``values`` if it is in
    ``state``. Returns whether it was (one row changed)."""
    done = conn.execute(update(CONFLICT).where(
        CONFLICT.c.id == conflict_id, CONFLICT.c.state == state).values(**values))
    return done.rowcount == 1
