"""The audit log's hash chain (core.chain).

Adds ``audit_log.rows`` and ``audit_log.hash`` and the chain's head in
``store_meta``; then chains the existing entries (which name no rows) and
appends one ``chain.adopted`` entry that commits to every row written before
the chain existed, so that later edits to those rows are detected too.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import json
import time

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("audit_log", sa.Column("rows", sa.Text(), nullable=False, server_default="{}"))
    op.add_column("audit_log", sa.Column("hash", sa.String(), nullable=True))
    op.add_column("store_meta", sa.Column("audit_head", sa.String(), nullable=True))
    op.add_column("store_meta", sa.Column("audit_last", sa.Integer(), nullable=True))
    adopt_rows(op.get_bind())


def adopt_rows(conn: sa.Connection) -> None:
    """Chain the existing entries and append the adopting entry (data migration)."""
    from memdesk.db.chain_legacy import (  # frozen: 0002 chained with pickle bytes
        AUDIT,
        META,
        RANGED,
        TABLES,
        Recomputer,
        dumps_rows,
        link,
        load_entries,
    )

    entries = load_entries(conn)
    recompute = Recomputer(conn, entries)
    head = "0" * 64
    for e in entries:
        head = link(head, *recompute.digests(e))
        conn.execute(sa.update(AUDIT).where(AUDIT.c.id == e["id"]).values(hash=head))
    covered: dict = {}
    for name in RANGED:
        table = TABLES[name]
        lo, hi = conn.execute(sa.select(sa.func.min(table.c.id), sa.func.max(table.c.id))).one()
        if lo is not None:
            covered[name] = [lo, hi]
    pred = TABLES["predicate"]
    names = sorted(n for (n,) in conn.execute(sa.select(pred.c.predicate)))
    if names:
        covered["predicate"] = names
    fact = TABLES["fact"]
    stamped = [i for (i,) in conn.execute(
        sa.select(fact.c.id).where(fact.c.retired_at.is_not(None)).order_by(fact.c.id))]
    if stamped:
        covered["stamped"] = stamped
    last_tx = conn.execute(sa.select(META.c.last_tx).where(META.c.id == 1)).scalar() or 0
    new_id = (entries[-1]["id"] if entries else 0) + 1
    entry = dict(id=new_id, at=last_tx, wall_at=int(time.time() * 1_000_000), actor="memdesk",
                 action="chain.adopted", claim_from=None, claim_to=None, fact_from=None,
                 fact_to=None, conflict_id=None, subject=None, predicate=None,
                 reason="schema upgrade 0002: rows written before the audit chain existed "
                        "are committed by this entry",
                 detail=json.dumps({"revision": "0002", "entries_before": len(entries)}),
                 rows=dumps_rows(covered))
    conn.execute(sa.insert(AUDIT).values(**entry))
    entry["hash"] = None
    digests = Recomputer(conn, [*entries, entry]).digests(entry)
    head = link(head, *digests)
    conn.execute(sa.update(AUDIT).where(AUDIT.c.id == new_id).values(hash=head))
    conn.execute(sa.update(META).where(META.c.id == 1).values(
        audit_head=head, audit_last=new_id, schema_version=2))


def downgrade() -> None:
    conn = op.get_bind()
    conn.execute(sa.text("DELETE FROM audit_log WHERE action = 'chain.adopted'"))
    conn.execute(sa.text("UPDATE store_meta SET schema_version = 1"))
    with op.batch_alter_table("store_meta") as batch:
        batch.drop_column("audit_last")
        batch.drop_column("audit_head")
    with op.batch_alter_table("audit_log") as batch:
        batch.drop_column("hash")
        batch.drop_column("rows")
