#!/usr/bin/env python3
import collections
import json
import os
from datetime import datetime

D = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
turns = [json.loads(row) for row in open(os.path.join(D, "conversations.jsonl"), encoding="utf-8")]
qs = [json.loads(row) for row in open(os.path.join(D, "questions.jsonl"), encoding="utf-8")]
idx, bysess = {}, collections.defaultdict(list)
for t in turns:
    assert set(t) <= {"session", "turn", "speaker", "time", "text", "user", "project"}, t
    assert t["speaker"] in ("user", "assistant") and t["text"].strip(), t
    tm = datetime.fromisoformat(t["time"])
    assert tm.utcoffset() is not None, t
    assert (t["session"], t["turn"]) not in idx
    idx[(t["session"], t["turn"])] = t
    assert t["session"].startswith(t["user"] + "-s"), t
    bysess[t["session"]].append((t["turn"], tm))
for s, L in bysess.items():
    assert [n for n, _ in L] == list(range(1, len(L) + 1)), s
    assert all(a[1] <= b[1] for a, b in zip(L, L[1:], strict=False)), s
    assert 25 <= len(L) <= 45, (s, len(L))
ids = set()
for q in qs:
    assert q["id"] not in ids
    ids.add(q["id"])
    assert q["kind"] in (
        "single-hop",
        "multi-hop",
        "temporal",
        "knowledge-update",
        "preference",
        "adversarial",
    )
    assert q["question"] and q["answer"]
    assert (q["kind"] == "adversarial") == (not q["evidence"]), q["id"]
    for e in q["evidence"]:
        t = idx[(e["session"], e["turn"])]
        assert t["user"] == q["user"], q["id"]
users = collections.Counter(t["user"] for t in turns)
print("users", len(users), dict(users))
print(
    "sessions",
    len(bysess),
    "turns",
    len(turns),
    "user/assistant",
    collections.Counter(t["speaker"] for t in turns),
)
print("sessions per user", collections.Counter(s.rsplit("-s", 1)[0] for s in bysess))
print("session lengths", min(map(len, bysess.values())), "-", max(map(len, bysess.values())))
print("questions", len(qs), dict(collections.Counter(q["kind"] for q in qs)))
print(
    "evidence in assistant turns:",
    sum(
        any(idx[(e["session"], e["turn"])]["speaker"] == "assistant" for e in q["evidence"])
        for q in qs
    ),
    "| cross-session:",
    sum(len({e["session"] for e in q["evidence"]}) > 1 for q in qs),
)
print("OK")
