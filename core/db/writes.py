"""The write path's statements: buffered rows run as one DBAPI
``executemany`` (compiled once per dialect and column set), the store's write
lock with the transaction time, next ids and audit head it reads, what the
mentions merged into a lineage said, and the reads and writes of one write
transaction (``core.writer.WriteBatch``: the rows it gates against, the rows
it buffers, keyed by what they are). ``core.writer`` and its writer process
(``core.writer_process``) use these; nothing here decides anything.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Iterable, Iterator
from operator import itemgetter
from typing import Any

from sqlalchemy import Connection, bindparam, func, select, update

from ..bitemporal import Said, said_by
from ..chain import GENESIS
from ..errors import StoreError
from ..records import Fact
from .tables import AUDIT, CLAIM, CONFLICT, FACT, FACT_COLUMNS, MEMORY, META, PRED, TURN

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


def dbapi_cursor(conn: Connection) -> Any:
    """A new cursor of the DBAPI connection under ``conn`` (the caller closes it)."""
    dbapi = conn.connection.dbapi_connection
    assert dbapi is not None  # a checked-out connection always has one
    return dbapi.cursor()


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
    cursor = dbapi_cursor(conn)
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


def run_compiled(cursor: Any, jobs: Iterable[tuple[str, list, bool]]) -> None:
    """Run compiled statements (``compile_rows``) on a DBAPI cursor, in order:
    one executemany each. A job marked ``every_row`` must change exactly one
    row per parameter tuple; raises StoreError (CHANGED_MEANWHILE) when not."""
    for sql, params, every_row in jobs:
        cursor.executemany(sql, params)
        if every_row and cursor.rowcount not in (-1, len(params)):
            raise StoreError(CHANGED_MEANWHILE)


# ------------------------------------------------------- one write transaction
CLAIM_KEYS: tuple[str, ...] = tuple(CLAIM.c.keys())
"""A claim row's columns, in table order."""
CONFLICT_KEYS: tuple[str, ...] = tuple(CONFLICT.c.keys())
"""A conflict row's columns, in table order."""
MEMORY_KEYS: tuple[str, ...] = tuple(MEMORY.c.keys())
"""A memory row's columns, in table order."""
TURN_KEYS: tuple[str, ...] = tuple(TURN.c.keys())
"""A turn row's columns, in table order."""
assert len(Fact._fields) == len(FACT_COLUMNS)  # a Fact is a fact row, column for column

_RETIRE = (
    update(FACT)
    .where(FACT.c.id == bindparam("b_id"), FACT.c.retired_at.is_(None))
    .values(
        retired_at=bindparam("b_at"),
        retired_by_claim=bindparam("b_by"),
        retire_reason=bindparam("b_reason"),
        retire_note=bindparam("b_note"),
        known_until=bindparam("b_known"),
    )
)
_MENTIONED = (
    update(MEMORY)
    .where(MEMORY.c.id == bindparam("b_id"))
    .values(mentions=MEMORY.c.mentions + bindparam("b_extra"))
)
_LAST_TX = update(META).where(META.c.id == bindparam("b_id")).values(
    last_tx=bindparam("b_tx"), audit_head=bindparam("b_head"), audit_last=bindparam("b_last"),
    id_marks=bindparam("b_marks"))
# what a batch writes, by key: the statement and, for rows given as tuples, their columns
_WRITES: dict[str, tuple[Any, tuple[str, ...] | None]] = {
    "turn": (TURN.insert(), None),
    "predicate": (PRED.insert(), None),
    "claim": (CLAIM.insert(), None),
    "fact": (FACT.insert(), FACT_COLUMNS),
    "conflict": (CONFLICT.insert(), None),
    "audit": (AUDIT.insert(), None),
    "memory": (MEMORY.insert(), None),
    # {"b_id": memory id, "b_extra": mentions to add}
    "mentions": (_MENTIONED, None),
    # {"b_id": fact id, "b_at", "b_by", "b_reason", "b_note", "b_known"}: stamps a current row
    "retire": (_RETIRE, None),
    # {"b_id": 1, "b_tx", "b_head", "b_last", "b_marks"}: the store_meta row
    "meta": (_LAST_TX, None),
}


def write_rows(conn: Connection, key: str, rows: list,
               cache: dict[tuple, tuple[str, tuple[str, ...]]]) -> int:
    """Write a batch's buffered rows of one kind (``key``: "turn", "predicate",
    "claim", "fact", "conflict", "audit", "memory", or the updates "mentions",
    "retire", "meta") with one executemany (``execute_many``). Fact rows are
    tuples in FACT_COLUMNS order (Facts), the others dicts. Returns the
    driver's row count (-1 when it does not tell)."""
    statement, columns = _WRITES[key]
    return execute_many(conn, key, statement, rows, cache, columns)


def compiled_write(conn: Connection, key: str, rows: list,
                   cache: dict[tuple, tuple[str, tuple[str, ...]]]) -> tuple[str, list]:
    """What ``write_rows`` would run, compiled for ``conn``'s dialect: the SQL and
    its parameter tuples (for a writer process, ``run_compiled``)."""
    statement, columns = _WRITES[key]
    return compile_rows(conn.dialect, key, statement, rows, cache, columns)


def predicate_arities(conn: Connection) -> dict[str, bool]:
    """Whether each uncatalogued predicate used so far is single-valued (predicate_use)."""
    return {p: s for p, s in conn.execute(select(PRED.c.predicate, PRED.c.single_valued))}


def current_facts_of(conn: Connection, subjects: list[str]) -> list[Fact]:
    """The current-belief fact rows (not retired) of ``subjects``."""
    return [Fact(*row) for row in conn.execute(
        select(*FACT.c).where(FACT.c.subject.in_(subjects), FACT.c.retired_at.is_(None)))]


def current_facts(conn: Connection, subject: str, predicate: str) -> list[Fact]:
    """The current-belief fact rows (not retired) of one subject and predicate."""
    return [
        Fact(*r)
        for r in conn.execute(
            select(*FACT.c).where(
                FACT.c.subject == subject,
                FACT.c.predicate == predicate,
                FACT.c.retired_at.is_(None),
            )
        )
    ]


def turns_of(conn: Connection, sessions: list[str]) -> list[tuple[int, str, int, str, int, int, str]]:
    """The stored turns of ``sessions``: (id, session, turn, text, time, time_tz, speaker)."""
    rows = conn.execute(
        select(TURN.c.id, TURN.c.session, TURN.c.turn, TURN.c.text, TURN.c.time,
               TURN.c.time_tz, TURN.c.speaker).where(TURN.c.session.in_(sessions))
    )
    return [tuple(r) for r in rows]


def claim_keys_of(conn: Connection, turn_id: int) -> list[str]:
    """The claim keys of the claims made from one stored turn."""
    return [k for (k,) in conn.execute(select(CLAIM.c.claim_key).where(CLAIM.c.turn_id == turn_id))]


def turn_time(conn: Connection, turn_id: int) -> int | None:
    """The time of a stored turn (None when there is no such turn)."""
    return conn.execute(select(TURN.c.time).where(TURN.c.id == turn_id)).scalar()


def memories_of(conn: Connection, subjects: list[str]) -> list[tuple]:
    """The memories of ``subjects`` by id: (id, subject, text_key, archived_at, merged_into)."""
    rows = conn.execute(
        select(MEMORY.c.id, MEMORY.c.subject, MEMORY.c.text_key, MEMORY.c.archived_at,
               MEMORY.c.merged_into).where(MEMORY.c.subject.in_(subjects))
        .order_by(MEMORY.c.id)).all()
    return [tuple(r) for r in rows]


def stateful_row(conn: Connection, table: str, row_id: int) -> tuple | None:
    """Every column of claim ``row_id`` (``table`` "claim") or else of that
    conflict, in table order; None when there is no such row."""
    t = CLAIM if table == "claim" else CONFLICT
    row = conn.execute(select(*t.c).where(t.c.id == row_id)).first()
    return tuple(row) if row is not None else None
