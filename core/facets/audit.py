"""``store.audit``: why the store believes what it does (the provenance
chain of one value), the audit log's integrity (``verify``), and the audit
entries of refused requests."""

from __future__ import annotations

import dataclasses

from .. import tokens as access_tokens
from ..access import Caller
from ..audit_trail import decision_steps, with_upkeep
from ..bitemporal import normalise_object
from ..chain import VerifyProblem, VerifyReport
from ..chain import verify as verify_chain
from ..checks import (
    check_predicate,
    check_required_text,
    check_subject,
)
from ..db.errors import OperationalError
from ..db.reads import candidate_stmt
from ..errors import (
    FactNotFound,
    StoreError,
)
from ..records import (
    AuditReport,
)
from .base import StoreCore
from .facts import Facts


class Audit:
    """Provenance and the audit log (``store.audit``)."""

    def __init__(self, core: StoreCore, facts: Facts) -> None:
        self._core = core
        self._facts = facts

    def of(self, subject: str, predicate: str, object: str | None = None) -> AuditReport:
        """When did the store decide that (subject, predicate) is ``object``, and why?

        Without ``object``, the value believed now. Raises FactNotFound when no
        row ever held that value, InvalidInput for a malformed subject,
        predicate or object.
        """
        subject = check_subject(subject)
        predicate = check_predicate(predicate)
        if object is not None:
            object = check_required_text(object, "object")
        rows = self._facts.history(subject, predicate)
        if object is None:
            now_rows = self._facts.as_of(subject, predicate)
            if not now_rows:
                raise FactNotFound(f"{subject} has no current {predicate}; name an --object")
            object = now_rows[-1].object
        wanted = normalise_object(object)
        matching = [r for r in rows if normalise_object(r.object) == wanted]
        if not matching:
            known = sorted({r.object for r in rows})
            hint = f" (known values: {', '.join(known)})" if known else ""
            raise FactNotFound(f"{subject} {predicate} was never {object!r}{hint}")
        first = min(matching, key=lambda r: (r.told_from, r.recorded_at, r.id))
        lineage = sorted({r.claim_id for r in matching})
        steps = decision_steps(self._core.engine, candidate_stmt(), lineage, matching, first.tz)
        steps = with_upkeep(self._core.engine, steps, lineage, matching, first.tz)
        fact = self._facts.as_json([first])[0]
        return AuditReport(subject=subject, predicate=predicate, object=first.object,
                           decided_at=first.told_from, fact=fact, chain=tuple(steps),
                           tz=first.tz, recorded_at=first.recorded_at)

    def verify(self) -> VerifyReport:
        """Recompute the audit log's hash chain and the digest of every row each
        entry covers (core.chain). The report names the first broken entry;
        it never raises for a tampered store (StoreError if unreadable)."""
        try:
            with self._core.engine.connect() as conn:
                report = verify_chain(conn)
                found = access_tokens.problems(conn)
        except OperationalError as exc:
            raise StoreError(f"cannot read the store at {self._core.safe_url}: {exc.orig}") from None
        if not found:
            return report
        return dataclasses.replace(report, ok=False, problems=(
            *report.problems, *(VerifyProblem(None, message) for message in found)))

    def record_refusal(self, caller: Caller, *, tool: str, reason: str,
                       subject: str | None = None) -> None:
        """Audit a request the door refused (action ``access.refused``): who
        (``caller``), which tool, what it asked for and why it was refused.
        Nothing else is written. Raises StoreError when the store cannot be
        written."""
        reason = check_required_text(reason, "reason")
        with self._core.write() as batch:
            batch.record_operation(caller.actor, "access.refused", subject=subject,
                                   reason=reason, detail={"tool": tool, "caller": caller.to_dict()})
