"""``store.review``: the review queue. Candidates the gates held back wait
here, lowest confidence first; a reviewer approves (optionally edited),
rejects, or undoes a decision. Each decision is one audited transaction."""

from __future__ import annotations

import json
from typing import Any

from .. import gates
from ..checks import (
    check_count,
    check_id,
    check_name,
    check_required_text,
    check_subject,
    check_text,
)
from ..claims import (
    claim_line,
    edited_claim,
)
from ..db import review as sql
from ..errors import (
    AlreadyDecided,
    CandidateNotFound,
    InvalidInput,
)
from ..records import (
    UNPARSED_PREDICATE,
    Approval,
    Candidate,
    DecisionUndone,
)
from ..undo import undo_decision
from ..writer import WriteBatch
from .base import StoreCore


class Review:
    """The review queue (``store.review``)."""

    def __init__(self, core: StoreCore) -> None:
        self._core = core

    def list(self, state: str = "pending", *, limit: int | None = None,
                    offset: int = 0, after: tuple[float, int] | None = None,
                    subject: str | None = None) -> list[Candidate]:
        """Candidates in a state (pending by default), lowest confidence first;
        with ``subject``, that subject's only.

        ``after`` = (confidence, id) of the last candidate already shown pages
        by key, which stays correct while candidates leave the queue.
        Raises InvalidInput for a negative limit or offset, a malformed subject."""
        offset = check_count(offset, "offset")
        if limit is not None:
            limit = check_count(limit, "limit")
        if subject is not None:
            subject = check_subject(subject)
        return sql.candidates(self._core.engine, state, subject=subject, after=after,
                              limit=limit, offset=offset)

    def count(self, state: str = "pending", *, subject: str | None = None) -> int:
        """How many candidates are in ``state`` (``subject``'s only, if given).
        Raises InvalidInput for a malformed subject."""
        if subject is not None:
            subject = check_subject(subject)
        return sql.count_candidates(self._core.engine, state, subject)

    def get(self, candidate_id: int) -> Candidate:
        """One claim by id. Raises CandidateNotFound, InvalidInput for a malformed id."""
        candidate_id = check_id(candidate_id, "candidate id")
        found = sql.candidate(self._core.engine, candidate_id)
        if found is None:
            raise CandidateNotFound(f"no review candidate with id {candidate_id}")
        return found

    def _take_pending(self, batch: WriteBatch, candidate_id: int, new_state: str, by: str,
                      reason: str | None, edits: dict | None = None) -> dict:
        """Atomically move a pending claim to ``new_state``; the loser of a race gets AlreadyDecided."""
        values: dict[str, Any] = dict(state=new_state, decided_by=by, decided_at=batch.tx,
                                      decision_reason=reason)
        if edits:
            values["edits"] = json.dumps(edits, ensure_ascii=False, sort_keys=True)
        batch.will_update("claim", candidate_id)
        taken, row = sql.take_pending(batch.conn, candidate_id, values)
        if row is None:
            raise CandidateNotFound(f"no review candidate with id {candidate_id}")
        if not taken:
            who = f" by {row['decided_by']}" if row["decided_by"] else ""
            raise AlreadyDecided(f"candidate {candidate_id} is not pending: it is {row['state']}{who}")
        return row

    def approve(self, candidate_id: int, *, by: str, edits: dict[str, Any] | None = None,
                note: str | None = None) -> Approval:
        """Approve a pending candidate (optionally edited first): it passes the
        dedup and conflict gates and takes effect, recorded as decided by ``by``.

        Returns {"candidate", "outcome", "fact_id", "conflict_id"}. Raises
        CandidateNotFound, AlreadyDecided (someone decided first), InvalidInput
        for bad edits (the edited claim is checked as a whole, as an import
        line is), a malformed id, note or reviewer name; nothing is written then.
        """
        candidate_id = check_id(candidate_id, "candidate id")
        by = check_name(by, "by (the reviewer's name)")
        note = check_text(note, "note")
        clean = self._check_edits(candidate_id, edits) if edits else None
        with self._core.write() as batch:
            claim = self._take_pending(batch, candidate_id, "approved", by, note, edits)
            if clean:
                claim.update(clean)
            if claim["predicate"] != UNPARSED_PREDICATE and _unparsed_marker(claim["value"]):
                claim["value"] = None  # a statement queued in its own words as the fact it states: no marker kept
            claim["state"] = "approved"
            statement = batch.statement_of(claim)
            rows = batch.belief_rows(claim["subject"], claim["predicate"])
            decision = gates.approve(statement, rows, by=by, edited=bool(edits),
                                     said=batch.evidence_for(statement, rows))
            conflict_id = batch.apply(claim, decision)
            sql.record_approval(batch.conn, candidate_id, state=claim["state"],
                                fact_id=claim["fact_id"], merged_into=claim.get("merged_into"),
                                gates=claim["gates"])
            assert decision.plan is not None
            batch.record_operation(by, "claim.approved", claim_id=candidate_id,
                                   conflict_id=conflict_id, subject=claim["subject"],
                                   predicate=claim["predicate"], reason=note,
                                   detail={"edits": edits or {}, "outcome": decision.plan.kind})
        state = claim["state"]
        return Approval(candidate_id, decision.plan.kind if state == "approved" else state,
                        claim["fact_id"], conflict_id)

    def _check_edits(self, candidate_id: int, edits: Any) -> dict[str, Any]:
        """The claim columns a reviewer's ``edits`` set on pending candidate
        ``candidate_id``: the candidate with the edits applied is validated as
        a whole by ``claims.edited_claim``, as an import line is (an interval
        that ends before it starts, a bad scope, polarity, time or value is
        refused), before anything is written. An unparsed statement of the
        signal layer edited into a fact loses its marker value.

        Raises CandidateNotFound, InvalidInput naming the edit at fault."""
        row = sql.claim_with_turn(self._core.engine, candidate_id)
        if row is None:
            raise CandidateNotFound(f"no review candidate with id {candidate_id}")
        turn = {"session": row["session"], "turn": row["turn_no"], "speaker": row["speaker"],
                "text": row["text"], "time": row["time"], "time_tz": row["time_tz"]}
        line = claim_line(dict(row), turn)
        if isinstance(line.get("value"), dict) and "unparsed" in line["value"] and (
                "object" in edits or "predicate" in edits):
            edits = {"value": None, **edits}  # edited into a fact: no longer an unparsed note
        try:
            claim = edited_claim(line, edits)
        except InvalidInput as exc:
            raise InvalidInput(f"candidate {candidate_id}: {exc}") from None
        columns = {"predicate": claim.predicate, "object": claim.object, "value": claim.value_json,
                   "polarity": claim.polarity,
                   "scope": claim.scope, "valid_from": claim.valid_from,
                   "valid_to": claim.valid_to, "change": claim.change}
        out = {key: columns[key] for key in edits}
        if "valid_from" in edits:  # the reviewer's start is exact
            out["start_latest"] = None
        return out

    def reject(self, candidate_id: int, *, by: str, reason: str) -> Candidate:
        """Reject a pending candidate; it is kept with the reason.

        Raises CandidateNotFound, AlreadyDecided, InvalidInput without a reason
        or the reviewer's name, or for a malformed id.
        """
        candidate_id = check_id(candidate_id, "candidate id")
        by = check_name(by, "by (the reviewer's name)")
        reason = check_required_text(reason, "reason (why the candidate is rejected)")
        with self._core.write() as batch:
            claim = self._take_pending(batch, candidate_id, "rejected", by, reason)
            batch.record_operation(by, "claim.rejected", claim_id=candidate_id,
                                   subject=claim["subject"], predicate=claim["predicate"],
                                   reason=reason)
        return self.get(candidate_id)

    def undo(self, candidate_id: int, *, by: str, reason: str | None = None) -> DecisionUndone:
        """Undo a review decision: the candidate goes back to the queue and the
        decision's effect is reversed by new rows (see ``core.undo``).

        Raises CandidateNotFound, AlreadyDecided, InvalidInput (a malformed id
        or reason, no name, or later writes changed the facts involved).
        """
        candidate_id = check_id(candidate_id, "candidate id")
        by = check_name(by, "by (the reviewer's name)")
        reason = check_text(reason, "reason")
        with self._core.write() as batch:
            return undo_decision(batch, candidate_id, by=by, reason=reason)


def _unparsed_marker(value: Any) -> bool:
    """Whether a stored claim value is only the signal layer's marker of an unparsed statement."""
    try:
        parsed = json.loads(value) if isinstance(value, str) else value
    except json.JSONDecodeError:
        return False
    return isinstance(parsed, dict) and set(parsed) == {"unparsed"}
