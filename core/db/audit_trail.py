"""The reads behind the audit trail of a value (``core.audit_trail``): the
claims of fact lineages and the mentions merged into them, the audit
entries and conflicts of those claims, and what maintenance did to their
memories. Each takes the connection the trail reads on and returns dicts
(by column name) or plain tuples. Errors are the driver's.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, func, or_, select

from .tables import AUDIT, CLAIM, CONFLICT, MEMORY

_AUDIT_SHOWN = tuple(c for c in AUDIT.c if c.name not in ("rows", "hash"))
# a claim's lineage: the claim it was merged into, or itself
_ROOT = func.coalesce(CLAIM.c.merged_into, CLAIM.c.id)


def lineage_claims(conn: Connection, candidates: Any, claim_ids: list[int]) -> list[dict[str, Any]]:
    """The rows of ``candidates`` (``memdesk.db.reads.candidate_stmt()``) for
    the claims ``claim_ids`` and the claims merged into them, as dicts."""
    return [dict(r._mapping) for r in conn.execute(
        candidates.where(or_(CLAIM.c.id.in_(claim_ids), CLAIM.c.merged_into.in_(claim_ids))))]


def claims_by_id(conn: Connection, candidates: Any, claim_ids: list[int]) -> list[dict[str, Any]]:
    """The rows of ``candidates`` for the claims ``claim_ids``, as dicts."""
    return [dict(r._mapping) for r in conn.execute(candidates.where(CLAIM.c.id.in_(claim_ids)))]


def entries_spanning(conn: Connection, ids: list[int]) -> list[dict[str, Any]]:
    """The audit entries (without ``rows`` and ``hash``) whose claim range
    overlaps the span of ``ids`` (not empty: raises ValueError), by id, as dicts."""
    return [dict(r._mapping) for r in conn.execute(
        select(*_AUDIT_SHOWN).where(AUDIT.c.claim_from <= max(ids),
                                    AUDIT.c.claim_to >= min(ids))
        .order_by(AUDIT.c.id))]


def conflicts_of(conn: Connection, claim_ids: list[int]) -> list[dict[str, Any]]:
    """The conflicts of the claims ``claim_ids``, as dicts."""
    return [dict(r._mapping) for r in conn.execute(
        select(*CONFLICT.c).where(CONFLICT.c.claim_id.in_(claim_ids)))]


def lineage_turns(conn: Connection, lineage: list[int]) -> set[tuple[str, int]]:
    """(subject, turn id) of every claim of the fact lineages ``lineage``."""
    told = select(CLAIM.c.subject, CLAIM.c.turn_id).where(_ROOT.in_(lineage))
    return {(r[0], int(r[1])) for r in conn.execute(told)}


def lineage_memories(conn: Connection, lineage: list[int], turn_ids: Iterable[int]
                     ) -> list[tuple]:
    """(id, archived_at, merged_into, subject, turn id, lineage) of the
    memories whose claim is of ``lineage`` or whose turn is one of ``turn_ids``."""
    return [tuple(r) for r in conn.execute(
        select(MEMORY.c.id, MEMORY.c.archived_at, MEMORY.c.merged_into,
               MEMORY.c.subject, MEMORY.c.turn_id, _ROOT)
        .join(CLAIM, CLAIM.c.id == MEMORY.c.claim_id)
        .where(or_(_ROOT.in_(lineage), MEMORY.c.turn_id.in_(sorted(turn_ids)))))]


def folded_into(conn: Connection, memory_ids: Iterable[int]) -> list[tuple]:
    """(id, archived_at, merged_into) of the memories merged into ``memory_ids``."""
    return [tuple(r) for r in conn.execute(
        select(MEMORY.c.id, MEMORY.c.archived_at, MEMORY.c.merged_into)
        .where(MEMORY.c.merged_into.in_(sorted(memory_ids))))]


def runs_of(conn: Connection, action: str, times: set[int] | None = None) -> list[tuple]:
    """(id, at, actor, detail) of the audit entries of ``action`` (maintenance
    runs), by id: with ``times``, only those that restored a memory or were
    made at one of ``times``; without, every one."""
    runs = select(AUDIT.c.id, AUDIT.c.at, AUDIT.c.actor, AUDIT.c.detail).where(
        AUDIT.c.action == action)
    if times is None:
        return [tuple(r) for r in conn.execute(runs.order_by(AUDIT.c.id))]
    wanted = [AUDIT.c.detail.like('%"restored": [{%')]
    if times:
        wanted.append(AUDIT.c.at.in_(sorted(times)))
    return [tuple(r) for r in conn.execute(runs.where(or_(*wanted)).order_by(AUDIT.c.id))]


__all__ = ["claims_by_id", "conflicts_of", "entries_spanning", "folded_into", "lineage_claims",
           "lineage_memories", "lineage_turns", "runs_of"]
