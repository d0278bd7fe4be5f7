"""Conversation ingest's reads (``core.ingest``): the names users gave the
people they spoke of, where they live, the money they count in, and the stored turns a turn's context is
read from.
One query each call; the caller chunks its sessions and users."""

from __future__ import annotations

import json
from collections.abc import Sequence

from sqlalchemy import ColumnElement, Connection, and_, or_, select

from .tables import FACT, TURN


def names_given(conn: Connection, users: Sequence[str], never_true: Sequence[str]
                ) -> list[tuple[str, str, int]]:
    """The ``name`` facts of subjects ``person:<user>/…`` of ``users`` (retired or
    not, unless retired for a reason in ``never_true``): (subject, name, valid_from)."""
    rows = conn.execute(
        select(FACT.c.subject, FACT.c.object, FACT.c.valid_from)
        .where(or_(*[_subject_under(f"person:{user}/", conn.dialect.name) for user in users]),
               FACT.c.predicate == "name",
               or_(FACT.c.retire_reason.is_(None), FACT.c.retire_reason.not_in(never_true))))
    return [(subject, name, valid_from) for subject, name, valid_from in rows]


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
    unless retired for a reason in ``never_true``): (user, place, valid_from)."""
    rows = conn.execute(
        select(FACT.c.subject, FACT.c.object, FACT.c.valid_from)
        .where(FACT.c.subject.in_([f"user:{user}" for user in users]), FACT.c.predicate == "lives_in",
               FACT.c.polarity == "positive",
               or_(FACT.c.retire_reason.is_(None), FACT.c.retire_reason.not_in(never_true))))
    return [(subject.removeprefix("user:"), place, valid_from) for subject, place, valid_from in rows]


def currencies_said(conn: Connection, users: Sequence[str], never_true: Sequence[str]) -> list[tuple[str, str, int]]:
    """The currencies of the ``budget_limit`` facts of subjects ``user:<user>`` of ``users`` that name one
    (retired or not, unless retired for a reason in ``never_true``): (user, currency, valid_from)."""
    rows = conn.execute(
        select(FACT.c.subject, FACT.c.value, FACT.c.valid_from)
        .where(FACT.c.subject.in_([f"user:{user}" for user in users]), FACT.c.predicate == "budget_limit",
               FACT.c.value.is_not(None),
               or_(FACT.c.retire_reason.is_(None), FACT.c.retire_reason.not_in(never_true))))
    out = []
    for subject, value, valid_from in rows:
        currency = json.loads(value).get("currency") if value else None
        if isinstance(currency, str) and currency:
            out.append((subject.removeprefix("user:"), currency, valid_from))
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
