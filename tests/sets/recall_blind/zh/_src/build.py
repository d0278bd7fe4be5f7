#!/usr/bin/env python3
"""Build conversations.jsonl and questions.jsonl from the hand-written sources.

Source files (this folder):
  <user>_sNN-sMM.txt   conversation sources. Syntax:
      ## <session-id> | YYYY-MM-DD HH:MM | life            (or  | work:<project-slug>)
      U: text            user turn
      A: text            assistant turn
      U@label: text      labelled turn (label unique per user), same for A@label
      // comment         ignored; blank lines ignored
  <user>_questions.txt  questions. One per line:
      kind | question | label label ... (or -) | short answer
Standard library only. Deterministic.
"""
import json, os, re, sys, glob
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.dirname(HERE)
TZ = timezone(timedelta(hours=8))
USERS = ["hexiaoyu", "tangjun", "luoyiting", "fengkai"]
KINDS = {"single-hop", "temporal", "knowledge-update", "multi-hop", "preference", "adversarial"}

HDR = re.compile(r"^##\s*(\S+)\s*\|\s*(\d{4}-\d{2}-\d{2} \d{2}:\d{2})\s*\|\s*(life|work:[a-z0-9-]+)\s*$")
TURN = re.compile(r"^([UA])(?:@([A-Za-z0-9_]+))?[:：]\s*(.+)$")


def die(msg):
    print("BUILD ERROR:", msg, file=sys.stderr)
    sys.exit(1)


def parse_conversations(user):
    files = sorted(f for f in glob.glob(os.path.join(HERE, user + "_s*.txt")))
    if not files:
        die("no source for " + user)
    sessions = []  # list of dict(id, start, project, turns=[(spk,label,text)])
    for fn in files:
        cur = None
        for ln, raw in enumerate(open(fn, encoding="utf-8"), 1):
            line = raw.strip()
            if not line or line.startswith("//"):
                continue
            m = HDR.match(line)
            if m:
                sid, start, kind = m.groups()
                if not sid.startswith(user + "-s"):
                    die(f"{fn}:{ln} session id {sid} not of user {user}")
                cur = {"id": sid, "start": datetime.strptime(start, "%Y-%m-%d %H:%M").replace(tzinfo=TZ),
                       "project": kind.split(":", 1)[1] if kind.startswith("work:") else None, "turns": []}
                sessions.append(cur)
                continue
            m = TURN.match(line)
            if not m:
                die(f"{fn}:{ln} cannot parse: {line[:40]}")
            if cur is None:
                die(f"{fn}:{ln} turn before any session header")
            spk, label, text = m.groups()
            cur["turns"].append(("user" if spk == "U" else "assistant", label, text.strip()))
    return sessions


def build():
    conv_rows, labels = [], {}
    for user in USERS:
        for s in parse_conversations(user):
            t = s["start"]
            for i, (spk, label, text) in enumerate(s["turns"], 1):
                if i > 1:
                    # user typing time grows with length; assistant answers within a minute or two
                    step = 1 + len(text) // 25 if spk == "user" else 1 + len(text) // 120
                    t = t + timedelta(minutes=step)
                sec = (len(text) * 7 + i * 13) % 60
                ts = t.replace(second=sec)
                row = {"session": s["id"], "turn": i, "speaker": spk,
                       "time": ts.isoformat(), "text": text, "user": user}
                if s["project"]:
                    row["project"] = s["project"]
                conv_rows.append(row)
                if label:
                    key = (user, label)
                    if key in labels:
                        die(f"duplicate label {label} for {user}")
                    labels[key] = {"session": s["id"], "turn": i}
    q_rows, n = [], 0
    for user in USERS:
        fn = os.path.join(HERE, user + "_questions.txt")
        for ln, raw in enumerate(open(fn, encoding="utf-8"), 1):
            line = raw.strip()
            if not line or line.startswith("//"):
                continue
            parts = [p.strip() for p in line.split("|")]
            if len(parts) != 4:
                die(f"{fn}:{ln} needs 4 fields, got {len(parts)}")
            kind, q, labs, ans = parts
            if kind not in KINDS:
                die(f"{fn}:{ln} bad kind {kind}")
            ev = []
            if labs != "-":
                for lab in labs.split():
                    if (user, lab) not in labels:
                        die(f"{fn}:{ln} unknown label {lab}")
                    ev.append(labels[(user, lab)])
            n += 1
            q_rows.append({"id": f"zhb-q{n:03d}", "user": user, "question": q,
                           "evidence": ev, "kind": kind, "answer": ans})
    with open(os.path.join(OUT, "conversations.jsonl"), "w", encoding="utf-8") as f:
        for r in conv_rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    with open(os.path.join(OUT, "questions.jsonl"), "w", encoding="utf-8") as f:
        for r in q_rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    used = {(q["user"], e["session"], e["turn"]) for q in q_rows for e in q["evidence"]}
    unused = [k for k, v in labels.items() if (k[0], v["session"], v["turn"]) not in used]
    print(f"built {len(conv_rows)} turns, {len(q_rows)} questions")
    if unused:
        print(f"{len(unused)} labels not used by any question (fine: labels are also notes)")
        if "-v" in sys.argv:
            print(" ".join(f"{u}:{l}" for u, l in unused))


if __name__ == "__main__":
    build()
