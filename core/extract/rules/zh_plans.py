"""Chinese to-dos and plans: the step ``_zh_step_todo_plan`` (a to-do, else a plan), with what it
reads: the to-do a clause asks to be reminded of or promises, next to a bare "提醒我一下"; a trip, an intention or
an event with a future time; a thing due by a day (a to-do or a deadline)."""

from __future__ import annotations

from datetime import datetime

from ...lang.times import find_times
from ..interpret import Whole, searched
from ..records import Raw as _Raw
from .text import _P, _ba, _clean, _strip_times, _trim_measure


def _zh_step_todo_plan(c: str, whole: str, when: datetime, project: bool, out: list[_Raw]) -> bool:
    """To-dos, else plans. True stops the clause's later steps."""
    add = out.append
    todo = _zh_todo(c, whole, when)
    if todo:  # "发到我邮箱 a@b.cn": the address says whose it is
        add(_Raw("todo", _P["zh.todo.1"].sub("", todo)))
    elif (unsure := _P["zh.hedged_intent"].search(c)) is not None and not out \
            and not _P["zh.hedged_intent_unless"].search(whole):
        # "今年可能也报个青年基金": an intention said unsure, a plan for a reviewer, whatever time it names
        add(_Raw("plan", _trim_measure(_strip_times(unsure.group("vp"), when).strip(" ，,。")), hedged=True))
    else:
        m = _P["zh.todo.2"].search(c)
        if m and not any(r.predicate == "budget_limit" for r in out):
            obj = _P["zh.todo.3"].sub(r"\1", _strip_times(m.group(1), when))
            obj = _trim_measure(_P["zh.todo.4"].sub("", obj).strip(" ，,。"))
            add(_Raw("plan", _with_fronted_thing(_strip_times(c[:m.start()], when), obj)))
        elif (trip := _zh_future_trip(c, when)) and not any(r.predicate == "budget_limit" for r in out):
            add(_Raw("plan", trip))
        elif not out and _opens_on_its_day(c, when) and (due := _zh_due_by(c, when, whole)) is not None:
            add(due)  # "…还没办，要在5月15号前搞定": the thing is the clause before's, not a plan of "在搞定"
        else:
            modal = (_P["zh.modals"].search(c) or _P["zh.wish"].search(c) and _to_come(c, when)) \
                and not any(r.predicate == "budget_limit" for r in out) and find_times(c, when)
            plan = (_zh_timed_plan(c, when) if modal else None) or (_zh_dated_event(c, when) if not out else None)
            if plan:  # "下周三我们要做版本评审", "我们月底开一次复盘会"
                add(_Raw("plan", plan))
            elif not out and (due := _zh_due_by(c, when, whole)) is not None:  # "节目单周五之前发给大家", "基金委3月20号截止"
                add(due)
            elif not out and (wished := _P["zh.wished_change"].search(c)) is not None \
                    and not _P["zh.cond"].search(str(whole).strip()):  # "今年想换个离公司近点的房子"; not "如果预算够的话，我想…"
                add(_Raw("plan", _trim_measure(_strip_times(wished.group("vp"), when).strip(" ，,。"))))
    return False


def _with_fronted_thing(before: str, vp: str) -> str:
    """A planned verb standing alone with its thing said first, before 打算/准备: the verb with its thing ("婚礼打算
    10月办" -> 办婚礼, "年会打算放在周五办" -> 办年会; "搬家打算下个月搬" -> 搬家, the verb already in it); ``vp`` as
    it is when it says more, or nothing was said before it but the speaker."""
    verb = _P["zh.fronted_thing.1"].sub("", vp)
    if len(verb) > 2 or not verb:
        return vp
    thing = _P["zh.fronted_thing.2"].sub("", before.strip(" ，,")).strip(" ，,")
    if not _P["zh.fronted_thing.3"].fullmatch(thing) or _P["zh.timed_plan.2"].search(thing):
        return vp
    return thing if verb[0] in thing else f"{verb}{thing}"


def _zh_todo(c: str, whole: str, when: datetime) -> str | None:
    m = _P["zh.todo.5"].search(c)
    if m and find_times(c, when) or _P["zh.todo.6"].search(c):
        return "起床"  # "明早八点叫我起床": a wake-up call
    if _P["zh.todo.7"].search(c) or (
            searched(_BARE_REMINDER, whole) and _next_to_bare_reminder(c, whole)
            and (_P["zh.todo.8"].search(c) or find_times(c, when))):
        body = _strip_times(c, when)
        body = _P["zh.todo.9"].sub("", body)
        body = _P["zh.todo.10"].sub("", body.strip(" ，,"))
        body = _P["zh.todo.11"].sub("", body, count=1)  # its modal: "(我)要交房租", "得去买钙肥"
        body = _trim_measure(_clean(body, True))
        return _ba(body) or None
    if _P["zh.todo.12"].search(c) and find_times(c, when):
        body = _strip_times(c, when)
        body = _P["zh.todo.13"].sub("", body)
        return _ba(_clean(body, True)) or None
    m = _P["zh.todo.14"].match(c)
    if m and (find_times(m.group("rest"), when) or _P["zh.todo.15"].match(m.group("rest"))):
        # "接口文档我今晚补齐": the object put first
        v = _P["zh.todo.16"].fullmatch(_strip_times(m.group("rest"), when))
        if v and not _P["zh.todo.17"].search(v.group(1)):
            return v.group(1) + m.group("obj")
    m = _P["zh.todo.18"].search(c)
    if m and (find_times(c, when) or _P["zh.todo.19"].search(c)):
        return _ba(_clean(_strip_times(m.group(1), when), True)) or None
    m = _P["zh.todo.20"].match(_strip_times(c, when))
    if m and (find_times(c, when) or _P["zh.todo.21"].search(c)):  # "我回头把文件发你"
        return _ba(_P["zh.todo.22"].sub(r"\1给你", m.group(1))) or None
    m = _P["zh.todo.23"].match(_strip_times(c, when))
    if m and (find_times(c, when) or _P["zh.todo.24"].search(c)):  # "我明天把脚手架搭好"
        return _P["zh.todo.25"].sub("", _ba(m.group(1))) or None
    return None


_BARE_REMINDER = _P["zh.bare_reminder"]


def _next_to_bare_reminder(clause: str, whole: str) -> bool:
    """Whether ``clause`` sits right before or after a bare "提醒我一下"/"帮我记一下" clause of ``whole``."""
    def parts() -> tuple[list[str], dict[str, int]]:
        split = [x.strip() for x in _P["en.next_to_bare_reminder.1"].split(whole) if x.strip()]
        first: dict[str, int] = {}
        for i, part in enumerate(split):
            first.setdefault(part, i)
        return split, first

    split, first = whole.once("bare_reminder_parts", parts) if isinstance(whole, Whole) else parts()
    i = first.get(clause)
    if i is None:
        return False
    near = split[i - 1:i] + split[i + 1:i + 2]
    return any(_BARE_REMINDER.fullmatch(n) for n in near)


def _zh_due_by(clause: str, when: datetime, whole: str = "") -> _Raw | None:
    """A thing due by a day, said topic first: the topic, a day, then 之前/前 and what is to be done by it (a to-do:
    "节目单周五之前发给大家" -> 节目单发给大家) or 截止 and nothing more (a deadline: "基金委3月20号截止" -> 基金委).
    A clause that opens on the day has its topic in the clause before it in ``whole`` ("医保异地备案还没办，要在5月15号
    前搞定", "要一份体检报告，3月20号之前交": ``_topic_before``). Due the day named; None when the clause is not
    said so, or its topic is a person (a promise: handled before)."""
    times = find_times(clause, when)
    if not times:
        return None
    start, end, _ = times[0]
    m = _P["zh.due_by.1"].match(clause, end)
    if m is None:
        return None
    topic = _P["zh.due_by.2"].sub("", clause[:start]).strip(" ，,、")
    from_before = not topic
    if from_before:
        topic = _topic_before(clause, whole)
    rest = _P["zh.due_by.3"].sub("", clause[m.end():].strip(" ，,")).strip(" ，,。！!~")
    # lengths in units (a Chinese character, an English word: "metadata schema" is two), as a mixed topic is said
    if not 1 <= _units(topic) <= _TOPIC_UNITS or _P["zh.due_by.4"].fullmatch(topic):
        return None
    if m.group("closes"):
        return None if rest else _Raw("deadline", topic, due=clause[start:end])
    vp = _P["zh.due_by.5"].sub("", rest)
    if not vp or _units(vp) > _DONE_UNITS or (from_before and _P["zh.due_by.not_a_thing"].search(vp)):
        return None  # (what is done by a day said apart from its thing must be a deed: not 太忙了, 我去借)
    return _Raw("todo", _trim_measure(f"{topic}{vp}"), due=clause[start:end])


def _opens_on_its_day(clause: str, when: datetime) -> bool:
    """Whether a clause opens on a day, but for a modal or 在 before it (要在5月15号前, 3月20号之前): a due-by
    clause whose thing is said in the clause before it."""
    times = find_times(clause, when)
    return bool(times) and not _P["zh.due_by.2"].sub("", clause[:times[0][0]]).strip(" ，,、")


def _topic_before(clause: str, whole: str) -> str:
    """The thing the clause before ``clause`` in ``whole`` names, for a due-by clause that opens on its day: that
    clause without what it says of the thing besides (``zh.due_by.topic_before``: 还没办, 要一份); "" when
    ``clause`` opens the turn or its clause before is no short naming of a thing."""
    at = whole.find(clause)
    if at <= 0:
        return ""
    before = _P["zh.due_by.clause_break"].split(whole[:at].rstrip(" ，,"))[-1]
    thing = _P["zh.due_by.2"].sub("", _P["zh.due_by.topic_before"].sub("", before)).strip(" ，,、")
    # a clause of someone doing something (我来订, 你来办), a proposal (提前吧) or a remark is no naming of a thing
    return "" if _P["zh.due_by.not_a_thing"].search(thing) else thing


_TOPIC_UNITS = 10  # a due-by clause's topic, at most
_DONE_UNITS = 12  # what is to be done by the day, at most


def _units(text: str) -> int:
    """Chinese characters, English words and numbers in ``text`` (``shared.unit``)."""
    return len(_P["shared.unit"].findall(text))


def _to_come(clause: str, when: datetime) -> bool:
    """Whether the first time ``clause`` names is after the day it is said (想 intends only what is to come)."""
    times = find_times(clause, when)
    return bool(times) and times[0][2].start.date() > when.date()


def _zh_future_trip(clause: str, when: datetime) -> str | None:
    """A future time and 去 + a place or errand: "下个月去日本玩" -> 去日本玩. A past time or 了/过 is an anecdote."""
    times = find_times(clause, when)
    if not times or times[0][2].start.date() <= when.date():
        return None
    body = _strip_times(clause, when)
    m = _P["zh.future_trip.1"].match(body)
    if not m or _P["zh.future_trip.2"].search(m.group("vp")):
        return None
    return "去" + _trim_measure(_P["zh.future_trip.3"].sub("", m.group("vp")))


def _zh_timed_plan(clause: str, when: datetime) -> str | None:
    """An intention with a time: "下周三我们要做版本评审" -> 版本评审, "周五要去4S店保养车" -> 去4S店保养车,
    "设计稿下周五前必须定稿" -> 设计稿定稿; after a longer opening, the thing is what follows its measure word or a
    space ("在赶一个支付模块 3月20号必须上线" -> 支付模块上线). Promises (我会…) are todos and handled before."""
    body = _strip_times(clause, when)
    m = _P["zh.timed_plan.1"].match(body)
    if not m or _P["zh.timed_plan.2"].search(m.group("topic")) or _P["zh.timed_plan.2"].search(m.group("lead") or ""):
        return None
    if m.group("lead") is not None and not (_P["zh.fronted_thing.3"].fullmatch(m.group("topic").strip())
                                            and _P["zh.timed_plan.11"].fullmatch(m.group("modal"))):
        return None  # after a longer opening: a thing named alone, then a modal of obligation
    if _P["zh.timed_plan.3"].search(m.group("vp")) or _P["zh.timed_plan.4"].search(m.group("topic")):
        return None  # "以后开会尽量别约在周一早上" asks for something not to happen
    vp = _P["zh.timed_plan.5"].sub("", _P["zh.timed_plan.10"].sub("", m.group("vp")))  # "五一之后去成都" -> 去成都
    vp = _trim_measure(_P["zh.timed_plan.6"].sub("", vp).strip())
    if not vp or len(vp) > 16 or _P["zh.impersonal"].match(vp) or _P["zh.timed_plan.7"].search(m.group("topic")):
        return None
    topic = _P["zh.timed_plan.8"].sub("", m.group("topic")).strip(" ，,")
    topic = _P["zh.timed_plan.9"].sub("", topic)
    return f"{topic}{vp}" if topic and not _P["zh.timed_plan.10"].search(topic) else vp


def _zh_dated_event(clause: str, when: datetime) -> str | None:
    """A clause that opens with a future date and goes straight on to what happens then: the plan."""
    clause = _P["zh.dated_event.1"].sub("", clause)  # "我们月底开一次复盘会"
    times = find_times(clause, when)
    if not times or times[0][0] != 0 or times[0][2].start < when.replace(hour=0, minute=0, second=0, microsecond=0):
        return None
    body = _strip_times(clause, when)
    if not _P["zh.scheduled"].match(body) or _P["zh.dated_event.2"].search(body) or not 2 <= len(body) <= 12:
        return None
    return _P["zh.dated_event.3"].sub("", body) or None
