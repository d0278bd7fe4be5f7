"""The first released schema (memdesk 0.1, ``store_meta.schema_version`` 1).

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import time

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('audit_log',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('at', sa.BigInteger(), nullable=False),
    sa.Column('wall_at', sa.BigInteger(), nullable=False),
    sa.Column('actor', sa.String(), nullable=False),
    sa.Column('action', sa.String(), nullable=False),
    sa.Column('claim_from', sa.Integer(), nullable=True),
    sa.Column('claim_to', sa.Integer(), nullable=True),
    sa.Column('fact_from', sa.Integer(), nullable=True),
    sa.Column('fact_to', sa.Integer(), nullable=True),
    sa.Column('conflict_id', sa.Integer(), nullable=True),
    sa.Column('subject', sa.String(), nullable=True),
    sa.Column('predicate', sa.String(), nullable=True),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.Column('detail', sa.Text(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index(op.f('ix_audit_log_claim_from'), 'audit_log', ['claim_from'], unique=False)
    op.create_table('conflict',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(), nullable=False),
    sa.Column('state', sa.String(), nullable=False),
    sa.Column('subject', sa.String(), nullable=False),
    sa.Column('predicate', sa.String(), nullable=False),
    sa.Column('scope', sa.String(), nullable=False),
    sa.Column('fact_ids', sa.Text(), nullable=False),
    sa.Column('claim_id', sa.Integer(), nullable=False),
    sa.Column('opened_at', sa.BigInteger(), nullable=False),
    sa.Column('resolved_at', sa.BigInteger(), nullable=True),
    sa.Column('resolved_by', sa.String(), nullable=True),
    sa.Column('resolution', sa.String(), nullable=True),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index(op.f('ix_conflict_claim_id'), 'conflict', ['claim_id'], unique=False)
    op.create_index(op.f('ix_conflict_state'), 'conflict', ['state'], unique=False)
    op.create_table('fact',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('subject', sa.String(), nullable=False),
    sa.Column('predicate', sa.String(), nullable=False),
    sa.Column('object', sa.Text(), nullable=False),
    sa.Column('value', sa.Text(), nullable=True),
    sa.Column('polarity', sa.String(), nullable=False),
    sa.Column('scope', sa.String(), nullable=False),
    sa.Column('valid_from', sa.BigInteger(), nullable=False),
    sa.Column('valid_to', sa.BigInteger(), nullable=True),
    sa.Column('recorded_at', sa.BigInteger(), nullable=False),
    sa.Column('retired_at', sa.BigInteger(), nullable=True),
    sa.Column('retired_by_claim', sa.Integer(), nullable=True),
    sa.Column('retire_reason', sa.String(), nullable=True),
    sa.Column('retire_note', sa.Text(), nullable=True),
    sa.Column('claim_id', sa.Integer(), nullable=False),
    sa.Column('copy_of', sa.Integer(), nullable=True),
    sa.Column('confidence', sa.Float(), nullable=False),
    sa.Column('source_kind', sa.String(), nullable=False),
    sa.Column('extractor', sa.String(), nullable=False),
    sa.Column('event_start', sa.BigInteger(), nullable=True),
    sa.Column('event_end', sa.BigInteger(), nullable=True),
    sa.Column('expires_at', sa.BigInteger(), nullable=True),
    sa.Column('tz', sa.Integer(), nullable=False),
    sa.Column('single_valued', sa.Boolean(), nullable=False),
    sa.Column('sensitive', sa.Boolean(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_fact_claim', 'fact', ['claim_id'], unique=False)
    op.create_index('ix_fact_sp_from', 'fact', ['subject', 'predicate', 'valid_from'], unique=False)
    op.create_table('memory',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('subject', sa.String(), nullable=False),
    sa.Column('predicate', sa.String(), nullable=True),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('text_key', sa.String(), nullable=False),
    sa.Column('claim_id', sa.Integer(), nullable=False),
    sa.Column('turn_id', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.Column('mentions', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_memory_subject_key', 'memory', ['subject', 'text_key'], unique=False)
    op.create_table('predicate_use',
    sa.Column('predicate', sa.String(), nullable=False),
    sa.Column('single_valued', sa.Boolean(), nullable=False),
    sa.Column('first_seen_at', sa.BigInteger(), nullable=False),
    sa.Column('first_claim_id', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('predicate')
    )
    op.create_table('recall_vector',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(), nullable=False),
    sa.Column('item_id', sa.Integer(), nullable=False),
    sa.Column('embedder', sa.String(), nullable=False),
    sa.Column('embedder_version', sa.String(), nullable=False),
    sa.Column('dim', sa.Integer(), nullable=False),
    sa.Column('vector', sa.LargeBinary(), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('kind', 'embedder', 'embedder_version', 'item_id', name='uq_recall_vector_item')
    )
    op.create_table('store_meta',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('schema_version', sa.Integer(), nullable=False),
    sa.Column('last_tx', sa.BigInteger(), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('turn',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('session', sa.String(), nullable=False),
    sa.Column('turn', sa.Integer(), nullable=False),
    sa.Column('speaker', sa.String(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('time', sa.BigInteger(), nullable=False),
    sa.Column('time_tz', sa.Integer(), nullable=False),
    sa.Column('user', sa.String(), nullable=True),
    sa.Column('project', sa.String(), nullable=True),
    sa.Column('recorded_at', sa.BigInteger(), nullable=False),
    sa.Column('imported_at', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('session', 'turn', name='uq_turn_session_turn')
    )
    op.create_table('claim',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('turn_id', sa.Integer(), nullable=False),
    sa.Column('claim_key', sa.String(), nullable=False),
    sa.Column('subject', sa.String(), nullable=False),
    sa.Column('predicate', sa.String(), nullable=False),
    sa.Column('object', sa.Text(), nullable=False),
    sa.Column('value', sa.Text(), nullable=True),
    sa.Column('polarity', sa.String(), nullable=False),
    sa.Column('scope', sa.String(), nullable=False),
    sa.Column('valid_from', sa.BigInteger(), nullable=False),
    sa.Column('valid_to', sa.BigInteger(), nullable=True),
    sa.Column('event_start', sa.BigInteger(), nullable=True),
    sa.Column('event_end', sa.BigInteger(), nullable=True),
    sa.Column('tz', sa.Integer(), nullable=False),
    sa.Column('confidence', sa.Float(), nullable=False),
    sa.Column('source_kind', sa.String(), nullable=False),
    sa.Column('extractor', sa.String(), nullable=False),
    sa.Column('change', sa.String(), nullable=True),
    sa.Column('single_valued', sa.Boolean(), nullable=False),
    sa.Column('sensitive', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.Column('state', sa.String(), nullable=False),
    sa.Column('reasons', sa.Text(), nullable=False),
    sa.Column('decided_by', sa.String(), nullable=True),
    sa.Column('decided_at', sa.BigInteger(), nullable=True),
    sa.Column('decision_reason', sa.Text(), nullable=True),
    sa.Column('edits', sa.Text(), nullable=True),
    sa.Column('fact_id', sa.Integer(), nullable=True),
    sa.Column('merged_into', sa.Integer(), nullable=True),
    sa.Column('gates', sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(['turn_id'], ['turn.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('turn_id', 'claim_key', name='uq_claim_turn_key')
    )
    op.create_index('ix_claim_merged', 'claim', ['merged_into'], unique=False, sqlite_where=sa.text('merged_into IS NOT NULL'), postgresql_where=sa.text('merged_into IS NOT NULL'))
    op.create_index('ix_claim_pending', 'claim', ['confidence', 'id'], unique=False, sqlite_where=sa.text("state = 'pending'"), postgresql_where=sa.text("state = 'pending'"))
    # the store_meta row, as Store.open wrote it for a new store at this revision
    now = int(time.time() * 1_000_000)
    op.execute(sa.text("INSERT INTO store_meta (id, schema_version, last_tx, created_at) "
                       "VALUES (1, 1, 0, :now)").bindparams(now=now))


def downgrade() -> None:
    op.drop_index('ix_claim_pending', table_name='claim', sqlite_where=sa.text("state = 'pending'"), postgresql_where=sa.text("state = 'pending'"))
    op.drop_index('ix_claim_merged', table_name='claim', sqlite_where=sa.text('merged_into IS NOT NULL'), postgresql_where=sa.text('merged_into IS NOT NULL'))
    op.drop_table('claim')
    op.drop_table('turn')
    op.drop_table('store_meta')
    op.drop_table('recall_vector')
    op.drop_table('predicate_use')
    op.drop_index('ix_memory_subject_key', table_name='memory')
    op.drop_table('memory')
    op.drop_index('ix_fact_sp_from', table_name='fact')
    op.drop_index('ix_fact_claim', table_name='fact')
    op.drop_table('fact')
    op.drop_index(op.f('ix_conflict_state'), table_name='conflict')
    op.drop_index(op.f('ix_conflict_claim_id'), table_name='conflict')
    op.drop_table('conflict')
    op.drop_index(op.f('ix_audit_log_claim_from'), table_name='audit_log')
    op.drop_table('audit_log')
