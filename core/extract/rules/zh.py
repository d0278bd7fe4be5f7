"""The Chinese steps: ``_ZH_STEPS``, run on each clause by ``_zh_rules`` until one settles it. Most are
the records of ``data/rules/steps/zh.*.toml``; the families not yet turned into records are step functions
here: allergies, likes and dislikes, decisions, budgets, pets, and to-dos and plans (``zh_plans``)."""

from __future__ import annotations

import dataclasses
import re
from datetime import datetime

from ...lang.amounts import find_amounts
from ...lang.times import find_times
from .. import interpret
from ..interpret import Clause, searched
from ..records import Raw as _Raw
from ..ruleset import RULES
from .readers import _TASTE_CONSUMED, _amount_obj, _taste_clause, _zh_budget_amount, _zh_topic_ok
from .steps import _data_step
from .text import _P, _clean, _lead
from .zh_plans import _zh_step_todo_plan

# what follows 不用/不考虑 when it is not an option: 不用再比了, 不用担心, 再贵就不考虑了
_ZH_NOT_AN_OPTION = _P["zh.not_an_option"]


def _zh_step_allergy(c: str, whole: str, when: datetime, project: bool, out: list[_Raw]) -> bool:
    """Allergies. True stops the clause's later steps."""
    add = out.append
    if "过敏" in c and "不过敏" not in c:
        before = _P["zh.opening_filler"].sub("", c[:c.index("过敏")])  # "对了我花生过敏": not 对…过敏
        if "对" in before:
            before = before[before.rindex("对") + 1:]
        before = _P["zh.allergy.1"].sub("", before)
        before = _P["zh.allergy.2"].sub("", before)
        fronted = _P["zh.allergy.3"].fullmatch(before)
        if fronted:
            before = fronted.group(1)  # "海鲜我一吃就过敏"
        if _P["zh.allergy.4"].search(before):
            touched = searched(_P["zh.allergy.5"], whole)
            before = touched.group(1) if touched else ""  # "我一碰芒果嘴就肿，医生说是过敏"
        before = _P["zh.allergen_lead"].sub("", before)  # "医生说海鲜过敏", "甜品的话我花生过敏"
        if _P["zh.allergy.none"].search(before):
            return False  # "吃的没啥过敏": no allergy said
        if _P["zh.allergy.despite"].search(before):
            before = ""  # "我自己是厨子还过敏": being a cook, and still allergic; the thing is named elsewhere
        if _P["zh.allergy.6"].fullmatch(before):
            before = ""  # "我吃不了海鲜，一吃就过敏": the thing is named before
            m = searched(_P["zh.allergy.7"], whole)
            if m:
                add(_Raw("allergy", _clean(m.group(1), True)))
        elif 1 <= len(before) <= 8 or _P["zh.allergy.8"].fullmatch(before):
            add(_Raw("allergy", before))
        elif not before:  # "布洛芬我吃了会起疹子，过敏"
            m = searched(_P["zh.allergy.9"], whole, "match")
            if m and c != whole:
                add(_Raw("allergy", m.group(1)))
    return False


def _zh_step_likes_dislikes(c: str, whole: str, when: datetime, project: bool, out: list[_Raw]) -> bool:
    """Likes and dislikes. True stops the clause's later steps."""
    first = len(out)
    _zh_tastes(_taste_clause(c, True), when, out)
    out[first:] = map(_thing_tasted, out[first:])
    return False


def _zh_tastes(c: str, when: datetime, out: list[_Raw]) -> None:
    """The likes and dislikes of a clause as ``_taste_clause`` reads it."""
    add = out.append
    neg_pref = _P["zh.likes_dislikes.1"].search(c)
    if neg_pref and _P["zh.likes_dislikes.2"].search(c[:neg_pref.start()]):
        neg_pref = None  # "我不是不喜欢吃辣", "我倒不讨厌加班": the dislike denied
    if neg_pref:
        obj = _P["zh.likes_dislikes.3"].sub("", _clean(neg_pref.group(1), True)) or _zh_fronted_object(c, neg_pref.start())
        obj = _P["zh.likes_dislikes.4"].sub("", obj)
        if obj and not _P["zh.likes_dislikes.5"].match(obj):
            add(_Raw("dislikes", obj))
        m = _P["zh.likes_dislikes.6"].search(c[:neg_pref.start()])  # "我喜欢爬山不喜欢游泳"
        if m and not _P["zh.likes_dislikes.7"].match(m.group(1)):
            add(_Raw("likes", _clean(m.group(1), True)))
    else:
        m = _P["zh.likes_dislikes.8"].search(c) \
            or _P["zh.likes_dislikes.9"].search(c)
        if m:
            add(_Raw("likes", _clean(m.group(1), True)))
        else:
            m = _P["zh.likes_dislikes.10"].search(c)
            if m and c[:m.start()].endswith("不"):
                m = None  # "我不是不喜欢吃辣" says no more than that
            if m and _P["zh.likes_dislikes.11"].search(c):
                obj = _clean(m.group(1), True)
                if not obj or _P["zh.likes_dislikes.12"].fullmatch(obj):  # "川菜我很爱吃", "我对桌游喜欢得不得了"
                    obj = _zh_fronted_object(c, m.start())
                if obj and not _P["zh.likes_dislikes.13"].match(obj):
                    add(_Raw("likes", obj))
    m = _P["zh.likes_dislikes.14"].match(c) \
        or _P["zh.likes_dislikes.15"].match(c)
    if m and not neg_pref and _zh_topic_ok(m.group("obj"), when) and not _P["zh.likes_dislikes.16"].search(c):
        add(_Raw("dislikes", m.group("obj")))  # "挤地铁真的让我崩溃", "早起对我来说太痛苦了"
    m = _P["zh.likes_dislikes.17"].match(c)
    if m and not neg_pref and _zh_topic_ok(m.group("obj"), when) and not _P["zh.likes_dislikes.18"].search(m.group("obj")):
        add(_Raw("dislikes", m.group("obj")))
    m = _P["zh.likes_dislikes.19"].match(c)
    if m:  # "周一早上我从来不安排会议": meetings at that time are disliked
        add(_Raw("dislikes", f"{m.group('time')}开会"))
    else:  # "周末我从来不回工作消息": a habit of never doing something, with its time or topic
        m = _P["zh.likes_dislikes.20"].match(c)
        if m and not _P["zh.likes_dislikes.21"].search(m.group("topic")) and (
                m.group("topic") or not _P["zh.likes_dislikes.22"].match(m.group("vp"))):
            add(_Raw("dislikes", f"{m.group('topic')}{_clean(m.group('vp'), True)}"))
    m = _P["zh.likes_dislikes.23"].search(c)
    if m and not _P["zh.likes_dislikes.24"].search(m.group(1)):
        add(_Raw("likes", m.group(1)))
    m = _P["zh.likes_dislikes.25"].search(c) or _P["zh.likes_dislikes.26"].search(c)
    if m:
        add(_Raw("dislikes", _clean(m.group(1), True)))
    else:
        m = _P["zh.likes_dislikes.27"].search(c)
        if m:
            add(_Raw("likes", _clean(m.group(1), True)))
    interpret.run_step(_ZH_SIMPLE_PREFERENCES, Clause(c, c, when, False, True, out))


_ZH_SIMPLE_PREFERENCES = RULES.steps["zh.simple_preferences"]


def _thing_tasted(r: _Raw) -> _Raw:
    """A like or dislike without an eating or drinking verb in front of its
    object (爱吃香菜 is a liking of 香菜; 喝茶, 吃辣 stay whole: one character
    after the verb is a verb-object word)."""
    if r.predicate in ("likes", "dislikes"):
        obj = _TASTE_CONSUMED.sub("", r.object)
        if obj != r.object and len(obj) >= 2:
            return _Raw(r.predicate, obj, r.polarity, r.change, r.value, r.condition)
    return r


def _zh_fronted_object(clause: str, verb_at: int) -> str:
    """The topic fronted before a preference verb: "海鲜倒是很喜欢" -> 海鲜, "奶茶我不爱喝" -> 奶茶."""
    head = clause[:verb_at]
    m = _P["zh.fronted_object.1"].match(head)  # "我对榴莲无感"
    if m:
        return m.group(1)
    m = _P["zh.fronted_object.2"].match(head)
    if m:
        return m.group(1)
    head = _P["zh.fronted_object.3"].sub("", head)
    return head if 1 <= len(head) <= 6 and not _P["zh.likes_dislikes.24"].search(head) else ""


SETTLED_REPLY = 16  # characters of a reply whose settling words make the short option beside them a decision


def _zh_step_decisions(c: str, whole: str, when: datetime, project: bool, out: list[_Raw]) -> bool:
    """Decisions and rejected options. True stops the clause's later steps."""
    add = out.append
    m: re.Match[str] | None
    rejection = _P["zh.decisions.reject_project"] if project else _P["zh.decisions.reject_deciding"] \
        if searched(_P["zh.decided"], whole) else _P["zh.decisions.reject"]
    for m in rejection.finditer(c):
        obj = _P["zh.decisions.1"].sub("", _clean(m.group(1), True))
        obj = _P["zh.decisions.2"].sub("", obj)
        if _P["zh.decisions.3"].search(c[:m.start()]):
            continue  # "总算不用合租了": relief, not a rejection
        if obj and not _ZH_NOT_AN_OPTION.match(obj):
            add(_Raw("decision", obj, polarity="negative"))
    m = _P["zh.decisions.4"].match(c)
    if m and not _ZH_NOT_AN_OPTION.search(m.group(1)) and not _P["zh.decisions.5"].search(m.group(1)):
        add(_Raw("decision", _clean(m.group(1), True), polarity="negative"))
    m = _P["zh.decisions.6"].match(c)
    if m and not _ZH_NOT_AN_OPTION.search(m.group(1)):
        add(_Raw("decision", m.group(1), polarity="negative"))
    elif project or searched(_P["zh.decisions.7"], whole):
        m = _P["zh.decisions.8"].match(c)
        if m and not _ZH_NOT_AN_OPTION.search(m.group(1)) and not find_times(m.group(1), when):
            add(_Raw("decision", m.group(1), polarity="negative"))
    m = _P["zh.decisions.9"].search(c)
    if m and project and not _P["zh.decisions.10"].search(c) and not find_amounts(m.group(3)) \
            and not _P["zh.budget_cue"].search(m.group(1)):  # "要把周会改到周二上午": a decision about the project
        add(_Raw("decision", "".join(m.groups())))
        return True
    m = _P["zh.decisions.11"].search(c)
    if m:  # "方案A和方案B均不予采纳"
        for option in filter(None, m.groups()):
            add(_Raw("decision", _P["zh.decisions.12"].sub("", option), polarity="negative"))
    # one option kept and one dropped side by side: "川西小环线定了，青甘大环线不去了", "数据库选PostgreSQL，MongoDB就不用了"
    if searched(_P["zh.decisions.13"], whole) and (project or searched(_P["zh.decisions.14"], whole)):
        m = _P["zh.decisions.15"].match(c)
        if m and not _ZH_NOT_AN_OPTION.search(m.group(1)) and not find_times(m.group(1), when):
            add(_Raw("decision", _P["zh.decisions.16"].sub("", m.group(1)),
                     polarity="negative"))
        m = _P["zh.decisions.17"].match(c) \
            or _P["zh.decisions.18"].match(c) \
            or _P["zh.decisions.19"].match(c)
        if m and not _P["zh.decisions.10"].search(c) and not _ZH_NOT_AN_OPTION.match(m.group(1)) \
                and not _P["zh.slot_words"].search(m.group(1)):
            add(_Raw("decision", _clean(m.group(1), True)))
            return True
    comp = _P["zh.decisions.20"].search(c)
    if comp and (project or searched(_P["zh.decided"], whole)) and not _P["zh.decisions.21"].search(c):
        yes, no = _clean(comp.group("yes"), True), _clean(comp.group("no"), True)
        if not _ZH_NOT_AN_OPTION.match(yes) and not _ZH_NOT_AN_OPTION.match(no):
            if not any(r.predicate == "decision" and r.object == no for r in out):
                add(_Raw("decision", no, polarity="negative"))
            add(_Raw("decision", yes))
            return True
    m = (_P["zh.decisions.choose_project"] if project else _P["zh.decisions.choose"]).search(c)
    if m and (find_times(m.group(1), when) or find_amounts(m.group(1))):
        m = None  # "上线时间改成六月底" moves a date, "预算改成四万" is a budget
    if not m:
        m = _P["zh.decisions.22"].search(c)
    if not m:  # "选B方案吧", "那就定周三吧", "那就报夜校吧" (not a day moved to: "定6月18号了")
        m = _P["zh.decisions.23"].match(c)
        if m and not project and (find_times(m.group(1), when) or find_amounts(m.group(1))):
            m = None
    if not m and searched(_P["zh.decisions.24"], whole):  # "定下来了，酒店选希尔顿"
        m = _P["zh.decisions.25"].match(c)
        if m and (_ZH_NOT_AN_OPTION.match(m.group(1)) or not project and find_times(m.group(1), when)):
            m = None  # (a day set is no option chosen: "日子定了，12月19号")
    if not m and searched(_P["zh.decisions.26"], whole):  # "就它了，方案C"
        m = _P["zh.decisions.27"].match(c)
    if not m and (project or searched(_P["zh.decisions.28"], whole)):  # "支付先只接微信支付，银联就不考虑了"
        m = _P["zh.decisions.29"].search(c)
    if not m and project and searched(_P["zh.decisions.30"], whole):  # "不要黑色的，换拉丝不锈钢的"
        m = _P["zh.decisions.31"].match(c)
    if m and not _P["zh.decisions.32"].search(c):
        change = "evolution" if _P["zh.decisions.33"].search(c) else None
        obj = _clean(m.group(1), True)
        if _P["zh.decisions.34"].search(m.group(0)):  # "决定用飞书做协作": the tool, not its purpose
            obj = _P["zh.decisions.35"].sub("", obj)
            obj = _P["zh.decisions.36"].sub("", obj)
        add(_Raw("decision", obj, change=change))
    else:
        m = _P["zh.decisions.37"].match(c)
        if m and project and not _P["zh.decisions.38"].search(c):
            add(_Raw("decision", m.group(1).strip()))
        m = _P["zh.decisions.39"].match(c)
        if m and searched(_P["zh.decisions.40"], whole) \
                and not _P["zh.decisions.38"].search(c):  # "不用钉钉，用企业微信", "Airbnb就否了，还是订酒店"
            add(_Raw("decision", _clean(m.group(1), True)))
        m = _P["zh.decisions.41"].match(c)
        if m and project and not c.endswith("算了吧"):  # "方案A吧，B太贵了"
            add(_Raw("decision", m.group(1).strip()))
        m = searched(_P["zh.decisions.42"], whole)
        if m and _P["zh.decisions.43"].match(c) and not find_times(m.group(1), when):  # "物流定了，就顺丰"
            add(_Raw("decision", _clean(m.group(1), True)))
        elif not any(r.predicate == "decision" for r in out) and len(whole) <= SETTLED_REPLY \
                and searched(_P["zh.decisions.26"], whole) and not find_times(whole, when) \
                and (m := _P["zh.settled_choice"].match(c)) and not find_amounts(m.group(1)):
            add(_Raw("decision", _clean(m.group(1), True)))  # "就它了 城南那套": the option a short reply settles on

    # "用Flutter还是原生开发" is still open
    out[:] = [r for r in out if not (r.predicate == "decision" and _P["zh.decisions.44"].search(r.object))]
    for i, r in enumerate(out):  # "用Figma做设计稿", "还是用回MySQL": the tool, not its purpose
        if r.predicate == "decision":
            obj = _P["zh.decisions.45"].sub("", r.object)
            obj = _P["zh.decisions.46"].sub("", obj)  # "住宿那边Airbnb就否了"
            obj = _P["zh.decisions.47"].sub("", obj)
            obj = _P["zh.decisions.48"].sub("", obj)  # "顺丰做物流"
            if _P["zh.decisions.49"].match(obj):  # "用Vite打包": the tool, not its use ("A区" stays)
                obj = _P["zh.decisions.50"].sub("", obj)
            if obj != r.object:
                out[i] = dataclasses.replace(r, object=obj)
    return False


def _zh_step_budget(c: str, whole: str, when: datetime, project: bool, out: list[_Raw]) -> bool:
    """Budget limits. True stops the clause's later steps."""
    add = out.append
    own = _P["zh.budget_cue"].search(c)
    budget_cue = own or (
        searched(_P["zh.budget.1"], whole) and not _P["zh.budget.2"].match(c)
        and _P["zh.budget.3"].fullmatch(c)
        and find_amounts(c)
        and find_amounts(c)[0][0] <= 2 + _lead(_P["zh.budget.4"], c)) \
        or (searched(_P["zh.budget.1"], whole) and _P["zh.budget.changed_to"].fullmatch(c.strip(" 。.!！~～")))
    # "定了个预算，一千五百欧元", "预算砍了一半，现在只有两万"
    # an amount said against the budget is a price: in its clause, or anywhere in a turn whose bare amount it is
    if budget_cue and not _P["zh.not_a_budget"].search(c) and not _P["zh.against_budget"].search(c) \
            and (own or not searched(_P["zh.against_budget"], whole)):
        amt = _zh_budget_amount(_P["zh.change_by"].sub("", c))  # "多批了一万" is a difference, not a limit
        if amt is not None:
            add(_Raw("budget_limit", _amount_obj(amt), value=amt.to_json()))
    return False


def _zh_step_pet(c: str, whole: str, when: datetime, project: bool, out: list[_Raw]) -> bool:
    """Pets. True stops the clause's later steps."""
    add = out.append
    for pet in _zh_pets(c, whole):
        add(_Raw("pet", pet))
    return False


_ZH_PET_CONTEXT = _P["zh.pet_context"]

_ZH_COUNTED_ANIMAL = _P["zh.counted_animal"]


def _zh_pets(clause: str, whole: str) -> list[str]:
    """The user's pets named in a clause: "养了一只布偶猫叫年糕" -> 布偶猫（年糕）, "我家金毛叫旺财" -> 金毛（旺财）,
    "领回来一只橘猫" -> 橘猫. The turn must say the animal is the user's (养, 领养, 我家 …)."""
    m: re.Match[str] | None
    if not searched(_ZH_PET_CONTEXT, whole) or _P["zh.pets.1"].search(clause):
        return []
    out = []
    for m in _P["zh.pets.2"].finditer(clause):
        out.append(_zh_pet(m.group("animal"), m.group("name"), whole))
    for m in _P["zh.pets.3"].finditer(clause):
        if not any(f"（{m.group('name')}）" in p for p in out):  # "布偶猫叫年糕": an animal named in a list of pets
            out.append(_zh_pet(m.group("animal"), m.group("name"), whole))
    if not out:
        m = _P["zh.pets.4"].search(clause) \
            or _P["zh.pets.5"].search(clause)
        if m:
            out.append(_zh_pet(m.group("animal"), m.group("name"), whole))
    if not out:  # "养了一只柯基，叫豆豆", "两只狗 一只叫豆豆一只叫球球": the names in the next clause
        names = _P["zh.pets.6"].findall(clause)
        whole_names = _P["zh.pets.7"].fullmatch(clause)
        at = whole.find(clause)
        counted = [p for p in _ZH_COUNTED_ANIMAL.finditer(whole) if p.end() <= at] if names and whole_names else []
        if counted:  # the last animal counted before the clause: "养了两只猫，一只叫大橘，一只叫小白"
            return [_zh_pet(counted[-1].group("animal"), name) for name in names]
    return out


def _zh_pet(animal: str, name: str | None, whole: str = "") -> str:
    animal = _P["zh.pet.1"].sub("", animal)
    kind = searched(_P["zh.pet.2"], whole) if animal in _GENERIC_ANIMALS else None
    if kind and kind.group("kind") not in _GENERIC_ANIMALS:
        animal = kind.group("kind")  # "我家狗狗叫旺财，是只柴犬" -> 柴犬（旺财）
    return f"{animal}（{name}）" if name else animal


_GENERIC_ANIMALS = RULES.sets["shared.generic_animals"]

_ZH_STEPS = (
    _data_step("zh.lives_in"),
    _data_step("zh.name"),
    _zh_step_allergy,
    _data_step("zh.diet"),
    _data_step("zh.habit"),
    _data_step("zh.contact_way"),
    _zh_step_likes_dislikes,
    _data_step("zh.deadline"),
    _zh_step_decisions,
    _data_step("zh.decision"),
    _zh_step_budget,
    _zh_step_todo_plan,
    _data_step("zh.role"),
    _data_step("zh.works_at"),
    _zh_step_pet,
    _data_step("zh.commute"),
    _data_step("zh.introduction"),
)


def _zh_rules(clause: str, whole: str, when: datetime, project: bool = False) -> list[_Raw]:
    """The facts one Chinese clause states: the steps of ``_ZH_STEPS`` in turn, one family of
    predicates each, until one of them settles the clause."""
    out: list[_Raw] = []
    c = clause
    for step in _ZH_STEPS:
        if step(c, whole, when, project, out):
            break
    return out
