"""The database schema (SQLModel tables).

Times are BigInteger microseconds since the epoch (UTC); ``*_tz`` columns keep
the UTC offset in minutes of the source so times can be shown as written.
JSON-valued columns are text holding canonical JSON, which works the same on
SQLite and PostgreSQL.

Fact rows are immutable after insert except for the retirement stamp
(``retired_at``, ``retired_by_claim``, ``retire_reason``, ``retire_note``).
"""

from __future__ import annotations

from typing import ClassVar

from sqlalchemy import BigInteger, Column, Index, Integer, Text, UniqueConstraint, text
from sqlalchemy.sql.schema import Table
from sqlmodel import Field, SQLModel

SCHEMA_VERSION = 6


def _big(nullable: bool = False, index: bool = False) -> Column:
    return Column(BigInteger, nullable=nullable, index=index)


class TableModel(SQLModel):
    """The base of the tables below. SQLModel gives every ``table=True`` class
    its SQLAlchemy ``Table`` as ``__table__``; declared here for type checkers."""

    __table__: ClassVar[Table]


class StoreMeta(TableModel, table=True):
    """One row (id 1). Every write transaction updates it first: that takes the
    store's write lock on both backends and keeps transaction time monotonic."""

    __tablename__ = "store_meta"
    id: int = Field(primary_key=True)
    schema_version: int
    last_tx: int = Field(sa_column=_big())
    created_at: int = Field(sa_column=_big())
    # the audit chain's head: the hash and id of the newest entry (core.chain)
    audit_head: str | None = None
    audit_last: int | None = None
    # how many erasures the store has seen (core.erase): derived data built
    # before the latest one (recall indexes) must be discarded and rebuilt
    erasures: int = Field(default=0, sa_column=Column(Integer, nullable=False, server_default="0"))
    # the next free id of each chained table, as JSON ({"claim": 41, …}): ids are
    # never reused, even once an erasure deleted the rows that had them, because
    # audit entries name the rows they wrote by id ranges (core.chain)
    id_marks: str | None = Field(default=None, sa_column=Column(Text, nullable=True))


class TurnRow(TableModel, table=True):
    """A raw conversation turn: the immutable resource layer."""

    __tablename__ = "turn"
    __table_args__ = (UniqueConstraint("session", "turn", name="uq_turn_session_turn"),)
    id: int = Field(primary_key=True)
    session: str
    turn: int
    speaker: str
    text: str = Field(sa_column=Column(Text, nullable=False))
    time: int = Field(sa_column=_big())
    time_tz: int = 0
    user: str | None = None
    project: str | None = None
    recorded_at: int = Field(sa_column=_big())
    imported_at: int = Field(sa_column=_big())


class ClaimRow(TableModel, table=True):
    """Every incoming assertion (extracted or imported) with its provenance and
    what became of it: asserted, merged into an existing fact, waiting for
    review, held by a conflict, approved or rejected. The review queue is the
    claims in state ``pending``."""

    __tablename__ = "claim"
    __table_args__ = (
        UniqueConstraint("turn_id", "claim_key", name="uq_claim_turn_key"),
        # the review queue: only pending claims are indexed (partial index, both backends)
        Index("ix_claim_pending", "confidence", "id",
              sqlite_where=text("state = 'pending'"), postgresql_where=text("state = 'pending'")),
        Index("ix_claim_merged", "merged_into",
              sqlite_where=text("merged_into IS NOT NULL"),
              postgresql_where=text("merged_into IS NOT NULL")),
    )
    id: int = Field(primary_key=True)
    turn_id: int = Field(foreign_key="turn.id")
    claim_key: str
    subject: str
    predicate: str
    object: str = Field(sa_column=Column(Text, nullable=False))
    value: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    polarity: str
    scope: str
    valid_from: int = Field(sa_column=_big())
    valid_to: int | None = Field(default=None, sa_column=_big(nullable=True))
    event_start: int | None = Field(default=None, sa_column=_big(nullable=True))
    event_end: int | None = Field(default=None, sa_column=_big(nullable=True))
    tz: int = 0
    confidence: float
    source_kind: str
    extractor: str
    change: str | None = None
    single_valued: bool
    sensitive: bool = False
    created_at: int = Field(sa_column=_big())
    state: str
    reasons: str = Field(default="[]", sa_column=Column(Text, nullable=False))
    decided_by: str | None = None
    decided_at: int | None = Field(default=None, sa_column=_big(nullable=True))
    decision_reason: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    edits: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    fact_id: int | None = None
    merged_into: int | None = None
    gates: str = Field(default="", sa_column=Column(Text, nullable=False))
    # whether valid_from was stated (an event time in the text or the import
    # line) or only heard (the utterance time); NULL: written before revision 0005
    start_stated: bool | None = None
    # the latest instant the stated start can be (a start said with the
    # precision of a day, a month, a year: "上个月", "in April"), inclusive;
    # NULL: the start is exact (or only heard). Since revision 0007.
    start_latest: int | None = Field(default=None, sa_column=_big(nullable=True))


class FactRow(TableModel, table=True):
    """A bitemporal fact row. Valid time [valid_from, valid_to) and transaction
    time [recorded_at, retired_at); NULL ends are open."""

    __tablename__ = "fact"
    __table_args__ = (
        Index("ix_fact_sp_from", "subject", "predicate", "valid_from"),
    )
    id: int = Field(primary_key=True)
    subject: str
    predicate: str
    object: str = Field(sa_column=Column(Text, nullable=False))
    value: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    polarity: str
    scope: str
    valid_from: int = Field(sa_column=_big())
    valid_to: int | None = Field(default=None, sa_column=_big(nullable=True))
    recorded_at: int = Field(sa_column=_big())
    retired_at: int | None = Field(default=None, sa_column=_big(nullable=True))
    retired_by_claim: int | None = None
    retire_reason: str | None = None
    retire_note: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    claim_id: int
    copy_of: int | None = None
    confidence: float
    source_kind: str
    extractor: str
    event_start: int | None = Field(default=None, sa_column=_big(nullable=True))
    event_end: int | None = Field(default=None, sa_column=_big(nullable=True))
    expires_at: int | None = Field(default=None, sa_column=_big(nullable=True))
    tz: int = 0
    single_valued: bool
    sensitive: bool = False
    # as ClaimRow.start_stated: a start only heard may be superseded by a change
    # told later with an earlier time (core.bitemporal); NULL before revision 0005
    start_stated: bool | None = None
    # Since revision 0007 (NULL in rows written before it; see docs/DESIGN.md §2.1):
    # the told axis, [known_from, known_until): when the store was told what
    # made it write the row (the source turn's time; a person's decision: its
    # own time) and what retired it. NULL known_from: the same as recorded_at
    # (before 0007 the two axes were one); known_until is part of the stamp.
    known_from: int | None = Field(default=None, sa_column=_big(nullable=True))
    # how valid_from was arrived at: "stated", "heard", "bounded" (a stated
    # start narrowed by what the user said of the value before) or "clamped"
    # (a stated start wholly before such evidence, moved right after it)
    start_kind: str | None = None
    # the latest instant the start can be, inclusive: valid_from <= start <=
    # start_latest (for a heard start: when it was said)
    start_latest: int | None = Field(default=None, sa_column=_big(nullable=True))
    known_until: int | None = Field(default=None, sa_column=_big(nullable=True))


class MemoryRow(TableModel, table=True):
    """A memory text for the vector path (docs/DESIGN.md §1): what was said, with
    sensitive data masked, linked to the claim and turn it came from. Near
    duplicates for one subject merge into one row whose ``mentions`` grows."""

    __tablename__ = "memory"
    __table_args__ = (Index("ix_memory_subject_key", "subject", "text_key"),)
    id: int = Field(primary_key=True)
    subject: str
    predicate: str | None = None
    text: str = Field(sa_column=Column(Text, nullable=False))
    text_key: str
    claim_id: int
    turn_id: int
    created_at: int = Field(sa_column=_big())
    mentions: int = 1
    # maintenance (core.maintain): when and why the memory was archived (kept,
    # out of recall unless asked for) and, for a near duplicate folded into
    # another, that memory's id. Mutable like ``mentions``: not in its row hash.
    archived_at: int | None = Field(default=None, sa_column=_big(nullable=True))
    archive_reason: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    merged_into: int | None = None


class ConflictRow(TableModel, table=True):
    """An unexplained contradiction between current belief and an incoming claim."""

    __tablename__ = "conflict"
    id: int = Field(primary_key=True)
    kind: str
    state: str = Field(index=True)
    subject: str
    predicate: str
    scope: str
    fact_ids: str = Field(sa_column=Column(Text, nullable=False))
    claim_id: int = Field(index=True)
    opened_at: int = Field(sa_column=_big())
    resolved_at: int | None = Field(default=None, sa_column=_big(nullable=True))
    resolved_by: str | None = None
    resolution: str | None = None
    reason: str | None = Field(default=None, sa_column=Column(Text, nullable=True))


class PredicateUse(TableModel, table=True):
    """Predicates seen that the catalog does not list, with their declared arity."""

    __tablename__ = "predicate_use"
    predicate: str = Field(primary_key=True)
    single_valued: bool
    first_seen_at: int = Field(sa_column=_big())
    first_claim_id: int


class AuditRow(TableModel, table=True):
    """Append-only log of every operation that changed the store: who or what,
    when (transaction and wall-clock time), why, and which rows it touched.

    One entry per operation (an import, a review decision, a resolution, a
    retraction, the first use of an uncatalogued predicate). Rows created by
    the operation are named by id ranges, which are contiguous because ids are
    allocated under the store's write lock: claims ``claim_from..claim_to``
    (for a decision: the claim decided), facts ``fact_from..fact_to``. Fact
    rows retired by it carry the stamp themselves and are listed in ``detail``.

    ``rows`` records every row the operation created or changed (canonical
    JSON) and ``hash`` chains the entry to the one before it (core.chain).
    An erasure scrubs ``subject``, ``reason`` and ``detail`` of entries that
    named the person; its tombstone entry re-commits them (core.erase).
    """

    __tablename__ = "audit_log"
    id: int = Field(primary_key=True)
    at: int = Field(sa_column=_big())
    wall_at: int = Field(sa_column=_big())
    actor: str
    action: str
    claim_from: int | None = Field(default=None, index=True)
    claim_to: int | None = None
    fact_from: int | None = None
    fact_to: int | None = None
    conflict_id: int | None = None
    subject: str | None = None
    predicate: str | None = None
    reason: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    detail: str = Field(default="{}", sa_column=Column(Text, nullable=False))
    # the rows the operation touched (canonical JSON, see core.chain) and the chain hash
    rows: str = Field(default="{}", sa_column=Column(Text, nullable=False, server_default="{}"))
    hash: str | None = None


FACT_COLUMNS: tuple[str, ...] = tuple(c.name for c in FactRow.__table__.columns)


from sqlalchemy import LargeBinary  # noqa: E402 - kept with the table below (appended)


class RecallVectorRow(TableModel, table=True):
    """The embedding of one memory text or raw turn (the vector path's source
    of truth; the Annoy index file is derived from these rows). ``kind`` is
    ``memory`` or ``turn``; ``item_id`` the id in that table. Vectors of every
    embedder are kept side by side, tagged with its name, version and
    dimension; ``vector`` holds ``dim`` little-endian float32 values."""

    __tablename__ = "recall_vector"
    __table_args__ = (
        UniqueConstraint("kind", "embedder", "embedder_version", "item_id",
                         name="uq_recall_vector_item"),
    )
    id: int = Field(primary_key=True)
    kind: str
    item_id: int
    embedder: str
    embedder_version: str
    dim: int
    vector: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    created_at: int = Field(sa_column=_big())


class AccessTokenRow(TableModel, table=True):
    """A bearer token of the HTTP door (``memdesk tokens``, core.tokens): only
    the SHA-256 of its secret is kept, never the secret. ``users`` and
    ``projects`` (JSON lists of names) are what it may read and write;
    ``read_only`` forbids writes. Revoking stamps ``revoked_at``; the row stays,
    so that audit entries naming the token keep meaning something."""

    __tablename__ = "access_token"
    id: int = Field(primary_key=True)
    name: str
    secret_hash: str = Field(sa_column=Column(Text, nullable=False, unique=True))
    users: str = Field(sa_column=Column(Text, nullable=False))
    projects: str = Field(default="[]", sa_column=Column(Text, nullable=False))
    read_only: bool = False
    created_at: int = Field(sa_column=_big())
    created_by: str
    revoked_at: int | None = Field(default=None, sa_column=_big(nullable=True))
    revoked_by: str | None = None
    revoke_reason: str | None = Field(default=None, sa_column=Column(Text, nullable=True))


# Each table as SQLAlchemy Core sees it, named once here: the engine's queries and writes
# (the writer, recall, undo, tokens, erasure, maintenance, the agent API) all go through these.
META = StoreMeta.__table__
TURN = TurnRow.__table__
CLAIM = ClaimRow.__table__
FACT = FactRow.__table__
MEMORY = MemoryRow.__table__
CONFLICT = ConflictRow.__table__
PRED = PredicateUse.__table__
AUDIT = AuditRow.__table__
VECTOR = RecallVectorRow.__table__
TOKEN = AccessTokenRow.__table__

# recall looks facts up by the claim a memory came from
Index("ix_fact_claim", FACT.c.claim_id)
