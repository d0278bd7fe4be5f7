#!/usr/bin/env python3
"""Validate conversations.jsonl / questions.jsonl of the zh blind set. Standard library only.
Exit code 1 on any error; warnings (possible verbatim overlap between question and evidence) are printed only."""
import json, os, sys, re
from collections import Counter, defaultdict
from datetime import datetime, timedelta

OUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KINDS = ["single-hop", "temporal", "knowledge-update", "multi-hop", "preference", "adversarial"]
errors, warns = [], []


def err(m):
    errors.append(m)


def lcs(a, b):
    """longest common substring length (ignoring punctuation)"""
    a = re.sub(r"[\s，。？！、：；“”‘’（）,.?!:;()\"']", "", a)
    b = re.sub(r"[\s，。？！、：；“”‘’（）,.?!:;()\"']", "", b)
    best, best_s = 0, ""
    prev = [0] * (len(b) + 1)
    for i in range(1, len(a) + 1):
        cur = [0] * (len(b) + 1)
        for j in range(1, len(b) + 1):
            if a[i - 1] == b[j - 1]:
                cur[j] = prev[j - 1] + 1
                if cur[j] > best:
                    best, best_s = cur[j], a[i - cur[j]:i]
        prev = cur
    return best, best_s


conv = [json.loads(l) for l in open(os.path.join(OUT, "conversations.jsonl"), encoding="utf-8")]
qs = [json.loads(l) for l in open(os.path.join(OUT, "questions.jsonl"), encoding="utf-8")]

# ---- conversations
by_sess = defaultdict(list)
for r in conv:
    for k in ("session", "turn", "speaker", "time", "text", "user"):
        if k not in r:
            err(f"turn missing {k}: {r}")
    if not r["session"].startswith(r["user"] + "-s"):
        err(f"session {r['session']} does not belong to user {r['user']}")
    if not r["time"].endswith("+08:00"):
        err(f"bad offset {r['time']}")
    if r["speaker"] not in ("user", "assistant"):
        err(f"bad speaker {r}")
    if not r["text"].strip():
        err(f"empty text {r['session']}#{r['turn']}")
    by_sess[r["session"]].append(r)

index = {}
sess_per_user = defaultdict(list)
for sid, rows in by_sess.items():
    user = rows[0]["user"]
    sess_per_user[user].append(sid)
    turns = [r["turn"] for r in rows]
    if turns != list(range(1, len(rows) + 1)):
        err(f"{sid}: turns not numbered 1..n")
    if not (25 <= len(rows) <= 45):
        err(f"{sid}: {len(rows)} turns (want 25-45)")
    times = [datetime.fromisoformat(r["time"]) for r in rows]
    for a, b in zip(times, times[1:]):
        if not b > a:
            err(f"{sid}: times not strictly increasing at {b}")
    for i, r in enumerate(rows):
        want = "user" if i % 2 == 0 else "assistant"
        if r["speaker"] != want:
            err(f"{sid}#{r['turn']}: speaker {r['speaker']} breaks user/assistant alternation")
        if times[i].year != 2026:
            err(f"{sid}: not in 2026")
        index[(sid, r["turn"])] = r
    projs = {r.get("project") for r in rows}
    if len(projs) != 1:
        err(f"{sid}: project field inconsistent within session {projs}")

starts = {}
for user, sids in sess_per_user.items():
    sids.sort()
    st = [datetime.fromisoformat(by_sess[s][0]["time"]) for s in sids]
    for a, b, s in zip(st, st[1:], sids[1:]):
        if not b > datetime.fromisoformat(by_sess[sids[sids.index(s) - 1]][-1]["time"]):
            err(f"{s} starts before previous session of {user} ends")
    if not (6 <= len(sids) <= 8):
        err(f"{user}: {len(sids)} sessions (want 6-8)")
    span = (st[-1] - st[0]).days
    starts[user] = (st[0].date(), st[-1].date(), span)
    if not (110 <= span <= 250):
        warns.append(f"{user}: sessions span {span} days (brief asks ~4-8 months)")

# ---- questions
ids = Counter(q["id"] for q in qs)
for i, c in ids.items():
    if c > 1:
        err(f"duplicate question id {i}")
for q in qs:
    for k in ("id", "user", "question", "evidence", "kind", "answer"):
        if k not in q:
            err(f"question missing {k}: {q.get('id')}")
    if q["kind"] not in KINDS:
        err(f"{q['id']}: bad kind {q['kind']}")
    if q["kind"] == "adversarial" and q["evidence"]:
        err(f"{q['id']}: adversarial must have empty evidence")
    if q["kind"] != "adversarial" and not q["evidence"]:
        err(f"{q['id']}: non-adversarial without evidence")
    if q["kind"] == "multi-hop" and len(q["evidence"]) < 2:
        err(f"{q['id']}: multi-hop with fewer than 2 evidence turns")
    seen = set()
    for e in q["evidence"]:
        key = (e["session"], e["turn"])
        if key in seen:
            err(f"{q['id']}: duplicate evidence {key}")
        seen.add(key)
        r = index.get(key)
        if r is None:
            err(f"{q['id']}: evidence {key} does not exist")
            continue
        if r["user"] != q["user"]:
            err(f"{q['id']}: evidence {key} belongs to another user")
        n, s = lcs(q["question"], r["text"])
        if n >= 6:
            warns.append(f"{q['id']}: shares '{s}' ({n} chars) with evidence {key[0]}#{key[1]}")

# ---- report
print(f"turns: {len(conv)}  sessions: {len(by_sess)}  questions: {len(qs)}")
for user in sorted(sess_per_user):
    n = sum(len(by_sess[s]) for s in sess_per_user[user])
    a, b, span = starts[user]
    proj = sorted({r.get('project') for s in sess_per_user[user] for r in by_sess[s]} - {None})
    print(f"  {user}: {len(sess_per_user[user])} sessions, {n} turns, {a}..{b} ({span} d), projects={proj}, "
          f"questions={sum(1 for q in qs if q['user'] == user)}")
kc = Counter(q["kind"] for q in qs)
print("  kinds:", ", ".join(f"{k}={kc.get(k, 0)}" for k in KINDS))
print("  questions with assistant-turn evidence:",
      sum(1 for q in qs if any(index.get((e['session'], e['turn']), {}).get('speaker') == 'assistant' for e in q['evidence'])))
print("  questions with evidence in 2+ sessions:",
      sum(1 for q in qs if len({e['session'] for e in q['evidence']}) > 1))
for w in warns:
    print("WARN", w)
for e in errors:
    print("ERROR", e)
print("OK" if not errors else f"{len(errors)} errors")
sys.exit(1 if errors else 0)
