"""What in the store names a person outside the rows that are theirs.

An erasure (``core.erase``) deletes a person's own rows. Other people's rows
may still name them: bob's turn "my colleague Alice is allergic to peanuts",
the memory made of it, the fact ``person:bob/colleague name Alice`` and the
facts of that subject. Those rows are someone else's data, so an erasure
never changes them on its own: this module finds them, for a person to read
and decide (``memdesk erase --mentions``), and ``core.erase`` redacts the ones
that person names (``--redact KIND:ID``).

``Names`` is what names a person: their subject (``user:alice``), their user
id and the names the store knows for them (the objects of their ``name``
claims, in any state). ``names_of`` reads them (before an erasure: the
erasure deletes the claims they come from). ``find_mentions`` lists the rows
that contain one.

Matching: a name is found case-insensitively as a whole word (``Alice`` in
"my colleague Alice", not in "Alicetown"); a name with a CJK character is
found anywhere in the text (CJK text has no spaces between words). The
database narrows the rows first (``ILIKE``; on SQLite its case folding is
ASCII-only, so "ÉLODIE" is not found by "Élodie"), then every candidate is
checked in Python.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .db import Connection
from .db import mentions as sql

NAME_PREDICATE = "name"
SNIPPET = 100  # characters of context a listed mention shows
MIN_PART = 2  # a part of a full name shorter than this is not looked for alone


def _cjk(text: str) -> bool:
    return any("CJK" in unicodedata.name(c, "") or "\u3040" <= c <= "\u30ff" for c in text)


def _piece(name: str) -> str:
    """The pattern of one name: anywhere for CJK, else as a whole word."""
    escaped = re.escape(name)
    return escaped if _cjk(name) else rf"(?<!\w){escaped}(?!\w)"


@dataclass(frozen=True, slots=True)
class Names:
    """What names one person: ``subject`` (found as written) and ``names``
    (found as words, case-insensitively), longest first. Build with ``of``."""

    subject: str
    names: tuple[str, ...]
    pattern: re.Pattern[str] = field(repr=False, compare=False)

    @classmethod
    def of(cls, subject: str, names: Iterable[str]) -> Names:
        kept = sorted({" ".join(n.split()) for n in names if n and n.strip()},
                      key=lambda n: (-len(n), n))
        pieces = [re.escape(subject)] + [_piece(n) for n in kept]
        return cls(subject, tuple(kept), re.compile("|".join(pieces), re.IGNORECASE))

    def find(self, text: str | None) -> str | None:
        """The first name found in ``text`` (as written there), or None."""
        if not text:
            return None
        m = self.pattern.search(text)
        return m.group(0) if m else None

    def replace(self, text: str, placeholder: str) -> str:
        """``text`` with every name in it replaced by ``placeholder``."""
        return self.pattern.sub(placeholder, text)

    def likes(self) -> list[str]:
        """The ILIKE patterns that narrow the rows to read (a superset)."""
        out = []
        for n in (self.subject, *self.names):
            out.append("%" + n.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%")
        return out


def _user(subject: str) -> str:
    return subject.split(":", 1)[1] if subject.startswith("user:") else subject


def names_of(conn: Connection, subject: str, *, parts: bool) -> Names:
    """The names of ``subject`` (``user:NAME``) the store knows: the user id and
    the objects of the subject's ``name`` claims (pending, rejected and
    retired ones too: each was said of them). With ``parts`` each word of a
    full name is looked for too (others say "Alice" of "Alice Martin"); a
    CJK name is kept whole."""
    full = {str(o) for o in sql.claimed_objects(conn, subject, NAME_PREDICATE)}
    found = {_user(subject), *full}
    if parts:
        for name in full:
            if not _cjk(name):
                found.update(p for p in name.split() if len(p) >= MIN_PART)
    return Names.of(subject, found)


@dataclass(frozen=True, slots=True)
class Mention:
    """One row of someone else's that names the person: ``kind`` (``turn``,
    ``memory``, ``fact``, ``claim`` (a candidate without a fact row) or
    ``audit``) and its ``id``; ``owner`` (the user of a turn, the subject of
    a memory, fact or claim); ``name`` (what was found, as written);
    ``where`` (the column, or why a fact of another subject is listed);
    ``snippet`` (the text around it, on one line, control characters escaped)."""

    kind: str
    id: int
    owner: str
    name: str
    where: str
    snippet: str

    @property
    def ref(self) -> str:
        """``turn:12``: how ``--redact`` names it."""
        return f"{self.kind}:{self.id}"

    def to_dict(self) -> dict[str, Any]:
        return {"ref": self.ref, "kind": self.kind, "id": self.id, "owner": self.owner,
                "name": self.name, "where": self.where, "snippet": self.snippet}


def _escape(text: str) -> str:
    text = " ".join(text.split())
    return "".join(c if unicodedata.category(c) not in ("Cc", "Cf", "Cs") else
                   f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}" for c in text)


def _snippet(text: str, found: str) -> str:
    flat = " ".join(text.split())
    at = flat.lower().find(found.lower())
    start = max(0, at - SNIPPET // 2) if at >= 0 else 0
    piece = flat[start:start + SNIPPET]
    return _escape(("…" if start else "") + piece + ("…" if start + SNIPPET < len(flat) else ""))


def _turns(conn: Connection, names: Names, skip: set[int]) -> Iterator[Mention]:
    for tid, user, session, text in sql.turns_like(conn, names.likes()):
        found = names.find(text)
        if found and tid not in skip:
            owner = f"user:{user}" if user else f"session {session}"
            yield Mention("turn", int(tid), owner, found, "text", _snippet(text, found))


def _memories(conn: Connection, names: Names, skip: set[int]) -> Iterator[Mention]:
    for mid, subject, text in sql.memories_like(conn, names.likes()):
        found = names.find(text)
        if found and mid not in skip:
            yield Mention("memory", int(mid), str(subject), found, "text", _snippet(text, found))


def _claims(conn: Connection, names: Names, skip: set[int]) -> Iterator[Mention]:
    """Facts (or candidates) whose object or value names the person, then
    every fact of a subject that is *named* like the person (its ``name``
    claim does): ``person:bob/colleague`` of "my colleague Alice"."""
    named: dict[str, str] = {}
    listed: set[int] = set()
    for cid, subject, predicate, obj, value in sql.claims_like(conn, names.likes()):
        hit = _first_hit(names, (("object", obj), ("value", value)))
        if cid in skip or hit is None:
            continue
        where, found, text = hit
        if predicate == NAME_PREDICATE and where == "object":
            named.setdefault(str(subject), found)
        listed.add(int(cid))
        yield from _claim_mentions(conn, int(cid), str(subject), found,
                                   f"{predicate} {where}", text)
    for subject, found in named.items():
        for cid, predicate, obj in sql.claims_of(conn, subject):
            if cid in skip or cid in listed:
                continue
            listed.add(int(cid))
            yield from _claim_mentions(conn, int(cid), subject, found,
                                       f"{predicate}: its subject is named {found}",
                                       f"{subject} {predicate} {obj}")


def _first_hit(names: Names, columns: Iterable[tuple[str, str | None]]
               ) -> tuple[str, str, str] | None:
    """(column, name found, its text) of the first column that names the person."""
    for where, text in columns:
        found = names.find(text)
        if found and text is not None:
            return where, found, text
    return None


def _claim_mentions(conn: Connection, cid: int, subject: str, found: str, where: str,
                    text: str) -> Iterator[Mention]:
    facts = sql.fact_ids_of_claim(conn, cid)
    for fid in facts:
        yield Mention("fact", fid, subject, found, where, _snippet(text, found))
    if not facts:
        yield Mention("claim", cid, subject, found, where, _snippet(text, found))


def _audit(conn: Connection, names: Names, skip: set[int]) -> Iterator[Mention]:
    for aid, action, subject, reason, detail in sql.entries_like(conn, names.likes()):
        hit = _first_hit(names, (("subject", subject), ("reason", reason), ("detail", detail)))
        if aid in skip or hit is None:
            continue
        where, found, text = hit
        if where == "detail":  # JSON escapes non-ASCII: show it as written
            text = json.dumps(json.loads(text or "{}"), ensure_ascii=False)
        yield Mention("audit", int(aid), str(action), found, where, _snippet(text, found))


def find_mentions(conn: Connection, names: Names, *,
                  skip: dict[str, set[int]] | None = None) -> tuple[Mention, ...]:
    """Every row that names the person (see the module docstring), turns
    first, then memories, facts and candidates, then audit entries; rows in
    ``skip`` (``{"turn": ids, "memory": ids, "claim": ids, "audit": ids}``:
    the person's own, which an erasure deletes or scrubs) are left out."""
    skip = skip or {}
    return (*_turns(conn, names, skip.get("turn", set())),
            *_memories(conn, names, skip.get("memory", set())),
            *_claims(conn, names, skip.get("claim", set())),
            *_audit(conn, names, skip.get("audit", set())))


__all__ = ["Mention", "Names", "find_mentions", "names_of"]
