"""Every SQL statement recall runs (issue 30 §4): the recall package
(``core/recall/``) reaches the database only through this module.

Three kinds of reads and one write:

* the hot reads of every search (``HotReads``): the store stamp and the rows
  of candidate memories, turns and the facts of their claims, compiled once
  per dialect (``PreparedQuery``) and run in padded blocks of ``BLOCK`` ids
  on the DBAPI cursor of one pooled connection per call (so a HotReads may
  serve many threads);
* the reads behind a search's caches (scope, the word channel's turns, the
  ids a filter admits, open conflicts, subjects and their names, the texts
  for the anchor index) and behind the structured and told paths: plain
  functions taking an engine and plain parameters (``TurnFilter`` and
  ``MemoryFilter`` say in SQL terms which rows a filter admits);
* the stored vectors (``recall_vector``) of one embedder for one kind of
  item (``VectorKey``): what lacks a vector, the vectors themselves, counts
  and watermarks, and their insertion (``insert_vectors``).

Every function opens its own connection (or takes a pooled one for the
call) and returns plain rows, tuples or small frozen records. Errors are
those of the driver (``sqlalchemy.exc`` wraps them), unless a docstring
says otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import Engine, Executable, and_, bindparam, func, or_, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.sql.elements import BindParameter

from .axes import KNOWN_FROM, told_by
from .engine import PreparedQuery
from .tables import AUDIT, CLAIM, CONFLICT, FACT, MEMORY, TURN, VECTOR

# ------------------------------------------------------------ hot reads
# candidate rows are fetched in blocks of BLOCK ids (padded with -1) by statements
# compiled once per dialect and run on the DBAPI cursor (PreparedQuery)
BLOCK = 64
_ID_PARAMS: list[BindParameter[int]] = [bindparam(f"i{j}") for j in range(BLOCK)]
_MEMORY_COLS = (MEMORY.c.id, MEMORY.c.subject, MEMORY.c.predicate, MEMORY.c.text,
                MEMORY.c.created_at, MEMORY.c.mentions, MEMORY.c.claim_id, MEMORY.c.turn_id,
                CLAIM.c.scope, CLAIM.c.confidence, CLAIM.c.source_kind, CLAIM.c.merged_into,
                CLAIM.c.fact_id, TURN.c.session, TURN.c.turn, TURN.c.speaker,
                TURN.c.text.label("turn_text"), TURN.c.time, TURN.c.time_tz,
                MEMORY.c.archived_at, MEMORY.c.archive_reason,
                MEMORY.c.merged_into.label("merged_into_memory"))
_TURN_COLS = (TURN.c.id, TURN.c.session, TURN.c.turn, TURN.c.speaker, TURN.c.text, TURN.c.time,
              TURN.c.time_tz, TURN.c.user, TURN.c.project, TURN.c.recorded_at)
MEMORY_ROW_KEYS: tuple[str, ...] = tuple(c.name for c in _MEMORY_COLS)
"""The names of a memory row's cells (``HotReads.memory_rows``), in order."""
TURN_ROW_KEYS: tuple[str, ...] = tuple(c.name for c in _TURN_COLS)
"""The names of a turn row's cells (``HotReads.turn_rows``), in order."""

_Q_MEMORY_ROWS = (select(*_MEMORY_COLS)
                  .join(CLAIM, CLAIM.c.id == MEMORY.c.claim_id)
                  .join(TURN, TURN.c.id == MEMORY.c.turn_id)
                  .where(MEMORY.c.id.in_(_ID_PARAMS)))
_Q_TURN_ROWS = select(*_TURN_COLS).where(TURN.c.id.in_(_ID_PARAMS))
_Q_FACTS_BY_CLAIM = select(*FACT.c).where(FACT.c.claim_id.in_(_ID_PARAMS))
# the store stamp: the newest row of every table recall reads. Every change to
# the store writes an audit entry (a decision, a resolution, an import, an
# erasure), so when the stamp is unchanged what recall cached from the last
# search (the index tail, the open conflicts, the subject list, the lexical
# anchors) is still current: one round trip instead of six. Its cells, in
# order: audit, vector, memory, turn, fact, conflict, claim.
_Q_STAMP = select(*(select(func.max(t.c.id)).scalar_subquery()
                    for t in (AUDIT, VECTOR, MEMORY, TURN, FACT, CONFLICT, CLAIM)))
STAMP_TURN = 3
"""The position of the newest turn's id in the stamp."""
_PREPARED = {"memory_rows": _Q_MEMORY_ROWS, "turn_rows": _Q_TURN_ROWS,
             "facts_by_claim": _Q_FACTS_BY_CLAIM, "stamp": _Q_STAMP}


class HotReads:
    """The reads of every search on one engine, compiled once (on first use)
    and run on the DBAPI cursor. Thread-safe: each call takes a pooled
    connection for itself."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._queries: dict[str, PreparedQuery] = {}

    def _prepared(self, name: str) -> PreparedQuery:
        found = self._queries.get(name)
        if found is None:
            found = self._queries[name] = PreparedQuery(_PREPARED[name], self.engine)
        return found

    @contextmanager
    def _raw_reads(self) -> Iterator[Any]:
        """A DBAPI connection of the pool for a few reads (taken for this call
        only); on PostgreSQL the read transaction psycopg opened is ended."""
        fairy = self.engine.raw_connection()
        try:
            raw = cast(Any, fairy.driver_connection)  # the DBAPI connection: untyped
            yield raw
            if self.engine.dialect.name == "postgresql":
                raw.rollback()
        finally:
            fairy.close()

    def _blocks(self, name: str, ids: Sequence[int]) -> list[tuple]:
        """Run a prepared ``IN`` query over ids in padded blocks, on one DBAPI
        connection of the pool (taken for this call only)."""
        query = self._prepared(name)
        rows: list[tuple] = []
        with self._raw_reads() as raw:
            for s in range(0, len(ids), BLOCK):
                part = list(ids[s:s + BLOCK])
                part += [-1] * (BLOCK - len(part))
                rows.extend(query.run(raw, **{f"i{j}": v for j, v in enumerate(part)}))
        return rows

    def stamp(self) -> tuple:
        """The store stamp: the highest id of each table recall reads (see
        ``_Q_STAMP``); it changes whenever the store does."""
        with self._raw_reads() as raw:
            return tuple(self._prepared("stamp").run(raw)[0])

    def memory_rows(self, ids: Sequence[int]) -> list[tuple]:
        """The rows of these memories joined with their claim and turn
        (cells named by ``MEMORY_ROW_KEYS``); ids without a row are absent."""
        return self._blocks("memory_rows", ids)

    def turn_rows(self, ids: Sequence[int]) -> list[tuple]:
        """The rows of these turns (cells named by ``TURN_ROW_KEYS``)."""
        return self._blocks("turn_rows", ids)

    def facts_by_claim(self, claim_ids: Sequence[int]) -> list[tuple]:
        """Every fact row of these claims, field for field (``records.Fact``)."""
        return self._blocks("facts_by_claim", claim_ids)


# ------------------------------------------------------------ filters in SQL
@dataclass(frozen=True, slots=True)
class TurnFilter:
    """The turns a recall's filter admits, in SQL terms (None: any).
    ``users`` listing ``me`` also admits turns stored without a user;
    ``projects_or_none`` also admits turns stored without a project."""

    users: tuple[str, ...] | None = None
    projects: tuple[str, ...] | None = None
    projects_or_none: bool = False
    sessions: tuple[str, ...] | None = None
    at: int | None = None
    since: int | None = None
    until: int | None = None


@dataclass(frozen=True, slots=True)
class MemoryFilter:
    """The memories a recall's filter admits by SQL: their subjects, their
    claim's scope, stored by ``at``, and archived (as of ``at``) or not."""

    subjects: tuple[str, ...] | None = None
    scopes: tuple[str, ...] | None = None
    at: int | None = None
    include_archived: bool = False


def _turns_where(stmt: Any, f: TurnFilter) -> Any:
    """``stmt`` (a select from the turn table) limited to the turns ``f`` admits."""
    if f.users is not None:
        cond = TURN.c.user.in_(f.users)
        stmt = stmt.where(or_(cond, TURN.c.user.is_(None)) if "me" in f.users else cond)
    if f.projects is not None:
        cond = TURN.c.project.in_(f.projects)
        stmt = stmt.where(or_(cond, TURN.c.project.is_(None)) if f.projects_or_none else cond)
    if f.sessions is not None:
        stmt = stmt.where(TURN.c.session.in_(f.sessions))
    if f.at is not None:
        stmt = stmt.where(TURN.c.time <= f.at)
    if f.since is not None:
        stmt = stmt.where(TURN.c.time >= f.since)
    if f.until is not None:
        stmt = stmt.where(TURN.c.time <= f.until)
    return stmt


def _memories_where(stmt: Any, f: MemoryFilter) -> Any:
    """``stmt`` (a select from the memory table) limited by ``f``'s subjects,
    ``at`` and archiving."""
    if f.subjects is not None:
        stmt = stmt.where(MEMORY.c.subject.in_(f.subjects))
    if f.at is not None:
        stmt = stmt.where(MEMORY.c.created_at <= f.at)
    if not f.include_archived:
        stmt = stmt.where(MEMORY.c.archived_at.is_(None) if f.at is None else
                          or_(MEMORY.c.archived_at.is_(None), MEMORY.c.archived_at > f.at))
    return stmt


def memory_ids(engine: Engine, f: MemoryFilter, limit: int) -> list[int]:
    """The ids of at most ``limit`` memories ``f`` admits."""
    stmt = select(MEMORY.c.id)
    if f.scopes:
        stmt = stmt.join(CLAIM, CLAIM.c.id == MEMORY.c.claim_id).where(CLAIM.c.scope.in_(f.scopes))
    stmt = _memories_where(stmt, f)
    with engine.connect() as conn:
        return [int(r[0]) for r in conn.execute(stmt.limit(limit))]


def turn_ids(engine: Engine, f: TurnFilter, limit: int) -> list[int]:
    """The ids of at most ``limit`` turns ``f`` admits."""
    with engine.connect() as conn:
        return [int(r[0]) for r in conn.execute(_turns_where(select(TURN.c.id), f).limit(limit))]


def scope_turns(engine: Engine, f: TurnFilter, *, most: int,
                unless: tuple[int, int] | None = None) -> tuple[tuple[int, int], list[tuple] | None]:
    """The mark of the turns ``f`` admits, (count, highest id), and, unless
    the mark equals ``unless`` or the count is over ``most``, their rows (id,
    session, turn, text, time, offset; in session order; at most ``most`` +
    1), read in one transaction; else None for the rows."""
    with engine.connect() as conn:
        count, top = conn.execute(_turns_where(select(func.count(), func.max(TURN.c.id)), f)).one()
        mark = (int(count or 0), int(top or 0))
        if mark == unless or mark[0] > most:
            return mark, None
        stmt = _turns_where(select(TURN.c.id, TURN.c.session, TURN.c.turn, TURN.c.text,
                                   TURN.c.time, TURN.c.time_tz), f)
        return mark, list(conn.execute(stmt.order_by(TURN.c.session, TURN.c.turn)
                                       .limit(most + 1)).all())


def turns_upto(engine: Engine, n: int) -> int:
    """How many turns the store holds, counted up to ``n`` (at most ``n``)."""
    with engine.connect() as conn:
        found = conn.execute(select(func.count()).select_from(
            select(TURN.c.id).limit(n).subquery())).scalar()
    return int(found or 0)


def conversations(engine: Engine, user: str) -> list[tuple[str, str | None]]:
    """The distinct (session, project) pairs of ``user``'s turns (``me``:
    those stored without a user too)."""
    stmt = select(TURN.c.session, TURN.c.project).distinct()
    stmt = stmt.where(or_(TURN.c.user == user, TURN.c.user.is_(None))
                      if user == "me" else TURN.c.user == user)
    with engine.connect() as conn:
        return [(str(a), b) for a, b in conn.execute(stmt)]


# ------------------------------------------------------------ what the store holds
_CONFLICT_COLS = (CONFLICT.c.id, CONFLICT.c.fact_ids, CONFLICT.c.claim_id, CONFLICT.c.subject)
_Q_OPEN_CONFLICTS = select(*_CONFLICT_COLS).where(CONFLICT.c.state == "open")
_Q_CONFLICTS_AT = select(*_CONFLICT_COLS).where(
    CONFLICT.c.opened_at <= bindparam("k"),
    or_(CONFLICT.c.resolved_at.is_(None), CONFLICT.c.resolved_at > bindparam("k")))
_Q_NEW_TEXTS = {
    "memories": select(MEMORY.c.id, MEMORY.c.text).where(MEMORY.c.id > bindparam("after"))
    .order_by(MEMORY.c.id),
    "turns": select(TURN.c.id, TURN.c.text).where(TURN.c.id > bindparam("after")).order_by(TURN.c.id),
}


def open_conflicts(engine: Engine, known_at: int | None) -> list[tuple[int, str, int, str]]:
    """The conflicts open now (``known_at`` None) or at ``known_at``: (id,
    fact ids as stored (JSON), claim id, subject)."""
    with engine.connect() as conn:
        rows = (conn.execute(_Q_OPEN_CONFLICTS) if known_at is None
                else conn.execute(_Q_CONFLICTS_AT, {"k": known_at}))
        return [(int(r[0]), r[1], int(r[2]), r[3]) for r in rows]


def new_texts(engine: Engine, over: str, after: int) -> list[tuple[int, str]]:
    """(id, text) of the memories (``over="memories"``) or turns
    (``"turns"``) with an id above ``after``, in id order. Raises KeyError
    for another ``over``."""
    stmt = _Q_NEW_TEXTS[over]
    with engine.connect() as conn:
        return [(int(i), t) for i, t in conn.execute(stmt, {"after": after})]


def subjects_and_names(engine: Engine) -> tuple[list[str], list[tuple[str, str]]]:
    """Every subject of a fact, and (subject, name) of every current ``name`` fact."""
    with engine.connect() as conn:
        subjects = [r[0] for r in conn.execute(select(FACT.c.subject).distinct())]
        names = [(r[0], r[1]) for r in conn.execute(
            select(FACT.c.subject, FACT.c.object).where(
                FACT.c.predicate == "name", FACT.c.retired_at.is_(None)))]
    return subjects, names


def approvers(engine: Engine, claim_ids: Iterable[int]) -> dict[int, str]:
    """Who approved each of these claims (only the approved ones)."""
    with engine.connect() as conn:
        return dict(conn.execute(select(CLAIM.c.id, CLAIM.c.decided_by)
                                 .where(CLAIM.c.id.in_(sorted(claim_ids)),
                                        CLAIM.c.state == "approved")).all())


def told_in(engine: Engine, sessions: Iterable[str],
            turns: Iterable[int]) -> list[tuple[str, str, str, str, int]]:
    """(subject, predicate, object, session, turn) of the facts whose claims
    came from turns of these sessions with these numbers (any pairing of the
    two: the caller keeps the pairs it wants), distinct."""
    stmt = (select(FACT.c.subject, FACT.c.predicate, FACT.c.object, TURN.c.session, TURN.c.turn)
            .join(CLAIM, CLAIM.c.id == FACT.c.claim_id)
            .join(TURN, TURN.c.id == CLAIM.c.turn_id)
            .where(TURN.c.session.in_(sorted(sessions)), TURN.c.turn.in_(sorted(turns)))
            .distinct())
    with engine.connect() as conn:
        return [(str(a), str(b), str(o), str(c), int(d)) for a, b, o, c, d in conn.execute(stmt)]


def holders(engine: Engine, predicates: Sequence[str], subjects: Iterable[str] | None,
            now: int, known_at: int | None) -> list[str]:
    """Subjects (among ``subjects``; None: any) with a fact of one of the
    predicates valid at ``now`` as the store had been told by ``known_at``
    (None: now), the most recently told first (at most 50)."""
    believed = (FACT.c.retired_at.is_(None) if known_at is None else and_(*told_by(known_at)))
    stmt = (select(FACT.c.subject, func.max(KNOWN_FROM).label("last"))
            .where(FACT.c.predicate.in_(predicates), believed,
                   FACT.c.valid_from <= now,
                   or_(FACT.c.valid_to.is_(None), FACT.c.valid_to > now))
            .group_by(FACT.c.subject).order_by(func.max(KNOWN_FROM).desc()).limit(50))
    if subjects is not None:
        stmt = stmt.where(FACT.c.subject.in_(sorted(subjects)))
    with engine.connect() as conn:
        return [str(r[0]) for r in conn.execute(stmt)]


# ------------------------------------------------------------ stored vectors
@dataclass(frozen=True, slots=True)
class VectorKey:
    """Whose vectors: one kind of item (``memory`` or ``turn``) embedded by
    one embedder at one version."""

    kind: str
    embedder: str
    version: str


_SOURCES = {"memory": MEMORY, "turn": TURN}
_VECTOR_ROW = (VECTOR.c.id, VECTOR.c.item_id, VECTOR.c.vector, VECTOR.c.kind,
               VECTOR.c.embedder, VECTOR.c.embedder_version, VECTOR.c.dim)
_Q_VECTOR_ROWS = select(*_VECTOR_ROW)
_Q_VECTORS_AFTER = (_Q_VECTOR_ROWS.where(VECTOR.c.id > bindparam("last"))
                    .order_by(VECTOR.c.id).limit(bindparam("batch")))
_Q_NEWEST = {kind: select(func.max(table.c.id)) for kind, table in _SOURCES.items()}


def _mine(key: VectorKey) -> tuple:
    return (VECTOR.c.kind == key.kind, VECTOR.c.embedder == key.embedder,
            VECTOR.c.embedder_version == key.version)


def ensure_vector_table(engine: Engine) -> None:
    """Create the vector table (and the fact-by-claim index recall uses) in a
    store made before they existed (reads the schema first)."""
    VECTOR.create(engine, checkfirst=True)
    for index in FACT.indexes:
        if index.name == "ix_fact_claim":
            index.create(engine, checkfirst=True)


def insert_vectors(engine: Engine, rows: list[dict[str, Any]],
                   before_commit: Callable[[], None] | None = None) -> None:
    """Store vector rows (``recall_vector`` columns by name) in one
    transaction, skipping those another writer stored first;
    ``before_commit`` runs inside the transaction, after the insert."""
    dialect = engine.dialect.name
    stmt: Executable
    if dialect == "postgresql":
        stmt = postgresql.insert(VECTOR).on_conflict_do_nothing()
    elif dialect == "sqlite":
        stmt = sqlite.insert(VECTOR).on_conflict_do_nothing()
    else:  # pragma: no cover - the store supports only these two
        stmt = VECTOR.insert()
    with engine.begin() as conn:
        conn.execute(stmt, rows)
        if before_commit is not None:
            before_commit()


def vector_watermark(engine: Engine, key: VectorKey) -> int:
    """The highest item id that has a vector of ``key`` (0: none)."""
    with engine.connect() as conn:
        return conn.execute(select(func.max(VECTOR.c.item_id)).where(*_mine(key))).scalar() or 0


def items_without_vectors(engine: Engine, key: VectorKey, *, full: bool) -> list[tuple[int, str]]:
    """(id, text) of the items of ``key.kind`` without a vector of ``key``,
    in id order: every one (``full``) or only those above the highest item
    with one (one index lookup). Raises KeyError for an unknown kind."""
    src = _SOURCES[key.kind]
    with engine.connect() as conn:
        if full:  # every item without a vector, gaps included
            have = select(VECTOR.c.item_id).where(*_mine(key))
            stmt = select(src.c.id, src.c.text).where(src.c.id.not_in(have))
        else:  # only items newer than the newest embedded one: one index lookup
            mark = conn.execute(select(func.max(VECTOR.c.item_id)).where(*_mine(key))).scalar() or 0
            stmt = select(src.c.id, src.c.text).where(src.c.id > mark)
        return [(int(i), t) for i, t in conn.execute(stmt.order_by(src.c.id))]


def newest_item(engine: Engine, kind: str) -> int:
    """The highest id of the memories or turns (0: none). Raises KeyError
    for an unknown kind."""
    with engine.connect() as conn:
        return int(conn.execute(_Q_NEWEST[kind]).scalar() or 0)


def count_vectors(engine: Engine, key: VectorKey, max_row_id: int | None = None) -> int:
    """How many vectors of ``key`` are stored (with a row id up to ``max_row_id``)."""
    stmt = select(func.count()).select_from(VECTOR).where(*_mine(key))
    if max_row_id is not None:
        stmt = stmt.where(VECTOR.c.id <= max_row_id)
    with engine.connect() as conn:
        return int(conn.execute(stmt).scalar() or 0)


def max_vector_row(engine: Engine, key: VectorKey) -> int:
    """The highest row id of a vector of ``key`` (0: none)."""
    with engine.connect() as conn:
        return int(conn.execute(select(func.max(VECTOR.c.id)).where(*_mine(key))).scalar() or 0)


def vector_rows_after(engine: Engine, last: int, batch: int) -> list[tuple]:
    """At most ``batch`` vector rows of any kind with row id above ``last``, in
    row id order: (id, item id, vector, kind, embedder, version, dim). A range
    on the primary key only: with the other columns in the WHERE clause the
    databases prefer the unique index and scan every vector of the embedder
    just to find the few new ones."""
    with engine.connect() as conn:
        return list(conn.execute(_Q_VECTORS_AFTER, {"last": last, "batch": batch}).all())


def vector_rows(engine: Engine, row_ids: Sequence[int]) -> list[tuple]:
    """The vector rows (any kind) among these row ids, in the shape of
    ``vector_rows_after``; read 500 at a time on one connection."""
    found: list[tuple] = []
    with engine.connect() as conn:
        for s in range(0, len(row_ids), 500):
            found += conn.execute(_Q_VECTOR_ROWS.where(VECTOR.c.id.in_(row_ids[s:s + 500]))).all()
    return found


def item_vectors(engine: Engine, key: VectorKey, item_ids: Sequence[int]) -> list[tuple[int, bytes]]:
    """(item id, vector bytes) of the vectors of ``key`` of these items;
    read 500 at a time on one connection."""
    out: list[tuple[int, bytes]] = []
    with engine.connect() as conn:
        for s in range(0, len(item_ids), 500):
            stmt = select(VECTOR.c.item_id, VECTOR.c.vector).where(
                *_mine(key), VECTOR.c.item_id.in_(item_ids[s:s + 500]))
            out += [(int(i), bytes(blob)) for i, blob in conn.execute(stmt)]
    return out


# ------------------------------------------------------------ where a store lives
@dataclass(frozen=True, slots=True)
class StoreLocation:
    """A store URL's parts, as the recall index folder is named after them."""

    backend: str  # sqlite, postgresql
    database: str | None
    host: str | None
    port: int | None
    safe_url: str  # the URL with its password hidden


def store_location(url: str) -> StoreLocation:
    """The parts of an SQLAlchemy URL. Raises what ``make_url`` raises for
    one it cannot parse (sqlalchemy.exc.ArgumentError)."""
    parsed = make_url(url)
    return StoreLocation(parsed.get_backend_name(), parsed.database, parsed.host, parsed.port,
                         parsed.render_as_string(hide_password=True))


__all__ = [
    "BLOCK", "MEMORY_ROW_KEYS", "STAMP_TURN", "TURN_ROW_KEYS", "Engine", "HotReads",
    "MemoryFilter", "StoreLocation", "TurnFilter", "VectorKey", "approvers", "conversations",
    "count_vectors", "ensure_vector_table", "holders", "insert_vectors", "item_vectors",
    "items_without_vectors", "max_vector_row", "memory_ids", "new_texts", "newest_item",
    "open_conflicts", "scope_turns", "store_location", "subjects_and_names", "told_in",
    "turn_ids", "turns_upto", "vector_rows", "vector_rows_after", "vector_watermark",
]
