"""Values set anew: a budget changed or corrected by a bare amount or by a difference, in the
currency of the budget before it (``_bare_amount``, ``_in_earlier_currency``); an earlier value corrected
("是X，不是Y", "I meant X, not Y", "说错了，是X"), found in the context (``_value_correction``); a value taken
back in the turn that said it (``_slip_in_turn``)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal
from functools import lru_cache

from ...lang.amounts import Amount, find_amounts
from ...lang.numerals import parse_cn_number
from ...lang.times import find_times
from ...pipeline import Turn
from ..records import Raw as _Raw
from .dialogue import _DATED_ITEMS, _from_assistant
from .facts import _raw_facts, _undecided
from .readers import _bare_number, _en_amount
from .text import _CJK, _CORRECTION, _P, _asks_there, _introduces, _is_zh


def _difference(text: str, zh: bool) -> tuple[re.Match[str], Amount] | None:
    """A change by an amount in ``text`` ("又涨了五百", "went up by £500", "cut by 2k"): the match and the signed
    difference (negative for a decrease, ``shared.change_down``), its currency as marked or None."""
    m = _P["zh.change_by"].search(text) if zh else _P["en.change_by"].search(text)
    if not m:
        return None
    found = find_amounts(m.group(0))
    if found:
        amt = found[0][2]
    else:
        bare = _P["shared.bare_amount.1"].search(m.group(0)) if not zh else None
        num = _P["zh.number"].search(m.group(0)) if zh else None
        value = _bare_number(bare) if bare else \
            (parse_cn_number(num.group(0)) if num else None)
        if value is None:
            return None
        amt = Amount(Decimal(value), None)
    sign = -1 if _P["shared.change_down"].search(m.group(0)) else 1
    return m, Amount(sign * amt.value, amt.currency)


def _bare_amount(text: str, earlier: _Raw, when: datetime) -> Amount | None:
    """The amount a turn gives once a budget is being corrected or changed: money found in it, or a plain number
    ("降到五百", "No, I said 4,000"), in CNY for Chinese or in the earlier budget's currency for English. A change
    by an amount ("又涨了五百", "it went up by £500") gives the earlier budget plus or minus it; without an earlier
    amount (or in another currency) it gives no value. A number that is part of a time ("31 july", "3月5号") or
    a share ("30%", 百分之二十) is no amount."""
    for start, end, _ in reversed(find_times(text, when)):
        text = text[:start] + " " * (end - start) + text[end:]
    # a share is no amount ("package涨了30%", "cut by 10 percent", 涨了百分之二十): blanked like a time
    text = _P["shared.percentage"].sub(lambda m: " " * len(m.group(0)), text)
    zh = _is_zh(text)
    diff = _difference(text, zh)
    if diff is not None:
        m, by = diff
        old = earlier.value or {}
        currency = old.get("currency") or ("CNY" if zh else None)
        if old.get("amount") is None or (by.currency and by.currency != currency):
            text = text[:m.start()] + text[m.end():]  # the total, if the turn states one
        else:
            return Amount(Decimal(str(old["amount"])) + by.value, currency)
    if zh:
        head = _P["zh.bare_amount.1"].split(text.replace("不是，", "", 1))[0] or text
        found = find_amounts(head)
        if found:
            a = found[0][2]
            return Amount(a.value, a.currency or "CNY")
        num = _P["zh.bare_amount.2"].search(head)
        value = parse_cn_number(num.group(1)) if num else None
        return Amount(Decimal(value), "CNY") if value else None
    amt = _en_amount(text)
    bare = _P["shared.bare_amount.1"].search(_P["en.amount.1"].split(text)[0]) if amt is None else None
    if bare:
        amt = Amount(_bare_number(bare), None)
    if amt is not None and amt.currency is None and earlier.value:
        amt = Amount(amt.value, earlier.value.get("currency"))
    return amt


def _in_earlier_currency(raws: list[_Raw], context: Sequence[Turn]) -> list[_Raw]:
    """A budget said without its currency ("trimming it to 6k") in the currency of the budget
    before it in the conversation, as a bare changed amount is (``_bare_amount``)."""
    if not context or not any(r.predicate == "budget_limit" and isinstance(r.value, dict)
                              and r.value.get("currency") is None for r in raws):
        return raws
    earlier = _earlier_budget(context)
    currency = earlier.value.get("currency") if earlier is not None and isinstance(earlier.value, dict) else None
    if currency is None:
        return raws
    out = []
    for r in raws:
        if r.predicate == "budget_limit" and isinstance(r.value, dict) and r.value.get("currency") is None:
            amt = Amount.from_json(r.value, currency)
            r = dataclasses.replace(r, object=str(amt), value=amt.to_json())
        out.append(r)
    return out


@lru_cache(maxsize=2048)
def _read_before(text: str, when: datetime, project: bool) -> tuple[_Raw, ...]:
    """What an earlier turn says, read once: a conversation's turns are read again as the context of each
    turn after them."""
    return tuple(_raw_facts(text, when, project=project))


def _said_last(context: Sequence[Turn], predicate: str, *, project: bool = False) -> _Raw | None:
    """The value of ``predicate`` the users said last in the context (read as in a project's turn when
    ``project`` and the turn is one), None if they said none."""
    for t in reversed(context):
        if t.speaker != "user":
            continue
        found = [r for r in _read_before(t.text, t.time, project and bool(t.project)) if r.predicate == predicate]
        if found:
            return found[-1]
    return None


def _earlier_budget(context: Sequence[Turn]) -> _Raw | None:
    """The user's last budget in the context, or a stand-in when a user turn only talks of one ("预算你帮我算个数")."""
    said = _said_last(context, "budget_limit")
    if said is not None:
        return said
    if any(t.speaker == "user" and _P["shared.earlier_budget.1"].search(t.text) for t in context):
        return _Raw("budget_limit", "")
    return None


def _bare_move(text: str, when: datetime) -> tuple[re.Match[str], str] | None:
    """Where ``text`` moves a date without naming what moved (``shared.bare_move``), and the words naming the new
    date; None when it moves none (or what follows names no time)."""
    m = _P["shared.bare_move"].search(text)
    said = next((g for g in m.group("zh", "en", "active", "wants") if g), "") if m else ""
    return (m, said) if m is not None and said and find_times(said, when) else None


def _moved_deadline(text: str, context: Sequence[Turn], when: datetime) -> _Raw | None:
    """A date moved without naming what moved ("提前到5月8号了", "it got pushed to april 3", "she wants it by the
    27th after all"): the deadline said last in the conversation, due the new day, a change; when the
    conversation named none, a move naming no item (an empty object) for the store to place (core/moved.py).
    None when the turn moves no date."""
    moved = _bare_move(text, when)
    if moved is None:
        return None
    earlier = _said_last(context, "deadline", project=True)
    # the session named none: an item told before it, which the store places (core/moved.py); a move only
    # thought of or asked ("might be worth pushing it to january", "move it to the 22nd?") waits for a reviewer
    return _Raw("deadline", earlier.object if earlier is not None else "", change="evolution", due=moved[1],
                hedged=_asks_there(text, moved[0].start()) or _undecided(text))


_ITEM_HEAD, _ITEM_HEAD_ZH = 4, 2  # the characters (letters, Chinese ones) an item's said place is looked for by


def _moved_in_turn(text: str, raws: list[_Raw], when: datetime) -> list[_Raw]:
    """A date moved without naming what moved, after a dated item the turn said itself ("4月17号之前要出一版
    角色设定…等下 主美说提前到15号了", "the deposit's due friday, oh wait they moved it to monday"): that item, due
    the new day; ``raws`` as they are when the turn moves no date after one of its items."""
    moved = _bare_move(text, when)
    if moved is None:
        return raws
    m, said = moved
    folded = text.casefold()
    # where each item is said: its first words (the rules may have taken a time out of the middle of it)
    at = [folded.find(r.object.casefold()[:_ITEM_HEAD_ZH if _CJK.match(r.object) else _ITEM_HEAD])
          if r.object else -1 for r in raws]
    before = [i for i, r in enumerate(raws) if r.predicate in _DATED_ITEMS and 0 <= at[i] < m.start()]
    if not before or any(a >= m.start() for a in at):
        return raws
    last = before[-1]
    return [dataclasses.replace(r, due=said) if i == last else r for i, r in enumerate(raws)]


def _value_correction(text: str, context: Sequence[Turn]) -> list[_Raw]:
    """"是X，不是Y" / "I meant X, not Y": the user's earlier fact with Y, now X."""
    m = _P["zh.value_correction.1"].search(text) \
        or _P["en.value_correction.1"].search(text)
    if m:
        new, old = m.group(1).strip(), m.group(2).strip()
    else:  # "不是钉钉，是飞书", "Scratch that, Linear, not Jira": the wrong value first, or X without a verb
        m = _P["zh.value_correction.2"].search(text) or _P["en.value_correction.2"].search(text)
        if not m:
            return _bare_value_correction(text, context)
        new, old = m.group("new").strip(), m.group("old").strip()
    for t in reversed(context):  # the user's own earlier value, or one the assistant stated
        said = t.text if t.speaker == "user" else _from_assistant(t.text)
        for r in _raw_facts(said, t.time, allow_question=True):
            if old.casefold() in r.object.casefold():
                return [_Raw(r.predicate, new, r.polarity, "correction")]
    for t in reversed(context):  # the old value inside a longer text: "Senior analyst at Accenture, …"
        for predicate, cues in _VALUE_CUES:
            if any(_introduces(t.text, old, before, after) for before, after in cues):
                return [_Raw(predicate, new, "positive", "correction")]
    return []


# how a value is introduced when no rule reads the sentence it is in: what comes before and after it
_VALUE_CUES = tuple((p, tuple((_P[f"shared.value_cues.{p}.{i}.before"], _P[f"shared.value_cues.{p}.{i}.after"])
                              for i in range(1, n + 1))) for p, n in (("works_at", 3), ("lives_in", 2)))

_CORRECTED_VALUE = _P["shared.corrected_value"]
_SINGLE_VALUED = ("lives_in", "works_at", "name", "commute")


def _slip_in_turn(text: str, raws: list[_Raw]) -> list[_Raw] | None:
    """A value taken back in the turn that said it ("住望京——打错了，是酒仙桥", "I live in Leeds,
    sorry I meant York"): the raws with the value after the last correction cue in place of the
    last one said before it. None when the turn is no such slip (the cue opens the turn, no bare
    value follows it, a value after it was read already, or no value precedes it)."""
    cue = next(reversed(list(_CORRECTION.finditer(text))), None)  # the last one
    if cue is None or cue.start() == 0:
        return None
    rest = _P["zh.split"].split(text[cue.end():].strip(" ，,:：-—"), maxsplit=1)[0].strip()
    before = text[:cue.start()]
    m = _CORRECTED_VALUE.search(rest)
    new = (m.group(1) or m.group(2) or "").strip() if m else ""
    if not new:  # no value named as such; an amount said bare after the cue ("啊不对，65万") may be meant
        return _amount_slip(before, _CLAUSE_BREAK.split(rest, maxsplit=1)[0], raws)
    said = [r for r in raws if r.object and r.object in rest and r.object not in before]
    if said:  # the value after the cue was read as a fact of its own ("…不对，是对李子过敏"): the slip goes
        kinds = {r.predicate for r in said}
        at = next((i for i in range(len(raws) - 1, -1, -1) if raws[i] not in said and raws[i].object
                   and raws[i].predicate in kinds and raws[i].object in before), None)
        return None if at is None else [*raws[:at], *raws[at + 1:]]
    at = next((i for i in range(len(raws) - 1, -1, -1) if raws[i].object and raws[i].object in before), None)
    if at is None:
        return _amount_slip(before, new, raws)
    return [*raws[:at], dataclasses.replace(raws[at], object=new, value=None), *raws[at + 1:]]


_CLAUSE_BREAK = _P["shared.amount_slip.break"]
_BARE_NUMBER = _P["shared.amount_slip.number"]


def _amount_slip(before: str, new: str, raws: list[_Raw]) -> list[_Raw] | None:
    """``_slip_in_turn`` for an amount, which a budget holds written out ("资金加到60万，啊不对，65万": the
    budget read as 600000 CNY is the last amount said before the cue): the amount after the cue in its place,
    in the currency said, else the one taken back. None when the amount before the cue is no budget read."""
    said = [a.value for _, _, a in find_amounts(before)] or [
        v for n in _BARE_NUMBER.findall(before) if (v := parse_cn_number(n.replace(",", ""))) is not None]
    bare = _BARE_NUMBER.match(new.strip())  # "啊不对不对 3000 2500是我现在的房租": the number said first
    meant = find_amounts(new) or ([(0, len(new), Amount(v))] if (v := parse_cn_number(
        bare.group(0).replace(",", "") if bare else new.strip())) is not None else [])
    if not said or not meant:
        return None
    budgets = [(i, Amount.from_json(r.value)) for i, r in enumerate(raws)
               if r.predicate == "budget_limit" and isinstance(r.value, dict)]
    at, old = next(((i, a) for i, a in reversed(budgets) if a.value == said[-1]), (None, None))
    if at is None or old is None:
        return None
    amount = Amount(meant[0][2].value, meant[0][2].currency or old.currency)
    return [*raws[:at], dataclasses.replace(raws[at], object=str(amount), value=amount.to_json()), *raws[at + 1:]]


def _bare_value_correction(text: str, context: Sequence[Turn]) -> list[_Raw]:
    """"说错了，是海淀" / "wait no, Worthing": the new value for the user's last single-valued fact."""
    if _P["shared.cjk"].search(text):  # "哦不对，我说错了，是海珠区，天河是我上班的地方": the part that is "是X"
        parts = _P["zh.bare_value_correction.1"].split(text.strip())
        tries = [p for p in parts if _P["zh.bare_value_correction.2"].fullmatch(p)] + parts[-1:]
    else:  # "sorry, I meant Balham - Clapham's where I work out", "Sorry, I meant Crawley, autocorrect…"
        head = _P["shared.bare_value_correction.1"].split(text.strip())[0]
        tries = [head, _P["shared.bare_value_correction.2"].sub("", head), text.strip()]
    m = next((found for t in tries if (found := _CORRECTED_VALUE.search(t))), None) or _CORRECTED_VALUE.search(text.strip())
    if not m:
        return []
    new = (m.group(1) or m.group(2) or "").strip()
    for t in reversed(context):  # the user's own value, or one the assistant stated ("Got it, you're in Croydon.")
        said = t.text if t.speaker == "user" else _from_assistant(t.text)
        for r in reversed(_raw_facts(said, t.time, allow_question=True)):
            if r.predicate in _SINGLE_VALUED and new and new.casefold() != r.object.casefold():
                return [_Raw(r.predicate, new, r.polarity, "correction")]
    return []
