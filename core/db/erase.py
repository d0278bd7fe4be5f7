"""The statements of an erasure (``core.erase``): the ids of a person's rows
and of the rows that hang on their claims, the texts it redacts, the
deletions (500 ids a statement), the audit entries it rewrites and the
store's erasure count. What to erase, redact and scrub is
``core.erase``'s. Rows are named by kind: ``turn``, ``claim``, ``fact``,
``conflict``, ``memory``. Errors are the driver's.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, delete, inspect, select, update

from .tables import AUDIT, CLAIM, CONFLICT, FACT, MEMORY, META, TURN, VECTOR
from .writes import chunks

_KINDS = {"turn": TURN, "claim": CLAIM, "fact": FACT, "conflict": CONFLICT, "memory": MEMORY}


def _ids(conn: Connection, stmt: Any) -> set[int]:
    return {int(r[0]) for r in conn.execute(stmt)}


def _in(column: Any, ids: set[int]) -> list[Any]:
    return [column.in_(part) for part in chunks(sorted(ids))]


def add_claim_rows(conn: Connection, found: dict[str, set[int]]) -> None:
    """Add to ``found`` the facts, conflicts and memories of ``found["claim"]``."""
    for table, key in ((FACT, "fact"), (CONFLICT, "conflict"), (MEMORY, "memory")):
        for cond in _in(table.c.claim_id, found["claim"]):
            found[key] |= _ids(conn, select(table.c.id).where(cond))


def person_rows(conn: Connection, subject: str, user: str) -> dict[str, set[int]]:
    """The ids, by kind, of the rows of ``subject`` (``user:USER``): the turns
    of ``user``'s conversations and the source turns of claims about them;
    the claims about them or citing those turns; the facts, conflicts and
    memories about them or of those claims; the memories of those turns."""
    turns = _ids(conn, select(TURN.c.id).where(TURN.c.user == user))
    turns |= _ids(conn, select(CLAIM.c.turn_id).where(CLAIM.c.subject == subject))
    claims = _ids(conn, select(CLAIM.c.id).where(CLAIM.c.subject == subject))
    for cond in _in(CLAIM.c.turn_id, turns):
        claims |= _ids(conn, select(CLAIM.c.id).where(cond))
    found = {"turn": turns, "claim": claims,
             "fact": _ids(conn, select(FACT.c.id).where(FACT.c.subject == subject)),
             "conflict": _ids(conn, select(CONFLICT.c.id).where(CONFLICT.c.subject == subject)),
             "memory": _ids(conn, select(MEMORY.c.id).where(MEMORY.c.subject == subject))}
    add_claim_rows(conn, found)
    for cond in _in(MEMORY.c.turn_id, turns):
        found["memory"] |= _ids(conn, select(MEMORY.c.id).where(cond))
    return found


def text_of(conn: Connection, kind: str, row_id: int) -> str | None:
    """The text of turn or memory ``row_id`` (``kind``), or None."""
    table = _KINDS[kind]
    return conn.execute(select(table.c.text).where(table.c.id == row_id)).scalar()


def set_text(conn: Connection, kind: str, row_id: int, values: dict[str, Any]) -> None:
    """Set the columns ``values`` names on turn or memory ``row_id`` (``kind``)."""
    table = _KINDS[kind]
    conn.execute(update(table).where(table.c.id == row_id).values(**values))


def memories_of_turn(conn: Connection, turn_id: int) -> list[int]:
    """The ids of the memories made of turn ``turn_id``."""
    return [int(mid) for (mid,) in conn.execute(
        select(MEMORY.c.id).where(MEMORY.c.turn_id == turn_id))]


def claim_of_fact(conn: Connection, fact_id: int) -> int:
    """The claim of fact row ``fact_id``. Raises NoResultFound (sqlalchemy)
    when there is no such row."""
    return int(conn.execute(select(FACT.c.claim_id).where(FACT.c.id == fact_id)).scalar_one())


def has_vectors(conn: Connection) -> bool:
    """Whether the store has the ``recall_vector`` table."""
    return "recall_vector" in inspect(conn).get_table_names()


def delete_vectors(conn: Connection, kind: str, ids: set[int]) -> int:
    """Delete the recall vectors of the items ``ids`` of ``kind`` (``memory``,
    ``turn``). Returns how many went."""
    done = 0
    for cond in _in(VECTOR.c.item_id, ids):
        done += conn.execute(delete(VECTOR).where(VECTOR.c.kind == kind, cond)).rowcount
    return done


def delete_rows(conn: Connection, kind: str, ids: set[int]) -> int:
    """Delete the rows ``ids`` of ``kind``. Returns how many went."""
    table = _KINDS[kind]
    done = 0
    for cond in _in(table.c.id, ids):
        done += conn.execute(delete(table).where(cond)).rowcount
    return done


def unlink_merged(conn: Connection, claim_ids: set[int]) -> None:
    """Claims merged into any of ``claim_ids`` lose the link (``merged_into``)."""
    for cond in _in(CLAIM.c.merged_into, claim_ids):
        conn.execute(update(CLAIM).where(cond).values(merged_into=None))


def rewrite_entry(conn: Connection, entry_id: int, values: dict[str, Any]) -> None:
    """Set the columns ``values`` names on audit entry ``entry_id``."""
    conn.execute(update(AUDIT).where(AUDIT.c.id == entry_id).values(**values))


def count_erasure(conn: Connection) -> None:
    """Add one to the store's erasure count (``store_meta.erasures``)."""
    conn.execute(update(META).where(META.c.id == 1).values(erasures=META.c.erasures + 1))


__all__ = ["add_claim_rows", "claim_of_fact", "count_erasure", "delete_rows", "delete_vectors",
           "has_vectors", "memories_of_turn", "person_rows", "rewrite_entry", "set_text",
           "text_of", "unlink_merged"]
