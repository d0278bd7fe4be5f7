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

This package is the mechanism; the phrasings are data. ``_zh_rules`` and ``_en_rules`` run a table of steps
(``_ZH_STEPS``/``_EN_STEPS``), one family of predicates each. Most families are *rules as records*
(``data/rules/steps/<lang>.<step>.toml``, format in ``records.py``): each record names what it recognises,
its pattern, its conditions, the fact it yields and its examples, and ``interpret.run_step`` tries them on
the clause (``_data_step``). This package keeps the step functions not yet turned into records (decisions
and budgets in both languages; the Chinese likes and dislikes, to-dos and plans, pets and allergies), the
clause splitting, the dialogue handling, and the small registry of named post-processors (``@post``) and tests (``@test``)
that records use for what a pattern cannot say. Every cue table and named pattern lives in
``data/rules/zh.toml``, ``en.toml`` and ``shared.toml`` (cue word lists such as
``zh.choose``/``zh.reject``/``en.reject`` for decisions, ``zh.dislike``/``en.dislike``/
``en.dislike_predicate`` for dislikes, ``zh.animal``/``en.animal`` for pets, ``en.commute`` for commutes,
``zh.modals``/``en.plan_*`` for timed plans, ``zh.people``/``en.people`` for statements about other people),
each with the examples that justify it; they are compiled once, when ``ruleset.py`` loads them, and used
in the package's modules as ``_P["<lang>.<name>"]``. Topic-narrowing conditions ("如果是无糖的可以来一杯" → 无糖奶茶)
become one like of the narrowed thing.

The package's modules, each importing only those listed before it:

* ``text.py``: the named patterns ``_P`` and the text helpers every part uses (``_clean``, ``_strip_times`` …);
* ``readers.py``: readers of one kind of value in a phrase (amounts, topics, plans, places, names);
* ``steps.py``: the rule-step engine (``_data_step``, ``_commute``) and the ``@post``/``@test`` registry;
* ``zh_plans.py``, ``zh.py``, ``en.py``: the steps of each language (``_ZH_STEPS``, ``_EN_STEPS``);
* ``clauses.py``: a text cut into clauses (``_atoms``), and the English rewrites before it;
* ``facts.py``: the facts a user's text states, clause by clause (``_raw_facts``), and a turn's facts tidied;
* ``dialogue.py``: assistant turns, confirmations of what they put forward, answers to their questions;
* ``corrections.py``: values changed or corrected, within the turn or against its context;
* ``moves.py``: a move told ahead of time, the plan to move named by where it goes;
* the readers of a whole turn after its clauses are read, each a module: ``cutoffs.py`` (a day said as a
  cutoff makes what is owed by it a deadline), ``reminded.py`` (the to-do a reminder asked for is of, and
  what a turn asks to be reminded of as a to-do), ``absence.py`` (an absence ahead as a plan),
  ``pronouns.py`` (the thing or party a pronoun of a to-do stands for);
* this ``__init__.py``: ``extract`` itself, which puts them together for a turn and its context, and cites
  each fact to the turn (``_fact``).

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

Mechanisms of the sixteenth round of issue 28:

* a move told ahead (a home of the user's that begins after the turn, led to by a move verb) is also the plan to
  move there, named by the place, in place of a plan naming only the move (``moves.moves_ahead``); a Chinese
  move's place ends before 那边/这边来/住 (``zh_place_tail``);
* a thing said to move and then dated (X推了一周，改成3月27号) is due the new day (``zh.deadline.moved_then_dated``);
  a date moved after an item of the same turn moves that item (``_moved_in_turn``); a count of days is no change
  of a budget (``zh.change_by``); a budget given up ends whatever budget holds (``<lang>.budget_dropped``);
* an offered reminder whose item the offer restates as a dated phrase is that phrase without its time
  (``dialogue._dated_phrase``), a reminder for the weekday before the item is due on it (``shared.days_before``),
  and a reply that only asks to be reminded on a day accepts the offered item (``shared.remind_only``);
* a decision names something chosen: no pronoun alone, count or bare number, nor a budget
  (``_decisions_naming_something``); an English employer said as a post at a place is the place
  (``_employer_after_at``); bare dollars said where the money is another dollar are that dollar
  (``core/ingest.py`` ``in_home_currency``).

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
from collections.abc import Sequence
from datetime import date, datetime, timedelta

from ...bitemporal import ENDING
from ...catalog import Catalog
from ...lang.amounts import find_amounts
from ...lang.case import is_lower_case_name, recased
from ...lang.chat import written
from ...lang.places import town
from ...lang.times import TimeSpan, day_near, find_times, meant_times
from ...pipeline import HEDGED_CONFIDENCE, ExtractedFact, Turn
from .. import interpret
from ..interpret import Whole, searched
from ..records import Raw as _Raw
from ..ruleset import RULES
from .absence import away_ahead
from .agreement import agreed_values, other_party, teammate_proposal
from .corrections import (
    _bare_amount,
    _earlier_budget,
    _in_earlier_currency,
    _moved_deadline,
    _moved_in_turn,
    _slip_in_turn,
    _value_correction,
)
from .cutoffs import cutoffs_as_deadlines
from .dialogue import (
    _AGENT_HEDGE,
    _ANSWER_CORRECTION,
    _CONFIRM,
    _DATED_ITEMS,
    _GUESS_CUES,
    _OFFERED_REMINDER,
    _answer_choice,
    _answer_restated,
    _answer_value,
    _answer_when,
    _budget_changed,
    _echoes_a_not_a,
    _from_assistant,
    _item_named,
    _offered_preference,
    _option_taken,
    _put_forward,
    _reminded_item,
    _reminder_day,
)
from .facts import (
    _alcohol_named_once,
    _drop_implied_abstentions,
    _drop_unnamed_pets,
    _ended,
    _ending_named_before,
    _named_employer,
    _raw_facts,
    _split_enumeration,
)
from .moves import home_taken, homes_ahead, moves_ahead
from .pronouns import things_for_pronouns
from .readers import _TASTE_CHANGE
from .reminded import reminded_of_clause_before, reminded_plans_as_todos
from .text import _CJK, _CORRECTION, _P, _asks_there, _is_zh

__all__ = ["extract"]

# said in a project's turn, the project's (its budget, decisions, plans, deadlines, to-dos)
_CATALOG = Catalog.load()
_PROJECT_PREDICATES = frozenset(p.id for p in _CATALOG if p.team)
_TIMED = {"plan", "todo", "pet"}

_AMOUNT_CHANGE = _P["shared.amount_change"]

_EVOLUTION = _P["shared.evolution"]

_BLANKS = _P["shared.blanks"]


def _squeezed(text: str) -> str:
    """``text`` with each run of two or more blanks read as one: a line break when the run holds one, else a
    space. A pattern that opens with ``\\s+`` tried at every position of a long run would read the run again
    from each of them (time growing with the square of its length); no rule tells a run from one blank."""
    if "  " not in text and not _BLANKS.search(text):
        return text
    return _BLANKS.sub(lambda m: "\n" if "\n" in m.group(0) else " ", text)


# the predicates whose values are names: read from a turn typed without capitals, they keep the capitals
# ``recased`` gave them (halden logistics -> Halden Logistics); any other value is kept as it was typed
_NAMED_VALUES = frozenset({"name", "relation", "lives_in", "works_at", "pet"})


def extract(turn: Turn, context: Sequence[Turn] = ()) -> list[ExtractedFact]:
    """The facts ``turn`` states about its user or project (see the module doc). Time linear in the length of
    the turn (and of its context)."""
    typed = _squeezed(written(turn.text))  # chat typing as written ("im" -> "I'm"), blanks squeezed
    read = recased(typed)  # a turn typed without capitals with its names' capitals
    facts = _decisions_naming_something(_extract(turn, context, read))
    if read == typed:
        return facts
    return [f if f.predicate in _NAMED_VALUES else _as_typed(f, read, typed) for f in facts]


def _as_typed(fact: ExtractedFact, read: str, typed: str) -> ExtractedFact:
    """``fact`` with its object in the case it was typed in (``recased`` changes only the case of letters, so
    the object found in ``read`` sits at the same place in ``typed``)."""
    at = read.find(fact.object) if fact.object else -1
    if at < 0:
        return fact
    return dataclasses.replace(fact, object=typed[at:at + len(fact.object)])


def _extract(turn: Turn, context: Sequence[Turn], read: str) -> list[ExtractedFact]:
    text = read.strip()
    if not text:
        return []
    # what is asked of the turn's text for each fact is worked out once (interpret.Whole)
    turn = dataclasses.replace(turn, text=Whole(read))
    context = [t if (seen := _squeezed(recased(written(t.text)))) == t.text else dataclasses.replace(t, text=seen)
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
    # a dated item that is only the asking to be reminded ("4号晚上提醒我") names nothing: the reply is read as one
    raws = [r for r in _raw_facts(text, turn.time, project=project)
            if not (r.predicate in _DATED_ITEMS and _P["shared.remind_only"].fullmatch(r.object))]
    if prev is not None and prev.speaker != "user" and not is_correction \
            and not any(r.predicate == "budget_limit" for r in raws) \
            and (changed := _budget_changed(text, prev.text)) is not None:
        # "does it change the budget?" "yeah drop the whole thing to 20k": the budget's new amount, and nothing
        # else read from the words that said it
        budget, words = changed
        raws = [r for r in raws if not (r.object and r.object in words)] + [budget]
    if prev is not None and not is_correction:  # "…two buses on 5am reports. Phibsborough then, probably."
        said_before = [t.text for t in context[-_OPTIONS_BACK:] if t.speaker != "user" or t.user != turn.user]
        raws = raws + [r for r in _option_taken(text, said_before) if not _said(r, raws)]
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
        if answer is not None and answer.predicate == "works_at" and all(r.predicate == "role" for r in raws):
            # "在哪上班？" "平安银行，做风控的。": the employer asked for, and the role said with it
            return [_fact(turn, r, "user_explicit", 0.9) for r in [answer, *raws]]
    other = other_party(turn, context)
    if other is not None and not is_correction:
        if other.speaker == "user" and not raws:  # "can we switch to Linear?" "+1": the teammate's proposal
            proposed = teammate_proposal(text, other, turn.time)
            if proposed:
                return [_fact(turn, r, "user_confirmed", 0.9) for r in proposed]
        elif other.speaker == "user" and _P["shared.agree_lead"].match(text):
            # "good idea Kemi yes a vegan table and no nuts…": agreed to, with what the reply says besides
            raws = raws + [r for r in teammate_proposal(text, other, turn.time) if not _said(r, raws)]
        raws = raws + [r for r in agreed_values(text, other, context, turn.time) if not _said(r, raws)]
    rider = _rider(text, turn.time, prev.text) if prev is not None and prev.speaker != "user" and not is_correction \
        and all(len(_P["shared.unit"].findall(r.object)) <= _RIDER_JUNK for r in raws) else None
    if (not raws or rider is not None) and prev is not None and prev.speaker != "user":
        if (_CONFIRM.match(text) or rider is not None or _echoes_a_not_a(text, prev.text)) and not is_correction:
            # accepting a proposal makes it a decision, as in a project conversation ("要不用Next.js？" "行")
            put = _put_forward(prev.text)
            confirmed = _raw_facts(_from_assistant(put), turn.time, allow_question=True, project=True)
            # a number the proposal names without a currency is money only when it speaks of money ("a plan that
            # builds you up to 60k a week": a distance, no budget)
            confirmed = [r for r in confirmed if r.predicate != "budget_limit" or _P["shared.money_talk"].search(put)
                         or (isinstance(r.value, dict) and r.value.get("currency"))]
            item = None  # the item an offered reminder is about, on its own day
            if _OFFERED_REMINDER.search(put):
                named_item = _item_named(put, context[:-1], turn.time)
                if named_item is not None:  # "a reminder about the form?": the held item it names in part
                    confirmed = [r for r in confirmed if r.predicate not in ("todo", "decision", "plan")] \
                        + [_Raw("todo", named_item.object)]
                    item = named_item
                else:
                    # "remind you on Friday to post it?": the item the pronoun stands for, said before the offer
                    pronouns = [r.predicate == "todo" and bool(_P["shared.pronoun_item"].search(r.object))
                                for r in confirmed]
                    if any(pronouns) and (named := _reminded_item(prev.text, context[:-1], turn.time)) is not None:
                        confirmed = [dataclasses.replace(r, object=named.object) if pronoun else r
                                     for r, pronoun in zip(confirmed, pronouns, strict=True)]
                    if not any(r.predicate == "todo" for r in confirmed):
                        item = _reminded_item(prev.text, context[:-1], turn.time)  # "Reminder on the 23rd?"
                        # a reminder offered is a to-do or nothing, never a decision nor a plan ("要不要我提醒你一下？" "好")
                        confirmed = [_Raw("todo", item.object)] if item is not None else \
                            [r for r in confirmed if r.predicate not in ("decision", "plan")]
                if day := _reminder_day(put, prev.text, context[:-1], turn.time):  # "… the day before?"
                    confirmed = [dataclasses.replace(r, due=day) if r.predicate == "todo" else r for r in confirmed]
            if any(r.predicate == "todo" for r in confirmed):  # an offered reminder is the to-do, not a decision
                confirmed = [r for r in confirmed if r.predicate != "decision"]
            if rider is not None:  # accepted for another day: the reply's ("好啊 这周六", "要 提前三天吧")
                said = find_times(rider, turn.time)
                # a day said that is already here is no day to be reminded on ("行 26号提醒我" on the 26th: next month's)
                day = (_day_offered(rider, said[0][2].start.date(), turn.time, offer=put, offered_at=prev.time)
                       if said[0][2].start.date() > turn.time.date() else None) if said \
                    else _reminder_day(rider, prev.text, context[:-1], turn.time)
                if day:
                    confirmed = [dataclasses.replace(r, due=day) if r.predicate in ("todo", "plan", "deadline") else r
                                 for r in confirmed]
            offer = dataclasses.replace(prev, text=put or prev.text)  # its times are the offer's own
            facts = [_fact(turn, r, "user_confirmed", 0.9, offer=offer) for r in confirmed]
            return facts + _reminded_on_its_day(turn, item, facts)
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
    changed_to = _AMOUNT_CHANGE.search(text)
    # the turn itself speaking of the budget before the change ("also car budget, … so im bumping it to 15k")
    # (to money said as money, "make it 3 people" changes no budget; and not asked about, "预算加到两万五？")
    spoken_of = changed_to is not None and bool(_P["shared.earlier_budget.1"].search(text, 0, changed_to.start())) \
        and bool(find_amounts(text[changed_to.end():])) and not _asks_there(text, changed_to.end())
    if (context or spoken_of) and (not raws and (is_correction or _EVOLUTION.search(text))
                                   or not any(r.predicate == "budget_limit" for r in raws) and changed_to):
        # a bare corrected or changed amount ("是七千不是九千", "Oops, typo - $2,500.", "从下个月起降到两千",
        # "砍到12万", "make it $2000"): the budget said before (or spoken of before it in the turn), changed
        earlier = _earlier_budget(context) or (_Raw("budget_limit", "") if spoken_of else None)
        # the amount set anew is the one the change leads to ("the clutch was 900 euro, so I'm raising the budget
        # to 7500"), not money spoken of before it
        led_to = text[changed_to.start():] if changed_to is not None and find_amounts(text[changed_to.start():]) \
            else text
        amt = _bare_amount(led_to, earlier, turn.time) if earlier is not None else None
        if amt is not None:
            # set anew in place of the earlier one: a change (a correction says so itself)
            change = "evolution" if not is_correction and _AMOUNT_CHANGE.search(text) else None
            raws = [r for r in raws if r.predicate != "decision"] + [
                _Raw("budget_limit", str(amt), change=change, value=amt.to_json())]  # "不用那么多了，砍到…"
    # "…4月17号之前出 … 等下 提前到15号了": the turn's own item said before the move; else ("提前到5月8号了")
    # the deadline said before, moved
    moved_in = _moved_in_turn(text, raws, turn.time) if any(r.predicate in _DATED_ITEMS for r in raws) else raws
    if moved_in is raws and (moved := _moved_deadline(text, context, turn.time)) is not None \
            and not (moved.object and _said(moved, raws)):  # (its thing read already: "they moved the X deadline up")
        moved_in = [*raws, moved]
    raws = cutoffs_as_deadlines(text, moved_in, turn.time)  # "…the print shop by Friday 9 May", 4月10号之前交
    raws = reminded_of_clause_before(text, raws, turn.time)  # "…ring the glazier. Remind me on Tuesday"
    raws = reminded_plans_as_todos(text, raws)  # "vet's Saturday at 10, can you remind me thursday?"
    raws = home_taken(text, raws, turn.time)  # "found a rental in millersville … moving april 25"
    raws = away_ahead(text, raws, turn.time)  # "I'm away 1 to 8 May, Lagos", 下周一到周三请假
    raws = things_for_pronouns(text, raws, context, turn.time)  # "Is the van booked?" "remind me friday to book it"
    if not raws and is_correction and context:
        raws = _value_correction(text, context)
    raws = _ending_named_before(text, _ended(_named_employer(text, _in_earlier_currency(raws, context))))
    raws = _alcohol_named_once(_drop_implied_abstentions(_drop_unnamed_pets(raws)))
    # "X不吃/不喝" also read as a dislike, "AWS就算了" also as a rejection: keep the diet or decision fact only
    abstain = {r.object for r in raws if r.polarity == "negative" and r.predicate in ("diet", "decision")}
    raws = [r for r in raws if not (r.predicate == "dislikes" and r.object in abstain)]
    allergens = {r.object.casefold() for r in raws if r.predicate == "allergy"}  # "no nuts - allergic": the allergy
    raws = [r for r in raws if not (r.predicate == "diet" and r.polarity == "negative" and r.object.casefold() in allergens)]
    slipped: set[str] = set()  # predicates whose value the turn said twice, taking the first back
    if is_correction:  # "住望京——打错了，是酒仙桥": taken back as it was said, the value meant after the cue
        meant = _slip_in_turn(text, raws)
        if meant is not None:
            slipped = {was.predicate for was in raws if was not in meant}  # replaced or taken out
            raws = meant
    if is_correction:  # a correction inside the turn: only the last value per predicate
        last = {r.predicate: i for i, r in enumerate(raws)}
        dropped = {i for i, r in enumerate(raws) if last[r.predicate] != i
                   and r.predicate in ("allergy", "lives_in", "works_at", "name", "budget_limit")}
        slipped |= {raws[i].predicate for i in dropped}
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
    facts = _endings_beside_new_values(_role_of_new_job(_one_home(_towns_worked_in(_employer_after_at(out)), text)),
                                       turn.time)
    return moves_ahead(homes_ahead(facts, text, turn.time), text, turn.time)


def _day_offered(rider: str, day: date, when: datetime, *, offer: str, offered_at: datetime) -> str:
    """The words of the day a reply takes an offered reminder for (``rider``, said at ``when``, naming
    ``day``): a day of the month said alone ("make it the 8th") is of the month nearest the day the offer
    named ("Reminder set for 10 July": 8 July, not the coming 8th), written out as that date; ``rider``
    itself otherwise."""
    offered = find_times(offer, offered_at)
    near = day_near(rider, when, day, offered[0][2].start.date()) if offered else day
    return near.isoformat() if near != day else rider


def _reminded_on_its_day(turn: Turn, item: _Raw | None, reminders: list[ExtractedFact]) -> list[ExtractedFact]:
    """The item a reminder accepted is about, on its own day ("好，3月31号前交营业执照申请。要不要我28号提醒一下？"
    "好啊": the reminder on the 28th, and what is due on the 31st), when every reminder of it comes before
    that day; [] when the item names no day of its own."""
    if item is None or not item.due:
        return []
    own = _fact(turn, item, "user_confirmed", 0.9)
    days = [f.event_start for f in reminders if f.object == item.object]
    if own.event_start is None or not days or any(d is None or d >= own.event_start for d in days):
        return []
    return [own]


def _said(agreed: _Raw, raws: list[_Raw]) -> bool:
    """Whether the rules already read the value agreed to from the turn (the same budget, or a decision on the
    same thing)."""
    if agreed.predicate == "budget_limit":
        return any(r.predicate == "budget_limit" for r in raws)
    value = agreed.object.casefold()
    return any(value in r.object.casefold() or r.object.casefold() in value for r in raws if r.object)


_NEAR = _P["shared.near_place"]


def _one_home(facts: list[ExtractedFact], told: str) -> list[ExtractedFact]:
    """Homes a turn telling of a move names twice, a place and then a place in it ("hello from Manchester!!
    landed on the 9th, we're in Chorlton now", "人在苏州…租在姑苏区"), are one home, the finer place first with the coarser one
    after it (Chorlton, Manchester; 苏州姑苏区), not a move from one to the other."""
    homes = [f for f in facts if f.predicate == "lives_in" and f.polarity == "positive" and f.change != ENDING]
    lived = [f for f in homes if _said_lived_in(told, f.object)]
    if lived and len({f.object.casefold() for f in homes}) > 1 and not any(f.change for f in homes):
        # "…analyst at Halvorsen Freight down in Kent. I live in Tacoma": the home said with a verb of living
        # is the home; a town read only by where it is said (down in, here in) is not a second one
        return [f for f in facts if f not in homes or f in lived]
    if len(homes) < 2 or len({f.object.casefold() for f in homes}) < 2 \
            or not all(f.change == "evolution" for f in homes) or any(searched(_NEAR, f.object) for f in homes) \
            or searched(_P["zh.told_as_future" if searched(_CJK, told) else "en.told_as_future"], told):
        # homes said apart from a move may be two people's ("I live in Leeds, my parents in York") or the one
        # left and the one to come ("还住天津…打算搬来北京": a turn told as future); a place near the home is not
        # part of it
        return facts
    coarse, fine = homes[0], homes[-1]
    if searched(_CJK, fine.object):
        joined = fine.object if coarse.object in fine.object else coarse.object + fine.object
    else:
        joined = fine.object if coarse.object.casefold() in fine.object.casefold() else f"{fine.object}, {coarse.object}"
    home = dataclasses.replace(fine, object=joined)
    return [home if f is fine else f for f in facts if f not in homes or f is fine]


def _said_lived_in(told: str, home: str) -> bool:
    """Whether ``told`` says ``home`` right after a verb of living in it ("I live in Tacoma", "we're living in
    Leith", 住在静安, ``shared.lived_in_before``)."""
    at = str(told).casefold().find(home.casefold())
    return at > 0 and _P["shared.lived_in_before"].search(str(told)[:at]) is not None


def _decisions_naming_something(facts: list[ExtractedFact]) -> list[ExtractedFact]:
    """``facts`` without the decisions that name nothing chosen: a pronoun (它, "it"), only a count or a bare
    number (提前三天, 8天, "52"; a price is something: "12.99", "£14.99", and so is a day: 定周三), or a budget set
    anew ("car budget to 20k", read as the budget)."""
    def names_nothing(value: str) -> bool:
        if searched(_P["shared.decision_names_nothing"], value):
            return True
        if searched(_P["shared.price"], value):  # a price settled on ("launch price 12.99")
            return False
        return not _P["shared.word_char"].search(_P["shared.amount_or_count"].sub("", value))
    return [f for f in facts if f.predicate != "decision" or not names_nothing(f.object)]


def _employer_after_at(facts: list[ExtractedFact]) -> list[ExtractedFact]:
    """An English employer said as a post or a department at a named place ("CNM2 at Merlin Park", "the pharmacy
    at Hamilton General") is the named place; the post, when its last word is a role's (``en.role_head``) or it is
    written as a grade or code (CNM2, ST3), is the role, unless the turn names one."""
    out = []
    roles = any(f.predicate == "role" and f.confidence >= 0.9 for f in facts)
    for f in facts:
        m = _P["en.post_at_employer"].match(f.object) \
            if f.predicate == "works_at" and f.change != ENDING and f.polarity == "positive" else None
        post = m.group("post") if m else ""
        role = bool(_P["en.role_head_last"].search(post) or _P["en.grade_code"].fullmatch(post))
        # a department is common words typed in lower case ("the pharmacy"); a name is not ("the bbc at mediacity")
        department = post.islower() and not any(is_lower_case_name(w) for w in post.split())
        if m is None or not (role or department):
            out.append(f)
            continue
        out.append(dataclasses.replace(f, object=m.group("where")))
        if role and not roles:
            out.append(dataclasses.replace(f, predicate="role", object=post, change=None))
    return out


def _towns_worked_in(facts: list[ExtractedFact]) -> list[ExtractedFact]:
    """An employer that is a town named whole ("在深圳工作", "她在厦门上班", "I work in London") is no employer:
    it is where they work, read as where they live (``lang.places``), unless the turn names their home too."""
    homes = {f.object for f in facts if f.predicate == "lives_in"}
    out = []
    for f in facts:
        if f.predicate == "works_at" and f.change != ENDING and _town_like(f.object) and town(f.object) is not None:
            if homes:
                continue
            f = dataclasses.replace(f, predicate="lives_in")
        out.append(f)
    return out


def _town_like(value: str) -> bool:
    """Whether a value is written as a town's name may be: Chinese characters, or a word of three letters or
    more not in capitals (UBC, BRI and "No" are no towns)."""
    return bool(searched(_CJK, value)) or (len(value) >= 3 and not value.isupper() and value[:1].isupper())


def _role_of_new_job(facts: list[ExtractedFact]) -> list[ExtractedFact]:
    """A role told with a new employer ("accepted an offer at fernwood labs… senior data engineer. start april
    6", "4月1号去极光智能 做硬件项目经理") is the new job's: a change of role as the employer is a change, from
    when the new job begins, not a second role beside the one held."""
    job = next((f for f in facts if f.predicate == "works_at" and f.change == "evolution" and f.polarity == "positive"),
               None)
    if job is None:
        return facts
    return [dataclasses.replace(f, change="evolution", event_start=job.event_start, event_end=job.event_end,
                                start_said=job.start_said)
            if f.predicate == "role" and f.change is None and f.polarity == "positive" else f for f in facts]


def _endings_beside_new_values(facts: list[ExtractedFact], told: datetime) -> list[ExtractedFact]:
    """A new value of a single-valued predicate told with an ending of that predicate ("I quit Deloitte, I'm
    at Monzo", "moved out of Kreuzberg, in Neukölln since April") is a change, and the ending happened where
    the new value began (else it would close the old value where it was told, after the new one began, and
    cut that short), unless it happened before ("辞职了，下周去京东上班": no job in between)."""
    ending = {(f.predicate, f.object) for f in facts if f.change == ENDING}
    new = {f.predicate: f for f in facts if f.change != ENDING and f.polarity == "positive"
           and f.predicate in _SINGLE_VALUED and (f.predicate, f.object) not in ending}  # not the value that ended
    if not new or not any(f.change == ENDING for f in facts):
        return facts
    ended = {f.predicate for f in facts if f.change == ENDING}
    out = []
    for f in facts:
        if f.change == ENDING and f.predicate in new:
            later = new[f.predicate]
            begins = later.event_start if later.event_start and (later.change == "evolution" or later.start_said) \
                else told
            if (f.ended_at(told) or told) >= begins:  # ended where the new value began
                f = dataclasses.replace(f, event_start=None if begins == told else begins, event_end=None)
        elif f.change is None and new.get(f.predicate) is f and f.predicate in ended:
            f = dataclasses.replace(f, change="evolution")
        out.append(f)
    return out


_SINGLE_VALUED = frozenset(p.id for p in _CATALOG if p.single_valued)
# the predicates a change signal in the turn makes evolutions
_EVOLVING = frozenset(("budget_limit", "lives_in", "works_at", "commute", "diet", "decision", "role"))
_TASTES = frozenset(("likes", "dislikes"))  # their own change signal: shared.taste_change

# multi-valued predicates (slot: subject, predicate, scope, object) whose wrong value a correction retires
_RETIRED_ON_CORRECTION = frozenset(p.id for p in _CATALOG if not p.single_valued) \
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


def _personal(r: _Raw, text: str) -> bool:
    return personal_item(r.predicate, r.object, text)


def personal_item(predicate: str, obj: str, text: str) -> bool:
    """Whether a plan, a to-do or a decision ``obj`` said in a project's conversation (in the turn ``text``) is
    the speaker's own life rather than the project's: said as personal ("personal news", "说个私事") or about a
    home, a job, leave or travel of the speaker's (我下个月搬家, I'm moving to Pune, 我6月8号到22号要请假, I'm
    flying in the thursday before), unless it names something of the project's (搬到新店, move the office). The
    rule the signal layer applies to its own items too. Raises nothing."""
    if predicate not in ("plan", "todo", "decision"):
        return False
    return bool((searched(_P["shared.personal_turn"], text) or searched(_P["shared.personal_life"], obj))
                and not searched(_P["shared.project_thing"], obj))


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


def _rider(text: str, when: datetime, offer: str = "") -> str | None:
    """The day a reply accepting an offer adds to it ("好啊 这周六 帮我记下", "要要要 5月10号之前得准备好", "要 提前三天吧",
    "ya next fri"): what follows the acceptance when it is only a day (a time, or some days before) and words asking
    to note it; to an offered reminder (``offer``), also the day it is moved to ("make it the 8th, …", "…改周日吧",
    "…你19号提醒吧": ``shared.moved_day``), a reason said beside the day left out. None when the reply is no such
    acceptance (it says more, or names no day)."""
    reminder = _OFFERED_REMINDER.search(offer) is not None
    m = _P["shared.accepted_with_day"].match(text.strip())
    if m is None and reminder:
        m = _P["shared.moved_day"].search(text.strip())
    if m is None:
        return None
    rest = _P["shared.note_it"].sub(" ", m.group("rest")).strip(" ，,。.!！~～")
    if reminder:  # a reason said beside the day ("wednesday is good, i'm off that day")
        rest = next((c.strip() for c in _P["en.atoms.1"].split(rest)
                     if find_times(c, when) or _P["shared.days_before"].search(c)), rest)
    times = find_times(rest, when)
    left = rest
    for start, end, _ in sorted(times, key=lambda t: -t[0]):
        left = left[:start] + left[end:]
    days = _P["shared.days_before"].search(rest)
    if days is not None:
        left = left.replace(days.group(0), "")
    if not (times or days) or len(_P["shared.unit"].findall(left)) > _RIDER_LEFT:
        return None
    return rest


_RIDER_JUNK = 2  # a value of this many units or fewer read from an accepting reply is no value ("帮我记下": 下)
_RIDER_LEFT = 4  # the words (CJK characters count one each) a reply's day may leave besides it ("得准备好")


def _fact(turn: Turn, r: _Raw, kind: str, confidence: float, offer: Turn | None = None) -> ExtractedFact:
    """The fact ``r`` states, cited to ``turn``. A dated item the user takes from the
    assistant's ``offer`` ("Shall I remind you on the 18th?" "yes please") is due when
    the offer said, unless the reply names a time of its own."""
    if turn.project and r.predicate in _PROJECT_PREDICATES and not _personal(r, turn.text):
        subject, scope = f"project:{turn.project}", "project"
    else:
        subject, scope = f"user:{turn.user}", "global"
    start = end = None
    value = r.value
    if r.due is not None:
        # the rule found the text naming when it is due ("slips to Friday 29 May"): its time;
        # a deadline's due day is its value, so a deadline moved is another value of the thing.
        # An ending's text names when it ended, told as past unless it tells of what is to come
        # (a last day named is the coming one unless told as past: "my last day is 3 April")
        past = False
        if r.change == ENDING:
            lang = "zh" if searched(_CJK, r.due) else "en"
            past = not searched(_P[f"{lang}.told_as_future"], r.due) and not searched(_P[f"{lang}.last_day"], r.due)
        times = meant_times(r.due, turn.time, past=past)  # not a day taken back ("the 5th, no sorry, the 3rd")
        if times:
            start, end = times[0][2].start, times[0][2].end
            if r.predicate == "deadline":
                value = {"due": times[0][2].start.date().isoformat()}
    elif r.change == "evolution" or r.predicate in _TIMED:
        # a change is told as having happened, unless the turn tells of what is to come:
        # a time naming no direction is then the latest one (February, said in March: this year's)
        told = turn.text
        future = _P["zh.told_as_future" if searched(_CJK, told) else "en.told_as_future"]
        past = r.change == "evolution" and (not searched(future, told) or _told_as_past(told, r.object))
        times = told.once(("meant_times", past), lambda: meant_times(told, turn.time, past=past)) \
            if isinstance(told, Whole) else meant_times(told, turn.time, past=past)
        if not times and offer is not None:
            times = find_times(offer.text, offer.time, past=past)
        elif len(times) > 1:
            times = [_nearest_time(told, r.object, times)]
        if times:
            start, end = times[0][2].start, times[0][2].end
    said = None
    if start is None and r.predicate not in _DATED_ITEMS and r.predicate != "pet" and r.change != ENDING:
        told = turn.text  # the times said as starts, found once per turn (a Whole keeps them)
        starts = told.once(("said_starts",), lambda: _said_starts(told, turn.time)) \
            if isinstance(told, Whole) else _said_starts(told, turn.time)
        said = _nearest_time(told, r.object, starts)[2] if starts else None
    if said is not None:
        start, end = said.start, said.end
    return ExtractedFact(
        subject=subject, predicate=r.predicate, object=r.object, value=value,
        polarity=r.polarity, change=r.change, scope=scope, source_kind=kind,
        confidence=min(confidence, HEDGED_CONFIDENCE) if r.hedged else confidence,
        event_start=start, event_end=end, condition=r.condition, start_said=said is not None,
    )


_OPTIONS_BACK = 4  # turns before a reply in which an option it takes with "then" may have been named


def _told_as_past(text: str, obj: str) -> bool:
    """Whether the clause of an English turn that names ``obj`` tells it as past though the turn tells of what
    is to come elsewhere ("started at Whangarei Hospital on the 13th, … no way im doing charge"): a verb of a
    change in the past tense in its sentence up to the end of that clause (``en.told_as_past``), and nothing
    to come there."""
    if not obj or _CJK.search(text):
        return False
    for sentence in _P["en.sentences"].split(str(text)):
        at = sentence.lower().find(obj.lower())
        if at >= 0:  # the sentence up to the end of the clause that names the value
            comma = sentence.find(",", at + len(obj))
            said = sentence[:comma] if comma >= 0 else sentence
            return bool(_P["en.told_as_past"].search(said)) and not _P["en.told_as_future"].search(said)
    return False


def _said_starts(text: str, when: datetime) -> list[tuple[int, int, TimeSpan]]:
    """The times ``text`` says a value began at: after "since" / "as of" ("vegetarian since January"), or between
    从/自从 and 开始/起/以来 ("从三月开始戒的"), not after ``when``; in a turn told as what is to come, after
    "starting" / "from" the coming one ("new job, starting july 6"). Each time's glue is looked for in a few
    characters around it, so the work stays linear in the text."""
    out = []
    ahead = bool(searched(_P["en.told_as_future"], text)) and not searched(_CJK, text)
    for t in find_times(text, when, past=True):
        if t[2].start > when:
            continue
        before, after, within = text[max(0, t[0] - _GLUE):t[0]], text[t[1]:t[1] + _GLUE], text[t[0]:t[0] + _GLUE]
        if ahead and _P["en.said_start_ahead"].search(before):
            continue  # read below as the coming time
        if (_P["zh.said_start.1"].search(before) and _P["zh.said_start.2"].match(after)) \
                or _P["en.said_start"].search(before) or _P["en.said_start_within"].match(within) \
                or (_P["zh.said_start.3"].match(after) and t[2].end - t[2].start >= _A_DAY):
            out.append(t)
    if ahead:
        for t in find_times(text, when, past=False):
            if _P["en.said_start_ahead"].search(text[max(0, t[0] - _GLUE):t[0]]):
                out.append(t)
        out.sort(key=lambda t: t[0])
    return out


_GLUE = 24  # characters around a time in which its "since" / 从…开始 is looked for
_A_DAY = timedelta(days=1)  # a day named before 开始 is a start without 从 ("4月1号开始在顺丰上班"); a clock time is not

interpret.check_names(RULES.steps, RULES.maps, RULES.sets)
