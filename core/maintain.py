"""Scheduled maintenance (docs/DESIGN.md §3.10): fold near-duplicate memories,
archive stale ones, expire facts whose TTL ran out.

The planning half is pure, like ``core.bitemporal`` and ``core.gates``:
``plan_maintenance`` takes the rows it needs (memories with their fact
lineage, facts whose TTL ran out, the facts open conflicts hold) and returns
a frozen ``MaintenancePlan``. The thin half reads those rows (``gather``)
and carries a plan out inside one ``WriteBatch`` (``carry_out``), which holds
the store's write lock, so maintenance is safe while other processes write.

The three actions:

* **merge** — two live memories of one subject are near duplicates when they
  stand for the same fact lineage (the claim whose facts they came from, or
  the claim a merged restatement was counted into: the same value over the
  same history, never merely similar words for different values) *and* their
  texts are nearly the same: equal after NFKC, case folding and dropping
  punctuation, symbols and spaces, or sharing at least ``similarity`` (0.8)
  of their character n-grams (Jaccard over ``core.lang.text.grams``:
  bigrams of Chinese runs, words and trigrams of Latin ones). The most
  mentioned one (then the oldest) survives and takes the sum of the
  mentions; the others stay as rows, archived with reason ``merged into N``
  and ``merged_into`` = N, so every source turn stays reachable.
  Candidates are found per (subject, lineage) block with an n-gram prefix
  filter, never by comparing all pairs.
* **archive** — a memory is stale when every fact row of its lineage stopped
  holding longer than ``older_than`` ago: a retired row at its retirement
  (superseded, corrected, retracted) or, for a row retired because it
  expired, at its expiry; a row still believed at the end of its valid time
  or at its expiry, whichever is first. A row open and without expiry holds,
  and so does the memory. Stale memories are kept and marked (``archived_at``,
  ``archive_reason``) and recall leaves them out unless asked for. A stale
  memory whose lineage holds again (an undone decision restored its fact),
  or a folded one whose survivor is gone (erased), is **restored**.
* **expire** — a fact in current belief whose ``expires_at`` has passed and
  whose valid time still runs past it is retired with reason ``expired``
  and, like an evolution, a copy of it is inserted closed at ``expires_at``:
  as-of answers before the expiry stay as they were, current belief and the
  conflict gate no longer see the value after it, and nothing is deleted.
  A fact an open conflict holds is left for the reviewer (reported as held).

Everything is judged at the store's clock (``Store.now()``). A run that
changes nothing writes nothing (no audit entry); one that changes something
writes one ``store.maintained`` entry whose ``detail`` records every change
by id (memories folded into which, mention counts before and after, archived
and restored ids with reasons, facts expired and their closed copies), since
the memory columns maintenance sets are outside the memory row hash
(``core.chain.MEMORY_MUTABLE``). Running it again right after does nothing.
"""

from __future__ import annotations

import json
import math
import re
import time
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, NamedTuple

from sqlalchemy import Connection, bindparam, func, null, select, update

from .axes import KNOWN_UNTIL
from .bitemporal import copy_until
from .errors import InvalidInput, StoreError
from .lang.text import grams
from .records import Fact
from .schema import CLAIM, CONFLICT, FACT, MEMORY, TURN
from .timeutil import iso
from .writer import WriteBatch, chunks, execute_many, fact_from_row

ACTION = "store.maintained"
DEFAULT_ACTOR = "maintain"
DEFAULT_OLDER_THAN = "90d"
DEFAULT_SIMILARITY = 0.8
MERGED_PREFIX = "merged into "
STALE_PREFIX = "stale: "

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 7 * 86_400}
_AGE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$", re.IGNORECASE)
_US = 1_000_000
MAX_AGE_DAYS = 3_652_059  # the calendar's whole span (years 1 to 9999): any older is no time


def parse_age(value: str | int | timedelta) -> int:
    """An age in microseconds from ``90d``, ``12h``, ``30m``, ``45s``, ``2w``
    (or ``0``), a timedelta, or an int already in microseconds.
    Raises InvalidInput for anything else, a negative age, or one longer than
    the calendar (MAX_AGE_DAYS)."""
    if isinstance(value, timedelta):
        us = int(value.total_seconds() * _US)
    elif isinstance(value, bool):
        raise InvalidInput(f"not an age: {value!r}")
    elif isinstance(value, int):
        us = value
    else:
        text = str(value).strip()
        if text == "0":
            return 0
        m = _AGE.match(text)
        if m is None:
            raise InvalidInput(f"not an age: {value!r} (use a number and a unit: "
                               "90d, 12h, 30m, 45s or 2w)")
        us = int(float(m.group(1)) * _UNITS[m.group(2).lower()] * _US)
    if us < 0:
        raise InvalidInput(f"an age cannot be negative: {value!r}")
    if us > MAX_AGE_DAYS * _UNITS["d"] * _US:
        raise InvalidInput(f"an age can be at most {MAX_AGE_DAYS}d (the calendar's whole span), "
                           f"got {value!r}")
    return us


def age_text(us: int) -> str:
    """An age as ``parse_age`` reads it, in the largest whole unit."""
    seconds = us // _US
    if us % _US == 0:
        for unit in ("w", "d", "h", "m"):
            if seconds and seconds % _UNITS[unit] == 0:
                return f"{seconds // _UNITS[unit]}{unit}"
    return f"{us / _US:g}s"


_NOT_WORD = re.compile(r"[\W_]+")


def near_key(text: str) -> str:
    """A memory text with NFKC, case folding, and everything but letters and
    digits (punctuation, symbols, spaces) dropped: texts equal under this key
    are duplicates whatever their n-grams say."""
    return _NOT_WORD.sub("", unicodedata.normalize("NFKC", text).casefold())


def jaccard(a: frozenset[str] | set[str], b: frozenset[str] | set[str]) -> float:
    """Shared share of two gram sets (0 for two empty sets)."""
    union = len(a | b)
    return len(a & b) / union if union else 0.0


# ------------------------------------------------------------------- inputs
class MemoryItem(NamedTuple):
    """A memory as maintenance sees it. ``lineages`` are the fact lineages it
    stands for (each named by the claim whose facts they are): those of the
    claims that counted a mention on it (see ``link_lineages``)."""

    id: int
    subject: str
    text: str
    mentions: int
    created_at: int
    archived_at: int | None = None
    archive_reason: str | None = None
    merged_into: int | None = None
    lineages: tuple[int, ...] = ()


class StoredMemory(NamedTuple):
    """A stored memory with its own claim's lineage and its source turn's text."""

    id: int
    subject: str
    text: str
    mentions: int
    created_at: int
    archived_at: int | None
    archive_reason: str | None
    merged_into: int | None
    lineage: int
    turn_text: str


class ClaimLink(NamedTuple):
    """A claim that took effect for a predicate routed to memories: whose,
    its lineage, when it was written (by the store's clock), the text of its
    turn, and when that was said (the told axis, as ``memory.created_at``)."""

    subject: str
    lineage: int
    created_at: int
    turn_text: str
    told: int


def link_lineages(memories: Iterable[StoredMemory], claims: Iterable[ClaimLink]) -> list[MemoryItem]:
    """Which fact lineages each memory stands for.

    A memory text is a whole turn, and every claim of that turn (or of a later
    turn with the same words) that took effect counted a mention on it at
    write time (``WriteBatch.remember``): "住在徐家汇，对花生过敏" stands for
    lives_in and allergy alike, and is not stale while the allergy holds. So a
    claim links to the memory of its subject whose source turn has the same
    words (whitespace collapsed, case folded) that was written at or before
    it and was not archived as stale before it, the latest such; and through
    ``merged_into`` to the memory it was folded into. A memory always stands
    for its own claim's lineage."""
    rows = sorted(memories, key=lambda m: m.id)
    by_id = {m.id: m for m in rows}
    by_words: dict[tuple[str, str], list[StoredMemory]] = defaultdict(list)
    for m in rows:
        by_words[(m.subject, " ".join(m.turn_text.split()).casefold())].append(m)
    linked: dict[int, set[int]] = {m.id: {m.lineage} for m in rows}
    for c in claims:
        found = None
        for m in by_words.get((c.subject, " ".join(c.turn_text.split()).casefold()), ()):
            if m.created_at > c.told:  # both on the told axis
                continue
            if m.archived_at is not None and m.merged_into is None and m.archived_at <= c.created_at:
                continue  # archived as stale before this claim: the claim made a new memory
            if found is None or (m.created_at, m.id) > (found.created_at, found.id):
                found = m
        if found is None:
            continue
        seen = {found.id}
        while found.merged_into is not None and found.merged_into in by_id \
                and found.merged_into not in seen:
            found = by_id[found.merged_into]
            seen.add(found.id)
        linked[found.id].add(c.lineage)
    # a survivor stands for what the memories folded into it stood for
    for m in rows:
        target, seen = m, {m.id}
        while target.merged_into is not None and target.merged_into in by_id \
                and target.merged_into not in seen:
            target = by_id[target.merged_into]
            seen.add(target.id)
        if target is not m:
            linked[target.id] |= linked[m.id]
    return [MemoryItem(m.id, m.subject, m.text, m.mentions, m.created_at, m.archived_at,
                       m.archive_reason, m.merged_into, tuple(sorted(linked[m.id])))
            for m in rows]


class LineageFact(NamedTuple):
    """What staleness needs of one fact row of a lineage."""

    claim_id: int
    id: int
    retired_at: int | None  # when it stopped being believed, as told (core.axes.KNOWN_UNTIL)
    retire_reason: str | None
    valid_to: int | None
    expires_at: int | None


# -------------------------------------------------------------------- plan
@dataclass(frozen=True, slots=True)
class Merge:
    """Memories ``folded`` become archived copies merged into ``into``, whose
    mention count goes from ``mentions[0]`` to ``mentions[1]``."""

    into: int
    folded: tuple[int, ...]
    mentions: tuple[int, int]
    subject: str
    text: str

    def detail(self) -> dict[str, Any]:
        return {"into": self.into, "folded": list(self.folded), "mentions": list(self.mentions)}

    def to_dict(self) -> dict[str, Any]:
        return {**self.detail(), "subject": self.subject, "text": self.text}


@dataclass(frozen=True, slots=True)
class Archive:
    """A stale memory: its lineage stopped holding at ``since`` (``why``)."""

    memory: int
    reason: str
    since: int
    subject: str
    text: str

    def detail(self) -> dict[str, Any]:
        return {"memory": self.memory, "reason": self.reason}

    def to_dict(self) -> dict[str, Any]:
        return {**self.detail(), "since": iso(self.since), "subject": self.subject,
                "text": self.text}


@dataclass(frozen=True, slots=True)
class Restore:
    """An archived memory that comes back: ``was`` its archive reason."""

    memory: int
    was: str
    why: str
    subject: str
    text: str

    def detail(self) -> dict[str, Any]:
        return {"memory": self.memory, "was": self.was, "why": self.why}

    def to_dict(self) -> dict[str, Any]:
        return {**self.detail(), "subject": self.subject, "text": self.text}


@dataclass(frozen=True, slots=True)
class Expiry:
    """A fact whose TTL ran out: retired as ``expired``, copied closed at its expiry."""

    fact: Fact

    def detail(self, copy: int | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {"fact": self.fact.id, "expires_at": iso(self.fact.expires_at)}
        if copy is not None:
            out["copy"] = copy
        return out

    def to_dict(self, copy: int | None = None) -> dict[str, Any]:
        f = self.fact
        return {**self.detail(copy), "subject": f.subject, "predicate": f.predicate,
                "object": f.object}


@dataclass(frozen=True, slots=True)
class Held:
    """A fact whose TTL ran out, left alone because an open conflict holds it."""

    fact: Fact
    conflict: int

    def to_dict(self) -> dict[str, Any]:
        f = self.fact
        return {"fact": f.id, "conflict": self.conflict, "expires_at": iso(f.expires_at),
                "subject": f.subject, "predicate": f.predicate, "object": f.object}


@dataclass(frozen=True, slots=True)
class MaintenancePlan:
    """What one maintenance run does, judged at ``now``."""

    now: int
    older_than: int
    similarity: float
    merges: tuple[Merge, ...] = ()
    archives: tuple[Archive, ...] = ()
    restores: tuple[Restore, ...] = ()
    expiries: tuple[Expiry, ...] = ()
    held: tuple[Held, ...] = ()
    scanned: Mapping[str, int] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        """Nothing to change (facts held for a conflict change nothing)."""
        return not (self.merges or self.archives or self.restores or self.expiries)

    def counts(self) -> dict[str, int]:
        return {"merged": sum(len(m.folded) for m in self.merges),
                "merge_groups": len(self.merges), "archived": len(self.archives),
                "restored": len(self.restores), "expired": len(self.expiries),
                "held": len(self.held)}


def lineage_end(rows: Iterable[LineageFact]) -> tuple[int, str] | None:
    """When every row of a fact lineage had stopped holding, and how the one
    that held last stopped (superseded, corrected, retracted, expired); None
    while a row still holds (open, no expiry) or when no row is known."""
    end: tuple[int, str] | None = None
    seen = False
    for r in rows:
        seen = True
        if r.retired_at is None:
            ends = [t for t in (r.valid_to, r.expires_at) if t is not None]
            if not ends:
                return None
            t = min(ends)
            how = "expired" if r.expires_at is not None and r.expires_at <= t else "superseded"
        elif r.retire_reason == "expired":
            t, how = (r.expires_at if r.expires_at is not None else r.retired_at), "expired"
        else:
            t, how = r.retired_at, r.retire_reason or "superseded"
        if end is None or t > end[0]:
            end = (t, how)
    return end if seen else None


def _stale_reason(how: str, since: int) -> str:
    return f"{STALE_PREFIX}{how} since {(iso(since) or '')[:10]}"


def _snippet(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[:width - 1] + "…"


def _prefix_length(size: int, threshold: float) -> int:
    """How many of a set's rarest grams two sets with Jaccard >= threshold
    must share one of (prefix filtering)."""
    return size - math.ceil(threshold * size - 1e-9) + 1


def cluster(items: Sequence[MemoryItem], threshold: float) -> list[tuple[MemoryItem, list[MemoryItem]]]:
    """Near-duplicate groups of one block of memories (same subject and
    lineage), greedily: in preference order (most mentions, oldest, lowest
    id) each memory joins the first survivor it duplicates, else becomes one.
    A memory is compared with a survivor only when they share one of their
    rarest grams, which every pair at the threshold does, so a block costs
    about one lookup per memory rather than one comparison per pair."""
    ordered = sorted(items, key=lambda m: (-m.mentions, m.created_at, m.id))
    keys = [near_key(m.text) for m in ordered]
    if len(set(keys)) == 1:  # the usual block: the same words, punctuated or spaced apart
        return [(ordered[0], list(ordered[1:]))]
    gram_sets = {m.id: frozenset(grams(m.text, drop_stopwords=False)) for m in ordered}
    freq = Counter(g for s in gram_sets.values() for g in s)
    survivors: list[tuple[MemoryItem, list[MemoryItem]]] = []
    by_key: dict[str, int] = {}
    by_gram: dict[str, list[int]] = defaultdict(list)
    for m, key in zip(ordered, keys, strict=True):
        found = by_key.get(key)
        mine = gram_sets[m.id]
        rare = sorted(mine, key=lambda g: (freq[g], g))[:_prefix_length(len(mine), threshold)]
        if found is None and mine:
            candidates = sorted({i for g in rare for i in by_gram.get(g, ())})
            for i in candidates:
                theirs = gram_sets[survivors[i][0].id]
                small, large = sorted((len(mine), len(theirs)))
                if small >= threshold * large - 1e-9 and jaccard(mine, theirs) >= threshold:
                    found = i
                    break
        if found is not None:
            survivors[found][1].append(m)
            continue
        index = len(survivors)
        survivors.append((m, []))
        by_key.setdefault(key, index)
        for g in rare:
            by_gram[g].append(index)
    return survivors


def plan_maintenance(memories: Iterable[MemoryItem], lineages: Iterable[LineageFact],
                     expiring: Iterable[Fact], conflict_facts: Mapping[int, int], *,
                     now: int, older_than: int, similarity: float = DEFAULT_SIMILARITY
                     ) -> MaintenancePlan:
    """The plan of one run (see the module docstring).

    ``memories``: every memory in scope, archived ones too; ``lineages``: the
    fact rows of their lineages; ``expiring``: facts in current belief that
    may have run out of TTL (re-checked here); ``conflict_facts``: fact id →
    the open conflict holding it. Pure: no database, no clock."""
    if not 0.0 < similarity <= 1.0:
        raise InvalidInput(f"similarity must be above 0 and at most 1, got {similarity}")
    if older_than < 0:
        raise InvalidInput("older_than cannot be negative")
    items = sorted(memories, key=lambda m: m.id)
    by_id = {m.id: m for m in items}
    rows: dict[int, list[LineageFact]] = defaultdict(list)
    n_facts = 0
    for r in lineages:
        rows[r.claim_id].append(r)
        n_facts += 1
    ends = {lid: lineage_end(rs) for lid, rs in rows.items()}  # only lineages with rows

    restores: list[Restore] = []
    archives: list[Archive] = []
    live: list[MemoryItem] = []
    for m in items:
        known = [ends[lid] for lid in m.lineages if lid in ends]
        holds = any(e is None for e in known)
        ended = [e for e in known if e is not None]
        end = max(ended) if ended and not holds else None
        if m.archived_at is not None:
            if m.merged_into is not None and m.merged_into not in by_id:
                why = f"memory {m.merged_into} it was merged into is gone"
            elif m.merged_into is None and holds:
                why = "its facts hold again"
            else:
                continue  # stays archived
            restores.append(Restore(m.id, m.archive_reason or "", why, m.subject,
                                    _snippet(m.text)))
        if end is not None and now - end[0] >= older_than:
            archives.append(Archive(m.id, _stale_reason(end[1], end[0]), end[0], m.subject,
                                    _snippet(m.text)))
            continue
        live.append(m)

    # near duplicates only among memories that stand for the same lineages
    blocks: dict[tuple[str, tuple[int, ...]], list[MemoryItem]] = defaultdict(list)
    for m in live:
        blocks[(m.subject, m.lineages)].append(m)
    merges: list[Merge] = []
    for key in sorted(blocks):
        block = blocks[key]
        if len(block) < 2:
            continue
        for survivor, folded in cluster(block, similarity):
            if folded:
                total = survivor.mentions + sum(f.mentions for f in folded)
                merges.append(Merge(survivor.id, tuple(sorted(f.id for f in folded)),
                                    (survivor.mentions, total), survivor.subject,
                                    _snippet(survivor.text)))
    merges.sort(key=lambda x: x.into)

    expiries: list[Expiry] = []
    held: list[Held] = []
    n_expiring = 0
    for f in sorted(expiring, key=lambda f: f.id):
        n_expiring += 1
        if (f.retired_at is not None or f.expires_at is None or f.expires_at > now
                or (f.valid_to is not None and f.valid_to <= f.expires_at)):
            continue
        conflict = conflict_facts.get(f.id)
        if conflict is not None:
            held.append(Held(f, conflict))
        else:
            expiries.append(Expiry(f))
    return MaintenancePlan(
        now=now, older_than=older_than, similarity=similarity, merges=tuple(merges),
        archives=tuple(archives), restores=tuple(restores), expiries=tuple(expiries),
        held=tuple(held), scanned={"memories": len(items), "lineage_facts": n_facts,
                                   "expiring_facts": n_expiring})


# ------------------------------------------------------------------ report
@dataclass(frozen=True, slots=True)
class MaintenanceReport:
    """What a run did (or, with ``dry_run``, would do). ``audit_entry`` is the
    id of its ``store.maintained`` entry (None: dry run, or nothing to do);
    ``copies`` maps each expired fact to the closed copy that replaced it."""

    plan: MaintenancePlan
    dry_run: bool
    audit_entry: int | None = None
    at: int | None = None
    actor: str = DEFAULT_ACTOR
    subject: str | None = None
    copies: Mapping[int, int] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def changed(self) -> bool:
        return not self.dry_run and not self.plan.empty

    def to_dict(self) -> dict[str, Any]:
        p = self.plan
        return {
            "dry_run": self.dry_run, "changed": self.changed, "judged_at": iso(p.now),
            "at": iso(self.at), "actor": self.actor, "subject": self.subject,
            "older_than": age_text(p.older_than), "similarity": p.similarity,
            "scanned": dict(p.scanned), "counts": p.counts(),
            "merged": [m.to_dict() for m in p.merges],
            "archived": [a.to_dict() for a in p.archives],
            "restored": [r.to_dict() for r in p.restores],
            "expired": [e.to_dict(self.copies.get(e.fact.id)) for e in p.expiries],
            "held": [h.to_dict() for h in p.held],
            "audit_entry": self.audit_entry, "seconds": round(self.seconds, 3),
        }


def entry_detail(plan: MaintenancePlan, copies: Mapping[int, int]) -> dict[str, Any]:
    """The audit entry's ``detail``: every change by id, with the settings it
    was judged by. Names no subject and quotes no text (an erasure scrubs
    entries that name a person; this one stays readable for everyone else)."""
    return {
        "judged_at": iso(plan.now), "older_than": age_text(plan.older_than),
        "similarity": plan.similarity, "counts": plan.counts(),
        "merged": [m.detail() for m in plan.merges],
        "archived": [a.detail() for a in plan.archives],
        "restored": [r.detail() for r in plan.restores],
        "expired": [e.detail(copies.get(e.fact.id)) for e in plan.expiries],
        "held": [{"fact": h.fact.id, "conflict": h.conflict} for h in plan.held],
    }


# ---------------------------------------------------------- reads and writes
def gather(conn: Connection, *, now: int, routed: Iterable[str] = (),
           subject: str | None = None
           ) -> tuple[list[MemoryItem], list[LineageFact], list[Fact], dict[int, int]]:
    """The rows ``plan_maintenance`` needs, read on ``conn`` (under the write
    lock for a real run, so they cannot change before the plan is carried
    out). ``routed``: the predicates the catalog routes to memories."""
    lineage = func.coalesce(CLAIM.c.merged_into, CLAIM.c.id)
    mem = (select(MEMORY.c.id, MEMORY.c.subject, MEMORY.c.text, MEMORY.c.mentions,
                  MEMORY.c.created_at, MEMORY.c.archived_at, MEMORY.c.archive_reason,
                  MEMORY.c.merged_into, lineage, TURN.c.text)
           .join(CLAIM, CLAIM.c.id == MEMORY.c.claim_id)
           .join(TURN, TURN.c.id == MEMORY.c.turn_id).order_by(MEMORY.c.id))
    if subject is not None:
        mem = mem.where(MEMORY.c.subject == subject)
    memory_rows = [StoredMemory._make(r) for r in conn.execute(mem).all()]
    predicates = set(routed)
    predicates.update(p for (p,) in conn.execute(
        select(MEMORY.c.predicate).distinct().where(MEMORY.c.predicate.is_not(None))))
    predicates_in = sorted(predicates)
    links: list[ClaimLink] = []
    lineages: list[LineageFact] = []
    if memory_rows and predicates_in:
        claims = (select(CLAIM.c.subject, lineage, CLAIM.c.created_at, TURN.c.text, TURN.c.time)
                  .join(TURN, TURN.c.id == CLAIM.c.turn_id)
                  .where(CLAIM.c.state.in_(("asserted", "merged")),
                         CLAIM.c.predicate.in_(predicates_in)))
        # when a row stopped being believed, on the told axis (a backfilled
        # conversation's old values are stale by what was said, not by when
        # the store was given it)
        facts = select(FACT.c.claim_id, FACT.c.id, KNOWN_UNTIL.label("retired_at"),
                       FACT.c.retire_reason, FACT.c.valid_to, FACT.c.expires_at
                       ).where(FACT.c.predicate.in_(predicates_in))
        if subject is not None:
            claims = claims.where(CLAIM.c.subject == subject)
            facts = facts.where(FACT.c.subject == subject)
        links = [ClaimLink._make(r) for r in conn.execute(claims).all()]
        lineages = [LineageFact._make(r) for r in conn.execute(facts).all()]
    expiring = select(*FACT.c).where(
        FACT.c.retired_at.is_(None), FACT.c.expires_at.is_not(None), FACT.c.expires_at <= now)
    if subject is not None:
        expiring = expiring.where(FACT.c.subject == subject)
    expiring_facts = [fact_from_row(r) for r in conn.execute(expiring.order_by(FACT.c.id)).all()]
    held: dict[int, int] = {}
    for cid, fact_ids in conn.execute(select(CONFLICT.c.id, CONFLICT.c.fact_ids)
                                      .where(CONFLICT.c.state == "open").order_by(CONFLICT.c.id)):
        for fid in json.loads(fact_ids):
            held.setdefault(int(fid), int(cid))
    return link_lineages(memory_rows, links), lineages, expiring_facts, held


_FOLD = (update(MEMORY)
         .where(MEMORY.c.id == bindparam("b_id"), MEMORY.c.archived_at.is_(None))
         .values(archived_at=bindparam("b_at"), archive_reason=bindparam("b_reason"),
                 merged_into=bindparam("b_into")))
_MENTIONS = (update(MEMORY)
             .where(MEMORY.c.id == bindparam("b_id"), MEMORY.c.mentions == bindparam("b_before"))
             .values(mentions=bindparam("b_after")))
_RESTORE = (update(MEMORY)
            .where(MEMORY.c.id == bindparam("b_id"), MEMORY.c.archived_at.is_not(None))
            .values(archived_at=null(), archive_reason=null(), merged_into=null()))
_CHANGED = "a memory changed during maintenance; nothing was saved"


def carry_out(batch: WriteBatch, plan: MaintenancePlan) -> dict[int, int]:
    """Apply ``plan`` in ``batch`` at its transaction time. Returns expired
    fact id → the id of its closed copy. Raises StoreError when a row is not
    as planned (the plan must be made under the same lock)."""
    cache: dict = {}
    at = batch.tx

    def run(key: str, statement: Any, rows: list, columns: tuple[str, ...] | None = None) -> None:
        for part in chunks(rows, 5_000):
            count = execute_many(batch.conn, key, statement, part, cache, columns)
            if count not in (-1, len(part)):
                raise StoreError(_CHANGED)

    run("restore", _RESTORE, [(r.memory,) for r in plan.restores], ("b_id",))
    folds = [{"b_id": mid, "b_at": at, "b_reason": f"{MERGED_PREFIX}{m.into}", "b_into": m.into}
             for m in plan.merges for mid in m.folded]
    folds += [{"b_id": a.memory, "b_at": at, "b_reason": a.reason, "b_into": None}
              for a in plan.archives]
    run("fold", _FOLD, folds)
    run("mentions", _MENTIONS, [{"b_id": m.into, "b_before": m.mentions[0],
                                 "b_after": m.mentions[1]} for m in plan.merges])
    copies: dict[int, int] = {}
    # loaded before the stamps, so the expired rows drop out of the batch's cache
    batch.prefetch_pairs({(e.fact.subject, e.fact.predicate) for e in plan.expiries})
    for e in plan.expiries:
        f = e.fact
        batch.retire(f, "expired", None, note=f"TTL ran out at {iso(f.expires_at, f.tz)}")
        assert f.expires_at is not None  # planned expiries have one
        copies[f.id] = batch._insert_piece({}, copy_until(f, f.expires_at))
    return copies


def maintain(batch_or_conn: WriteBatch | Connection, *, now: int, older_than: int,
             routed: Iterable[str] = (), similarity: float = DEFAULT_SIMILARITY,
             subject: str | None = None,
             dry_run: bool = False, by: str = DEFAULT_ACTOR,
             progress: Callable[[int, int], None] | None = None) -> MaintenanceReport:
    """One run: gather, plan and (unless ``dry_run``) carry out and audit.
    ``batch_or_conn`` is the run's WriteBatch, or a read connection for a dry
    run. ``progress(done, total)`` is called after each of its stages."""
    started = time.perf_counter()
    stages = 2 if dry_run else 3

    def step(done: int) -> None:
        if progress is not None:
            progress(done, stages)

    conn = batch_or_conn.conn if isinstance(batch_or_conn, WriteBatch) else batch_or_conn
    rows = gather(conn, now=now, routed=routed, subject=subject)
    step(1)
    plan = plan_maintenance(*rows, now=now, older_than=older_than, similarity=similarity)
    step(2)
    if dry_run or plan.empty:
        if not dry_run:
            step(3)
        return MaintenanceReport(plan, dry_run, actor=by, subject=subject,
                                 seconds=time.perf_counter() - started)
    assert isinstance(batch_or_conn, WriteBatch)
    batch = batch_or_conn
    # its own instant (the batch's recorded time), after everything before it
    copies = carry_out(batch, plan)
    c = plan.counts()
    batch.record_operation(
        by, ACTION, subject=subject,
        reason=(f"maintenance: {c['merged']} merged, {c['archived']} archived, "
                f"{c['restored']} restored, {c['expired']} expired"),
        detail=entry_detail(plan, copies))
    step(3)
    return MaintenanceReport(plan, False, audit_entry=batch._last_audit, at=batch.tx, actor=by,
                             subject=subject, copies=copies,
                             seconds=time.perf_counter() - started)


__all__ = [
    "ACTION", "DEFAULT_ACTOR", "DEFAULT_OLDER_THAN", "DEFAULT_SIMILARITY", "Archive", "Expiry",
    "ClaimLink", "Held", "LineageFact", "MaintenancePlan", "MaintenanceReport", "MemoryItem",
    "StoredMemory", "Merge", "Restore", "age_text", "carry_out", "cluster", "entry_detail",
    "gather", "jaccard", "lineage_end", "link_lineages", "maintain", "near_key", "parse_age",
    "plan_maintenance",
]
