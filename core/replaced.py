"""What a new decision replaces: the decisions it ends (docs/DESIGN.md §3.3).

Decisions are many-valued (one may decide the venue and the menu), so a new
one meets only rows of its own value at the gates, and a decision replaced by
another would stay current unless the turn says "X instead of Y". Two rules
read what the store holds to find what a turn's decision replaces:

- **named**: a decision told as a change (``change`` evolution or correction)
  in a turn that names a decision the subject holds (by its value, as a word
  of its own: "ugh, the quartz guy wants 7 weeks. forget it, back to butcher
  block"; or by its option, ``lang.values.option``: 报网课 named as 网课) ends
  that decision;
- **return**: a decision for a value the subject held, which another took the
  place of (its row closed where a negative row of it begins), ends the
  decisions that began at that instant: what replaced it.

The decisions ended become negative claims of their value at the new
decision's source, from the time the turn was told, so the gates retire them
as "X instead of Y" does. Pure rules over the claims and the rows given; no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from .bitemporal import normalise_object
from .claims import ClaimInput
from .lang.values import option
from .records import Fact

PREDICATE = "decision"
CHANGES = frozenset({"evolution", "correction"})  # a decision told as a change
MIN_NAMED = 2  # characters of a value named in a turn: shorter ones are no evidence


def replaced(text: str, claims: Sequence[ClaimInput],
             held: Callable[[str], Sequence[Fact]]) -> list[ClaimInput]:
    """``claims`` (a turn's, said in ``text``) with the decisions their positive
    decision claims replace (the module doc) ended by negative claims after
    them; a return to a value replaced is itself a change (an evolution: it
    meets the negative row of its value as "Y instead of X" left it).
    ``held(subject)``: the current-belief decision rows of a subject (every
    piece of its history that is still believed); only those told before the
    turn count, so a file read again reads the same. Each decision is ended
    once, and never one the turn's claims name themselves."""
    out = list(claims)
    said = {(c.subject, normalise_object(c.object)) for c in claims if c.predicate == PREDICATE}
    for i, claim in enumerate(claims):
        if claim.predicate != PREDICATE or claim.polarity != "positive":
            continue
        # what was told before the turn: a turn read again later (a rerun) meets the rows it wrote itself
        # and those of later turns, which it cannot have meant
        rows = [r for r in held(claim.subject) if r.told_from < claim.source.time]
        value = normalise_object(claim.object)
        ended = _named(text, value, rows) if claim.change in CHANGES else []
        when = _replaced_at(value, rows)
        if when and claim.change is None:  # (whether or not what replaced it still holds: a rerun reads it so too)
            out[i] = claim.with_changes(change="evolution")
        back = [r for r in _holding(rows) if r.valid_from in when and normalise_object(r.object) != value]
        for row in [*ended, *(r for r in back if r not in ended)]:
            key = (claim.subject, normalise_object(row.object))
            if key in said:
                continue
            said.add(key)
            # it ends when the turn says so (the new decision may be said for a time of its own: "九月每个周末")
            out.append(claim.with_changes(object=row.object, value=None, polarity="negative", change="evolution",
                                          event_start=None, event_end=None, valid_from=claim.source.time,
                                          valid_to=None, start_stated=False, start_latest=None))
    return out


def _holding(rows: Sequence[Fact]) -> list[Fact]:
    """The positive decisions held now (a row open to the future)."""
    return [r for r in rows if r.polarity == "positive" and r.valid_to is None]


def _named(text: str, value: str, rows: Sequence[Fact]) -> list[Fact]:
    """The decisions held that the turn names besides the new one's value (neither within the other)."""
    rest = _without(normalise_object(text), value)
    out = []
    for row in _holding(rows):
        old = normalise_object(row.object)
        taken = option(old)  # a Chinese decision held with its verb, named by its option (报网课: 网课)
        if len(old) < MIN_NAMED or old in value or value in old or taken in value:
            continue
        if _says(rest, old) or taken != old and _says(rest, taken):
            out.append(row)
    return out


def _replaced_at(value: str, rows: Sequence[Fact]) -> set[int]:
    """The instants ``value`` was replaced at: where a positive row of it closed and a negative row of it
    begins (what began then replaced it)."""
    ends = {r.valid_to for r in rows if r.polarity == "positive" and r.valid_to is not None
            and normalise_object(r.object) == value}
    return {r.valid_from for r in rows if r.polarity == "negative" and normalise_object(r.object) == value} & ends


def _without(text: str, value: str) -> str:
    """``text`` with the new value's own words blanked (a value named there is the new one)."""
    return text.replace(value, " ") if value else text


def _says(text: str, value: str) -> bool:
    """Whether ``text`` names ``value`` as words of its own (a Latin word not inside a longer one)."""
    pattern = re.escape(value)
    if value[:1].isascii() and value[:1].isalnum():
        pattern = r"(?<![\w])" + pattern
    if value[-1:].isascii() and value[-1:].isalnum():
        pattern += r"(?![\w])"
    return re.search(pattern, text) is not None
