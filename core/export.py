"""Export a whole store as JSONL and restore it into an empty one.

The export is written generically from the SQLModel table metadata (read
and written through ``memdesk.db.export``), so a column or table added to
the schema later is exported and restored without changes here. Layout, one JSON object per line:

* line 1, the header: ``{"kind": "memdesk-export", "format": 1,
  "schema_version": N, "vectors": true, "tables": {"turn": 44, …}}`` — the
  row count of every table, which lets a restore notice a cut-off file;
* then one line per row, tables in dependency order (the metadata's
  ``sorted_tables``), rows by primary key: ``{"table": "fact", "row": {…}}``
  with every column by name. Times stay integers (microseconds), binary
  columns (recall vectors) are base64 text.

The export contains no wall-clock time of its own, so exporting a restored
store gives the same bytes. It is taken under the store's write lock (a
consistent snapshot on both backends; writers wait until it is done).
Without vectors (``vectors=False``) the ``recall_vector`` table is left out
and the recall index rebuilds the vectors from the memories and turns.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from .claims import iter_jsonl
from .db import Connection, Engine
from .db import export as sql
from .db.writes import CHUNK, lock_store
from .errors import InputFileError, StoreError
from .failpoints import point

FORMAT_NAME = "memdesk-export"
FORMAT_VERSION = 1
META_TABLE = "store_meta"
VECTOR_TABLE = "recall_vector"

_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


# exports a restore reads: this schema's; version 5's, which lacks the told
# axis and start bounds of facts and claims (revision 0007: those columns stay
# NULL, which reads as before); and version 4's, which also lacks the
# access_token table (revision 0006): it restores with no tokens
READABLE_VERSIONS = (4, 5, sql.SCHEMA_VERSION)


def export_tables(vectors: bool = True) -> list[sql.TableSpec]:
    """The tables an export holds, in the order they are written and restored."""
    return [t for t in sql.tables() if vectors or t.name != VECTOR_TABLE]


def _plain(value: Any) -> Any:
    if isinstance(value, bytes | bytearray | memoryview):
        return base64.b64encode(bytes(value)).decode("ascii")
    return value


def export_store(engine: Engine, out: TextIO, *, vectors: bool = True) -> dict[str, int]:
    """Write the whole store to ``out`` as JSONL (see the module docstring).
    Returns the row count of each table written. Raises StoreError when the
    store cannot be read."""
    tables = export_tables(vectors)
    with engine.begin() as conn:
        lock_store(conn)  # nobody writes while the snapshot is taken
        counts = {t.name: sql.count_rows(conn, t.name) for t in tables}
        out.write(_ENCODER.encode({"kind": FORMAT_NAME, "format": FORMAT_VERSION,
                                   "schema_version": sql.SCHEMA_VERSION, "vectors": vectors,
                                   "tables": counts}) + "\n")
        for table in tables:
            names = [c.name for c in table.columns]
            prefix = '{"table":' + _ENCODER.encode(table.name) + ',"row":'
            for row in sql.rows(conn, table.name):
                out.write(prefix + _ENCODER.encode(dict(zip(names, map(_plain, row), strict=True)))
                          + "}\n")
        conn.rollback()  # the lock's no-op update is not kept
    return counts


# ------------------------------------------------------------------ restore
def _converter(column: sql.ColumnSpec) -> Callable[[Any], Any]:
    """A function checking one JSON value for ``column``: returns the value to
    insert or raises ValueError with the reason."""
    kind = column.kind
    nullable = column.nullable

    def check(value: Any) -> Any:
        if value is None:
            if nullable:
                return None
            raise ValueError("must not be null")
        if kind == "bool":
            if not isinstance(value, bool):
                raise ValueError("must be true or false")
            return value
        if kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError("must be a whole number")
            if not -(1 << 63) <= value < (1 << 63):
                raise ValueError("is out of range")
            return value
        if kind == "float":
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError("must be a number")
            if not math.isfinite(value):
                raise ValueError("must be finite")
            return float(value)
        if kind == "bytes":
            if not isinstance(value, str):
                raise ValueError("must be base64 text")
            try:
                return base64.b64decode(value.encode("ascii"), validate=True)
            except (binascii.Error, UnicodeEncodeError):
                raise ValueError("is not valid base64") from None
        if kind == "str":
            if not isinstance(value, str):
                raise ValueError("must be a string")
            if "\x00" in value:
                raise ValueError("contains a NUL character")
            return value
        raise ValueError(f"has a column type memdesk cannot restore ({column.sql_type})")

    return check


class _TableLoader:
    """Checks and inserts the rows of one table, a chunk at a time."""

    def __init__(self, table: sql.TableSpec) -> None:
        self.table = table
        self.columns = {c.name: _converter(c) for c in table.columns}
        self.required = {c.name for c in table.columns if c.required}
        self.key = list(table.key)
        self.seen: set[tuple] = set()
        self.pending: list[dict] = []
        self.count = 0

    def add(self, data: Any) -> None:
        """Validate one row object. Raises ValueError with the reason."""
        if not isinstance(data, dict):
            raise ValueError("'row' must be an object")
        unknown = sorted(set(data) - set(self.columns))
        if unknown:
            raise ValueError(f"unknown column(s) of {self.table.name}: {', '.join(unknown)}")
        missing = sorted(self.required - set(data))
        if missing:
            raise ValueError(f"missing column(s) of {self.table.name}: {', '.join(missing)}")
        row = {}
        for name, check in self.columns.items():
            if name not in data:
                continue  # optional column missing (an older export): its default
            try:
                row[name] = check(data[name])
            except ValueError as exc:
                raise ValueError(f"{self.table.name}.{name} {exc}") from None
        key = tuple(row[k] for k in self.key)
        if key in self.seen:
            raise ValueError(f"{self.table.name} row {key if len(key) > 1 else key[0]!r} "
                             "appears twice")
        self.seen.add(key)
        self.pending.append(row)
        self.count += 1

    def flush(self, conn: Connection) -> None:
        # group by column set: rows of one export all have the same columns
        while self.pending:
            cols = tuple(self.pending[0])
            same = [r for r in self.pending if tuple(r) == cols]
            self.pending = [r for r in self.pending if tuple(r) != cols]
            for i in range(0, len(same), CHUNK):
                sql.insert_rows(conn, self.table.name, same[i:i + CHUNK])


def _header(line: int, data: Any, path: str) -> tuple[bool, dict[str, int]]:
    if not isinstance(data, dict) or data.get("kind") != FORMAT_NAME:
        raise InputFileError(line, f"not a memdesk export (the first line must be the "
                             f"{FORMAT_NAME} header)", path)
    if data.get("format") != FORMAT_VERSION:
        raise InputFileError(line, f"export format {data.get('format')!r} is not supported "
                             f"(this memdesk reads format {FORMAT_VERSION})", path)
    if data.get("schema_version") not in READABLE_VERSIONS:
        raise InputFileError(line, f"the export has schema version {data.get('schema_version')!r}; "
                             f"this store has version {sql.SCHEMA_VERSION}", path)
    vectors = data.get("vectors")
    counts = data.get("tables")
    if not isinstance(vectors, bool) or not isinstance(counts, dict):
        raise InputFileError(line, "the header needs 'vectors' (true/false) and 'tables' "
                             "(row count per table)", path)
    known = {t.name for t in export_tables(vectors)}
    unknown = sorted(set(counts) - known)
    if unknown:
        raise InputFileError(line, f"unknown table(s) in the header: {', '.join(unknown)}", path)
    for name, n in counts.items():
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise InputFileError(line, f"row count of {name} must be a whole number >= 0", path)
    return vectors, counts


def restore_store(engine: Engine, path: str | Path) -> dict[str, int]:
    """Load an export into this store, which must be empty (no rows beyond a new
    store's own), in one transaction: every line is checked, ids and times are
    kept exactly, PostgreSQL id sequences are moved past the restored ids.
    Returns the row count restored per table.

    Raises InputFileError naming the first bad line (nothing is written),
    StoreError when the store is not empty, FileNotFoundError.
    """
    name = str(path)
    with open(path, "rb"):
        pass  # FileNotFoundError before the store is locked
    try:
        with engine.begin() as conn:
            lock_store(conn)
            point("tx.begin")
            tables = export_tables(True)
            for table in tables:
                if table.name == META_TABLE:
                    continue
                if sql.count_rows(conn, table.name):
                    raise StoreError(f"restore needs an empty store; {table.name} already holds "
                                     "rows (restore into a new file or database)")
            lines = iter_jsonl(path)
            first = next(lines, None)
            if first is None:
                raise InputFileError(1, "the file is empty (expected a memdesk export)", name)
            vectors, expected = _header(*first, name)
            tables = export_tables(vectors)
            order = {t.name: i for i, t in enumerate(tables)}
            loaders = {t.name: _TableLoader(t) for t in tables}
            current = -1
            last_line = first[0]
            for number, data in lines:
                last_line = number
                if not isinstance(data, dict) or set(data) != {"table", "row"}:
                    raise InputFileError(number, "expected {\"table\": NAME, \"row\": {…}}", name)
                table = data["table"]
                if not isinstance(table, str) or table not in order:
                    raise InputFileError(number, f"unknown table {table!r}", name)
                if order[table] < current:
                    raise InputFileError(number, f"{table} rows must come before "
                                         f"{tables[current].name} rows", name)
                if order[table] > current:
                    if current >= 0:
                        _insert(conn, loaders[tables[current].name])
                        point("restore.table")
                    current = order[table]
                loader = loaders[table]
                try:
                    loader.add(data["row"])
                except ValueError as exc:
                    raise InputFileError(number, str(exc), name) from None
                if len(loader.pending) >= CHUNK:
                    _insert(conn, loader)
            if current >= 0:
                _insert(conn, loaders[tables[current].name])
            for t in tables:
                got, want = loaders[t.name].count, expected.get(t.name, 0)
                if got != want:
                    raise InputFileError(last_line, f"the header announces {want} {t.name} "
                                         f"row(s), the file holds {got} (cut off?)", name)
            # after inserting explicit ids on PostgreSQL, each id sequence moves past them
            sql.reset_sequences(conn, [t.name for t in tables])
            point("tx.commit")
            return {t.name: loaders[t.name].count for t in tables}
    except InputFileError:
        raise
    except StoreError:
        raise
    except Exception as exc:  # noqa: BLE001 - a database refusal, reported plainly
        orig = getattr(exc, "orig", None)
        if orig is None:
            raise
        raise StoreError(f"the store refused the restore: {orig}; nothing was written") from None


def _insert(conn: Connection, loader: _TableLoader) -> None:
    if loader.table.name == META_TABLE and loader.pending and loader.count == len(loader.pending):
        # the new store's own meta row gives way to the exported one
        sql.delete_all(conn, loader.table.name)
    loader.flush(conn)

