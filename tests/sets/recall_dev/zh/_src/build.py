#!/usr/bin/env python3
"""Build conversations.jsonl / questions.jsonl from the hand-written _src/*.txt files.
Format: '== <session> <YYYY-MM-DDTHH:MM> [+HH:MM] [project=x]' starts a session;
'U: text' / 'A: text' are turns; 'U@tag: text' labels a turn for evidence;
'?? kind | question | s01@tag,s02@tag | answer' is a question (user = file name)."""

import json
import os
import re
import sys
from datetime import datetime, timedelta

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.dirname(HERE)
USERS = [
    u
    for u in ["chenjing", "zhaolei", "linxy", "sunming"]
    if os.path.exists(os.path.join(HERE, u + ".txt"))
]
turns, questions, tags = [], [], {}
for user in USERS:
    sess = None
    for ln, raw in enumerate(open(os.path.join(HERE, user + ".txt"), encoding="utf-8"), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("=="):
            parts = line[2:].split()
            sid, start = parts[0], parts[1]
            off, proj = "+08:00", None
            for p in parts[2:]:
                if p.startswith("project="):
                    proj = p[8:]
                else:
                    off = p
            assert sid.startswith(user + "-"), (user, sid)
            sess = {
                "sid": sid,
                "t": datetime.fromisoformat(start + ":00" + off),
                "n": 0,
                "proj": proj,
            }
            continue
        if line.startswith("??"):
            kind, q, ev, ans = [x.strip() for x in line[2:].split("|")]
            questions.append((user, kind, q, ev, ans, ln))
            continue
        m = re.match(r"^([UA])(?:@([\w-]+))?[:：]\s*(.+)$", line)
        if not m:
            sys.exit(f"{user}.txt:{ln}: bad line {line!r}")
        sp, tag, text = m.groups()
        sess["n"] += 1
        if sess["n"] > 1:
            gap = 1 if sp == "A" else 1 + (sess["n"] * 7 + len(text)) % 4
            sess["t"] += timedelta(minutes=gap)
        if tag:
            key = (user, sess["sid"].split("-", 1)[1] + "@" + tag)
            assert key not in tags, f"dup tag {key}"
            tags[key] = (sess["sid"], sess["n"])
        rec = {
            "session": sess["sid"],
            "turn": sess["n"],
            "speaker": "user" if sp == "U" else "assistant",
            "time": sess["t"].isoformat(),
            "text": text,
            "user": user,
        }
        if sess["proj"]:
            rec["project"] = sess["proj"]
        turns.append(rec)
with open(os.path.join(OUT, "conversations.jsonl"), "w", encoding="utf-8") as f:
    for r in turns:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
with open(os.path.join(OUT, "questions.jsonl"), "w", encoding="utf-8") as f:
    for i, (user, kind, q, ev, ans, ln) in enumerate(questions, 1):
        evl = []
        for e in [x.strip() for x in ev.split(",") if x.strip() and x.strip() != "-"]:
            if (user, e) not in tags:
                sys.exit(f"{user}.txt:{ln}: unknown evidence {e}")
            s, t = tags[(user, e)]
            evl.append({"session": s, "turn": t})
        f.write(
            json.dumps(
                {
                    "id": f"zh-q{i:03d}",
                    "user": user,
                    "question": q,
                    "evidence": evl,
                    "kind": kind,
                    "answer": ans,
                },
                ensure_ascii=False,
            )
            + "\n"
        )
print(len(turns), "turns,", len(questions), "questions")
