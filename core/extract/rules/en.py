"""The English steps: ``_EN_STEPS``, run on each clause by ``_en_rules`` until one settles it. All are the
records of ``data/rules/steps/en.*.toml`` but decisions and budgets, which are step functions here."""

from __future__ import annotations

from datetime import datetime

from ...lang.amounts import Amount
from ..interpret import searched
from ..records import Raw as _Raw
from .readers import _bare_number, _en_amount, _en_bare_limit, _en_strip_time_words
from .steps import _commute, _data_step
from .text import _P, _PRONOUN_OBJECT, _clean

# foods and drinks: abstaining from one of them is a diet, from anything else a dislike
_EN_FOOD = _P["en.food"]
# a fronted subject the user complains about: "Open-plan offices drive me up the wall"
_EN_A_NO_FROM_ME = _P["en.a_no_from_me"]
_EN_TRANSIENT = _P["en.transient"]
# "X over Y", "X instead of Y", "X rather than Y": X chosen, Y rejected
_EN_COMPARATIVE = _P["en.comparative"]


def _en_step_decisions(c: str, whole: str, when: datetime, project: bool, out: list[_Raw]) -> bool:
    """Decisions and rejected options. True stops the clause's later steps."""
    add = out.append
    neg = _P["en.decisions.1"].search(c) \
        or _P["en.decisions.2"].match(c) \
        or (searched(_P["en.decisions.3"], whole)
            and _P["en.decisions.4"].match(c)) \
        or _P["en.decisions.5"].match(c) \
        or (searched(_P["en.decisions.6"], whole)
            and _P["en.decisions.7"].match(c)) \
        or (searched(_P["en.decisions.8"], whole)
            and _P["en.decisions.9"].match(c))
    if not neg and project:
        neg = _P["en.decisions.10"].search(c) \
            or _P["en.decisions.11"].match(c)
    opts = _P["en.decisions.12"].match(c)
    if opts:  # "Options 1 and 3 are rejected"
        for n in opts.group(2, 3):
            add(_Raw("decision", f"{opts.group(1).capitalize()} {n}", polarity="negative"))
        return True
    if neg:
        obj = _en_strip_time_words(_clean(neg.group(1), False), when)
        obj = _P["en.decisions.13"].sub("", _clean(obj, False))
        if _PRONOUN_OBJECT.match(obj):
            neg, obj = None, ""  # "we'll skip it": the option is in another clause
        swap = _P["en.decisions.14"].match(obj)
        if not obj:
            pass
        elif swap and neg is not None and (_P["en.decisions.15"].search(neg.group(0))
                       or _P["en.decisions.16"].match(swap.group(2))):
            add(_Raw("decision", swap.group(1), polarity="negative"))  # "let's not use Zendesk for onboarding"
        elif swap and neg is not None and not _P["en.decisions.17"].search(neg.group(0)):
            add(_Raw("decision", swap.group(1), polarity="negative"))  # "we ditched Jira for Linear"
            add(_Raw("decision", swap.group(2), change="evolution"))
        else:
            add(_Raw("decision", obj, polarity="negative"))
    m = _P["en.decisions.18"].search(c)
    if m and _commute("en.commute", c, c, when) is None:  # "I switched from driving to the train for work" is a way to work
        add(_Raw("decision", _en_strip_time_words(_clean(m.group(1), False), when), change="evolution"))
    m = _P["en.decisions.19"].search(c)
    if not m and not neg and project:
        one = _P["en.decisions.20"].match(c)
        if one and _P["en.decisions.21"].match(one.group(2)):
            one = None
        if one:  # "Decision: Postgres", "Decided: no mobile app this quarter"
            obj = _clean(_en_strip_time_words(one.group(2), when), False)
            add(_Raw("decision", obj, polarity="negative" if one.group(1) else "positive"))
            return True
        one = _P["en.decisions.22"].match(c)
        if one and not _PRONOUN_OBJECT.match(one.group(1)) \
                and not _P["en.decisions.23"].search(c):
            add(_Raw("decision", _clean(one.group(1), False), polarity="negative"))  # "Nah, forget Heroku"
            return True
        one = _P["en.decisions.24"].match(c)
        if one:  # "Swap Mailchimp for Brevo"
            add(_Raw("decision", _clean(one.group(1), False), polarity="negative"))
            add(_Raw("decision", _clean(one.group(2), False), change="evolution"))
            return True
        m = _P["en.decisions.25"].match(c)
    if not m and not neg and searched(_P["en.decisions.26"], whole):  # "…not Zendesk — Intercom it is"
        m = _P["en.decisions.25"].match(c)
    if not m:  # "get the Kindle rather than the iPad": a comparative makes any choice verb a decision
        m = _P["en.decisions.27"].search(c)
        if m and not _P["en.decisions.28"].match(c):
            m = None
    if not m and project:  # "Postgres over MySQL." as the whole clause
        m = _P["en.decisions.29"].match(c)
    if not m and project:  # "Offsite venue is the Whistler lodge": the option named for a project's slot
        m = _P["en.decisions.30"].match(c)
    if not m and searched(_P["en.decisions.26"], whole):  # "Definitely not the Airbnb, book a hotel"
        m = _P["en.decisions.31"].match(c)
    if m and (_P["en.decisions.32"].match(m.group(1))
              or _PRONOUN_OBJECT.match(m.group(1).strip())
              or _P["en.decisions.33"].search(c)):
        m = None  # "go with whatever you think" chooses nothing
    if m and not neg:
        obj = _clean(m.group(1), False)
        obj = _P["en.decisions.34"].sub("", obj)
        switched = _P["en.decision_switched"].search(obj)  # "going with quartz instead": a switch to it
        obj = _P["en.decisions.35"].sub("", obj)
        obj = _P["en.decisions.36"].sub("", obj)
        comp = _EN_COMPARATIVE.match(obj)
        if comp:  # "Svelte instead of React": the first chosen, the second rejected
            change = "evolution" if _P["en.decisions.37"].search(obj) else None
            add(_Raw("decision", _clean(comp.group("yes"), False), change=change))
            add(_Raw("decision", _clean(comp.group("no"), False), polarity="negative"))
        else:
            add(_Raw("decision", obj, change="evolution" if switched else None))
    return False


def _en_step_budget(c: str, whole: str, when: datetime, project: bool, out: list[_Raw]) -> bool:
    """Budget limits. True stops the clause's later steps."""
    add = out.append
    if (_P["en.budget.1"].search(c)
            or searched(_P["en.budget.2"], whole)
            or _P["en.budget.3"].search(c)) \
            and (_P["en.budget.4"].search(c) or _P["en.budget.own_limit"].search(c)
                 or not _P["en.budget.5"].search(c)) \
            and not _P["en.budget.6"].search(c):
        c = _P["en.change_by"].sub(" ", c)  # "an extra £1,000" is a difference, not a limit
        # "went up by £500 to £4,000", "the clutch was 900 euro so I'm raising the budget to 7500": the new value,
        # with its currency or bare
        to = _P["en.change_new_value"].search(c) or _P["shared.amount_change"].search(c)
        amt = (_en_amount(c[to.end():]) or _bare_at(c[to.end():]) if to else None) or _en_amount(c) or _en_bare_limit(c)
        if amt is not None:
            add(_Raw("budget_limit", str(amt), value=amt.to_json()))
    return False


def _bare_at(text: str) -> Amount | None:
    """A number opening ``text`` without a currency ("7500", "7.5k"), the currency unknown."""
    m = _P["shared.bare_amount.1"].match(text.lstrip())
    if m is None:
        return None
    return Amount(_bare_number(m), None)


_EN_STEPS = (
    _data_step("en.lives_in"),
    _data_step("en.name"),
    _data_step("en.allergy"),
    _data_step("en.diet"),
    _data_step("en.contact_way"),
    _data_step("en.likes_dislikes"),
    _en_step_decisions,
    _data_step("en.decision"),
    _en_step_budget,
    _data_step("en.deadline"),
    _data_step("en.todo"),
    _data_step("en.plan"),
    _data_step("en.role"),
    _data_step("en.works_at"),
    _data_step("en.pet"),
    _data_step("en.commute"),
    _data_step("en.introduction"),
)


def _en_rules(clause: str, whole: str, when: datetime, project: bool = False) -> list[_Raw]:
    """The facts one English clause states: the steps of ``_EN_STEPS`` in turn, one family of
    predicates each, until one of them settles the clause."""
    out: list[_Raw] = []
    c = clause.strip()
    for step in _EN_STEPS:
        if step(c, whole, when, project, out):
            break
    return out
