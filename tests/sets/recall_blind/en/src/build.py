#!/usr/bin/env python3
"""Build conversations.jsonl and questions.jsonl from the hand-written sources.

Source format (src/<user>.txt):
    # comment lines start with a single '#'
    @user <id>
    @tz <IANA zone>
    @session <id> <local start, YYYY-MM-DDTHH:MM> [project=<slug>]
    U: text                 user turn
    A: text                 assistant turn
    U@label: text           user turn that is evidence, referenced by label
    A@label: text           assistant turn that is evidence

Questions (src/questions.txt), one per line, fields separated by ' | ':
    user | kind | label1,label2 (or -) | question | reference answer

Turn numbers start at 1 in every session.  Times are local wall-clock times in
the user's zone, advanced by a deterministic pseudo-random gap per turn (user
turns 1-4 min, assistant turns 20-90 s), and written with the real UTC offset
for that instant (zoneinfo), so DST changes are honoured.
Standard library only.
"""
import json
import random
import re
import sys
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

SRC = Path(__file__).resolve().parent
OUT = SRC.parent
USERS = ["owen", "marek", "yuki", "aroha"]
TURN_RE = re.compile(r"^(U|A)(?:@([A-Za-z0-9_]+))?:\s*(.*)$")


def parse_user(path):
    user = tz = None
    sessions = []  # list of dicts
    cur = None
    for lineno, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or (line.startswith("#") and not line.startswith("##")):
            continue
        if line.startswith("@user "):
            user = line.split(None, 1)[1].strip()
            continue
        if line.startswith("@tz "):
            tz = line.split(None, 1)[1].strip()
            continue
        if line.startswith("@session "):
            parts = line.split()
            sid, start = parts[1], parts[2]
            project = None
            for p in parts[3:]:
                if p.startswith("project="):
                    project = p.split("=", 1)[1]
            cur = {"id": sid, "start": start, "project": project, "turns": []}
            sessions.append(cur)
            continue
        m = TURN_RE.match(line)
        if not m:
            sys.exit(f"{path.name}:{lineno}: cannot parse: {raw[:60]}")
        if cur is None:
            sys.exit(f"{path.name}:{lineno}: turn before any @session")
        who, label, text = m.groups()
        if not text:
            sys.exit(f"{path.name}:{lineno}: empty turn")
        cur["turns"].append({"speaker": "user" if who == "U" else "assistant",
                             "label": label, "text": text, "line": lineno})
    if not user or not tz:
        sys.exit(f"{path.name}: missing @user or @tz")
    return user, tz, sessions


def main():
    rows = []
    labels = {}
    for u in USERS:
        user, tz, sessions = parse_user(SRC / f"{u}.txt")
        assert user == u, (user, u)
        zone = ZoneInfo(tz)
        for s in sessions:
            rng = random.Random(s["id"])
            t = datetime.fromisoformat(s["start"])  # naive local wall time
            for i, turn in enumerate(s["turns"], 1):
                if i > 1:
                    if turn["speaker"] == "user":
                        t += timedelta(seconds=rng.randint(60, 240))
                    else:
                        t += timedelta(seconds=rng.randint(20, 90))
                aware = t.replace(tzinfo=zone)
                row = {"session": s["id"], "turn": i, "speaker": turn["speaker"],
                       "time": aware.isoformat(timespec="seconds"),
                       "text": turn["text"], "user": user}
                if s["project"]:
                    row["project"] = s["project"]
                rows.append(row)
                if turn["label"]:
                    if turn["label"] in labels:
                        sys.exit(f"duplicate label {turn['label']}")
                    labels[turn["label"]] = (user, s["id"], i)
    with open(OUT / "conversations.jsonl", "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")

    questions = []
    used = set()
    n = 0
    for lineno, raw in enumerate((SRC / "questions.txt").read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(" | ")]
        if len(parts) != 5:
            sys.exit(f"questions.txt:{lineno}: expected 5 fields, got {len(parts)}")
        user, kind, labs, question, answer = parts
        ev = []
        if labs != "-":
            for lab in labs.split(","):
                lab = lab.strip()
                if lab not in labels:
                    sys.exit(f"questions.txt:{lineno}: unknown label {lab}")
                lu, sid, turn = labels[lab]
                if lu != user:
                    sys.exit(f"questions.txt:{lineno}: label {lab} belongs to {lu}, not {user}")
                ev.append({"session": sid, "turn": turn})
                used.add(lab)
        n += 1
        questions.append({"id": f"enb-q{n:03d}", "user": user, "question": question,
                          "evidence": ev, "kind": kind, "answer": answer})
    with open(OUT / "questions.jsonl", "w", encoding="utf-8") as f:
        for q in questions:
            f.write(json.dumps(q, ensure_ascii=False) + "\n")

    unused = sorted(set(labels) - used)
    print(f"turns: {len(rows)}  sessions: {len({r['session'] for r in rows})}  "
          f"questions: {len(questions)}  labels: {len(labels)}  unused labels: {len(unused)}")
    if unused:
        print("  unused:", ", ".join(unused))


if __name__ == "__main__":
    main()
