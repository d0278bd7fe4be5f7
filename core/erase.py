"""Erasure of one person's data (the right to be forgotten).

``erase_subject`` runs inside one write transaction (a ``WriteBatch``):

1. it reads the names the store knows for the person (``core.mentions``:
   their user id and the objects of their ``name`` claims) before anything
   is deleted, and checks the audit chain (``core.chain.verify``): erasing
   would re-commit the entries it touches, so a store that already fails
   verification is refused rather than laundered;
2. it deletes the person's turns (turns of conversations whose ``user`` is
   the person, and the source turns of claims about them), every claim that
   is about them or cites one of those turns, the facts, conflicts and
   memories of those claims, and the recall vectors of the deleted turns and
   memories (no fact may stand without its source turn, so facts about a
   project that only this person's turns stated go too);
3. other people's rows that name the person (``core.mentions``) are theirs:
   they are never changed on their own. The ones the caller names in
   ``redact`` are redacted in the same transaction: a turn's or memory's
   text has every name replaced by ``[erased]`` (a turn's memories with it)
   and loses its vectors; a fact or candidate is deleted with its claim, like
   the person's own; an audit entry is scrubbed. The rest are returned in
   the report (``mentions``), for a person to decide;
4. it takes the person out of the HTTP door's tokens (``core.tokens``): a
   token that was theirs alone keeps no name, user or project;
5. it scrubs audit entries that name the person (their ``subject``, or their
   user id, subject or a full name in ``reason``/``detail``): those fields
   are cleared. Entries of tokens it changed are rewritten from the token
   rows as left (so ``verify`` still checks every token), and entries made
   through a token it renamed lose the token's old name;
6. it appends one tombstone entry (action ``subject.erased``) with the actor,
   the time, the counts and the ids of the other people's rows it redacted,
   never the name or the text, plus the new digests of every entry whose
   content or rows changed (``detail.amended``), so that ``verify`` still
   passes and shows the erasure;
7. it counts the erasure in ``store_meta.erasures``. Erasure knows nothing of
   recall's files: every recall index records the count it was built at and
   discards itself when the store's is higher (``core.recall``), and the Store
   tells the Recallers of its process at once (``store.admin.on_erasure``).

Bytes at rest: SQLite connections run with ``secure_delete`` on (``core.db``)
and the Store empties the WAL once the erasure commits (``db.clear_wal``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from . import tokens
from .bitemporal import normalise_object
from .chain import ERASED_ACTION, Recomputer, load_entries
from .chain import verify as verify_chain
from .db import Connection
from .db import erase as sql
from .errors import InvalidInput, StoreError, SubjectNotFound
from .mentions import Mention, Names, find_mentions, names_of
from .writer import WriteBatch

SUBJECT = re.compile(r"^user:(\S.*)$")
SCRUBBED_DETAIL = json.dumps({"erased": True})
REDACTED = "[erased]"  # what a name becomes in another person's redacted text
REDACTABLE = ("turn", "memory", "fact", "claim", "audit")
REF = re.compile(r"^(turn|memory|fact|claim|audit):([1-9][0-9]{0,17})$")


@dataclass(frozen=True, slots=True)
class ErasureReport:
    """What an erasure removed (counts only), the tombstone's audit entry id,
    the tokens it changed, the other people's rows it redacted (``turn:12``
    and ``memory:3`` changed in place, the ``fact:5``, ``claim:7`` and
    ``audit:9`` asked for) and those that still name the person
    (``mentions``: not changed).
    ``wal_cleared``: whether the SQLite WAL was emptied after the commit
    (None on PostgreSQL; False when a reader held it, see ``core.db``)."""

    turns: int
    claims: int
    facts: int
    conflicts: int
    memories: int
    vectors: int
    entries_scrubbed: int
    entries_amended: int
    audit_entry: int
    tokens: int = 0
    redacted: tuple[str, ...] = ()
    mentions: tuple[Mention, ...] = ()
    wal_cleared: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"turns": self.turns, "claims": self.claims, "facts": self.facts,
                "conflicts": self.conflicts, "memories": self.memories,
                "vectors": self.vectors, "entries_scrubbed": self.entries_scrubbed,
                "entries_amended": self.entries_amended, "audit_entry": self.audit_entry,
                "tokens": self.tokens, "redacted": list(self.redacted),
                "mentions": [m.to_dict() for m in self.mentions],
                "wal_cleared": self.wal_cleared}


@dataclass(frozen=True, slots=True)
class _Plan:
    """What an erasure of ``subject`` deletes (``found``) and scrubs (audit
    entry ids in ``scrub``), by which names (``names``: user id, subject, full
    names; ``listing``: those and the parts of full names)."""

    subject: str
    user: str
    names: Names
    listing: Names
    found: dict[str, set[int]]
    scrub: frozenset[int]
    touched_tokens: tuple[tokens.Token, ...]

    def mentions(self, text: str | None) -> bool:
        return self.names.find(text) is not None


def _user_of(subject: str) -> str:
    match = SUBJECT.match(subject or "")
    if match is None:
        raise InvalidInput(f"erase needs a person's subject like user:NAME, got {subject!r}")
    return match.group(1)


def _plan(conn: Connection, subject: str) -> _Plan:
    user = _user_of(subject)
    names = names_of(conn, subject, parts=False)
    listing = names_of(conn, subject, parts=True)
    found = sql.person_rows(conn, subject, user)
    scrub = frozenset(
        int(e["id"]) for e in load_entries(conn)
        if e["action"] != ERASED_ACTION  # a tombstone holds counts, ids and digests only
        and (e["subject"] == subject or names.find(e["reason"]) or names.find(e["detail"])))
    touched = tuple(t for t in tokens.listing(conn)
                    if tokens.touched_by(t, user, lambda v: names.find(v) is not None))
    return _Plan(subject, user, names, listing, found, scrub, touched)


def _skip(plan: _Plan) -> dict[str, set[int]]:
    return {"turn": plan.found["turn"], "memory": plan.found["memory"],
            "claim": plan.found["claim"], "audit": set(plan.scrub)}


def subject_mentions(conn: Connection, subject: str) -> tuple[Mention, ...]:
    """The rows of other people that name ``subject`` (``user:NAME``) and that
    an erasure of it would leave as they are (``core.mentions``): read only,
    nothing is changed. After an erasure only the user id and subject are
    still known to look for. Raises InvalidInput for another kind of subject."""
    plan = _plan(conn, subject)
    return find_mentions(conn, plan.listing, skip=_skip(plan))


def parse_refs(refs: Iterable[str]) -> tuple[tuple[str, int], ...]:
    """``turn:12`` … as (kind, id), in order, without repeats. Raises
    InvalidInput for anything else."""
    out: list[tuple[str, int]] = []
    for ref in refs:
        m = REF.match(ref.strip() if isinstance(ref, str) else "")
        if m is None:
            raise InvalidInput(f"cannot redact {ref!r}: name a row as KIND:ID, KIND one of "
                               + ", ".join(REDACTABLE))
        pair = (m.group(1), int(m.group(2)))
        if pair not in out:
            out.append(pair)
    return tuple(out)


def _redact_text(conn: Connection, kind: str, row_id: int, names: Names) -> bool:
    """Replace every name in the text of turn or memory ``row_id``; whether it changed."""
    text = sql.text_of(conn, kind, row_id)
    if text is None:
        return False
    new = names.replace(text, REDACTED)
    if new == text:
        return False
    values: dict[str, Any] = {"text": new}
    if kind == "memory":
        values["text_key"] = normalise_object(new)[:200]  # as the writer keys a memory
    sql.set_text(conn, kind, row_id, values)
    return True


def _redact(conn: Connection, plan: _Plan, asked: tuple[tuple[str, int], ...],
            listed: tuple[Mention, ...]) -> dict[str, list[int]]:
    """Redact the texts ``asked`` names (each must be listed; raises
    InvalidInput otherwise). Returns what to do, by kind: ``turn`` and
    ``memory`` ids redacted in place, ``claim`` ids to delete with the
    person's, ``audit`` ids to scrub."""
    refs = {m.ref for m in listed}
    for kind, row_id in asked:
        if f"{kind}:{row_id}" not in refs:
            raise InvalidInput(f"{kind} {row_id} is not a row of someone else's that names "
                               f"{plan.subject} (see `memdesk erase --subject {plan.subject} "
                               "--mentions`)")
    redacted: dict[str, list[int]] = {"turn": [], "memory": [], "claim": [], "audit": []}
    for kind, row_id in asked:
        if kind == "turn":
            if _redact_text(conn, "turn", row_id, plan.listing):
                redacted["turn"].append(row_id)
            for mid in sql.memories_of_turn(conn, row_id):
                if _redact_text(conn, "memory", mid, plan.listing):
                    redacted["memory"].append(mid)
        elif kind == "memory":
            if _redact_text(conn, "memory", row_id, plan.listing):
                redacted["memory"].append(row_id)
        elif kind == "audit":
            redacted["audit"].append(row_id)
        else:
            redacted["claim"].append(row_id if kind == "claim" else
                                     sql.claim_of_fact(conn, row_id))
    return {k: sorted(set(v)) for k, v in redacted.items() if v}


def _rewrite_entries(conn: Connection, entries: list[dict[str, Any]], scrub: set[int],
                     forgotten: tokens.Forgotten, plan: _Plan) -> int:
    """Scrub, or rewrite from the token rows, the audit entries that name the
    person. Returns how many entries were scrubbed."""
    changed = {t.id: t for t in forgotten.tokens}
    renamed = dict(forgotten.renamed)
    scrubbed = 0
    for e in entries:
        values: dict[str, Any] | None = None
        token = _entry_token(e)
        if token is not None and (token in changed or e["id"] in scrub):
            row = changed.get(token) or tokens.get(conn, token)
            reason, detail = tokens.erased_entry(e["action"], e["reason"], row, plan.mentions)
            values = {"subject": None, "reason": reason, "detail": detail}
        elif e["id"] in scrub:
            values = {"subject": None, "reason": None, "detail": SCRUBBED_DETAIL}
        else:
            found = tokens.renamed_in(e["reason"], e["detail"], renamed) if renamed else None
            if found is not None:
                values = {"reason": found[0], "detail": found[1]}
        if values is not None:
            sql.rewrite_entry(conn, e["id"], values)
            scrubbed += 1
    return scrubbed


def _entry_token(entry: dict[str, Any]) -> int | None:
    """The token a ``token.created`` / ``token.revoked`` entry is about."""
    if entry["action"] not in (tokens.CREATED, tokens.REVOKED):
        return None
    try:
        detail = json.loads(entry["detail"] or "{}")
    except ValueError:
        return None
    token = detail.get("token") if isinstance(detail, dict) else None
    return token if isinstance(token, int) else None


def erase_subject(batch: WriteBatch, subject: str, *, by: str,
                  redact: Iterable[str] = ()) -> ErasureReport:
    """Erase ``subject`` (``user:NAME``) inside ``batch``'s transaction (see the
    module docstring), redacting the other people's rows named in ``redact``
    (``turn:12``, ``memory:3``, ``fact:5``, ``claim:7``, ``audit:9``; each must
    be one of the rows ``subject_mentions`` lists). Raises InvalidInput for
    another kind of subject, no actor or a row that cannot be redacted,
    SubjectNotFound when the store holds nothing about it, StoreError when
    the store fails verification before the erasure."""
    _user_of(subject)
    if not by or not by.strip():
        raise InvalidInput("an erasure needs the name of who performs it")
    asked = parse_refs(redact)
    conn = batch.conn
    plan = _plan(conn, subject)
    if not any(plan.found.values()) and not plan.touched_tokens:
        raise SubjectNotFound(f"the store holds nothing about {subject}")
    report = verify_chain(conn)
    if not report.ok:
        raise StoreError(
            f"the store fails verification (first broken audit entry: {report.first_broken}); "
            "erasing now would re-commit tampered entries. Run `memdesk verify` and investigate")
    entries = load_entries(conn)
    before = Recomputer(conn, entries)
    digests = {e["id"]: before.digests(e) for e in entries}

    listed = find_mentions(conn, plan.listing, skip=_skip(plan))
    redacted = _redact(conn, plan, asked, listed)
    scrub = set(redacted.get("audit", ()))
    found = {k: set(v) for k, v in plan.found.items()}
    found["claim"] |= set(redacted.get("claim", ()))
    sql.add_claim_rows(conn, found)  # a redacted claim's facts, conflicts and memories go with it
    kept = [m for m in redacted.pop("memory", []) if m not in found["memory"]]
    if kept:  # a memory deleted with its claim is not also "redacted"
        redacted["memory"] = kept
    vectors = 0
    if sql.has_vectors(conn):
        for kind, ids in (("memory", found["memory"] | set(redacted.get("memory", ()))),
                          ("turn", found["turn"] | set(redacted.get("turn", ())))):
            vectors += sql.delete_vectors(conn, kind, ids)
    counts = {"memories": sql.delete_rows(conn, "memory", found["memory"]),
              "conflicts": sql.delete_rows(conn, "conflict", found["conflict"]),
              "facts": sql.delete_rows(conn, "fact", found["fact"])}
    # claims merged into erased ones lose the link before the claims go
    sql.unlink_merged(conn, found["claim"])
    counts["claims"] = sql.delete_rows(conn, "claim", found["claim"])
    counts["turns"] = sql.delete_rows(conn, "turn", found["turn"])

    forgotten = tokens.forget_user(batch, plan.user, by=by, mentions=plan.mentions)
    scrubbed = _rewrite_entries(conn, entries, set(plan.scrub) | scrub, forgotten, plan)
    after = Recomputer(conn, load_entries(conn))
    amended: dict[str, list[str]] = {}
    for e in after.entries:
        now = after.digests(e)
        if now != digests[e["id"]]:  # its new digests, and its hash as it stands (the chain goes on from it)
            amended[str(e["id"])] = [now[0].hex(), now[1].hex(), e["hash"]]
    sql.count_erasure(conn)
    redacted_counts = {k: len(v) for k, v in redacted.items()}
    batch.audit(by, ERASED_ACTION, reason="erasure of a person's data on request",
                detail={"counts": {**counts, "vectors": vectors, "entries_scrubbed": scrubbed,
                                   "tokens": len(forgotten.tokens), "redacted": redacted_counts},
                        "redacted": redacted, "amended": amended})
    gone = {"turn": set(redacted.get("turn", ())), "claim": found["claim"], "fact": found["fact"],
            "memory": found["memory"] | set(redacted.get("memory", ())), "audit": scrub}
    left = tuple(m for m in listed if m.id not in gone[m.kind])
    return ErasureReport(turns=counts["turns"], claims=counts["claims"], facts=counts["facts"],
                         conflicts=counts["conflicts"], memories=counts["memories"],
                         vectors=vectors, entries_scrubbed=scrubbed,
                         entries_amended=len(amended), audit_entry=batch._last_audit,
                         tokens=len(forgotten.tokens),
                         redacted=tuple([f"{k}:{i}" for k in ("turn", "memory")
                                         for i in redacted.get(k, ())]
                                        + [f"{k}:{i}" for k, i in asked if k not in ("turn", "memory")]),
                         mentions=left)


__all__ = ["REDACTABLE", "REDACTED", "ErasureReport", "erase_subject", "parse_refs",
           "subject_mentions"]
