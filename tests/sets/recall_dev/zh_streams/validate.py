#!/usr/bin/env python3
"""校验 conversations.jsonl / questions.jsonl。

硬性检查（失败即退出码 1）：
  - 每行是合法 JSON，字段齐全、类型正确
  - session == user，speaker == "user"，人 id 形如 p0001 且连续编号
  - 每条流 turn 从 1 连续编号，时间严格递增，2026 年内，偏移为 +08:00
  - 每条流 5–25 条消息
  - 问题 id 唯一且形如 zs-q0001；每个人恰好一个问题
  - 证据指向本人 session 中存在的 turn，且不重复
  - kind 合法；multi 有 2–3 条证据，其余恰好 1 条
软性提示（只打印，不算失败）：
  - 问题与证据之间出现较长的共同中文子串（可能照抄了有特点的词）
  - 参考答案与证据没有任何共同的两字片段（答案可能不在证据里）
用法： python3 validate.py [--show]   （--show 打印每道题的证据及其日期/星期，便于人工核对）
"""
import datetime as dt
import json
import os
import re
import sys
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = {"fact", "temporal", "preference", "update", "multi"}
WEEK = "一二三四五六日"
LCS_WARN = 4  # 问题与证据共同子串达到这个长度就提示


def load(name):
    rows = []
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise SystemExit(f"{name}:{i} JSON 错误: {e}")
    return rows


def longest_common(a, b):
    """a 与 b 的最长公共子串（只看去掉标点/空白后的文本）。"""
    best = ""
    n = len(a)
    for i in range(n):
        for j in range(i + len(best) + 1, n + 1):
            if a[i:j] in b:
                best = a[i:j]
            else:
                break
    return best


def norm(s):
    return re.sub(r"[\s，。、？！；：“”\"'（）()《》·,.?!;:]+", "", s)


def main():
    show = "--show" in sys.argv
    errs = []
    warns = []
    conv = load("conversations.jsonl")
    qs = load("questions.jsonl")

    streams = defaultdict(list)
    for r in conv:
        need = {"session": str, "turn": int, "speaker": str, "time": str, "text": str, "user": str}
        for k, t in need.items():
            if not isinstance(r.get(k), t):
                errs.append(f"消息缺字段或类型错: {k} in {r}")
        if set(r) != set(need):
            errs.append(f"消息字段多余/缺失: {sorted(r)}")
        if r.get("session") != r.get("user"):
            errs.append(f"session 与 user 不一致: {r}")
        if r.get("speaker") != "user":
            errs.append(f"speaker 不是 user: {r}")
        if not r.get("text", "").strip():
            errs.append(f"空消息: {r}")
        streams[r["session"]].append(r)

    pids = sorted(streams)
    for i, pid in enumerate(pids, 1):
        if pid != f"p{i:04d}":
            errs.append(f"人 id 不连续: 第 {i} 个是 {pid}")
            break

    times = {}
    for pid, msgs in streams.items():
        if not re.fullmatch(r"p\d{4}", pid):
            errs.append(f"人 id 格式错: {pid}")
        turns = [m["turn"] for m in msgs]
        if turns != list(range(1, len(msgs) + 1)):
            errs.append(f"{pid}: turn 不是从 1 连续编号: {turns}")
        if not (5 <= len(msgs) <= 25):
            errs.append(f"{pid}: 消息数 {len(msgs)} 不在 5–25")
        prev = None
        for m in msgs:
            s = m["time"]
            if not re.fullmatch(r"2026-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+08:00", s):
                errs.append(f"{pid} turn {m['turn']}: 时间格式/偏移不对: {s}")
                continue
            t = dt.datetime.fromisoformat(s)
            if t.utcoffset() != dt.timedelta(hours=8) or t.year != 2026:
                errs.append(f"{pid} turn {m['turn']}: 不在 2026 或偏移不是 +08:00: {s}")
            if prev and t <= prev:
                errs.append(f"{pid} turn {m['turn']}: 时间没有严格递增 ({prev} -> {t})")
            prev = t
            times[(pid, m["turn"])] = t

    ids = Counter(q.get("id") for q in qs)
    for qid, c in ids.items():
        if c > 1:
            errs.append(f"问题 id 重复: {qid}")
        if not re.fullmatch(r"zs-q\d{4}", str(qid)):
            errs.append(f"问题 id 格式错: {qid}")
    per_user = Counter(q.get("user") for q in qs)
    for pid in pids:
        if per_user.get(pid, 0) != 1:
            errs.append(f"{pid}: 问题数 {per_user.get(pid, 0)}，应恰好 1 个")
    for pid in per_user:
        if pid not in streams:
            errs.append(f"问题指向不存在的人: {pid}")

    kinds = Counter()
    nev = Counter()
    for q in qs:
        need = {"id", "user", "question", "evidence", "kind", "answer"}
        if set(q) != need:
            errs.append(f"{q.get('id')}: 字段不对 {sorted(q)}")
        k = q.get("kind")
        kinds[k] += 1
        if k not in KINDS:
            errs.append(f"{q['id']}: kind 非法 {k}")
        ev = q.get("evidence") or []
        nev[len(ev)] += 1
        if k == "multi" and not (2 <= len(ev) <= 3):
            errs.append(f"{q['id']}: multi 需要 2–3 条证据，现在 {len(ev)}")
        if k != "multi" and len(ev) != 1:
            errs.append(f"{q['id']}: {k} 应有 1 条证据，现在 {len(ev)}")
        seen = set()
        for e in ev:
            key = (e.get("session"), e.get("turn"))
            if e.get("session") != q["user"]:
                errs.append(f"{q['id']}: 证据 session {e.get('session')} 不是提问人 {q['user']}")
            if key not in times:
                errs.append(f"{q['id']}: 证据不存在 {e}")
            if key in seen:
                errs.append(f"{q['id']}: 证据重复 {e}")
            seen.add(key)
        if not q.get("question", "").strip() or not q.get("answer", "").strip():
            errs.append(f"{q['id']}: 问题或答案为空")

        # 软性检查
        ev_texts = [streams[q["user"]][e["turn"] - 1]["text"] for e in ev if (e.get("session"), e.get("turn")) in times]
        qn = norm(q["question"])
        for et in ev_texts:
            lc = longest_common(qn, norm(et))
            if len(lc) >= LCS_WARN:
                warns.append(f"{q['id']}: 问题与证据共享长片段「{lc}」")
        an = norm(q["answer"])
        joined = norm("".join(ev_texts))
        grams = {an[i:i + 2] for i in range(len(an) - 1)}
        if grams and not any(g in joined for g in grams):
            warns.append(f"{q['id']}: 答案与证据没有共同两字片段")

        if show:
            print(f"== {q['id']} [{k}] {q['user']}  Q: {q['question']}")
            print(f"   A: {q['answer']}")
            for e in ev:
                t = times.get((e["session"], e["turn"]))
                if t:
                    txt = streams[q["user"]][e["turn"] - 1]["text"]
                    print(f"   E t{e['turn']} {t:%m-%d %H:%M} 周{WEEK[t.weekday()]}: {txt}")

    lens = [len(m) for m in streams.values()]
    print(f"流 {len(streams)} 条；消息 {len(conv)} 条（每流 {min(lens)}–{max(lens)}，平均 {len(conv)/len(streams):.1f}）；问题 {len(qs)} 个")
    print("类型:", dict(sorted(kinds.items())))
    print("证据条数分布:", dict(sorted(nev.items())))
    for w in warns:
        print("提示:", w)
    if errs:
        for e in errs:
            print("错误:", e)
        print(f"失败：{len(errs)} 个错误")
        return 1
    print(f"通过（{len(warns)} 条软性提示）")
    return 0


if __name__ == "__main__":
    sys.exit(main())
