#!/usr/bin/env python3
"""Validate conversations.jsonl / questions.jsonl (Python 3 standard library only).

Hard checks (exit code 1 on failure):
  * every row has the required fields with the right types; speaker == "user"; user == session
  * session ids look like b0001; turns per session are 1..n consecutive; 5 <= n <= 25
  * times parse, are in 2026, carry offset +08:00 and strictly increase inside a session
  * question ids unique (zsb-q0001 ...), kinds valid, answer / question non-empty
  * exactly one question per session, and every session has one
  * evidence: 1-3 items, each (session, turn) exists, belongs to the question's user, no duplicates
  * kind "multi" has >= 2 evidence items; other kinds have exactly 1

Soft reports (printed, do not fail):
  * answer support: share of the answer's CJK/alnum characters that appear in the evidence text
  * lexical leak: longest common substring between question and evidence (>= 4 chars listed)
"""
import collections
import datetime as dt
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = {"fact", "temporal", "preference", "update", "multi"}
errors = []


def err(msg):
    errors.append(msg)


def load(name):
    rows = []
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        for ln, line in enumerate(f, 1):
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                err(f"{name}:{ln}: bad json {e}")
    return rows


def lcs(a, b):
    best, prev = 0, [0] * (len(b) + 1)
    for ca in a:
        cur = [0] * (len(b) + 1)
        for j, cb in enumerate(b, 1):
            if ca == cb:
                cur[j] = prev[j - 1] + 1
                best = max(best, cur[j])
        prev = cur
    return best


def lcs_str(a, b):
    best, end, prev = 0, 0, [0] * (len(b) + 1)
    for i, ca in enumerate(a, 1):
        cur = [0] * (len(b) + 1)
        for j, cb in enumerate(b, 1):
            if ca == cb:
                cur[j] = prev[j - 1] + 1
                if cur[j] > best:
                    best, end = cur[j], i
        prev = cur
    return a[end - best:end]


def main():
    conv = load("conversations.jsonl")
    qs = load("questions.jsonl")

    by_session = collections.OrderedDict()
    for r in conv:
        for k, t in (("session", str), ("turn", int), ("speaker", str), ("time", str),
                     ("text", str), ("user", str)):
            if not isinstance(r.get(k), t):
                err(f"conv row {r}: field {k} missing/wrong type")
        if set(r) != {"session", "turn", "speaker", "time", "text", "user"}:
            err(f"conv row {r.get('session')}/{r.get('turn')}: unexpected keys {sorted(r)}")
        if r.get("speaker") != "user":
            err(f"{r.get('session')}/{r.get('turn')}: speaker != user")
        if r.get("user") != r.get("session"):
            err(f"{r.get('session')}/{r.get('turn')}: user != session")
        if not re.fullmatch(r"b\d{4}", str(r.get("session"))):
            err(f"bad session id {r.get('session')}")
        if not str(r.get("text", "")).strip():
            err(f"{r.get('session')}/{r.get('turn')}: empty text")
        by_session.setdefault(r["session"], []).append(r)

    index = {}
    for s, rows in by_session.items():
        turns = [r["turn"] for r in rows]
        if turns != list(range(1, len(rows) + 1)):
            err(f"{s}: turns not consecutive from 1: {turns}")
        if not 5 <= len(rows) <= 25:
            err(f"{s}: {len(rows)} messages (want 5-25)")
        prev = None
        for r in rows:
            index[(s, r["turn"])] = r
            if not r["time"].endswith("+08:00"):
                err(f"{s}/{r['turn']}: offset not +08:00: {r['time']}")
            try:
                t = dt.datetime.fromisoformat(r["time"])
            except ValueError:
                err(f"{s}/{r['turn']}: bad time {r['time']}")
                continue
            if t.utcoffset() != dt.timedelta(hours=8):
                err(f"{s}/{r['turn']}: utcoffset != 8h")
            if t.year != 2026:
                err(f"{s}/{r['turn']}: year {t.year}")
            if prev and t <= prev:
                err(f"{s}/{r['turn']}: time not increasing ({r['time']})")
            prev = t
    ids = [s for s in by_session]
    if ids != sorted(ids):
        err("sessions not in sorted order")

    seen_ids, per_user = set(), collections.Counter()
    kinds = collections.Counter()
    n_ev = collections.Counter()
    support, leaks = [], []
    for i, q in enumerate(qs, 1):
        for k in ("id", "user", "question", "evidence", "kind", "answer"):
            if k not in q:
                err(f"question {i}: missing {k}")
        if set(q) != {"id", "user", "question", "evidence", "kind", "answer"}:
            err(f"question {q.get('id')}: unexpected keys {sorted(q)}")
        qid = q.get("id")
        if qid in seen_ids:
            err(f"duplicate question id {qid}")
        seen_ids.add(qid)
        if qid != f"zsb-q{i:04d}":
            err(f"question id {qid} out of sequence (expected zsb-q{i:04d})")
        if q.get("kind") not in KINDS:
            err(f"{qid}: bad kind {q.get('kind')}")
        if not str(q.get("question", "")).strip() or not str(q.get("answer", "")).strip():
            err(f"{qid}: empty question/answer")
        u = q.get("user")
        per_user[u] += 1
        if u not in by_session:
            err(f"{qid}: user {u} has no stream")
        ev = q.get("evidence") or []
        if not 1 <= len(ev) <= 3:
            err(f"{qid}: {len(ev)} evidence items")
        keys = [(e.get("session"), e.get("turn")) for e in ev]
        if len(set(keys)) != len(keys):
            err(f"{qid}: duplicate evidence")
        for key in keys:
            if key not in index:
                err(f"{qid}: evidence {key} not found")
            elif key[0] != u:
                err(f"{qid}: evidence {key} from another user")
        if q.get("kind") == "multi" and len(ev) < 2:
            err(f"{qid}: multi with <2 evidence")
        if q.get("kind") != "multi" and len(ev) != 1:
            err(f"{qid}: non-multi kind with {len(ev)} evidence")
        kinds[q.get("kind")] += 1
        n_ev[len(ev)] += 1
        etext = "".join(index[k]["text"] for k in keys if k in index)
        achars = [c for c in re.sub(r"[\s，。、；：！？,.;:!?（）()“”\"'—\-～~/]", "", q.get("answer", ""))]
        if achars:
            cov = sum(c in etext for c in achars) / len(achars)
            support.append((cov, qid, q["answer"]))
        qq = q.get("question", "")
        best = max((lcs_str(qq, index[k]["text"]) for k in keys if k in index), key=len, default="")
        if len(best) >= 4:
            leaks.append((len(best), qid, best, qq))
    for u in by_session:
        if per_user[u] != 1:
            err(f"{u}: {per_user[u]} questions (want exactly 1)")

    print(f"sessions: {len(by_session)}  messages: {len(conv)}  questions: {len(qs)}")
    lens = [len(v) for v in by_session.values()]
    if lens:
        print(f"messages per stream: min {min(lens)} max {max(lens)} mean {sum(lens)/len(lens):.1f}")
    print("kinds:", dict(sorted(kinds.items())))
    print("evidence count:", dict(sorted(n_ev.items())))
    low = sorted(x for x in support if x[0] < 0.6)
    print(f"\n[soft] answers with <60% of characters found in evidence: {len(low)}")
    for cov, qid, a in low:
        print(f"   {qid} cov={cov:.2f} answer={a}")
    leaks.sort(reverse=True)
    print(f"\n[soft] question/evidence common substrings >= 4 chars: {len(leaks)}")
    for n, qid, s, qq in leaks:
        print(f"   {qid} [{s}]  Q: {qq}")

    if errors:
        print(f"\nFAILED: {len(errors)} errors")
        for e in errors[:200]:
            print("  -", e)
        sys.exit(1)
    print("\nOK: all hard checks passed")


if __name__ == "__main__":
    main()
