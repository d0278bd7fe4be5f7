"""Scheduled maintenance against the store (docs/DESIGN.md §3.10): the thin half
of ``core.maintain``. ``gather`` reads the rows the planning needs, ``carry_out``
carries a ``MaintenancePlan`` out inside one ``WriteBatch`` (which holds the
store's write lock), and ``maintain`` does both and records the run. The rules
that decide what to merge, archive, restore or expire are ``core.maintain``'s,
pure and without I/O. Raises StoreError when a write does not take.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from typing import Any

from .bitemporal import copy_until
from .db import Connection
from .db import maintain as sql
from .maintain import (
    ACTION,
    DEFAULT_ACTOR,
    DEFAULT_SIMILARITY,
    MERGED_PREFIX,
    ClaimLink,
    LineageFact,
    MaintenancePlan,
    MaintenanceReport,
    MemoryItem,
    StoredMemory,
    entry_detail,
    link_lineages,
    plan_maintenance,
)
from .records import Fact
from .timeutil import iso
from .writer import WriteBatch, fact_from_row


def gather(conn: Connection, *, now: int, routed: Iterable[str] = (),
           subject: str | None = None
           ) -> tuple[list[MemoryItem], list[LineageFact], list[Fact], dict[int, int]]:
    """The rows ``plan_maintenance`` needs, read on ``conn`` (under the write
    lock for a real run, so they cannot change before the plan is carried
    out). ``routed``: the predicates the catalog routes to memories."""
    memory_rows = [StoredMemory._make(r) for r in sql.memory_rows(conn, subject)]
    predicates = set(routed)
    predicates.update(sql.memory_predicates(conn))
    predicates_in = sorted(predicates)
    links: list[ClaimLink] = []
    lineages: list[LineageFact] = []
    if memory_rows and predicates_in:
        links = [ClaimLink._make(r) for r in sql.claim_links(conn, predicates_in, subject)]
        lineages = [LineageFact._make(r) for r in sql.lineage_facts(conn, predicates_in, subject)]
    expiring_facts = [fact_from_row(r) for r in sql.expiring_facts(conn, now, subject)]
    held: dict[int, int] = {}
    for cid, fact_ids in sql.open_conflicts(conn):
        for fid in json.loads(fact_ids):
            held.setdefault(int(fid), int(cid))
    return link_lineages(memory_rows, links), lineages, expiring_facts, held


def carry_out(batch: WriteBatch, plan: MaintenancePlan) -> dict[int, int]:
    """Apply ``plan`` in ``batch`` at its transaction time. Returns expired
    fact id → the id of its closed copy. Raises StoreError when a row is not
    as planned (the plan must be made under the same lock)."""
    cache: dict = {}
    at = batch.tx
    sql.restore_memories(batch.conn, [(r.memory,) for r in plan.restores], cache)
    folds: list[dict[str, Any]] = [
        {"b_id": mid, "b_at": at, "b_reason": f"{MERGED_PREFIX}{m.into}", "b_into": m.into}
        for m in plan.merges for mid in m.folded]
    folds += [{"b_id": a.memory, "b_at": at, "b_reason": a.reason, "b_into": None}
              for a in plan.archives]
    sql.fold_memories(batch.conn, folds, cache)
    sql.set_mentions(batch.conn, [{"b_id": m.into, "b_before": m.mentions[0],
                                   "b_after": m.mentions[1]} for m in plan.merges], cache)
    copies: dict[int, int] = {}
    # loaded before the stamps, so the expired rows drop out of the batch's cache
    batch.prefetch_pairs({(e.fact.subject, e.fact.predicate) for e in plan.expiries})
    for e in plan.expiries:
        f = e.fact
        batch.retire(f, "expired", None, note=f"TTL ran out at {iso(f.expires_at, f.tz)}")
        assert f.expires_at is not None  # planned expiries have one
        copies[f.id] = batch._insert_piece({}, copy_until(f, f.expires_at))
    return copies


def maintain(batch_or_conn: WriteBatch | Connection, *, now: int, older_than: int,
             routed: Iterable[str] = (), similarity: float = DEFAULT_SIMILARITY,
             subject: str | None = None,
             dry_run: bool = False, by: str = DEFAULT_ACTOR,
             progress: Callable[[int, int], None] | None = None) -> MaintenanceReport:
    """One run: gather, plan and (unless ``dry_run``) carry out and audit.
    ``batch_or_conn`` is the run's WriteBatch, or a read connection for a dry
    run. ``progress(done, total)`` is called after each of its stages."""
    started = time.perf_counter()
    stages = 2 if dry_run else 3

    def step(done: int) -> None:
        if progress is not None:
            progress(done, stages)

    conn = batch_or_conn.conn if isinstance(batch_or_conn, WriteBatch) else batch_or_conn
    rows = gather(conn, now=now, routed=routed, subject=subject)
    step(1)
    plan = plan_maintenance(*rows, now=now, older_than=older_than, similarity=similarity)
    step(2)
    if dry_run or plan.empty:
        if not dry_run:
            step(3)
        return MaintenanceReport(plan, dry_run, actor=by, subject=subject,
                                 seconds=time.perf_counter() - started)
    assert isinstance(batch_or_conn, WriteBatch)
    batch = batch_or_conn
    # its own instant (the batch's recorded time), after everything before it
    copies = carry_out(batch, plan)
    c = plan.counts()
    batch.record_operation(
        by, ACTION, subject=subject,
        reason=(f"maintenance: {c['merged']} merged, {c['archived']} archived, "
                f"{c['restored']} restored, {c['expired']} expired"),
        detail=entry_detail(plan, copies))
    step(3)
    return MaintenanceReport(plan, False, audit_entry=batch._last_audit, at=batch.tx, actor=by,
                             subject=subject, copies=copies,
                             seconds=time.perf_counter() - started)


__all__ = ["carry_out", "gather", "maintain"]
