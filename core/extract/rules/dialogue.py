"""The dialogue: an assistant's statement read from the user's point of view (``_from_assistant``)
and what it puts forward to confirm (a guess, a proposal, a reminder offered with its to-do and day, the user's
usual choice); a user's bare answer to its question (a value, an option of a choice, a time, an answer read
with its subject and verb put back); the cues of a confirmation, a hedge and a guess corrected."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta

from ...lang.numerals import EN_UNITS, parse_cn_number
from ...lang.text import grams
from ...lang.times import find_times, meant_times
from ...pipeline import Turn
from ..records import Raw as _Raw
from .facts import _raw_facts
from .readers import _amount_obj, _en_amount, _en_bare_limit, _zh_budget_amount
from .steps import _commute
from .text import _P, _PRONOUN_OBJECT, _clean, _is_zh, _sentences, _strip_times

# a turn that only confirms: confirmation words, repeated or with punctuation ("可以可以。", "Yep, that's right.")
_CONFIRM = _P["shared.confirm"]

# "No, Bath.", "That's wrong, it's Lloyds.", "不是，我在快手，…": a new value for what the agent just said
_ANSWER_CORRECTION = _P["shared.answer_correction"]

_AGENT_HEDGE = _P["shared.agent_hedge"]

# what an assistant's guess is about when no rule reads it: "You're at Deloitte, right?"
_GUESS_CUES = tuple((p, _P[f"shared.guess_cues.{p}"]) for p in ("works_at", "lives_in"))


def _from_assistant(text: str) -> str:
    """The assistant's statement rewritten from the user's point of view."""
    t = _P["en.from_assistant.1"].sub("", text.strip())
    t = _P["zh.from_assistant.1"].sub("", t)  # "我理解您是要把周会改到周二上午"
    t = _P["zh.from_assistant.2"].sub("", t)
    t = _P["zh.from_assistant.3"].sub("", t)
    t = _P["en.from_assistant.2"].sub("Remind me", t)
    t = _P["en.from_assistant.3"].sub("we'll ", t)  # a proposal: "shall we host it on X?"
    t = _P["zh.from_assistant.4"].sub("就", t)  # "要不直接用Next.js重写？"
    t = _P["zh.from_assistant.11"].sub(r"\1", t)  # "要不要这周末约个试驾？": proposes it
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

# questions whose bare answer reads as a statement once its subject and verb are put back (the first of the
# leads that reads something), and what it may yield
_RESTATED_ANSWERS = (
    (_P["shared.restated_answers.1"], ("I like ",), ("我喜欢",), ("likes",)),
    (_P["shared.restated_answers.2"], ("I have ",), ("我养了",), ("pet",)),
    (_P["shared.restated_answers.job"], ("I work as ",), ("我是", "我做"), ("role", "works_at")),
)
# an answer to a question about work that names where ("I'm at Southmead now", "at a bakery", 在一家物流公司):
# read as working there
_AT_WORK = _P["shared.answer_restated.at_work"]


def _answer_restated(text: str, question: str, when: datetime) -> list[_Raw]:
    """"mostly jazz and a bit of soul" to "What kind of music do you like?", "Yeah, a tabby called Mango" to "Any
    pets?", "shift lead at the depot" to "What do you do these days?": the answer read with "I like" / "I have" /
    "I work as" (我喜欢 / 我养了 / 我是 or 我做) put before it, or, to a question about work, "I work at" (我在…上班) when
    it says where."""
    body = _P["shared.answer_restated.1"].sub("", text.strip())
    for cue, en, zh, predicates in _RESTATED_ANSWERS:
        if cue.search(question) and body and not _P["shared.answer_restated.2"].match(body):
            said = [lead + body for lead in (zh if _is_zh(body) else en)]
            if "works_at" in predicates and (at := _AT_WORK.match(body)):
                place, _, after = body[at.end():].partition("，")
                said = [f"我在{place}上班，{after}" if _is_zh(place) else f"I work at {body[at.end():]}"]
            for text_said in said:
                read = [r for r in _raw_facts(text_said, when) if r.predicate in predicates]
                if read:
                    return read
            return []
    return []


def _answer_value(text: str, question: str, when: datetime) -> _Raw | None:
    """A bare value answering the assistant's question: "Sam is fine" to "What should I call you?", "around 2k"
    to "What's your budget?", "peanuts" to "Any allergies?", "Leeds" to "Where do you live?". What is asked for is
    read in the message's questions when it asks any ("kiwi allergy, noted. want me to remind you on the 31st?"
    asks for no allergy; "How should I address you, Mr. Jones?" is one question)."""
    asked_in = " ".join(x for x in _sentences(_P["shared.title_dot"].sub(r"\1 ", question))
                        if _P["shared.raw_facts.3"].search(x)) or question
    asked = next((pred for pred, cue in _ASKED_FOR if cue.search(asked_in)), None)
    t = text.strip().rstrip("。.!！")
    if asked == "name" and (named := _P["shared.answer_value.name_first"].match(t)):
        t = named.group(1)  # "Bea works, nobody uses Beatrice except my gran": the name said to do
    if asked in ("commute", "lives_in", "works_at", "allergy", "budget_limit"):
        # the value comes first: "Mostly the Overground, unless…", "1500 quid for the first night, food drink decor…"
        t = _P["shared.answer_value.1"].split(t)[0].rstrip("。.!！") if len(t) > 30 else t
        t = _P["en.answer_value.1"].split(t)[0]
        if asked == "budget_limit":  # an amount, then what it covers
            t = _P["shared.amount_slip.break"].split(t, maxsplit=1)[0]
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


def _budget_changed(text: str, before: str) -> tuple[_Raw, str] | None:
    """A change of the budget the assistant's message spoke of, said only as a change to an amount ("drop
    the whole thing to 20k", "bump it to 2,500", 那就提到五千吧): the budget's new amount, an evolution, with
    the span that said it (what else the rules read in that span is no fact of its own). None when the
    message names no budget or the text no change to an amount."""
    if not _P["shared.asked_for.2"].search(before):
        return None
    zh = _is_zh(text)
    if zh:  # a clause of its own (the clauses as _atoms cuts them) of a sentence that asks nothing
        clauses = (c.strip(" 。.!！~～") for sent in _sentences(text)
                   if not _P["shared.raw_facts.3"].search(sent) for c in _P["en.atoms.1"].split(sent))
        clause = next((c for c in clauses if c and _P["zh.budget.changed_to"].fullmatch(c)), None)
        amt = _zh_budget_amount(clause) if clause else None
    else:
        m = _P["en.budget_changed_to"].search(text)
        clause = m.group(0) if m else None
        amt = _en_amount(m.group("amount")) if m else None
    if clause is None or amt is None:
        return None
    return _Raw("budget_limit", _amount_obj(amt) if zh else str(amt), change="evolution", value=amt.to_json()), clause


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
        m = _P["zh.answer_when.asked"].search(sent.strip())
        if not m:
            return None
        thing, verb = _P["zh.answer_when.1"].sub("", m.group(1)), _P["zh.answer_when.3"].sub("", m.group(2))
        promise = _P["zh.answer_when.2"].search(t)
        if promise:
            return _Raw("todo", promise.group(1) + thing) if thing else None
        if m.group(2).rstrip("？?").endswith("的"):
            return None  # "什么时候入职的？" asks when something was, not what is to come
        if verb in ("做", "弄", "搞"):
            verb = ""
        if _P["zh.answer_when.someone"].fullmatch(thing):
            return None  # "阿姨大概哪天到？": when someone else comes is theirs
        if not thing:  # "那你什么时候去厦门看房？": the event is all after the when-word; "什么时候有空？" asks no event
            meant = len(verb) >= 3 or (len(verb) == 2 and _P["zh.answer_when.4"].search(m.group(1)))
            return _Raw("plan", verb) if meant else None
        return _Raw("plan", f"{verb}{thing}" if len(verb) <= 4 else f"{thing}{verb}")
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
_REMINDED_BACK = 12  # how many turns back an offered reminder's item is looked for (``_reminded_item``)


def _reminded_item(offer: str, before: Sequence[Turn], when: datetime) -> _Raw | None:
    """The item an offered reminder that does not name its action is about ("Final headcount due the 25th.
    Reminder on the 23rd?", "周五跟房东说退租。要不要我周五早上提醒你一下？"): the dated item the offer's message
    states before it, else the one the user's turn before it states, else, when the offer moves a reminder
    already set ("pushed it to 8 may" "Should I move your reminder to 5 May too?"), the one the user's turns
    before that state last, looking back at most ``_REMINDED_BACK`` turns; None when none states one. It is
    given as read (a deadline, a plan, a to-do) with the words naming its own day as its ``due`` (None when the
    text names none); the reminder is the to-do of its object."""
    near = _said_before_offer(offer, before, lambda x: _from_assistant(_P["shared.reminded_item.1"].sub("", x)))
    earlier = [t.text for t in reversed(before[-_REMINDED_BACK:-1]) if t.speaker == "user"] \
        if _P["shared.moved_reminder"].search(offer) else []
    for text in [*reversed(near), *earlier]:
        raws = _raw_facts(text, when, allow_question=True, project=True)
        for predicate in _DATED_ITEMS:
            item = next((r for r in raws if r.predicate == predicate and r.polarity == "positive"), None)
            if item is not None:
                return dataclasses.replace(item, due=item.due or _first_time(text, when))
    # the offer restating the item as a dated phrase, with no verb a rule reads ("label artwork to dale by may 29.
    # want me to remind you the monday before?", "周五 退租交钥匙。要我提醒吗？"): the phrase without its time
    for text in reversed(near[1:] if before and before[-1].speaker == "user" else near):
        thing = _dated_phrase(text, when)
        if thing:
            return _Raw("todo", thing, due=_first_time(text, when))
    return None


def _item_named(offer: str, before: Sequence[Turn], when: datetime) -> _Raw | None:
    """The dated item a reminder offer names by its thing ("Would a reminder about the form a couple of days
    early help?", "Want a reminder for the insurance form?", 要不要提醒你体检报告的事？: ``shared.reminder_about``)
    when that thing is named in part by an item the offer's message or the user's turns before it state (the
    "updated roster preferences form" named as "the form"): the item sharing most words with it, as read; None
    when the offer names no thing or no item shares a word with it. The words of the thing are compared as the
    store compares values (``lang.text.grams``: words, and a Chinese text's two-character runs)."""
    m = _P["shared.reminder_about"].search(offer)
    if m is None:
        return None
    named = grams(m.group("thing") or m.group("zh"))
    near = _said_before_offer(offer, before, lambda x: _from_assistant(_P["shared.reminded_item.1"].sub("", x)))
    earlier = [t.text for t in reversed(before[-_REMINDED_BACK:-1]) if t.speaker == "user"]
    best: tuple[int, _Raw] | None = None
    for text in [*reversed(near), *earlier]:
        for r in _raw_facts(text, when, allow_question=True, project=True):
            if r.predicate in _DATED_ITEMS and r.polarity == "positive":
                shared = len(named & grams(r.object))
                if shared and (best is None or shared > best[0]):
                    best = shared, dataclasses.replace(r, due=r.due or _first_time(text, when))
    return best[1] if best is not None else None


def _option_taken(text: str, before: Sequence[str]) -> list[_Raw]:
    """The options a reply takes with "then" in a sentence of its own ("…two buses on 5am reports. Phibsborough
    then, probably." after "Stoneybatter or Phibsborough?"; "Noted! Carnations this year then."), each a
    decision as said, when one of the texts ``before`` (what others said just before it) named it: a word
    shared (``lang.text.grams``); none when no sentence is said so or names nothing said before. The texts
    before are read only when a sentence is said so."""
    taken = [m.group("option") for sentence in _P["en.sentences"].split(str(text).strip())
             if (m := _P["en.option_then"].match(sentence.strip())) is not None]
    if not taken:
        return []
    named = grams(" ".join(before))
    return [_Raw("decision", option) for option in taken if grams(option) & named]


def _first_time(text: str, when: datetime) -> str | None:
    """The words of the first time ``text`` means, or None."""
    times = meant_times(text, when)
    return text[times[0][0]:times[0][1]] if times else None


_DATED_PHRASE_MAX = 60  # characters: a longer sentence is no restated item


def _dated_phrase(text: str, when: datetime) -> str | None:
    """The thing a short sentence dates ("label artwork to dale by may 29" -> "label artwork to dale"; the first
    clause of what is left once the time is out), or None when it names no time, is long, or what is left asks
    something, speaks of someone or only says where ("at the clinic")."""
    if len(text) > _DATED_PHRASE_MAX or not find_times(text, when):
        return None
    zh = _is_zh(text)
    thing = _clean(_P["shared.dated_phrase.glue"].sub("", _clean(_strip_times(text, when), zh)), zh)
    thing = _clean(_P["shared.dated_phrase.break"].split(thing, maxsplit=1)[0], zh)  # its first clause
    return thing if len(thing) >= 2 and not _P["shared.dated_phrase.not"].search(thing) else None


def _reminder_day(put: str, offer: str, before: Sequence[Turn], when: datetime) -> str | None:
    """The day of a reminder offered some days before the item it is about, when the offer names no day of its own
    ("Interview May 6. Want a reminder the day before?" -> 2026-05-05, "3月11日打疫苗。要不要前一天提醒你？"
    -> 3月10日, "… by may 29. remind you the monday before?" -> 25 May): the first day the offer's message names
    outside the offer, else the user's turn before it, less the days said (or back to the weekday said). None when
    the offer names its own day or no day before the item."""
    return days_before(put, reversed(_said_before_offer(offer, before)), when)


def days_before(asked: str, items: Iterable[str], when: datetime) -> str | None:
    """The day of a reminder ``asked`` for some days before the day the first of ``items`` to name one names
    (``shared.days_before``: "the day before", "a week before", "the monday before", 前一天, 提前两天), as an ISO
    date; None when ``asked`` says no such offset, names a day of its own, or no item names a day. Raises
    nothing."""
    m = _P["shared.days_before"].search(asked)
    weekday = (m.group("weekday") or m.group("weekday_zh")) if m is not None else None
    if m is None or (weekday is None and find_times(asked, when)):
        return None
    times = next((found for item in items if (found := find_times(item, when))), None)
    if not times:
        return None
    n = m.group("n") or m.group("n_zh")
    if m.group("week") or m.group("week_zh"):
        days = 7
    elif n:
        days = EN_UNITS.get(n.casefold()) or int(parse_cn_number(n) or 1)
    else:
        days = 1
    due = times[0][2].start.date()
    if weekday:  # "the monday before": the last such weekday before the item's day
        named = find_times(weekday, when)
        if named:
            days = (due.weekday() - named[0][2].start.weekday()) % 7 or 7
    return (due - timedelta(days=days)).isoformat()


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
