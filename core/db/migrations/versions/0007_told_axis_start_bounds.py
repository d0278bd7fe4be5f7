"""The told axis and the bounds of a start.

``fact.known_from`` and ``fact.known_until`` are the *told* axis: when the
store was told what made it write a row (the source turn's time, or a
person's decision time) and what retired it. ``--known-at`` answers on this
axis, so a conversation imported later, or turns given in another order,
answer "what had the store been told by T" the same way. ``recorded_at`` and
``retired_at`` become what their names say: when this store wrote the row and
its stamp, by the store's own clock, never moved by input (docs/DESIGN.md §2.1).

``fact.start_kind`` and ``fact.start_latest`` say how a row's start was
arrived at (stated, heard, bounded by what was said before, or clamped after
it) and the latest instant it can be; ``claim.start_latest`` keeps the
precision a claim's stated start was said with ("上个月": the whole month).

Rows written before this revision keep NULL in all of them: their
``recorded_at``/``retired_at`` were the told axis then (transaction time
replayed the source's time), so NULL reads as those; their start kind comes
from ``start_stated``. The columns come last in their tables and the audit
chain hashes a row without its trailing NULL late columns (core.chain
``LATE``), so every digest of the existing chain stays as it was.
``known_until`` belongs to the retirement stamp, which an entry's ``stamped``
part commits to without it while it is NULL.

Also ``store_meta.schema_version`` 6.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("claim") as batch:
        batch.add_column(sa.Column("start_latest", sa.BigInteger(), nullable=True))
    with op.batch_alter_table("fact") as batch:
        batch.add_column(sa.Column("known_from", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("start_kind", sa.String(), nullable=True))
        batch.add_column(sa.Column("start_latest", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("known_until", sa.BigInteger(), nullable=True))
    op.get_bind().execute(sa.text("UPDATE store_meta SET schema_version = 6"))


def downgrade() -> None:
    op.get_bind().execute(sa.text("UPDATE store_meta SET schema_version = 5"))
    with op.batch_alter_table("fact") as batch:
        batch.drop_column("known_until")
        batch.drop_column("start_latest")
        batch.drop_column("start_kind")
        batch.drop_column("known_from")
    with op.batch_alter_table("claim") as batch:
        batch.drop_column("start_latest")
