"""The statements of ``Store`` itself (``core/store.py``) and of the store's
meta row (``store_meta``): the schema revision and version a store has, the
creation of a new store's schema, whether it holds anything, the stamp that
changes with every committed write, and the erasure count. The schema
version this memdesk writes is ``SCHEMA_VERSION``.

Every function opens its own connection. Errors are those of the driver
(``memdesk.db.errors``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine, select
from sqlmodel import SQLModel

from ..chain import GENESIS
from . import migrations
from .tables import CLAIM, META, SCHEMA_VERSION, TURN


def revision_and_version(engine: Engine) -> tuple[str | None, int | None]:
    """The store's schema revision (None: no memdesk schema there) and the
    schema version its meta row holds (None also while a new store's meta
    row is not written yet), read on one connection."""
    with engine.connect() as conn:
        revision = migrations.current(conn)
        version = (conn.execute(select(META.c.schema_version).where(META.c.id == 1)).scalar()
                   if revision is not None else None)
    return revision, version


def create_schema(engine: Engine, wall_clock: Callable[[], int]) -> None:
    """Create every table and index, the meta row (unless another process
    wrote it first; created at ``wall_clock()``, µs) and the migrations'
    stamp, in one transaction."""
    with engine.begin() as conn:
        if engine.dialect.name == "sqlite":
            # the driver runs DDL outside any transaction unless one is open: open
            # it, so a process killed while creating the store leaves no half schema
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        SQLModel.metadata.create_all(conn)
        exists = conn.execute(select(META.c.id)).first()
        if exists is None:
            conn.execute(META.insert().values(
                id=1, schema_version=SCHEMA_VERSION, last_tx=0,
                created_at=wall_clock(), audit_head=GENESIS, audit_last=0))
            migrations.stamp(conn, "head")


def holds_nothing(engine: Engine) -> bool:
    """Whether the store holds not a single turn or claim."""
    with engine.connect() as conn:
        return all(conn.execute(select(table.c.id).limit(1)).first() is None for table in (TURN, CLAIM))


def change_stamp(engine: Engine) -> tuple[Any, ...]:
    """The meta row's transaction time, audit entry count, audit chain head
    and erasure count (empty without a meta row)."""
    with engine.connect() as conn:
        row = conn.execute(select(META.c.last_tx, META.c.audit_last, META.c.audit_head,
                                  META.c.erasures).where(META.c.id == 1)).first()
    return tuple(row) if row is not None else ()


def erasures(engine: Engine) -> int:
    """How many erasures the store has committed (``store_meta.erasures``)."""
    with engine.connect() as conn:
        return int(conn.execute(select(META.c.erasures).where(META.c.id == 1)).scalar() or 0)


__all__ = ["SCHEMA_VERSION", "change_stamp", "create_schema", "erasures", "holds_nothing",
           "revision_and_version"]
