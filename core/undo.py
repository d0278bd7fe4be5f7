"""Undoing a review decision without rewriting history.

An undo is itself a new operation: the facts the decision asserted are
retired (reason ``retracted``, with a note naming the undo), the facts it
retired come back as fresh copies over their old valid intervals, any
conflict it opened is withdrawn, and the claim returns to the review queue.
Nothing the decision wrote is deleted; the audit log keeps both operations.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select, update

from .bitemporal import Piece
from .errors import AlreadyDecided, CandidateNotFound, InvalidInput
from .gates import append_steps, undone
from .schema import AuditRow, ClaimRow, ConflictRow, FactRow
from .writer import WriteBatch, fact_from_row

AUDIT = AuditRow.__table__
CLAIM = ClaimRow.__table__
CONFLICT = ConflictRow.__table__
FACT = FactRow.__table__

_DECISIONS = ("claim.approved", "claim.rejected")


def _decision_entry(batch: WriteBatch, claim: dict[str, Any]) -> dict[str, Any]:
    """The audit entry of the review decision on ``claim``. Raises AlreadyDecided
    when the claim was not decided in review (or the entry is missing)."""
    row = batch.conn.execute(
        select(*AUDIT.c).where(AUDIT.c.claim_from == claim["id"], AUDIT.c.claim_to == claim["id"],
                               AUDIT.c.action.in_(_DECISIONS))
        .order_by(AUDIT.c.id.desc()).limit(1)
    ).first()
    if row is None:
        raise AlreadyDecided(f"candidate {claim['id']} was not decided in review; nothing to undo")
    return dict(row._mapping)


def undo_decision(batch: WriteBatch, candidate_id: int, *, by: str,
                  reason: str | None = None) -> dict[str, Any]:
    """Put a reviewed candidate back in the queue, undoing the decision's effect.

    Returns {"candidate", "undone" (approved/rejected), "retired" (fact ids),
    "restored" (new fact ids), "withdrawn_conflict"}. Raises CandidateNotFound,
    AlreadyDecided (still pending, or not decided in review), InvalidInput (no
    reviewer name, or the facts it asserted were changed since, so undoing
    would rewrite later decisions).
    """
    if not by or not by.strip():
        raise InvalidInput("an undo needs the reviewer's name")
    conn = batch.conn
    found = conn.execute(select(*CLAIM.c).where(CLAIM.c.id == candidate_id)).first()
    if found is None:
        raise CandidateNotFound(f"no review candidate with id {candidate_id}")
    claim = dict(found._mapping)
    if claim["state"] == "pending":
        raise AlreadyDecided(f"candidate {candidate_id} is pending; there is no decision to undo")
    entry = _decision_entry(batch, claim)
    verdict = entry["action"].split(".")[1]
    retired_ids: list[int] = []
    restored: list[int] = []
    withdrawn: int | None = None
    note = f"undo of the {verdict} decision on candidate {candidate_id} by {by}"
    if verdict == "approved":
        if entry["fact_from"] is not None:
            rows = [fact_from_row(r) for r in conn.execute(
                select(*FACT.c).where(FACT.c.id >= entry["fact_from"],
                                      FACT.c.id <= entry["fact_to"]))]
            changed = [r.id for r in rows if r.retired_at is not None]
            if changed:
                raise InvalidInput(
                    f"cannot undo candidate {candidate_id}: fact {changed[0]} it asserted was "
                    "changed since; retract or correct it instead")
            for r in rows:
                retired_ids.append(batch.retire(r, "retracted", None, note=note))
        earlier = json.loads(entry["detail"]).get("retired", [])
        if earlier:
            for found in conn.execute(select(*FACT.c).where(FACT.c.id.in_(earlier))):
                old = fact_from_row(found)
                restored.append(batch._insert_piece(claim, Piece(old.valid_from, old.valid_to, old, old.start_stated)))
        if entry["conflict_id"] is not None:
            batch.will_update("conflict", entry["conflict_id"])
            done = conn.execute(update(CONFLICT).where(
                CONFLICT.c.id == entry["conflict_id"], CONFLICT.c.state == "open").values(
                state="withdrawn", resolved_at=batch.tx, resolved_by=by, resolution="withdrawn",
                reason=note))
            if done.rowcount != 1:
                raise InvalidInput(
                    f"cannot undo candidate {candidate_id}: conflict {entry['conflict_id']} it "
                    "opened was resolved since")
            withdrawn = entry["conflict_id"]
    batch.will_update("claim", candidate_id)
    conn.execute(update(CLAIM).where(CLAIM.c.id == candidate_id).values(
        state="pending", decided_by=None, decided_at=None, decision_reason=None, edits=None,
        fact_id=None, merged_into=None,
        gates=append_steps(claim["gates"], [undone(verdict, by)])))
    batch.record_operation(by, "claim.reopened", claim_id=candidate_id, conflict_id=withdrawn,
                           subject=claim["subject"], predicate=claim["predicate"],
                           reason=reason or note,
                           detail={"undone": verdict, "decision": entry["id"],
                                   "restored": restored})
    return {"candidate": candidate_id, "undone": verdict, "retired": retired_ids,
            "restored": restored, "withdrawn_conflict": withdrawn}
