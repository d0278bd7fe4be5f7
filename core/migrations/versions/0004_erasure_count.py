"""The erasure count: ``store_meta.erasures`` (core.erase), which every recall
index compares with the count it was built at (core.recall.collection), so an
index built before an erasure is discarded wherever its files are.

Existing stores start at the number of erasures their audit log records
(``subject.erased`` tombstones). Also ``store_meta.schema_version`` 3: stores
at this revision store gate steps as JSON and hash their chain canonically
(0003), which exports of older stores do not.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

ERASED_ACTION = "subject.erased"  # frozen here: core.chain.ERASED_ACTION when written


def upgrade() -> None:
    with op.batch_alter_table("store_meta") as batch:
        batch.add_column(sa.Column("erasures", sa.Integer(), nullable=False, server_default="0"))
    conn = op.get_bind()
    erased = conn.execute(sa.text("SELECT COUNT(*) FROM audit_log WHERE action = :a"),
                          {"a": ERASED_ACTION}).scalar() or 0
    conn.execute(sa.text("UPDATE store_meta SET erasures = :n, schema_version = 3"),
                 {"n": int(erased)})


def downgrade() -> None:
    op.get_bind().execute(sa.text("UPDATE store_meta SET schema_version = 2"))
    with op.batch_alter_table("store_meta") as batch:
        batch.drop_column("erasures")
