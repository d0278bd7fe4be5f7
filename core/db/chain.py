"""The audit chain's reads (``core.chain``): the tables whose rows the chain
hashes, by the names the chain gives them (``TABLES``), their columns, and
the reads ``verify`` and the erasure's recomputation make: the audit
entries, the head recorded in ``store_meta``, rows by id range or by ids,
``predicate_use`` rows, and the ids a check of uncovered rows walks.

What is hashed, and how, is ``core.chain``'s: these functions take the
column names to read and return plain tuples in that order. Errors are the
driver's.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from sqlalchemy import Connection, inspect, select

from .tables import AUDIT, CLAIM, CONFLICT, FACT, MEMORY, META, PRED, TURN

TABLES = {"turn": TURN, "claim": CLAIM, "fact": FACT, "conflict": CONFLICT, "memory": MEMORY,
          "predicate": PRED}
"""The tables the chain hashes rows of, by the chain's names for them."""


def column_names(name: str) -> tuple[str, ...]:
    """Every column of hashed table ``name``, in the schema's order."""
    return tuple(c.name for c in TABLES[name].columns)


def column_types(name: str) -> dict[str, type]:
    """The Python type of each column of hashed table ``name``, by column name."""
    return {c.name: c.type.python_type for c in TABLES[name].columns}


def stored_columns(conn: Connection, name: str) -> set[str]:
    """The columns hashed table ``name`` has in the database (a store read
    during a migration may lack the ones later revisions add)."""
    return {c["name"] for c in inspect(conn).get_columns(TABLES[name].name)}


def rows_between(conn: Connection, name: str, columns: tuple[str, ...], lo: int, hi: int,
                 window: int) -> Iterator[tuple]:
    """The ``columns`` of the rows of ``name`` with ids in [lo, hi], in id
    order, read ``window`` ids at a time (lazily)."""
    table = TABLES[name]
    cols = [table.c[c] for c in columns]
    for start in range(lo, hi + 1, window):
        stop = min(hi, start + window - 1)
        stmt = select(*cols).where(table.c.id >= start, table.c.id <= stop).order_by(table.c.id)
        for r in conn.execute(stmt):
            yield tuple(r)


def rows_by_ids(conn: Connection, name: str, ids: Iterable[int], columns: tuple[str, ...]
                ) -> dict[int, tuple]:
    """The ``columns`` of the rows of ``name`` with these ids, by id (without
    the id); 500 ids a query."""
    table = TABLES[name]
    out: dict[int, tuple] = {}
    wanted = sorted(set(ids))
    for i in range(0, len(wanted), 500):
        part = wanted[i:i + 500]
        stmt = select(table.c.id, *[table.c[c] for c in columns]).where(table.c.id.in_(part))
        for r in conn.execute(stmt):
            out[r[0]] = tuple(r[1:])
    return out


def predicate_rows(conn: Connection, names: list[str], columns: tuple[str, ...]
                   ) -> dict[str, tuple]:
    """The ``columns`` (the predicate's name first) of the ``predicate_use``
    rows of ``names``, by name; 500 names a query."""
    table = TABLES["predicate"]
    out: dict[str, tuple] = {}
    for i in range(0, len(names), 500):
        stmt = select(*[table.c[c] for c in columns]).where(
            table.c.predicate.in_(names[i:i + 500]))
        for r in conn.execute(stmt):
            out[r[0]] = tuple(r)
    return out


def audit_entries(conn: Connection, columns: tuple[str, ...]) -> list[dict[str, Any]]:
    """Every audit entry as a dict of ``columns``, by id."""
    cols = [AUDIT.c[c] for c in columns]
    return [dict(r._mapping) for r in conn.execute(select(*cols).order_by(AUDIT.c.id))]


def chain_head(conn: Connection) -> tuple[str | None, int | None] | None:
    """(hash, id) of the last audit entry as ``store_meta`` records them;
    None without a ``store_meta`` row."""
    row = conn.execute(select(META.c.audit_head, META.c.audit_last).where(META.c.id == 1)).first()
    return None if row is None else (row[0], row[1])


def ids_of(conn: Connection, name: str) -> Iterator[int]:
    """The id of every row of hashed table ``name``, in id order (lazily)."""
    table = TABLES[name]
    for (i,) in conn.execute(select(table.c.id).order_by(table.c.id)):
        yield i


def retired_fact_ids(conn: Connection) -> Iterator[int]:
    """The id of every fact row with a retirement stamp (lazily, in no set order)."""
    fact = TABLES["fact"]
    for (i,) in conn.execute(select(fact.c.id).where(fact.c.retired_at.is_not(None))):
        yield i


def predicate_names(conn: Connection) -> Iterator[str]:
    """The name of every ``predicate_use`` row (lazily, in no set order)."""
    pred = TABLES["predicate"]
    for (n,) in conn.execute(select(pred.c.predicate)):
        yield n


__all__ = ["TABLES", "audit_entries", "chain_head", "column_names", "column_types", "ids_of",
           "predicate_names", "predicate_rows", "retired_fact_ids", "rows_between", "rows_by_ids",
           "stored_columns"]
