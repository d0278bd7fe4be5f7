"""A recall's arguments checked (``check_request`` → ``Request``) and what
its filters admit (``Filters``: in Python for a hydrated row, and in SQL
terms for ``memdesk.db.recall``: ``TurnFilter``, ``MemoryFilter``). Pure:
no I/O."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..bounds import Bounds
from ..checks import check_moment, check_scope, check_text
from ..db.recall import MemoryFilter, TurnFilter
from ..errors import InvalidInput
from ..lang.questions import asks
from ..records import STATUSES
from .scope import ResolvedScope, Scope

MAX_K = 1000  # results one recall may ask for
OVER = ("memories", "turns")
KIND = {"memories": "memory", "turns": "turn"}  # the kind of item a recall is over


def as_tuple(value: str | Sequence[str] | None, label: str) -> tuple[str, ...] | None:
    """A filter given as one string or a list of them, blanks dropped (None: no
    filter). Raises InvalidInput for anything but strings."""
    if value is None:
        return None
    items = (value,) if isinstance(value, str) else value
    if not isinstance(items, list | tuple) or not all(isinstance(v, str) for v in items):
        raise InvalidInput(f"{label} must be a string or a list of strings, got {value!r}")
    return tuple(v.strip() for v in items if v and v.strip()) or None


@dataclass(frozen=True, slots=True)
class Request:
    """One recall's arguments, checked (``Recaller.search`` says what each means)."""

    query: str
    k: int
    at: int | None
    exact: bool
    over: str
    scopes: tuple[str, ...] | None
    statuses: tuple[str, ...] | None
    since: int | None
    until: int | None
    include_archived: bool
    asked: Scope


def check_over(over: str) -> str:
    """``over`` itself. Raises InvalidInput unless it is ``memories`` or ``turns``."""
    if over not in OVER:
        raise InvalidInput(f"over must be one of {', '.join(OVER)}, got {over!r}")
    return over


def check_request(query: str, bounds: Bounds, *, k: int, at: int | None, exact: bool, over: str,
                  subject: str | None, scope: str | Sequence[str] | None,
                  status: str | Sequence[str] | None, since: int | None, until: int | None,
                  include_archived: bool, user: str | None, project: str | None,
                  session: str | None, within: Iterable[str] | None) -> Request:
    """The arguments of a recall, checked in this order: the query (not
    blank, no NUL or lone surrogate, within ``bounds``), ``k``, ``over``,
    the statuses, the scopes, the times, then who it is for (``Scope.of``).
    Raises InvalidInput for the first bad one (and what ``bounds`` raises)."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidInput("the recall query must not be empty")
    check_text(query, "the recall query")  # no NUL, no lone surrogate: the embedders take text
    bounds.check_query(query)  # the work one recall may ask for (core/bounds.py)
    bounds.check_asks(len(asks(query)))  # each ask is embedded on its own
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise InvalidInput(f"k must be a whole number from 1 to {MAX_K}, got {k!r}")
    check_over(over)
    statuses = as_tuple(status, "status")
    if statuses is not None:
        bad = [s for s in statuses if s not in STATUSES]
        if bad:
            raise InvalidInput(f"unknown status {bad[0]!r}: use {', '.join(STATUSES)}")
    scopes = as_tuple(scope, "scope")
    if scopes is not None:
        scopes = tuple(check_scope(s, "scope filter") for s in scopes)
    for label, moment in (("at", at), ("since", since), ("until", until)):
        if moment is not None:
            check_moment(moment, label)
    if over == "turns" and (scopes or statuses):
        raise InvalidInput("scope and status filters apply to memories, not raw turns")
    asked = Scope.of(subject, user=user, project=project, session=session, within=within)
    return Request(query, k, at, exact, over, scopes, statuses, since, until, include_archived,
                   asked)


@dataclass(frozen=True, slots=True)
class Filters:
    """What a recall admits: whose items (``scope``), the claims' scopes, the
    statuses, the times (``at``: as of then; ``since``/``until``: the
    item's time) and whether archived memories count."""

    scope: ResolvedScope
    scopes: tuple[str, ...] | None
    statuses: tuple[str, ...] | None
    at: int | None
    since: int | None
    until: int | None
    include_archived: bool = False

    @property
    def narrow(self) -> bool:
        return bool(self.scope.scoped or self.scopes or self.at is not None)

    def admits(self, over: str, row: dict[str, Any]) -> bool:
        """Whether a hydrated memory or turn row passes (statuses aside)."""
        if over == "memories":
            t, created = row["time"], row["created_at"]
            if not self.scope.covers_memory(row["subject"], row["scope"], row["session"]):
                return False
            if self.scopes and row["scope"] not in self.scopes:
                return False
            if not self.include_archived and self.archived(row):
                return False
        else:  # a turn is known from when it was said (the told axis)
            t = created = row["time"]
            if not self.scope.covers_turn(row["user"], row["project"], row["session"]):
                return False
        if self.at is not None and created > self.at:
            return False
        if self.since is not None and t < self.since:
            return False
        return not (self.until is not None and t > self.until)

    def archived(self, row: dict[str, Any]) -> bool:
        """Whether a memory row was archived by maintenance (as of ``at``)."""
        done = row.get("archived_at")
        return done is not None and (self.at is None or done <= self.at)

    def turns(self) -> TurnFilter:
        """The turns these filters' scope and times admit, in SQL terms: the
        same rule as ``admits``. ``user:me`` covers turns stored without a user."""
        sc = self.scope
        users = projects = sessions = None
        or_none = False
        if sc.scoped:
            if sc.turn_users is not None:
                users = tuple(sorted(sc.turn_users))
            if sc.turn_projects is not None:
                projects = tuple(sorted(p for p in sc.turn_projects if p is not None))
                or_none = None in sc.turn_projects
            if sc.sessions is not None:
                sessions = tuple(sorted(sc.sessions))
        return TurnFilter(users, projects, or_none, sessions, self.at, self.since, self.until)

    def memories(self) -> MemoryFilter:
        """The memories these filters admit by SQL (subjects, claim scopes,
        ``at`` and archiving; ``admits`` checks the rest)."""
        subjects = None if self.scope.subjects is None else tuple(sorted(self.scope.subjects))
        return MemoryFilter(subjects, self.scopes, self.at, self.include_archived)

    def key(self) -> tuple:
        """What tells these filters' SQL admissions apart (a cache key)."""
        sc = self.scope
        return (sc.subjects, sc.turn_users, sc.turn_projects, sc.sessions, self.scopes, self.at,
                self.since, self.until, self.include_archived)


__all__ = ["KIND", "MAX_K", "OVER", "Filters", "Request", "as_tuple", "check_over",
           "check_request"]
