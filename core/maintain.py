"""Scheduled maintenance (docs/DESIGN.md §3.10): fold near-duplicate memories,
archive stale ones, expire facts whose TTL ran out.

This module is the planning half, pure like ``core.bitemporal`` and
``core.gates``: ``plan_maintenance`` takes the rows it needs (memories with
their fact lineage, facts whose TTL ran out, the facts open conflicts hold)
and returns a frozen ``MaintenancePlan``. The thin half, ``core.maintain_store``,
reads those rows (``gather``) and carries a plan out inside one ``WriteBatch``
(``carry_out``), which holds the store's write lock, so maintenance is safe
while other processes write.

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

import math
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, NamedTuple

from .errors import InvalidInput
from .lang.text import grams
from .records import Fact
from .timeutil import iso

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
    retired_at: int | None  # when it stopped being believed, as told (core.db.axes.KNOWN_UNTIL)
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


__all__ = [
    "ACTION", "DEFAULT_ACTOR", "DEFAULT_OLDER_THAN", "DEFAULT_SIMILARITY", "Archive", "Expiry",
    "ClaimLink", "Held", "LineageFact", "MaintenancePlan", "MaintenanceReport", "MemoryItem",
    "StoredMemory", "Merge", "Restore", "age_text", "cluster", "entry_detail", "jaccard",
    "lineage_end", "link_lineages", "near_key", "parse_age", "plan_maintenance",
]
