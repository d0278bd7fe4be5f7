"""Bearer tokens of the HTTP door (``memdesk tokens create|list|revoke``).

A token is a random secret (``mdk_`` and 43 URL-safe characters: 256 bits)
shown once, when it is created. The store keeps only its SHA-256: a secret of
that strength needs no slow password hash (nobody can guess one, so nobody
can test guesses against the hash), and the server checks one on every HTTP
request with one indexed read. Each token is bound to the users (and
projects) it may reach and may be read-only; ``Token.grant`` is that binding
as a ``core.access.Grant``.

Creating and revoking a token are audit entries (actions ``token.created``,
``token.revoked``) naming its id, name and binding, and the hash, never the
secret. The ``access_token`` table is outside the row hashes of the chain,
so ``verify`` checks each row against those entries instead (``problems``):
a token slipped into the table, widened or un-revoked behind memdesk's back
is reported.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, func, select, update

from .access import PROJECT_PREFIX, USER_PREFIX, Grant
from .claims import check_id, check_name, check_required_text
from .errors import InvalidInput, TokenNotFound
from .schema import AccessTokenRow, AuditRow
from .timeutil import iso
from .writer import WriteBatch

TOKEN = AccessTokenRow.__table__
AUDIT = AuditRow.__table__
PREFIX = "mdk_"
_SECRET_CHARS = 43  # secrets.token_urlsafe(32)
CREATED, REVOKED = "token.created", "token.revoked"


def hash_secret(secret: str) -> str:
    """The SHA-256 (hex) of a token's secret: what the store keeps."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def well_formed(secret: str) -> bool:
    """Whether ``secret`` looks like a memdesk token at all (cheap: garbage is
    refused without reading the store)."""
    return (len(secret) == len(PREFIX) + _SECRET_CHARS and secret.startswith(PREFIX)
            and all(c.isascii() and (c.isalnum() or c in "-_") for c in secret[len(PREFIX):]))


@dataclass(frozen=True, slots=True)
class Token:
    """One access token as stored (its secret is not: only ``secret_hash``)."""

    id: int
    name: str
    users: tuple[str, ...]
    projects: tuple[str, ...]
    read_only: bool
    created_at: int
    created_by: str
    revoked_at: int | None
    revoked_by: str | None
    revoke_reason: str | None
    secret_hash: str

    @property
    def active(self) -> bool:
        return self.revoked_at is None

    @property
    def label(self) -> str:
        """``token 3 (alice-laptop)``: how refusals and the audit name it."""
        return f"token {self.id} ({self.name})"

    def grant(self) -> Grant:
        """What the token may reach, as the door's rules read it."""
        return Grant(frozenset(self.users), frozenset(self.projects), self.read_only, self.label)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON (the CLI's ``--json``); never the hash or the secret."""
        return {"id": self.id, "name": self.name, "users": list(self.users),
                "projects": list(self.projects), "read_only": self.read_only,
                "created_at": iso(self.created_at), "created_by": self.created_by,
                "revoked_at": iso(self.revoked_at), "revoked_by": self.revoked_by,
                "revoke_reason": self.revoke_reason, "active": self.active}


def _token(row: Any) -> Token:
    m = row._mapping
    return Token(int(m["id"]), str(m["name"]), tuple(json.loads(m["users"])),
                 tuple(json.loads(m["projects"])), bool(m["read_only"]), int(m["created_at"]),
                 str(m["created_by"]), None if m["revoked_at"] is None else int(m["revoked_at"]),
                 m["revoked_by"], m["revoke_reason"], str(m["secret_hash"]))


def _names(values: Iterable[str], kind: str, prefix: str) -> tuple[str, ...]:
    out = []
    for v in values:
        name = check_name(v, kind)
        name = name[len(prefix):] if name.startswith(prefix) else name
        out.append(check_name(name, kind))
    return tuple(sorted(set(out)))


def _binding(token: Token) -> dict[str, Any]:
    """What the audit entries record of a token (and ``verify`` compares)."""
    return {"token": token.id, "name": token.name, "users": list(token.users),
            "projects": list(token.projects), "read_only": token.read_only,
            "secret_hash": token.secret_hash}


def create(batch: WriteBatch, *, name: str, users: Iterable[str], projects: Iterable[str] = (),
           read_only: bool = False, by: str) -> tuple[Token, str]:
    """Issue a token inside ``batch``'s transaction: returns it and its secret
    (shown once; the store keeps its hash). Raises InvalidInput for a bad name,
    no user, or a malformed user or project name."""
    name = check_name(name, "token name")
    by = check_name(by, "by (who issues the token)")
    bound_users = _names(users, "user", USER_PREFIX)
    if not bound_users:
        raise InvalidInput("a token needs at least one user it may reach (--user NAME)")
    bound_projects = _names(projects, "project", PROJECT_PREFIX)
    secret = PREFIX + secrets.token_urlsafe(32)
    conn = batch.conn
    token_id = int(conn.execute(select(func.coalesce(func.max(TOKEN.c.id), 0))).scalar() or 0) + 1
    token = Token(token_id, name, bound_users, bound_projects, bool(read_only), batch.tx, by,
                  None, None, None, hash_secret(secret))
    conn.execute(TOKEN.insert().values(
        id=token.id, name=token.name, secret_hash=token.secret_hash,
        users=json.dumps(list(token.users)), projects=json.dumps(list(token.projects)),
        read_only=token.read_only, created_at=token.created_at, created_by=token.created_by))
    batch.record_operation(by, CREATED, reason=f"token {token.id} ({name}) issued",
                           detail=_binding(token))
    return token, secret


def revoke(batch: WriteBatch, token_id: int, *, by: str, reason: str) -> Token:
    """Revoke a token inside ``batch``'s transaction: it is refused from the
    next request on. Raises TokenNotFound, InvalidInput (bad id, no reason,
    already revoked)."""
    token_id = check_id(token_id, "token id")
    by = check_name(by, "by (who revokes the token)")
    reason = check_required_text(reason, "reason (why the token is revoked)")
    row = batch.conn.execute(select(*TOKEN.c).where(TOKEN.c.id == token_id)).first()
    if row is None:
        raise TokenNotFound(f"no token with id {token_id}")
    token = _token(row)
    if not token.active:
        raise InvalidInput(f"{token.label} was already revoked at {iso(token.revoked_at)} "
                           f"by {token.revoked_by}")
    batch.conn.execute(update(TOKEN).where(TOKEN.c.id == token_id).values(
        revoked_at=batch.tx, revoked_by=by, revoke_reason=reason))
    batch.record_operation(by, REVOKED, reason=reason,
                           detail={"token": token.id, "name": token.name})
    return get(batch.conn, token_id)


def get(conn: Connection, token_id: int) -> Token:
    """One token by id. Raises TokenNotFound, InvalidInput for a malformed id."""
    token_id = check_id(token_id, "token id")
    row = conn.execute(select(*TOKEN.c).where(TOKEN.c.id == token_id)).first()
    if row is None:
        raise TokenNotFound(f"no token with id {token_id}")
    return _token(row)


def listing(conn: Connection, *, include_revoked: bool = True) -> list[Token]:
    """Every token, oldest first (only the active ones without ``include_revoked``)."""
    stmt = select(*TOKEN.c).order_by(TOKEN.c.id)
    if not include_revoked:
        stmt = stmt.where(TOKEN.c.revoked_at.is_(None))
    return [_token(r) for r in conn.execute(stmt)]


def find(conn: Connection, secret: str) -> Token | None:
    """The token whose secret this is (revoked or not), or None: one indexed
    read of its hash. The caller has checked the shape (``well_formed``), so
    garbage never costs a connection (``Store.token_for_secret``)."""
    row = conn.execute(select(*TOKEN.c).where(TOKEN.c.secret_hash == hash_secret(secret))).first()
    return None if row is None else _token(row)


def forget_user(batch: WriteBatch, user: str, *, by: str,
                mentions: Callable[[str], bool]) -> int:
    """For an erasure of ``user:USER`` (core.erase): take the user out of
    every token bound to them; a token left with no user is revoked, and a
    token whose name ``mentions`` the person is renamed ``erased``. Returns
    how many tokens changed. (The erasure scrubs the tokens' audit entries,
    which name the user, so ``problems`` no longer holds them to those.)"""
    changed = 0
    for token in listing(batch.conn):
        named = mentions(token.name)
        if user not in token.users and not named:
            continue
        rest = [u for u in token.users if u != user]
        values: dict[str, Any] = {"users": json.dumps(rest)}
        if named:
            values["name"] = "erased"
        if not rest and token.active:
            values.update(revoked_at=batch.tx, revoked_by=by,
                          revoke_reason="every user it was bound to was erased")
        batch.conn.execute(update(TOKEN).where(TOKEN.c.id == token.id).values(**values))
        changed += 1
    return changed


def problems(conn: Connection) -> list[str]:
    """Token rows that their audit entries do not account for: a row without
    a ``token.created`` entry with the same binding and hash, a revoked row
    without its ``token.revoked`` entry, or an active one that was revoked.
    Entries scrubbed by an erasure no longer say what they created; their
    tokens are checked for revocation only."""
    created: dict[int, dict[str, Any]] = {}
    revoked: set[int] = set()
    scrubbed = 0
    for action, raw in conn.execute(select(AUDIT.c.action, AUDIT.c.detail)
                                    .where(AUDIT.c.action.in_((CREATED, REVOKED)))):
        detail = json.loads(raw or "{}")
        if not isinstance(detail, dict) or "token" not in detail:
            scrubbed += 1
            continue
        if action == CREATED:
            created[int(detail["token"])] = detail
        else:
            revoked.add(int(detail["token"]))
    found = []
    for token in listing(conn):
        recorded = created.get(token.id)
        if recorded is None:
            if not scrubbed:
                found.append(f"{token.label} has no {CREATED} audit entry: it was not issued "
                             "by memdesk")
        elif recorded != _binding(token):
            found.append(f"{token.label} differs from what its {CREATED} entry recorded "
                         "(users, projects, read-only flag or hash changed)")
        if token.active and token.id in revoked:
            found.append(f"{token.label} was revoked ({REVOKED} entry) but is active again")
        if not token.active and token.id not in revoked and not scrubbed:
            found.append(f"{token.label} is revoked without a {REVOKED} audit entry")
    return found


__all__ = ["PREFIX", "Token", "create", "find", "forget_user", "get", "hash_secret", "listing", "problems",
           "revoke", "well_formed"]
