"""A first rule-based fact extractor for Chinese and English (offline, no dependencies).

``extract(turn, context)`` reads one conversation turn and returns the facts it
states about the user (or the turn's project), following DESIGN §3 and the
conventions of ``tests/sets/gold/README.md``:

* candidate rules by family: preferences (likes / dislikes), diet, allergies,
  decisions and rejections, budgets, todos and commitments, plans, where the
  user lives, works, how they want to be addressed, pets and commute;
* a worth-remembering filter: pure questions, small talk, temporary states,
  indecision, hypotheticals, former states and statements about other people
  yield nothing;
* atomisation on contrast / enumeration words (但/不过/然而/还有/另外/以及, but /
  however / also / besides / though) and clause punctuation, keeping a
  condition (如果/要是/前提是, if / as long as) with its conclusion;
* change signals: evolution (搬到/改成/砍到, moved to / raised to …) and
  correction (不对/说错了, sorry, I meant / scratch that …);
* assistant turns: never facts by themselves; a hedged guess about the user
  (应该/好像/吧, I guess / you seem …) becomes an ``agent_inferred`` candidate,
  and a user's confirmation of the preceding assistant turn yields that
  statement as ``user_confirmed`` (an offer to act only when it offers the user's usual choice).

``memdesk.claims.to_claims(turn, facts)`` maps the result to claims.

This module is the mechanism; the phrasings are data. ``_zh_rules`` and ``_en_rules`` run a table of steps
(``_ZH_STEPS``/``_EN_STEPS``), one family of predicates each. Most families are *rules as records*
(``data/rules/steps/<lang>.<step>.toml``, format in ``records.py``): each record names what it recognises,
its pattern, its conditions, the fact it yields and its examples, and ``interpret.run_step`` tries them on
the clause (``_data_step``). This module keeps the step functions not yet turned into records (decisions
and budgets in both languages; the Chinese likes and dislikes, to-dos and plans, pets and allergies), the
clause splitting, the dialogue handling, and the small registry of named post-processors (``@post``) and tests (``@test``)
that records use for what a pattern cannot say. Every cue table and named pattern lives in
``data/rules/zh.toml``, ``en.toml`` and ``shared.toml`` (cue word lists such as
``zh.choose``/``zh.reject``/``en.reject`` for decisions, ``zh.dislike``/``en.dislike``/
``en.dislike_predicate`` for dislikes, ``zh.animal``/``en.animal`` for pets, ``en.commute`` for commutes,
``zh.modals``/``en.plan_*`` for timed plans, ``zh.people``/``en.people`` for statements about other people),
each with the examples that justify it; they are compiled once, when ``ruleset.py`` loads them, and used
here as ``_P["<lang>.<name>"]``. Topic-narrowing conditions ("如果是无糖的可以来一杯" → 无糖奶茶) become one like
of the narrowed thing.

General mechanisms rather than sentence wordings (the chatty round):

* synonym lexicons: ``zh.dislike`` (不太喜欢/受不了/吃不惯 …), ``en.like`` /
  ``en.dislike`` / ``en.dislike_predicate`` (sucker for, obsessed with, isn't
  my thing …), rejections (off the table, let's not use, X不用了/那个方案算了),
  reminders (``shared.remind_me``), vehicles (``zh.vehicle``/``en.vehicle``), and
  ``en.food`` deciding whether "I'm off X" / "X's a no for me" is a diet or a
  dislike;
* fronted topics ("坐船我不行", "香菜也不吃", "布洛芬我吃了会起疹子，过敏") and habits
  ("周末我从来不回工作消息" → dislikes, "我每天傍晚都去江边跑步" → likes);
* a predicate carried across an elliptical clause (``_carried_over``: "羊肉也不行",
  "cashews too") or an enumeration (``_split_enumeration``, ``_en_bare_item``:
  "虾和蟹", "peanuts, shellfish and sesame"), and the alternative accepted after a
  dislike ("高铁还行");
* clauses without a subject ("Love sushi", "Big fan of X", ``_with_subject``),
  without punctuation (spaces and 然后/所以 between Chinese clauses), and the
  statement before a trailing question ("My gecko Ziggy …, any tips?");
* budgets as limits (上限/以内/控制在, ``_zh_budget_amount``), from-to changes
  taking the new value; confirmations only of what the assistant asked or
  guessed (``_put_forward``), never of its statements or offers to act; wishes
  (真想/等以后/one day), "might" and other people's or a company's decisions
  filtered.

Mechanisms for misses a user would not forgive (issue 14):

* a bare self-introduction ("I'm Carol", "This is Priya Shah", "我是小明") is the name, unless the turn asks for
  another form of address or the word is a state, nationality, role or origin (``en.not_a_name``,
  ``zh.not_a_name``), the records ``zh.introduction.i_am_name``/``en.introduction.i_am_name``;
* a past move with no place named (我搬家了, we've moved) makes "现在在X" / "now in X" where the user lives, as an
  evolution from the utterance (``zh.moved_house``, ``zh.lives_in.where_now_after_move``,
  ``en.lives_in.now_in_after_move``);
* any change of a value to a new one is a change signal whatever the verb (``zh.change_to``, ``en.change_to``),
  the new value is the one after "to", and a change by an amount (an extra 2k, 多批了一万) is no limit: the total
  beside it, or the earlier budget of the context plus or minus it (``_difference``);
* an allergic reaction that names no allergen (会过敏, they make me break out) turns the abstentions of the
  clause before it (else after it) into allergies (``zh.bare_reaction``, ``en.bare_reaction``, ``_as_allergies``);
* a plain acceptance of what the assistant offers as the user's usual choice ("Want the aisle seat like last
  time?" "Yes please, aisle."; 要不要还是靠窗？"对，靠窗") is a ``user_confirmed`` like (``_offered_preference``);
* a way of getting around (everywhere, get around by bike, 出门, 去哪儿都) is a commute (``*.getting_around``);
* a correction that names the wrong value ("I meant Redis Streams, not RabbitMQ") also yields a negative
  correction of the wrong value as stored, for the multi-valued predicates of ``shared.retired_on_correction``,
  so that the gates retire it in its own slot (``_retire_wrong_values``).

Bounded work (issue 29): the rules read a turn in time linear in its length. What they ask of the whole turn
(``interpret.Whole``) is worked out once per turn, not once per clause, and a run of blanks reads as one blank
(a line break when it holds one: ``_squeezed``), so that no pattern opening with ``\\s+`` or ``\\s*`` rescans a
long run from each of its positions.

Not covered yet: narrowing conditions in English ("a hike as long as it's
under 10 km"), rephrasing objects (保险就买平安的那款 → 平安的保险), value-only
answers to the agent's questions beyond a name, budget, allergy, home or
employer (``_answer_value``), enumerations without a separator (虾蟹).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from decimal import Decimal

from ...catalog import Catalog
from ...lang.amounts import Amount, find_amounts
from ...lang.numerals import EN_UNITS, parse_cn_number
from ...lang.times import TimeSpan, find_times
from ...pipeline import ExtractedFact, Turn
from .. import interpret
from ..interpret import Whole, searched
from ..records import Raw as _Raw
from ..ruleset import RULES
from .facts import (
    _alcohol_named_once,
    _drop_implied_abstentions,
    _drop_unnamed_pets,
    _ended,
    _named_employer,
    _raw_facts,
    _split_enumeration,
)
from .readers import _TASTE_CHANGE, _en_amount, _en_bare_limit, _zh_budget_amount
from .steps import _commute
from .text import _CJK, _CORRECTION, _P, _PRONOUN_OBJECT, _clean, _introduces, _is_zh

__all__ = ["extract"]

# said in a project's turn, the project's (its budget, decisions, plans, deadlines, to-dos)
_PROJECT_PREDICATES = frozenset(p.id for p in Catalog.load() if p.team)
_TIMED = {"plan", "todo", "pet"}

_AMOUNT_CHANGE = _P["shared.amount_change"]

_EVOLUTION = _P["shared.evolution"]

# a turn that only confirms: confirmation words, repeated or with punctuation ("可以可以。", "Yep, that's right.")
_CONFIRM = _P["shared.confirm"]

# "No, Bath.", "That's wrong, it's Lloyds.", "不是，我在快手，…": a new value for what the agent just said
_ANSWER_CORRECTION = _P["shared.answer_correction"]

_AGENT_HEDGE = _P["shared.agent_hedge"]


def _from_assistant(text: str) -> str:
    """The assistant's statement rewritten from the user's point of view."""
    t = _P["en.from_assistant.1"].sub("", text.strip())
    t = _P["zh.from_assistant.1"].sub("", t)  # "我理解您是要把周会改到周二上午"
    t = _P["zh.from_assistant.2"].sub("", t)
    t = _P["zh.from_assistant.3"].sub("", t)
    t = _P["en.from_assistant.2"].sub("Remind me", t)
    t = _P["en.from_assistant.3"].sub("we'll ", t)  # a proposal: "shall we host it on X?"
    t = _P["zh.from_assistant.4"].sub("就", t)  # "要不直接用Next.js重写？"
    t = _P["zh.from_assistant.5"].sub("就", t)  # "建议用微信扫码登录"
    t = _P["zh.from_assistant.6"].sub("就选", t)  # "建议住温泉酒店"
    t = _P["en.from_assistant.4"].sub("and not", t)  # "I'd suggest Fly.io and skipping Heroku"
    t = _P["en.from_assistant.5"].sub("", t)  # "… given the pricing"
    t = _P["en.from_assistant.6"].sub("let's go with ", t)  # "I'd suggest annual invoicing"
    t = _P["en.from_assistant.7"].sub("let's go with", t)
    t = _P["en.from_assistant.8"].sub("Call me", t)
    if _P["en.from_assistant.9"].match(t) or _P["en.from_assistant.10"].match(t):
        return ""  # an offer to act ("Would you like me to book the window seat?", "Booking for Friday?")
    t = _P["en.from_assistant.11"].sub("I like ", t)
    t = _P["en.from_assistant.12"].sub("I'm", t)
    t = _P["en.from_assistant.13"].sub("I", t)
    t = _P["en.from_assistant.14"].sub("", t)
    t = _P["en.from_assistant.15"].sub("I'm", t)
    t = _P["en.from_assistant.16"].sub("I am", t)
    t = _P["en.from_assistant.17"].sub("I'd", t)
    t = _P["en.from_assistant.18"].sub("my", t)
    t = _P["en.from_assistant.19"].sub(lambda m: m.group(0).split()[0] + " me", t)
    t = _P["en.from_assistant.20"].sub("I", t)
    t = _P["zh.from_assistant.7"].sub("", t)
    t = _P["zh.from_assistant.8"].sub("", t)
    t = _P["zh.from_assistant.9"].sub("叫我", t)
    t = t.replace("提醒您", "提醒我").replace("您", "我").replace("你", "我")
    t = _P["zh.from_assistant.10"].sub("", t)
    return t


# what an assistant's question asks for, and how a bare answer to it reads
_ASKED_FOR = (
    ("name", _P["shared.asked_for.1"]),
    ("budget_limit", _P["shared.asked_for.2"]),
    ("allergy", _P["shared.asked_for.3"]),
    ("diet", _P["shared.asked_for.4"]),
    ("lives_in", _P["shared.asked_for.5"]),
    ("works_at", _P["shared.asked_for.6"]),
    ("commute", _P["shared.asked_for.7"]),
)

# questions whose bare answer reads as a statement once its subject and verb are put back
_RESTATED_ANSWERS = (
    (_P["shared.restated_answers.1"], "I like ", "我喜欢"),
    (_P["shared.restated_answers.2"], "I have ", "我养了"),
)


def _answer_restated(text: str, question: str, when: datetime) -> list[_Raw]:
    """"mostly jazz and a bit of soul" to "What kind of music do you like?", "Yeah, a tabby called Mango" to "Any
    pets?": the answer read with "I like" / "I have" (我喜欢 / 我养了) put before it."""
    body = _P["shared.answer_restated.1"].sub("", text.strip())
    for cue, en, zh in _RESTATED_ANSWERS:
        if cue.search(question) and body and not _P["shared.answer_restated.2"].match(body):
            lead = zh if _is_zh(body) else en
            return [r for r in _raw_facts(lead + body, when) if r.predicate in ("likes", "pet")]
    return []


def _answer_value(text: str, question: str, when: datetime) -> _Raw | None:
    """A bare value answering the assistant's question: "Sam is fine" to "What should I call you?", "around 2k"
    to "What's your budget?", "peanuts" to "Any allergies?", "Leeds" to "Where do you live?"."""
    asked = next((pred for pred, cue in _ASKED_FOR if cue.search(question)), None)
    t = text.strip().rstrip("。.!！")
    if asked == "name" and (named := _P["shared.answer_value.name_first"].match(t)):
        t = named.group(1)  # "Bea works, nobody uses Beatrice except my gran": the name said to do
    if asked in ("commute", "lives_in", "works_at", "allergy"):  # the value comes first: "Mostly the Overground, unless…"
        t = _P["shared.answer_value.1"].split(t)[0].rstrip("。.!！") if len(t) > 30 else t
        t = _P["en.answer_value.1"].split(t)[0]
    if asked is None or len(t) > 40 or _P["shared.raw_facts.4"].search(t) or _CONFIRM.match(text.strip()) \
            or _P["shared.answer_value.2"].match(t):
        return None
    if asked == "name":
        m = _P["shared.answer_value.3"].match(t)
        return _Raw("name", m.group(1)) if m else None
    if asked == "commute":  # "骑电驴", "挤公交呗，还能咋", "walk, it's ten mins", "bus, mostly"
        first = _P["shared.answer_value.4"].split(t)[0].strip()
        if _is_zh(first):
            found = _commute("zh.commute", f"{_P['zh.answer_value.1'].sub('', first)}上班", "上班", when)
        else:
            word = _P["en.answer_value.2"].sub("", first).strip().lower()
            word = _P["en.answer_value.3"].sub("", word)
            found = _commute("en.commute", f"I {word} to work", "", when) \
                or _commute("en.commute", f"I take the {word} to work", "", when)
        return found
    if asked == "budget_limit":
        zh = _is_zh(t)
        amt = _zh_budget_amount(t) if zh else (_en_amount(t) or _en_bare_limit(f"max {_P['shared.answer_value.5'].sub('', t)}"))
        return _Raw("budget_limit", str(amt), value=amt.to_json()) if amt is not None else None
    if asked == "allergy":  # "海鲜里面主要是虾和蟹，其他都还好"
        t = _P["zh.answer_value.2"].sub("", t)
    if asked in ("lives_in", "works_at", "allergy"):  # "Manchester, near Didsbury", "招商证券，做投研的"
        parts = [x.strip() for x in _P["shared.answer_value.6"].split(t) if x.strip()]
        exact = next((_P["shared.answer_value.7"].sub("", x) for x in parts[1:]
                      if _P["shared.answer_value.8"].search(x)), None)
        t = exact or (parts[0] if parts else t)
    m = _P["en.answer_value.4"].fullmatch(t)
    if not m or _P["en.answer_value.5"].search(t):
        return None
    value = (m.group(1) or m.group(2)).strip()
    if asked == "diet":
        return None  # a bare food to "有什么忌口" is covered by the rules ("不吃香菜")
    return _Raw(asked, value)


_ZH_CHOICE_Q = _P["zh.choice_q"]
_EN_CHOICE_Q = _P["en.choice_q"]


def _answer_choice(text: str, question: str, when: datetime, project: bool) -> list[_Raw]:
    """An answer naming one option of the assistant's "X还是Y？" / "X or Y?": that option chosen, with its full name
    ("园区吧" to "酒店宴会厅还是创意园区？" -> 创意园区), and the other one rejected when the answer says so."""
    m = _ZH_CHOICE_Q.search(question) or _EN_CHOICE_Q.search(question)
    if not m or not (project or _P["shared.answer_choice.1"].search(question)):
        return []  # "Tea or coffee?" asks for a choice of the moment
    if _P["shared.answer_choice.2"].search(question):
        return []  # "你平时用Mac还是Windows？" asks about a habit, not a decision
    options = [_P["zh.answer_choice.1"].sub("", o).strip() for o in m.groups() if o]
    norm = [o.casefold() for o in options]

    def full(name: str) -> str | None:
        n = name.casefold().strip()
        hits = [o for o, k in zip(options, norm, strict=True) if n and len(n) >= 2 and (n in k or k in n)]
        hits = hits if len(hits) == 1 else [o for o in hits if o.casefold() == n]
        return hits[0] if len(hits) == 1 else None

    first = _P["shared.answer_choice.3"].split(text.strip())[0]
    first = _P["shared.answer_choice.4"].sub("", first.strip()).strip()
    chosen = full(first) if len(first) <= max(len(o) for o in options) + 4 else None
    if chosen is None:
        return []
    out = [_Raw("decision", chosen)]
    for r in _raw_facts(text, when, project=True):
        said_no = (r.predicate == "decision" and r.polarity == "negative") or r.predicate == "dislikes"  # "X's a no"
        if said_no and (other := full(r.object)) and other != chosen:
            out.append(_Raw("decision", other, "negative"))
    return out


def _answer_when(text: str, question: str, when: datetime) -> _Raw | None:
    """A time given in answer to the assistant's "when": the event asked about becomes a plan ("新版官网计划什么时候
    上线？" "月底吧" -> 上线新版官网), or a todo when the user promises it ("竞品分析什么时候能给我？" "今晚发你")."""
    t = text.strip()
    if not (find_times(t, when) or _P["shared.answer_when.1"].search(t)):
        return None
    zh = _is_zh(question)
    sent = next((x for x in _P["shared.answer_when.2"].split(question) if _P["shared.answer_when.3"].search(x)), "")
    if not sent:
        return None
    if zh:
        m = _P["shared.answer_when.4"].search(sent)
        if not m:
            return None
        thing, verb = _P["zh.answer_when.1"].sub("", m.group(1)), m.group(2)
        promise = _P["zh.answer_when.2"].search(t)
        if promise:
            return _Raw("todo", promise.group(1) + thing)
        return _Raw("plan", f"{verb}{thing}" if verb and verb not in ("做", "弄", "搞") else thing)
    own = _P["en.answer_when.1"].search(t)
    m = _P["en.answer_when.2"].search(sent)
    if own:
        return _Raw("plan", own.group(1))  # "Next Tuesday, to move the sink."
    if m and _P["en.answer_when.3"].search(t):
        return _Raw("todo", m.group(1))
    return _Raw("plan", m.group(1)) if m else None


def _offered_preference(text: str, offer: str) -> _Raw | None:
    """A plain acceptance of what the assistant offers as the user's usual choice ("Want the aisle seat like last
    time?" "Yes please, aisle."; "要不要还是靠窗？" "对，靠窗"): a like of the option offered, which the caller marks
    ``user_confirmed``. The offer or the answer must say it is the usual choice (``shared.habit_cue``: like last
    time, again, your usual, 还是, 照旧, 老样子 …): a one-off offer accepted ("Would you like me to book the aisle
    seat?" "sure") states no lasting preference. The answer may repeat the option or say please, nothing else
    ("Yes, but window this time" accepts something else)."""
    yes = _CONFIRM.match(text.strip())
    if not yes:
        return None
    rest = _P["shared.acceptance_tail"].sub("", text.strip()[yes.end():].strip(" ,，.。!！~～"))
    habit_in_answer = bool(rest) and bool(_P["shared.habit_cue"].fullmatch(rest))
    for sent in reversed([x.strip() for x in _P["shared.put_forward.1"].split(offer) if x.strip()]):
        m = _P["shared.offered"].search(sent)
        if not m or not (_P["shared.habit_cue"].search(sent) or habit_in_answer):
            continue
        zh = m.group("zh") is not None
        obj = _clean(_P["shared.habit_cue"].sub("", m.group("zh") or m.group("en") or ""), zh)
        if not obj or _PRONOUN_OBJECT.match(obj) or _P["shared.not_an_option"].search(obj):
            return None
        if rest and not habit_in_answer and rest.casefold() not in obj.casefold() and obj.casefold() not in rest.casefold():
            return None  # "Yes, but window this time"
        return _Raw("likes", obj)
    return None


_A_NOT_A = _P["shared.a_not_a"]


def _echoes_a_not_a(text: str, question: str) -> bool:
    """A reply that echoes the verb of an A-not-A question ("要不要我提醒你？" "要要要", "好不好？" "好"):
    a yes."""
    reply = _P["shared.reply_filler"].sub("", text)
    return bool(reply) and any(reply == m.group(1) * (len(reply) // len(m.group(1)))
                               for m in _A_NOT_A.finditer(question))


def _put_forward(text: str) -> str:
    """What an assistant turn puts forward for the user to confirm: its guesses and questions ("I assume you eat
    gluten-free, right? I'll skip the bakeries." -> the first sentence). A plain statement puts nothing forward:
    "好的好的" after "按计划4月11日就能完工" confirms no fact about the user."""
    sents = [x.strip() for x in _P["shared.put_forward.1"].split(text) if x.strip()]
    # a proposal followed by a bare tag question ("…capping spend at $8,000. Okay?", "建议定在四万元，可以吗？")
    sents = [f"{x}?" if i + 1 < len(sents) and _P["shared.tag_question.i"].fullmatch(sents[i + 1]) else x
             for i, x in enumerate(sents)]
    sents = [_P["shared.put_forward.2"].sub("?", x) for x in sents
             if not _P["shared.tag_question.i"].fullmatch(x)]
    put = [x for x in sents if _P["shared.put_forward.3"].search(x) or _AGENT_HEDGE.search(x) or _OFFERED_REMINDER.search(x)]
    asked = [x for x in put if x.rstrip().endswith(("?", "？"))]
    if asked and len(asked) < len(put):  # "好的，4月10日提醒你…。要不要我9号再提醒你…？": a reply answers the question
        put = asked
    if not put:  # what the assistant says it remembers of the user: "我记得您不吃猪肉，…", "You don't drink alcohol, so…"
        put = [m.group(1) or m.group(2) for x in sents if (m := _RECALLED.match(x))]
    return " ".join(_P["shared.put_forward.4"].sub(".", _P["shared.put_forward.5"].sub("。", _OFFER_LEAD.sub("", x))) for x in put)


_DATED_ITEMS = ("todo", "deadline", "plan")


def _reminded_item(offer: str, before: Sequence[Turn], when: datetime) -> _Raw | None:
    """The to-do of an offered reminder that does not name its action ("Final headcount due the 25th. Reminder on
    the 23rd?", "周五跟房东说退租。要不要我周五早上提醒你一下？"): the dated item the offer's message states
    before it, else the one the user's turn before it states; None when neither states one."""
    said = _said_before_offer(offer, before, lambda x: _from_assistant(_P["shared.reminded_item.1"].sub("", x)))
    for text in reversed(said):
        raws = _raw_facts(text, when, allow_question=True, project=True)
        for predicate in _DATED_ITEMS:
            item = next((r for r in raws if r.predicate == predicate and r.polarity == "positive"), None)
            if item is not None:
                return _Raw("todo", item.object)
    return None


def _reminder_day(put: str, offer: str, before: Sequence[Turn], when: datetime) -> str | None:
    """The day of a reminder offered some days before the item it is about, when the offer names no day of its own
    ("Interview May 6. Want a reminder the day before?" -> 2026-05-05, "3月11日打疫苗。要不要前一天提醒你？"
    -> 3月10日): the first day the offer's message names outside the offer, else the user's turn before it, less
    the days said. None when the offer names its own day or no day before the item."""
    m = _P["shared.days_before"].search(put)
    if m is None or find_times(put, when):
        return None
    n = m.group("n") or m.group("n_zh")
    if m.group("week") or m.group("week_zh"):
        days = 7
    elif n:
        days = EN_UNITS.get(n.casefold()) or int(parse_cn_number(n) or 1)
    else:
        days = 1
    for text in reversed(_said_before_offer(offer, before)):
        times = find_times(text, when)
        if times:
            return (times[0][2].start.date() - timedelta(days=days)).isoformat()
    return None


def _said_before_offer(offer: str, before: Sequence[Turn], read: Callable[[str], str] = str.strip) -> list[str]:
    """What a reminder offer can be about, in the order it was said: the user's turn before it (when the turn
    before is the user's), then the sentences of the offer's message that offer no reminder, each ``read``."""
    sents = [read(x.strip()) for x in _P["shared.put_forward.1"].split(offer)
             if x.strip() and not _OFFERED_REMINDER.search(x)]
    return ([before[-1].text] if before and before[-1].speaker == "user" else []) + sents


# an assistant's sentence that states what it knows of the user, up to the first comma or "so"
_RECALLED = _P["shared.recalled"]

# an assistant's offer the user can accept: a reminder ("I'll remind you next Monday to…", "明天提醒您…")
_OFFERED_REMINDER = _P["shared.offered_reminder"]
# what leads into a proposal or an offer: "确认一下：", "那我记下了：", "Just to confirm:"
_OFFER_LEAD = _P["shared.offer_lead"]

_BLANKS = _P["shared.blanks"]


def _squeezed(text: str) -> str:
    """``text`` with each run of two or more blanks read as one: a line break when the run holds one, else a
    space. A pattern that opens with ``\\s+`` tried at every position of a long run would read the run again
    from each of them (time growing with the square of its length); no rule tells a run from one blank."""
    if "  " not in text and not _BLANKS.search(text):
        return text
    return _BLANKS.sub(lambda m: "\n" if "\n" in m.group(0) else " ", text)


def extract(turn: Turn, context: Sequence[Turn] = ()) -> list[ExtractedFact]:
    """The facts ``turn`` states about its user or project (see the module doc). Time linear in the length of
    the turn (and of its context)."""
    text = _squeezed(turn.text).strip()
    if not text:
        return []
    # what is asked of the turn's text for each fact is worked out once (interpret.Whole)
    turn = dataclasses.replace(turn, text=Whole(_squeezed(turn.text)))
    context = [t if _squeezed(t.text) is t.text else dataclasses.replace(t, text=_squeezed(t.text))
               for t in context]
    project = bool(turn.project)
    if turn.speaker != "user":
        if not _AGENT_HEDGE.search(text):
            return []
        clauses = _P["en.extract.1"].split(text)
        out: list[ExtractedFact] = []
        for clause in clauses:
            if _AGENT_HEDGE.search(clause):
                raws = _raw_facts(_from_assistant(clause), turn.time, allow_question=True, project=project)
                out.extend(_fact(turn, r, "agent_inferred", 0.5) for r in raws)
        return out

    prev = context[-1] if context else None
    is_correction = bool(_CORRECTION.search(text))
    if prev is not None and prev.speaker != "user" and not is_correction:
        offered = _offered_preference(text, prev.text)  # "Want the aisle seat like last time?" "Yes please, aisle."
        if offered is not None:
            return [_fact(turn, offered, "user_confirmed", 0.9, offer=prev)]
    raws = _raw_facts(text, turn.time, project=project)
    if prev is not None and prev.speaker != "user" and not is_correction and _P["shared.raw_facts.4"].search(prev.text):
        choice = _answer_choice(text, prev.text, turn.time, project)  # "园区吧，宴会厅就不考虑了"
        if choice:
            return [_fact(turn, r, "user_explicit", 0.9) for r in choice]
        dated = _answer_when(text, prev.text, turn.time) if not raws else None  # "When's the cutover?" "End of the month."
        if dated is not None:
            return [_fact(turn, dated, "user_explicit", 0.9)]
        restated = _answer_restated(text, prev.text, turn.time) if not raws else []
        if restated:
            return [_fact(turn, r, "user_explicit", 0.9) for r in restated]
        answer = _answer_value(text, prev.text, turn.time)  # "What should I call you?" - "Sam is fine"
        if answer is not None and (not raws or answer.predicate == "name"
                                   or (answer.predicate == "allergy" and all(r.predicate == "likes" for r in raws))):
            return [_fact(turn, r, "user_explicit", 0.9) for r in _split_enumeration(answer, _is_zh(text))]
    if not raws and prev is not None and prev.speaker != "user":
        if (_CONFIRM.match(text) or _echoes_a_not_a(text, prev.text)) and not is_correction:
            # accepting a proposal makes it a decision, as in a project conversation ("要不用Next.js？" "行")
            put = _put_forward(prev.text)
            confirmed = _raw_facts(_from_assistant(put), turn.time, allow_question=True, project=True)
            if _OFFERED_REMINDER.search(put):
                if not any(r.predicate == "todo" for r in confirmed):
                    reminded = _reminded_item(prev.text, context[:-1], turn.time)  # "Reminder on the 23rd?"
                    # a reminder offered is a to-do or nothing, never a decision ("要不要我提醒你一下？" "好")
                    confirmed = [reminded] if reminded is not None else \
                        [r for r in confirmed if r.predicate != "decision"]
                if day := _reminder_day(put, prev.text, context[:-1], turn.time):  # "… the day before?"
                    confirmed = [dataclasses.replace(r, due=day) if r.predicate == "todo" else r for r in confirmed]
            if any(r.predicate == "todo" for r in confirmed):  # an offered reminder is the to-do, not a decision
                confirmed = [r for r in confirmed if r.predicate != "decision"]
            offer = dataclasses.replace(prev, text=put or prev.text)  # its times are the offer's own
            return [_fact(turn, r, "user_confirmed", 0.9, offer=offer) for r in confirmed]
        if _P["shared.extract.1"].search(prev.text):
            m = _P["shared.extract.2"].match(text)
            if m:
                return [_fact(turn, _Raw("name", m.group(1)), "user_explicit", 0.9)]
        # "不是江宁啦，是河西": the value after 是 answers the guess
        m = _ANSWER_CORRECTION.match(_P["zh.extract.1"].sub(r"\1，", text))
        if m and _P["zh.extract.2"].search(m.group(1)):
            m = None  # "不是，就今天不想吃": a declined guess, no new value
        if m:
            guessed = _raw_facts(_from_assistant(prev.text), turn.time, allow_question=True, project=project) \
                or [_Raw(p, "") for p, cue in _GUESS_CUES if cue.search(prev.text)][:1]
            if guessed:
                g = guessed[0]
                r = _Raw(g.predicate, _P["zh.extract.3"].sub("", m.group(1).strip().rstrip(".")), g.polarity, "correction")
                return [_fact(turn, r, "user_explicit", 0.9)]
        m = _P["en.extract.2"].match(text)
        guessed = _raw_facts(_from_assistant(prev.text), turn.time, allow_question=True, project=project) if m else []
        if m and guessed and guessed[0].predicate == "commute":  # "I'm guessing you take the bus?" "No, I walk."
            found = [r for r in _raw_facts(f"{m.group(1)} to work", turn.time) if r.predicate == "commute"]
            return [_fact(turn, _Raw("commute", r.object, r.polarity, "correction"), "user_explicit", 0.9)
                    for r in found]
    if context and (not raws and (is_correction or _EVOLUTION.search(text))
                    or not any(r.predicate == "budget_limit" for r in raws) and _AMOUNT_CHANGE.search(text)):
        # a bare corrected or changed amount ("是七千不是九千", "Oops, typo - $2,500.", "从下个月起降到两千",
        # "砍到12万", "make it $2000"): the budget said before, changed
        earlier = _earlier_budget(context)
        amt = _bare_amount(text, earlier, turn.time) if earlier is not None else None
        if amt is not None:
            # set anew in place of the earlier one: a change (a correction says so itself)
            change = "evolution" if not is_correction and _AMOUNT_CHANGE.search(text) else None
            raws = [r for r in raws if r.predicate != "decision"] + [
                _Raw("budget_limit", str(amt), change=change, value=amt.to_json())]  # "不用那么多了，砍到…"
    if not raws and is_correction and context:
        raws = _value_correction(text, context)
    raws = _ended(_named_employer(text, _in_earlier_currency(raws, context)))
    raws = _alcohol_named_once(_drop_implied_abstentions(_drop_unnamed_pets(raws)))
    # "X不吃/不喝" also read as a dislike, "AWS就算了" also as a rejection: keep the diet or decision fact only
    abstain = {r.object for r in raws if r.polarity == "negative" and r.predicate in ("diet", "decision")}
    raws = [r for r in raws if not (r.predicate == "dislikes" and r.object in abstain)]
    allergens = {r.object.casefold() for r in raws if r.predicate == "allergy"}  # "no nuts - allergic": the allergy
    raws = [r for r in raws if not (r.predicate == "diet" and r.polarity == "negative" and r.object.casefold() in allergens)]
    if is_correction:  # "住望京——打错了，是酒仙桥": taken back as it was said, the value meant after the cue
        raws = _slip_in_turn(text, raws) or raws
    slipped: set[str] = set()  # predicates whose value the turn said twice, taking the first back
    if is_correction:  # a correction inside the turn: only the last value per predicate
        last = {r.predicate: i for i, r in enumerate(raws)}
        dropped = {i for i, r in enumerate(raws) if last[r.predicate] != i
                   and r.predicate in ("allergy", "lives_in", "works_at", "name", "budget_limit")}
        slipped = {raws[i].predicate for i in dropped}
        raws = [r for i, r in enumerate(raws) if i not in dropped]
    if is_correction and context:  # "I meant Redis Streams, not RabbitMQ": the wrong value retired too
        raws = _retire_wrong_values(text, context, raws)
    out = []
    evolving: bool | None = None  # the change signal, looked for once and only when a fact can take it
    tasting: bool | None = None  # the same for a taste's change signal
    for r in raws:
        # the cue took back a value said earlier in this turn, which says a change ("预算砍到十万
        # 啊不是 十二万"): what remains is that change of the value held before, not a
        # correction of it (which would retire it as never true)
        changing = r.predicate in slipped and bool(
            _EVOLUTION.search(text) or r.predicate == "budget_limit" and _AMOUNT_CHANGE.search(text))
        if is_correction and r.change is None and not changing:
            r = dataclasses.replace(r, change="correction")
        if r.change is None and r.predicate in _EVOLVING:
            if evolving is None:
                evolving = bool(_EVOLUTION.search(text))
            if evolving or r.predicate == "budget_limit" and _AMOUNT_CHANGE.search(text):
                r = dataclasses.replace(r, change="evolution")  # "预算砍回8万5": an amount set anew
        elif r.change is None and r.predicate in _TASTES:
            if tasting is None:
                tasting = bool(_TASTE_CHANGE.search(text))
            if tasting:  # "these days I like X", "不再喜欢X了": it supersedes the opposite taste
                r = dataclasses.replace(r, change="evolution")
        out.append(_fact(turn, r, "user_explicit", 0.9))
    return out


# the predicates a change signal in the turn makes evolutions
_EVOLVING = frozenset(("budget_limit", "lives_in", "works_at", "commute", "diet", "decision"))
_TASTES = frozenset(("likes", "dislikes"))  # their own change signal: shared.taste_change


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
        value = Decimal(bare.group(1).replace(",", "")) * (1000 if bare.group(2) else 1) if bare else \
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
    amount (or in another currency) it gives no value. A number that is part of a time ("31 july", "3月5号") is
    no amount."""
    for start, end, _ in reversed(find_times(text, when)):
        text = text[:start] + " " * (end - start) + text[end:]
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
        amt = Amount(Decimal(bare.group(1).replace(",", "")) * (1000 if bare.group(2) else 1), None)
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
            amt = Amount(Decimal(str(r.value["amount"])), currency)
            r = dataclasses.replace(r, object=str(amt), value=amt.to_json())
        out.append(r)
    return out


def _earlier_budget(context: Sequence[Turn]) -> _Raw | None:
    """The user's last budget in the context, or a stand-in when a user turn only talks of one ("预算你帮我算个数")."""
    for t in reversed(context):
        if t.speaker != "user":
            continue
        found = [r for r in _raw_facts(t.text, t.time) if r.predicate == "budget_limit"]
        if found:
            return found[-1]
    if any(t.speaker == "user" and _P["shared.earlier_budget.1"].search(t.text) for t in context):
        return _Raw("budget_limit", "")
    return None


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


# multi-valued predicates (slot: subject, predicate, scope, object) whose wrong value a correction retires
_RETIRED_ON_CORRECTION = frozenset(p.id for p in Catalog.load() if not p.single_valued) \
    & RULES.sets["shared.retired_on_correction"]


def _retire_wrong_values(text: str, context: Sequence[Turn], raws: list[_Raw]) -> list[_Raw]:
    """A correction that names the wrong value ("Sorry, I meant Redis Streams, not RabbitMQ", "是飞书，不是钉钉"):
    for the user's latest earlier fact holding it, of a multi-valued predicate the correction gives a right value
    for, a claim of the wrong value with negative polarity, marked as a correction. A multi-valued slot is
    (subject, predicate, scope, object), so the right value alone would leave the wrong one current beside it;
    this claim's plan is a correction in the wrong value's own slot, which retires its positive row over that
    row's interval."""
    corrected = {r.predicate for r in raws if r.polarity == "positive" and r.predicate in _RETIRED_ON_CORRECTION}
    if not corrected:
        return raws
    wrong = [(m.group("en") or m.group("zh1") or m.group("zh2") or "").strip().casefold()
             for m in _P["shared.wrong_value"].finditer(text)]
    held = {(r.predicate, r.object.casefold()) for r in raws}
    out = list(raws)
    said: dict[int, list[ExtractedFact]] = {}  # each earlier turn read once, not once per wrong value
    for old in filter(None, wrong):
        for i, t in reversed(list(enumerate(context))):
            if t.speaker != "user":
                continue  # the assistant's words were never stored as facts
            if i not in said:
                said[i] = extract(t)
            hit = next((f for f in said[i] if f.predicate in corrected and f.polarity == "positive"
                        and (old == f.object.casefold() or len(old) >= 2 and old in f.object.casefold())), None)
            if hit is not None:
                if (hit.predicate, hit.object.casefold()) not in held:
                    out.append(_Raw(hit.predicate, hit.object, "negative", "correction"))
                    held.add((hit.predicate, hit.object.casefold()))
                break
    return out


# what an assistant's guess is about when no rule reads it: "You're at Deloitte, right?"
_GUESS_CUES = tuple((p, _P[f"shared.guess_cues.{p}"]) for p in ("works_at", "lives_in"))
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
    if not new:
        return None
    if any(r.object and r.object in rest for r in raws):
        return None  # the value after the cue was read as a fact of its own ("…不对，是对李子过敏")
    at = next((i for i in range(len(raws) - 1, -1, -1) if raws[i].object and raws[i].object in before), None)
    if at is None:
        return None
    return [*raws[:at], dataclasses.replace(raws[at], object=new, value=None), *raws[at + 1:]]


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


def _nearest_time(text: str, obj: str, times: list[tuple[int, int, TimeSpan]]) -> tuple[int, int, TimeSpan]:
    """Of the times ``text`` names, the one said nearest to where it says ``obj`` (found whole, else by its first
    word): "i turn 65 in may… so remind me march 1 to call the ssa office" -> march 1. The first when ``obj``
    is not found (it was rewritten)."""
    at = text.find(obj)
    size = len(obj)
    if at < 0 and obj.split():
        head = obj.split()[0] if not searched(_CJK, obj) else obj[:2]
        at, size = text.find(head), len(head)
    if at < 0:
        return times[0]
    return min(times, key=lambda t: max(0, t[0] - (at + size), at - t[1]))


def _fact(turn: Turn, r: _Raw, kind: str, confidence: float, offer: Turn | None = None) -> ExtractedFact:
    """The fact ``r`` states, cited to ``turn``. A dated item the user takes from the
    assistant's ``offer`` ("Shall I remind you on the 18th?" "yes please") is due when
    the offer said, unless the reply names a time of its own."""
    if turn.project and r.predicate in _PROJECT_PREDICATES:
        subject, scope = f"project:{turn.project}", "project"
    else:
        subject, scope = f"user:{turn.user}", "global"
    start = end = None
    value = r.value
    if r.due is not None:
        # the rule found the text naming when it is due ("slips to Friday 29 May"): its time;
        # a deadline's due day is its value, so a deadline moved is another value of the thing
        times = find_times(r.due, turn.time)
        if times:
            start, end = times[0][2].start, times[0][2].end
            if r.predicate == "deadline":
                value = {"due": times[0][2].start.date().isoformat()}
    elif r.change == "evolution" or r.predicate in _TIMED:
        # a change is told as having happened, unless the turn tells of what is to come:
        # a time naming no direction is then the latest one (February, said in March: this year's)
        told = turn.text
        future = _P["zh.told_as_future" if searched(_CJK, told) else "en.told_as_future"]
        past = r.change == "evolution" and not searched(future, told)
        times = told.once(("times", past), lambda: find_times(told, turn.time, past=past)) \
            if isinstance(told, Whole) else find_times(told, turn.time, past=past)
        if not times and offer is not None:
            times = find_times(offer.text, offer.time, past=past)
        elif len(times) > 1:
            times = [_nearest_time(told, r.object, times)]
        if times:
            start, end = times[0][2].start, times[0][2].end
    said = None
    if start is None and r.predicate not in _DATED_ITEMS and r.predicate != "pet":
        told = turn.text  # the times said as starts, found once per turn (a Whole keeps them)
        starts = told.once(("said_starts",), lambda: _said_starts(told, turn.time)) \
            if isinstance(told, Whole) else _said_starts(told, turn.time)
        said = _nearest_time(told, r.object, starts)[2] if starts else None
    if said is not None:
        start, end = said.start, said.end
    return ExtractedFact(
        subject=subject, predicate=r.predicate, object=r.object, value=value,
        polarity=r.polarity, change=r.change, scope=scope, source_kind=kind,
        confidence=confidence, event_start=start, event_end=end, condition=r.condition,
        start_said=said is not None,
    )


def _said_starts(text: str, when: datetime) -> list[tuple[int, int, TimeSpan]]:
    """The times ``text`` says a value began at, not after ``when``: after "since" / "as of" ("vegetarian since
    January"), or between 从/自从 and 开始/起/以来 ("从三月开始戒的"). Each time's glue is looked for in a few
    characters around it, so the work stays linear in the text."""
    out = []
    for t in find_times(text, when, past=True):
        if t[2].start > when:
            continue
        before, after, within = text[max(0, t[0] - _GLUE):t[0]], text[t[1]:t[1] + _GLUE], text[t[0]:t[0] + _GLUE]
        if (_P["zh.said_start.1"].search(before) and _P["zh.said_start.2"].match(after)) \
                or _P["en.said_start"].search(before) or _P["en.said_start_within"].match(within):
            out.append(t)
    return out


_GLUE = 24  # characters around a time in which its "since" / 从…开始 is looked for

interpret.check_names(RULES.steps, RULES.maps, RULES.sets)
