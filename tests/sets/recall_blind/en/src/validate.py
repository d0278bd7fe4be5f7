#!/usr/bin/env python3
"""Validate conversations.jsonl and questions.jsonl (standard library only).

Checks
  conversations: required keys; speaker values; user/assistant alternation
  starting with the user; turns numbered 1..n; times strictly increasing in a
  session; every UTC offset equals the real offset of the user's zone
  (read from the @tz line of src/<user>.txt) at that instant; one user per
  session; "project" present on all or none of a session's turns; session
  length 25-45; 6-8 sessions per user, all in 2026, spanning 4-8 months.
  questions: unique ids; known users and kinds; every evidence (session, turn)
  exists and belongs to the asking user; adversarial questions have empty
  evidence, all others non-empty; non-empty answers; no duplicate questions.
  Warnings (not errors): a question sharing a run of 5+ words with one of its
  evidence turns (possible copying of the evidence wording).
Exit status 1 on any error.
"""
import json
import re
import sys
from collections import Counter, defaultdict
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

SRC = Path(__file__).resolve().parent
OUT = SRC.parent
KINDS = {"single-hop", "temporal", "knowledge-update", "multi-hop", "preference", "adversarial"}
errors, warnings = [], []


def err(msg):
    errors.append(msg)


def zones():
    z = {}
    for p in SRC.glob("*.txt"):
        user = tz = None
        for line in p.read_text(encoding="utf-8").splitlines():
            if line.startswith("@user "):
                user = line.split(None, 1)[1].strip()
            elif line.startswith("@tz "):
                tz = line.split(None, 1)[1].strip()
        if user and tz:
            z[user] = ZoneInfo(tz)
    return z


def words(s):
    return re.findall(r"[a-z0-9']+", s.lower())


def longest_shared_run(a, b):
    a, b = words(a), words(b)
    best = 0
    for i in range(len(a)):
        for j in range(len(b)):
            k = 0
            while i + k < len(a) and j + k < len(b) and a[i + k] == b[j + k]:
                k += 1
            best = max(best, k)
    return best


def main():
    zone = zones()
    rows = [json.loads(l) for l in (OUT / "conversations.jsonl").read_text(encoding="utf-8").splitlines() if l.strip()]
    sessions = defaultdict(list)
    for r in rows:
        for key in ("session", "turn", "speaker", "time", "text", "user"):
            if key not in r:
                err(f"row missing {key}: {r}")
        extra = set(r) - {"session", "turn", "speaker", "time", "text", "user", "project"}
        if extra:
            err(f"{r['session']}#{r['turn']}: unexpected keys {extra}")
        sessions[r["session"]].append(r)

    index = {}
    per_user = defaultdict(list)
    for sid, turns in sessions.items():
        users = {t["user"] for t in turns}
        if len(users) != 1:
            err(f"{sid}: several users {users}")
            continue
        user = users.pop()
        if not sid.startswith(user + "-s"):
            err(f"{sid}: id does not start with user {user}")
        if user not in zone:
            err(f"{sid}: no zone for user {user}")
            continue
        per_user[user].append(sid)
        if not 25 <= len(turns) <= 45:
            err(f"{sid}: {len(turns)} turns (want 25-45)")
        projects = {t.get("project") for t in turns}
        if len(projects) != 1:
            err(f"{sid}: project set on some turns only: {projects}")
        prev_time = None
        for i, t in enumerate(turns, 1):
            if t["turn"] != i:
                err(f"{sid}: turn numbering broken at position {i} (got {t['turn']})")
            want = "user" if i % 2 == 1 else "assistant"
            if t["speaker"] != want:
                err(f"{sid}#{t['turn']}: speaker {t['speaker']}, expected {want}")
            if not t["text"].strip():
                err(f"{sid}#{t['turn']}: empty text")
            dt = datetime.fromisoformat(t["time"])
            if dt.tzinfo is None:
                err(f"{sid}#{t['turn']}: time without offset")
                continue
            real = dt.astimezone(zone[user]).utcoffset()
            if dt.utcoffset() != real:
                err(f"{sid}#{t['turn']}: offset {dt.utcoffset()} but {zone[user].key} has {real}")
            if dt.year != 2026:
                err(f"{sid}#{t['turn']}: not in 2026")
            if prev_time is not None and not dt > prev_time:
                err(f"{sid}#{t['turn']}: time not increasing")
            prev_time = dt
            index[(sid, t["turn"])] = t
    for user, sids in per_user.items():
        if not 6 <= len(sids) <= 8:
            err(f"{user}: {len(sids)} sessions (want 6-8)")
        starts = sorted(datetime.fromisoformat(sessions[s][0]["time"]) for s in sids)
        months = (starts[-1] - starts[0]).days / 30.44
        if not 3.5 <= months <= 8.5:
            err(f"{user}: sessions span {months:.1f} months (want 4-8)")
        offsets = sorted({sessions[s][0]["time"][-6:] for s in sids})
        print(f"  {user:6s} {len(sids)} sessions, {sum(len(sessions[s]) for s in sids)} turns, "
              f"{starts[0].date()} .. {starts[-1].date()} ({months:.1f} months), offsets {offsets}")

    qs = [json.loads(l) for l in (OUT / "questions.jsonl").read_text(encoding="utf-8").splitlines() if l.strip()]
    ids = Counter(q["id"] for q in qs)
    for i, c in ids.items():
        if c > 1:
            err(f"duplicate question id {i}")
    texts = Counter(q["question"].strip().lower() for q in qs)
    for t, c in texts.items():
        if c > 1:
            err(f"duplicate question text: {t}")
    for q in qs:
        for key in ("id", "user", "question", "evidence", "kind", "answer"):
            if key not in q:
                err(f"question missing {key}: {q}")
        if q["kind"] not in KINDS:
            err(f"{q['id']}: unknown kind {q['kind']}")
        if q["user"] not in per_user:
            err(f"{q['id']}: unknown user {q['user']}")
        if not q["answer"].strip():
            err(f"{q['id']}: empty answer")
        if q["kind"] == "adversarial" and q["evidence"]:
            err(f"{q['id']}: adversarial question with evidence")
        if q["kind"] != "adversarial" and not q["evidence"]:
            err(f"{q['id']}: no evidence")
        seen = set()
        for e in q["evidence"]:
            key = (e["session"], e["turn"])
            if key in seen:
                err(f"{q['id']}: repeated evidence {key}")
            seen.add(key)
            t = index.get(key)
            if t is None:
                err(f"{q['id']}: evidence {key} does not exist")
                continue
            if t["user"] != q["user"]:
                err(f"{q['id']}: evidence {key} belongs to {t['user']}")
            run = longest_shared_run(q["question"], t["text"])
            if run >= 5:
                warnings.append(f"{q['id']}: shares {run} consecutive words with {key}")

    kinds = Counter(q["kind"] for q in qs)
    by_user = Counter(q["user"] for q in qs)
    asst = sum(1 for q in qs if any(index.get((e["session"], e["turn"]), {}).get("speaker") == "assistant"
                                    for e in q["evidence"]))
    print(f"turns: {len(rows)}  sessions: {len(sessions)}  questions: {len(qs)}")
    print("  per kind:", dict(sorted(kinds.items())))
    print("  per user:", dict(sorted(by_user.items())))
    print(f"  questions with an assistant-turn evidence: {asst}")
    print(f"  work-project turns: {sum(1 for r in rows if 'project' in r)} "
          f"({sorted({r['project'] for r in rows if 'project' in r})})")
    for w in warnings:
        print("WARNING", w)
    for e in errors:
        print("ERROR", e)
    print("OK" if not errors else f"{len(errors)} error(s)")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
