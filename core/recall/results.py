"""Hits: admitted candidates and facts → ``RecallHit``s with their score
breakdown, the other side of each conflict in the results, and the approver
of an agent's inference. Pure but for the two reads named below (the store's
conflicts, ``memdesk.db.recall.approvers``), which raise what the database
driver raises."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from ..db.recall import Engine, approvers
from ..errors import InvalidInput
from ..records import Fact, Source
from ..store import Store
from ..timeutil import iso, parse_time_us
from .fusion import relevance_of
from .hits import RecallHit
from .hydrate import Admitted
from .lexical import QueryGrams, lexical_score
from .probe import Conflicts
from .scoring import RecallWeights, importance, recency, relevance, score, status_factor


def item_hit(over: str, a: Admitted, qgrams: QueryGrams, now: int, named: set[str],
             w: RecallWeights) -> RecallHit:
    """An admitted memory (``over="memories"``) or raw turn as a result,
    scored: relevance (its cosine and wording, or its fused channels),
    recency, importance, the status factor, and whether it is about a
    subject the query names (``named``)."""
    c, r = a.cand, a.row
    lexical = lexical_score(qgrams, r["text"])
    rel = relevance(c.cosine, lexical, w) if c.fused is None else relevance_of(c.fused)
    if over == "memories":
        sm = 1.0 if r["subject"] in named else 0.0
        rec = recency(min(r["time"], r["created_at"]), now, w)
        imp = importance(r["confidence"], r["mentions"])
        factor = status_factor(a.status, w)
        src = Source(r["session"], r["turn"], r["speaker"], r["turn_text"], r["time"],
                     r["time_tz"], r["source_kind"], r["claim_id"])
        return RecallHit(
            kind="memory", text=r["text"], score=score(rel, rec, imp, factor, w, sm),
            relevance=rel, recency=rec, importance=imp, status=a.status,
            conflict=a.conflict, source=src, time=r["time"], tz=r["time_tz"],
            memory_id=c.item_id, fact_id=a.fact_ids[-1] if a.fact_ids else r["fact_id"],
            turn_id=r["turn_id"], claim_id=r["claim_id"], subject=r["subject"],
            predicate=r["predicate"], confidence=r["confidence"], semantic=c.cosine,
            lexical=lexical, subject_match=sm, status_factor=factor, channel=c.channel,
            mentions=r["mentions"], archived=archived(r), words=c.words, fused=c.fused)
    rec = recency(r["time"], now, w)
    imp = importance(0.6 if r["speaker"] == "user" else 0.2, 1)
    src = Source(r["session"], r["turn"], r["speaker"], r["text"], r["time"], r["time_tz"], "turn")
    subject = f"user:{r.get('user') or 'me'}"
    sm = 1.0 if subject in named or (r.get("project") and f"project:{r['project']}" in named) else 0.0
    return RecallHit(
        kind="turn", text=r["text"], score=score(rel, rec, imp, 1.0, w, sm), relevance=rel,
        recency=rec, importance=imp, status="active", conflict=(), source=src,
        time=r["time"], tz=r["time_tz"], turn_id=c.item_id, subject=subject,
        semantic=c.cosine, lexical=lexical, subject_match=sm, channel=c.channel,
        words=c.words, fused=c.fused)


def ranked(over: str, kept: Iterable[Admitted], qgrams: QueryGrams, now: int, named: set[str],
           w: RecallWeights) -> list[RecallHit]:
    """The admitted candidates as results, best first (ties in the order given)."""
    hits = [item_hit(over, a, qgrams, now, named, w) for a in kept]
    hits.sort(key=lambda h: -h.score)
    return hits


def fact_hit(f: Fact, label: str, src: Source | None, now: int, known_at: int | None,
             conflicts: Conflicts, zh: bool, w: RecallWeights, *, semantic: float = 1.0,
             relevance: float = 1.0, pinned: bool = True,
             channel: str = "structured") -> RecallHit:
    """A fact as a result: "user:alice lives in 张江", with its source turn."""
    conflict = tuple(sorted(cid for cid, (fids, _, _) in conflicts.items() if f.id in fids))
    rec = recency(f.told_from, now, w)
    imp = importance(f.confidence, 1)
    return RecallHit(
        kind="fact", text=f"{f.subject} {label} {negation(f.polarity, zh)}{f.object}",
        score=score(relevance, rec, imp, 1.0, w), relevance=relevance,
        recency=rec, importance=imp, status=f.status(now, known_at), conflict=conflict,
        source=src, time=f.valid_from, tz=f.tz, fact_id=f.id, claim_id=f.claim_id,
        subject=f.subject, predicate=f.predicate, object=f.object, confidence=f.confidence,
        semantic=semantic, lexical=1.0, pinned=pinned, channel=channel)


def label_of(store: Store, predicate: str, zh: bool) -> str:
    """A predicate's label in the query's language (the predicate itself
    when the catalog does not know it)."""
    info = store.catalog.get(predicate)
    return (info.zh if zh else info.en) if info else predicate


def with_conflict_partners(store: Store, hits: list[RecallHit], now: int,
                           zh: bool) -> list[RecallHit]:
    """Add the other side of each conflict in the results right after its
    first result: the facts involved and the incoming (unconfirmed) claim
    (read with ``Store.conflict``; a conflict gone meanwhile is skipped)."""
    wanted = sorted({c for h in hits for c in h.conflict})
    if not wanted:
        return hits
    present = {h.key for h in hits}
    partners: dict[int, list[RecallHit]] = {}
    for cid in wanted:
        try:
            conflict = store.conflicts.get(cid)
        except LookupError:
            continue
        extra: list[RecallHit] = []
        label = label_of(store, conflict.predicate, zh)
        for d in conflict.facts:
            src = d.get("source") or None
            hs = None
            if src:
                hs = Source(src["session"], src["turn"], src.get("speaker") or "user",
                            src["text"], parse_iso(src["time"]), 0, src["kind"],
                            src.get("claim_id"))
            fid = d.get("id")
            claim_id = d.get("candidate_id") if fid is None else d.get("claim_id")
            key = ("fact", fid if fid is not None else -(claim_id or 0))
            if key in present:
                continue
            present.add(key)
            status = d.get("status") or "active"
            extra.append(RecallHit(
                kind="fact", text=f"{conflict.subject} {label} {d['object']}",
                score=0.0, relevance=0.0, recency=0.0, importance=0.0,
                status=status, conflict=(cid,), source=hs,
                time=hs.time if hs else now, fact_id=fid, claim_id=claim_id,
                subject=conflict.subject, predicate=conflict.predicate, object=d["object"],
                confidence=d.get("confidence"), status_factor=1.0, channel="conflict"))
        partners[cid] = extra
    out: list[RecallHit] = []
    placed: set[int] = set()
    for h in hits:
        out.append(h)
        for cid in h.conflict:
            if cid not in placed:
                placed.add(cid)
                out.extend(partners.get(cid, []))
    return out


def with_approvers(engine: Engine, hits: list[RecallHit]) -> list[RecallHit]:
    """The hits, an agent's inference among them naming the person who
    approved it (``Source.approved_by``: the prompt line says so). One
    query (``memdesk.db.recall.approvers``), and only when such a hit is there."""
    wanted = {h.source.claim_id for h in hits if h.source is not None
              and h.source.kind == "agent_inferred" and h.source.claim_id is not None}
    if not wanted:
        return hits
    by = approvers(engine, wanted)
    return [replace(h, source=replace(h.source, approved_by=by[h.source.claim_id]))
            if h.source is not None and h.source.claim_id in by else h for h in hits]


def archived(row: dict[str, Any]) -> dict[str, Any] | None:
    """What maintenance did to a memory row, for its hit (None: not archived)."""
    if row.get("archived_at") is None:
        return None
    return {"at": iso(row["archived_at"]), "reason": row.get("archive_reason"),
            "merged_into": row.get("merged_into_memory")}


def negation(polarity: str, zh: bool) -> str:
    """How a fact's text marks a negative fact (a rejected option, a food not eaten)."""
    if polarity != "negative":
        return ""
    return "不要 " if zh else "not "


def parse_iso(text: str | None) -> int:
    """An ISO time as µs; 0 when missing or unreadable."""
    if not text:
        return 0
    try:
        return parse_time_us(text)
    except InvalidInput:
        return 0


__all__ = ["archived", "fact_hit", "item_hit", "label_of", "negation", "parse_iso", "ranked",
           "with_approvers", "with_conflict_partners"]
