"""The statements of export and restore (``core.export``), written generically
from the SQLModel table metadata: the tables in dependency order, described
as plain records (``TableSpec``: columns, what kind of value each holds,
which a restored row must give, the primary key), their row counts, their
rows in key order, and the inserts, the clearing of the new store's own
meta row and the moving of PostgreSQL id sequences a restore makes. The
file format is ``core.export``'s. Errors are the driver's.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    Float,
    Integer,
    LargeBinary,
    String,
    Table,
    TypeDecorator,
    func,
    select,
    text,
)
from sqlmodel import SQLModel

from .tables import SCHEMA_VERSION
from .writes import CHUNK

KINDS = ("bool", "int", "float", "bytes", "str")
"""The kinds of column value a restore can check (``ColumnSpec.kind``)."""


@dataclass(frozen=True, slots=True)
class ColumnSpec:
    """One column: its ``name``; ``kind``, one of KINDS, or None for a type
    a restore cannot check (``sql_type`` names it); ``nullable``: may be
    null in a restored row (a key column never is); ``required``: a restored
    row must give it (not nullable or a key, and no default)."""

    name: str
    kind: str | None
    sql_type: str
    nullable: bool
    required: bool


@dataclass(frozen=True, slots=True)
class TableSpec:
    """One table: its ``name``, its ``columns`` in the schema's order and the
    names of its primary key's columns (``key``)."""

    name: str
    columns: tuple[ColumnSpec, ...]
    key: tuple[str, ...]


def _kind(column: Column[Any]) -> tuple[str | None, str]:
    typ = column.type
    if isinstance(typ, TypeDecorator):  # e.g. SQLModel's AutoString
        typ = typ.impl_instance
    if isinstance(typ, Boolean):
        return "bool", ""
    if isinstance(typ, Integer):
        return "int", ""
    if isinstance(typ, Float):
        return "float", ""
    if isinstance(typ, LargeBinary):
        return "bytes", ""
    if isinstance(typ, String):  # Text is a String
        return "str", ""
    return None, str(typ)


def _spec(table: Table) -> TableSpec:
    columns = []
    for c in table.c:
        kind, sql_type = _kind(c)
        columns.append(ColumnSpec(
            c.name, kind, sql_type, nullable=bool(c.nullable) and not c.primary_key,
            required=(not c.nullable or c.primary_key) and c.default is None
            and c.server_default is None))
    return TableSpec(table.name, tuple(columns), tuple(c.name for c in table.primary_key.columns))


def tables() -> list[TableSpec]:
    """Every table of the schema, in dependency order (the metadata's
    ``sorted_tables``): the order an export writes and a restore loads them."""
    return [_spec(t) for t in SQLModel.metadata.sorted_tables]


def _table(name: str) -> Table:
    return SQLModel.metadata.tables[name]


def _int_key(table: Table) -> bool:
    return all(isinstance(c.type, Integer) for c in table.primary_key.columns)


def count_rows(conn: Connection, name: str) -> int:
    """How many rows table ``name`` holds."""
    return conn.execute(select(func.count()).select_from(_table(name))).scalar_one()


def rows(conn: Connection, name: str) -> Iterator[tuple]:
    """Every row of table ``name`` (columns in the schema's order), by
    primary key: streamed, CHUNK rows a fetch, for whole-number keys; for
    text keys read whole and sorted here, so the order does not depend on
    the server's collation."""
    table = _table(name)
    key = list(table.primary_key.columns)
    if _int_key(table):  # stream in key order
        result = conn.execution_options(stream_results=True, yield_per=CHUNK).execute(
            select(*table.c).order_by(*key))
        yield from result
        return
    # text keys: sort here, so the order does not depend on the server's collation
    found = list(conn.execute(select(*table.c)))
    positions = [list(table.c).index(c) for c in key]
    found.sort(key=lambda r: tuple(r[i] for i in positions))
    yield from found


def insert_rows(conn: Connection, name: str, values: list[dict]) -> None:
    """Insert ``values`` (rows as dicts with the same keys) into table ``name``."""
    conn.execute(_table(name).insert(), values)


def delete_all(conn: Connection, name: str) -> None:
    """Delete every row of table ``name``."""
    conn.execute(_table(name).delete())


def reset_sequences(conn: Connection, names: list[str]) -> None:
    """On PostgreSQL, move the id sequence of each table ``names`` with a
    single whole-number key past its ids (after inserting explicit ones);
    elsewhere nothing."""
    if conn.dialect.name != "postgresql":
        return
    for name in names:
        table = _table(name)
        keys = list(table.primary_key.columns)
        if len(keys) != 1 or not isinstance(keys[0].type, Integer):
            continue
        col = keys[0].name
        conn.execute(text(
            f'SELECT setval(pg_get_serial_sequence(:t, :c), coalesce(max("{col}"), 1), '
            f'max("{col}") IS NOT NULL) FROM "{table.name}"'), {"t": table.name, "c": col})


__all__ = ["KINDS", "SCHEMA_VERSION", "ColumnSpec", "TableSpec", "count_rows", "delete_all",
           "insert_rows", "reset_sequences", "rows", "tables"]
