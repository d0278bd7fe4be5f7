"""Who may reach what through the agent's door: grants and their rules.

Pure rules, no I/O, like ``core.bitemporal``: the MCP server (``app.mcp_server``)
builds a ``Grant`` for each call (from the bearer token of an HTTP request, or
from ``--user`` on a local server) and asks it, before any read or write, whom
the call is for and what it may touch. The arguments of a call never widen a
grant: a name, a subject string or a session that is not the grant's is
refused with ``AccessRefused`` naming what was asked and why.

* **users** the grant serves (``None``: any user, the local trusted process
  without ``--user``). A call names one of them, or none when there is only
  one.
* **projects** it reaches (``None``: the projects the user's own
  conversations belong to, as the store says; a token lists them).
* **read_only**: no ``remember``, no ``propose_fact``.

A ``Caller`` is who is calling, for the audit: the token's id and name (never
its secret) and the client name the protocol reported.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .checks import check_name, check_subject
from .errors import AccessRefused, InvalidInput

USER_PREFIX = "user:"
PROJECT_PREFIX = "project:"


@dataclass(frozen=True, slots=True)
class Caller:
    """Who called through the door: the transport, the token (id and name;
    never its secret) and the client the protocol reported (name and
    version of its ``clientInfo``)."""

    transport: str
    token_id: int | None = None
    token_name: str | None = None
    client: str | None = None

    @property
    def actor(self) -> str:
        """The audit entry's actor: ``token:3`` through a token, else ``mcp``."""
        return f"token:{self.token_id}" if self.token_id is not None else "mcp"

    def describe(self) -> str:
        """``token 3 (alice-laptop), client claude-code 1.0, over http``."""
        parts = []
        if self.token_id is not None:
            parts.append(f"token {self.token_id}"
                         + (f" ({self.token_name})" if self.token_name else ""))
        if self.client:
            parts.append(f"client {self.client}")
        parts.append(f"over {self.transport}")
        return ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"transport": self.transport}
        if self.token_id is not None:
            out["token"] = self.token_id
            out["token_name"] = self.token_name
        if self.client:
            out["client"] = self.client
        return out


def _bare_user(value: str) -> str:
    """A user name as asked (``alice`` or ``user:alice``), checked. Raises InvalidInput."""
    name = check_name(value, "user")
    return name[len(USER_PREFIX):] if name.startswith(USER_PREFIX) else name


@dataclass(frozen=True, slots=True)
class Grant:
    """What a caller may reach (see the module docstring). ``label`` names
    the grant in refusals (``token 3 (alice-laptop)``)."""

    users: frozenset[str] | None = None
    projects: frozenset[str] | None = None
    read_only: bool = False
    label: str = "this server"

    @classmethod
    def of(cls, users: Iterable[str] | None = None, projects: Iterable[str] | None = None, *,
           read_only: bool = False, label: str = "this server") -> Grant:
        """A grant from names (``user:``/``project:`` prefixes allowed).
        Raises InvalidInput for a malformed name or an empty user list."""
        us = None if users is None else frozenset(_bare_user(u) for u in users)
        if us is not None and not us:
            raise InvalidInput("a grant needs at least one user")
        ps = None if projects is None else frozenset(
            p[len(PROJECT_PREFIX):] if p.startswith(PROJECT_PREFIX) else p
            for p in (check_name(p, "project") for p in projects))
        return cls(us, ps, read_only, label)

    # ----------------------------------------------------------- the rules
    def user(self, asked: str | None) -> str:
        """The user a call is for: ``asked`` when the grant serves them, the
        grant's one user when nothing is asked.

        Raises AccessRefused for a user the grant does not serve, InvalidInput
        for no user where one must be named, or a malformed name."""
        if asked is None or (isinstance(asked, str) and not asked.strip()):
            if self.users is not None and len(self.users) == 1:
                return next(iter(self.users))
            if self.users is None:
                raise InvalidInput("name the user this call is for (user: NAME)")
            raise InvalidInput(f"name the user this call is for: {self.label} serves "
                               f"{', '.join(sorted(self.users))}")
        name = _bare_user(asked)
        if self.users is not None and name not in self.users:
            raise AccessRefused(f"{self.label} may not reach user:{name}",
                                subject=USER_PREFIX + name)
        return name

    def subject(self, subject: str | None, asked: str | None,
                member: Callable[[str, str], bool]) -> str:
        """The subject a read is about: the user's own (``user:NAME``), or a
        project the grant reaches. ``member(user, project)`` says whether the
        user's conversations belong to the project (asked only when the grant
        lists no projects).

        Raises AccessRefused for another user's subject, a project out of
        reach, or any other kind of subject; InvalidInput for a malformed one
        or a subject that disagrees with the user named."""
        if subject is None:
            return USER_PREFIX + self.user(asked)
        subject = check_subject(subject)
        kind, _, name = subject.partition(":")
        if kind == "user":
            user = self.user(name)
            if asked is not None and self.user(asked) != user:
                raise InvalidInput(f"subject {subject} and user {asked!r} disagree")
            return subject
        user = self.user(asked)
        if kind != "project":
            raise AccessRefused(f"{self.label} reaches users and projects only, not {subject}",
                                subject=subject)
        if not self.reaches_project(user, name, member):
            raise AccessRefused(f"{self.label} may not reach {subject} (for user:{user})",
                                subject=subject)
        return subject

    def reaches_project(self, user: str, project: str,
                        member: Callable[[str, str], bool]) -> bool:
        """Whether a call for ``user`` may read ``project:NAME``."""
        if self.projects is not None:
            return project in self.projects
        return member(user, project)

    def check_write(self, user: str, project: str | None) -> None:
        """Refuse a write the grant does not allow: any write of a read-only
        grant, or turns told in a project it does not reach.
        Raises AccessRefused."""
        if self.read_only:
            raise AccessRefused(f"{self.label} is read-only: it may not write")
        if project is not None:
            bare = project[len(PROJECT_PREFIX):] if project.startswith(PROJECT_PREFIX) else project
            if self.projects is not None and bare not in self.projects:
                raise AccessRefused(f"{self.label} may not write to project:{bare}",
                                    subject=PROJECT_PREFIX + bare)

    def recall_projects(self, project: str | None) -> frozenset[str] | None:
        """The projects a recall for one of the grant's users may cover
        (``None``: all of the user's), with ``project`` narrowing it.
        Raises AccessRefused for a project the grant does not reach."""
        if project is None or self.projects is None:
            return self.projects
        bare = project[len(PROJECT_PREFIX):] if project.startswith(PROJECT_PREFIX) else project
        if bare not in self.projects:
            raise AccessRefused(f"{self.label} may not reach project:{bare}",
                                subject=PROJECT_PREFIX + bare)
        return frozenset({bare})


def own_session(user: str, name: str) -> str:
    """The name ``user``'s session ``name`` is stored under when it is new:
    ``<user>/<name>`` (``name`` itself when it already starts so). A session
    name is the user's own: two users' sessions of one name never meet."""
    prefix = f"{user}/"
    return name if name.startswith(prefix) else prefix + name


def session_for(user: str, name: str, owners: Callable[[str], Iterable[str | None]]) -> str:
    """The stored session that is ``user``'s session ``name``.
    ``owners(stored)`` gives the users whose turns a stored session holds
    (a turn without a user is ``me``'s; nothing for a session not stored).

    The user's own ``<user>/<name>`` once it holds turns; else ``name``
    itself when it holds turns and all are the user's (a conversation
    ingested from a file, or written before sessions were scoped by their
    user); else ``<user>/<name>``, new. So a session another user created
    under any name, ``<user>-chat`` included, never stands in the way.
    Pure: no I/O beyond ``owners``."""
    own = own_session(user, name)
    if own != name and not set(owners(own)):
        held = {o or "me" for o in owners(name)}
        if held == {user}:
            return name
    return own


def check_session_owner(session: str, owners: Iterable[str | None], user: str) -> None:
    """A conversation belongs to the users whose turns it holds (a turn
    without a user is ``me``'s). Writing to, reading from or proposing from
    a session that holds anyone else's turns is refused, and the refusal
    names only the user asking (``subject``, for the audit, is one of the
    others). Raises AccessRefused."""
    others = sorted({o or "me" for o in owners} - {user})
    if others:
        raise AccessRefused(f"session {session!r} is not a conversation of user:{user}",
                            subject=USER_PREFIX + others[0])


__all__ = ["Caller", "Grant", "check_session_owner", "own_session", "session_for"]
