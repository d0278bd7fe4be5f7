"""The audit trail of a value (``store.audit.of``, ``memdesk audit``, the desk's
audit screen): the provenance steps behind a fact lineage — each claim's turn,
extraction, gates, conflicts and review, the facts it asserted, the mentions
merged into it, every retirement — and what maintenance did to its memories
and facts, in the order the story was told. Reads only; raises nothing of its own.
"""

from __future__ import annotations

import json
from typing import Any

from . import gates
from .access import Caller
from .db import Engine
from .db import audit_trail as sql
from .records import AuditStep, Fact
from .timeutil import iso


def _caller_of(raw: str | None) -> Caller | None:
    """The door's caller recorded in an audit entry's detail, if any."""
    try:
        found = json.loads(raw or "{}").get("caller")
    except (ValueError, AttributeError):
        return None
    if not isinstance(found, dict):
        return None
    return Caller(str(found.get("transport", "?")), found.get("token"),
                  found.get("token_name"), found.get("client"))


STEP_ORDER = {"turn": 0, "mention": 0, "extraction": 1, "gates": 2, "conflict": 3,
               "review": 4, "assertion": 5, "retirement": 6}

def decision_steps(engine: Engine, candidates: Any, claim_ids: list[int], rows: list[Fact],
                   tz: int) -> list[AuditStep]:
    """The provenance steps behind the lineages ``claim_ids`` whose rows are ``rows``:
    each claim's turn, extraction, gates, conflicts and review, the facts it
    asserted, the later mentions merged into it, and every retirement.
    ``candidates``: the review candidates' statement (``memdesk.db.reads.candidate_stmt()``)."""
    retired = [r for r in rows if r.retired_at is not None]
    by_claims = sorted({r.retired_by_claim for r in retired if r.retired_by_claim})
    with engine.connect() as conn:
        claims = sql.lineage_claims(conn, candidates, claim_ids)
        ids = [c["id"] for c in claims] + by_claims
        ops = sql.entries_spanning(conn, ids)
        conflicts = sql.conflicts_of(conn, [c["id"] for c in claims])
        causes = {c["id"]: c for c in sql.claims_by_id(conn, candidates, by_claims)}

    def ops_for(claim_id: int) -> list[dict]:
        return [o for o in ops if o["claim_from"] <= claim_id <= o["claim_to"]]

    steps: list[AuditStep] = []
    for c in claims:
        cid = c["id"]
        created_by = next((o for o in ops_for(cid)
                           if o["action"] in ("import", "claims.added")
                           or (o["action"] == "ingest" and _caller_of(o["detail"]))), None)
        steps.append(AuditStep(
            "turn" if cid in claim_ids else "mention", c["time"], c["speaker"], c["text"],
            {"session": c["session"], "turn": c["turn"], "claim_id": cid}, c["time_tz"],
            c["turn_recorded_at"]))
        via = ""
        detail = {"claim_id": cid, "confidence": c["confidence"], "kind": c["source_kind"],
                  "change": c["change"]}
        if created_by is not None:
            via = f" via {created_by['action']} by {created_by['actor']}"
            detail.update(operation=created_by["id"], reason=created_by["reason"],
                          wall_at=iso(created_by["wall_at"]))
            caller = _caller_of(created_by["detail"])
            if caller is not None:  # sent through the agent's door
                via = f" via {created_by['action']} by {caller.describe()}"
                detail["caller"] = caller.to_dict()
        steps.append(AuditStep(
            "extraction", c["time"], c["extractor"],
            f"{c['subject']} {c['predicate']} {c['object']} ({c['polarity']}, {c['scope']}, "
            f"confidence {c['confidence']:.2f}){via}", detail, tz, c["created_at"]))
        recorded = [g.to_dict() for g in gates.decode_steps(c["gates"])]
        if recorded:
            steps.append(AuditStep(
                "gates", c["time"], "memdesk",
                "; ".join(f"{g['gate']}: {g['result']}" for g in recorded),
                {"gates": recorded}, tz, c["created_at"]))
        for k in (k for k in conflicts if k["claim_id"] == cid):
            opened_by = next((o for o in ops_for(cid) if o["conflict_id"] == k["id"]
                              and o["action"] == "claim.approved"), None)
            steps.append(AuditStep("conflict", k["opened_at"], "memdesk",
                                   f"conflict {k['id']} opened ({k['kind']})",
                                   {"conflict_id": k["id"], "fact_ids": json.loads(k["fact_ids"])}, tz,
                                   opened_by["at"] if opened_by else c["created_at"]))
            resolutions = [o for o in ops_for(cid) if o["conflict_id"] == k["id"]
                           and o["action"] in ("conflict.resolved", "conflict.reopened")]
            if k["resolved_at"] is not None and not resolutions:  # its entry was scrubbed
                steps.append(AuditStep("review", k["resolved_at"], k["resolved_by"] or "",
                                       f"conflict {k['id']} resolved: kept {k['resolution']}"
                                       + (f" ({k['reason']})" if k["reason"] else ""),
                                       {"conflict_id": k["id"], "resolution": k["resolution"]}, tz,
                                       k["resolved_at"]))
            for o in resolutions:  # every resolution, and every undo of one
                d = json.loads(o["detail"])
                if o["action"] == "conflict.resolved":
                    what = f"conflict {k['id']} resolved: kept {d.get('keep')}"
                else:
                    what = f"conflict {k['id']} reopened: kept {d.get('undone')} undone"
                steps.append(AuditStep("review", o["at"], o["actor"],
                                       what + (f" ({o['reason']})" if o["reason"] else ""),
                                       {"conflict_id": k["id"], "resolution": d.get("keep"),
                                        "undone": d.get("undone"), "operation": o["id"],
                                        "wall_at": iso(o["wall_at"])}, tz, o["at"]))
        for o in ops_for(cid):
            if o["action"] in ("claim.approved", "claim.rejected"):
                verdict = o["action"].split(".")[1]
                steps.append(AuditStep(
                    "review", o["at"], o["actor"],
                    f"{verdict} by {o['actor']}" + (f" ({o['reason']})" if o["reason"] else ""),
                    {**json.loads(o["detail"]), "operation": o["id"],
                     "wall_at": iso(o["wall_at"])}, tz, o["at"]))
    for r in rows:
        if r.copy_of is None and r.claim_id in claim_ids:
            claim = next((c for c in claims if c["id"] == r.claim_id), None)
            actor = (claim["decided_by"] or claim["extractor"]) if claim else "memdesk"
            steps.append(AuditStep(
                "assertion", r.told_from, actor,
                f"fact {r.id}: {r.object}, valid {iso(r.valid_from, tz)} → "
                f"{iso(r.valid_to, tz) or 'open'}; start {r.start_text()}",
                {"fact_id": r.id, "claim_id": r.claim_id, "start": r.start_dict()}, tz,
                r.recorded_at))
    for r in retired:
        assert r.retired_at is not None  # ``retired`` holds retired rows only
        until = r.told_until
        assert until is not None
        cause = causes.get(r.retired_by_claim or -1)
        actor = (cause["decided_by"] or cause["extractor"]) if cause else "memdesk"
        what = f"fact {r.id} {r.retire_reason}"
        if cause:
            what += f" by claim {cause['id']}: {cause['object']} (turn {cause['session']}#{cause['turn']})"
        if r.retire_note:
            what += f" — {r.retire_note}"
        steps.append(AuditStep("retirement", until, actor, what, {
            "fact_id": r.id, "reason": r.retire_reason, "by_claim": r.retired_by_claim,
            "note": r.retire_note}, tz, r.retired_at))
    # the story in the order it was told; what this store wrote when, beside it
    steps.sort(key=lambda s: (s.at, STEP_ORDER.get(s.step, 7), s.recorded or 0))
    return steps



def with_upkeep(engine: Engine, steps: list[AuditStep], lineage: list[int], rows: list[Fact],
                tz: int) -> list[AuditStep]:
    """``steps`` plus what maintenance did to the memories of these fact
    lineages (folded into another, took in others, archived, restored)
    and to their fact ``rows`` (expired), each naming the
    ``store.maintained`` entry of its run; sorted by time."""
    from .maintain import ACTION

    with engine.connect() as conn:
        # the memories of these lineages' claims, and those of their turns
        # (a memory is a whole turn, standing for every claim in it)
        turns = sql.lineage_turns(conn, lineage)
        mine = {int(r[0]): r for r in sql.lineage_memories(conn, lineage, {t for _, t in turns})
                if r[5] in lineage or (r[3], r[4]) in turns}
        expired = {r.id: r for r in rows if r.retire_reason == "expired"}
        if not mine and not expired:
            return steps
        folded_in = sql.folded_into(conn, mine)
        times = {r[1] for r in (*mine.values(), *folded_in) if r[1] is not None}
        times |= {r.retired_at for r in expired.values()}
        entries = sql.runs_of(conn, ACTION, times)
        if any(f'"memory": {i},' in e[3] for e in entries if '"restored": [{' in e[3]
               for i in mine):
            # a restored memory no longer carries the time it was archived: read every run
            entries = sql.runs_of(conn, ACTION)
    added: list[AuditStep] = []
    for entry_id, at, actor, raw in entries:
        try:
            detail = json.loads(raw)
        except ValueError:
            continue
        run = f"maintenance run, audit entry {entry_id}"
        for m in detail.get("merged") or ():
            folded = [i for i in m.get("folded", ()) if i in mine]
            for i in folded:
                added.append(AuditStep("maintenance", at, actor,
                                       f"memory {i} merged into memory {m['into']} ({run})",
                                       {"memory": i, "action": "merged", "into": m["into"],
                                        "operation": entry_id}, tz))
            if m.get("into") in mine:
                before, after = m.get("mentions") or (None, None)
                added.append(AuditStep(
                    "maintenance", at, actor,
                    f"memory {m['into']} took in near duplicate(s) "
                    f"{', '.join(map(str, m.get('folded', ())))}: mentions {before} → {after} ({run})",
                    {"memory": m["into"], "action": "took_in", "folded": m.get("folded", []),
                     "mentions": [before, after], "operation": entry_id}, tz))
        for a in detail.get("archived") or ():
            if a.get("memory") in mine:
                added.append(AuditStep(
                    "maintenance", at, actor,
                    f"memory {a['memory']} archived: {a.get('reason')} ({run})",
                    {"memory": a["memory"], "action": "archived", "reason": a.get("reason"),
                     "operation": entry_id}, tz))
        for e in detail.get("expired") or ():
            if e.get("fact") in expired:
                closed = f", closed then as fact {e['copy']}" if e.get("copy") else ""
                added.append(AuditStep(
                    "maintenance", at, actor,
                    f"fact {e['fact']} expired: its TTL ran out at "
                    f"{iso(expired[e['fact']].expires_at, tz)}{closed} ({run})",
                    {"fact_id": e["fact"], "action": "expired", "copy": e.get("copy"),
                     "operation": entry_id}, tz))
        for r in detail.get("restored") or ():
            if r.get("memory") in mine:
                added.append(AuditStep(
                    "maintenance", at, actor,
                    f"memory {r['memory']} restored: {r.get('why')} (was {r.get('was')}; {run})",
                    {"memory": r["memory"], "action": "restored", "why": r.get("why"),
                     "was": r.get("was"), "operation": entry_id}, tz))
    if not added:
        return steps
    return sorted([*steps, *added], key=lambda s: (s.at, STEP_ORDER.get(s.step, 7)))
