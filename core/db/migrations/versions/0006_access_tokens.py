"""Bearer tokens of the HTTP door.

``access_token`` holds the tokens ``memdesk tokens create`` issues for
``memdesk mcp --transport http``: a name, the SHA-256 of the secret (never the
secret), the users and projects it may reach, whether it may only read, and
its creation and revocation stamps (core.tokens). Creating and revoking a
token are audit entries; the table itself is not in the hash chain, and
``verify`` checks each row against the entries that created and revoked it.

Also ``store_meta.schema_version`` 5.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "access_token",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("secret_hash", sa.Text(), nullable=False, unique=True),
        sa.Column("users", sa.Text(), nullable=False),
        sa.Column("projects", sa.Text(), nullable=False),
        sa.Column("read_only", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("created_by", sa.String(), nullable=False),
        sa.Column("revoked_at", sa.BigInteger(), nullable=True),
        sa.Column("revoked_by", sa.String(), nullable=True),
        sa.Column("revoke_reason", sa.Text(), nullable=True),
    )
    op.get_bind().execute(sa.text("UPDATE store_meta SET schema_version = 5"))


def downgrade() -> None:
    op.get_bind().execute(sa.text("UPDATE store_meta SET schema_version = 4"))
    op.drop_table("access_token")
