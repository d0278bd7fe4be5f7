"""Canonical hashing: the audit chain re-hashed with RFC 8785 JSON (core.chain).

Until this revision the chain digested pickle bytes (frozen in
``core.chain_legacy``). The upgrade, in one transaction:

1. verifies the chain with the legacy encoding and refuses, naming the first
   broken entry, when it fails (re-chaining would launder tampering);
2. converts ``claim.gates`` from the legacy joined text
   (``gate:result[:note]|…``) to the JSON array of
   ``{"gate", "result", "note"}`` objects the write path now stores;
3. re-chains every entry with the canonical encoding: range digests, stamp
   and predicate digests, entry hashes and links are recomputed from the rows
   as they are now, and so is the last recorded ``after`` hash of each claim
   or conflict that changed after creation. Earlier ``before``/``after``
   hashes of such rows describe states that no longer exist: they are kept
   as opaque commitments (docs/audit-chain.md). Erasure tombstones get the new
   digests of the entries they amended (``detail.amended``);
4. appends a ``store.rechained`` entry recording the legacy head, so the old
   chain's final hash stays committed in the new one.

The downgrade does the reverse (gates back to text, pickle chain); the
``store.rechained`` entries stay in the log.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import json
import time
from types import ModuleType
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

ACTION = "store.rechained"
_STEP = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_DETAIL = json.JSONEncoder(ensure_ascii=False)  # how the write path stores audit details


def upgrade() -> None:
    rechain_store(op.get_bind())


def downgrade() -> None:
    unchain_store(op.get_bind())


# ----------------------------------------------------------------- gates
def gates_to_json(text: str | None) -> str:
    """The legacy ``gates`` text as the JSON array of steps (already JSON: unchanged).

    Legacy: steps joined with "|", each "gate:result[:note]" (empty steps
    dropped; an empty note is null)."""
    if text and text.startswith("["):
        return text
    steps = []
    for step in (text or "").split("|"):
        if not step:
            continue
        gate, _, rest = step.partition(":")
        result, _, note = rest.partition(":")
        steps.append(_STEP.encode({"gate": gate, "result": result, "note": note or None}))
    return "[" + ",".join(steps) + "]"


def gates_to_text(text: str | None) -> str:
    """The JSON array of steps as the legacy joined text (for the downgrade)."""
    if not text or not text.startswith("["):
        return text or ""
    parts = []
    for step in json.loads(text):
        note = step.get("note")
        parts.append(f"{step['gate']}:{step['result']}" + (f":{note}" if note else ""))
    return "|".join(parts)


def _convert_gates(conn: sa.Connection, convert: Any, window: int = 20_000) -> int:
    """Rewrite every claim's ``gates`` with ``convert``, a window of ids at a time."""
    from memdesk.db.tables import CLAIM

    claim = CLAIM
    stmt = sa.update(claim).where(claim.c.id == sa.bindparam("b_id")).values(
        gates=sa.bindparam("b_gates"))
    done, after = 0, None
    while True:
        query = sa.select(claim.c.id, claim.c.gates).order_by(claim.c.id).limit(window)
        if after is not None:
            query = query.where(claim.c.id > after)
        rows = conn.execute(query).all()
        if not rows:
            return done
        after = rows[-1][0]
        changed = [{"b_id": i, "b_gates": new} for i, old in rows if (new := convert(old)) != old]
        if changed:
            conn.execute(stmt, changed)
            done += len(changed)


# ----------------------------------------------------------------- chain
def _refuse_broken(conn: sa.Connection, codec: ModuleType, what: str) -> str | None:
    """Verify with ``codec``; raise StoreError naming the first broken entry. Returns the head."""
    from memdesk.errors import StoreError

    report = codec.verify(conn)
    if not report.ok:
        first = report.problems[0].message if report.problems else ""
        raise StoreError(
            f"cannot re-chain the audit log: it fails verification with the {what} encoding "
            f"(first broken audit entry: {report.first_broken}; {first}). Nothing was changed; "
            "run `memdesk verify` with the memdesk that wrote the store and investigate")
    return report.head


def rechain(conn: sa.Connection, codec: ModuleType) -> tuple[int, str]:
    """Recompute every entry's digests and link with ``codec`` (core.chain or
    core.chain_legacy) from the rows as they are now. Returns (entries, head)."""
    from memdesk.db.chain import TABLES
    from memdesk.db.tables import AUDIT, META

    audit, meta = AUDIT, META
    entries = codec.load_entries(conn)
    # 1. the last recorded "after" of each changed claim/conflict: the row as it is now
    last: dict[tuple[str, int], int] = {}
    parsed = {e["id"]: codec.parse_rows(e) for e in entries}
    for e in entries:
        for table, changed in (parsed[e["id"]].get("updated") or {}).items():
            for key in changed:
                last[(table, int(key))] = e["id"]
    by_entry: dict[int, list[tuple[str, int]]] = {}
    for slot, eid in last.items():
        by_entry.setdefault(eid, []).append(slot)
    for eid, slots in by_entry.items():
        rows = parsed[eid]
        for table, rid in slots:
            t = TABLES[table]
            row = conn.execute(sa.select(*_stored(conn, t)).where(t.c.id == rid)).first()
            rows["updated"][table][str(rid)][1] = (
                codec.row_hash(tuple(row)).hex() if row is not None else "missing")
        text = codec.dumps_rows(rows)
        conn.execute(sa.update(audit).where(audit.c.id == eid).values(rows=text))
    # 2. digests and links in entry order; tombstones take the new digests of what they amended
    entries = codec.load_entries(conn)
    amend = codec._amendments(entries)
    records: dict[int, list[int]] = {}
    for eid, (*_, by) in amend.items():
        records.setdefault(by, []).append(eid)
    recompute = codec.Recomputer(conn, entries)
    digests: dict[int, tuple[bytes, bytes]] = {}
    head = codec.GENESIS
    for e in entries:
        if e["id"] in records:
            detail = json.loads(e["detail"])
            for eid in records[e["id"]]:
                content, rows_digest = digests[eid]
                detail["amended"][str(eid)] = [content.hex(), rows_digest.hex()]
            e["detail"] = _DETAIL.encode(detail)
            conn.execute(sa.update(audit).where(audit.c.id == e["id"]).values(
                detail=e["detail"]))
        digests[e["id"]] = recompute.digests(e)
        head = codec.link(head, *digests[e["id"]])
        conn.execute(sa.update(audit).where(audit.c.id == e["id"]).values(hash=head))
    last_id = entries[-1]["id"] if entries else None
    conn.execute(sa.update(meta).where(meta.c.id == 1).values(
        audit_head=head if entries else None, audit_last=last_id))
    return len(entries), head


def _stored(conn: sa.Connection, table: sa.Table) -> list[sa.Column]:
    """The columns of ``table`` the database has: at this revision, not the
    ones later revisions add (they come last, and core.chain hashes a row
    without them when they are NULL)."""
    have = {c["name"] for c in sa.inspect(conn).get_columns(table.name)}
    return [c for c in table.c if c.name in have]


def _append(conn: sa.Connection, codec: ModuleType, detail: dict[str, Any]) -> None:
    """Append the ``store.rechained`` entry (no rows) after the head."""
    from memdesk.db.tables import AUDIT, META

    audit, meta = AUDIT, META
    head, last, last_tx = conn.execute(
        sa.select(meta.c.audit_head, meta.c.audit_last, meta.c.last_tx)
        .where(meta.c.id == 1)).one()
    entry = dict(id=(last or 0) + 1, at=last_tx or 0, wall_at=int(time.time() * 1_000_000),
                 actor="memdesk", action=ACTION, claim_from=None, claim_to=None,
                 fact_from=None, fact_to=None, conflict_id=None, subject=None,
                 predicate=None,
                 reason="schema upgrade 0003: the audit chain is re-hashed with canonical "
                        "JSON (RFC 8785) instead of pickle bytes",
                 detail=_DETAIL.encode(detail), rows="{}")
    entry["hash"] = codec.link(head or codec.GENESIS, codec.entry_hash(entry),
                               codec.RowsDigest().finish())
    conn.execute(sa.insert(audit).values(**entry))
    conn.execute(sa.update(meta).where(meta.c.id == 1).values(
        audit_head=entry["hash"], audit_last=entry["id"]))


def rechain_store(conn: sa.Connection) -> None:
    """The upgrade (see the module docstring)."""
    from memdesk import chain
    from memdesk.db import chain_legacy

    legacy_head = _refuse_broken(conn, chain_legacy, "legacy (pickle)")
    converted = _convert_gates(conn, gates_to_json)
    entries, _ = rechain(conn, chain)
    _append(conn, chain, {"revision": "0003", "encoding": "rfc8785-json", "entries": entries,
                          "legacy_head": legacy_head, "gates_converted": converted})
    report = chain.verify(conn)
    if not report.ok:  # a bug in this migration, not in the store: roll back
        raise RuntimeError(f"re-chained audit log does not verify: {report.problems[:3]}")


def unchain_store(conn: sa.Connection) -> None:
    """The downgrade: pickle chain and text gates again (the ``store.rechained``
    entries stay: later entries may follow them)."""
    from memdesk import chain
    from memdesk.db import chain_legacy

    _refuse_broken(conn, chain, "canonical JSON")
    _convert_gates(conn, gates_to_text)
    rechain(conn, chain_legacy)
    report = chain_legacy.verify(conn)
    if not report.ok:
        raise RuntimeError(f"re-chained audit log does not verify: {report.problems[:3]}")
