#!/usr/bin/env python3
"""Build conversations.jsonl and questions.jsonl from hand-written sources in _src/.

Source format (one or more files _src/*.txt, processed in sorted order):

    # b0001 | 城市 | 人物简介（只作备注，不进入数据）
    03-02 09:15 | 消息文本
    03-05 21:40 *a | 带标签 a 的消息（证据候选）
    Q <kind> <tag>[,<tag>...] | 问题 | 简短参考答案

  * 以 "//" 开头的行是注释；空行忽略。
  * 时间写 "MM-DD HH:MM"，年份固定 2026，偏移固定 +08:00。
  * 每个 "#" 块是一个人 / 一条流 / 一个 session，恰好一行 Q。
Only the Python 3 standard library is used.
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "_src")
YEAR = 2026
OFFSET = "+08:00"
KINDS = {"fact", "temporal", "preference", "update", "multi"}

HEAD_RE = re.compile(r"^#\s*(b\d{4})\s*\|\s*([^|]*)\|\s*(.*)$")
MSG_RE = re.compile(r"^(\d{2})-(\d{2})\s+(\d{2}):(\d{2})((?:\s+\*[a-z])*)\s*\|\s*(.+)$")
Q_RE = re.compile(r"^Q\s+(\w+)\s+([a-z](?:,[a-z])*)\s*\|\s*(.+?)\s*\|\s*(.+)$")


class SrcError(Exception):
    pass


def parse(path):
    streams = []
    cur = None
    with open(path, encoding="utf-8") as f:
        for ln, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("//"):
                continue
            where = f"{os.path.basename(path)}:{ln}"
            m = HEAD_RE.match(line)
            if m:
                cur = {"user": m.group(1), "city": m.group(2).strip(),
                       "note": m.group(3).strip(), "msgs": [], "qs": [],
                       "where": where}
                streams.append(cur)
                continue
            if cur is None:
                raise SrcError(f"{where}: content before first header")
            m = MSG_RE.match(line)
            if m:
                mo, d, hh, mi, tags, text = m.groups()
                tags = [t.strip()[1:] for t in tags.split() if t.strip()]
                cur["msgs"].append({
                    "time": f"{YEAR}-{mo}-{d}T{hh}:{mi}:00{OFFSET}",
                    "tags": tags, "text": text.strip(), "where": where})
                continue
            m = Q_RE.match(line)
            if m:
                kind, tags, q, a = m.groups()
                if kind not in KINDS:
                    raise SrcError(f"{where}: unknown kind {kind!r}")
                cur["qs"].append({"kind": kind, "tags": tags.split(","),
                                  "question": q.strip(), "answer": a.strip(),
                                  "where": where})
                continue
            raise SrcError(f"{where}: cannot parse line: {line[:60]}")
    return streams


def main():
    files = sorted(f for f in os.listdir(SRC) if f.endswith(".txt"))
    if not files:
        sys.exit("no source files in _src/")
    streams = []
    for fn in files:
        streams.extend(parse(os.path.join(SRC, fn)))
    streams.sort(key=lambda s: s["user"])

    conv_rows, q_rows = [], []
    qn = 0
    for s in streams:
        tagmap = {}
        for i, msg in enumerate(s["msgs"], 1):
            for t in msg["tags"]:
                if t in tagmap:
                    raise SrcError(f"{msg['where']}: duplicate tag *{t} in {s['user']}")
                tagmap[t] = i
            conv_rows.append({"session": s["user"], "turn": i, "speaker": "user",
                              "time": msg["time"], "text": msg["text"],
                              "user": s["user"]})
        for q in s["qs"]:
            qn += 1
            ev = []
            for t in q["tags"]:
                if t not in tagmap:
                    raise SrcError(f"{q['where']}: tag *{t} not found in {s['user']}")
                ev.append({"session": s["user"], "turn": tagmap[t]})
            q_rows.append({"id": f"zsb-q{qn:04d}", "user": s["user"],
                           "question": q["question"], "evidence": ev,
                           "kind": q["kind"], "answer": q["answer"]})

    with open(os.path.join(HERE, "conversations.jsonl"), "w", encoding="utf-8") as f:
        for r in conv_rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    with open(os.path.join(HERE, "questions.jsonl"), "w", encoding="utf-8") as f:
        for r in q_rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"sources: {len(files)} files; streams: {len(streams)}; "
          f"messages: {len(conv_rows)}; questions: {len(q_rows)}")


if __name__ == "__main__":
    try:
        main()
    except SrcError as e:
        sys.exit(f"ERROR {e}")
