"""A role told after the employer changed is the new job's (docs/DESIGN.md §3.3).

A role is single-valued, so another role told without a word of change meets
the one held as a contradiction, and the gates open a conflict. But a role is
a role *at* an employer: once the store has been told that the subject's
employer changed (a works_at row that replaced another), a role told after
that, other than the one held from before the change, is the new job's role
("got the offer at Harbourline, starting the 16th" ... "what's the position?"
"ops analyst"). The rule reads the rows the subject held when the turn was
told:

- the subject's current employer row replaced an earlier one (an employer row
  ends where it begins), and
- it was told after the role row the claim meets (the role was told for the
  old job);

then the role claim, told without a change, is an evolution: it supersedes
the old role from the time it holds. A role told before any change of
employer, or one the employer's change came before, keeps its contradiction.
Pure rule over the claims and the rows given; no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .bitemporal import normalise_object
from .claims import ClaimInput
from .records import Fact

ROLE = "role"
EMPLOYER = "works_at"


def role_of_new_job(claims: Sequence[ClaimInput],
                    held: Callable[[str, str], Sequence[Fact]]) -> list[ClaimInput]:
    """``claims`` with each positive role claim told without a change made an
    evolution when the subject's employer changed after the role it holds was
    told (the module doc). ``held(subject, predicate)``: the subject's
    current-belief rows of a predicate; only those told before the claim count,
    so a file read again reads the same."""
    out = list(claims)
    for i, claim in enumerate(claims):
        if claim.predicate != ROLE or claim.polarity != "positive" or claim.change is not None:
            continue
        told = claim.source.time
        roles = [r for r in held(claim.subject, ROLE)
                 if r.told_from < told and r.polarity == "positive" and r.valid_to is None]
        value = normalise_object(claim.object)
        if not roles or any(normalise_object(r.object) == value for r in roles):
            continue
        employers = [r for r in held(claim.subject, EMPLOYER) if r.told_from < told and r.polarity == "positive"]
        ended = {r.valid_to for r in employers if r.valid_to is not None}
        changed = [r.told_from for r in employers if r.valid_to is None and r.valid_from in ended]
        if changed and all(max(changed) > r.told_from for r in roles):
            out[i] = claim.with_changes(change="evolution")
    return out
