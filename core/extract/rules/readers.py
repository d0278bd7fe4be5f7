"""Readers of one kind of value in a phrase, shared by the steps, the records' post-processors and the
dialogue handling: amounts (a budget's limit in Chinese and in English), a fronted topic, a clause as the
likes/dislikes rules read it, English word forms (-ing), a plan with a time, a place, the thing a turn opens
with, and a name said to be fine."""

from __future__ import annotations

import re
from datetime import datetime
from decimal import Decimal

from ...lang.amounts import Amount, find_amounts
from ...lang.numerals import parse_cn_number
from ...lang.times import find_times
from ..interpret import searched
from ..ruleset import RULES
from .text import _P, _clean, _strip_times


def _zh_budget_amount(clause: str) -> Amount | None:
    """The limit a budget clause sets, in CNY unless marked: the new value of a change ("从八万提高到九万五" -> 95000),
    else the first amount, else a bare numeral after 预算/到/是 ("预算加到八百" -> 800)."""
    amounts = find_amounts(clause)
    if len(amounts) >= 2 and _P["zh.budget_amount.1"].search(clause[amounts[0][1]:amounts[-1][0]]):
        amt = amounts[-1][2]
    elif amounts:
        amt = amounts[0][2]
    else:
        m = _P["zh.budget_amount.2"].search(clause) or _P["zh.budget_amount.3"].search(clause)
        value = parse_cn_number(m.group(1)) if m else None
        if value is None or value < 100:
            return None
        amt = Amount(value, None)
    return Amount(amt.value, amt.currency or "CNY")


def _amount_obj(amt: Amount) -> str:
    return str(amt)


_GRAND = _P["en.grand"]


def _bare_number(m: re.Match[str]) -> Decimal:
    """The value of a number ``shared.bare_amount.1`` matched ("7,500"; "7.5k": thousands)."""
    return Decimal(m.group(1).replace(",", "")) * (1000 if m.group(2) else 1)


def _en_bare_limit(text: str) -> Amount | None:
    """A number without currency right next to a limit word ("800 max", "under 1,500"): the amount, currency
    unknown. Counts of people, nights, kilometres … are not amounts."""
    m = _P["en.bare_limit.1"].search(text) \
        or _P["en.bare_limit.2"].search(text)
    if not m:
        return None
    value = Decimal(m.group(1).replace(",", ""))
    return Amount(value, None) if value >= 50 else None


def _en_amount(text: str) -> Amount | None:
    text = _P["en.amount.1"].split(text)[0]
    found = find_amounts(text)
    if found:
        return found[0][2]
    m = _P["en.amount.2"].search(text)
    if m:
        return Amount(Decimal(m.group(1).replace(",", "")), "GBP")
    m = _GRAND.search(text)
    if m:
        return Amount(Decimal(m.group(1)) * 1000, None)
    return None


_ZH_NOT_A_TOPIC = _P["zh.not_a_topic"]


def _zh_topic_ok(topic: str, when: datetime) -> bool:
    """Whether a fronted topic ("羊肉也不吃", "坐船我不行") names a thing, not an adverb or a time."""
    return bool(topic) and not _ZH_NOT_A_TOPIC.match(topic) and not find_times(topic, when)


_TASTE_FILLER = _P["shared.taste_filler"]
_TASTE_STOPPED = _P["shared.taste_stopped"]
_TASTE_CAME_TO = _P["shared.taste_came_to"]
_TASTE_REDUPLICATED = _P["zh.taste_reduplicated"]
_TASTE_CHANGE = _P["shared.taste_change"]
_TASTE_CONSUMED = _P["shared.taste_consumed"]


def _taste_clause(c: str, zh: bool) -> str:
    """A clause as the likes/dislikes rules read it: adverbs they read past
    taken out, a Chinese verb said twice once (喜欢下下象棋), a taste that stopped read as its negation, one that began as
    the taste (the change itself is ``shared.taste_change``, looked for once
    per turn)."""
    c = _TASTE_CAME_TO.sub("", _TASTE_FILLER.sub("", c))
    if zh:
        c = _TASTE_REDUPLICATED.sub(r"\1", c)  # 喜欢下下象棋: 下象棋
    return _TASTE_STOPPED.sub("不" if zh else "don't", c).strip()


def _gerund(verb_phrase: str) -> str:
    """"work from home" -> "working from home" (the first word as its -ing form)."""
    first, _, rest = verb_phrase.partition(" ")
    low = first.lower()
    if low.endswith("ie"):
        ing = low[:-2] + "ying"
    elif low.endswith("e") and not low.endswith(("ee", "ye", "oe")):
        ing = low[:-1] + "ing"
    elif _P["en.gerund.1"].fullmatch(low) and len(low) <= 4:
        ing = low + low[-1] + "ing"
    else:
        ing = low + "ing"
    return f"{ing} {rest}".strip()


_ING_IRREGULAR = RULES.maps["en.ing_irregular"]
_EN_PLAN_PROGRESSIVE = _P["en.plan_progressive"]
_EN_PLAN_INTENT = _P["en.plan_intent"]


def _en_stem(word: str) -> str:
    """The base form of an "-ing" verb: flying -> fly, seeing -> see, shopping -> shop, taking -> take."""
    w = word.lower()
    if w in _ING_IRREGULAR:
        return _ING_IRREGULAR[w]
    stem = w[:-3]
    if len(stem) >= 3 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
        return stem[:-1]
    if _P["en.stem.1"].search(stem):
        return stem + "e"
    return stem


def _en_timed_plan(clause: str, when: datetime) -> str | None:
    """An intention with a time: "Next Friday I'm flying to Dublin for a workshop" -> fly to Dublin for a workshop,
    "We're doing the design review on Monday" -> design review, "Planning to repaint the kitchen this weekend"."""
    m = _EN_PLAN_INTENT.search(clause)
    if m:
        rest = m.group("rest")
        verb = ""
    else:
        m = _EN_PLAN_PROGRESSIVE.search(clause)
        if not m or m.group("verb").lower() in ("thinking", "wondering", "feeling", "trying", "looking") or (
                m.group("verb").lower() == "going" and not _P["en.timed_plan.1"].match(m.group("rest"))):
            return None
        verb, rest = m.group("verb"), m.group("rest")
        if _P["en.light_verbs.i"].fullmatch(verb):
            verb, rest = "", _P["en.timed_plan.2"].sub("", rest)
        else:
            verb = _en_stem(verb) + " "
    rest = _en_strip_time_words(_P["en.plan_tail"].sub("", _P["en.planning_verb"].sub("", rest)), when)
    rest = _P["en.timed_plan.3"].sub("", rest.strip())
    if not rest.strip():  # "I'm shopping today" is what the user is doing, not a plan
        return None
    trip = _P["en.timed_plan.4"].match(rest.strip())
    if trip and (verb.strip() in ("head", "travel", "go", "") and (verb or _P["en.timed_plan.5"].match(rest.strip()))):
        return f"trip to {trip.group(1)}"  # "We're heading to Cornwall next weekend", "going to Rome in May"
    obj = _clean(f"{verb}{rest}", False)
    return obj if obj and len(obj.split()) <= 10 else None


def _en_strip_time_words(text: str, when: datetime) -> str:
    """``text`` without its time expressions ("the conference in Vegas this year" -> "the conference in Vegas")."""
    text = _strip_times(text, when)
    text = _P["en.strip_time_words.2"].sub("", text)
    return _P["en.strip_time_words.3"].sub("", text.strip()).strip()


def _en_place(text: str, when: datetime) -> str:
    text = _P["en.home_named_by_owner"].sub("", _strip_times(text, when))  # "my sister's place in Hilton": Hilton
    text = _P["en.place_now"].sub("", text)  # "…in lancaster right now": lancaster
    m = _P["en.place.1"].match(text)
    if m:
        return m.group(0)
    return _clean(text, False)


def _antecedent(whole: str) -> str:
    """The thing a turn opens with when it acts on the user: "Cat dander wrecks me, I'm allergic" -> cat dander."""
    m = searched(_P["en.antecedent.1"], whole, "match")
    return m.group(1).lower() if m and not _P["en.antecedent.2"].match(m.group(1)) else ""


def _en_name_ok(c: str, whole: str, when: datetime | None = None) -> re.Match[str] | None:
    """A name said to be fine ("I'm Dr. Oyelaran at work, but Tunde is fine here", "but with you just Chidi is
    good", "Siobhan here (Shiv is fine!)"), once the turn names the user; not a day or a time ("Friday works")."""
    m = _P["en.name_fine"].search(c) if searched(_P["en.names_user"], whole) else None
    if m and (m.group(1) in _EN_NOT_A_NAME or (when is not None and find_times(m.group(1), when))):
        return None
    return m


_EN_NOT_A_NAME = RULES.sets["en.not_a_name"]
