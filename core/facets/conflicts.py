"""``store.conflicts``: contradictions the conflict gate opened, with the
facts involved and the incoming claim; a reviewer previews and takes a
resolution (``keep``: a ``Resolution``), or undoes one."""

from __future__ import annotations

import builtins
import json
from typing import Any, cast

from .. import gates
from ..checks import (
    check_count,
    check_id,
    check_name,
    check_scope,
    check_text,
)
from ..db import conflicts as sql
from ..db.reads import candidates_with_ids, claim_row, facts_with_ids
from ..db.writes import load_said
from ..errors import (
    AlreadyDecided,
    ConflictNotFound,
    InvalidInput,
    StoreError,
)
from ..gates import Outcome, Resolution, Statement
from ..records import (
    Candidate,
    Conflict,
    Fact,
    ResolutionChoice,
    ResolutionUndone,
)
from ..timeutil import iso
from ..undo import RESOLUTION_UNDOES, undo_resolution
from .base import StoreCore
from .facts import Facts

RESOLUTIONS = tuple(str(r) for r in Resolution)  # the choices of ``resolve``, in order


class Conflicts:
    """Open and resolved conflicts (``store.conflicts``)."""

    def __init__(self, core: StoreCore, facts: Facts) -> None:
        self._core = core
        self._facts = facts

    def list(self, state: str = "open", *, limit: int | None = None,
                  offset: int = 0) -> list[Conflict]:
        """Conflicts in a state ("open", "resolved" or "all"), oldest first, with
        the facts involved and the incoming claim; ``limit``/``offset`` page them.
        Raises InvalidInput for a negative limit or offset."""
        offset = check_count(offset, "offset")
        if limit is not None:
            limit = check_count(limit, "limit")
        rows = sql.conflict_rows(self._core.engine, state, limit=limit, offset=offset)
        return self._conflict_records(rows)

    def count(self, state: str = "open") -> int:
        """How many conflicts are in ``state``."""
        return sql.count_conflicts(self._core.engine, state)

    def get(self, conflict_id: int) -> Conflict:
        """One conflict by id. Raises ConflictNotFound, InvalidInput for a malformed id."""
        conflict_id = check_id(conflict_id, "conflict id")
        row = sql.conflict_row(self._core.engine, conflict_id)
        if row is None:
            raise ConflictNotFound(f"no conflict with id {conflict_id}")
        return self._conflict_records([row])[0]

    def _conflict_records(self, rows: builtins.list[Any]) -> builtins.list[Conflict]:
        fact_ids = sorted({i for r in rows for i in json.loads(r["fact_ids"])})
        facts: dict[int, Fact] = {f.id: f for f in facts_with_ids(self._core.engine, fact_ids)}
        now = self._core.now()
        fact_dict = {d["id"]: d for d in self._facts.as_json(list(facts.values()), now)}
        candidates: dict[int, Candidate] = {
            cand.id: cand for cand in candidates_with_ids(
                self._core.engine, sorted({r["claim_id"] for r in rows}))}
        out = []
        for r in rows:
            ids = tuple(json.loads(r["fact_ids"]))
            cand = candidates[r["claim_id"]]
            incoming = cand.to_dict()
            incoming.update(id=None, candidate_id=cand.id, status="pending",
                            recorded_at=None, retired_at=None)
            out.append(Conflict(
                id=r["id"], kind=r["kind"], state=r["state"], subject=r["subject"],
                predicate=r["predicate"], scope=r["scope"], fact_ids=ids,
                claim_id=r["claim_id"], opened_at=r["opened_at"], resolved_at=r["resolved_at"],
                resolved_by=r["resolved_by"], resolution=r["resolution"], reason=r["reason"],
                facts=tuple([fact_dict[i] for i in ids if i in fact_dict] + [incoming]),
            ))
        return out

    def resolve(self, conflict_id: int, keep: str, *, by: str,
                         reason: str | None = None, scope: str | None = None) -> Conflict:
        """Resolve an open conflict. What each choice does to the timeline
        (``resolution_preview`` shows it for one conflict before it is taken):

        keep="existing": the incoming claim is rejected; current belief stays.
        keep="changed":  the value changed: the incoming claim is an evolution
                         from its own valid time; the existing row is closed
                         there (retired as superseded, its earlier part kept as
                         history) and the incoming value holds from then on.
        keep="incoming": the existing value was wrong: it is retired as
                         corrected and the incoming value takes its whole
                         valid interval.
        keep="both": both hold, in different scopes: the incoming claim is
                     asserted in ``scope`` (required, and different from the existing one).
        keep="neither": the existing facts are retracted and the claim rejected.

        Every resolution can be undone (``undo_resolution``).
        Raises ConflictNotFound, AlreadyDecided, InvalidInput (checked before
        anything is written) for a malformed id, ``keep``, reason or reviewer
        name, a ``scope`` that is malformed, missing for "both" or given for
        another choice.
        """
        scope = self._check_resolution(conflict_id, keep, scope)
        by = check_name(by, "by (the reviewer's name)")
        reason = check_text(reason, "reason")
        with self._core.write() as batch:
            conn = batch.conn
            batch.will_update("conflict", conflict_id)
            closed, row = sql.close_conflict(conn, conflict_id, tx=batch.tx, by=by, keep=keep,
                                             reason=reason)
            if row is None:
                raise ConflictNotFound(f"no conflict with id {conflict_id}")
            if not closed:
                raise AlreadyDecided(f"conflict {conflict_id} is not open: it is {row['state']}"
                                     + (f" ({row['resolution']}) by {row['resolved_by']}"
                                        if row["state"] == "resolved" else ""))
            claim = claim_row(conn, row["claim_id"])
            if claim is None:
                raise StoreError(f"conflict {conflict_id} names claim {row['claim_id']}, which is missing")
            before = {k: claim[k] for k in RESOLUTION_UNDOES}
            batch.will_update("claim", claim["id"])
            fact_ids = json.loads(row["fact_ids"])
            rows_now = batch.belief_rows(row["subject"], row["predicate"])
            said = batch.said_for(rows_now)  # a resolution may make it an evolution
            decision, statement = gates.resolve(
                Resolution(keep), batch.statement_of(claim), rows_now, conflict_id=conflict_id,
                conflict_scope=row["scope"], by=by, scope=scope, fact_ids=fact_ids, said=said)
            state, fact_id = "rejected", None
            if decision.outcome == Outcome.REJECTED:
                if decision.plan is not None:  # neither: retract the conflict's facts
                    for fact in decision.plan.retire:
                        batch.retire(cast(Fact, fact), gates.RETIRED_AS[decision.plan.kind],
                                     claim["id"], note=reason or f"conflict {conflict_id}: neither kept")
                claim["gates"] = gates.append_steps(claim["gates"], decision.steps)
            else:
                if decision.outcome == Outcome.CONFLICT:
                    raise StoreError("resolving the conflict opened another one")
                claim.update(state="approved", scope=statement.scope, change=statement.change)
                batch.apply(claim, decision)
                state, fact_id = claim["state"], claim["fact_id"]
            sql.record_resolution(conn, claim["id"], state=state, fact_id=fact_id,
                                  merged_into=claim.get("merged_into"), by=by, tx=batch.tx,
                                  reason=reason or f"conflict {conflict_id}: kept {keep}",
                                  scope=claim["scope"] if keep == "both" else None,
                                  gates=claim["gates"])
            batch.record_operation(by, "conflict.resolved", claim_id=claim["id"],
                                   conflict_id=conflict_id, subject=row["subject"],
                                   predicate=row["predicate"], reason=reason,
                                   detail={"keep": keep, "scope": scope, "fact_ids": fact_ids,
                                           "plan": decision.plan.kind if decision.plan else None,
                                           "claim_before": before})
        return self.get(conflict_id)

    @staticmethod
    def _check_resolution(conflict_id: Any, keep: Any, scope: Any) -> str | None:
        """Check a resolution's id, choice and scope; the scope, stripped.
        Raises InvalidInput."""
        check_id(conflict_id, "conflict id")
        if not isinstance(keep, str) or keep not in RESOLUTIONS:
            raise InvalidInput(f"keep must be one of {', '.join(RESOLUTIONS)}, got {keep!r}")
        if keep == "both":
            if scope is None:
                raise InvalidInput("keep=both needs a scope (global, project or session, "
                                   "optionally ':NAME') other than the conflict's, for the "
                                   "incoming value to hold in")
            return check_scope(scope)
        if scope is not None:
            raise InvalidInput(f"a scope ({scope!r}) only goes with keep=both; keep={keep} "
                               "takes none")
        return None

    def preview(self, conflict_id: int) -> builtins.list[ResolutionChoice]:
        """What each resolution of an open conflict would do to its timeline,
        as things stand now: a dry run of the gates (``core.gates.outlooks``),
        one dict per choice in the order of RESOLUTIONS: ``keep``, ``outcome``,
        ``plan`` (the bitemporal plan's kind), ``error`` (why it cannot be
        taken now, or null), ``timeline`` (the slot's current belief
        afterwards: ``object, polarity, scope, valid_from, valid_to, origin``
        kept/history/incoming, ``fact_id``), ``retired`` (``fact_id, object,
        valid_from, valid_to, reason``) and ``text`` (all of it on one line).
        Times are in the incoming claim's offset. Nothing is written.

        Raises ConflictNotFound, AlreadyDecided when the conflict is not open,
        InvalidInput for a malformed id.
        """
        conflict_id = check_id(conflict_id, "conflict id")
        row, claim, told = sql.preview_rows(self._core.engine, conflict_id)
        if row is None:
            raise ConflictNotFound(f"no conflict with id {conflict_id}")
        if row["state"] != "open":
            raise AlreadyDecided(f"conflict {conflict_id} is {row['state']}: there is nothing to choose")
        if claim is None:
            raise StoreError(f"conflict {conflict_id} names claim {row['claim_id']}, which is missing")
        tz = int(claim["tz"] or 0)
        known = self._core.catalog.get(row["predicate"])
        opposite = known.opposite if known is not None else None
        rows = self._facts.current(row["subject"], row["predicate"])
        if opposite is not None:
            rows += self._facts.current(row["subject"], opposite)

        def when(t: int | None) -> str | None:
            return iso(t, tz)

        def short(t: int | None) -> str | None:
            return None if t is None else (iso(t, tz) or "")[:16].replace("T", " ")

        statement = Statement.of(dict(claim), told, opposite,  # as the writer's statement_of
                                 known.values if known is not None else None)
        with self._core.engine.connect() as conn:
            said = load_said(conn, {r.claim_id for r in rows})
        found = gates.outlooks(statement, rows, conflict_scope=row["scope"],
                               fact_ids=json.loads(row["fact_ids"]), predicate=row["predicate"],
                               said=said)
        return [ResolutionChoice.from_dict(o.to_dict(when, short)) for o in found]

    def undo(self, conflict_id: int, *, by: str, reason: str | None = None) -> ResolutionUndone:
        """Undo the resolution of a conflict: it is open again, its claim back
        in state ``conflict``, and the timeline as it was before the resolution,
        by new rows only (see ``core.undo.undo_resolution``).

        Returns {"conflict", "undone", "retired", "restored"}. Raises
        ConflictNotFound, AlreadyDecided (not resolved), InvalidInput (a
        malformed id or reason, no name, or later writes changed the facts involved).
        """
        conflict_id = check_id(conflict_id, "conflict id")
        by = check_name(by, "by (the reviewer's name)")
        reason = check_text(reason, "reason")
        with self._core.write() as batch:
            return undo_resolution(batch, conflict_id, by=by, reason=reason)
