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
is reported. An erasure (``forget_user``) strips the person from the tokens
and rewrites those entries to the rows it leaves (``erased_entry``), so the
check goes on after it.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .access import PROJECT_PREFIX, USER_PREFIX, Grant
from .checks import check_id, check_name, check_required_text
from .db import Connection
from .db import tokens as sql
from .errors import InvalidInput, TokenNotFound
from .timeutil import iso
from .writer import WriteBatch

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
    token_id = sql.max_token_id(conn) + 1
    token = Token(token_id, name, bound_users, bound_projects, bool(read_only), batch.tx, by,
                  None, None, None, hash_secret(secret))
    sql.insert_token(
        conn, id=token.id, name=token.name, secret_hash=token.secret_hash,
        users=json.dumps(list(token.users)), projects=json.dumps(list(token.projects)),
        read_only=token.read_only, created_at=token.created_at, created_by=token.created_by)
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
    row = sql.token_row(batch.conn, token_id)
    if row is None:
        raise TokenNotFound(f"no token with id {token_id}")
    token = _token(row)
    if not token.active:
        raise InvalidInput(f"{token.label} was already revoked at {iso(token.revoked_at)} "
                           f"by {token.revoked_by}")
    sql.update_token(batch.conn, token_id,
                     {"revoked_at": batch.tx, "revoked_by": by, "revoke_reason": reason})
    batch.record_operation(by, REVOKED, reason=reason,
                           detail={"token": token.id, "name": token.name})
    return get(batch.conn, token_id)


def get(conn: Connection, token_id: int) -> Token:
    """One token by id. Raises TokenNotFound, InvalidInput for a malformed id."""
    token_id = check_id(token_id, "token id")
    row = sql.token_row(conn, token_id)
    if row is None:
        raise TokenNotFound(f"no token with id {token_id}")
    return _token(row)


def listing(conn: Connection, *, include_revoked: bool = True) -> list[Token]:
    """Every token, oldest first (only the active ones without ``include_revoked``)."""
    return [_token(r) for r in sql.token_rows(conn, include_revoked=include_revoked)]


def find(conn: Connection, secret: str) -> Token | None:
    """The token whose secret this is (revoked or not), or None: one indexed
    read of its hash. The caller has checked the shape (``well_formed``), so
    garbage never costs a connection (``store.admin.token_for_secret``)."""
    row = sql.token_by_hash(conn, hash_secret(secret))
    return None if row is None else _token(row)


ERASED = "erased"  # what a name or a reason that named an erased person becomes
ERASED_REASON = "every user it was bound to was erased"


@dataclass(frozen=True, slots=True)
class Forgotten:
    """What ``forget_user`` changed: every token it touched, as it left them;
    ``renamed`` the (id, name before) of each token it renamed; ``revoked``
    the ids of the tokens it revoked (each with its own ``token.revoked``
    entry)."""

    tokens: tuple[Token, ...]
    renamed: tuple[tuple[int, str], ...]
    revoked: tuple[int, ...]


def touched_by(token: Token, user: str, mentions: Callable[[str | None], bool]) -> bool:
    """Whether an erasure of ``user:USER`` changes ``token``: it is bound to
    them, or its name or revocation reason ``mentions`` them. (``created_by``
    and ``revoked_by`` record who acted, like an audit entry's actor: an
    erasure keeps them.)"""
    return user in token.users or mentions(token.name) or mentions(token.revoke_reason)


def forget_user(batch: WriteBatch, user: str, *, by: str,
                mentions: Callable[[str | None], bool]) -> Forgotten:
    """For an erasure of ``user:USER`` (core.erase): take the user out of
    every token. A token that was theirs alone (no user left) keeps nothing
    that names them: its name becomes ``erased``, its users and projects
    empty, its reason ``every user it was bound to was erased``; it is revoked
    now (by ``by``, with a ``token.revoked`` entry) unless it already was; its
    id, hash (so the door still knows a revoked secret when it is tried),
    read-only flag, times, issuer and revoker stay. A token shared with
    others keeps its other users and its projects; its name or reason becomes
    ``erased`` where ``mentions`` finds the person. The erasure
    rewrites the tokens' audit entries from the rows as left here
    (``erased_entry``), so ``problems`` still checks every token."""
    changed: list[Token] = []
    renamed: list[tuple[int, str]] = []
    revoked: list[int] = []
    for token in listing(batch.conn):
        if not touched_by(token, user, mentions):
            continue
        rest = [u for u in token.users if u != user]
        values: dict[str, Any] = {"users": json.dumps(rest)}
        alone = not rest
        if alone:
            values.update(name=ERASED, projects="[]", revoke_reason=ERASED_REASON)
            if token.active:
                values.update(revoked_at=batch.tx, revoked_by=by)
                revoked.append(token.id)
        else:
            if mentions(token.name):
                values["name"] = ERASED
            if mentions(token.revoke_reason):
                values["revoke_reason"] = ERASED
        if values.get("name") == ERASED and token.name != ERASED:
            renamed.append((token.id, token.name))
        sql.update_token(batch.conn, token.id, values)
        changed.append(get(batch.conn, token.id))
    for token_id in revoked:
        batch.audit(by, REVOKED, reason=ERASED_REASON, detail={"token": token_id, "name": ERASED})
    return Forgotten(tuple(changed), tuple(renamed), tuple(revoked))


def _json(value: Any) -> str:
    """A detail as the writer encodes one (non-ASCII kept: names stay searchable)."""
    return json.dumps(value, ensure_ascii=False)


def erased_entry(action: str, reason: str | None, token: Token,
                 mentions: Callable[[str | None], bool]) -> tuple[str | None, str]:
    """The (reason, detail JSON) a ``token.created`` or ``token.revoked``
    entry keeps after an erasure changed ``token`` (as the erasure left it):
    the binding it records is the row's, so ``problems`` still holds the row
    to it; a revocation keeps its reason unless the token was the person's
    alone or the reason ``mentions`` them."""
    if action == CREATED:
        return f"{token.label} issued", _json(_binding(token))
    keep = reason if token.users and not mentions(reason) else None
    return keep, _json({"token": token.id, "name": token.name})


def _rename(value: Any, word: re.Pattern[str]) -> Any:
    if isinstance(value, str):
        return word.sub(ERASED, value)
    if isinstance(value, list):
        return [_rename(v, word) for v in value]
    if isinstance(value, dict):
        return {k: _rename(v, word) for k, v in value.items()}
    return value


def renamed_in(reason: str | None, detail: str, renamed: dict[int, str]) -> tuple[str | None, str] | None:
    """For an audit entry made through a token the erasure renamed (its
    ``caller`` detail names the token): the (reason, detail JSON) with the
    token's old name replaced by ``erased`` wherever it stands as a word;
    None when the entry was not made through such a token."""
    try:
        parsed = json.loads(detail or "{}")
    except ValueError:
        return None
    caller = parsed.get("caller") if isinstance(parsed, dict) else None
    token = caller.get("token") if isinstance(caller, dict) else None
    old = renamed.get(token) if isinstance(token, int) else None
    if old is None:
        return None
    word = re.compile(rf"(?<!\w){re.escape(old)}(?!\w)")
    return (None if reason is None else word.sub(ERASED, reason)), _json(_rename(parsed, word))


def problems(conn: Connection) -> list[str]:
    """Token rows that their audit entries do not account for: a row without
    a ``token.created`` entry with the same binding and hash, a revoked row
    without its ``token.revoked`` entry, or an active one that was revoked.
    An erasure rewrites the entries of the tokens it changes to the rows it
    leaves (``erased_entry``) and audits the revocations it makes, so every
    token stays checked. Only a store erased by an earlier memdesk, whose
    token entries were scrubbed to ``{"erased": true}``, is checked more
    loosely: a row without its entries is then not reported."""
    created: dict[int, dict[str, Any]] = {}
    revoked: set[int] = set()
    scrubbed = 0
    for action, raw in sql.entries_of(conn, (CREATED, REVOKED)):
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


__all__ = ["ERASED", "ERASED_REASON", "PREFIX", "Forgotten", "Token", "create", "erased_entry", "find",
           "forget_user", "get", "hash_secret", "listing", "problems", "renamed_in", "revoke",
           "touched_by", "well_formed"]
