"""The facts a user's text states (``_raw_facts``): its clauses read in turn, past the filters
(questions, temporary states, statements about other people), each by the steps of its language or as the
sequel of the clauses before it (an elliptical clause, an enumerated item, an alternative accepted after a
dislike, a narrowed like, a wish under a condition, a bare allergic reaction). Then the facts of a whole turn
tidied: a pet named once, abstentions implied by a diet, values cut where the sentence runs on, an employer
named after its description."""

from __future__ import annotations

import dataclasses
import re
from datetime import datetime

from ...bitemporal import ENDING
from ...lang.times import find_times
from ..interpret import Whole, searched
from ..records import Raw as _Raw
from ..ruleset import RULES
from .clauses import (
    _EN_BINOMIALS,
    _EN_SPLIT,
    _ZH_SPLIT,
    _atoms,
    _comma_split_en,
    _en_named_first,
    _en_unfront,
    _reaction_tail,
    _statement_before,
    _with_subject,
)
from .en import _en_rules
from .endings import _ended_states
from .readers import _ZH_NOT_A_TOPIC, _taste_clause
from .text import (
    _CJK,
    _CORRECTION,
    _P,
    _PRONOUN_OBJECT,
    _TITLE_JOINER,
    _ba,
    _clean,
    _is_zh,
    _preceded_by,
    _sentences,
    _strip_times,
    _trim_measure,
)
from .zh import _GENERIC_ANIMALS, _zh_rules

_QUESTION_OK = _P["shared.question_ok"]
_TEMPORARY = _P["shared.temporary"]
# what follows a taste verb when it names no thing: "再多真扛不住了", "别给我推荐更贵的了"
# "我最爱吃的是火锅": what comes before the thing itself
_ZH_TASTE_LEAD = _P["zh.taste_lead"]
_ZH_NOT_A_TASTE = _P["zh.not_a_taste"]
# a taste held for now is still a taste: "really into bouldering at the moment", "最近迷上了飞盘"
_TASTE_FOR_NOW = _P["shared.taste_for_now"]
_LASTING_NOW = _P["shared.lasting_now"]
_OTHER_PEOPLE = _P["shared.other_people"]
# somebody else as the subject (not "给我爸买礼物", where the user acts)
_OTHER_SUBJECT = _P["shared.other_subject"]
_REPORTING_LEAD = _P["shared.reporting_lead"]
_COUNTERPART = _P["shared.counterpart_subject"]

# a clause that is about the user again after one about somebody else
_NAMES_USER = _P["shared.names_user"]
# ... unless they only say how the user is called ("大家都叫我阿May", "everyone calls me Liz")
_CALLED_BY_OTHERS = _P["shared.called_by_others"]
_NOT_LASTING = _P["shared.not_lasting"]
_UNDECIDED = _P["shared.undecided"]
_NOT_THAT = _P["shared.not_that"]
_INDIRECT = _P["shared.indirect"]

_EN_PET_PAIR = _P["en.pet_pair"]

_EN_TITLE_DOT = _P["en.title_dot"]


def _passing(clause: str) -> bool:
    """Whether ``clause`` says a passing state (``shared.temporary``) and no lasting one said to hold now
    (``shared.lasting_now``: "we live in Leeds right now", "4 hives at the moment")."""
    return bool(_TEMPORARY.search(clause)) and not _LASTING_NOW.search(clause)


def _raw_facts(text: str, when: datetime, *, allow_question: bool = False,
               project: bool = False) -> list[_Raw]:
    zh = _is_zh(text)
    stripped = text.strip()
    if zh:  # dialect and formal words for "I": 俺就住五道口, 本人现居上海
        stripped = _P["shared.raw_facts.1"].sub("我", stripped)
        stripped = _P["zh.reflexive"].sub("", stripped)  # "她自己是会计": who, and the reflexive said for weight
    # a passing state (正在开会, "on the train", "right now") holds nothing lasting in the sentence that says it
    # (我正在开会，先别给我发消息); the turn's other sentences, and a lasting state said to hold now ("we live in
    # Leeds right now"), still do
    if _TEMPORARY.search(stripped) and not _TASTE_FOR_NOW.search(stripped):
        stripped = "".join(x for x in _sentences(stripped) if not _passing(x)).strip()
        if not stripped:
            return []
    if not zh:  # a title's dot ends no sentence: "call me Dr. Patel" (the joiner is a space again in the objects)
        stripped = _en_unfront(_EN_TITLE_DOT.sub(r"\1." + _TITLE_JOINER, stripped))
        # "me and my partner Jo got a flat", "Sophie and I are moving": the user among them, "we"
        stripped = _P["en.joint_subject"].sub("we", stripped)
    if not allow_question:  # drop question sentences inside the turn
        sents = _sentences(stripped)
        stripped = "".join(x if not _P["shared.raw_facts.3"].search(x) or _QUESTION_OK.search(x) else _statement_before(x)
                           for x in sents).strip()
    raws: list[_Raw] = []
    seen: set[tuple[str, str, str, str | None]] = set()
    if not zh:  # an enumeration of pets ("two cats, Salt and Pepper") before atomising
        stripped = _en_named_first(stripped)
        m = _EN_PET_PAIR.search(stripped)
        if m:
            for name in (m.group(2), m.group(3)):
                raws.append(_Raw("pet", f"{m.group(1).lower()} ({name})"))
            stripped = stripped[:m.start()] + stripped[m.end():]
    stripped = Whole(stripped)  # what the clauses' rules ask of the whole turn is worked out once
    about_other = False  # "我哥在阿里上班，住在西溪那边": a clause without a subject goes on about the other person
    starts: list[int] = []  # where each clause's facts start in raws
    texts: list[str] = []  # and the clauses
    reaction_before: int | None = None  # a bare reaction read before any abstention: "我过敏，不能吃花生"
    for clause, cond in _atoms(stripped, zh):
        subclauses = [clause] if zh else [p for part in _comma_split_en(clause) for p in _reaction_tail(part)]
        for sub in subclauses:
            # a clause said undecided (还没想好, "might", "not sure yet") holds nothing lasting, but what it means
            # to do is a plan the user may have, for a reviewer (Raw.hedged)
            undecided = bool(sub) and _undecided(sub)
            if not sub or (_NOT_LASTING.search(sub) and not undecided) or _INDIRECT.search(sub) \
                    or _NOT_THAT.search(sub):
                continue
            starts.append(len(raws))
            texts.append(sub)
            bare_reaction = _P["zh.bare_reaction" if zh else "en.bare_reaction"].fullmatch(sub.strip(" 。.!！,，~～"))
            if bare_reaction:
                # "不能吃花生，会过敏", "can't eat peanuts, they make me break out": the reaction names no allergen,
                # so the things abstained from just before are allergies; else those just after
                if len(starts) > 1 and _as_allergies(raws, starts[-2], zh):
                    continue
                avoided = _avoided(texts[-2], zh) if len(texts) > 1 else None  # "I can't have shellfish, I …"
                if avoided and starts[-1] == starts[-2]:
                    raws.append(_Raw("allergy", avoided))
                    continue
                reaction_before = len(starts)
            if _OTHER_PEOPLE.search(sub) and not _CALLED_BY_OTHERS.search(sub) \
                    and not (zh and _P["zh.raw_facts.1"].search(sub)):
                # a reporter (甲方说…, "my boss says …") is not what the next clauses are about
                about_other = bool(_OTHER_SUBJECT.search(sub)) and not _REPORTING_LEAD.search(sub)
                if _COUNTERPART.search(sub):  # "they pushed the site survey to 12 June": a thing's day, moved by the other side
                    for r in (_zh_rules(sub, stripped, when, project) if zh else _en_rules(sub, stripped, when, project)):
                        if r.predicate == "deadline" and r.change == "evolution" and r.object and r.due \
                                and (moved := (r.predicate, r.object.casefold(), r.polarity, r.due)) not in seen:
                            seen.add(moved)
                            raws.append(r)
                continue
            if zh and (named := _named_subject(sub)):  # "阿杰在申城证券做研究员", "甜甜上周去上海了": theirs, and
                # what follows; what they said ("朋友阿强说二手的划算") is theirs, but not what the user goes on with
                about_other = not named.group(0).endswith(("说", "觉得"))
                continue
            if about_other and not _NAMES_USER.search(sub) and (zh or not _P["en.own_subject"].search(sub)):
                # an English clause that opens on a subject of its own and its verb ("…but the 22nd is free, so the
                # race moves to …") is about that subject, not the other person
                continue
            about_other = False
            if not allow_question and _P["shared.raw_facts.4"].search(sub) and not _QUESTION_OK.search(sub):
                continue
            ended = _ended_states(sub, stripped, when, zh, project)
            carried = None if ended else \
                _carried_over(sub, raws, zh, stripped, when) or (_zh_accepted_instead(sub, raws) if zh else None)
            if carried is not None:
                found = [carried]
            elif zh:
                found = _zh_rules(sub, stripped, when, project)
            else:
                # "I meant Vercel rather than Netlify": the statement after the correction's lead
                found = _en_rules(_with_subject(_P["en.correction_lead"].sub("", sub)), stripped, when, project)
                bare = _en_bare_item(sub, raws, stripped) if not found else None
                found = [bare] if bare else found
            narrowing = _narrowed_like(sub, cond, raws, zh) if cond and not found else None
            if narrowing:
                found = [narrowing]
            elif cond and not found and not zh:
                found = _conditional_want(sub, cond)
            if zh:
                found = _with_listed_items(found, sub)
            if undecided:  # what it means to do: its plans, and a move it considers ("在想要不要搬去江北"),
                # unless it hangs on a condition ("if the remote policy goes through, I might move back")
                found = [] if cond else [dataclasses.replace(r, hedged=True) if r.predicate == "plan" else
                         _considered_move(r, zh) for r in found if r.predicate == "plan" or _is_move(r)]
            elif zh and (unsure := _P["zh.hedged_intent"].search(sub)) and unsure.group("vp").startswith("搬"):
                # "我可能得搬去广州": a move said unsure is a plan, no home yet
                found = [_considered_move(r, zh) if _is_move(r) else r for r in found]
            if ended:  # what the clause read as holding of a state it says ended is that state, and what it
                # read as turned down is that ending too (不用骑车了: no decision against 骑车)
                # (a negative value of a state that ended stays when every ending names its value)
                gone = {r.predicate for r in ended}
                values = {e.object for e in ended if e.object}
                all_named = all(e.object for e in ended)
                found = ended + [r for r in found if not (r.polarity == "negative" and r.object in values) and (
                    r.predicate not in gone or (r.polarity == "negative" and all_named))]
            for r in (part for f in found for part in _split_enumeration(f, zh)):
                if zh and r.predicate in ("likes", "dislikes") and _ZH_TASTE_LEAD.match(r.object):
                    r = dataclasses.replace(r, object=_ZH_TASTE_LEAD.sub("", r.object))
                if r.change == ENDING:
                    pass  # an ending may name no value: whatever holds then ended
                elif not r.object or (r.predicate in ("likes", "dislikes") and (
                        _PRONOUN_OBJECT.match(r.object) or (zh and _ZH_NOT_A_TASTE.search(r.object)))) \
                        or (_only_a_time(r, when) and (r.predicate != "decision" or any(f.due for f in found))):
                    continue
                key = (r.predicate, r.object.casefold(), r.polarity, r.due)  # a deadline and its new day: two
                if key in seen:
                    continue
                seen.add(key)
                if cond and r.predicate in ("likes", "dislikes", "decision", "diet") and not narrowing:
                    r = _Raw(r.predicate, r.object, r.polarity, r.change, r.value, cond.strip())
                raws.append(r)
    if any(r.predicate == "name" and not r.introduced for r in raws):  # "I'm Daniel, but call me Danny"
        raws = [r for r in raws if not r.introduced]
    if reaction_before is not None and reaction_before < len(starts) and not any(
            r.predicate == "allergy" for r in raws[starts[reaction_before - 1]:starts[reaction_before]]):
        _as_allergies(raws, starts[reaction_before], zh, end=starts[reaction_before + 1]
                      if reaction_before + 1 < len(starts) else None)
    chosen = [r.object for r in raws if r.predicate == "decision" and r.polarity == "positive" and " " in r.object]
    if chosen:  # "the blue logo, not the green one": "one" stands for the chosen option's noun
        raws = [dataclasses.replace(r, object=_P["en.raw_facts.1"].sub(chosen[0].rsplit(" ", 1)[1], r.object))
                if r.predicate == "decision" and r.polarity == "negative" and _P["en.raw_facts.2"].search(r.object) else r
                for r in raws]
    return [dataclasses.replace(r, object=r.object.replace(_TITLE_JOINER, " ")) if _TITLE_JOINER in r.object else r
            for r in raws]  # all else kept (a hedge, a due day, an introduction)


def _named_subject(clause: str) -> re.Match[str] | None:
    """Where a Chinese clause opens on someone named (阿杰, 老周, 小李, 甜甜), or on what they do and then their
    name (灯光设计小林), doing or being something (``zh.name_subject``): the match, its verb last; None when it does
    not, or the word of that shape is a common noun (老家, 小区) or an adverb (天天)."""
    m = _P["zh.name_subject"].match(clause)
    if m is None and (at := _described(clause)):
        m = _P["zh.name_subject"].match(clause, at)
    if m is None or m.group("name") in RULES.sets["zh.not_a_name_word"] \
            or m.group("name") in RULES.sets["zh.doubled_words"]:
        return None
    return m


def _described(clause: str) -> int:
    """Where a name said after what the person does begins ("灯光设计小林对猫毛过敏": 小林 after 灯光设计), or 0:
    a short run of Chinese characters that speaks of no one by a pronoun, before 小/老/阿 (``zh.described_name``)."""
    m = _P["zh.described_name"].match(clause)
    return m.end() if m else 0


def _is_move(raw: _Raw) -> bool:
    """Whether ``raw`` is a move to a new home (a home read as a change)."""
    return raw.predicate == "lives_in" and raw.change == "evolution" and raw.polarity == "positive"


def _considered_move(move: _Raw, zh: bool) -> _Raw:
    """A move said undecided or unsure: the plan to move there, for a reviewer (Raw.hedged)."""
    return _Raw("plan", ("搬去" if zh else "move to ") + move.object, hedged=True)


def _undecided(clause: str) -> bool:
    """Whether ``clause`` is said undecided (``shared.undecided``: 还没想好, "might", "not sure yet") and holds
    nothing else that is no lasting state (a wish, a hypothetical, a former state: ``shared.not_lasting``)."""
    return bool(_UNDECIDED.search(clause)) and not _NOT_LASTING.search(_UNDECIDED.sub(" ", clause))


_TIME_LEFTOVER = " \t,，.。!！~～、-–—"
_NAMED = frozenset({"name", "relation", "pet"})  # a name may be a time's word ("May", "June")


def _only_a_time(raw: _Raw, when: datetime) -> bool:
    """Whether a value is nothing but a time: a day is when a fact holds or is due, not its value
    (names left alone). A day chosen is a decision ("那就定周三吧"), unless the clause gives a thing
    due that day, whose day it is ("let's move the demo to Friday" gave the decision "Friday")."""
    if raw.predicate in _NAMED:
        return False
    obj = raw.object.strip(_TIME_LEFTOVER)
    found = find_times(obj, when) if obj else []
    return bool(found) and found[0][0] == 0 and not obj[found[0][1]:].strip(_TIME_LEFTOVER) \
        and len(found) == 1


def _as_allergies(raws: list[_Raw], start: int, zh: bool, end: int | None = None) -> bool:
    """Turn the abstentions among ``raws[start:end]`` into allergies of the same things, in place: a food abstained
    from (diet, polarity negative) or refused ("No sesame for me", "别给我放花生", read as dislikes). True when there was
    one."""
    done = False
    for i in range(start, len(raws) if end is None else end):
        r = raws[i]
        if r.predicate == "diet" and r.polarity == "negative" or r.predicate == "dislikes" and (
                len(_P["zh.allergen_verb"].sub("", r.object)) <= 6 if zh else len(r.object.split()) <= 3):
            obj = _P["zh.allergen_verb"].sub("", r.object) if zh else r.object
            raws[i] = _Raw("allergy", obj, "positive", r.change, None, r.condition)
            done = True
    return done


def _avoided(clause: str, zh: bool) -> str | None:
    """What a clause says the user keeps away from when no rule read it as a fact ("I can't have shellfish",
    "我碰不了芒果"): the thing, for an allergic reaction said next to it."""
    m = _P["zh.avoided" if zh else "en.avoided"].search(clause)
    if not m:
        return None
    return _clean(next(g for g in m.groups() if g), zh) or None


_ENUMERATED_PREDICATES = ("allergy", "diet", "likes", "dislikes")


def _with_listed_items(found: list[_Raw], clause: str) -> list[_Raw]:
    """Chinese items listed with 、 after a fact's object ("我喜欢跑步、游泳"), which the object itself stops before."""
    out = list(found)
    for r in found:
        at = clause.find(r.object) if r.predicate in _ENUMERATED_PREDICATES and r.object else -1
        tail = clause[at + len(r.object):] if at >= 0 else ""
        for item in _P["zh.with_listed_items.1"].findall(tail) if tail.startswith("、") else []:
            out.append(_Raw(r.predicate, _clean(item, True), r.polarity, r.change, r.value, r.condition))
    return out


def _split_enumeration(raw: _Raw, zh: bool) -> list[_Raw]:
    """One fact per item of an enumerated object: "我对虾和蟹过敏" -> 虾, 蟹; "allergic to peanuts and shellfish"."""
    if raw.predicate not in _ENUMERATED_PREDICATES or raw.condition:
        return [raw]
    if zh:
        parts = _P["zh.split_enumeration.1"].split(raw.object)
        if any(not 1 <= len(p) <= 6 for p in parts):
            return [raw]
    else:
        if _EN_BINOMIALS.search(raw.object):
            return [raw]
        parts = [_P["en.split_enumeration.1"].sub("", p.strip())
                 for p in _P["en.split_enumeration.2"].split(raw.object)]
        limit = 3 if raw.predicate in ("allergy", "diet") else 2
        if any(not p or len(p.split()) > limit for p in parts):
            return [raw]
    if len(parts) < 2:
        return [raw]
    return [_Raw(raw.predicate, p, raw.polarity, raw.change, raw.value, raw.condition) for p in parts]


_ZH_ACCEPTED = _P["zh.accepted"]


def _zh_accepted_instead(clause: str, earlier: list[_Raw]) -> _Raw | None:
    """Right after a dislike, the alternative the user accepts is a like: "我不喜欢坐飞机，高铁还行" -> likes 高铁."""
    if not earlier or earlier[-1].predicate != "dislikes":
        return None
    m = _ZH_ACCEPTED.match(clause.strip(" 。.!！"))
    return _Raw("likes", m.group("obj")) if m and not _ZH_NOT_A_TOPIC.match(m.group("obj")) else None


_CARRIED_PREDICATES = ("diet", "allergy", "likes", "dislikes", "decision")
_ZH_ELLIPSIS = _P["zh.ellipsis"]
_EN_ELLIPSIS = _P["en.ellipsis"]


def _after_blank(item: str, value: str, whole: str) -> bool:
    """Whether ``item`` follows, after a blank, the part of ``whole`` that said ``value`` (chat Chinese lists
    with a blank where 、 goes: "喜欢爬山 游泳", "对芒果过敏 菠萝")."""
    at = whole.find(item)
    before = whole[:at] if at > 0 else ""
    return bool(before) and before[-1].isspace() and value in before.split()[-1]


def _carried_over(clause: str, earlier: list[_Raw], zh: bool, whole: str = "", when: datetime | None = None) -> _Raw | None:
    """An elliptical clause that names only a new object carries the previous fact's predicate over it:
    "我不吃牛肉，羊肉也不行" -> diet 羊肉 −, "allergic to peanuts, and cashews too" -> allergy cashews."""
    if earlier and earlier[-1].predicate == "todo":  # "提醒我后天交物业费，还有这周末给奶奶打个电话"
        bare = clause.strip(" 。.!！,，")
        if zh and _preceded_by(bare, _P["zh.carried_over.more_todo"], whole):
            body = _trim_measure(_P["shared.carried_over.1"].sub("", _strip_times(bare, when) if when else bare))
            return _Raw("todo", _ba(body)) if 2 <= len(body) <= 12 and not _P["zh.carried_over.1"].match(body) else None
        m = _P["en.carried_over.1"].fullmatch(bare)
        if not zh and m:  # "Remind me to renew my passport and, on Monday, to book the MOT"
            return _Raw("todo", m.group(1))
    if earlier and earlier[-1].predicate == "pet" and not zh:  # "a greyhound called Biscuit and a rabbit, Clover"
        m = _P["en.carried_over.2"].fullmatch(clause.strip(" .!"))
        return _Raw("pet", f"{m.group(1).lower()} ({m.group(2)})") if m else None
    if not earlier or earlier[-1].predicate not in _CARRIED_PREDICATES:
        return None
    prev = earlier[-1]
    if zh:
        bare = clause.strip(" 。.!！")
        found_after = _preceded_by(bare, _P["zh.carried_over.more_item"], whole)
        bare = _P["zh.carried_over.2"].sub("", bare)  # "还有就是泡温泉"
        if prev.predicate in _ENUMERATED_PREDICATES and found_after \
                and _P["zh.carried_over.3"].fullmatch(bare):
            return _Raw(prev.predicate, bare, prev.polarity)  # "我喜欢跑步、游泳，还有打羽毛球"
        if prev.predicate in _ENUMERATED_PREDICATES and _after_blank(bare, prev.object, whole) \
                and _P["zh.carried_over.blank_item"].fullmatch(bare):
            return _Raw(prev.predicate, _taste_clause(bare, True) if prev.predicate in ("likes", "dislikes") else bare,
                        prev.polarity)  # chat's blank for 、: "喜欢下象棋 写写毛笔字"
        m = _ZH_ELLIPSIS.match(bare)
        if not m or not _P["zh.carried_over.4"].search(clause):
            return None
    else:
        fixed = _P["en.carried_over.3"].match(clause.strip(" .!"))
        if fixed and prev.predicate in ("allergy", "diet", "likes", "dislikes") and searched(_CORRECTION, whole):
            return _Raw(prev.predicate, _clean(fixed.group("obj"), False), prev.polarity)  # "walnuts… oh wait, no, it's pecans"
        m = _EN_ELLIPSIS.match(clause.strip(" .!"))
        marked = _P["en.carried_over.4"].search(clause.strip(" .!"))
        if not m or not marked or len(m.group("obj").split()) > 3:
            return None
    obj = _clean(m.group("obj"), zh)
    if not obj or _PRONOUN_OBJECT.match(obj) or (zh and _ZH_NOT_A_TOPIC.match(obj)) or _P["en.carried_over.5"].match(obj):
        return None
    if zh and prev.predicate == "diet" and prev.polarity == "positive" and _P["zh.carried_over.5"].search(clause):
        return _Raw("diet", _P["zh.carried_over.6"].sub("", obj), "negative")  # "我是清真饮食，猪肉相关的都不能吃"
    return _Raw(prev.predicate, obj, prev.polarity)


_EN_NOT_A_BARE_ITEM = _P["en.not_a_bare_item"]


def _en_bare_item(clause: str, earlier: list[_Raw], text: str) -> _Raw | None:
    """A bare noun phrase enumerated right after a fact's object takes its predicate: "allergic to peanuts and
    tree nuts", "I love hiking, climbing and kayaking". Only items joined to that object by commas, and, or."""
    if not earlier or earlier[-1].predicate not in _ENUMERATED_PREDICATES or earlier[-1].condition:
        return None
    item = _clean(clause.strip(" .!"), False)
    if not item or len(item.split()) > 3 or _EN_NOT_A_BARE_ITEM.search(item) or _P["en.bare_item.1"].search(item):
        return None
    low = text.casefold()
    prev_at, item_at = low.find(earlier[-1].object.casefold()), low.find(item.casefold())
    if prev_at < 0 or item_at <= prev_at:
        return None
    between = text[prev_at + len(earlier[-1].object):item_at]
    joined = _P["en.bare_item.2"].fullmatch(between)
    # a list: "and"/"or" before this item, or after it ("peanuts, shellfish and sesame")
    listed = _P["en.bare_item.3"].search(between) \
        or _P["en.bare_item.4"].match(text[item_at + len(item):])
    return _Raw(earlier[-1].predicate, item, earlier[-1].polarity) if joined and listed else None


def _conditional_want(clause: str, cond: str = "") -> list[_Raw]:
    """Under a condition, what the user wants is a like: "If it's an overnight flight, I want a lie-flat seat",
    "If the flight's over eight hours, window seat", "If it's dark chocolate, I'll happily eat it"."""
    m = _P["en.conditional_want.1"].match(clause.strip()) \
        or _P["en.conditional_want.2"].fullmatch(clause.strip(" .!"))
    if m:
        return [_Raw("likes", _clean(m.group(1), False))]
    it = _P["en.conditional_want.3"].match(cond.strip())
    if it and _P["en.conditional_want.4"].match(clause.strip()):
        return [_Raw("likes", _clean(it.group(1), False))]
    return []


_ACCEPTANCE = _P["shared.acceptance"]


def _narrowed_like(clause: str, cond: str, earlier: list[_Raw], zh: bool) -> _Raw | None:
    """"奶茶我不爱喝，但如果是无糖的可以来一杯" -> likes 无糖奶茶: a condition that only narrows the thing
    disliked before, followed by an acceptance, is a like of the narrowed thing (the condition is the object)."""
    if not _ACCEPTANCE.match(clause.strip()):
        return None
    disliked = [r.object for r in earlier if r.predicate == "dislikes"]
    if not disliked or len(cond) > 12:
        return None
    topic = _P["zh.narrowed_like.1"].sub("", disliked[-1]) if zh else disliked[-1]
    narrow = _P["shared.narrowed_like.1"].sub("", cond.strip())
    if not narrow or narrow in topic:
        return None
    if zh and not cond.strip().endswith("的") and len(narrow) > 2:
        return _Raw("likes", narrow)  # "如果是黑巧克力可以接受": a thing of its own, not a modifier of the topic
    return _Raw("likes", f"{narrow}{topic}" if zh else f"{narrow} {topic}")


def _drop_unnamed_pets(raws: list[_Raw]) -> list[_Raw]:
    """"柯基" next to "柯基（豆豆）" (or "cat" next to "cat (Salt)") is the same animal: keep the named one."""
    named = {_P["shared.drop_unnamed_pets.1"].split(r.object)[0].strip().casefold() for r in raws
             if r.predicate == "pet" and _P["shared.drop_unnamed_pets.1"].search(r.object)}
    # "家里两只猫，布偶猫叫年糕…", "两只狗，金毛叫大黄…": a bare animal class heads the named pets of the turn
    return [r for r in raws if not (r.predicate == "pet" and named and (
        r.object.casefold() in _GENERIC_ANIMALS or any(n.endswith(r.object.casefold()) for n in named)))]


_ALCOHOL_WORDS = _P["en.alcohol_words"]
_MEATLESS_DIETS = RULES.sets["shared.meatless_diets"]
_MEAT = _P["shared.meat"]
_INTOLERANCE = _P["shared.intolerance"]


def _alcohol_named_once(raws: list[_Raw]) -> list[_Raw]:
    """"off the booze", "off the drink": one word for alcohol."""
    return [dataclasses.replace(r, object="alcohol") if r.predicate == "diet" and _ALCOHOL_WORDS.match(r.object) else r
            for r in raws]


def _drop_implied_abstentions(raws: list[_Raw]) -> list[_Raw]:
    """A meat abstention next to a meatless diet restates it ("我改吃素了，肉一口都不碰"), as does 糖 next to 戒糖;
    an intolerance restates the abstention beside it ("No dairy for me, I'm lactose intolerant": the abstention
    is the fact kept)."""
    quitting = {r.object[1:] for r in raws if r.predicate == "diet" and r.polarity == "positive" and r.object.startswith("戒")}
    raws = [r for r in raws if not (r.predicate == "diet" and r.polarity == "negative" and r.object in quitting)]
    if any(r.predicate == "diet" and r.polarity == "negative" for r in raws):
        raws = [r for r in raws if not (r.predicate == "diet" and r.polarity == "positive" and _INTOLERANCE.search(r.object))]
    if not any(r.predicate == "diet" and r.object.lower() in _MEATLESS_DIETS for r in raws):
        return raws
    return [r for r in raws if not (r.predicate == "diet" and r.polarity == "negative" and _MEAT.match(r.object))]


# the predicates whose value is a name or a thing, never a clause: an English one ends where its sentence runs on
_SLOT_VALUES = frozenset(("lives_in", "works_at", "role", "commute", "allergy", "diet", "likes", "dislikes", "pet",
                          "name"))


def _ended(raws: list[_Raw]) -> list[_Raw]:
    """Values of things cut where the sentence runs on ("kiwi which is annoying", "partick so i mostly
    run", "香菜你知道", "海珠琶洲了 正式搬进来的"): ``en.run_on``, ``zh.run_on``; a value that would be left
    empty is kept."""
    out = []
    for r in raws:
        if r.predicate in _SLOT_VALUES:
            zh = bool(_CJK.search(r.object))
            cut = _P["zh.run_on" if zh else "en.run_on"].sub("", r.object).strip(" ,.(，。")
            if cut and cut != r.object:
                r = dataclasses.replace(r, object=cut)
        out.append(r)
    return out


def _ending_named_before(text: str, raws: list[_Raw]) -> list[_Raw]:
    """An ending that names no value ("去年七月份退休了", "辞职回的安吉": whatever held ends) in a turn that said,
    before it, the value of its predicate that held ("我在城关二小教了二十年数学 前年退休了") ends that value:
    the value is said only to end, and is not a new one."""
    out = list(raws)
    for i, r in enumerate(raws):
        if r.change != ENDING or r.object or not r.due:
            continue
        at = text.find(r.due)
        held = [j for j, x in enumerate(raws) if x.predicate == r.predicate and x.change != ENDING
                and x.polarity == "positive" and x.object and 0 <= text.find(x.object) < at]
        if len(held) == 1:
            out[i] = dataclasses.replace(r, object=raws[held[0]].object)
    return out


def _called(employer: _Raw) -> _Raw:
    """An employer read with its description before its name ("Roastery Called Ember & Oak", 一家叫X的公司): the
    name (``shared.employer_called``)."""
    m = _P["shared.employer_called"].match(employer.object)
    name = (m.group("en") or m.group("zh") or "").strip() if m else ""
    return dataclasses.replace(employer, object=name) if name else employer


def _named_employer(text: str, raws: list[_Raw]) -> list[_Raw]:
    """The employer's name said after describing it ("在一家游戏公司做UI，公司叫米粒互娱", "a logistics
    company called Harbourline"): the employer read from the description becomes that name, or the
    name is the employer when nothing was read."""
    called = [_called(r) if r.predicate == "works_at" else r for r in raws]
    raws = [r for i, r in enumerate(called) if r.predicate != "works_at" or r not in called[:i]]  # read twice
    m = _P["shared.employer_named"].search(text)
    name = (m.group("zh") or m.group("en") or "").strip() if m else ""
    if m and _OTHER_PEOPLE.search(_EN_SPLIT.split(_ZH_SPLIT.split(text[:m.start()])[-1])[-1]):
        return raws  # "我老公的公司叫…": someone else's employer
    if not name or any(r.predicate == "works_at" and r.object == name for r in raws):
        return raws
    at = next((i for i, r in enumerate(raws) if r.predicate == "works_at" and r.polarity == "positive"), None)
    if at is None:
        return [*raws, _Raw("works_at", name)]
    return [*raws[:at], dataclasses.replace(raws[at], object=name), *raws[at + 1:]]
