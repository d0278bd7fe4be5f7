"""The public entry point: ``Store.open(url)``.

A Store owns an engine and hands out plain records. Reads run on a raw DBAPI
connection per thread with statements compiled once for the dialect; every
write runs in its own transaction through ``core.writer.WriteBatch``, so a
failed write leaves the store as it was.

A Store may be shared between threads: each thread gets its own read
connection, and writes take the store's write lock in the database.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from types import MethodType
from typing import TYPE_CHECKING, Any, TextIO, cast

from sqlalchemy import and_, bindparam, func, or_, select, text, update
from sqlalchemy.exc import (
    DatabaseError,
    DBAPIError,
    IntegrityError,
    OperationalError,
    ProgrammingError,
)
from sqlmodel import SQLModel

from . import gates, parallel_parse
from . import tokens as access_tokens
from .access import Caller
from .audit_trail import decision_steps, with_upkeep
from .axes import KNOWN_FROM, recorded_by, told_by
from .bitemporal import normalise_object
from .bounds import Bounds
from .catalog import Catalog
from .chain import GENESIS, VerifyProblem, VerifyReport
from .chain import verify as verify_chain
from .checks import (
    check_count,
    check_id,
    check_moment,
    check_name,
    check_predicate,
    check_required_text,
    check_scope,
    check_stored_name,
    check_subject,
    check_text,
)
from .claims import (
    EDITABLE,
    ClaimInput,
    claim_line,
    edited_claim,
    read_claims,
)
from .clock import Clock, SystemClock, now_us
from .db import PreparedQuery, clear_wal, make_engine, migrations, normalise_url
from .db.tables import SCHEMA_VERSION
from .erase import ErasureReport, erase_subject, subject_mentions
from .errors import (
    AlreadyDecided,
    CandidateNotFound,
    ConflictNotFound,
    FactNotFound,
    FactRetired,
    InputFileError,
    InvalidInput,
    PredicateMismatch,
    StoreError,
    TurnMismatch,
)
from .failpoints import point
from .gates import Outcome, Resolution, Statement
from .mentions import Mention
from .parallel_parse import ParsedClaim
from .records import (
    AuditReport,
    Candidate,
    Conflict,
    Fact,
    ImportSummary,
    PredicateInfo,
    Source,
    TurnRecord,
)
from .timeutil import iso, to_us
from .undo import RESOLUTION_UNDOES, undo_decision, undo_resolution
from .writer import (
    CLAIM,
    CONFLICT,
    FACT,
    MEMORY,
    META,
    PRED,
    TURN,
    WriteBatch,
    WriteProcess,
    WriterUnavailable,
    chunks,
    fact_from_row,
    load_said,
)

if TYPE_CHECKING:
    from .ingest import Extracted
    from .maintain import MaintenanceReport
    from .pipeline import Turn

DEFAULT_REVIEW_THRESHOLD = 0.75
# audit columns shown in provenance chains (``rows`` of a bulk import can be megabytes)
RESOLUTIONS = tuple(str(r) for r in Resolution)
_EDITABLE = EDITABLE


def _as_us(value: datetime | int | None, default: int, what: str = "time") -> int:
    """A time argument in µs: None gives ``default``; an int must lie within
    the calendar, a datetime must carry its offset. Raises InvalidInput."""
    if value is None:
        return default
    if isinstance(value, datetime):
        return to_us(value)
    return check_moment(value, what)


def _starts_with(column: Any, prefix: str) -> Any:
    """``column`` starts with ``prefix``, as a range instead of LIKE, so both
    backends walk the column's index (and no LIKE wildcard needs escaping)."""
    return and_(column >= prefix, column < prefix + "\U0010ffff")


def _slot(subject: str, predicate: str | None) -> tuple[str, str | None]:
    """A (subject, predicate) to look up, checked as import lines are. Raises InvalidInput."""
    return check_subject(subject), None if predicate is None else check_predicate(predicate)


def _signals_name(extractor: Any) -> str | None:
    """The signal layer an ingest ran behind (None: the extractor alone)."""
    layer = getattr(extractor, "layer", None)
    return None if layer is None else str(layer.name)


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector during a bulk write.

    A large import allocates millions of short-lived, acyclic objects; letting
    the collector walk them again and again costs about a third of the import
    time. Reference counting still frees them; the previous state is restored.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


_CREATE_ATTEMPTS = 20
_ANALYZE_AFTER = 1_000  # rows written by one import before PostgreSQL statistics are refreshed


def _lost_creation_race(exc: DBAPIError) -> bool:
    """Whether a failed schema creation means another process created it first,
    or is creating it now. SQLite reports "database is locked" without waiting
    out the busy timeout when waiting could deadlock (a reader upgrading to a
    writer while another process creates the schema), so that is a retry too."""
    return (isinstance(exc, IntegrityError | ProgrammingError)
            or "already exists" in str(exc.orig) or "database is locked" in str(exc.orig))


class Store:
    """A memdesk store. Open with ``Store.open(url)``; close with ``close()`` or ``with``."""

    def __init__(self, url: str, *, catalog: Catalog, clock: Clock,
                 review_threshold: float, bounds: Bounds | None = None) -> None:
        self.url = url
        self.bounds = bounds or Bounds()  # the work one request may ask for (core.bounds)
        self.catalog = catalog
        self.clock = clock
        self.review_threshold = review_threshold
        self.engine = make_engine(url)
        self._local = threading.local()
        self._erasure_listeners: list[Callable[[], Callable[[], None] | None]] = []
        self._raw_conns: list[Any] = []
        self._lock = threading.Lock()
        self._insert_sql: dict = {}
        self._signal_layer: Any = None  # core.signals.layer.SignalLayer, loaded at the first ingest
        cols = list(FACT.c)
        valid = [
            FACT.c.subject == bindparam("subject"),
            FACT.c.valid_from <= bindparam("valid_at"),
            or_(FACT.c.valid_to.is_(None), FACT.c.valid_to > bindparam("valid_at")),
        ]
        base = [*valid, *told_by(bindparam("known_at"))]
        order = (FACT.c.predicate, FACT.c.valid_from, FACT.c.id)
        by_p = FACT.c.predicate == bindparam("predicate")
        self._q_asof_p = PreparedQuery(select(*cols).where(*base, by_p).order_by(*order),
                                       self.engine)
        self._q_asof = PreparedQuery(select(*cols).where(*base).order_by(*order), self.engine)
        # the same, as this store had written by ``recorded_at`` (both axes)
        both = [*valid, *recorded_by(bindparam("recorded_at"), bindparam("known_at"))]
        self._q_asof_rp = PreparedQuery(select(*cols).where(*both, by_p).order_by(*order),
                                        self.engine)
        self._q_asof_r = PreparedQuery(select(*cols).where(*both).order_by(*order), self.engine)

    # ------------------------------------------------------------ lifecycle
    @classmethod
    def open(
        cls,
        url: str | Path | None = None,
        *,
        catalog: Catalog | str | Path | None = None,
        clock: Clock | None = None,
        review_threshold: float = DEFAULT_REVIEW_THRESHOLD,
        create: bool = True,
        bounds: Bounds | None = None,
    ) -> Store:
        """Open (and by default create) the store at a path or URL. ``bounds``:
        the work one ingest may ask for (default ``Bounds()``).

        Raises StoreError when the database cannot be reached, is not a memdesk
        store (and ``create`` is False), or has another schema version;
        InvalidInput for a bad threshold or catalog.
        """
        if not 0.0 <= review_threshold <= 1.0:
            raise InvalidInput(f"review threshold must be between 0 and 1, got {review_threshold}")
        if not isinstance(catalog, Catalog):
            catalog = Catalog.load(catalog)
        store = cls(normalise_url(url), catalog=catalog, clock=clock or SystemClock(),
                    review_threshold=review_threshold, bounds=bounds)
        try:
            store._prepare(create)
        except OperationalError as exc:
            store.close()
            raise StoreError(f"cannot open the store at {store.safe_url}: {exc.orig}") from None
        except DatabaseError as exc:  # e.g. a file that is not a database at all
            store.close()
            raise StoreError(f"{store.safe_url} is not a memdesk store: {exc.orig}") from None
        except BaseException:
            store.close()
            raise
        return store

    @property
    def safe_url(self) -> str:
        return self.engine.url.render_as_string(hide_password=True)

    def _prepare(self, create: bool) -> None:
        """Check (or create) the schema. Several processes may open a new store
        at the same moment: the ones that lose the race to create it wait for
        the winner and check its work."""
        for attempt in range(_CREATE_ATTEMPTS):
            try:
                if self._prepare_once(create, last=attempt == _CREATE_ATTEMPTS - 1):
                    return
            except DBAPIError as exc:
                if not create or not _lost_creation_race(exc) or attempt == _CREATE_ATTEMPTS - 1:
                    raise
            time.sleep(min(0.5, 0.05 * (attempt + 1)))

    def _prepare_once(self, create: bool, last: bool) -> bool:
        """One try of ``_prepare``: False when another process is still creating the store."""
        with self.engine.connect() as conn:
            revision = migrations.current(conn)
            version = (conn.execute(select(META.c.schema_version).where(META.c.id == 1)).scalar()
                       if revision is not None else None)
        head = migrations.head()
        if revision is None:
            if not create:
                raise StoreError(f"no memdesk store at {self.safe_url}")
            with self.engine.begin() as conn:
                if self.engine.dialect.name == "sqlite":
                    # the driver runs DDL outside any transaction unless one is open: open
                    # it, so a process killed while creating the store leaves no half schema
                    conn.exec_driver_sql("BEGIN IMMEDIATE")
                SQLModel.metadata.create_all(conn)
                exists = conn.execute(select(META.c.id)).first()
                if exists is None:
                    conn.execute(META.insert().values(
                        id=1, schema_version=SCHEMA_VERSION, last_tx=0,
                        created_at=now_us(SystemClock()), audit_head=GENESIS, audit_last=0))
                    migrations.stamp(conn, "head")
            return True
        if version is None and create and not last:
            return False  # the tables are there, the meta row not yet: being created
        if revision == head:
            if version != SCHEMA_VERSION:
                raise StoreError(
                    f"the store at {self.safe_url} has schema version {version}; "
                    f"this memdesk reads version {SCHEMA_VERSION}")
            return True
        if revision in migrations.known():
            raise StoreError(
                f"the store at {self.safe_url} uses an older schema (revision {revision}; this "
                f"memdesk needs {head}). Back it up, then run `memdesk --db ... upgrade` to upgrade it"
            )
        raise StoreError(
            f"the store at {self.safe_url} was written by a newer memdesk (schema {revision}); "
            f"this memdesk knows schema revisions up to {head}: upgrade memdesk to open it"
        )

    @staticmethod
    def upgrade(url: str | Path | None = None) -> dict[str, str | None]:
        """Upgrade the store at ``url`` to this memdesk's schema, in one
        transaction. Returns {"from": revision, "to": revision}.

        Raises StoreError when there is no store there, the store is newer than
        this memdesk, or the database cannot be reached.
        """
        engine = make_engine(normalise_url(url))
        safe = engine.url.render_as_string(hide_password=True)
        try:
            with engine.connect() as conn:
                revision = migrations.current(conn)
            if revision is None:
                raise StoreError(f"no memdesk store at {safe}")
            if revision not in migrations.known():
                raise StoreError(f"the store at {safe} was written by a newer memdesk "
                                 f"(schema {revision}); it cannot be upgraded by this one")
            before, after = migrations.upgrade(engine)
        except OperationalError as exc:
            raise StoreError(f"cannot upgrade the store at {safe}: {exc.orig}") from None
        finally:
            engine.dispose()
        return {"from": before, "to": after}

    def erase_subject(self, subject: str, *, by: str, redact: Iterable[str] = ()) -> ErasureReport:
        """Erase a person (``user:NAME``): their turns, facts, claims, conflicts,
        memories and recall vectors, in one transaction, leaving a tombstone
        audit entry with counts only (see core.erase), take them out of every
        token, and count the erasure in the store. Other people's rows that
        name them are left as they are and listed in the report (``mentions``),
        except those named in ``redact`` (``turn:12``, …: see core.erase).
        After the commit the SQLite WAL is emptied (``db.clear_wal``) and every
        ``on_erasure`` listener is called (the Recallers of this process
        discard their index files at once); indexes elsewhere discard
        themselves when they next open or refresh.

        Raises InvalidInput for a subject that is not ``user:NAME``, without
        ``by`` or with a row ``redact`` cannot take, SubjectNotFound when
        nothing is stored about it, StoreError when the store fails
        verification beforehand.
        """
        # the subject verbatim: erasure reaches exactly the name stored, one
        # written before names were normalised too (never its look-alike)
        subject = check_stored_name(subject, "subject")
        by = check_name(by, "by (who performs the erasure)")
        with self._write() as batch:
            report = erase_subject(batch, subject, by=by, redact=redact)
        report = dataclasses.replace(report, wal_cleared=clear_wal(self.engine))
        for ref in list(self._erasure_listeners):
            listener = ref()
            if listener is not None:  # None: its object is gone
                listener()
        return report

    def subject_mentions(self, subject: str) -> tuple[Mention, ...]:
        """Other people's rows that name a person (``user:NAME``) and that an
        erasure would leave as they are (core.mentions): read only. Raises
        InvalidInput for another kind of subject."""
        subject = check_name(subject, "subject")
        with self.engine.connect() as conn:
            return subject_mentions(conn, subject)

    def on_erasure(self, listener: Callable[[], None]) -> None:
        """Call ``listener()`` after every erasure this Store commits (derived
        data such as recall indexes must then drop what it built). A bound
        method is held weakly, so registering does not keep its object alive."""
        self._erasure_listeners[:] = [r for r in self._erasure_listeners if r() is not None]
        if isinstance(listener, MethodType):
            self._erasure_listeners.append(weakref.WeakMethod(listener))
        else:
            self._erasure_listeners.append(lambda: listener)

    def erasures(self) -> int:
        """How many erasures this store has committed (``store_meta.erasures``)."""
        with self.engine.connect() as conn:
            return int(conn.execute(select(META.c.erasures).where(META.c.id == 1)).scalar() or 0)

    def verify(self) -> VerifyReport:
        """Recompute the audit log's hash chain and the digest of every row each
        entry covers (core.chain). The report names the first broken entry;
        it never raises for a tampered store (StoreError if unreadable)."""
        try:
            with self.engine.connect() as conn:
                report = verify_chain(conn)
                found = access_tokens.problems(conn)
        except OperationalError as exc:
            raise StoreError(f"cannot read the store at {self.safe_url}: {exc.orig}") from None
        if not found:
            return report
        return dataclasses.replace(report, ok=False, problems=(
            *report.problems, *(VerifyProblem(None, message) for message in found)))

    # ---------------------------------------------------- the door's tokens
    def create_token(self, name: str, *, users: Iterable[str], projects: Iterable[str] = (),
                     read_only: bool = False, by: str) -> tuple[access_tokens.Token, str]:
        """Issue a bearer token for the HTTP door (core.tokens), bound to
        ``users`` and ``projects``: returns it and its secret, which the store
        does not keep (only its hash). Audited. Raises InvalidInput."""
        with self._write() as batch:
            return access_tokens.create(batch, name=name, users=users, projects=projects,
                                 read_only=read_only, by=by)

    def revoke_token(self, token_id: int, *, by: str, reason: str) -> access_tokens.Token:
        """Revoke a token: the door refuses it from the next request on.
        Audited. Raises TokenNotFound, InvalidInput."""
        with self._write() as batch:
            return access_tokens.revoke(batch, token_id, by=by, reason=reason)

    def tokens(self, *, include_revoked: bool = True) -> list[access_tokens.Token]:
        """Every token, oldest first (never their secrets)."""
        with self.engine.connect() as conn:
            return access_tokens.listing(conn, include_revoked=include_revoked)

    def token(self, token_id: int) -> access_tokens.Token:
        """One token. Raises TokenNotFound, InvalidInput."""
        with self.engine.connect() as conn:
            return access_tokens.get(conn, token_id)

    def token_for_secret(self, secret: str) -> access_tokens.Token | None:
        """The token (active or revoked) whose secret this is, or None."""
        if not isinstance(secret, str) or not access_tokens.well_formed(secret):
            return None  # garbage costs no connection
        with self.engine.connect() as conn:
            return access_tokens.find(conn, secret)

    def record_refusal(self, caller: Caller, *, tool: str, reason: str,
                       subject: str | None = None) -> None:
        """Audit a request the door refused (action ``access.refused``): who
        (``caller``), which tool, what it asked for and why it was refused.
        Nothing else is written. Raises StoreError when the store cannot be
        written."""
        reason = check_required_text(reason, "reason")
        with self._write() as batch:
            batch.record_operation(caller.actor, "access.refused", subject=subject,
                                   reason=reason, detail={"tool": tool, "caller": caller.to_dict()})

    def close(self) -> None:
        """Release connections. The Store must not be used afterwards."""
        with self._lock:
            for conn in self._raw_conns:
                try:
                    conn.close()
                except Exception:  # noqa: BLE001 - closing is best effort
                    pass
            self._raw_conns.clear()
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def now(self) -> int:
        """The clock's time (microseconds since the epoch)."""
        return now_us(self.clock)

    # ---------------------------------------------------------------- reads
    def _raw(self) -> Any:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            fairy = self.engine.raw_connection()
            conn = fairy.driver_connection
            if self.engine.dialect.name == "postgresql" and conn is not None:
                conn.autocommit = True
            self._local.conn = conn
            with self._lock:
                self._raw_conns.append(fairy)
        return conn

    def as_of(
        self,
        subject: str,
        predicate: str | None = None,
        *,
        valid_at: datetime | int | None = None,
        known_at: datetime | int | None = None,
        include_expired: bool = True,
        recorded_at: datetime | int | None = None,
    ) -> list[Fact]:
        """Rows that hold at ``valid_at`` as the store had been told by
        ``known_at`` (both default to now; docs/DESIGN.md §2.1: the told axis,
        the times the source turns were said). With ``recorded_at``, only what
        this store had written by then (the recorded axis): what it would have
        answered at that moment.

        Facts whose TTL has run out by ``valid_at`` are dropped unless
        ``include_expired``. Raises InvalidInput for a malformed subject,
        predicate or time.
        """
        subject, predicate = _slot(subject, predicate)
        now = self.now() if valid_at is None or known_at is None else 0
        v = _as_us(valid_at, now, "valid_at")
        k = _as_us(known_at, now, "known_at")
        raw = self._raw()
        if recorded_at is not None:
            r = _as_us(recorded_at, now, "recorded_at")
            if predicate is None:
                rows = self._q_asof_r.run(raw, subject=subject, valid_at=v, known_at=k,
                                          recorded_at=r)
            else:
                rows = self._q_asof_rp.run(raw, subject=subject, predicate=predicate,
                                           valid_at=v, known_at=k, recorded_at=r)
        elif predicate is None:
            rows = self._q_asof.run(raw, subject=subject, valid_at=v, known_at=k)
        else:
            rows = self._q_asof_p.run(raw, subject=subject, predicate=predicate,
                                      valid_at=v, known_at=k)
        facts = [Fact(*r) for r in rows]
        if not include_expired:
            facts = [f for f in facts if f.expires_at is None or f.expires_at > v]
        return facts

    def _select_facts(self, *where: Any) -> list[Fact]:
        stmt = select(*FACT.c).where(*where).order_by(
            FACT.c.predicate, FACT.c.valid_from, FACT.c.recorded_at, FACT.c.id)
        with self.engine.connect() as conn:
            return [fact_from_row(r) for r in conn.execute(stmt)]

    def current(self, subject: str, predicate: str | None = None) -> list[Fact]:
        """Current belief: every row not retired, whatever its valid time.
        Raises InvalidInput for a malformed subject or predicate."""
        subject, predicate = _slot(subject, predicate)
        where = [FACT.c.subject == subject, FACT.c.retired_at.is_(None)]
        if predicate is not None:
            where.append(FACT.c.predicate == predicate)
        return self._select_facts(*where)

    def history(self, subject: str, predicate: str | None = None) -> list[Fact]:
        """Every row ever recorded for the subject (and predicate), retired ones
        too. Raises InvalidInput for a malformed subject or predicate."""
        subject, predicate = _slot(subject, predicate)
        where = [FACT.c.subject == subject]
        if predicate is not None:
            where.append(FACT.c.predicate == predicate)
        return self._select_facts(*where)

    def fact(self, fact_id: int) -> Fact:
        """One row by id. Raises FactNotFound, InvalidInput for a malformed id."""
        rows = self._select_facts(FACT.c.id == check_id(fact_id, "fact id"))
        if not rows:
            raise FactNotFound(f"no fact with id {fact_id}")
        return rows[0]

    def subjects(self, prefix: str = "", limit: int = 1000) -> list[str]:
        """Distinct subjects, sorted, optionally starting with ``prefix``."""
        stmt = select(FACT.c.subject).distinct().order_by(FACT.c.subject).limit(limit)
        if prefix:
            stmt = stmt.where(_starts_with(FACT.c.subject, prefix))
        with self.engine.connect() as conn:
            return [r[0] for r in conn.execute(stmt)]

    def memories(self, subject: str | None = None, limit: int = 1000, *, offset: int = 0,
                 under: str | None = None, include_archived: bool = True
                 ) -> list[dict[str, Any]]:
        """Memory texts of the vector path (sensitive data masked), newest first,
        with the turn each came from and how often it was said; archived ones
        too (unless ``include_archived`` is false), with when and why
        (``archived_at``, ``archive_reason``, and ``merged_into`` for a near
        duplicate folded by maintenance). ``subject``: only its memories;
        ``under``: also those of the subjects starting with it (a user's
        people, ``person:<user>/``). ``limit`` rows from ``offset`` on."""
        stmt = (select(MEMORY.c.id, MEMORY.c.subject, MEMORY.c.predicate, MEMORY.c.text,
                       MEMORY.c.mentions, MEMORY.c.claim_id, MEMORY.c.created_at,
                       TURN.c.session, TURN.c.turn, MEMORY.c.archived_at,
                       MEMORY.c.archive_reason, MEMORY.c.merged_into)
                .join(TURN, TURN.c.id == MEMORY.c.turn_id)
                .order_by(MEMORY.c.created_at.desc(), MEMORY.c.id.desc())
                .limit(limit).offset(offset))
        if subject is not None and under is not None:
            stmt = stmt.where(or_(MEMORY.c.subject == subject, _starts_with(MEMORY.c.subject, under)))
        elif subject is not None:
            stmt = stmt.where(MEMORY.c.subject == subject)
        if not include_archived:
            stmt = stmt.where(MEMORY.c.archived_at.is_(None))
        with self.engine.connect() as conn:
            return [{**r._mapping, "created_at": iso(r.created_at),
                     "archived_at": iso(r.archived_at)} for r in conn.execute(stmt)]

    def sources(self, claim_ids: Iterable[int]) -> dict[int, Source]:
        """The source turn of each claim id."""
        ids = sorted(set(claim_ids))
        out: dict[int, Source] = {}
        if not ids:
            return out
        with self.engine.connect() as conn:
            for part in chunks(ids):
                stmt = select(
                    TURN.c.session, TURN.c.turn, TURN.c.speaker, TURN.c.text, TURN.c.time,
                    TURN.c.time_tz, CLAIM.c.source_kind, CLAIM.c.id, CLAIM.c.confidence,
                    CLAIM.c.extractor,
                ).join(TURN, TURN.c.id == CLAIM.c.turn_id).where(CLAIM.c.id.in_(part))
                for row in conn.execute(stmt):
                    out[row[7]] = Source(*row)  # a frozen dataclass of these columns
        return out

    def mentions(self, claim_ids: Iterable[int]) -> dict[int, int]:
        """How many claims stand behind each lineage (its own claim plus merged ones)."""
        ids = sorted(set(claim_ids))
        out = {i: 1 for i in ids}
        with self.engine.connect() as conn:
            for part in chunks(ids):
                stmt = select(CLAIM.c.merged_into, func.count()).where(
                    CLAIM.c.merged_into.in_(part)).group_by(CLAIM.c.merged_into)
                for claim_id, n in conn.execute(stmt):
                    out[claim_id] += n
        return out

    def fact_dicts(self, facts: Sequence[Fact], at: int | None = None,
                   known_at: int | None = None) -> list[dict[str, Any]]:
        """JSON-ready dicts for facts, with their source turn and mention count.
        ``status`` is judged at valid time ``at`` (default now) as believed at
        ``known_at`` (default now)."""
        at = self.now() if at is None else at
        claim_ids = [f.claim_id for f in facts]
        sources = self.sources(claim_ids)
        mentions = self.mentions(claim_ids)
        return [
            f.to_dict(at=at, known_at=known_at, source=sources.get(f.claim_id),
                      mentions=mentions.get(f.claim_id, 1))
            for f in facts
        ]

    # --------------------------------------------------------------- writes
    @contextmanager
    def _write(self) -> Iterator[WriteBatch]:
        try:
            with self.engine.begin() as conn:
                batch = WriteBatch(conn, self.catalog, self.review_threshold,
                                   wall_us=now_us(SystemClock()), insert_sql=self._insert_sql,
                                   now=self.now())
                point("tx.begin")
                yield batch
                batch.finish()
                point("tx.commit")
            point("tx.committed")
        except DBAPIError as exc:  # locked, refused, out of range…: rolled back, said plainly
            raise StoreError(f"the store could not complete the write: {exc.orig}; "
                             "nothing was saved") from None

    def _can_write_elsewhere(self) -> bool:
        """Whether a writer process can own this store's transactions: a SQLite file."""
        url = self.engine.url
        return (self.engine.dialect.name == "sqlite" and bool(sys.executable)
                and not getattr(sys, "frozen", False)  # a bundled app cannot run ``python -c``
                and url.database not in (None, "", ":memory:") and "mode=memory" not in str(url))

    @contextmanager
    def _write_elsewhere(self) -> Iterator[WriteBatch]:
        """Like ``_write``, for a bulk import into a SQLite file: the transaction
        belongs to a writer process (core.writer.WriteProcess) that inserts one
        chunk of rows while this process runs the gates on the next one.
        Where no writer process can start, the write happens here after all."""
        try:
            process = WriteProcess(self.url)
        except WriterUnavailable:
            with self._write() as batch:
                yield batch
            return
        try:
            with self.engine.connect() as conn:
                batch = WriteBatch(conn, self.catalog, self.review_threshold,
                                   wall_us=now_us(SystemClock()), insert_sql=self._insert_sql,
                                   process=process, now=self.now())
                point("tx.begin")
                yield batch
                batch.finish()
            point("tx.commit")
            process.commit()
            point("tx.committed")
        except DBAPIError as exc:
            raise StoreError(f"the store could not complete the write: {exc.orig}") from None
        finally:
            process.close()

    def add(self, claims: ClaimInput | Iterable[ClaimInput], *, actor: str = "api") -> ImportSummary:
        """Run claims through the gates in one transaction (all or nothing).

        Transaction time for each claim is its source turn's time (replay),
        never earlier than what the store already recorded.
        Raises TurnMismatch or PredicateMismatch for inconsistent claims.
        """
        items = [claims] if isinstance(claims, ClaimInput) else list(claims)
        with _gc_paused(), self._write() as batch:
            batch.prefetch(items)
            for claim in items:
                batch.submit(claim)
            summary = batch.summary()
            batch.record_operation(actor, "claims.added", detail={"summary": summary.to_dict()},
                                   skip_if_unchanged=True)
            return summary

    def import_file(self, path: str | Path, *, actor: str = "import",
                    parallel: bool | None = None) -> ImportSummary:
        """Validate a JSONL file of facts and import it in one transaction.

        Large files (``parallel``: None decides by file size) are parsed in a
        second process while this one runs the gates; on a SQLite file a third
        process writes the rows and owns the transaction. Either way a bad
        line stops the import and rolls it back, so nothing is written.
        Raises InputFileError naming the first bad line, FileNotFoundError when
        the file is missing.
        """
        name = str(path)
        size = Path(path).stat().st_size
        if parallel is None:
            parallel = parallel_parse.available() and size >= parallel_parse.PARALLEL_MIN_BYTES
        with _gc_paused():
            if not parallel:
                return self._import_chunks([read_claims(path)], name, actor)
            chunks_in = parallel_parse.claim_chunks(path)  # forks now, before the writer starts
            try:
                return self._import_chunks(chunks_in, name, actor,
                                           elsewhere=self._can_write_elsewhere())
            finally:
                chunks_in.close()

    def import_claims(self, claims: Sequence[ClaimInput], *, actor: str = "import",
                      origin: str = "api", caller: Caller | None = None) -> ImportSummary:
        """Import claims held in memory through every gate, in one
        transaction, as ``import_file`` imports a file's lines; ``origin``
        names where they came from in the audit, ``caller`` who sent them
        through the agent's door. Raises InvalidInput naming the claim at
        fault (nothing is written)."""
        try:
            with _gc_paused():
                return self._import_chunks([list(enumerate(claims, 1))], origin, actor,
                                           caller=caller)
        except InputFileError as exc:
            raise InvalidInput(f"claim {exc.line}: {exc.detail}") from None

    def _import_chunks(self, numbered_chunks: Iterable[list[tuple[int, ClaimInput]]]
                       | Iterable[list[tuple[int, ParsedClaim]]],
                       path: str, actor: str, elsewhere: bool = False,
                       caller: Caller | None = None) -> ImportSummary:
        with self._write_elsewhere() if elsewhere else self._write() as batch:
            for numbered in numbered_chunks:
                point("import.chunk")
                batch.prefetch([c for _, c in numbered])
                for line, claim in numbered:
                    try:
                        batch.submit(claim)
                    except (TurnMismatch, PredicateMismatch) as exc:
                        raise InputFileError(line, str(exc), path) from None
            summary = batch.summary()
            detail: dict[str, Any] = {"file": path, "summary": summary.to_dict()}
            if caller is not None:
                detail["caller"] = caller.to_dict()
            batch.record_operation(actor, "import", reason=f"import of {path}", detail=detail,
                                   skip_if_unchanged=True)
        self._refresh_statistics(summary.lines - summary.unchanged)
        return summary

    def _refresh_statistics(self, added: int) -> None:
        """After a bulk write on PostgreSQL, refresh the planner's statistics.
        Until autovacuum gets to it the planner believes the tables nearly
        empty and, e.g., sorts the whole review queue instead of walking its
        index (measured: 12 ms instead of 0.1 ms for the first page of 2,000)."""
        if added < _ANALYZE_AFTER or self.engine.dialect.name != "postgresql":
            return
        try:
            with self.engine.connect() as conn:
                conn.execute(text("ANALYZE claim, fact, turn, memory"))
                conn.commit()
        except DBAPIError:  # only statistics: the write itself is committed
            pass

    def ingest_file(self, path: str | Path, *, extractor: Any = None, actor: str = "ingest",
                    progress: Any = None, signals: bool = True) -> dict[str, Any]:
        """Ingest a conversation file (one turn per line, docs/DESIGN.md §6) in one
        transaction: each turn stored raw, its claims extracted (by default
        with the offline rule extractor) and gated. Rerunning a file adds nothing.

        ``progress(done, total)`` is called as turns are processed. The
        extractor's claims pass the signal layer (``core.signals``) unless
        ``signals`` is false.
        Returns the import summary plus turns, turns_with_facts and dropped.
        Raises InputFileError naming the first bad line (nothing is written).
        """
        from .ingest import ingest_turns, iter_turns

        extractor = self._extractor(extractor, signals)
        numbered = list(iter_turns(path))
        self.bounds.check_turns([t for _, t in numbered], lines=[n for n, _ in numbered], path=str(path))
        extracted, extractor = self._extract(numbered, extractor)
        with _gc_paused(), self._write() as batch:
            batch.route_memories = True
            counts = ingest_turns(batch, extracted, extractor, str(path), progress)
            summary = {**batch.summary().to_dict(), **counts, "extractor": extractor.name,
                       "signals": _signals_name(extractor)}
            batch.record_operation(actor, "ingest", reason=f"ingest of {path}",
                                   detail={"file": str(path), "summary": summary},
                                   skip_if_unchanged=True)
            return summary

    def ingest_turns(self, turns: Sequence[Any], *, extractor: Any = None,
                     actor: str = "ingest", origin: str = "api",
                     caller: Caller | None = None, signals: bool = True) -> dict[str, Any]:
        """Ingest conversation turns held in memory (``pipeline.Turn``s) exactly
        as ``ingest_file`` ingests a file's lines, in one transaction: stored
        raw, claims extracted and gated; a turn already stored with the same
        text adds nothing. ``origin`` names where they came from in the audit,
        ``caller`` who sent them through the agent's door.

        Raises InvalidInput for a turn that breaks the rules of a conversation
        line or contradicts a stored one (same session and number, other
        text): nothing is written.
        """
        from .ingest import checked_turn, ingest_turns

        extractor = self._extractor(extractor, signals)
        numbered = []
        for position, turn in enumerate(turns, 1):
            try:
                numbered.append((position, checked_turn(turn)))
            except InvalidInput as exc:
                raise InvalidInput(f"turn {position}: {exc}") from None
        self.bounds.check_turns([t for _, t in numbered])
        extracted, extractor = self._extract(numbered, extractor)
        try:
            with _gc_paused(), self._write() as batch:
                batch.route_memories = True
                counts = ingest_turns(batch, extracted, extractor, origin)
                summary = {**batch.summary().to_dict(), **counts, "extractor": extractor.name,
                       "signals": _signals_name(extractor)}
                detail: dict[str, Any] = {"origin": origin, "summary": summary}
                if caller is not None:
                    detail["caller"] = caller.to_dict()
                batch.record_operation(actor, "ingest", reason=f"ingest from {origin}",
                                       detail=detail, skip_if_unchanged=True)
                return summary
        except InputFileError as exc:  # the "line" is the turn's position in the call
            raise InvalidInput(f"turn {exc.line}: {exc.detail}") from None

    def _extract(self, numbered: Sequence[tuple[int, Turn]], extractor: Any) -> tuple[Extracted, Any]:
        """Extraction, before the write transaction opens (``core.ingest.extract_turns``): the turns'
        context (and, for the signal layer, the people their users named) read through a plain
        connection, given back, then every turn run through the extractor with no transaction open;
        the write lock is then held only to write. Returns what was extracted and the extractor that
        did it (to read a turn again under the lock). Raises StoreError when the store cannot be read."""
        from .ingest import SignalledExtractor, extract_turns, known_people, stored_context

        try:
            with self.engine.connect() as conn:
                context = stored_context(conn, [turn for _, turn in numbered])
                if isinstance(extractor, SignalledExtractor):  # the people users named before, as stored
                    extractor = dataclasses.replace(extractor, people=known_people(conn, [t.user for _, t in numbered]))
        except DBAPIError as exc:
            raise StoreError(f"the store could not be read: {exc.orig}; nothing was saved") from None
        with _gc_paused():
            return extract_turns(numbered, extractor, context), extractor

    def _extractor(self, extractor: Any, signals: bool) -> Any:
        """The extractor an ingest runs: the given one (default: the rules),
        behind the signal layer unless ``signals`` is false. The layer's model
        is loaded once per store."""
        from .ingest import RuleExtractor, SignalledExtractor
        from .signals.layer import SignalLayer

        extractor = extractor or RuleExtractor()
        if not signals:
            return extractor
        if self._signal_layer is None:
            self._signal_layer = SignalLayer(
                single_valued=frozenset(p.id for p in self.catalog if p.single_valued),
                team=frozenset(p.id for p in self.catalog if p.team))
        return SignalledExtractor(extractor, self._signal_layer)

    def retract(self, fact_id: int, *, by: str, reason: str) -> Fact:
        """Withdraw a current-belief row (it was never true and has no replacement).

        Raises FactNotFound, FactRetired if it is no longer current, InvalidInput
        for a malformed id, without a reason or the reviewer's name.
        """
        fact_id = check_id(fact_id, "fact id")
        by = check_name(by, "by (the reviewer's name)")
        reason = check_required_text(reason, "reason (why the fact is retracted)")
        with self._write() as batch:
            row = batch.conn.execute(select(*FACT.c).where(FACT.c.id == fact_id)).first()
            if row is None:
                raise FactNotFound(f"no fact with id {fact_id}")
            fact = fact_from_row(row)
            if fact.retired_at is not None:
                raise FactRetired(f"fact {fact_id} was already retired ({fact.retire_reason})")
            batch.retire(fact, "retracted", None, note=reason)
            batch.record_operation(by, "fact.retracted", subject=fact.subject,
                                   predicate=fact.predicate, reason=reason)
        return self.fact(fact_id)

    # --------------------------------------------------------------- review
    def _candidate_stmt(self):
        return select(*CLAIM.c, TURN.c.session, TURN.c.turn, TURN.c.speaker, TURN.c.text,
                      TURN.c.time, TURN.c.time_tz, TURN.c.recorded_at.label("turn_recorded_at")
                      ).join(TURN, TURN.c.id == CLAIM.c.turn_id)

    @staticmethod
    def _candidate(row: Any) -> Candidate:
        m = row._mapping
        source = Source(m["session"], m["turn"], m["speaker"], m["text"], m["time"],
                        m["time_tz"], m["source_kind"], m["id"], m["confidence"],
                        m["extractor"])
        return Candidate(
            id=m["id"], subject=m["subject"], predicate=m["predicate"], object=m["object"],
            value_json=m["value"], polarity=m["polarity"], scope=m["scope"],
            valid_from=m["valid_from"], valid_to=m["valid_to"], confidence=m["confidence"],
            reasons=tuple(json.loads(m["reasons"])), state=m["state"], change=m["change"],
            source=source, created_at=m["created_at"], decided_by=m["decided_by"],
            decided_at=m["decided_at"], decision_reason=m["decision_reason"],
            fact_id=m["fact_id"], edits=json.loads(m["edits"]) if m["edits"] else None,
        )

    def review_list(self, state: str = "pending", *, limit: int | None = None,
                    offset: int = 0, after: tuple[float, int] | None = None,
                    subject: str | None = None) -> list[Candidate]:
        """Candidates in a state (pending by default), lowest confidence first;
        with ``subject``, that subject's only.

        ``after`` = (confidence, id) of the last candidate already shown pages
        by key, which stays correct while candidates leave the queue.
        Raises InvalidInput for a negative limit or offset, a malformed subject."""
        offset = check_count(offset, "offset")
        if limit is not None:
            limit = check_count(limit, "limit")
        if subject is not None:
            subject = check_subject(subject)
        stmt = self._candidate_stmt().order_by(CLAIM.c.confidence, CLAIM.c.id).offset(offset)
        if subject is not None:
            stmt = stmt.where(CLAIM.c.subject == subject)
        if after is not None:
            stmt = stmt.where(or_(CLAIM.c.confidence > after[0],
                                  (CLAIM.c.confidence == after[0]) & (CLAIM.c.id > after[1])))
        if state != "all":
            stmt = stmt.where(CLAIM.c.state == state)
        if limit is not None:
            stmt = stmt.limit(limit)
        with self.engine.connect() as conn:
            return [self._candidate(r) for r in conn.execute(stmt)]

    def review_count(self, state: str = "pending", *, subject: str | None = None) -> int:
        """How many candidates are in ``state`` (``subject``'s only, if given).
        Raises InvalidInput for a malformed subject."""
        if subject is not None:
            subject = check_subject(subject)
        stmt = select(func.count()).select_from(CLAIM).where(CLAIM.c.state == state)
        if subject is not None:
            stmt = stmt.where(CLAIM.c.subject == subject)
        with self.engine.connect() as conn:
            return conn.execute(stmt).scalar_one()

    def holds_nothing(self) -> bool:
        """Whether the store holds not a single turn or claim (only its schema): a store
        a failed command created may then be removed without losing anything."""
        with self.engine.connect() as conn:
            return all(conn.execute(select(table.c.id).limit(1)).first() is None for table in (TURN, CLAIM))

    def candidate(self, candidate_id: int) -> Candidate:
        """One claim by id. Raises CandidateNotFound, InvalidInput for a malformed id."""
        candidate_id = check_id(candidate_id, "candidate id")
        with self.engine.connect() as conn:
            row = conn.execute(self._candidate_stmt().where(CLAIM.c.id == candidate_id)).first()
        if row is None:
            raise CandidateNotFound(f"no review candidate with id {candidate_id}")
        return self._candidate(row)

    def _take_pending(self, batch: WriteBatch, candidate_id: int, new_state: str, by: str,
                      reason: str | None, edits: dict | None = None) -> dict:
        """Atomically move a pending claim to ``new_state``; the loser of a race gets AlreadyDecided."""
        values: dict[str, Any] = dict(state=new_state, decided_by=by, decided_at=batch.tx,
                                      decision_reason=reason)
        if edits:
            values["edits"] = json.dumps(edits, ensure_ascii=False, sort_keys=True)
        batch.will_update("claim", candidate_id)
        done = batch.conn.execute(
            update(CLAIM).where(CLAIM.c.id == candidate_id, CLAIM.c.state == "pending").values(**values)
        )
        row = batch.conn.execute(select(*CLAIM.c).where(CLAIM.c.id == candidate_id)).first()
        if row is None:
            raise CandidateNotFound(f"no review candidate with id {candidate_id}")
        if done.rowcount != 1:
            who = f" by {row.decided_by}" if row.decided_by else ""
            raise AlreadyDecided(f"candidate {candidate_id} is not pending: it is {row.state}{who}")
        return dict(row._mapping)

    def approve(self, candidate_id: int, *, by: str, edits: dict[str, Any] | None = None,
                note: str | None = None) -> dict[str, Any]:
        """Approve a pending candidate (optionally edited first): it passes the
        dedup and conflict gates and takes effect, recorded as decided by ``by``.

        Returns {"candidate", "outcome", "fact_id", "conflict_id"}. Raises
        CandidateNotFound, AlreadyDecided (someone decided first), InvalidInput
        for bad edits (the edited claim is checked as a whole, as an import
        line is), a malformed id, note or reviewer name; nothing is written then.
        """
        candidate_id = check_id(candidate_id, "candidate id")
        by = check_name(by, "by (the reviewer's name)")
        note = check_text(note, "note")
        clean = self._check_edits(candidate_id, edits) if edits else None
        with self._write() as batch:
            claim = self._take_pending(batch, candidate_id, "approved", by, note, edits)
            if clean:
                claim.update(clean)
            claim["state"] = "approved"
            statement = batch.statement_of(claim)
            rows = batch.belief_rows(claim["subject"], claim["predicate"])
            decision = gates.approve(statement, rows, by=by, edited=bool(edits),
                                     said=batch.evidence_for(statement, rows))
            conflict_id = batch.apply(claim, decision)
            batch.conn.execute(update(CLAIM).where(CLAIM.c.id == candidate_id).values(
                state=claim["state"], fact_id=claim["fact_id"],
                merged_into=claim.get("merged_into"), gates=claim["gates"]))
            assert decision.plan is not None
            batch.record_operation(by, "claim.approved", claim_id=candidate_id,
                                   conflict_id=conflict_id, subject=claim["subject"],
                                   predicate=claim["predicate"], reason=note,
                                   detail={"edits": edits or {}, "outcome": decision.plan.kind})
        state = claim["state"]
        return {"candidate": candidate_id,
                "outcome": decision.plan.kind if state == "approved" else state,
                "fact_id": claim["fact_id"], "conflict_id": conflict_id}

    def _check_edits(self, candidate_id: int, edits: Any) -> dict[str, Any]:
        """The claim columns a reviewer's ``edits`` set on pending candidate
        ``candidate_id``: the candidate with the edits applied is validated as
        a whole by ``claims.edited_claim``, as an import line is (an interval
        that ends before it starts, a bad scope, polarity, time or value is
        refused), before anything is written. An unparsed statement of the
        signal layer edited into a fact loses its marker value.

        Raises CandidateNotFound, InvalidInput naming the edit at fault."""
        with self.engine.connect() as conn:
            found = conn.execute(select(*CLAIM.c, TURN.c.session, TURN.c.turn.label("turn_no"),
                                        TURN.c.speaker, TURN.c.text, TURN.c.time, TURN.c.time_tz)
                                 .join(TURN, TURN.c.id == CLAIM.c.turn_id)
                                 .where(CLAIM.c.id == candidate_id)).first()
        if found is None:
            raise CandidateNotFound(f"no review candidate with id {candidate_id}")
        row = found._mapping
        turn = {"session": row["session"], "turn": row["turn_no"], "speaker": row["speaker"],
                "text": row["text"], "time": row["time"], "time_tz": row["time_tz"]}
        line = claim_line(dict(row), turn)
        if isinstance(line.get("value"), dict) and "unparsed" in line["value"] and (
                "object" in edits or "predicate" in edits):
            edits = {"value": None, **edits}  # edited into a fact: no longer an unparsed note
        try:
            claim = edited_claim(line, edits)
        except InvalidInput as exc:
            raise InvalidInput(f"candidate {candidate_id}: {exc}") from None
        columns = {"predicate": claim.predicate, "object": claim.object, "value": claim.value_json,
                   "polarity": claim.polarity,
                   "scope": claim.scope, "valid_from": claim.valid_from,
                   "valid_to": claim.valid_to, "change": claim.change}
        out = {key: columns[key] for key in edits}
        if "valid_from" in edits:  # the reviewer's start is exact
            out["start_latest"] = None
        return out

    def reject(self, candidate_id: int, *, by: str, reason: str) -> Candidate:
        """Reject a pending candidate; it is kept with the reason.

        Raises CandidateNotFound, AlreadyDecided, InvalidInput without a reason
        or the reviewer's name, or for a malformed id.
        """
        candidate_id = check_id(candidate_id, "candidate id")
        by = check_name(by, "by (the reviewer's name)")
        reason = check_required_text(reason, "reason (why the candidate is rejected)")
        with self._write() as batch:
            claim = self._take_pending(batch, candidate_id, "rejected", by, reason)
            batch.record_operation(by, "claim.rejected", claim_id=candidate_id,
                                   subject=claim["subject"], predicate=claim["predicate"],
                                   reason=reason)
        return self.candidate(candidate_id)

    # ------------------------------------------------------------ conflicts
    def conflicts(self, state: str = "open", *, limit: int | None = None,
                  offset: int = 0) -> list[Conflict]:
        """Conflicts in a state ("open", "resolved" or "all"), oldest first, with
        the facts involved and the incoming claim; ``limit``/``offset`` page them.
        Raises InvalidInput for a negative limit or offset."""
        offset = check_count(offset, "offset")
        if limit is not None:
            limit = check_count(limit, "limit")
        stmt = select(*CONFLICT.c).order_by(CONFLICT.c.id).offset(offset).limit(limit)
        if state != "all":
            stmt = stmt.where(CONFLICT.c.state == state)
        with self.engine.connect() as conn:
            rows = [r._mapping for r in conn.execute(stmt)]
        return self._conflict_records(rows)

    def conflict(self, conflict_id: int) -> Conflict:
        """One conflict by id. Raises ConflictNotFound, InvalidInput for a malformed id."""
        conflict_id = check_id(conflict_id, "conflict id")
        with self.engine.connect() as conn:
            row = conn.execute(select(*CONFLICT.c).where(CONFLICT.c.id == conflict_id)).first()
        if row is None:
            raise ConflictNotFound(f"no conflict with id {conflict_id}")
        return self._conflict_records([row._mapping])[0]

    def _conflict_records(self, rows: list[Any]) -> list[Conflict]:
        fact_ids = sorted({i for r in rows for i in json.loads(r["fact_ids"])})
        facts: dict[int, Fact] = {}
        for part in chunks(fact_ids):
            for f in self._select_facts(FACT.c.id.in_(part)):
                facts[f.id] = f
        now = self.now()
        fact_dict = {d["id"]: d for d in self.fact_dicts(list(facts.values()), now)}
        candidates: dict[int, Candidate] = {}
        with self.engine.connect() as conn:
            for part in chunks(sorted({r["claim_id"] for r in rows})):
                for row in conn.execute(self._candidate_stmt().where(CLAIM.c.id.in_(part))):
                    cand = self._candidate(row)
                    candidates[cand.id] = cand
        out = []
        for r in rows:
            ids = tuple(json.loads(r["fact_ids"]))
            cand = candidates[r["claim_id"]]
            incoming = cand.to_dict()
            incoming.update(id=None, candidate_id=cand.id, status="pending",
                            recorded_at=None, retired_at=None)
            out.append(Conflict(
                id=r["id"], kind=r["kind"], state=r["state"], subject=r["subject"],
                predicate=r["predicate"], scope=r["scope"], fact_ids=ids,
                claim_id=r["claim_id"], opened_at=r["opened_at"], resolved_at=r["resolved_at"],
                resolved_by=r["resolved_by"], resolution=r["resolution"], reason=r["reason"],
                facts=tuple([fact_dict[i] for i in ids if i in fact_dict] + [incoming]),
            ))
        return out

    def resolve_conflict(self, conflict_id: int, keep: str, *, by: str,
                         reason: str | None = None, scope: str | None = None) -> Conflict:
        """Resolve an open conflict. What each choice does to the timeline
        (``resolution_preview`` shows it for one conflict before it is taken):

        keep="existing": the incoming claim is rejected; current belief stays.
        keep="changed":  the value changed: the incoming claim is an evolution
                         from its own valid time; the existing row is closed
                         there (retired as superseded, its earlier part kept as
                         history) and the incoming value holds from then on.
        keep="incoming": the existing value was wrong: it is retired as
                         corrected and the incoming value takes its whole
                         valid interval.
        keep="both": both hold, in different scopes: the incoming claim is
                     asserted in ``scope`` (required, and different from the existing one).
        keep="neither": the existing facts are retracted and the claim rejected.

        Every resolution can be undone (``undo_resolution``).
        Raises ConflictNotFound, AlreadyDecided, InvalidInput (checked before
        anything is written) for a malformed id, ``keep``, reason or reviewer
        name, a ``scope`` that is malformed, missing for "both" or given for
        another choice.
        """
        scope = self._check_resolution(conflict_id, keep, scope)
        by = check_name(by, "by (the reviewer's name)")
        reason = check_text(reason, "reason")
        with self._write() as batch:
            conn = batch.conn
            batch.will_update("conflict", conflict_id)
            done = conn.execute(
                update(CONFLICT).where(CONFLICT.c.id == conflict_id, CONFLICT.c.state == "open")
                .values(state="resolved", resolved_at=batch.tx, resolved_by=by,
                        resolution=keep, reason=reason))
            row = conn.execute(select(*CONFLICT.c).where(CONFLICT.c.id == conflict_id)).first()
            if row is None:
                raise ConflictNotFound(f"no conflict with id {conflict_id}")
            if done.rowcount != 1:
                raise AlreadyDecided(f"conflict {conflict_id} is not open: it is {row.state}"
                                     + (f" ({row.resolution}) by {row.resolved_by}"
                                        if row.state == "resolved" else ""))
            found = conn.execute(select(*CLAIM.c).where(CLAIM.c.id == row.claim_id)).first()
            if found is None:
                raise StoreError(f"conflict {conflict_id} names claim {row.claim_id}, which is missing")
            claim = dict(found._mapping)
            before = {k: claim[k] for k in RESOLUTION_UNDOES}
            batch.will_update("claim", claim["id"])
            fact_ids = json.loads(row.fact_ids)
            rows_now = batch.belief_rows(row.subject, row.predicate)
            said = batch.said_for(rows_now)  # a resolution may make it an evolution
            decision, statement = gates.resolve(
                Resolution(keep), batch.statement_of(claim), rows_now, conflict_id=conflict_id,
                conflict_scope=row.scope, by=by, scope=scope, fact_ids=fact_ids, said=said)
            state, fact_id = "rejected", None
            if decision.outcome == Outcome.REJECTED:
                if decision.plan is not None:  # neither: retract the conflict's facts
                    for fact in decision.plan.retire:
                        batch.retire(cast(Fact, fact), gates.RETIRED_AS[decision.plan.kind],
                                     claim["id"], note=reason or f"conflict {conflict_id}: neither kept")
                claim["gates"] = gates.append_steps(claim["gates"], decision.steps)
            else:
                if decision.outcome == Outcome.CONFLICT:
                    raise StoreError("resolving the conflict opened another one")
                claim.update(state="approved", scope=statement.scope, change=statement.change)
                batch.apply(claim, decision)
                state, fact_id = claim["state"], claim["fact_id"]
            conn.execute(update(CLAIM).where(CLAIM.c.id == claim["id"]).values(
                state=state, fact_id=fact_id, merged_into=claim.get("merged_into"),
                decided_by=by, decided_at=batch.tx,
                decision_reason=reason or f"conflict {conflict_id}: kept {keep}",
                scope=claim["scope"] if keep == "both" else CLAIM.c.scope,
                gates=claim["gates"]))
            batch.record_operation(by, "conflict.resolved", claim_id=claim["id"],
                                   conflict_id=conflict_id, subject=row.subject,
                                   predicate=row.predicate, reason=reason,
                                   detail={"keep": keep, "scope": scope, "fact_ids": fact_ids,
                                           "plan": decision.plan.kind if decision.plan else None,
                                           "claim_before": before})
        return self.conflict(conflict_id)

    @staticmethod
    def _check_resolution(conflict_id: Any, keep: Any, scope: Any) -> str | None:
        """Check a resolution's id, choice and scope; the scope, stripped.
        Raises InvalidInput."""
        check_id(conflict_id, "conflict id")
        if not isinstance(keep, str) or keep not in RESOLUTIONS:
            raise InvalidInput(f"keep must be one of {', '.join(RESOLUTIONS)}, got {keep!r}")
        if keep == "both":
            if scope is None:
                raise InvalidInput("keep=both needs a scope (global, project or session, "
                                   "optionally ':NAME') other than the conflict's, for the "
                                   "incoming value to hold in")
            return check_scope(scope)
        if scope is not None:
            raise InvalidInput(f"a scope ({scope!r}) only goes with keep=both; keep={keep} "
                               "takes none")
        return None

    def resolution_preview(self, conflict_id: int) -> list[dict[str, Any]]:
        """What each resolution of an open conflict would do to its timeline,
        as things stand now: a dry run of the gates (``core.gates.outlooks``),
        one dict per choice in the order of RESOLUTIONS: ``keep``, ``outcome``,
        ``plan`` (the bitemporal plan's kind), ``error`` (why it cannot be
        taken now, or null), ``timeline`` (the slot's current belief
        afterwards: ``object, polarity, scope, valid_from, valid_to, origin``
        kept/history/incoming, ``fact_id``), ``retired`` (``fact_id, object,
        valid_from, valid_to, reason``) and ``text`` (all of it on one line).
        Times are in the incoming claim's offset. Nothing is written.

        Raises ConflictNotFound, AlreadyDecided when the conflict is not open,
        InvalidInput for a malformed id.
        """
        conflict_id = check_id(conflict_id, "conflict id")
        with self.engine.connect() as conn:
            row = conn.execute(select(*CONFLICT.c).where(CONFLICT.c.id == conflict_id)).first()
            if row is None:
                raise ConflictNotFound(f"no conflict with id {conflict_id}")
            if row.state != "open":
                raise AlreadyDecided(f"conflict {conflict_id} is {row.state}: there is nothing to choose")
            claim = conn.execute(select(*CLAIM.c).where(CLAIM.c.id == row.claim_id)).first()
            if claim is None:
                raise StoreError(f"conflict {conflict_id} names claim {row.claim_id}, which is missing")
            told = conn.execute(select(TURN.c.time).where(TURN.c.id == claim.turn_id)).scalar()
        tz = int(claim.tz or 0)
        known = self.catalog.get(row.predicate)
        opposite = known.opposite if known is not None else None
        rows = self.current(row.subject, row.predicate)
        if opposite is not None:
            rows += self.current(row.subject, opposite)

        def when(t: int | None) -> str | None:
            return iso(t, tz)

        def short(t: int | None) -> str | None:
            return None if t is None else (iso(t, tz) or "")[:16].replace("T", " ")

        statement = Statement.of(dict(claim._mapping), told, opposite,  # as the writer's statement_of
                                 known.values if known is not None else None)
        with self.engine.connect() as conn:
            said = load_said(conn, {r.claim_id for r in rows})
        found = gates.outlooks(statement, rows, conflict_scope=row.scope,
                               fact_ids=json.loads(row.fact_ids), predicate=row.predicate,
                               said=said)
        return [o.to_dict(when, short) for o in found]

    def undo_resolution(self, conflict_id: int, *, by: str,
                        reason: str | None = None) -> dict[str, Any]:
        """Undo the resolution of a conflict: it is open again, its claim back
        in state ``conflict``, and the timeline as it was before the resolution,
        by new rows only (see ``core.undo.undo_resolution``).

        Returns {"conflict", "undone", "retired", "restored"}. Raises
        ConflictNotFound, AlreadyDecided (not resolved), InvalidInput (a
        malformed id or reason, no name, or later writes changed the facts involved).
        """
        conflict_id = check_id(conflict_id, "conflict id")
        by = check_name(by, "by (the reviewer's name)")
        reason = check_text(reason, "reason")
        with self._write() as batch:
            return undo_resolution(batch, conflict_id, by=by, reason=reason)

    # ----------------------------------------------------------- predicates
    def predicates(self) -> list[PredicateInfo]:
        """The catalog's predicates followed by uncatalogued ones seen in this store."""
        out = [PredicateInfo(p.id, p.zh, p.en, p.single_valued, p.ttl, p.routing, True)
               for p in self.catalog]
        with self.engine.connect() as conn:
            for name, single, seen in conn.execute(
                select(PRED.c.predicate, PRED.c.single_valued, PRED.c.first_seen_at)
                .order_by(PRED.c.predicate)
            ):
                if name not in self.catalog:
                    out.append(PredicateInfo(name, None, None, bool(single), None, None,
                                             False, seen))
        return out

    def conflict_count(self, state: str = "open") -> int:
        """How many conflicts are in ``state``."""
        with self.engine.connect() as conn:
            return conn.execute(select(func.count()).select_from(CONFLICT).where(
                CONFLICT.c.state == state)).scalar_one()

    # ---------------------------------------------------------------- audit
    def audit(self, subject: str, predicate: str, object: str | None = None) -> AuditReport:
        """When did the store decide that (subject, predicate) is ``object``, and why?

        Without ``object``, the value believed now. Raises FactNotFound when no
        row ever held that value, InvalidInput for a malformed subject,
        predicate or object.
        """
        subject = check_subject(subject)
        predicate = check_predicate(predicate)
        if object is not None:
            object = check_required_text(object, "object")
        rows = self.history(subject, predicate)
        if object is None:
            now_rows = self.as_of(subject, predicate)
            if not now_rows:
                raise FactNotFound(f"{subject} has no current {predicate}; name an --object")
            object = now_rows[-1].object
        wanted = normalise_object(object)
        matching = [r for r in rows if normalise_object(r.object) == wanted]
        if not matching:
            known = sorted({r.object for r in rows})
            hint = f" (known values: {', '.join(known)})" if known else ""
            raise FactNotFound(f"{subject} {predicate} was never {object!r}{hint}")
        first = min(matching, key=lambda r: (r.told_from, r.recorded_at, r.id))
        lineage = sorted({r.claim_id for r in matching})
        steps = decision_steps(self.engine, self._candidate_stmt(), lineage, matching, first.tz)
        steps = with_upkeep(self.engine, steps, lineage, matching, first.tz)
        fact = self.fact_dicts([first])[0]
        return AuditReport(subject=subject, predicate=predicate, object=first.object,
                           decided_at=first.told_from, fact=fact, chain=tuple(steps),
                           tz=first.tz, recorded_at=first.recorded_at)

    # ---------------------------------------------------------- maintenance
    def maintain(self, *, dry_run: bool = False, older_than: str | int | timedelta = "90d",
                 subject: str | None = None, by: str = "maintain", similarity: float = 0.8,
                 progress: Callable[[int, int], None] | None = None) -> MaintenanceReport:
        """Scheduled maintenance (``core.maintain``): fold near-duplicate
        memories of one subject into one (mentions summed, the others kept,
        archived, ``merged_into`` the survivor), archive memories whose facts
        stopped holding more than ``older_than`` ago (``90d``, ``12h``, ``2w``,
        a timedelta, or µs), and expire facts whose TTL ran out (retired as
        ``expired``, copied closed at their expiry). Judged at ``now()``, in
        one transaction under the write lock; one ``store.maintained`` audit
        entry when something changed, none otherwise (a second run right
        after changes nothing). ``dry_run`` only reports, and takes no lock.
        ``subject`` limits it to one subject. ``progress(done, total)`` per stage.

        Raises InvalidInput for a bad age, similarity, subject or actor.
        """
        from .maintain import parse_age
        from .maintain_store import maintain

        age = parse_age(older_than)
        by = check_name(by, "by (the actor in the audit entry)")
        if subject is not None:
            subject = check_subject(subject)
        if (isinstance(similarity, bool) or not isinstance(similarity, int | float)
                or not 0.0 < similarity <= 1.0):
            raise InvalidInput(f"similarity must be a number above 0 and at most 1, got {similarity!r}")
        routed = [p.id for p in self.catalog if p.routing in ("vector", "both")]
        if dry_run:
            with self.engine.connect() as conn:
                return maintain(conn, now=self.now(), older_than=age, routed=routed,
                                similarity=similarity, subject=subject, dry_run=True, by=by,
                                progress=progress)
        with self._write() as batch:
            return maintain(batch, now=self.now(), older_than=age, routed=routed,
                            similarity=similarity, subject=subject, by=by, progress=progress)

    # ------------------------------------------------------------ app reads
    def change_stamp(self) -> tuple[Any, ...]:
        """A value that changes whenever a write commits, from any process:
        the store_meta row every write transaction updates (transaction
        time, the audit chain's head, the erasure count). One primary-key
        read: cheap enough to poll every second."""
        with self.engine.connect() as conn:
            row = conn.execute(select(META.c.last_tx, META.c.audit_last, META.c.audit_head,
                                      META.c.erasures).where(META.c.id == 1)).first()
        return tuple(row) if row is not None else ()

    def first_told(self, subject: str | None = None) -> int | None:
        """When the store was first told anything (µs, the told axis that
        ``known_at`` and recall's ``at`` read): a fact, a memory, or a turn;
        with ``subject``, anything about that subject (a user's own turns
        too). None when it holds nothing of the kind."""
        user = subject[5:] if subject and subject.startswith("user:") else None
        firsts = []
        with self.engine.connect() as conn:
            for table, column in ((FACT, KNOWN_FROM), (MEMORY, MEMORY.c.created_at)):
                stmt = select(func.min(column))
                if subject is not None:
                    stmt = stmt.where(table.c.subject == subject)
                firsts.append(conn.execute(stmt).scalar())
            if subject is None or user is not None:
                stmt = select(func.min(TURN.c.time))
                if user is not None:
                    stmt = stmt.where(TURN.c.user == user)
                firsts.append(conn.execute(stmt).scalar())
        found = [int(t) for t in firsts if t is not None]
        return min(found) if found else None

    def conversation(self, session: str, around: int | None = None,
                     radius: int = 4) -> list[TurnRecord]:
        """The raw turns of a session in order; with ``around``, only the turns
        within ``radius`` of that turn number (the context a reviewer needs)."""
        stmt = select(TURN.c.id, TURN.c.session, TURN.c.turn, TURN.c.speaker, TURN.c.text,
                      TURN.c.time, TURN.c.time_tz, TURN.c.user, TURN.c.project
                      ).where(TURN.c.session == session).order_by(TURN.c.turn)
        if around is not None:
            stmt = stmt.where(TURN.c.turn >= around - radius, TURN.c.turn <= around + radius)
        with self.engine.connect() as conn:
            return [TurnRecord(*r) for r in conn.execute(stmt)]

    # ------------------------------------------------------ export/restore
    def export(self, out: TextIO | str | Path, *, vectors: bool = True) -> dict[str, int]:
        """Write the whole store as JSONL (``core.export``) to a text stream or
        a file path (written under a temporary name, then renamed into place).
        Returns the row count per table. Raises StoreError, OSError."""
        from .export import export_store

        if not isinstance(out, str | Path):
            return export_store(self.engine, out, vectors=vectors)
        target = Path(out)
        partial = target.with_name(target.name + ".partial")
        try:
            with open(partial, "w", encoding="utf-8", newline="\n") as fh:
                counts = export_store(self.engine, fh, vectors=vectors)
            partial.replace(target)
        finally:
            partial.unlink(missing_ok=True)
        return counts

    def restore(self, path: str | Path) -> dict[str, int]:
        """Load an export made by ``export`` into this store, which must be empty,
        in one transaction, keeping every id and time. Returns the row count per
        table. Raises InputFileError naming the first bad line (nothing is
        written), StoreError when the store is not empty, FileNotFoundError."""
        from .export import restore_store

        return restore_store(self.engine, path)

    def undo_decision(self, candidate_id: int, *, by: str,
                      reason: str | None = None) -> dict[str, Any]:
        """Undo a review decision: the candidate goes back to the queue and the
        decision's effect is reversed by new rows (see ``core.undo``).

        Raises CandidateNotFound, AlreadyDecided, InvalidInput (a malformed id
        or reason, no name, or later writes changed the facts involved).
        """
        candidate_id = check_id(candidate_id, "candidate id")
        by = check_name(by, "by (the reviewer's name)")
        reason = check_text(reason, "reason")
        with self._write() as batch:
            return undo_decision(batch, candidate_id, by=by, reason=reason)


__all__ = ["Store", "DEFAULT_REVIEW_THRESHOLD", "RESOLUTIONS"]
