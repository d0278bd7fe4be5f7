"""Stated starts and memory upkeep.

``claim.start_stated`` and ``fact.start_stated`` record whether a value's
valid start was *stated* (an event time in the text or the import line) or
only *heard* (the time it was said): the planner lets a later change
supersede a value whose start was only heard (core.bitemporal). Rows written
before this revision did not record it and keep NULL, which the planner
reads as stated (what it assumed of every start until now) and the desk
shows as unknown.

The two columns come last in their tables, and the audit chain hashes a row
whose late columns are NULL without them (core.chain ``LATE``), so every
digest of the existing chain stays as it was: no re-chaining.

``memory.archived_at``, ``memory.archive_reason`` and ``memory.merged_into``
are what maintenance (core.maintain) sets on a memory it archives or folds
into a near duplicate; like ``mentions`` they are outside the memory's row
hash (the audit entry of the maintenance run records the change).

Also ``store_meta.schema_version`` 4.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    for table in ("claim", "fact"):
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("start_stated", sa.Boolean(), nullable=True))
    with op.batch_alter_table("memory") as batch:
        batch.add_column(sa.Column("archived_at", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("archive_reason", sa.Text(), nullable=True))
        batch.add_column(sa.Column("merged_into", sa.Integer(), nullable=True))
    op.get_bind().execute(sa.text("UPDATE store_meta SET schema_version = 4"))


def downgrade() -> None:
    op.get_bind().execute(sa.text("UPDATE store_meta SET schema_version = 3"))
    with op.batch_alter_table("memory") as batch:
        batch.drop_column("merged_into")
        batch.drop_column("archive_reason")
        batch.drop_column("archived_at")
    for table in ("fact", "claim"):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("start_stated")
