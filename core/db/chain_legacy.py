"""FROZEN: the legacy (schema revisions 0002) audit chain, which hashed pickle bytes.

Do not change this module: migrations 0002 (which first chained stores) and
0003 (which verifies a store with this encoding before re-chaining it with
the canonical JSON encoding of ``core.chain``) depend on it computing exactly
what the write path computed before revision 0003. Everything below is the
``core.chain`` of that time, unchanged.

Original description:


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

A row is encoded as a tuple of plain Python values (str, int, float, bool,
None) in the schema's column order, pickled with protocol 4 without the memo
(``Pickler.fast``: the bytes depend only on the values and their types, not
on object identity), so SQLite and PostgreSQL give the same bytes; this is
about three times cheaper than ``repr`` on the import path. The head (hash and id of the last entry) is kept in
``store_meta`` so that deleting the newest entries is noticed too.

An erasure (``core.erase``) deletes rows and scrubs entries; its tombstone
entry names each entry whose digests changed with the new ones
(``detail.amended``). ``verify`` accepts such an entry only with exactly the
digests of the latest tombstone naming it, and still checks the chain links.
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from hashlib import blake2b
from itertools import chain
from typing import Any

from sqlalchemy import Connection, select

from .tables import (
    AuditRow,
    ClaimRow,
    ConflictRow,
    FactRow,
    MemoryRow,
    PredicateUse,
    StoreMeta,
    TurnRow,
)

GENESIS = "0" * 64
ERASED_ACTION = "subject.erased"
RANGED = ("turn", "claim", "fact", "conflict", "memory")
STATEFUL = ("claim", "conflict")  # hashed row by row (rows change after creation)

TABLES = {
    "turn": TurnRow.__table__,
    "claim": ClaimRow.__table__,
    "fact": FactRow.__table__,
    "conflict": ConflictRow.__table__,
    "memory": MemoryRow.__table__,
    "predicate": PredicateUse.__table__,
}
AUDIT = AuditRow.__table__
META = StoreMeta.__table__

STAMP_COLUMNS = ("retired_at", "retired_by_claim", "retire_reason", "retire_note")
# the columns as they were when this encoding was in use (revision 0002);
# columns later revisions added (core.chain.LATE, memory upkeep, the told axis
# and start bounds of 0007) are not part of it
_LATER = {"claim": {"start_stated", "start_latest"},
          "fact": {"start_stated", "known_from", "start_kind", "start_latest", "known_until"},
          "memory": {"archived_at", "archive_reason", "merged_into"}}


def _then(name: str, *excluded: str) -> tuple[str, ...]:
    later = _LATER.get(name, set())
    return tuple(c.name for c in TABLES[name].columns
                 if c.name not in later and c.name not in excluded)


COLUMNS: dict[str, tuple[str, ...]] = {
    "turn": _then("turn"),
    "claim": _then("claim"),
    "fact": _then("fact", *STAMP_COLUMNS),
    "conflict": _then("conflict"),
    "memory": _then("memory", "mentions"),
    "predicate": _then("predicate"),
}
FACT_BODY = tuple(i for i, c in enumerate(TABLES["fact"].columns)
                  if c.name not in STAMP_COLUMNS and c.name not in _LATER["fact"])
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


class _Sink:
    __slots__ = ("write",)
    write: Callable[[bytes], Any]


def streamer(write: Callable[[bytes], Any]) -> Callable[[tuple], None]:
    """A function that encodes one tuple of values canonically into ``write``
    (e.g. a hasher's ``update``). Not thread-safe: one per thread or batch."""
    sink = _Sink()
    sink.write = write
    pickler = pickle.Pickler(sink, 4)
    pickler.fast = True  # no memo: equal values give equal bytes, whatever their identity
    return pickler.dump


class Encoder:
    """Canonical bytes of tuples of values (see the module docstring)."""

    __slots__ = ("_out", "_dump")

    def __init__(self) -> None:
        self._out: list[bytes] = []
        self._dump = streamer(self._out.append)

    def __call__(self, values: tuple) -> bytes:
        self._dump(values)
        data = b"".join(self._out)
        self._out.clear()
        return data

    def row_hash(self, values: tuple) -> bytes:
        """The 16-byte hash of one whole row (claims, conflicts)."""
        return blake2b(self(values), digest_size=16).digest()


def row_hasher() -> Callable[[tuple], bytes]:
    """A fast ``row_hash`` for one batch (a closure: no method calls per row)."""
    out: list[bytes] = []
    dump = streamer(out.append)
    join, clear = b"".join, out.clear

    def hash_row(values: tuple) -> bytes:
        dump(values)
        data = join(out)
        clear()
        return blake2b(data, digest_size=16).digest()

    return hash_row


def encode(values: tuple) -> bytes:
    """Canonical bytes of a tuple of plain values."""
    return Encoder()(values)


def row_hash(values: tuple) -> bytes:
    """The 16-byte hash of one whole row (claims, conflicts)."""
    return blake2b(encode(values), digest_size=16).digest()


def entry_hash(entry: dict[str, Any] | tuple) -> bytes:
    """The hash of an audit entry's own columns (ENTRY_COLUMNS)."""
    values = tuple(entry[c] for c in ENTRY_COLUMNS) if isinstance(entry, dict) else entry
    return blake2b(encode(values), digest_size=32).digest()


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
                 note: str | None) -> bytes:
    return encode((fact_id, at, by, reason, note))


class RowsDigest:
    """The digest of the rows one operation touched, built as they are buffered."""

    __slots__ = ("parts", "stamped", "predicates", "updated")

    def __init__(self) -> None:
        self.parts = {name: hasher() for name in (*RANGED, "predicate", "stamped")}
        self.stamped: list[int] = []
        self.predicates: list[str] = []
        self.updated: dict[str, dict[str, list[str]]] = {}

    def finish(self) -> bytes:
        """The digest over every part (in a fixed order) and the updated rows."""
        return combine({name: h.digest() for name, h in self.parts.items()}, self.updated)


def combine(parts: dict[str, bytes], updated: dict[str, dict[str, list[str]]]) -> bytes:
    h = hasher()
    for name in (*RANGED, "predicate", "stamped"):
        h.update(name.encode())
        h.update(parts[name])
    for table in sorted(updated):
        for key in sorted(updated[table], key=int):
            before, after = updated[table][key]
            h.update(encode((table, int(key), before, after)))
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
    """Reads the rows behind entries, one table range at a time."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def range(self, name: str, lo: int, hi: int, window: int = 50_000) -> Iterator[tuple]:
        """Rows with ids in [lo, hi] in id order, read a window at a time."""
        table = TABLES[name]
        cols = [table.c[c] for c in COLUMNS[name]]
        for start in range(lo, hi + 1, window):
            stop = min(hi, start + window - 1)
            stmt = select(*cols).where(table.c.id >= start, table.c.id <= stop).order_by(table.c.id)
            for r in self.conn.execute(stmt):
                yield tuple(r)

    def by_ids(self, name: str, ids: Iterable[int], columns: Iterable[str] | None = None
               ) -> dict[int, tuple]:
        table = TABLES[name]
        names = tuple(columns) if columns is not None else COLUMNS[name]
        out: dict[int, tuple] = {}
        wanted = sorted(set(ids))
        for i in range(0, len(wanted), 500):
            part = wanted[i:i + 500]
            stmt = select(table.c.id, *[table.c[c] for c in names]).where(table.c.id.in_(part))
            for r in self.conn.execute(stmt):
                out[r[0]] = tuple(r[1:])
        return out

    def predicates(self, names: list[str]) -> dict[str, tuple]:
        table = TABLES["predicate"]
        out: dict[str, tuple] = {}
        for i in range(0, len(names), 500):
            stmt = select(*[table.c[c] for c in COLUMNS["predicate"]]).where(
                table.c.predicate.in_(names[i:i + 500]))
            for r in self.conn.execute(stmt):
                out[r[0]] = tuple(r)
        return out


def load_entries(conn: Connection) -> list[dict[str, Any]]:
    cols = [AUDIT.c[c] for c in (*ENTRY_COLUMNS, "hash")]
    return [dict(r._mapping) for r in conn.execute(select(*cols).order_by(AUDIT.c.id))]


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


def _amendments(entries: list[dict[str, Any]]) -> dict[int, tuple[str, str, int]]:
    out: dict[int, tuple[str, str, int]] = {}
    for e in entries:
        if e["action"] != ERASED_ACTION:
            continue
        try:
            amended = json.loads(e["detail"]).get("amended", {})
        except (ValueError, AttributeError):
            continue
        for key, pair in amended.items():
            if isinstance(pair, list) and len(pair) == 2 and int(key) < e["id"]:
                out[int(key)] = (str(pair[0]), str(pair[1]), e["id"])
    return out


class Recomputer:
    """Recomputes each entry's content and rows digests from the database."""

    def __init__(self, conn: Connection, entries: list[dict[str, Any]]) -> None:
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
        return row_hash(current).hex() if current is not None else "missing"

    def digests(self, entry: dict[str, Any]) -> tuple[bytes, bytes]:
        """(content hash, rows digest) of one entry as the database holds it now."""
        content = entry_hash(entry)
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
                    dump = streamer(h.update)
                    for r in found:
                        dump(r)
            parts[name] = h.digest()
        h = hasher()
        names = [str(n) for n in rows.get("predicate") or []]
        if names:
            found_p = self.rows.predicates(names)
            for n in names:
                if n in found_p:
                    h.update(encode(found_p[n]))
        parts["predicate"] = h.digest()
        h = hasher()
        stamped = [int(i) for i in rows.get("stamped") or []]
        if stamped:
            stamps = self.rows.by_ids("fact", stamped, STAMP_COLUMNS)
            for fid in stamped:
                if fid in stamps:
                    h.update(stamp_values(fid, *stamps[fid]))
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
        return content, combine(parts, updated)


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


def verify(conn: Connection) -> VerifyReport:
    """Recompute the chain and every entry's row digests; name what does not match."""
    entries = load_entries(conn)
    meta = conn.execute(select(META.c.audit_head, META.c.audit_last).where(META.c.id == 1)).first()
    problems: list[VerifyProblem] = []
    amend = _amendments(entries)
    recompute = Recomputer(conn, entries)
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
            want_c, want_r, by = amend[e["id"]]
            if content.hex() != want_c or rows.hex() != want_r:
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
        table = TABLES[name]
        stray = [i for (i,) in conn.execute(select(table.c.id).order_by(table.c.id))
                 if i not in owned[name]]
        if stray:
            out.append(VerifyProblem(None, f"{name} rows not covered by any audit entry: "
                                           f"{', '.join(map(str, stray[:10]))}"
                                           + (" …" if len(stray) > 10 else "")))
    fact = TABLES["fact"]
    stamped = [i for (i,) in conn.execute(select(fact.c.id).where(fact.c.retired_at.is_not(None)))
               if i not in owned["stamp"]]
    if stamped:
        out.append(VerifyProblem(None, "fact rows retired without an audit entry: "
                                       f"{', '.join(map(str, sorted(stamped)[:10]))}"))
    names = {n for rows in recompute.parsed.values() if not rows.get("__bad__")
             for n in rows.get("predicate") or []}
    pred = TABLES["predicate"]
    stray_p = [n for (n,) in conn.execute(select(pred.c.predicate)) if n not in names]
    if stray_p:
        out.append(VerifyProblem(None, "predicate_use rows not covered by any audit entry: "
                                       + ", ".join(sorted(stray_p)[:10])))
    return out
