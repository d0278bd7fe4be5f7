"""The write path's statements: buffered rows run as one DBAPI
``executemany`` (compiled once per dialect and column set), the store's write
lock with the transaction time, next ids and audit head it reads, and what the
mentions merged into a lineage said. ``core.writer`` (the write transaction)
and its writer process use these; nothing here decides anything.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Iterable, Iterator
from operator import itemgetter
from typing import Any

from sqlalchemy import Connection, func, select, update

from ..bitemporal import Said, said_by
from ..chain import GENESIS
from ..errors import StoreError
from .tables import AUDIT, CLAIM, CONFLICT, FACT, MEMORY, META, TURN

CHUNK = 500
CHANGED_MEANWHILE = "a fact was retired by someone else during this write; nothing was saved"


def _bind_plainly() -> None:
    """Tell the sqlite3 driver how to bind ``None`` and ``bool`` directly.

    Both already bind as NULL and as 1/0. But they are not among the types the
    driver passes through untouched, so for every such parameter it looks for
    an adapter and, finding none, formats and discards an AttributeError: on
    bulk inserts, where most rows carry several NULLs and two flags, that
    costs more than the insert itself. Registering the identity conversions
    makes the lookup succeed at once; what is stored does not change.
    """
    sqlite3.register_adapter(type(None), lambda _: None)
    sqlite3.register_adapter(bool, int)


_bind_plainly()


def chunks(items: list, size: int = CHUNK) -> Iterator[list]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def execute_many(conn: Connection, key: str, statement: Any, rows: list,
                 cache: dict[tuple, tuple[str, tuple[str, ...]]],
                 columns: tuple[str, ...] | None = None) -> int:
    """Run one statement for many rows with a single DBAPI executemany.

    ``rows`` are dicts, or tuples whose values follow ``columns``. The
    statement is compiled once by SQLAlchemy for the connection's dialect
    (with positional parameters, and cached in ``cache`` under ``key``), so
    the SQL stays portable; skipping SQLAlchemy's per-row parameter
    processing is what makes bulk imports fast. Values must already be plain
    DBAPI types. Returns the driver's row count (-1 when it does not tell).
    """
    sql, params = compile_rows(conn.dialect, key, statement, rows, cache, columns)
    dbapi = conn.connection.dbapi_connection
    assert dbapi is not None  # a checked-out connection always has one
    cursor = dbapi.cursor()
    try:
        cursor.executemany(sql, params)
        return cursor.rowcount
    finally:
        cursor.close()


def compile_rows(dialect: Any, key: str, statement: Any, rows: list,
                 cache: dict[tuple, tuple[str, tuple[str, ...]]],
                 columns: tuple[str, ...] | None = None) -> tuple[str, list]:
    """The positional SQL of ``statement`` for ``dialect`` and ``rows`` as
    its parameter tuples (see ``execute_many``). Rows given as dicts all have
    the keys of the first; columns they leave out are not inserted (NULL)."""
    keys = tuple(columns) if columns is not None else tuple(rows[0])
    entry = cache.get((key, keys))
    if entry is None:
        if not dialect.positional:  # psycopg: compile with %s markers instead of %(name)s
            dialect = type(dialect)(paramstyle="format")
        compiled = statement.compile(dialect=dialect, column_keys=list(keys))
        entry = (str(compiled), tuple(compiled.positiontup))
        cache[(key, keys)] = entry
    sql, names = entry
    if columns is not None:
        if names != columns:
            order = [columns.index(n) for n in names]
            rows = [tuple(r[i] for i in order) for r in rows]
        return sql, rows
    return sql, list(map(itemgetter(*names), rows))


_ID_TABLES = (("fact", FACT), ("claim", CLAIM), ("turn", TURN), ("conflict", CONFLICT),
              ("audit", AUDIT), ("memory", MEMORY))
# the transaction time, the audit chain head and the highest id of each table, in one round trip
_TX_AND_IDS = select(
    select(META.c.last_tx).where(META.c.id == 1).scalar_subquery(),
    select(META.c.audit_head).where(META.c.id == 1).scalar_subquery(),
    select(META.c.id_marks).where(META.c.id == 1).scalar_subquery(),
    *(select(func.max(table.c.id)).scalar_subquery() for _, table in _ID_TABLES),
)


def load_said(conn: Connection, lineages: Iterable[int]) -> dict[int, list[Said]]:
    """What the mentions merged into each lineage (by its claim id) said
    (core.gates.Evidence, ``said_by``). Reads 500 lineages a query."""
    out: dict[int, list[Said]] = defaultdict(list)
    for part in chunks(sorted(set(lineages))):
        for into, start, latest, stated in conn.execute(
                select(CLAIM.c.merged_into, CLAIM.c.valid_from, CLAIM.c.start_latest,
                       CLAIM.c.start_stated)
                .where(CLAIM.c.merged_into.in_(part), CLAIM.c.state == "merged")):
            out[into].append(said_by(start, latest, stated))
    return out


def lock_store(conn: Connection) -> tuple[int, dict[str, int], str]:
    """Take the store's write lock (by updating the store_meta row) and read
    the transaction time, the next free id of each table and the audit
    chain's head hash. Raises StoreError for a store without its store_meta row."""
    locked = conn.execute(update(META).where(META.c.id == 1).values(last_tx=META.c.last_tx))
    if locked.rowcount != 1:
        raise StoreError("store_meta row missing: the store was not initialised")
    tx, head, marks, *maxima = conn.execute(_TX_AND_IDS).one()
    used = json.loads(marks) if marks else {}  # ids handed out before, rows erased or not
    next_ids = {name: max((top or 0) + 1, int(used.get(name, 1)))
                for (name, _), top in zip(_ID_TABLES, maxima, strict=True)}
    return tx, next_ids, head or GENESIS
