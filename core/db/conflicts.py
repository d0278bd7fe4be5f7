"""The statements of ``store.conflicts`` (``core/facets/conflicts.py``):
conflict rows (a page, a count, one), what a preview reads (the conflict,
its claim and the time its turn was said), and, in the write transaction,
closing an open conflict and writing what its resolution did to the claim.

Reads open their own connection; the writes run on the transaction's
connection they are handed. Rows come back as dicts by column name. Errors
are those of the driver (``memdesk.db.errors``).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Engine, func, select, update

from .reads import claim_row, row_by_id
from .tables import CLAIM, CONFLICT, TURN


def conflict_rows(engine: Engine, state: str, *, limit: int | None,
                  offset: int) -> list[dict[str, Any]]:
    """Conflicts in ``state`` ("all": any), oldest first, ``limit`` of them
    (None: all) from ``offset`` on."""
    stmt = select(*CONFLICT.c).order_by(CONFLICT.c.id).offset(offset).limit(limit)
    if state != "all":
        stmt = stmt.where(CONFLICT.c.state == state)
    with engine.connect() as conn:
        return [dict(r._mapping) for r in conn.execute(stmt)]


def count_conflicts(engine: Engine, state: str) -> int:
    """How many conflicts are in ``state``."""
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(CONFLICT).where(
            CONFLICT.c.state == state)).scalar_one()


def conflict_row(engine: Engine, conflict_id: int) -> dict[str, Any] | None:
    """One conflict, or None."""
    with engine.connect() as conn:
        return row_by_id(conn, "conflict", conflict_id)


def preview_rows(engine: Engine, conflict_id: int) -> tuple[dict[str, Any] | None,
                                                             dict[str, Any] | None, Any]:
    """What previewing a conflict reads, on one connection: the conflict,
    then (only if it is open) its claim, then (only if that exists) the time
    its turn was said. Each None when not read or not found."""
    with engine.connect() as conn:
        row = row_by_id(conn, "conflict", conflict_id)
        if row is None or row["state"] != "open":
            return row, None, None
        claim = claim_row(conn, row["claim_id"])
        if claim is None:
            return row, None, None
        told = conn.execute(select(TURN.c.time).where(TURN.c.id == claim["turn_id"])).scalar()
    return row, claim, told


def close_conflict(conn: Connection, conflict_id: int, *, tx: int, by: str, keep: str,
                   reason: str | None) -> tuple[bool, dict[str, Any] | None]:
    """Mark the conflict resolved if it is still open, then read it back (on
    ``conn``, the write transaction): whether this call closed it, and the
    conflict's row (None when there is no such conflict)."""
    done = conn.execute(
        update(CONFLICT).where(CONFLICT.c.id == conflict_id, CONFLICT.c.state == "open")
        .values(state="resolved", resolved_at=tx, resolved_by=by,
                resolution=keep, reason=reason))
    return done.rowcount == 1, row_by_id(conn, "conflict", conflict_id)


def record_resolution(conn: Connection, claim_id: int, *, state: str, fact_id: int | None,
                      merged_into: int | None, by: str, tx: int, reason: str,
                      scope: str | None, gates: str) -> None:
    """Write what a resolution did to the conflict's claim (on ``conn``):
    its state, fact, lineage, decision and gate steps, and its scope unless
    ``scope`` is None (the stored one stays)."""
    conn.execute(update(CLAIM).where(CLAIM.c.id == claim_id).values(
        state=state, fact_id=fact_id, merged_into=merged_into,
        decided_by=by, decided_at=tx, decision_reason=reason,
        scope=CLAIM.c.scope if scope is None else scope,
        gates=gates))
