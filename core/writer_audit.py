"""What one write transaction records of itself: the ids it hands out and
the audit entries that describe its operations, each chained to the one
before it (core.chain, docs/DESIGN.md §7.1). ``BatchAudit`` is the base of
``core.writer.WriteBatch``, whose ``__init__`` sets up the state it declares.
"""

from __future__ import annotations

import json
from typing import Any

from .chain import STATEFUL, RowsDigest, dumps_rows, entry_hash, hashed, link, row_hash
from .db import Connection
from .db import writes as sql

_EMPTY_ROWS = RowsDigest().finish()
_ENCODER = json.JSONEncoder(ensure_ascii=False)


def dumps(value: Any) -> str:
    """``value`` as JSON the way the batch writes it into its rows (non-ASCII text kept as it is)."""
    return _ENCODER.encode(value)


class BatchAudit:
    """The ids and the audit entries of one write transaction (a WriteBatch)."""

    conn: Connection  # the transaction's connection (or, with a writer process, a reader)
    tx: int  # the recorded time of everything the batch writes
    wall: int  # the wall clock when the batch began
    digest: RowsDigest  # the rows the batch touches, for its audit entry
    retired_ids: list[int]  # the fact rows the batch retired
    _next: dict[str, int]  # the next free id of each table
    _first: dict[str, int]  # the same, when the batch began
    _head: str  # the audit chain's head hash
    _last_audit: int  # the id of the newest audit entry
    _before: dict[str, dict[int, str]]  # table -> row id -> its hash before (``will_update``)
    _buf: dict[str, list[dict]]  # rows waiting to be written, by kind ("audit": entries)

    def _id(self, name: str) -> int:
        """A new id for a row of ``name`` ("claim", "audit", …)."""
        value = self._next[name]
        self._next[name] = value + 1
        return value

    def audit(self, actor: str, action: str, *, claim_id: int | None = None,
              claims: tuple[int, int] | None = None, facts: tuple[int, int] | None = None,
              conflict_id: int | None = None, subject: str | None = None,
              predicate: str | None = None, reason: str | None = None,
              detail: dict | None = None, rows: tuple[str, bytes] | None = None) -> None:
        """Append one audit entry, chained to the one before it. ``claim_id``
        names a single claim; ``claims`` and ``facts`` are inclusive id ranges
        of rows the operation touched; ``rows`` is the (JSON, digest) pair of
        the rows it covers (see core.chain; default: none)."""
        if claim_id is not None:
            claims = (claim_id, claim_id)
        rows_json, rows_digest = rows if rows is not None else ("{}", _EMPTY_ROWS)
        entry = dict(id=self._id("audit"), at=self.tx, wall_at=self.wall, actor=actor,
                     action=action, claim_from=claims[0] if claims else None,
                     claim_to=claims[1] if claims else None,
                     fact_from=facts[0] if facts else None, fact_to=facts[1] if facts else None,
                     conflict_id=conflict_id, subject=subject, predicate=predicate,
                     reason=reason, detail=dumps(detail or {}), rows=rows_json)
        entry["hash"] = self._head = link(self._head, entry_hash(entry), rows_digest)
        self._last_audit = int(entry["id"])  # type: ignore[call-overload]
        self._buf["audit"].append(entry)

    def will_update(self, table: str, row_id: int) -> None:
        """Note a claim or conflict row this operation is about to change (by
        SQL UPDATE on ``conn``): its hash before goes into the audit entry."""
        if row_id in self._before.setdefault(table, {}):
            return
        row = sql.stateful_row(self.conn, table, row_id)
        if row is not None:
            self._before[table][row_id] = row_hash(hashed(table, row)).hex()

    def _updated(self) -> dict[str, dict[str, list[str]]]:
        """[before, after] row hashes of the rows noted by ``will_update``."""
        out: dict[str, dict[str, list[str]]] = {}
        for table, befores in self._before.items():
            assert table in STATEFUL
            for rid, before in sorted(befores.items()):
                row = sql.stateful_row(self.conn, table, rid)
                after = row_hash(hashed(table, row)).hex() if row is not None else "missing"
                out.setdefault(table, {})[str(rid)] = [before, after]
        return out

    def created(self, name: str) -> tuple[int, int] | None:
        """The inclusive id range of ``name`` rows ("claim", "fact", …) this batch created."""
        first, after = self._first[name], self._next[name]
        return (first, after - 1) if after > first else None

    def record_operation(self, actor: str, action: str, *, claim_id: int | None = None,
                         conflict_id: int | None = None, subject: str | None = None,
                         predicate: str | None = None, reason: str | None = None,
                         detail: dict | None = None, skip_if_unchanged: bool = False) -> None:
        """The one audit entry that describes this batch's operation: who, when,
        why, the claims it created (or the one it decided), the facts it
        created and the facts it retired. With ``skip_if_unchanged`` an
        operation that wrote nothing (a repeated import) leaves no entry."""
        if (skip_if_unchanged and self._first == self._next and not self.retired_ids
                and not self._before):
            return
        detail = dict(detail or {})
        if self.retired_ids:
            if len(self.retired_ids) <= 1000:
                detail["retired"] = list(self.retired_ids)
            else:
                detail["retired_count"] = len(self.retired_ids)
        covered: dict[str, Any] = {}
        for name in ("turn", "claim", "fact", "conflict", "memory"):
            span = self.created(name)
            if span is not None:
                covered[name] = list(span)
        if self.digest.predicates:
            covered["predicate"] = list(self.digest.predicates)
        if self.digest.stamped:
            covered["stamped"] = list(self.digest.stamped)
        updated = self._updated()
        if updated:
            covered["updated"] = self.digest.updated = updated
        self.audit(actor, action, claim_id=claim_id,
                   claims=None if claim_id is not None else self.created("claim"),
                   facts=self.created("fact"), conflict_id=conflict_id, subject=subject,
                   predicate=predicate, reason=reason, detail=detail,
                   rows=(dumps_rows(covered), self.digest.finish()))
