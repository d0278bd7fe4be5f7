"""What every facet of a Store shares: the engine, the catalog, the clock and
the bounds, one raw read connection per thread, and the write transaction
(``write``: one ``core.writer.WriteBatch`` in one transaction, all or nothing;
``write_elsewhere``: the same, owned by a writer process, for bulk loads).

``StoreCore`` is internal: programs use ``Store`` and its facets.
"""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ..bounds import Bounds
from ..catalog import Catalog
from ..clock import Clock, SystemClock, now_us
from ..db import make_engine
from ..db.errors import DBAPIError
from ..errors import StoreError
from ..failpoints import point
from ..writer import WriteBatch
from ..writer_process import WriteProcess, WriterUnavailable


class StoreCore:
    """The state a Store's facets share (internal; see ``Store``)."""

    def __init__(self, url: str, *, catalog: Catalog, clock: Clock,
                 review_threshold: float, bounds: Bounds | None = None) -> None:
        self.url = url
        self.bounds = bounds or Bounds()  # the work one request may ask for (core.bounds)
        self.catalog = catalog
        self.clock = clock
        self.review_threshold = review_threshold
        self.engine = make_engine(url)
        self.erasure_listeners: list[Callable[[], Callable[[], None] | None]] = []
        self.signal_layer: Any = None  # core.signals.layer.SignalLayer, loaded at the first ingest
        self.bulk_depth = 0  # open ``Store.bulk()`` blocks
        self._local = threading.local()
        self._raw_conns: list[Any] = []
        self._lock = threading.Lock()
        self._insert_sql: dict = {}

    @property
    def safe_url(self) -> str:
        """The store's URL with any password hidden."""
        return self.engine.url.render_as_string(hide_password=True)

    @property
    def in_bulk(self) -> bool:
        """Whether a ``Store.bulk()`` block is open: large imports may then use
        a parser process and a writer process."""
        return self.bulk_depth > 0

    def now(self) -> int:
        """The clock's time (microseconds since the epoch)."""
        return now_us(self.clock)

    def raw(self) -> Any:
        """This thread's raw DBAPI read connection (autocommit on PostgreSQL)."""
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

    def close(self) -> None:
        """Release connections."""
        with self._lock:
            for conn in self._raw_conns:
                try:
                    conn.close()
                except Exception:  # noqa: BLE001 - closing is best effort
                    pass
            self._raw_conns.clear()
        self.engine.dispose()

    @contextmanager
    def write(self) -> Iterator[WriteBatch]:
        """One write transaction. Raises StoreError when the database refuses it
        (locked, out of range…): rolled back, nothing saved."""
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

    def can_write_elsewhere(self) -> bool:
        """Whether a writer process can own this store's transactions: a SQLite file."""
        url = self.engine.url
        return (self.engine.dialect.name == "sqlite" and bool(sys.executable)
                and not getattr(sys, "frozen", False)  # a bundled app cannot run ``python -c``
                and url.database not in (None, "", ":memory:") and "mode=memory" not in str(url))

    @contextmanager
    def write_elsewhere(self) -> Iterator[WriteBatch]:
        """Like ``write``, for a bulk import into a SQLite file: the transaction
        belongs to a writer process (core.writer.WriteProcess) that inserts one
        chunk of rows while this process runs the gates on the next one.
        Where no writer process can start, the write happens here after all.
        Raises StoreError."""
        try:
            process = WriteProcess(self.url)
        except WriterUnavailable:
            with self.write() as batch:
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

    @contextmanager
    def bulk(self) -> Iterator[None]:
        """See ``Store.bulk``: the cyclic garbage collector paused, bulk paths allowed."""
        was_enabled = gc.isenabled()
        gc.disable()
        self.bulk_depth += 1
        try:
            yield
        finally:
            self.bulk_depth -= 1
            if was_enabled:  # as this block found it (a nested block found it paused)
                gc.enable()
