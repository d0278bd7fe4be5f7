"""Engines and fast queries.

``make_engine`` turns a store location (a file path or an SQLAlchemy URL) into
an engine: SQLite files get WAL mode, a busy timeout and ``secure_delete``
(deleted content is overwritten with zeros, whatever the SQLite build's
default); PostgreSQL URLs use psycopg 3. ``clear_wal`` empties an SQLite
store's WAL (after an erasure, so that no earlier version of a page stays in
it). ``refuse_statements`` runs a check before every statement and commit
on an engine (the HTTP door stops a cancelled request's work with it).
``PreparedQuery`` compiles a SQLAlchemy statement once for the
engine's dialect and runs it straight on the DBAPI cursor, which keeps hot
lookups close to hand-written SQL while the SQL itself stays dialect-neutral.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler

from ..errors import StoreError, missing_extra

DEFAULT_DB = "memdesk.db"


def normalise_url(location: str | Path | None) -> str:
    """An SQLAlchemy URL for a path or URL. ``postgresql://`` gets the psycopg driver.

    Raises StoreError for a URL that SQLAlchemy cannot parse.
    """
    text = str(location) if location is not None else DEFAULT_DB
    if "://" not in text:
        return f"sqlite:///{Path(text).expanduser()}"
    try:
        url = make_url(text)
    except ArgumentError as exc:
        raise StoreError(f"not a database URL: {text!r} ({exc})") from None
    if url.drivername in ("postgresql", "postgres"):
        url = url.set(drivername="postgresql+psycopg")
    return url.render_as_string(hide_password=False)


def make_engine(location: str | Path | None) -> Engine:
    """An engine for a path or URL. Raises StoreError for an unsupported backend."""
    url = normalise_url(location)
    backend = make_url(url).get_backend_name()
    if backend == "sqlite":
        path = make_url(url).database
        if path and path != ":memory:":
            parent = Path(path).expanduser().resolve().parent
            if not parent.is_dir():
                raise StoreError(f"folder does not exist for the store: {parent}")
        engine = create_engine(url, connect_args={"timeout": 30})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn, _record):  # pragma: no cover - trivial
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            # an erasure must not leave the deleted text in free space: set it
            # here, never relying on the build's default (SQLITE_SECURE_DELETE)
            cur.execute("PRAGMA secure_delete=ON")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.execute("PRAGMA cache_size=-65536")  # 64 MiB: bulk imports touch wide index ranges
            cur.close()

        return engine
    if backend == "postgresql":
        try:
            return create_engine(url, pool_pre_ping=True)
        except ImportError as exc:  # the driver comes with the postgres extra
            raise missing_extra(exc, "a PostgreSQL store") or exc from None
    raise StoreError(f"unsupported database backend {backend!r}: use a SQLite path or postgresql://")


def clear_wal(engine: Engine) -> bool | None:
    """Checkpoint an SQLite store's WAL into the database file and truncate
    it to zero bytes (``PRAGMA wal_checkpoint(TRUNCATE)``): the WAL keeps
    every page version written since the last reset, deleted text included,
    until it is overwritten. Waits for readers up to the busy timeout.
    Returns True when the WAL is empty, False when a reader still held an
    older snapshot (the pages are then overwritten by a later checkpoint),
    None for PostgreSQL (its own WAL is the server's). Raises what the
    driver raises when the database cannot be reached."""
    if engine.dialect.name != "sqlite":
        return None
    with engine.connect() as conn:
        busy, _log, _done = conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)").one()
    return not busy


def refuse_statements(engine: Engine, check: Callable[..., None]) -> None:
    """From now on ``check`` runs before every statement and every commit on
    ``engine``, called with the event's arguments (which it may ignore):
    what it raises stops that statement or commit, and the transaction
    rolls back. Registering the same ``check`` again changes nothing."""
    for moment in ("before_cursor_execute", "commit"):
        if not event.contains(engine, moment, check):
            event.listen(engine, moment, check)


class PreparedQuery:
    """A statement compiled once for one dialect, run on a raw DBAPI connection.

    Bind parameters must be named with ``bindparam("name")``.
    """

    def __init__(self, statement: ClauseElement, engine: Engine) -> None:
        compiled = statement.compile(dialect=engine.dialect)
        assert isinstance(compiled, SQLCompiler)  # a statement compiles to SQL
        self.sql = str(compiled)
        self._positional = compiled.positional
        self._names: Sequence[str] = tuple(compiled.positiontup or ()) if compiled.positional else ()

    def run(self, dbapi_conn: Any, **params: Any) -> list[tuple]:
        args = tuple(params[n] for n in self._names) if self._positional else params
        cur = dbapi_conn.cursor()
        try:
            cur.execute(self.sql, args)
            return cur.fetchall()
        finally:
            cur.close()
