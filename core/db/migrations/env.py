"""Alembic environment: runs on the connection handed over in
``config.attributes["connection"]`` (see core.migrations), else on the URL
in ``sqlalchemy.url`` (for the ``alembic`` command line)."""

from __future__ import annotations

from alembic import context
from memdesk.db import (
    make_engine,
    tables,  # noqa: F401 - registers the tables
)
from memdesk.failpoints import point
from sqlmodel import SQLModel

config = context.config


def run() -> None:
    conn = config.attributes.get("connection")
    if conn is not None:
        context.configure(connection=conn, target_metadata=SQLModel.metadata,
                          on_version_apply=lambda **_: point("upgrade.step"))
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = make_engine(config.get_main_option("sqlalchemy.url"))
    with engine.begin() as conn:
        context.configure(connection=conn, target_metadata=SQLModel.metadata)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


run()
