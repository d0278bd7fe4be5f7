"""Conversation ingest's reads (``core.ingest``): the names users gave the
people they spoke of, where they live, the money they count in, and the stored turns a turn's context is
read from.
One query each call; the caller chunks its sessions and users."""

from __future__ import annotations

import json
from collections.abc import Sequence

from sqlalchemy import ColumnElement, Connection, and_, func, or_, select

from .tables import FACT, TURN

# when the store was told a fact (NULL known_from: when it was recorded), as the ingest learns it from a
# claim. A turn of an ingest sees what was told before its own time, so a file read again reads as it did:
# a home said later with a stated start before the turn (moved there on the 6th, told on the 23rd) is not
# where the turn was typed from. Only the rows claims wrote are read, not the pieces of them a later
# change copied (those are told at the change's time)
_TOLD = func.coalesce(FACT.c.known_from, FACT.c.recorded_at)


def names_given(conn: Connection, users: Sequence[str], never_true: Sequence[str]
                ) -> list[tuple[str, str, int]]:
    """The ``name`` facts of subjects ``person:<user>/…`` of ``users`` (retired or
    not, unless retired for a reason in ``never_true``): (subject, name, told at)."""
    rows = conn.execute(
        select(FACT.c.subject, FACT.c.object, _TOLD)
        .where(or_(*[_subject_under(f"person:{user}/", conn.dialect.name) for user in users]),
               FACT.c.predicate == "name",
               FACT.c.copy_of.is_(None),  # a piece of a row told again: the row itself is read
               or_(FACT.c.retire_reason.is_(None), FACT.c.retire_reason.not_in(never_true))))
    return [(subject, name, told) for subject, name, told in rows]


def _subject_under(prefix: str, dialect: str) -> ColumnElement[bool]:
    """Subjects that begin with ``prefix``. SQLite cannot read an index for a LIKE with an escape (and
    its LIKE ignores the case of ASCII letters), so it read every fact (0.17 s of a 1,470-turn ingest
    into a store of 100,000 facts): there the subjects are also bounded from both sides (its text order is
    the code points'), and the subject index is read. A server's collation need not order text by code
    point, so elsewhere LIKE alone (case-sensitive there) decides."""
    like = FACT.c.subject.startswith(prefix, autoescape=True)
    if dialect != "sqlite":
        return like
    return and_(FACT.c.subject >= prefix, FACT.c.subject < prefix[:-1] + chr(ord(prefix[-1]) + 1), like)


def homes_said(conn: Connection, users: Sequence[str], never_true: Sequence[str]) -> list[tuple[str, str, int]]:
    """The ``lives_in`` facts of subjects ``user:<user>`` of ``users`` (retired or not,
    unless retired for a reason in ``never_true``): (user, place, told at)."""
    rows = conn.execute(
        select(FACT.c.subject, FACT.c.object, _TOLD)
        .where(FACT.c.subject.in_([f"user:{user}" for user in users]), FACT.c.predicate == "lives_in",
               FACT.c.polarity == "positive",
               FACT.c.copy_of.is_(None),  # a piece of a row told again: the row itself is read
               or_(FACT.c.retire_reason.is_(None), FACT.c.retire_reason.not_in(never_true))))
    return [(subject.removeprefix("user:"), place, told) for subject, place, told in rows]


def currencies_said(conn: Connection, users: Sequence[str], never_true: Sequence[str]) -> list[tuple[str, str, int]]:
    """The currencies of the ``budget_limit`` facts of subjects ``user:<user>`` of ``users`` that name one
    (retired or not, unless retired for a reason in ``never_true``): (user, currency, told at)."""
    rows = conn.execute(
        select(FACT.c.subject, FACT.c.value, _TOLD)
        .where(FACT.c.subject.in_([f"user:{user}" for user in users]), FACT.c.predicate == "budget_limit",
               FACT.c.value.is_not(None),
               FACT.c.copy_of.is_(None),  # a piece of a row told again: the row itself is read
               or_(FACT.c.retire_reason.is_(None), FACT.c.retire_reason.not_in(never_true))))
    out = []
    for subject, value, told in rows:
        currency = json.loads(value).get("currency") if value else None
        if isinstance(currency, str) and currency:
            out.append((subject.removeprefix("user:"), currency, told))
    return out


def turns_up_to(conn: Connection, sessions: Sequence[str], last: int
                ) -> list[tuple[str, int, str, int, int, str, str | None, str | None]]:
    """The stored turns of ``sessions`` numbered ``last`` or below, by session and
    number: (session, turn, speaker, time, time_tz, text, user, project)."""
    rows = conn.execute(
        select(TURN.c.session, TURN.c.turn, TURN.c.speaker, TURN.c.time, TURN.c.time_tz, TURN.c.text,
               TURN.c.user, TURN.c.project)
        .where(TURN.c.session.in_(sessions), TURN.c.turn <= last)
        .order_by(TURN.c.session, TURN.c.turn))
    return [tuple(r) for r in rows]
