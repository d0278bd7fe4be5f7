"""A first rule-based fact extractor for Chinese and English (offline, no dependencies).

``extract(turn, context)`` reads one conversation turn and returns the facts it
states about the user (or the turn's project), following DESIGN §3 and the
conventions of ``data/gold/README.md``:

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
  statement as ``user_confirmed``.

``to_claims(turn, facts)`` maps the result to :class:`core.claims.ClaimInput`.

Not covered yet: topic-narrowing conditions ("如果是无糖的可以来一杯" → 无糖奶茶),
English number words for amounts ("twelve hundred dollars"), most English
plans phrased with a progressive verb, value-only answers to the agent's
questions other than corrections, and sensitive-data detection.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from ..claims import ClaimInput, SourceRef
from ..timeutil import offset_minutes, to_us
from .amounts import Amount, find_amounts
from .times import find_times

__all__ = ["Candidate", "ExtractedFact", "Turn", "extract", "to_claims"]

_PROJECT_PREDICATES = {"budget_limit", "decision", "plan"}
_TIMED = {"plan", "todo", "pet"}


@dataclass(frozen=True)
class Turn:
    """One conversation turn (DESIGN §6). ``time`` is an aware datetime."""

    session: str
    turn: int
    speaker: str
    time: datetime
    text: str
    user: str
    project: str | None = None


@dataclass(frozen=True)
class ExtractedFact:
    """One candidate fact extracted from a turn."""

    subject: str
    predicate: str
    object: str
    value: dict | None = None
    polarity: str = "positive"
    change: str | None = None
    scope: str = "global"
    source_kind: str = "user_explicit"
    confidence: float = 0.9
    event_start: datetime | None = None
    event_end: datetime | None = None
    condition: str | None = None


Candidate = ExtractedFact


@dataclass(frozen=True)
class _Raw:
    predicate: str
    object: str
    polarity: str = "positive"
    change: str | None = None
    value: dict | None = None
    condition: str | None = None


# ---------------------------------------------------------------- helpers

_CJK = re.compile(r"[\u4e00-\u9fff]")


def _is_zh(text: str) -> bool:
    return len(_CJK.findall(text)) >= max(1, len(text) // 5)


def _clean(obj: str, zh: bool) -> str:
    obj = obj.strip(" ，,。.!！?？;；:：~～-—\"'")
    if zh:
        obj = re.sub(r"^(?:的|了|是|在|用|去)", "", obj) if len(obj) > 2 else obj
        obj = re.sub(r"(?:的|了|啦|吧|呢|啊|哦|就好|就行|就可以|一下)+$", "", obj)
        obj = obj.replace("一下", "")
    else:
        obj = re.sub(r"^(?:the|a|an|my|some)\s+", "", obj, flags=re.I)
        obj = re.sub(r"\s+(?:please|too|really|though|anyway|for now|here)$", "", obj, flags=re.I)
    return obj.strip(" ，,。.!！?？")


_ZH_TIME_WORDS = re.compile(r"(?:之前|之内|以前|前)?(?:早上|上午|中午|下午|晚上|今晚|morning|evening|tonight)?")


def _strip_times(text: str, when: datetime) -> str:
    out, last = [], 0
    for s, e, _ in find_times(text, when):
        out.append(text[last:s])
        last = e
        m = _ZH_TIME_WORDS.match(text, last)
        if m:
            last = m.end()
    out.append(text[last:])
    res = "".join(out)
    res = re.sub(r"\b(?:tonight|this morning|tomorrow morning|morning)\b", "", res, flags=re.I)
    res = re.sub(r"(?:今晚|今天之内|今天|早上|下午|上午|晚上)", "", res)
    return re.sub(r"\s{2,}", " ", res).strip(" ，,")


# ---------------------------------------------------------------- filters

_QUESTION_OK = re.compile(r"提醒我|remind me", re.I)
_TEMPORARY = re.compile(
    r"正在|这会儿|在开车|在开会|在(?:高铁|飞机|火车|地铁|路)上|在\S{0,4}(?:排队|堵车)|堵在路上|刚下飞机|等行李|"
    r"right now|at the moment|in a meeting|on a call|\bbrb\b|stuck in|^driving\b", re.I)
_OTHER_PEOPLE = re.compile(
    r"^(?:[^，,]{0,4})?(?:我(?:的)?(?:妹妹|姐姐|哥哥|弟弟|爸|妈|同事|朋友|老婆|老公|儿子|女儿|邻居)|"
    r"他们|她们|他|她|别人|大家)|"
    r"\b(?:my|our) (?:sister|brother|son|daughter|friend|neighbour|neighbor|wife|husband|mum|mom|dad|"
    r"boss|colleague)s?\b|^(?:they|everyone|he|she)\b(?!.*\bmy\b)", re.I)
_NOT_LASTING = re.compile(
    r"还没想好|不知道|拿不准|考虑一下|小时候|以前|要是|如果.*(?:的话)|"
    r"haven't decided|not sure|used to|maybe one day|let me think|\bwould\b|\bshould i\b", re.I)
_INDIRECT = re.compile(r"你(?:刚才|这个|那个)|\b(?:that|this|your) (?:idea|suggestion)\b", re.I)

_CORRECTION = re.compile(
    r"不对|说错了|搞错了|不好意思，是|^不是[，,]|不是.{1,8}是|是.{1,8}[，,]?不是|"
    r"\bno, i said\b|\bi meant\b|that's wrong|got it wrong|scratch that|typo|^no,", re.I)
_EVOLUTION = re.compile(
    r"提到|涨到|调到|搬到|搬去|换成|改成|改为|改坐|改吃|上调|提高到|加到|降到|砍到|跳槽到|已经不在|"
    r"\bmoved\b|relocated|moved house|switched to|\bswitch\b|raised to|increased|bumped|cut (?:\w+ )*?to|"
    r"\bstarted at\b|\bjoined\b|instead of|since the move", re.I)

_CONFIRM = re.compile(
    r"^(?:对|是的|是|嗯|好的|好|可以|行|没错|yes|yep|yeah|right|correct|that's right|sure|ok)"
    r"(?:[，,。.!！\s]|$)", re.I)
_DECLINE = re.compile(r"^(?:不是|不|不用|no|not really|nope)\b|^(?:不是|不用|不)", re.I)


# ---------------------------------------------------------------- Chinese rules

_ZH_STOP = r"[^，,。！!？?；;、]"


# simple preference cues: the named group "obj" is the thing liked or disliked
_ZH_SIMPLE_PREFERENCES = [
    (re.compile(rf"习惯(?:用)?(?P<obj>{_ZH_STOP}+)"), "likes"),
    (re.compile(rf"(?:一般|经常|偶尔)(?:去|打打|打|玩)(?P<obj>{_ZH_STOP}+)"), "likes"),
    (re.compile(rf"只喝(?P<obj>{_ZH_STOP}+)"), "likes"),
    (re.compile(rf"^(?P<obj>{_ZH_STOP}{{1,6}}?)我能(?:吃|喝)"), "likes"),
    (re.compile(rf"我要(?:坐|住|订)(?P<obj>{_ZH_STOP}+)"), "likes"),
    (re.compile(rf"(?:从不|从来不)(?:坐|住|订|用|买|看|去)(?P<obj>{_ZH_STOP}+)"), "dislikes"),
    (re.compile(rf"别给我(?P<obj>{_ZH_STOP}+)"), "dislikes"),
    (re.compile(rf"^(?P<obj>{_ZH_STOP}{{1,8}})就算了"), "dislikes"),
]


def _zh_rules(clause: str, whole: str, when: datetime, project: bool = False) -> list[_Raw]:  # noqa: C901
    out: list[_Raw] = []
    c = clause
    add = out.append

    # lives_in
    m = re.search(rf"搬(?:到|去)了?({_ZH_STOP}+)", c)
    if m:
        place = re.sub(r"^(?:[\u4e00-\u9fff]{0,2}(?:市|区))?", "", m.group(1)) or m.group(1)
        place = m.group(1)
        if place in ("新家", "新房子", "新房"):
            m2 = re.search(rf"搬(?:到|去)了?(?:新家|新房子|新房)[，,]\s*在({_ZH_STOP}+)", whole)
            place = m2.group(1) if m2 else ""
        if place:
            add(_Raw("lives_in", _clean(place, True), change="evolution"))
    else:
        m = re.search(rf"(?:(?:我(?:们家|家)?(?:目前|现在)?|^目前|^现在)(?:住在|住的是|家在|住)"
                      rf"|(?:^|[，,]\s*)(?:现在)?(?:住在|家住))"  # "我叫王工，住在徐家汇": subject carries over
                      rf"({_ZH_STOP}+?)(?:附近|那边|一带|$|(?=[，,。；;]))", c)
        if m and not c.startswith("我老家"):
            add(_Raw("lives_in", _clean(m.group(1), True)))

    # name
    m = re.search(rf"(?:叫我|称呼我|喊我|我叫)({_ZH_STOP}+)", c)
    if m and not re.search(r"别叫|不要叫", c[:m.start() + 2]):
        add(_Raw("name", _clean(m.group(1), True)))

    # allergy
    if "过敏" in c and "不过敏" not in c:
        before = c[:c.index("过敏")]
        if "对" in before:
            before = before[before.rindex("对") + 1:]
        before = re.sub(r"^(?:我|有点|有|是|吃|也)+", "", before)
        before = re.sub(r"(?:会|都|也|有点)+$", "", before)
        if 1 <= len(before) <= 8:
            add(_Raw("allergy", before))

    # diet
    if re.search(r"素食|吃素", c):
        add(_Raw("diet", "素食", change="evolution" if "改吃" in c else None))
    m = re.search(r"只吃(清真|素|有机\S*)", c)
    if m:
        add(_Raw("diet", _clean(m.group(1), True)))
    m = re.search(r"我(?:在|正在)?(控糖|减肥|断食|生酮)", c)
    if m:
        add(_Raw("diet", m.group(1)))
    m = re.search(rf"(?:不(?:太)?|从来不|从不|不能)(?:吃|喝)({_ZH_STOP}+)", c)
    if m and not re.search(r"不想", c):
        obj = re.sub(r"[，,].*$", "", m.group(1))
        obj = re.sub(r"(?:了|的|吧)$", "", obj)
        if obj:
            add(_Raw("diet", obj, polarity="negative"))
    m = re.match(rf"^(?!我)({_ZH_STOP}{{1,6}}?)(?:我)?(?:是)?(?:一口都|一律|从来)不(?:喝|吃)", c)
    if m:
        add(_Raw("diet", m.group(1), polarity="negative"))

    # likes / dislikes
    neg_pref = re.search(rf"(?:不喜欢|不爱喝|不爱吃|不爱|讨厌|受不了|反感)({_ZH_STOP}*)", c)
    if neg_pref:
        obj = _clean(neg_pref.group(1), True)
        if not obj:
            t = re.match(r"^(.{1,6}?)我", c)
            obj = t.group(1) if t else ""
        if obj and not re.match(r"^(?:你|这|那|什么)", obj):
            add(_Raw("dislikes", obj))
    else:
        m = re.search(rf"最喜欢的{_ZH_STOP}{{1,4}}是({_ZH_STOP}+)", c)
        if m:
            add(_Raw("likes", _clean(m.group(1), True)))
        else:
            m = re.search(rf"(?:喜欢|爱|偏爱|偏好|钟爱)({_ZH_STOP}*)", c)
            if m and re.search(r"我|^[^，,]{1,6}(?:挺|很|比较|最)?(?:喜欢|偏爱)", c):
                obj = _clean(m.group(1), True)
                if not obj:
                    t = re.match(r"^(.{1,6}?)我", c)
                    obj = t.group(1) if t else ""
                if obj and not re.match(r"^(?:你|这|那|什么|自己)", obj):
                    add(_Raw("likes", obj))
    for pattern, predicate in _ZH_SIMPLE_PREFERENCES:
        m = pattern.search(c)
        if m:
            add(_Raw(predicate, _clean(m.group("obj"), True)))

    # decisions
    for m in re.finditer(rf"(?:别用|不要用|不用|不考虑|不选)({_ZH_STOP}+)", c):
        obj = _clean(m.group(1), True)
        if obj:
            add(_Raw("decision", obj, polarity="negative"))
    m = re.match(rf"^({_ZH_STOP}{{1,8}}?)不考虑了", c)
    if m:
        add(_Raw("decision", m.group(1), polarity="negative"))
    m = re.search(rf"(?:就用|就选|决定用|决定选|决定买|决定|就买|改成用|换成用)({_ZH_STOP}+?)(?:吧|了|$)", c)
    if not m:
        m = re.search(rf"按({_ZH_STOP}+?)(?:执行|来)", c)
    if m and not re.search(r"决定不", c):
        change = "evolution" if re.search(r"改成|换成", c) else None
        add(_Raw("decision", _clean(m.group(1), True), change=change))
    else:
        m = re.match(r"^[\u4e00-\u9fff]{0,4}用([A-Za-z][\w .+#-]*?)(?:了)?$", c)
        if m and project and not re.search(r"(?:别|不要|不)用", c):
            add(_Raw("decision", m.group(1).strip()))
        m = re.search(r"定了[，,]\s*用(" + _ZH_STOP + "+)", whole)
        if m and c.startswith("用"):
            add(_Raw("decision", _clean(m.group(1), True)))

    # budget
    if re.search(r"预算|钱最多|花不超过|不超过.*块|最多.*块", c) and not re.search(r"花了|房租涨|还剩", c):
        amounts = find_amounts(c)
        if amounts:
            amt = amounts[0][2]
            cur = amt.currency or "CNY"
            add(_Raw("budget_limit", _amount_obj(Amount(amt.value, cur)),
                     value=Amount(amt.value, cur).to_json()))

    # todo
    todo = _zh_todo(c, whole, when)
    if todo:
        add(_Raw("todo", todo))
    else:
        m = re.search(rf"(?:打算|准备|计划)({_ZH_STOP}+)", c)
        if m and not any(r.predicate == "budget_limit" for r in out):
            obj = re.sub(r"^(去|到)?(?:一趟|一次|一下)", r"\1", _strip_times(m.group(1), when))
            add(_Raw("plan", re.sub(r"(?:的|了|吧)+$", "", obj).strip(" ，,。")))
        else:
            m = re.search(rf"要(去{_ZH_STOP}+)", c)
            if m and find_times(c, when):
                add(_Raw("plan", _clean(m.group(1), True)))

    # works_at
    m = re.search(rf"(?:跳槽到|跳槽去)了?({_ZH_STOP}+)", c)
    if m:
        add(_Raw("works_at", _clean(m.group(1), True), change="evolution"))
    elif re.search(r"已经不在", whole) and (m := re.search(rf"现在在({_ZH_STOP}+)", c)):
        add(_Raw("works_at", _clean(m.group(1), True), change="evolution"))
    else:
        m = re.search(rf"(?:我|^)在({_ZH_STOP}+?)(?:上班|工作|做|当|任职)", c)
        if m:
            add(_Raw("works_at", m.group(1)))
        m = re.match(rf"^我是({_ZH_STOP}{{2,8}}?)的({_ZH_STOP}{{0,6}}(?:经理|工程师|员工|老师|医生|护士|主管|总监))", c)
        if m:
            add(_Raw("works_at", m.group(1)))

    # pet
    m = re.search(rf"养了?(?:一|两)?(?:只|条|个|头)({_ZH_STOP}+)", c)
    if m:
        obj = _clean(m.group(1), True)
        n = re.search(rf"养了?(?:一|两)?(?:只|条|个|头){re.escape(m.group(1))}[，,]\s*(?:叫|名叫|名字叫)({_ZH_STOP}+)", whole)
        if n:
            obj = f"{obj}（{_clean(n.group(1), True)}）"
        add(_Raw("pet", obj))

    # commute
    m = re.search(r"(开车|坐公交|坐地铁|坐班车|骑电动车|骑自行车|骑车|打车|步行|走路)(?:上班|去公司|通勤)", c) \
        or re.search(r"(?:平时|每天)(坐地铁|坐公交|开车|骑车)", c) \
        or (re.search(r"通勤", whole) and re.search(r"换成(地铁|公交|开车|骑车|骑电动车)", c))
    if m:
        obj = re.sub(r"^坐", "", m.group(1))
        change = "evolution" if re.search(r"改成|换成", c) else None
        add(_Raw("commute", obj, change=change))
    return out


def _zh_todo(c: str, whole: str, when: datetime) -> str | None:
    if re.search(r"提醒我|记得|别忘了|帮我记", c) or (
            re.search(r"帮我记|提醒我", whole) and re.search(r"^[^我，,]{0,6}要(?!我)", c)):
        body = _strip_times(c, when)
        body = re.sub(r"^.*?(?:提醒我一下|提醒我|记得|别忘了|帮我记一下|帮我记着|帮我记)", "", body)
        body = re.sub(r"^(?:提醒我|帮我|要)", "", body.strip(" ，,"))
        body = re.sub(r"^.*?要", "", body) if "要" in body[:4] else body
        body = _clean(body, True)
        return _ba(body) or None
    if re.search(r"帮我", c) and find_times(c, when):
        body = _strip_times(c, when)
        body = re.sub(r"^.*?帮我", "", body)
        return _ba(_clean(body, True)) or None
    m = re.search(rf"我(?:{_ZH_STOP}{{0,6}})?会(?!议)({_ZH_STOP}+)", c)
    if m and (find_times(c, when) or re.search(r"今晚|今天", c)):
        return _ba(_clean(_strip_times(m.group(1), when), True)) or None
    return None


def _ba(body: str) -> str:
    m = re.fullmatch(r"把(.+?)([\u4e00-\u9fff])(完|好|给你|给我)?", body)
    if m:
        return m.group(2) + ("完" if m.group(3) == "完" else "") + m.group(1)
    return body


def _amount_obj(amt: Amount) -> str:
    return str(amt)


# ---------------------------------------------------------------- English rules

_EN_STOP = r"[^,.;!?]"
_COMMUTE_VERBS = {"drive": "driving", "walk": "walking", "cycle": "cycling", "bike": "cycling",
                  "run": "running"}


def _en_rules(clause: str, whole: str, when: datetime) -> list[_Raw]:  # noqa: C901
    out: list[_Raw] = []
    c = clause.strip()
    add = out.append
    flags = re.I

    # lives_in
    m = re.search(rf"\b(?:moved|relocated) to ({_EN_STOP}+)", c, flags)
    if m:
        add(_Raw("lives_in", _en_place(m.group(1), when), change="evolution"))
    elif re.search(r"moved house", whole, flags) and (m := re.search(r"^now in (.+)", c, flags)):
        add(_Raw("lives_in", _clean(m.group(1), False), change="evolution"))
    else:
        m = re.search(rf"\b(?:I live in|I'm based in|I am based in|I live near|home is {_EN_STOP}* in|I'm in) "
                      rf"({_EN_STOP}+)", c, flags)
        if m:
            add(_Raw("lives_in", _en_place(m.group(1), when)))
        m = re.search(r"\bit's ([A-Z][\w' ]+?)(?:, not .*)?$", c)
        if m and _CORRECTION.search(whole):
            add(_Raw("lives_in", m.group(1)))

    # name
    m = re.search(rf"\b(?:call me|I go by|address me as|my name is|I'm called) ({_EN_STOP}+?)(?:\.|,|$| please)", c + ".",
                  flags)
    if m and not re.search(r"my name(?:'s| is)", c, flags) or (m and "go by" not in whole):
        add(_Raw("name", _clean(m.group(1), False)))

    # allergy
    m = re.search(rf"\b(?:allergic to|allergy to) ({_EN_STOP}+)", c, flags)
    if m:
        obj = _clean(m.group(1), False)
        if obj.lower() in ("them", "it"):
            obj = _antecedent(whole)
        if obj:
            add(_Raw("allergy", obj))
    elif re.search(r"\bI'm allergic\b", c, flags):
        obj = _antecedent(whole)
        if obj:
            add(_Raw("allergy", obj))
    else:
        m = re.match(r"^(\w+(?: \w+)?) allergy\b", c, flags)
        if m:
            add(_Raw("allergy", m.group(1).lower()))

    # diet
    m = re.search(r"\bI'm (?:a )?(vegan|vegetarian|pescatarian|lactose intolerant|coeliac|celiac)\b", c, flags)
    if m and "intolerant" not in m.group(1):
        add(_Raw("diet", m.group(1).lower()))
    m = re.search(r"\bI keep (halal|kosher)\b", c, flags)
    if m:
        add(_Raw("diet", m.group(1).lower()))
    m = re.search(r"\bswitched to (?:a |an )?([\w-]+) diet\b", c, flags)
    if m:
        add(_Raw("diet", m.group(1).lower(), change="evolution"))
    m = re.search(rf"\bI (?:don't|do not|never|can't|cannot) (?:eat|drink) ({_EN_STOP}+)", c, flags) \
        or re.search(rf"\bI avoid ({_EN_STOP}+)", c, flags) \
        or re.match(r"^no (\w+(?: \w+)?) for me\b", c, flags)
    if m:
        add(_Raw("diet", _clean(m.group(1), False), polarity="negative"))

    # likes / dislikes
    m = re.search(rf"\bI (?:really |absolutely |just |truly )?(?:hate|dislike|can't stand|cannot stand|detest|loathe|"
                  rf"don't like|do not like|don't enjoy) "
                  rf"({_EN_STOP}+)", c, flags) \
        or re.match(r"^(\w+(?: \w+)?) (?:are|is) (?:disgusting|awful|the worst)", c, flags)
    if m:
        add(_Raw("dislikes", _clean(m.group(1), False)))
    m = re.search(rf"\bI never (?!eat|drink)\w+ ({_EN_STOP}+)", c, flags)
    if m:
        add(_Raw("dislikes", _clean(m.group(1), False)))
    m = re.search(rf"\bI (?:really |absolutely |just )?(?:like|love|enjoy|prefer|adore) ({_EN_STOP}+)", c, flags) \
        or re.search(rf"\bI'm a (?:big |huge )?fan of ({_EN_STOP}+)", c, flags) \
        or re.match(r"^(\w+(?: \w+)?) (?:is|are) my thing", c, flags) \
        or re.search(rf"\bI always (?:sit in|take|book|choose|pick|order) ({_EN_STOP}+)", c, flags) \
        or re.search(r"\bI'd take (?:the |a )?(\w+(?: \w+)?) over\b", c, flags)
    if m and not re.match(r"^(?:that|this|it|your|the new)\b", m.group(1), flags):
        obj = _clean(m.group(1), False)
        obj = re.sub(r"\s+(?:if|as long as|when)\b.*$", "", obj, flags=flags)
        if obj:
            add(_Raw("likes", obj))
    m = re.match(r"^(?:a |an |the )?([\w -]+?) (?:is|are) (?:fine|ok|okay|acceptable|great)\b", c, flags)
    if m and not re.match(r"^(?:that|this|it|everything|just)\b", m.group(1), flags):
        add(_Raw("likes", m.group(1)))

    # decisions
    neg = re.search(rf"\b(?:don't use|do not use|let's skip|skip|definitely not|won't be using|not using|"
                    rf"no need for)\s+({_EN_STOP}+)", c, flags) \
        or re.match(r"^no ([\w-]+(?: [\w-]+)?) for (?:this|the) project", c, flags) \
        or (re.search(r"\b(?:use|go with|going with)\b", whole, flags)
            and re.match(r"^not ([A-Z][\w-]+(?: [A-Z][\w-]+)*)$", c))
    if neg:
        obj = re.sub(r"\s+(?:here|for now|for this project)$", "", _clean(neg.group(1), False), flags=flags)
        add(_Raw("decision", obj, polarity="negative"))
    m = re.search(r"\bswitch (?:the \w+ )?from [\w -]+? to ([\w -]+)", c, flags)
    if m:
        add(_Raw("decision", _clean(m.group(1), False), change="evolution"))
    m = re.search(rf"\b(?:I've decided on|we've decided on|decided on|going with|go with|let's use|we'll use|"
                  rf"we will use|keeping|decided to|let's go for|stick with|sticking with) ({_EN_STOP}+)", c, flags)
    if m:
        obj = _clean(m.group(1), False)
        obj = re.sub(r"\s+(?:for (?:CI|now|you|this)|for the \w+).*$", "", obj, flags=flags)
        add(_Raw("decision", obj))

    # budget
    if (re.search(r"budget|\bcap(?:ped)?\b|spend up to|spending limit|\bunder\b|no more|\btops\b", c, flags)
            or re.search(r", (?:no more|tops)\b", whole, flags)) \
            and not re.search(r"\bcost\b|prices?|how much", c, flags):
        amt = _en_amount(c)
        if amt is not None:
            add(_Raw("budget_limit", str(amt), value=amt.to_json()))

    # todo
    m = re.search(rf"\b(?:remind me|don't let me forget|ping me)\b{_EN_STOP}*?\bto ({_EN_STOP}+)", c, flags)
    if m:
        add(_Raw("todo", _clean(_strip_times(m.group(1), when), False)))
    elif re.search(r"please remind me", whole, flags) and (m := re.search(rf"\bI need to ({_EN_STOP}+)", c, flags)):
        obj = re.sub(r"\s+by\s*$", "", _strip_times(m.group(1), when))
        add(_Raw("todo", _clean(obj, False)))
    else:
        m = re.search(rf"\bI(?:'ll| will) ({_EN_STOP}+)", c, flags)
        if m and (find_times(c, when) or re.search(r"tonight|today", c, flags)):
            obj = _strip_times(m.group(1), when)
            obj = re.sub(r"^(\w+) (?:you|me) ", r"\1 ", obj)
            add(_Raw("todo", _clean(obj, False)))

    # plan
    m = re.match(r"^(?:the |my |our )?([\w -]+?) is (?:set for |scheduled for |on )?(.+?)$", c, flags)
    if m and find_times(m.group(2), when) and len(m.group(1).split()) <= 4:
        add(_Raw("plan", m.group(1)))

    m = re.match(r"^(?:I'm|I am|we're|we are) (\w+?)ing (to .+)$", c, flags)
    if m and find_times(c, when):
        add(_Raw("plan", _clean(f"{m.group(1)} {_strip_times(m.group(2), when)}", False)))

    # works_at
    m = re.search(rf"\b(?:started at|joined) ({_EN_STOP}+?)(?: last \w+| this \w+| yesterday|$)", c, flags)
    if m:
        add(_Raw("works_at", _clean(m.group(1), False), change="evolution"))
    else:
        m = re.search(rf"\b(?:I (?:still |currently |now )?work (?:for|at)|I'm an? \w+ at|I am an? \w+ at) ({_EN_STOP}+)", c, flags)
        if m:
            obj = re.sub(r"\s+as an? .*$", "", m.group(1))
            add(_Raw("works_at", _clean(obj, False)))
        m = re.match(rf"^work at ({_EN_STOP}+)", c, flags)
        if m:
            add(_Raw("works_at", _clean(m.group(1), False)))

    # pet
    m = re.search(r"\b(?:I've got|I have|we have|we've got) (?:two|three|2|3) (\w+?)s?, (\w+) and (\w+)", c, flags)
    if m:
        add(_Raw("pet", f"{m.group(1).lower()} ({m.group(2)})"))
        add(_Raw("pet", f"{m.group(1).lower()} ({m.group(3)})"))
    else:
        m = re.search(r"\b(?:got|have|adopted|own) an? (?:[\w-]+ )*?(\w+) (?:called|named) (\w+)", c, flags) \
            or re.search(r"\b(?:I've got|I have|we have) an? (dog|cat|puppy|kitten|rabbit|parrot|hamster), ([A-Z]\w+)",
                         whole)
        if m:
            add(_Raw("pet", f"{m.group(1).lower()} ({m.group(2)})"))
        else:
            m = re.search(r"\b(?:adopted|got) an? ((?:rescue )?\w+)", c, flags)
            if m and re.search(r"dog|cat|puppy|kitten|hound|terrier|retriever|spaniel|parrot|rabbit|beagle|"
                               r"greyhound|hamster", m.group(1), flags):
                add(_Raw("pet", m.group(1).split()[-1].lower()))

    # commute
    m = re.search(r"\bswitched to (\w+ing) to (?:work|the office)", c, flags)
    if m:
        add(_Raw("commute", m.group(1).lower(), change="evolution"))
    m = None if m else re.search(r"\bI (?:always |usually |normally )?(take|drive|walk|cycle|bike|ride|get) (?:the |a )?"
                  r"(\w+)?\s*(?:to (?:work|the office)|in every day|in\b|most days)", c, flags) \
        or (re.search(r"to work|most days|every day|commute", whole, flags)
            and re.search(r"\btake (?:the |a )?(train|bus|tube|subway|metro|ferry)\b", c, flags))
    if m:
        verb = m.group(1).lower()
        if verb in _COMMUTE_VERBS:
            obj = _COMMUTE_VERBS[verb]
        else:
            obj = m.group(m.lastindex) if m.lastindex and m.lastindex >= 2 and m.group(2) else m.group(1)
        if obj and obj.lower() not in ("take", "get", "ride"):
            change = "evolution" if re.search(r"instead of|since the move|switched", c, flags) else None
            add(_Raw("commute", obj, change=change))
    return out


def _en_place(text: str, when: datetime) -> str:
    text = _strip_times(text, when)
    m = re.match(r"(?:[A-Z][\w'-]*)(?: (?:upon |on |de |)?(?!I\b)[A-Z][\w'-]*)*", text)
    if m:
        return m.group(0)
    text = re.sub(r"\s+(?:last|this|next) \w+$", "", text)
    return _clean(text, False)


def _antecedent(whole: str) -> str:
    m = re.match(r"^(\w+(?: \w+)?) (?:give|gives|make|makes) me\b", whole, re.I)
    return m.group(1).lower() if m else ""


_GRAND = re.compile(r"(\d+(?:\.\d+)?)\s*grand\b", re.I)


def _en_amount(text: str) -> Amount | None:
    text = re.split(r",?\s+not\s+", text)[0]
    found = find_amounts(text)
    if found:
        return found[0][2]
    m = re.search(r"(\d[\d,]*(?:\.\d+)?)\s*(?:pounds|quid)\b", text, re.I)
    if m:
        from decimal import Decimal
        return Amount(Decimal(m.group(1).replace(",", "")), "GBP")
    m = _GRAND.search(text)
    if m:
        from decimal import Decimal
        return Amount(Decimal(m.group(1)) * 1000, None)
    return None


# ---------------------------------------------------------------- atomisation

_ZH_SPLIT = re.compile(r"[。！!？?；;\n]|[，,]?\s*(?:但是|但|不过|然而|还有|另外|以及|而且)[，,]?")
_EN_SPLIT = re.compile(r"(?<=[.!;])\s+|;\s*|,?\s+\b(?:but|however|also|besides|though|and also|and)\b,?\s*",
                       re.I)
_ZH_COND = re.compile(r"^(?:如果|要是|假如|前提是)")
_EN_COND = re.compile(r"^(?:if|as long as)\b", re.I)


def _atoms(text: str, zh: bool) -> list[tuple[str, str | None]]:
    """Clauses of ``text`` with their condition (if any)."""
    out: list[tuple[str, str | None]] = []
    if zh:
        for sent in _ZH_SPLIT.split(text):
            parts = [p.strip() for p in re.split(r"，|,(?!\d{3})", sent) if p and p.strip()]
            i = 0
            while i < len(parts):
                p = parts[i]
                if _ZH_COND.match(p) and i + 1 < len(parts):
                    cond = re.sub(r"^(?:如果|要是|假如)(?:是)?|的话$", "", p)
                    out.append((parts[i + 1], cond))
                    i += 2
                    continue
                if i + 1 < len(parts) and _ZH_COND.match(parts[i + 1]) and parts[i + 1].startswith("前提是"):
                    out.append((p, parts[i + 1][3:]))
                    i += 2
                    continue
                out.append((p, None))
                i += 1
    else:
        for part in _EN_SPLIT.split(text):
            if not part or not part.strip():
                continue
            part = part.strip(" ,")
            m = re.search(r"\s+(?:if|as long as)\s+(.+)$", part, re.I)
            cond = m.group(1).rstrip(".!") if m else None
            out.append((part.rstrip(".!"), cond))
    return out


def _comma_split_en(text: str) -> list[str]:
    return [p.strip() for p in re.split(r",(?!\d{3})\s*", text) if p.strip()]


# ---------------------------------------------------------------- main

def _raw_facts(text: str, when: datetime, *, allow_question: bool = False,
               project: bool = False) -> list[_Raw]:
    zh = _is_zh(text)
    stripped = text.strip()
    if _TEMPORARY.search(stripped):
        return []
    if not allow_question:  # drop question sentences inside the turn
        sents = re.findall(r"(?:[^。！!？?；;\n.]|\.(?!\s))+(?:[。！!？?；;\n]|\.\s|\.$)?", stripped)
        stripped = "".join(x for x in sents if not re.search(r"[?？]$", x) or _QUESTION_OK.search(x)).strip()
    raws: list[_Raw] = []
    seen: set[tuple[str, str, str]] = set()
    if not zh:  # an enumeration of pets ("two cats, Salt and Pepper") before atomising
        m = re.search(r"\b(?:I've got|I have|we have|we've got) (?:two|three|2|3) (\w+?)s?, (\w+) and (\w+)",
                      stripped, re.I)
        if m:
            for name in (m.group(2), m.group(3)):
                raws.append(_Raw("pet", f"{m.group(1).lower()} ({name})"))
            stripped = stripped[:m.start()] + stripped[m.end():]
    for clause, cond in _atoms(stripped, zh):
        subclauses = [clause] if zh else _comma_split_en(clause)
        for sub in subclauses:
            if not sub or _OTHER_PEOPLE.search(sub) or _NOT_LASTING.search(sub) or _INDIRECT.search(sub):
                continue
            if not allow_question and re.search(r"[?？]", sub) and not _QUESTION_OK.search(sub):
                continue
            found = _zh_rules(sub, stripped, when, project) if zh else _en_rules(sub, stripped, when)
            for r in found:
                if not r.object:
                    continue
                key = (r.predicate, r.object.casefold(), r.polarity)
                if key in seen:
                    continue
                seen.add(key)
                if cond and r.predicate in ("likes", "dislikes", "decision", "diet"):
                    r = _Raw(r.predicate, r.object, r.polarity, r.change, r.value, cond.strip())
                raws.append(r)
    return raws


_AGENT_HEDGE = re.compile(r"应该|好像|估计|大概|吧|I guess|I assume|you seem|I'm guessing|probably", re.I)


def _from_assistant(text: str) -> str:
    """The assistant's statement rewritten from the user's point of view."""
    t = re.sub(r"^(?:Am I right that|I'm guessing|I guess|I assume|So)\s+", "", text.strip(), flags=re.I)
    t = re.sub(r"^(?:Shall|Should) I remind you to", "Remind me to", t, flags=re.I)
    t = re.sub(r"^Should I go with", "let's go with", t, flags=re.I)
    t = re.sub(r"^Would you like (?:the |a )?", "I like ", t, flags=re.I)
    t = re.sub(r"\bYou seem to be\b", "I'm", t, flags=re.I)
    t = re.sub(r"\byou're\b", "I'm", t, flags=re.I)
    t = re.sub(r"\byou are\b", "I am", t, flags=re.I)
    t = re.sub(r"\byou'd\b", "I'd", t, flags=re.I)
    t = re.sub(r"\byour\b", "my", t, flags=re.I)
    t = re.sub(r"\b(?:remind|call|tell) you\b", lambda m: m.group(0).split()[0] + " me", t, flags=re.I)
    t = re.sub(r"\byou\b", "I", t, flags=re.I)
    t = re.sub(r"^需要我", "", t)
    t = re.sub(r"对吧[？?]?$|[，,]?对吧", "", t)
    t = t.replace("提醒您", "提醒我").replace("您", "我").replace("你", "我")
    t = re.sub(r"(?:是不是|应该是|应该|好像|估计|平时应该是)", "", t)
    return t


def extract(turn: Turn, context: Sequence[Turn] = ()) -> list[ExtractedFact]:
    """The facts ``turn`` states about its user or project (see the module doc)."""
    text = turn.text.strip()
    if not text:
        return []
    project = bool(turn.project)
    if turn.speaker != "user":
        if not _AGENT_HEDGE.search(text):
            return []
        clauses = re.split(r"[,.?!]\s*(?=so\b|I\b)|[。？?！!，；;]|\.(?=\s)", text)
        out = []
        for clause in clauses:
            if _AGENT_HEDGE.search(clause):
                raws = _raw_facts(_from_assistant(clause), turn.time, allow_question=True, project=project)
                out.extend(_fact(turn, r, "agent_inferred", 0.5) for r in raws)
        return out

    prev = context[-1] if context else None
    is_correction = bool(_CORRECTION.search(text))
    raws = _raw_facts(text, turn.time, project=project)
    if not raws and prev is not None and prev.speaker != "user":
        if _CONFIRM.match(text) and not _DECLINE.match(text):
            confirmed = _raw_facts(_from_assistant(prev.text), turn.time, allow_question=True, project=project)
            return [_fact(turn, r, "user_confirmed", 0.9) for r in confirmed]
        if re.search(r"address you|call you|称呼您|称呼你|怎么叫您", prev.text, re.I):
            m = re.match(r"^(?:just |叫我)?([A-Z][\w.]*(?: [A-Z][\w.]*)?|[\u4e00-\u9fff]{1,4}?)"
                         r"(?: is fine| please|就行|就好|就可以)?[.。!！]?$", text)
            if m:
                return [_fact(turn, _Raw("name", m.group(1)), "user_explicit", 0.9)]
        m = re.match(r"^(?:no|不是)[,，]\s*([A-Z][\w' -]+|[\u4e00-\u9fff]{2,6})[.。]?$", text, re.I)
        if m:
            guessed = _raw_facts(_from_assistant(prev.text), turn.time, allow_question=True, project=project)
            if guessed:
                g = guessed[0]
                r = _Raw(g.predicate, m.group(1).strip(), g.polarity, "correction")
                return [_fact(turn, r, "user_explicit", 0.9)]
    if not raws and is_correction and context:
        # a bare corrected amount ("是七千不是九千", "Oops, typo - $2,500.")
        earlier = " ".join(t.text for t in context if t.speaker == "user")
        if re.search(r"预算|budget|\bcap\b", earlier, re.I):
            zh = _is_zh(text)
            amt = None
            if zh:
                found = find_amounts(re.split(r"不是", text.replace("不是，", "", 1))[0] or text)
                if found:
                    a = found[0][2]
                    amt = Amount(a.value, a.currency or "CNY")
            else:
                amt = _en_amount(text)
            if amt is not None:
                raws = [_Raw("budget_limit", str(amt), value=amt.to_json())]
    if not raws and is_correction and context:
        raws = _value_correction(text, context)
    # "X不吃/不喝" also read as a dislike: keep the diet fact only
    abstain = {r.object for r in raws if r.predicate == "diet" and r.polarity == "negative"}
    raws = [r for r in raws if not (r.predicate == "dislikes" and r.object in abstain)]
    if is_correction:  # a correction inside the turn: only the last value per predicate
        last = {r.predicate: i for i, r in enumerate(raws)}
        raws = [r for i, r in enumerate(raws)
                if last[r.predicate] == i or r.predicate not in ("allergy", "lives_in", "works_at", "name",
                                                                 "budget_limit")]
    out = []
    for r in raws:
        if is_correction and r.change is None:
            r = _Raw(r.predicate, r.object, r.polarity, "correction", r.value, r.condition)
        if r.change is None and _EVOLUTION.search(text) and r.predicate in (
                "budget_limit", "lives_in", "works_at", "commute", "diet", "decision"):
            r = _Raw(r.predicate, r.object, r.polarity, "evolution", r.value, r.condition)
        out.append(_fact(turn, r, "user_explicit", 0.9))
    return out


def _value_correction(text: str, context: Sequence[Turn]) -> list[_Raw]:
    """"是X，不是Y" / "I meant X, not Y": the user's earlier fact with Y, now X."""
    m = re.search(r"是([^，,。不]{1,12})[，,]?\s*不是([^，,。]{1,12})", text) \
        or re.search(r"(?:I meant|it's|it is)\s+([\w' -]+?),?\s+not\s+([\w' -]+?)[.!]?(?:\s|$)", text, re.I)
    if not m:
        return []
    new, old = m.group(1).strip(), m.group(2).strip()
    for t in reversed(context):
        if t.speaker != "user":
            continue
        for r in _raw_facts(t.text, t.time):
            if old.casefold() in r.object.casefold():
                return [_Raw(r.predicate, new, r.polarity, "correction")]
    return []


def _fact(turn: Turn, r: _Raw, kind: str, confidence: float) -> ExtractedFact:
    if turn.project and r.predicate in _PROJECT_PREDICATES:
        subject, scope = f"project:{turn.project}", "project"
    else:
        subject, scope = f"user:{turn.user}", "global"
    start = end = None
    if r.change == "evolution" or r.predicate in _TIMED:
        times = find_times(turn.text, turn.time)
        if times:
            start, end = times[0][2].start, times[0][2].end
    return ExtractedFact(
        subject=subject, predicate=r.predicate, object=r.object, value=r.value,
        polarity=r.polarity, change=r.change, scope=scope, source_kind=kind,
        confidence=confidence, event_start=start, event_end=end, condition=r.condition,
    )


def to_claims(turn: Turn, facts: Sequence[ExtractedFact], extractor: str = "rules@1") -> list[ClaimInput]:
    """The facts as store claims citing ``turn``."""
    source_kind = {"user": "user_explicit"}.get(turn.speaker, "agent_inferred")
    out = []
    for f in facts:
        src = SourceRef(session=turn.session, turn=turn.turn, text=turn.text, time=to_us(turn.time),
                        tz=offset_minutes(turn.time), speaker=turn.speaker, kind=f.source_kind or source_kind)
        valid_from = to_us(turn.time)
        if f.change == "evolution" and f.event_start is not None:
            valid_from = to_us(f.event_start)
        out.append(ClaimInput(
            subject=f.subject, predicate=f.predicate, object=f.object, source=src,
            valid_from=valid_from, value=f.value, polarity=f.polarity, scope=f.scope,
            confidence=f.confidence, change=f.change, extractor=extractor,
            event_start=to_us(f.event_start) if f.event_start else None,
            event_end=to_us(f.event_end) if f.event_end else None,
        ))
    return out
