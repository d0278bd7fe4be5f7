"""A value agreed to: a reply that takes up what the other party of the dialogue put forward. The other party
is the assistant or, in a team's conversation, a teammate: "countertops: I want quartz" / "fine by me. quartz it
is", "4.2k?" / "4.2k works", "咱店做宠物友好行不行？" / "可以，就这么定".

Two readings, both held to what the other party said:

- ``agreed_values``: the reply names the value (after an agreement word, or in a frame that agrees: "X it is",
  "X's fine", "就叫X", "那就X吧", "X+1"), and that value echoes the other party's turn (a word or a Chinese
  bigram, or the same amount). An amount agreed to is the budget talked of; anything else is a decision.
- ``teammate_proposal``: a bare confirmation ("+1", "agreed", "同意👍") after a teammate's turn confirms what
  the teammate put forward, read as a proposal (a question included) for the project.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal

from ...lang.amounts import Amount, find_amounts
from ...lang.text import grams
from ...lang.times import find_times
from ...pipeline import Turn
from ..records import Raw as _Raw
from .corrections import _earlier_budget
from .facts import _raw_facts
from .readers import _amount_obj
from .text import _P, _clean, _is_zh

# what a teammate's proposal may make of the project: the kinds a team settles together
_AGREEABLE = frozenset(("decision", "budget_limit", "plan", "deadline", "todo"))
_LONGEST_VALUE = 40  # characters: an agreed value is a name or a short phrase, not a clause
_CLAUSES_READ = 2  # the value agreed to is named at once ("好听！就叫半日咖啡"), not later in the turn


def other_party(turn: Turn, context: Sequence[Turn]) -> Turn | None:
    """The turn ``turn`` replies to: the session's last turn when the assistant said it or, in a project's
    conversation, another user of the same project (past a bare confirmation a third teammate gave it: "I
    propose…" "+1" "agreed"); None otherwise (the user going on)."""
    if not context:
        return None
    prev = context[-1]
    if prev.speaker != "user":
        return prev
    if turn.project and prev.project == turn.project and prev.user != turn.user:
        if len(context) > 1 and _P["shared.confirm"].fullmatch(prev.text.strip()) is not None:
            before = context[-2]
            if before.speaker == "user" and before.project == turn.project and before.user not in (turn.user, prev.user):
                return before
        return prev
    return None


def _echoes(value: str, said: str) -> bool:
    """Whether ``value`` repeats a word, a Chinese bigram or a number of ``said`` (function words aside)."""
    mine = {g for g in grams(value) if not g.startswith("#")}
    return bool(mine & {g for g in grams(said) if not g.startswith("#")})


def _numbers(text: str, when: datetime) -> list[Decimal]:
    """The numbers of ``text``: its amounts' and its plain numbers (in thousands with k), times left out."""
    for start, end, _ in reversed(find_times(text, when)):
        text = text[:start] + " " * (end - start) + text[end:]
    out = [a.value for _, _, a in find_amounts(text)]
    for m in _P["shared.agreed_number"].finditer(text):
        out.append(Decimal(m.group("digits").replace(",", "")) * (1000 if m.group("k") else 1))
    return out


def _agreed_amount(value: str, numbers: list[Decimal], said: str, context: Sequence[Turn], when: datetime
                   ) -> Amount | None:
    """The budget ``value`` agrees to: a number of it (``numbers``, as ``_numbers`` reads them) that the other party named (as it was or in thousands:
    "yeah ok, 42" to "can we bump it to 42k?"), in the currency of the budget talked of before. The value is
    the number alone (with "each", "总共"…), and a budget was talked of just before or in the reply."""
    earlier = _earlier_budget(context)
    talk = _P["shared.earlier_budget.1"]
    if earlier is None or not any(talk.search(t.text) for t in context[-2:]) and not talk.search(value):
        return None
    rest = _P["shared.agreed_number"].sub(" ", value)
    for start, end, _ in reversed(find_amounts(rest)):
        rest = rest[:start] + rest[end:]
    if not _P["shared.agreed_amount_rest"].fullmatch(" ".join(rest.split())):
        return None
    theirs = _numbers(said, when)
    for n in numbers:
        hit = next((x for x in theirs if x in (n, n * 1000, n * 10000)), None)
        if hit is not None:
            found = [a for _, _, a in find_amounts(said) if a.value == hit] + \
                    [a for _, _, a in find_amounts(value) if a.value == hit]
            currency = next((a.currency for a in found if a.currency), None) \
                or (earlier.value or {}).get("currency") or ("CNY" if _is_zh(value) else None)
            return Amount(hit, currency)
    return None


def agreed_values(text: str, other: Turn, context: Sequence[Turn], when: datetime) -> list[_Raw]:
    """The values a reply agrees to, as decisions or a budget, when they echo ``other`` (see the module doc):
    each of its first clauses that agrees by naming a value, and after an agreement word to a teammate the
    clause it opens; [] when the reply agrees to nothing it names."""
    lead = _P["shared.agree_lead"].match(text)
    rest = text[lead.end():] if lead else text
    clauses = [c.strip() for c in _P["shared.agreed_clause"].split(rest) if c.strip()][:_CLAUSES_READ]
    said = other.text if other.speaker == "user" else _P["shared.agreed_offer"].sub("", other.text)
    out: list[_Raw] = []
    for i, clause in enumerate(clauses):
        framed = _P["shared.agreed_value"].fullmatch(clause)
        if framed is not None:
            named = next((g for g in framed.group("v", "zh", "it", "same") if g), "")
        elif i == 0 and lead is not None and other.speaker == "user":
            named = clause  # the assistant's proposals a bare "yes, X" takes up are read by the dialogue rules
        else:
            continue
        agreed = _agreed(_clean(named, _is_zh(clause)).strip(), said, context, when)
        if agreed is not None and not any(r.predicate == agreed.predicate == "budget_limit" for r in out):
            out.append(agreed)
    return out


def _agreed(value: str, said: str, context: Sequence[Turn], when: datetime) -> _Raw | None:
    """The budget or the decision ``value`` names, if the other party's ``said`` named it too."""
    if not value or len(value) > _LONGEST_VALUE or _P["shared.agreed_not_a_value"].search(value):
        return None
    numbers = _numbers(value, when)
    amount = _agreed_amount(value, numbers, said, context, when) if numbers else None
    if amount is not None:
        # the budget named before, set anew: a change
        return _Raw("budget_limit", _amount_obj(amount), change="evolution", value=amount.to_json())
    if numbers or find_times(value, when) or not _echoes(value, said):
        return None  # a day agreed to is the due day of what was asked about, not a decision
    return _Raw("decision", value)


def teammate_proposal(text: str, teammate: Turn, when: datetime) -> list[_Raw]:
    """What a confirmation of a teammate's turn agrees to, bare ("+1") or opening the reply ("good idea Kemi
    yes…", "可以 就这么定"): the teammate's proposal, a question included ("can we go down to 18k?" "yep", "I
    think we make only six beds" "fine"), when the teammate's turn read as a statement holds none of it
    already; and a plan the teammate stated (我打算主要投小红书) is, agreed to, the team's decision."""
    if not (_P["shared.confirm"].match(text) or _P["shared.agree_lead"].match(text)):
        return []
    said = _P["shared.proposal_lead"].sub(lambda m: "就" if _is_zh(m.group(0)) else " we'll ", teammate.text).strip()
    stated = _raw_facts(teammate.text, teammate.time, project=True)
    held = {(r.predicate, r.object) for r in stated}
    proposed = [r for r in _raw_facts(said, teammate.time, allow_question=True, project=True)
                if r.predicate in _AGREEABLE and (r.predicate, r.object) not in held]
    # (a plan said with its day is the team's plan still, or someone's own, agreed to or not)
    dated = bool(find_times(teammate.text, teammate.time))
    agreed_plans = [] if dated else [_Raw("decision", r.object) for r in stated
                                     if r.predicate == "plan" and r.polarity == "positive"]
    out = [_Raw("decision", r.object, r.polarity) if r.predicate == "plan" and not dated else r
           for r in proposed] + agreed_plans
    if not out:  # a proposal no rule reads ("can we have a vegan table?"): agreed to, in its words
        out = [_Raw("decision", thing) for thing in _proposed_things(teammate.text)]
    return out


_PROPOSED_LONGEST = 10  # words (or Chinese characters, counted two to a word) of a proposal taken as said


def _proposed_things(text: str) -> list[str]:
    """What the proposals of ``text`` put forward in words no rule reads: the rest of each clause a proposal
    lead opens (``shared.proposal_lead``), up to its end, when short; none else."""
    out = []
    for m in _P["shared.proposal_lead"].finditer(text):
        rest = _P["shared.proposed_end"].split(text[m.end():], maxsplit=1)[0]
        thing = _clean(rest, _is_zh(rest)).strip()
        size = len(thing.split()) if not _is_zh(thing) else len(thing) / 2
        # (an amount or a day proposed is the budget's or the item's business: "can we go down to 18k?")
        if thing and 1 <= size <= _PROPOSED_LONGEST \
                and not find_amounts(thing) and not _P["shared.agreed_number"].search(thing):
            out.append(thing)
    return out
