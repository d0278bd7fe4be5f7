"""Undoing a review decision or a conflict resolution without rewriting history.

An undo is itself a new operation: the facts the decision asserted are
retired (reason ``retracted``, with a note naming the undo), the facts it
retired come back as fresh copies over their old valid intervals, any
conflict it opened is withdrawn, and the claim returns to the review queue
(a review decision) or to its conflict, which is open again (a resolution).
Nothing the decision wrote is deleted; the audit log keeps both operations.
An undo that would rewrite later decisions (a fact it would retire or bring
back was changed since) is refused.
"""

from __future__ import annotations

import json
from typing import Any

from .bitemporal import normalise_object, whole_copy
from .db import undo as sql
from .db.reads import row_by_id
from .errors import AlreadyDecided, CandidateNotFound, ConflictNotFound, InvalidInput, StoreError
from .gates import append_steps, reopened, undone
from .records import DecisionUndone, Fact, ResolutionUndone
from .writer import WriteBatch

_DECISIONS = ("claim.approved", "claim.rejected")


def _decision_entry(batch: WriteBatch, claim: dict[str, Any]) -> dict[str, Any]:
    """The audit entry of the review decision on ``claim``. Raises AlreadyDecided
    when the claim was not decided in review (or the entry is missing)."""
    entry = sql.decision_entry(batch.conn, claim["id"], _DECISIONS)
    if entry is None:
        raise AlreadyDecided(f"candidate {claim['id']} was not decided in review; nothing to undo")
    return entry


def _undone_row(batch: WriteBatch, by: str, table: str, row_id: int,
                missing: LookupError) -> dict[str, Any]:
    """The claim or conflict row (``table``) an undo is about. Raises InvalidInput
    without the reviewer's name, ``missing`` when there is no such row."""
    if not by or not by.strip():
        raise InvalidInput("an undo needs the reviewer's name")
    found = row_by_id(batch.conn, table, row_id)
    if found is None:
        raise missing
    return found


def undo_decision(batch: WriteBatch, candidate_id: int, *, by: str,
                  reason: str | None = None) -> DecisionUndone:
    """Put a reviewed candidate back in the queue, undoing the decision's effect.

    Returns {"candidate", "undone" (approved/rejected), "retired" (fact ids),
    "restored" (new fact ids), "withdrawn_conflict"}. Raises CandidateNotFound,
    AlreadyDecided (still pending, or not decided in review), InvalidInput (no
    reviewer name, or the facts it asserted were changed since, so undoing
    would rewrite later decisions).
    """
    conn = batch.conn
    claim = _undone_row(batch, by, "claim", candidate_id,
                        CandidateNotFound(f"no review candidate with id {candidate_id}"))
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
            rows = sql.facts_between(conn, entry["fact_from"], entry["fact_to"])
            changed = [r.id for r in rows if r.retired_at is not None]
            if changed:
                raise InvalidInput(
                    f"cannot undo candidate {candidate_id}: fact {changed[0]} it asserted was "
                    "changed since; retract or correct it instead")
            for r in rows:
                retired_ids.append(batch.retire(r, "retracted", None, note=note))
        earlier = json.loads(entry["detail"]).get("retired", [])
        if earlier:
            for old in sql.facts_with_ids(conn, earlier):
                restored.append(batch._insert_piece(claim, whole_copy(old)))
        if entry["conflict_id"] is not None:
            batch.will_update("conflict", entry["conflict_id"])
            done = sql.set_conflict_if(conn, entry["conflict_id"], "open", dict(
                state="withdrawn", resolved_at=batch.tx, resolved_by=by, resolution="withdrawn",
                reason=note))
            if not done:
                raise InvalidInput(
                    f"cannot undo candidate {candidate_id}: conflict {entry['conflict_id']} it "
                    "opened was resolved since")
            withdrawn = entry["conflict_id"]
    batch.will_update("claim", candidate_id)
    sql.set_claim(conn, candidate_id, dict(
        state="pending", decided_by=None, decided_at=None, decision_reason=None, edits=None,
        fact_id=None, merged_into=None,
        gates=append_steps(claim["gates"], [undone(verdict, by)])))
    batch.record_operation(by, "claim.reopened", claim_id=candidate_id, conflict_id=withdrawn,
                           subject=claim["subject"], predicate=claim["predicate"],
                           reason=reason or note,
                           detail={"undone": verdict, "decision": entry["id"],
                                   "restored": restored})
    return DecisionUndone(candidate_id, verdict, tuple(retired_ids), tuple(restored), withdrawn)


RESOLUTION_UNDOES = ("state", "fact_id", "merged_into", "decided_by", "decided_at",
                     "decision_reason", "scope")
"""The claim columns a resolution sets and its undo puts back (the resolution's
audit entry keeps their values before it, ``detail.claim_before``)."""


def _resolution_entry(batch: WriteBatch, conflict_id: int) -> dict[str, Any]:
    entry = sql.resolution_entry(batch.conn, conflict_id)
    if entry is None:
        raise StoreError(f"conflict {conflict_id} is resolved but its resolution is not in the "
                         "audit log; run `memdesk verify`")
    return entry


def _claim_before(batch: WriteBatch, claim: dict[str, Any], conflict: dict[str, Any],
                  detail: dict[str, Any]) -> dict[str, Any]:
    """The claim columns as they were before the resolution: recorded in its
    audit entry, or (a resolution made before memdesk recorded them) rebuilt:
    in conflict, in the conflict's scope, decided as its approval said if a
    reviewer's approval opened the conflict."""
    kept = detail.get("claim_before")
    if isinstance(kept, dict) and set(kept) == set(RESOLUTION_UNDOES):
        return kept
    before: dict[str, Any] = dict(state="conflict", fact_id=None, merged_into=None,
                                  decided_by=None, decided_at=None, decision_reason=None,
                                  scope=conflict["scope"])
    approval = sql.approval_of(batch.conn, claim["id"], conflict["id"])
    if approval is not None:
        actor, at, why = approval
        before.update(decided_by=actor, decided_at=at, decision_reason=why)
    return before


def _same_slot(a: Fact, b: Fact) -> bool:
    if a.scope != b.scope:
        return False
    return bool(a.single_valued) or normalise_object(a.object) == normalise_object(b.object)


def _overlap(a: Fact, b: Fact) -> bool:
    return ((b.valid_to is None or a.valid_from < b.valid_to)
            and (a.valid_to is None or b.valid_from < a.valid_to))


def undo_resolution(batch: WriteBatch, conflict_id: int, *, by: str,
                    reason: str | None = None) -> ResolutionUndone:
    """Reopen a resolved conflict, undoing the resolution's effect.

    The facts the resolution asserted are retired (``retracted``, the note
    naming the undo), the facts it retired (an existing value superseded,
    corrected or retracted) come back as fresh copies over their old valid
    intervals, its claim is in state ``conflict`` again with the columns the
    resolution set put back, and the conflict is open. One audit entry,
    ``conflict.reopened``.

    Returns {"conflict", "undone" (the resolution), "retired" (fact ids),
    "restored" (new fact ids)}. Raises ConflictNotFound, AlreadyDecided (the
    conflict is not resolved), InvalidInput (no reviewer's name, or later
    writes changed the facts involved, so undoing would rewrite later decisions).
    """
    conn = batch.conn
    conflict = _undone_row(batch, by, "conflict", conflict_id,
                           ConflictNotFound(f"no conflict with id {conflict_id}"))
    if conflict["state"] != "resolved":
        raise AlreadyDecided(f"conflict {conflict_id} is {conflict['state']}: there is no "
                             "resolution to undo")
    entry = _resolution_entry(batch, conflict_id)
    detail = json.loads(entry["detail"])
    keep = conflict["resolution"]
    refused = f"cannot undo the resolution of conflict {conflict_id} ({keep})"
    note = f"undo of the resolution of conflict {conflict_id} ({keep}) by {by}"
    claim = row_by_id(conn, "claim", conflict["claim_id"])
    if claim is None:
        raise StoreError(f"conflict {conflict_id} names claim {conflict['claim_id']}, which is missing")
    if "retired_count" in detail:
        raise InvalidInput(f"{refused}: it retired too many facts to bring back")

    asserted: list[Fact] = []
    if entry["fact_from"] is not None:
        asserted = sql.facts_between(conn, entry["fact_from"], entry["fact_to"], by_id=True)
    earlier_ids = [int(i) for i in detail.get("retired", [])]
    earlier = sql.facts_with_ids(conn, earlier_ids, by_id=True) if earlier_ids else []
    left = [int(i) for i in json.loads(conflict["fact_ids"]) if int(i) not in set(earlier_ids)]
    named = sql.facts_with_ids(conn, left) if left else []
    for fact in asserted:
        if fact.retired_at is not None:
            raise InvalidInput(f"{refused}: fact {fact.id} ({fact.object}) it asserted was "
                               f"{fact.retire_reason} since; retract or correct it instead")
    for fact in named:
        if fact.retired_at is not None and fact.retired_at > entry["at"]:
            raise InvalidInput(f"{refused}: fact {fact.id} ({fact.object}) of the conflict was "
                               f"{fact.retire_reason} since; undoing would rewrite that decision")

    batch.belief_rows(conflict["subject"], conflict["predicate"])  # loaded before retiring
    retired_ids = [batch.retire(fact, "retracted", None, note=note) for fact in asserted]
    # what holds now in the slot, the predicate's opposite included (likes / dislikes)
    current = batch.belief_rows(conflict["subject"], conflict["predicate"])
    for old in earlier:
        clash = next((r for r in current if _same_slot(r, old) and _overlap(r, old)), None)
        if clash is not None:
            raise InvalidInput(f"{refused}: fact {clash.id} ({clash.object}) written since holds "
                               f"over the time fact {old.id} ({old.object}) would come back to; "
                               "retract it first")
    restored = [batch._insert_piece(claim, whole_copy(old))
                for old in earlier]
    # the reopened conflict names the rows that hold again: the copies, where the
    # resolution had retired its facts
    copies = {old.id: new for old, new in zip(earlier, restored, strict=True)}
    fact_ids = [copies.get(int(i), int(i)) for i in json.loads(conflict["fact_ids"])]

    before = _claim_before(batch, claim, conflict, detail)
    batch.will_update("claim", claim["id"])
    sql.set_claim(conn, claim["id"], dict(
        **before, gates=append_steps(claim["gates"], [reopened(conflict_id, keep, by)])))
    batch.will_update("conflict", conflict_id)
    done = sql.set_conflict_if(conn, conflict_id, "resolved", dict(
        state="open", resolved_at=None, resolved_by=None, resolution=None, reason=None,
        fact_ids=json.dumps(fact_ids)))
    if not done:
        raise AlreadyDecided(f"conflict {conflict_id} changed while it was being reopened")
    batch.record_operation(by, "conflict.reopened", claim_id=claim["id"], conflict_id=conflict_id,
                           subject=conflict["subject"], predicate=conflict["predicate"],
                           reason=reason or note,
                           detail={"undone": keep, "resolution": entry["id"],
                                   "restored": restored})
    return ResolutionUndone(conflict_id, keep, tuple(retired_ids), tuple(restored))
