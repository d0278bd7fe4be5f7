"""The erasure count and the id marks.

``store_meta.erasures`` (core.erase) is what every recall index compares with
the count it was built at (core.recall.collection), so an index built before
an erasure is discarded wherever its files are. Existing stores start at the
number of erasures their audit log records (``subject.erased`` tombstones).

``store_meta.id_marks`` keeps the next free id of each chained table, so ids
are never handed out twice: an erasure deletes rows, but audit entries name
the rows they wrote by id ranges, and a new row inside such a range would
break ``verify``. Existing stores start past every id a table holds and every
id an audit entry names.

Also ``store_meta.schema_version`` 3: stores
at this revision store gate steps as JSON and hash their chain canonically
(0003), which exports of older stores do not.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

ERASED_ACTION = "subject.erased"  # frozen here: core.chain.ERASED_ACTION when written
TABLES = {"fact": "fact", "claim": "claim", "turn": "turn", "conflict": "conflict",
          "audit": "audit_log", "memory": "memory"}  # frozen: core.db.writes._ID_TABLES


def id_marks(conn: sa.Connection) -> dict[str, int]:
    """The next free id of each table: past its rows and past every id the
    audit log names (column ranges and the ``rows`` record of each entry)."""
    used = {name: conn.execute(sa.text(f"SELECT MAX(id) FROM {table}")).scalar() or 0
            for name, table in TABLES.items()}
    for entry_id, claim_to, fact_to, rows in conn.execute(sa.text(
            "SELECT id, claim_to, fact_to, rows FROM audit_log")):
        used["audit"] = max(used["audit"], entry_id)
        used["claim"] = max(used["claim"], claim_to or 0)
        used["fact"] = max(used["fact"], fact_to or 0)
        try:
            covered = json.loads(rows) if rows else {}
        except ValueError:
            covered = {}
        for name in ("turn", "claim", "fact", "conflict", "memory"):
            span = covered.get(name) if isinstance(covered, dict) else None
            if isinstance(span, list) and len(span) == 2 and isinstance(span[1], int):
                used[name] = max(used[name], span[1])
    return {name: top + 1 for name, top in used.items()}


def upgrade() -> None:
    with op.batch_alter_table("store_meta") as batch:
        batch.add_column(sa.Column("erasures", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("id_marks", sa.Text(), nullable=True))
    conn = op.get_bind()
    erased = conn.execute(sa.text("SELECT COUNT(*) FROM audit_log WHERE action = :a"),
                          {"a": ERASED_ACTION}).scalar() or 0
    conn.execute(sa.text("UPDATE store_meta SET erasures = :n, id_marks = :m, schema_version = 3"),
                 {"n": int(erased), "m": json.dumps(id_marks(conn))})


def downgrade() -> None:
    op.get_bind().execute(sa.text("UPDATE store_meta SET schema_version = 2"))
    with op.batch_alter_table("store_meta") as batch:
        batch.drop_column("id_marks")
        batch.drop_column("erasures")
