"""Hydration: candidate ids → their rows → the candidates the filters admit.

A channel proposes ``Candidate``s (an item id, its cosine, the channel that
found it); ``admit`` reads their rows in blocks (``memdesk.db.recall.HotReads``),
keeps those the filters admit and, for memories, works out the status of the
fact lineage each memory's claim produced (as believed at ``known_at``) and
the open conflicts it is part of, dropping the statuses not asked for.
Raises only what the database driver raises.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..db.recall import MEMORY_ROW_KEYS, TURN_ROW_KEYS, HotReads
from ..records import STATUSES, Fact
from .filters import Filters
from .probe import Conflicts

_DEFAULT_STATUSES = tuple(s for s in STATUSES if s != "expired")


@dataclass(frozen=True, slots=True)
class Candidate:
    """An item a channel proposes: its id, the query's cosine to it, which
    channel found it (index, tail, exact, lexical, subject, fused) and, for
    fused raw turns, the fused value and the BM25 score."""

    item_id: int
    cosine: float
    channel: str
    fused: float | None = None  # the fused channels (see fusion)
    words: float = 0.0  # the BM25 score


@dataclass(frozen=True, slots=True)
class Admitted:
    """A candidate the filters admitted, with its row (cells by name: those
    of ``memdesk.db.recall.MEMORY_ROW_KEYS`` or ``TURN_ROW_KEYS``), its
    status, the open conflicts it is part of and its lineage's fact ids."""

    cand: Candidate
    row: dict[str, Any]
    status: str = "active"
    conflict: tuple[int, ...] = ()
    fact_ids: tuple[int, ...] = ()


def rows(hot: HotReads, over: str, ids: Sequence[int]) -> dict[int, dict[str, Any]]:
    """The rows of these memories (``over="memories"``) or turns, by id."""
    if over == "memories":
        keys, found = MEMORY_ROW_KEYS, hot.memory_rows(ids)
    else:
        keys, found = TURN_ROW_KEYS, hot.turn_rows(ids)
    return {int(r[0]): dict(zip(keys, r, strict=True)) for r in found}


def facts_by_claim(hot: HotReads, claim_ids: Iterable[int]) -> dict[int, list[Fact]]:
    """The fact rows of these claims, by claim."""
    out: dict[int, list[Fact]] = {}
    for r in hot.facts_by_claim(sorted(claim_ids)):
        f = Fact(*r)
        out.setdefault(f.claim_id, []).append(f)
    return out


def admit(hot: HotReads, over: str, cands: Sequence[Candidate], f: Filters, now: int,
          known_at: int | None, conflicts: Conflicts) -> list[Admitted]:
    """The candidates whose rows ``f`` admits, in the order given; memories
    with their status at ``now`` as believed at ``known_at`` (only the
    statuses ``f`` asks for; by default all but ``expired``) and their open
    conflicts (``conflicts``)."""
    if not cands:
        return []
    found = rows(hot, over, [c.item_id for c in cands])
    passed = []
    for c in cands:
        row = found.get(c.item_id)
        if row is None or not f.admits(over, row):
            continue
        passed.append((c, row))
    if over != "memories" or not passed:
        return [Admitted(c, row) for c, row in passed]
    # each memory's status: that of the fact lineage of its claim; and its open conflicts
    lineage = {c.item_id: int(row["merged_into"] or row["claim_id"]) for c, row in passed}
    facts = facts_by_claim(hot, set(lineage.values()))
    allowed = f.statuses or _DEFAULT_STATUSES
    out = []
    for c, row in passed:
        lineage_rows = facts.get(lineage[c.item_id], [])
        status = lineage_status(lineage_rows, now, known_at)
        if status not in allowed:
            continue
        fact_ids = tuple(r.id for r in lineage_rows)
        ids = set(fact_ids)
        conflict = tuple(sorted(cid for cid, (fids, claim_id, _) in conflicts.items()
                                if ids & fids or claim_id == lineage[c.item_id]))
        out.append(Admitted(c, row, status, conflict, fact_ids))
    return out


def lineage_status(rows: list[Fact], at: int, known_at: int | None) -> str:
    """Status of a claim's fact lineage at valid time ``at`` as the store had been
    told by ``known_at`` (the told axis)."""
    if not rows:
        return "active"
    k = known_at
    known = [r for r in rows if (k is None or r.told_from <= k)]
    if not known:
        return "active"  # not told yet then: the memory itself is filtered by time
    believed = [r for r in known if (r.current if k is None else r.known_at(k))]
    if believed:
        statuses = [r.status(at, k) for r in believed]
        if "active" in statuses:
            return "active"
        latest = max(believed, key=lambda r: (r.valid_from, r.id))
        return latest.status(at, k)
    latest = max(known, key=lambda r: (r.told_until or 0, r.id))
    return latest.status(at, k)


__all__ = ["Admitted", "Candidate", "admit", "facts_by_claim", "lineage_status", "rows"]
