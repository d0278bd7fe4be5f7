#!/usr/bin/env python3
"""把 _src/batch*.txt 手写源文本生成为 conversations.jsonl 和 questions.jsonl。

只用标准库。格式见 _src/FORMAT.txt。
用法： python3 build.py
"""
import datetime as dt
import glob
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "_src")
TZ = dt.timezone(dt.timedelta(hours=8))
KINDS = {"fact", "temporal", "preference", "update", "multi"}

HEAD_RE = re.compile(r"^#\s*(p\d{4})\s*\|\s*(\d{4}-\d{2}-\d{2})\s*\|\s*([^|]*)\|\s*(.*)$")
MSG_RE = re.compile(r"^\+(\d+)\s+(\d{1,2}):(\d{2})(?:\s+([a-z](?:,[a-z])*))?\s*\|\s*(.+)$")
Q_RE = re.compile(r"^\?\s*(\w+)\s+([a-z](?:\s*,\s*[a-z])*)\s*\|\s*(.+?)\s*\|\s*(.+)$")


class SrcError(Exception):
    pass


def parse_file(path):
    streams = []
    cur = None
    for lineno, raw in enumerate(open(path, encoding="utf-8"), 1):
        line = raw.rstrip("\n").strip()
        where = f"{os.path.basename(path)}:{lineno}"
        if not line or line.startswith("//"):
            continue
        if line.startswith("#"):
            m = HEAD_RE.match(line)
            if not m:
                raise SrcError(f"{where}: 标题行格式错误: {line}")
            pid, start, city, bio = m.groups()
            cur = {
                "pid": pid,
                "start": dt.date.fromisoformat(start),
                "city": city.strip(),
                "bio": bio.strip(),
                "msgs": [],
                "tags": {},
                "questions": [],
                "where": where,
            }
            streams.append(cur)
            continue
        if cur is None:
            raise SrcError(f"{where}: 标题行之前出现内容")
        if line.startswith("+"):
            m = MSG_RE.match(line)
            if not m:
                raise SrcError(f"{where}: 消息行格式错误: {line}")
            off, hh, mm, tags, text = m.groups()
            day = cur["start"] + dt.timedelta(days=int(off))
            t = dt.datetime(day.year, day.month, day.day, int(hh), int(mm), tzinfo=TZ)
            turn = len(cur["msgs"]) + 1
            cur["msgs"].append({"turn": turn, "time": t, "text": text.strip(), "where": where})
            if tags:
                for tag in tags.split(","):
                    if tag in cur["tags"]:
                        raise SrcError(f"{where}: 标签 {tag} 在 {cur['pid']} 中重复")
                    cur["tags"][tag] = turn
            continue
        if line.startswith("?"):
            m = Q_RE.match(line)
            if not m:
                raise SrcError(f"{where}: 问题行格式错误: {line}")
            kind, tags, q, a = m.groups()
            if kind not in KINDS:
                raise SrcError(f"{where}: 未知 kind {kind}")
            cur["questions"].append({
                "kind": kind,
                "tags": [x.strip() for x in tags.split(",")],
                "question": q.strip(),
                "answer": a.strip(),
                "where": where,
            })
            continue
        raise SrcError(f"{where}: 无法识别的行: {line}")
    return streams


def main():
    files = sorted(glob.glob(os.path.join(SRC, "batch*.txt")))
    if not files:
        print("没有找到 _src/batch*.txt", file=sys.stderr)
        return 1
    streams = []
    try:
        for f in files:
            streams.extend(parse_file(f))
    except SrcError as e:
        print("源文本错误:", e, file=sys.stderr)
        return 1

    seen = set()
    for s in streams:
        if s["pid"] in seen:
            print(f"重复的人 id: {s['pid']} ({s['where']})", file=sys.stderr)
            return 1
        seen.add(s["pid"])
    streams.sort(key=lambda s: s["pid"])

    conv_lines, q_lines = [], []
    errors = 0
    for s in streams:
        pid = s["pid"]
        for m in s["msgs"]:
            conv_lines.append({
                "session": pid,
                "turn": m["turn"],
                "speaker": "user",
                "time": m["time"].isoformat(),
                "text": m["text"],
                "user": pid,
            })
        for q in s["questions"]:
            ev = []
            for tag in q["tags"]:
                if tag not in s["tags"]:
                    print(f"{q['where']}: {pid} 没有标签 {tag}", file=sys.stderr)
                    errors += 1
                    continue
                ev.append({"session": pid, "turn": s["tags"][tag]})
            ev.sort(key=lambda e: e["turn"])
            q_lines.append({
                "id": None,
                "user": pid,
                "question": q["question"],
                "evidence": ev,
                "kind": q["kind"],
                "answer": q["answer"],
            })
    if errors:
        return 1
    for i, q in enumerate(q_lines, 1):
        q["id"] = f"zs-q{i:04d}"

    with open(os.path.join(HERE, "conversations.jsonl"), "w", encoding="utf-8") as f:
        for r in conv_lines:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    with open(os.path.join(HERE, "questions.jsonl"), "w", encoding="utf-8") as f:
        for r in q_lines:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"流 {len(streams)} 条，消息 {len(conv_lines)} 条，问题 {len(q_lines)} 个")
    return 0


if __name__ == "__main__":
    sys.exit(main())
