"""Who a recall is asked for: the scope model (docs/DESIGN.md §4.6).

An agent serving one person asks on that person's behalf. ``Scope.of`` turns
the recall arguments into a scope; ``resolve`` reads, from the store's turns,
which projects and sessions that person's conversations belong to:

* ``user:alice`` covers alice's own facts, memories and turns, and the facts
  and memories of every project her conversations belong to
  (``project:renovation``), and nothing of anyone else: another user's
  facts, memories and turns are never in it;
* a ``project`` narrows the projects covered to that one (it must be one of
  the user's); ``within`` (the projects a door token reaches) narrows them
  to those; a ``session`` narrows the session-scoped memories (temporary
  states such as "I'm in a meeting") to that session, and the turns to it;
* any other subject (``project:atlas`` on its own, ``pet:biscuit``) is an
  exact subject filter, for support staff and developers;
* no subject at all is unscoped recall: everything, every hit labelled with
  its subject.

Pure data: ``resolve`` takes the rows it needs from a callable, so the rules
are tested without a database.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..checks import check_name, check_subject
from ..errors import InvalidInput

USER_PREFIX = "user:"
PROJECT_PREFIX = "project:"


@dataclass(frozen=True, slots=True)
class Scope:
    """What the caller asked for. ``user`` is a bare name (``alice``),
    ``subject`` an exact subject filter; at most one of the two is set."""

    user: str | None = None
    subject: str | None = None
    project: str | None = None
    session: str | None = None
    within: frozenset[str] | None = None

    @classmethod
    def of(cls, subject: str | None = None, *, user: str | None = None,
           project: str | None = None, session: str | None = None,
           within: Iterable[str] | None = None) -> Scope:
        """The scope of recall arguments: ``subject="user:alice"`` (or
        ``user="alice"``) is alice's scope; another subject is an exact filter.

        Raises InvalidInput for a blank or malformed value (a subject must
        look like ``user:NAME`` or ``project:NAME``), a user given twice
        differently, or a project or session without a user."""
        def clean(name: str, value: str | None) -> str | None:
            return None if value is None else check_name(value, name)

        subject = None if subject is None else check_subject(subject)
        user = clean("user", user)
        project, session = clean("project", project), clean("session", session)
        if user is not None and user.startswith(USER_PREFIX):
            user = user[len(USER_PREFIX):]
        exact = None
        if subject is not None:
            if subject.startswith(USER_PREFIX):
                named = subject[len(USER_PREFIX):]
                if not named:
                    raise InvalidInput(f"subject {subject!r} names no user")
                if user is not None and user != named:
                    raise InvalidInput(f"subject {subject!r} and user {user!r} disagree")
                user = named
            elif user is None:
                exact = subject
            else:
                raise InvalidInput(f"give either a user or another subject, not both "
                                   f"({user!r}, {subject!r})")
        if project is not None and project.startswith(PROJECT_PREFIX):
            project = project[len(PROJECT_PREFIX):]
        if (project or session or within is not None) and user is None:
            raise InvalidInput("a project or session narrows a user's recall: name the user "
                               "(subject user:NAME)")
        if isinstance(within, str):
            raise InvalidInput("within must be a list of project names, not one string")
        reach = None if within is None else frozenset(
            p.removeprefix(PROJECT_PREFIX) for p in (check_name(p, "project") for p in within))
        return cls(user=user, subject=exact, project=project, session=session, within=reach)

    @property
    def scoped(self) -> bool:
        """Whether the recall is limited at all."""
        return self.user is not None or self.subject is not None


@dataclass(frozen=True, slots=True)
class ResolvedScope:
    """A scope with the store's facts about it: the subjects it covers, the
    users whose turns it covers, and the sessions session-scoped memories may
    come from (None: any of the user's)."""

    scope: Scope
    subjects: frozenset[str] | None  # None: unscoped
    turn_users: frozenset[str] | None  # None: any user's (a project's own turns)
    turn_projects: frozenset[str | None] | None  # None: any
    sessions: frozenset[str] | None

    @property
    def scoped(self) -> bool:
        return self.subjects is not None

    def covers_subject(self, subject: str | None) -> bool:
        return self.subjects is None or subject in self.subjects

    def covers_memory(self, subject: str, claim_scope: str, session: str) -> bool:
        """Whether a memory (its subject, its claim's scope, its turn's
        session) is in scope."""
        if self.subjects is None:
            return True
        if subject not in self.subjects:
            return False
        return not (claim_scope == "session" and self.sessions is not None
                    and session not in self.sessions)

    def covers_turn(self, user: str | None, project: str | None, session: str) -> bool:
        """Whether a raw turn (its user, project and session) is in scope."""
        if self.subjects is None:
            return True
        if self.turn_users is not None and (user or "me") not in self.turn_users:
            return False
        if self.turn_projects is not None and project not in self.turn_projects:
            return False
        return self.sessions is None or session in self.sessions


Conversations = Callable[[str], Iterable[tuple[str, str | None]]]
"""``conversations(user)`` → the (session, project) pairs of the user's turns."""
People = Callable[[str], Iterable[str]]
"""``people(user)`` → the subjects of the people the user told about (``person:<user>/…``)."""
PERSON_PREFIX = "person:"


def people_of(user: str) -> str:
    """The subject prefix of the people ``user`` told about: ``person:<user>/``."""
    return f"{PERSON_PREFIX}{user}/"


def resolve(scope: Scope, conversations: Conversations, people: People = lambda user: ()) -> ResolvedScope:
    """The subjects, turns and sessions ``scope`` covers.

    Raises InvalidInput when the project or session named is not one of the
    user's (an agent cannot widen its reach by naming someone else's)."""
    if scope.user is None:
        if scope.subject is None:
            return ResolvedScope(scope, None, None, None, None)
        kind, _, name = scope.subject.partition(":")
        if kind == "project":  # a project's own items, and the turns told in it
            return ResolvedScope(scope, frozenset({scope.subject}), None, frozenset({name}), None)
        return ResolvedScope(scope, frozenset({scope.subject}), frozenset(), None, None)
    pairs = list(conversations(scope.user))
    projects = {p for _, p in pairs if p}
    sessions = {s for s, _ in pairs}
    if scope.project is not None:
        if scope.project not in projects:
            raise InvalidInput(f"user:{scope.user} has no conversation in project:{scope.project}")
        projects = {scope.project}
    if scope.within is not None:
        if scope.project is not None and scope.project not in scope.within:
            raise InvalidInput(f"project:{scope.project} is out of reach of this recall")
        projects &= scope.within
    chosen: frozenset[str] | None = None
    if scope.session is not None:
        if scope.session not in sessions:
            raise InvalidInput(f"user:{scope.user} has no session {scope.session!r}")
        chosen = frozenset({scope.session})
    # the user's own subjects, their projects', and the people they told about (never anyone else's)
    told_about = set() if scope.project is not None else {
        p for p in people(scope.user) if p.startswith(people_of(scope.user))}
    subjects = frozenset({USER_PREFIX + scope.user} | {PROJECT_PREFIX + p for p in projects} | told_about)
    turn_projects: frozenset[str | None] | None = None
    if scope.project is not None or scope.within is not None:
        turn_projects = frozenset({None, *projects})
    return ResolvedScope(scope, subjects, frozenset({scope.user}), turn_projects, chosen)


__all__ = ["Conversations", "People", "ResolvedScope", "Scope", "people_of", "resolve"]
