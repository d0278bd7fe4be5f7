"""The statements of scheduled maintenance (``core.maintain_store``): the
rows its planning reads (memories with their lineage and turn text, the
claims and fact rows of the routed predicates, the facts whose TTL ran out,
the open conflicts) and the memory updates a plan carries out, run as DBAPI
``executemany`` batches. What to merge, archive, restore or expire is
``core.maintain``'s. Errors are the driver's, unless a docstring says otherwise.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, bindparam, func, null, select, update

from ..errors import StoreError
from .axes import KNOWN_UNTIL
from .tables import CLAIM, CONFLICT, FACT, MEMORY, TURN
from .writes import chunks, execute_many

CHANGED = "a memory changed during maintenance; nothing was saved"


def _lineage() -> Any:
    """A claim's lineage: the claim it was merged into, or itself."""
    return func.coalesce(CLAIM.c.merged_into, CLAIM.c.id)


def memory_rows(conn: Connection, subject: str | None = None) -> list[Any]:
    """Every memory (of ``subject`` when given), by id: id, subject, text,
    mentions, created_at, archived_at, archive_reason, merged_into, its
    claim's lineage and its turn's text (``core.maintain.StoredMemory``)."""
    mem = (select(MEMORY.c.id, MEMORY.c.subject, MEMORY.c.text, MEMORY.c.mentions,
                  MEMORY.c.created_at, MEMORY.c.archived_at, MEMORY.c.archive_reason,
                  MEMORY.c.merged_into, _lineage(), TURN.c.text)
           .join(CLAIM, CLAIM.c.id == MEMORY.c.claim_id)
           .join(TURN, TURN.c.id == MEMORY.c.turn_id).order_by(MEMORY.c.id))
    if subject is not None:
        mem = mem.where(MEMORY.c.subject == subject)
    return list(conn.execute(mem).all())


def memory_predicates(conn: Connection) -> list[str]:
    """The predicates memories are stored for (in no set order)."""
    return [p for (p,) in conn.execute(
        select(MEMORY.c.predicate).distinct().where(MEMORY.c.predicate.is_not(None)))]


def claim_links(conn: Connection, predicates: list[str], subject: str | None = None
                ) -> list[Any]:
    """subject, lineage, created_at, turn text and turn time of every
    asserted or merged claim of ``predicates`` (of ``subject`` when given)
    (``core.maintain.ClaimLink``)."""
    claims = (select(CLAIM.c.subject, _lineage(), CLAIM.c.created_at, TURN.c.text, TURN.c.time)
              .join(TURN, TURN.c.id == CLAIM.c.turn_id)
              .where(CLAIM.c.state.in_(("asserted", "merged")),
                     CLAIM.c.predicate.in_(predicates)))
    if subject is not None:
        claims = claims.where(CLAIM.c.subject == subject)
    return list(conn.execute(claims).all())


def lineage_facts(conn: Connection, predicates: list[str], subject: str | None = None
                  ) -> list[Any]:
    """claim_id, id, when the row stopped being believed on the told axis
    (``retired_at``), retire_reason, valid_to and expires_at of every fact
    row of ``predicates`` (of ``subject`` when given) (``core.maintain.LineageFact``)."""
    # when a row stopped being believed, on the told axis (a backfilled
    # conversation's old values are stale by what was said, not by when
    # the store was given it)
    facts = select(FACT.c.claim_id, FACT.c.id, KNOWN_UNTIL.label("retired_at"),
                   FACT.c.retire_reason, FACT.c.valid_to, FACT.c.expires_at
                   ).where(FACT.c.predicate.in_(predicates))
    if subject is not None:
        facts = facts.where(FACT.c.subject == subject)
    return list(conn.execute(facts).all())


def expiring_facts(conn: Connection, now: int, subject: str | None = None) -> list[Any]:
    """The current fact rows (of ``subject`` when given) whose TTL ran out by
    ``now``, whole (FACT_COLUMNS order), by id."""
    expiring = select(*FACT.c).where(
        FACT.c.retired_at.is_(None), FACT.c.expires_at.is_not(None), FACT.c.expires_at <= now)
    if subject is not None:
        expiring = expiring.where(FACT.c.subject == subject)
    return list(conn.execute(expiring.order_by(FACT.c.id)).all())


def open_conflicts(conn: Connection) -> list[tuple[int, str]]:
    """(id, fact_ids JSON) of every open conflict, by id."""
    return [(cid, fact_ids) for cid, fact_ids in conn.execute(
        select(CONFLICT.c.id, CONFLICT.c.fact_ids)
        .where(CONFLICT.c.state == "open").order_by(CONFLICT.c.id))]


_FOLD = (update(MEMORY)
         .where(MEMORY.c.id == bindparam("b_id"), MEMORY.c.archived_at.is_(None))
         .values(archived_at=bindparam("b_at"), archive_reason=bindparam("b_reason"),
                 merged_into=bindparam("b_into")))
_MENTIONS = (update(MEMORY)
             .where(MEMORY.c.id == bindparam("b_id"), MEMORY.c.mentions == bindparam("b_before"))
             .values(mentions=bindparam("b_after")))
_RESTORE = (update(MEMORY)
            .where(MEMORY.c.id == bindparam("b_id"), MEMORY.c.archived_at.is_not(None))
            .values(archived_at=null(), archive_reason=null(), merged_into=null()))


def _run(conn: Connection, key: str, statement: Any, rows: list, cache: dict,
         columns: tuple[str, ...] | None = None) -> None:
    for part in chunks(rows, 5_000):
        count = execute_many(conn, key, statement, part, cache, columns)
        if count not in (-1, len(part)):
            raise StoreError(CHANGED)


def restore_memories(conn: Connection, rows: list[tuple[int]], cache: dict) -> None:
    """Un-archive the memories ``rows`` (``(b_id,)`` each), archived as
    planned. ``cache``: the run's compiled statements. Raises StoreError
    (CHANGED) when a row was not as planned."""
    _run(conn, "restore", _RESTORE, rows, cache, ("b_id",))


def fold_memories(conn: Connection, rows: list[dict[str, Any]], cache: dict) -> None:
    """Archive the memories ``rows`` (``b_id``, ``b_at``, ``b_reason``,
    ``b_into``: the memory they were merged into, or None), not archived as
    planned. Raises StoreError (CHANGED) when a row was not as planned."""
    _run(conn, "fold", _FOLD, rows, cache)


def set_mentions(conn: Connection, rows: list[dict[str, Any]], cache: dict) -> None:
    """Set the mention count of the memories ``rows`` (``b_id``, ``b_before``,
    ``b_after``) from the count planned to the new one. Raises StoreError
    (CHANGED) when a row was not as planned."""
    _run(conn, "mentions", _MENTIONS, rows, cache)


__all__ = ["CHANGED", "claim_links", "expiring_facts", "fold_memories", "lineage_facts",
           "memory_predicates", "memory_rows", "open_conflicts", "restore_memories",
           "set_mentions"]
