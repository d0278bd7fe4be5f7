"""Schema migrations (Alembic), configured in code: no alembic.ini is needed.

Revision ``0001`` is the first released schema; ``0002`` adds the audit
log's hash chain (``core.chain``); ``0003`` re-hashes it canonically (RFC 8785
JSON) and stores gate steps as JSON; ``0004`` adds the erasure count that
recall indexes check; ``0005`` records whether a start was stated or heard
and adds the memory columns maintenance sets. Stores made before Alembic was used carry
no ``alembic_version`` table: their ``store_meta.schema_version`` 1 means 0001.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, inspect, select, text

from ...failpoints import point

if TYPE_CHECKING:
    from alembic.config import Config

HERE = Path(__file__).resolve().parent
LEGACY = {1: "0001"}  # store_meta.schema_version of stores without alembic_version


def config(url: str | None = None) -> Config:
    """An Alembic configuration for this package's scripts (and ``url``)."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(HERE))
    cfg.set_main_option("path_separator", "os")
    if url is not None:
        cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


@lru_cache(maxsize=1)
def _revisions() -> dict[str, str | None]:
    """Each script's ``revision`` and its ``down_revision``, read from the
    scripts' source (the two module-level assignments Alembic reads), so that
    opening a store does not import Alembic: about 0.2 s of every command's
    start. ``tests/test_migrations.py`` checks this against Alembic's own
    reading."""
    out: dict[str, str | None] = {}
    for path in sorted((HERE / "versions").glob("[0-9]*.py")):
        values: dict[str, str | None] = {}
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], ast.Name) \
                    and node.targets[0].id in ("revision", "down_revision") \
                    and isinstance(node.value, ast.Constant) \
                    and isinstance(node.value.value, str | None):
                values[node.targets[0].id] = node.value.value
        out[str(values["revision"])] = values.get("down_revision")
    return out


@lru_cache(maxsize=1)
def head() -> str:
    """The newest revision this code knows (the one no script revises)."""
    revisions = _revisions()
    heads = set(revisions) - {down for down in revisions.values() if down}
    assert len(heads) == 1, f"the migration scripts have one head, not {sorted(heads)}"
    return heads.pop()


@lru_cache(maxsize=1)
def known() -> frozenset[str]:
    """Every revision this code knows."""
    return frozenset(_revisions())


def current(conn: Connection) -> str | None:
    """The store's revision: from alembic_version, else from store_meta (stores
    from before Alembic), None for a database with no memdesk store."""
    tables = set(inspect(conn).get_table_names())
    if "alembic_version" in tables:
        rev = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
        if rev is not None:
            return str(rev)
    if "store_meta" not in tables:
        return None
    from ..tables import META as meta
    version = conn.execute(select(meta.c.schema_version).where(meta.c.id == 1)).scalar()
    legacy = LEGACY.get(version) if isinstance(version, int) else None
    return legacy or f"schema_version {version}"


def stamp(conn: Connection, revision: str = "head") -> None:
    """Record in ``conn``'s transaction that the store is at ``revision``."""
    from alembic import command

    cfg = config()
    cfg.attributes["connection"] = conn
    command.stamp(cfg, revision)


def upgrade(engine: Engine, revision: str = "head") -> tuple[str | None, str]:
    """Upgrade the store to ``revision`` in one transaction. Returns (from, to)."""
    from alembic import command
    from alembic.runtime.migration import MigrationContext

    with engine.begin() as conn:
        before = current(conn)
        cfg = config()
        cfg.attributes["connection"] = conn
        if before is not None and before in LEGACY.values() and not _has_version_table(conn):
            command.stamp(cfg, before)
        command.upgrade(cfg, revision)
        after = MigrationContext.configure(conn).get_current_revision()
        point("tx.commit")
    return before, after or revision


def _has_version_table(conn: Connection) -> bool:
    if "alembic_version" not in inspect(conn).get_table_names():
        return False
    return conn.execute(text("SELECT version_num FROM alembic_version")).scalar() is not None
