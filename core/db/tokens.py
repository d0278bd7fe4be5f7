"""The statements of the HTTP door's tokens (``core.tokens``): the
``access_token`` rows and the audit entries that issued and revoked them.
Rows come back as the driver's rows (``core.tokens`` makes them ``Token``
records). Errors are the driver's.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, Row, func, select, update

from .tables import AUDIT, TOKEN


def max_token_id(conn: Connection) -> int:
    """The highest token id handed out so far (0 for none)."""
    return int(conn.execute(select(func.coalesce(func.max(TOKEN.c.id), 0))).scalar() or 0)


def insert_token(conn: Connection, *, id: int, name: str, secret_hash: str, users: str,
                 projects: str, read_only: bool, created_at: int, created_by: str) -> None:
    """Insert one token row (``users`` and ``projects`` as their JSON arrays)."""
    conn.execute(TOKEN.insert().values(
        id=id, name=name, secret_hash=secret_hash, users=users, projects=projects,
        read_only=read_only, created_at=created_at, created_by=created_by))


def token_row(conn: Connection, token_id: int) -> Row[Any] | None:
    """The token row with id ``token_id``, or None."""
    return conn.execute(select(*TOKEN.c).where(TOKEN.c.id == token_id)).first()


def token_rows(conn: Connection, *, include_revoked: bool = True) -> list[Row[Any]]:
    """Every token row by id (only the active ones without ``include_revoked``)."""
    stmt = select(*TOKEN.c).order_by(TOKEN.c.id)
    if not include_revoked:
        stmt = stmt.where(TOKEN.c.revoked_at.is_(None))
    return list(conn.execute(stmt))


def token_by_hash(conn: Connection, secret_hash: str) -> Row[Any] | None:
    """The token row whose secret has this hash, or None (one indexed read)."""
    return conn.execute(select(*TOKEN.c).where(TOKEN.c.secret_hash == secret_hash)).first()


def update_token(conn: Connection, token_id: int, values: dict[str, Any]) -> None:
    """Set the columns ``values`` names on token ``token_id``."""
    conn.execute(update(TOKEN).where(TOKEN.c.id == token_id).values(**values))


def entries_of(conn: Connection, actions: Iterable[str]) -> list[tuple[str, str | None]]:
    """(action, detail) of every audit entry with one of ``actions``."""
    return [(action, detail) for action, detail in conn.execute(
        select(AUDIT.c.action, AUDIT.c.detail).where(AUDIT.c.action.in_(tuple(actions))))]


__all__ = ["entries_of", "insert_token", "max_token_id", "token_by_hash", "token_row",
           "token_rows", "update_token"]
