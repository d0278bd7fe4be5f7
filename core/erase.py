"""Erasure of one person's data (the right to be forgotten).

``erase_subject`` runs inside one write transaction (a ``WriteBatch``):

1. it checks the audit chain first (``core.chain.verify``): erasing would
   re-commit the entries it touches, so a store that already fails
   verification is refused rather than laundered;
2. it deletes the person's turns (turns of conversations whose ``user`` is
   the person, and the source turns of claims about them), every claim that
   is about them or cites one of those turns, the facts, conflicts and
   memories of those claims, and the recall vectors of the deleted turns and
   memories (no fact may stand without its source turn, so facts about a
   project that only this person's turns stated go too);
3. it scrubs audit entries that name the person (their ``subject``, or the
   subject or the name in ``reason``/``detail``): those fields are cleared;
4. it appends one tombstone entry (action ``subject.erased``) with the actor,
   the time and the counts, never the name or the text, plus the new digests
   of every entry whose content or rows changed (``detail.amended``), so that
   ``verify`` still passes and shows the erasure;
5. it takes the person out of the HTTP door's tokens (``core.tokens``): a
   token bound to them alone is revoked;
6. it counts the erasure in ``store_meta.erasures``. Erasure knows nothing of
   recall's files: every recall index records the count it was built at and
   discards itself when the store's is higher (``core.recall``), and the Store
   tells the Recallers of its process at once (``Store.on_erasure``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, inspect, select, update

from .chain import AUDIT, ERASED_ACTION, Recomputer, load_entries
from .chain import verify as verify_chain
from .errors import InvalidInput, StoreError, SubjectNotFound
from .schema import RecallVectorRow
from .tokens import forget_user
from .writer import CLAIM, CONFLICT, FACT, MEMORY, META, TURN, WriteBatch, chunks

VECTOR = RecallVectorRow.__table__

SUBJECT = re.compile(r"^user:(\S.*)$")
SCRUBBED_DETAIL = json.dumps({"erased": True})


@dataclass(frozen=True, slots=True)
class ErasureReport:
    """What an erasure removed (counts only) and the tombstone's audit entry id."""

    turns: int
    claims: int
    facts: int
    conflicts: int
    memories: int
    vectors: int
    entries_scrubbed: int
    entries_amended: int
    audit_entry: int

    def to_dict(self) -> dict[str, int]:
        return {"turns": self.turns, "claims": self.claims, "facts": self.facts,
                "conflicts": self.conflicts, "memories": self.memories,
                "vectors": self.vectors, "entries_scrubbed": self.entries_scrubbed,
                "entries_amended": self.entries_amended, "audit_entry": self.audit_entry}


def _ids(conn: Any, stmt: Any) -> set[int]:
    return {int(r[0]) for r in conn.execute(stmt)}


def _in(column: Any, ids: set[int]) -> list[Any]:
    return [column.in_(part) for part in chunks(sorted(ids))]


def _collect(conn: Any, subject: str, name: str) -> dict[str, set[int]]:
    turns = _ids(conn, select(TURN.c.id).where(TURN.c.user == name))
    turns |= _ids(conn, select(CLAIM.c.turn_id).where(CLAIM.c.subject == subject))
    claims = _ids(conn, select(CLAIM.c.id).where(CLAIM.c.subject == subject))
    for cond in _in(CLAIM.c.turn_id, turns):
        claims |= _ids(conn, select(CLAIM.c.id).where(cond))
    facts = _ids(conn, select(FACT.c.id).where(FACT.c.subject == subject))
    for cond in _in(FACT.c.claim_id, claims):
        facts |= _ids(conn, select(FACT.c.id).where(cond))
    conflicts = _ids(conn, select(CONFLICT.c.id).where(CONFLICT.c.subject == subject))
    for cond in _in(CONFLICT.c.claim_id, claims):
        conflicts |= _ids(conn, select(CONFLICT.c.id).where(cond))
    memories = _ids(conn, select(MEMORY.c.id).where(MEMORY.c.subject == subject))
    for cond in _in(MEMORY.c.claim_id, claims):
        memories |= _ids(conn, select(MEMORY.c.id).where(cond))
    for cond in _in(MEMORY.c.turn_id, turns):
        memories |= _ids(conn, select(MEMORY.c.id).where(cond))
    return {"turn": turns, "claim": claims, "fact": facts, "conflict": conflicts,
            "memory": memories}


def _delete(conn: Any, table: Any, ids: set[int]) -> int:
    done = 0
    for cond in _in(table.c.id, ids):
        done += conn.execute(delete(table).where(cond)).rowcount
    return done


def _mentions(text: str | None, subject: str, word: re.Pattern[str]) -> bool:
    return text is not None and (subject in text or bool(word.search(text)))


def erase_subject(batch: WriteBatch, subject: str, *, by: str) -> ErasureReport:
    """Erase ``subject`` (``user:NAME``) inside ``batch``'s transaction (see the
    module docstring). Raises InvalidInput for another kind of subject or no
    actor, SubjectNotFound when the store holds nothing about it, StoreError
    when the store fails verification before the erasure."""
    match = SUBJECT.match(subject or "")
    if match is None:
        raise InvalidInput(f"erase needs a person's subject like user:NAME, got {subject!r}")
    if not by or not by.strip():
        raise InvalidInput("an erasure needs the name of who performs it")
    name = match.group(1)
    conn = batch.conn
    found = _collect(conn, subject, name)
    if not any(found.values()):
        raise SubjectNotFound(f"the store holds nothing about {subject}")
    report = verify_chain(conn)
    if not report.ok:
        raise StoreError(
            f"the store fails verification (first broken audit entry: {report.first_broken}); "
            "erasing now would re-commit tampered entries. Run `memdesk verify` and investigate")
    entries = load_entries(conn)
    before = Recomputer(conn, entries)
    digests = {e["id"]: before.digests(e) for e in entries}

    vectors = 0
    if "recall_vector" in inspect(conn).get_table_names():
        for kind, ids in (("memory", found["memory"]), ("turn", found["turn"])):
            for cond in _in(VECTOR.c.item_id, ids):
                vectors += conn.execute(
                    delete(VECTOR).where(VECTOR.c.kind == kind, cond)).rowcount
    counts = {"memories": _delete(conn, MEMORY, found["memory"]),
              "conflicts": _delete(conn, CONFLICT, found["conflict"]),
              "facts": _delete(conn, FACT, found["fact"])}
    # claims merged into erased ones lose the link before the claims go
    for cond in _in(CLAIM.c.merged_into, found["claim"]):
        conn.execute(update(CLAIM).where(cond).values(merged_into=None))
    counts["claims"] = _delete(conn, CLAIM, found["claim"])
    counts["turns"] = _delete(conn, TURN, found["turn"])

    word = re.compile(rf"(?<![\w]){re.escape(name)}(?![\w])", re.IGNORECASE)
    tokens_changed = forget_user(batch, name, by=by,
                                 mentions=lambda text: _mentions(text, subject, word))
    scrubbed = 0
    for e in entries:
        if (e["subject"] == subject or _mentions(e["reason"], subject, word)
                or _mentions(e["detail"], subject, word)):
            conn.execute(update(AUDIT).where(AUDIT.c.id == e["id"]).values(
                subject=None, reason=None, detail=SCRUBBED_DETAIL))
            scrubbed += 1
    after = Recomputer(conn, load_entries(conn))
    amended: dict[str, list[str]] = {}
    for e in after.entries:
        now = after.digests(e)
        if now != digests[e["id"]]:  # its new digests, and its hash as it stands (the chain goes on from it)
            amended[str(e["id"])] = [now[0].hex(), now[1].hex(), e["hash"]]
    conn.execute(update(META).where(META.c.id == 1).values(erasures=META.c.erasures + 1))
    batch.audit(by, ERASED_ACTION, reason="erasure of a person's data on request",
                detail={"counts": {**counts, "vectors": vectors,
                                   "entries_scrubbed": scrubbed, "tokens": tokens_changed},
                        "amended": amended})
    return ErasureReport(turns=counts["turns"], claims=counts["claims"], facts=counts["facts"],
                         conflicts=counts["conflicts"], memories=counts["memories"],
                         vectors=vectors, entries_scrubbed=scrubbed,
                         entries_amended=len(amended), audit_entry=batch._last_audit)


__all__ = ["ErasureReport", "erase_subject"]
