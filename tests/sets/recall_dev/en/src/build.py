import datetime as dt
import glob
import hashlib
import json
import re
from collections import Counter
from zoneinfo import ZoneInfo

HERE = __file__.rsplit("/", 2)[0]
turns, questions, labels = [], [], {}
for path in sorted(glob.glob(HERE + "/src/*.txt")):
    user = tz = None
    sess = None
    for ln, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if not line.strip():
            continue
        if line.startswith("@user"):
            _, user, tz = line.split()
            continue
        m = re.match(r"== (s\d\d) (\d{4}-\d\d-\d\d) (\d\d:\d\d)(?: project=(\S+))?$", line)
        if m:
            sess = {
                "id": f"{user}-{m[1]}",
                "n": 0,
                "project": m[4],
                "t": dt.datetime.fromisoformat(f"{m[2]}T{m[3]}:00").replace(tzinfo=ZoneInfo(tz)),
            }
            continue
        if line.startswith("Q:"):
            kind, labs, q, a = [x.strip() for x in line[2:].split("|")]
            questions.append((user, kind, [] if labs == "-" else labs.split(","), q, a, path, ln))
            continue
        m = re.match(r"([UA]): (.*?)(?: ##(\w+))?$", line)
        assert m and sess, (path, ln, line)
        sess["n"] += 1
        if sess["n"] > 1:
            h = int(hashlib.md5(f"{sess['id']}{sess['n']}".encode()).hexdigest(), 16)
            sess["t"] += dt.timedelta(seconds=40 + h % 140 + len(m[2]) // 2)
        t = {
            "session": sess["id"],
            "turn": sess["n"],
            "speaker": "user" if m[1] == "U" else "assistant",
            "time": sess["t"].replace(microsecond=0).isoformat(),
            "text": m[2],
            "user": user,
        }
        if sess["project"]:
            t["project"] = sess["project"]
        assert "##" not in m[2], (path, ln)
        turns.append(t)
        if m[3]:
            assert m[3] not in labels, m[3]
            labels[m[3]] = t
with open(HERE + "/conversations.jsonl", "w", encoding="utf-8") as f:
    for t in turns:
        f.write(json.dumps(t, ensure_ascii=False) + "\n")
with open(HERE + "/questions.jsonl", "w", encoding="utf-8") as f:
    for i, (user, kind, labs, q, a, path, ln) in enumerate(questions, 1):
        ev = []
        for lab in labs:
            assert lab in labels, (path, ln, lab)
            assert labels[lab]["user"] == user
            ev.append({"session": labels[lab]["session"], "turn": labels[lab]["turn"]})
        f.write(
            json.dumps(
                {
                    "id": f"en-q{i:03d}",
                    "user": user,
                    "question": q,
                    "evidence": ev,
                    "kind": kind,
                    "answer": a,
                },
                ensure_ascii=False,
            )
            + "\n"
        )
sessions = Counter(t["session"] for t in turns)
print("users", len({t["user"] for t in turns}), "sessions", len(sessions), "turns", len(turns))
print({s: n for s, n in sessions.items()})
print("questions", len(questions), Counter(q[1] for q in questions))
print(
    "assistant-evidence questions",
    sum(any(labels[lab]["speaker"] == "assistant" for lab in q[2]) for q in questions),
)
