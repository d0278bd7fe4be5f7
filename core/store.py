"""The public entry point: ``Store.open(url)``.

A Store owns an engine and hands out plain, frozen records through five
facets over the state they share (``core.facets``):

    store.facts      reads along both time axes; add, import, ingest, retract
    store.review     the review queue: list, approve, reject, undo
    store.conflicts  open and resolved conflicts: preview, resolve, undo
    store.audit      provenance of a value, verification of the audit log
    store.admin      tokens, erasure, export and restore, maintenance

Reads run on a raw DBAPI connection per thread with statements compiled once
for the dialect; every write runs in its own transaction through
``core.writer.WriteBatch``, so a failed write leaves the store as it was.
Bulk loads go inside ``with store.bulk():`` (a parser and a writer process for
large files, the garbage collector paused); nothing else changes the process.

A Store may be shared between threads: each thread gets its own read
connection, and writes take the store's write lock in the database.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .bounds import Bounds
from .catalog import Catalog
from .clock import Clock, SystemClock, now_us
from .db import make_engine, migrations, normalise_url
from .db import meta as sql
from .db.errors import (
    DatabaseError,
    DBAPIError,
    IntegrityError,
    OperationalError,
    ProgrammingError,
)
from .db.meta import SCHEMA_VERSION
from .errors import InvalidInput, StoreError
from .facets import Admin, Audit, Conflicts, Facts, Review, StoreCore
from .facets.conflicts import RESOLUTIONS
from .records import UpgradeReport

DEFAULT_REVIEW_THRESHOLD = 0.75
_CREATE_ATTEMPTS = 20


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
        self._core = core = StoreCore(url, catalog=catalog, clock=clock,
                                      review_threshold=review_threshold, bounds=bounds)
        self.facts = Facts(core)
        self.review = Review(core)
        self.conflicts = Conflicts(core, self.facts)
        self.audit = Audit(core, self.facts)
        self.admin = Admin(core)

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
        """The store's URL with any password hidden."""
        return self._core.safe_url

    @property
    def url(self) -> str:
        """The store's SQLAlchemy URL."""
        return self._core.url

    @property
    def engine(self) -> Any:
        """The SQLAlchemy engine (for tools and tests; programs use the facets)."""
        return self._core.engine

    @property
    def catalog(self) -> Catalog:
        """The predicate catalog the gates judge claims by."""
        return self._core.catalog

    @property
    def clock(self) -> Clock:
        """The clock ``now()`` reads."""
        return self._core.clock

    @property
    def bounds(self) -> Bounds:
        """The work one request may ask for (``core.bounds``)."""
        return self._core.bounds

    @property
    def review_threshold(self) -> float:
        """Claims below this confidence wait in the review queue."""
        return self._core.review_threshold

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
        revision, version = sql.revision_and_version(self.engine)
        head = migrations.head()
        if revision is None:
            if not create:
                raise StoreError(f"no memdesk store at {self.safe_url}")
            sql.create_schema(self.engine, lambda: now_us(SystemClock()))
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
    def upgrade(url: str | Path | None = None) -> UpgradeReport:
        """Upgrade the store at ``url`` to this memdesk's schema, in one
        transaction. Returns the revisions it went from and to.

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
        return UpgradeReport(before, after)

    @contextmanager
    def bulk(self) -> Iterator[Store]:
        """A block of bulk loading: inside it, ``facts.import_file`` parses a
        large file in a second process and (on a SQLite file) writes through a
        writer process that owns the transaction, and Python's cyclic garbage
        collector is paused (a large import allocates millions of short-lived,
        acyclic objects; reference counting still frees them). The
        collector's state is restored when the block ends. Outside it, no call
        starts a process or changes the interpreter's state.

            with store.bulk():
                store.facts.import_file("facts.jsonl")
        """
        with self._core.bulk():
            yield self

    def close(self) -> None:
        """Release connections. The Store must not be used afterwards."""
        self._core.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def now(self) -> int:
        """The clock's time (microseconds since the epoch)."""
        return self._core.now()

    def holds_nothing(self) -> bool:
        """Whether the store holds not a single turn or claim (only its schema): a store
        a failed command created may then be removed without losing anything."""
        return sql.holds_nothing(self.engine)

    def change_stamp(self) -> tuple[Any, ...]:
        """A value that changes whenever a write commits, from any process:
        the store_meta row every write transaction updates (transaction
        time, the audit chain's head, the erasure count). One primary-key
        read: cheap enough to poll every second."""
        return sql.change_stamp(self.engine)


__all__ = ["Store", "DEFAULT_REVIEW_THRESHOLD", "RESOLUTIONS"]
