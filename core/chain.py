"""The audit log's hash chain: canonical row digests and ``verify``.

Every audit entry stores ``hash = H(previous entry's hash, H(entry), H(rows))``
(BLAKE2b). ``H(entry)`` covers the entry's own columns, including ``rows``: a
JSON record of the rows the operation touched. ``H(rows)`` is a digest of
those rows as the database holds them:

- rows it created, named by inclusive id ranges per table (``turn``,
  ``claim``, ``fact``, ``conflict``, ``memory``) and the names of
  ``predicate_use`` rows;
- ``stamped``: the fact rows whose retirement stamp it set, with the stamp;
- ``updated``: claims and conflicts it changed (review decisions,
  resolutions, undo), each with the hash of the row before and after.

A fact row is hashed without its retirement stamp (the only permitted update,
committed by the entry that set it). Claims and conflicts change state over
time, so each is hashed as a whole row on its own (``row_hash``); the entry
that created one commits to its state at creation, which ``verify`` takes
from the ``before`` hash of the first later entry that changed it (or from
the row itself when none did); the last entry that changed it commits to the
row as it is. Memory rows are hashed without ``mentions`` (a counter that
merges bump); recall vectors are derived data and not covered.

A row (or an entry, or any other tuple of plain values: str, int, float,
bool, None) is encoded as the RFC 8785 (JCS) canonical JSON of the array of
its values in the schema's column order, UTF-8 encoded: numbers in
ECMAScript form (``1.0`` -> ``1``), no whitespace, strings escaped as JCS
prescribes; NaN, infinities, lone surrogates and other types are refused.
``docs/audit-chain.md`` specifies every byte, so another tool can verify a
store. Stores chained before revision 0003 hashed pickle bytes; that
encoding is frozen in ``core.db.chain_legacy`` for the migrations. The head (hash and id of the last entry) is kept in
``store_meta`` so that deleting the newest entries is noticed too.

An erasure (``core.erase``) deletes rows and scrubs entries; its tombstone
entry names each entry whose digests changed with the new ones
(``detail.amended``). ``verify`` accepts such an entry only with exactly the
digests of the latest tombstone naming it, and still checks the chain links.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from hashlib import blake2b
from itertools import chain
from typing import Any

from .canonical import encode, number, row_hasher, schema_encoder, streamer  # noqa: F401 - also chain's API
from .db import Connection
from .db import chain as sql

GENESIS = "0" * 64


@dataclass(frozen=True, slots=True)
class Codec:
    """How the chain turns values into bytes: ``encode`` one tuple, and
    ``streamer(write)``, a function encoding tuples into ``write``. What each
    entry commits to (the structure below) is the same whatever the codec:
    the canonical JSON one (``CANONICAL``) since revision 0003, the pickle one
    of revision 0002 (``core.db.chain_legacy.LEGACY``) for the migrations."""

    name: str
    encode: Callable[[tuple], bytes]
    streamer: Callable[[Callable[[bytes], Any]], Callable[[tuple], None]]


CANONICAL = Codec("canonical JSON (RFC 8785)", encode, streamer)
ERASED_ACTION = "subject.erased"
RANGED = ("turn", "claim", "fact", "conflict", "memory")
STATEFUL = ("claim", "conflict")  # hashed row by row (rows change after creation)

STAMP_COLUMNS = ("retired_at", "retired_by_claim", "retire_reason", "retire_note",
                 "known_until")
# the stamp columns later revisions added: a stamp NULL in them is committed
# to without them, as it was before they existed (``stamp_values``)
LATE_STAMP = ("known_until",)
# memory columns that change after the row is written (merges, maintenance):
# not part of its hash; the entry that changes them records the change
MEMORY_MUTABLE = ("mentions", "archived_at", "archive_reason", "merged_into")
COLUMNS: dict[str, tuple[str, ...]] = {
    "turn": sql.column_names("turn"),
    "claim": sql.column_names("claim"),
    "fact": tuple(c for c in sql.column_names("fact") if c not in STAMP_COLUMNS),
    "conflict": sql.column_names("conflict"),
    "memory": tuple(c for c in sql.column_names("memory") if c not in MEMORY_MUTABLE),
    "predicate": sql.column_names("predicate"),
}
# Columns added to a hashed table after its rows were first chained, last in
# the table (revision 0005: start_stated; 0007: start_latest of claims,
# known_from, start_kind, start_latest of facts): a row is hashed without the
# NULLs that end it among these, so a row from before they existed hashes
# exactly as it did, no re-chaining is needed, and a store not yet upgraded,
# read during a migration (fewer columns), hashes the same.
LATE: dict[str, tuple[str, ...]] = {
    "claim": ("start_stated", "start_latest"),
    "fact": ("start_stated", "known_from", "start_kind", "start_latest"),
}
for _name, _late in LATE.items():
    assert COLUMNS[_name][-len(_late):] == _late, f"late columns of {_name} must come last"
_FIRST_LATE = {name: len(COLUMNS[name]) - len(late) for name, late in LATE.items()}


def hashed(name: str, values: tuple) -> tuple:
    """A row of table ``name`` as it is hashed: without the NULLs (or absent
    columns: a row read from a store not yet upgraded) that end it among its
    LATE columns."""
    first = _FIRST_LATE.get(name)
    if first is None:
        return values
    end = len(values)
    while end > first and values[end - 1] is None:
        end -= 1
    return values if end == len(values) else values[:end]


def _float_positions(table: str, names: tuple[str, ...]) -> tuple[int, ...]:
    kinds = sql.column_types(table)
    return tuple(i for i, name in enumerate(names) if kinds[name] is float)


FLOATS: dict[str, tuple[int, ...]] = {
    name: _float_positions(name, COLUMNS[name]) for name in COLUMNS}
"""Where each table's row, as hashed, holds its float columns (``streamer``)."""
ENTRY_COLUMNS = ("id", "at", "wall_at", "actor", "action", "claim_from", "claim_to",
                 "fact_from", "fact_to", "conflict_id", "subject", "predicate", "reason",
                 "detail", "rows")


def _unhex(text: str) -> bytes:
    try:
        return bytes.fromhex(text)
    except (TypeError, ValueError):
        return b"not a hash: " + str(text).encode()


def hasher() -> Any:
    return blake2b(digest_size=32)


def row_hash(values: tuple, codec: Codec = CANONICAL) -> bytes:
    """The 16-byte hash of one whole row (claims, conflicts)."""
    return blake2b(codec.encode(values), digest_size=16).digest()


def entry_hash(entry: dict[str, Any] | tuple, codec: Codec = CANONICAL) -> bytes:
    """The hash of an audit entry's own columns (ENTRY_COLUMNS)."""
    values = tuple(entry[c] for c in ENTRY_COLUMNS) if isinstance(entry, dict) else entry
    return blake2b(codec.encode(values), digest_size=32).digest()


def link(prev_hex: str, content: bytes, rows: bytes) -> str:
    """The chain hash of an entry after ``prev_hex``."""
    h = hasher()
    h.update(_unhex(prev_hex))
    h.update(content)
    h.update(rows)
    return h.hexdigest()


def dumps_rows(rows: dict[str, Any]) -> str:
    """Canonical JSON for an entry's ``rows`` column."""
    return json.dumps(rows, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def stamp_values(fact_id: int, at: int | None, by: int | None, reason: str | None,
                 note: str | None, known_until: int | None = None, *,
                 codec: Codec = CANONICAL) -> bytes:
    """The encoding a ``stamped`` part commits to for one fact's retirement
    stamp; without ``known_until`` while it is NULL (stamps set before 0007)."""
    if known_until is None:
        return codec.encode((fact_id, at, by, reason, note))
    return codec.encode((fact_id, at, by, reason, note, known_until))


class RowsDigest:
    """The digest of the rows one operation touched, built as they are buffered."""

    __slots__ = ("codec", "parts", "stamped", "predicates", "updated")

    def __init__(self, codec: Codec = CANONICAL) -> None:
        self.codec = codec
        self.parts = {name: hasher() for name in (*RANGED, "predicate", "stamped")}
        self.stamped: list[int] = []
        self.predicates: list[str] = []
        self.updated: dict[str, dict[str, list[str]]] = {}

    def finish(self) -> bytes:
        """The digest over every part (in a fixed order) and the updated rows."""
        return combine({name: h.digest() for name, h in self.parts.items()}, self.updated, self.codec)


def combine(parts: dict[str, bytes], updated: dict[str, dict[str, list[str]]],
            codec: Codec = CANONICAL) -> bytes:
    h = hasher()
    for name in (*RANGED, "predicate", "stamped"):
        h.update(name.encode())
        h.update(parts[name])
    for table in sorted(updated):
        for key in sorted(updated[table], key=int):
            before, after = updated[table][key]
            h.update(codec.encode((table, int(key), before, after)))
    return h.digest()


# ------------------------------------------------------------------- verify
@dataclass(frozen=True, slots=True)
class VerifyProblem:
    """One finding: ``entry`` is the audit entry id it concerns (None: no entry covers the row)."""

    entry: int | None
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"entry": self.entry, "message": self.message}


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """What ``store.audit.verify`` found. ``ok`` when the chain and every covered row check out."""

    ok: bool
    entries: int
    head: str | None
    first_broken: int | None
    erasures: int
    amended: int
    problems: tuple[VerifyProblem, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "entries": self.entries, "head": self.head,
                "first_broken": self.first_broken, "erasures": self.erasures,
                "amended": self.amended, "problems": [p.to_dict() for p in self.problems]}


class _Rows:
    """Reads the rows behind entries, one table range at a time: the hashed
    columns the database has (a store read during a migration may not have
    the LATE ones yet; ``hashed`` then leaves nothing out)."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self._stored: dict[str, set[str]] = {}

    def columns(self, name: str, names: tuple[str, ...] | None = None) -> tuple[str, ...]:
        """``names`` (default: the hashed columns of table ``name``) less the
        LATE columns the database does not have."""
        names = COLUMNS[name] if names is None else names
        late = LATE.get(name, ()) + (LATE_STAMP if name == "fact" else ())
        if not any(n in late for n in names):
            return names
        if name not in self._stored:
            self._stored[name] = sql.stored_columns(self.conn, name)
        return tuple(n for n in names if n not in late or n in self._stored[name])

    def range(self, name: str, lo: int, hi: int, window: int = 50_000) -> Iterator[tuple]:
        """Rows with ids in [lo, hi] in id order, read a window at a time."""
        yield from sql.rows_between(self.conn, name, self.columns(name), lo, hi, window)

    def by_ids(self, name: str, ids: Iterable[int], columns: Iterable[str] | None = None
               ) -> dict[int, tuple]:
        """Rows by id (without the id): the ``columns`` (default: the hashed ones)."""
        names = self.columns(name, tuple(columns) if columns is not None else None)
        return sql.rows_by_ids(self.conn, name, ids, names)

    def predicates(self, names: list[str]) -> dict[str, tuple]:
        return sql.predicate_rows(self.conn, names, COLUMNS["predicate"])


def load_entries(conn: Connection) -> list[dict[str, Any]]:
    """Every audit entry (its ENTRY_COLUMNS and hash), by id."""
    return sql.audit_entries(conn, (*ENTRY_COLUMNS, "hash"))


def parse_rows(entry: dict[str, Any]) -> dict[str, Any]:
    """An entry's ``rows`` record, checked for shape; ``{"__bad__": True}`` when
    it was mangled (verify then reports the entry instead of failing)."""
    bad = {"__bad__": True}
    try:
        rows = json.loads(entry.get("rows") or "{}")
    except (TypeError, ValueError):
        return bad
    if not isinstance(rows, dict):
        return bad

    def is_int(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    for name in RANGED:
        span = rows.get(name)
        if span is not None and not (isinstance(span, list) and len(span) == 2
                                     and all(map(is_int, span))):
            return bad
    if not all(is_int(i) for i in rows.get("stamped") or []):
        return bad
    if not all(isinstance(n, str) for n in rows.get("predicate") or []):
        return bad
    updated = rows.get("updated") or {}
    if not isinstance(updated, dict):
        return bad
    for table, changed in updated.items():
        if table not in STATEFUL or not isinstance(changed, dict):
            return bad
        for key, pair in changed.items():
            if not (key.isdigit() and isinstance(pair, list) and len(pair) == 2
                    and all(isinstance(x, str) for x in pair)):
                return bad
    return rows


def _amendments(entries: list[dict[str, Any]]) -> dict[int, tuple[str, str, str | None, int]]:
    """Per amended entry: its recorded content and rows digests, its hash when
    the tombstone recorded it (tombstones before it recorded two), and the
    tombstone's id."""
    out: dict[int, tuple[str, str, str | None, int]] = {}
    for e in entries:
        if e["action"] != ERASED_ACTION:
            continue
        try:
            amended = json.loads(e["detail"]).get("amended", {})
        except (ValueError, AttributeError):
            continue
        for key, pair in amended.items():
            if isinstance(pair, list) and len(pair) in (2, 3) and int(key) < e["id"]:
                out[int(key)] = (str(pair[0]), str(pair[1]), None if len(pair) == 2 else str(pair[2]), e["id"])
    return out


class Recomputer:
    """Recomputes each entry's content and rows digests from the database (with ``codec``)."""

    def __init__(self, conn: Connection, entries: list[dict[str, Any]],
                 codec: Codec = CANONICAL) -> None:
        self.codec = codec
        self.rows = _Rows(conn)
        self.entries = entries
        self.parsed = {e["id"]: parse_rows(e) for e in entries}
        # (table, id) -> [(entry id, before, after)] in entry order
        self.updates: dict[tuple[str, int], list[tuple[int, str, str]]] = {}
        for e in entries:
            if self.parsed[e["id"]].get("__bad__"):
                continue
            for table, changed in (self.parsed[e["id"]].get("updated") or {}).items():
                for key, pair in changed.items():
                    self.updates.setdefault((table, int(key)), []).append((e["id"], *pair))

    def _state_after(self, table: str, row_id: int, entry_id: int, current: tuple | None) -> str:
        """The hex row hash of (table, row_id) as entry ``entry_id`` left it."""
        for eid, before, _after in self.updates.get((table, row_id), ()):
            if eid > entry_id:
                return before
        return row_hash(hashed(table, current), self.codec).hex() if current is not None else "missing"

    def digests(self, entry: dict[str, Any]) -> tuple[bytes, bytes]:
        """(content hash, rows digest) of one entry as the database holds it now."""
        codec = self.codec
        content = entry_hash(entry, codec)
        rows = self.parsed[entry["id"]]
        if rows.get("__bad__"):
            return content, b"bad rows record"
        parts: dict[str, bytes] = {}
        for name in RANGED:
            h = hasher()
            span = rows.get(name)
            if span:
                lo, hi = int(span[0]), int(span[1])
                found = self.rows.range(name, lo, hi)
                if name in STATEFUL:
                    nxt = lo
                    for r in chain(found, (None,)):
                        upto = r[0] if r is not None else hi + 1
                        for rid in range(nxt, upto):  # gone from the table
                            state = self._state_after(name, rid, entry["id"], None)
                            if state != "missing":
                                h.update(_unhex(state))
                        if r is not None:
                            h.update(_unhex(self._state_after(name, r[0], entry["id"], r)))
                            nxt = r[0] + 1
                else:
                    dump = codec.streamer(h.update)
                    for r in found:
                        dump(hashed(name, r))
            parts[name] = h.digest()
        h = hasher()
        names = [str(n) for n in rows.get("predicate") or []]
        if names:
            found_p = self.rows.predicates(names)
            for n in names:
                if n in found_p:
                    h.update(codec.encode(found_p[n]))
        parts["predicate"] = h.digest()
        h = hasher()
        stamped = [int(i) for i in rows.get("stamped") or []]
        if stamped:
            stamps = self.rows.by_ids("fact", stamped, STAMP_COLUMNS)
            for fid in stamped:
                if fid in stamps:
                    h.update(stamp_values(fid, *stamps[fid], codec=codec))
        parts["stamped"] = h.digest()
        updated: dict[str, dict[str, list[str]]] = {}
        for table, changed in (rows.get("updated") or {}).items():
            if table not in STATEFUL:
                continue
            current = self.rows.by_ids(table, [int(k) for k in changed], COLUMNS[table][1:])
            for key, pair in changed.items():
                rid = int(key)
                now = current.get(rid)
                after = self._state_after(table, rid, entry["id"],
                                          (rid, *now) if now is not None else None)
                updated.setdefault(table, {})[key] = [pair[0], after]
        return content, combine(parts, updated, codec)


def owned_ids(parsed: Iterable[dict[str, Any]]) -> dict[str, set[int]]:
    """Ids of rows each table's entries cover (created ranges; stamped facts as ``stamp``)."""
    out: dict[str, set[int]] = {name: set() for name in (*RANGED, "stamp")}
    for rows in parsed:
        if rows.get("__bad__"):
            continue
        for name in RANGED:
            span = rows.get(name)
            if span:
                out[name].update(range(int(span[0]), int(span[1]) + 1))
        out["stamp"].update(int(i) for i in rows.get("stamped") or [])
    return out


def verify(conn: Connection, codec: Codec = CANONICAL) -> VerifyReport:
    """Recompute the chain and every entry's row digests (with ``codec``); name what does not match."""
    entries = load_entries(conn)
    meta = sql.chain_head(conn)
    problems: list[VerifyProblem] = []
    amend = _amendments(entries)
    recompute = Recomputer(conn, entries, codec)
    prev = GENESIS
    expected_id = 1
    for e in entries:
        if e["id"] != expected_id:
            missing = expected_id if e["id"] > expected_id else e["id"]
            problems.append(VerifyProblem(missing, f"audit entry {missing} is missing"
                                          if e["id"] > expected_id else
                                          f"audit entry {e['id']} is out of order"))
        expected_id = e["id"] + 1
        content, rows = recompute.digests(e)
        stored = e["hash"]
        if e["id"] in amend:
            want_c, want_r, want_h, by = amend[e["id"]]
            if content.hex() != want_c or rows.hex() != want_r or (want_h is not None and stored != want_h):
                problems.append(VerifyProblem(
                    e["id"], f"audit entry {e['id']} or the rows it names differ from what "
                             f"erasure entry {by} recorded"))
        elif stored is None:
            problems.append(VerifyProblem(e["id"], f"audit entry {e['id']} has no hash"))
        elif link(prev, content, rows) != stored:
            problems.append(VerifyProblem(
                e["id"], f"audit entry {e['id']} does not match its hash: the entry, the "
                         "entry before it, or the rows it names were changed"))
        prev = stored or prev
    last = entries[-1]["id"] if entries else 0
    head, head_id = (meta[0], meta[1]) if meta is not None else (None, None)
    if head_id is not None and head_id > last:
        problems.append(VerifyProblem(last + 1, f"audit entries {last + 1}..{head_id} are missing"))
    elif (head or GENESIS) != prev and not problems:
        problems.append(VerifyProblem(last or None, "the audit log's last entry is not the "
                                      "head recorded in store_meta"))
    problems.extend(_uncovered(conn, recompute))
    first = min((p.entry for p in problems if p.entry is not None), default=None)
    return VerifyReport(ok=not problems, entries=len(entries), head=prev if entries else None,
                        first_broken=first,
                        erasures=sum(1 for e in entries if e["action"] == ERASED_ACTION),
                        amended=len(amend), problems=tuple(problems))


def _uncovered(conn: Connection, recompute: Recomputer) -> list[VerifyProblem]:
    owned = owned_ids(recompute.parsed.values())
    out: list[VerifyProblem] = []
    for name in RANGED:
        stray = [i for i in sql.ids_of(conn, name) if i not in owned[name]]
        if stray:
            out.append(VerifyProblem(None, f"{name} rows not covered by any audit entry: "
                                           f"{', '.join(map(str, stray[:10]))}"
                                           + (" …" if len(stray) > 10 else "")))
    stamped = [i for i in sql.retired_fact_ids(conn) if i not in owned["stamp"]]
    if stamped:
        out.append(VerifyProblem(None, "fact rows retired without an audit entry: "
                                       f"{', '.join(map(str, sorted(stamped)[:10]))}"))
    names = {n for rows in recompute.parsed.values() if not rows.get("__bad__")
             for n in rows.get("predicate") or []}
    stray_p = [n for n in sql.predicate_names(conn) if n not in names]
    if stray_p:
        out.append(VerifyProblem(None, "predicate_use rows not covered by any audit entry: "
                                       + ", ".join(sorted(stray_p)[:10])))
    return out
