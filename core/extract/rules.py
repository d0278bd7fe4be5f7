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

``memdesk.core.claims.to_claims(turn, facts)`` maps the result to claims.

Vocabulary is kept in tables of cue words (``_ZH_CHOOSE``/``_ZH_REJECT``/``_EN_REJECT``
for decisions, ``_ZH_DISLIKE``/``_EN_DISLIKE``/``_EN_DISLIKE_PREDICATE`` for
dislikes, ``_ZH_ANIMAL``/``_EN_ANIMAL`` for pets, ``_EN_COMMUTE`` for commutes,
``_ZH_MODALS``/``_EN_PLAN_*`` for timed plans, ``_ZH_PEOPLE``/``_EN_PEOPLE`` for
statements about other people). Topic-narrowing conditions ("如果是无糖的可以来一杯"
→ 无糖奶茶) become one like of the narrowed thing.

General mechanisms rather than sentence wordings (the chatty round):

* synonym lexicons: ``_ZH_DISLIKE`` (不太喜欢/受不了/吃不惯 …), ``_EN_LIKE`` /
  ``_EN_DISLIKE`` / ``_EN_DISLIKE_PREDICATE`` (sucker for, obsessed with, isn't
  my thing …), rejections (off the table, let's not use, X不用了/那个方案算了),
  reminders (``_REMIND_ME``), vehicles (``_ZH_VEHICLE``/``_EN_VEHICLE``), and
  ``_EN_FOOD`` deciding whether "I'm off X" / "X's a no for me" is a diet or a
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

Not covered yet: narrowing conditions in English ("a hike as long as it's
under 10 km"), rephrasing objects (保险就买平安的那款 → 平安的保险), value-only
answers to the agent's questions beyond a name, budget, allergy, home or
employer (``_answer_value``), enumerations without a separator (虾蟹).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from ..pipeline import ExtractedFact, Turn
from .amounts import Amount, find_amounts, parse_cn_number
from .times import find_times

__all__ = ["extract"]

_PROJECT_PREDICATES = {"budget_limit", "decision", "plan"}
_TIMED = {"plan", "todo", "pet"}




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
        obj = re.sub(r"(?:的|了|啦|吧|呢|啊|哦|就好|就行|就可以|就成|就得了|就OK|一下)+$", "", obj)
        obj = obj.replace("一下", "")
    else:
        obj = re.sub(r"^(?:a bit of|a little|lots of|the|an?|my|some)\s+", "", obj, flags=re.I)
        obj = re.sub(r"\s+(?:please|too|really|though|anyway|for now|here|either|anymore|any more|any longer|a lot|"
                     r"completely|entirely|altogether|for good|"
                     r"so much|very much|loads|tbh|btw|honestly|lol|haha|"
                     r"these days|nowadays|at all)$", "", obj, flags=re.I)
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

# asking to be reminded (a request even when phrased as a question)
_REMIND_ME = (r"提醒我|提醒一下我|叫我一声|remind me|nudge me|ping me|give me a (?:nudge|shout|reminder|heads-up)|"
              r"jog my memory|don't let me forget|make sure I (?:don't forget|remember)|set (?:me )?a reminder|"
              r"prompt me")
_QUESTION_OK = re.compile(_REMIND_ME, re.I)
_TEMPORARY = re.compile(
    r"正在|这会儿|在开车|在开会|在(?:高铁|飞机|火车|地铁|路)上|在\S{0,4}(?:排队|堵车)|堵在路上|刚下飞机|等行李|"
    r"right now|at the moment|in a meeting|on a call|in the middle of|\bbrb\b|stuck in|^driving\b|"
    r"^(?:I'm |I am )?(?:on|at) (?:a|the) (?:train|bus|plane|flight|airport|gate|station)\b", re.I)
# what follows a taste verb when it names no thing: "再多真扛不住了", "别给我推荐更贵的了"
# "我最爱吃的是火锅": what comes before the thing itself
_ZH_TASTE_LEAD = re.compile(r"^(?:得[^的，,]{0,4})?(?:吃|喝|玩|看|听|去)?的(?:就)?是")
_ZH_NOT_A_TASTE = re.compile(r"^(?:再|真|就|还|也|都|推荐|安排|谁|什么|哪|得)|^[闻看听想]着$|更(?:贵|便宜|多|少|好|差)")
# a taste held for now is still a taste: "really into bouldering at the moment", "最近迷上了飞盘"
_TASTE_FOR_NOW = re.compile(r"\b(?:into|obsessed with|hooked on|loving|keto|paleo|vegan|vegetarian|fasting)\b|迷上|爱上",
                            re.I)
# people other than the user: a clause whose subject is one of them is about them
_ZH_PEOPLE = ("妹妹|姐姐|哥哥|弟弟|爸爸|妈妈|爸|妈|父母|家人|同事|朋友|老婆|老公|媳妇|男朋友|女朋友|对象|"
              "儿子|女儿|孩子|邻居|室友|领导|老板|上司|经理|主管|客户|同学|闺蜜|爷爷|奶奶|外婆|外公|"
              "组长|部长|队长|科长|处长|总监|老师|导师|甲方|负责人|合伙人|老大|师傅|家里人|宝宝|小孩|"
              "HR|CEO|CTO|PM|[产项][品目]经理|[\u4e00-\u9fff]总(?=[，,说觉决定要让])")
_EN_PEOPLE = ("sister|brother|son|daughter|kid|child|children|friend|neighbour|neighbor|wife|husband|mum|mom|"
              "dad|parent|boss|colleague|coworker|co-worker|manager|partner|girlfriend|boyfriend|flatmate|"
              "roommate|housemate|team|client|teacher|landlord|cousin|aunt|uncle|grandma|grandpa|"
              "team lead|lead|director|supervisor|mentor|tutor|doctor|dentist|GP|therapist|CEO|CTO|PM|"
              "product manager|in-laws|nan|gran|niece|nephew|fianc[ée]e?|spouse|other half|hubby|missus")
# a first name opening a clause as its subject ("Tom is allergic to cats"), not a sentence adverb
_EN_NAME_SUBJECT = (r"(?!(?:Please|Just|Really|Honestly|Also|Never|Always|Definitely|Maybe|Actually|Sorry|Thanks|Yes|No|"
                    r"Oh|Well|So|Then|Now|Today|Tomorrow|Tonight|Usually|Normally|Mostly|Still|Sometimes|Seriously|"
                    r"Obviously|Basically|Literally|Totally|Absolutely|Lately|Recently|Nowadays|Anyway|Btw|Plus|Been|Gone|Went|Became|"
                    r"Fully|Strictly|Mainly|Pretty|Quite|Very|Fairly)\b)"
                    r"(?-i:[A-Z][a-z]+)")
_OTHER_PEOPLE = re.compile(
    rf"^(?:[^，,]{{0,4}})?(?:我们?(?:的|家|部门|公司|组|团队|team)?(?:的)?(?:{_ZH_PEOPLE})|"
    r"他们|她们|他|她|别人|大家)|^我(?:哥|姐|弟|妹)(?![妹姐哥弟])|"
    r"^(?:我们)?(?:公司|单位|学校|上面|领导层|管理层|集团|总部)(?:已经|刚)?(?:决定|规定|要求|说)|"
    r"^[\u4e00-\u9fff]{0,4}(?:组|部|部门|团队|那边)(?:那边)?(?:已经|刚)?(?:决定|定了|规定|要求|说)|"
    rf"^(?:{_ZH_PEOPLE})(?:们)?(?:每天|每周|平时|一般|都|也|不|对|喜欢|讨厌|住|在|是|有|说|觉得|决定|要|爱|最)|"
    rf"^{_EN_NAME_SUBJECT}(?: and (?-i:[A-Z])[a-z]+)?(?:'s| is| are| has| have)? (?:allergic|vegan|vegetarian|lactose|"
    r"coeliac|celiac|based|moving|living|working)\b|"
    rf"^{_EN_NAME_SUBJECT} (?:hates|loves|likes|lives|works|eats|drinks|doesn't|can't|never|always|prefers|adores|"
    r"enjoys)\b|"
    rf"(?:^|[,;:]\s*|\b(?:and|but|so|because|cos|since|think|apparently|said|says) )(?:my|our) (?:{_EN_PEOPLE})s?\b|"
    r"^(?:they|everyone|he|she)\b(?!.*\bmy\b)|"
    r"^(?:the|our|my) (?:board|management|company|client|clients|leadership|execs?|higher-ups|investors|landlord|"
    r"council|school|government|committee|organi[sz]ers|authorities|university|HR|panel|jury|trustees|partners|"
    r"(?!our |my )[\w-]+ team (?:has |have )?(?:decided|chose|picked|wants|agreed))\b(?! (?:is|are) (?:out|in|the|a)\b)", re.I)
# somebody else as the subject (not "给我爸买礼物", where the user acts)
_OTHER_SUBJECT = re.compile(rf"^(?:我们?的?|我家)?(?:{_ZH_PEOPLE}|哥|姐|弟|妹)|^(?:my|our) (?:{_EN_PEOPLE})s?\b|"
                            r"^(?:he|she|they)\b", re.I)
# a clause that is about the user again after one about somebody else
_NAMES_USER = re.compile(r"我|\b(?:I|I'm|I've|I'll|I'd|my|me|we|our|us|we're|we've)\b", re.I)
# ... unless they only say how the user is called ("大家都叫我阿May", "everyone calls me Liz")
_CALLED_BY_OTHERS = re.compile(r"(?:大家|别人|朋友们?|同事们?)都?(?:叫|喊|称呼)我|\b(?:everyone|people|friends) calls? me\b",
                               re.I)
_NOT_LASTING = re.compile(
    r"还没想好|不知道|拿不准|考虑一下|小时候|以前|(?<!只)要是|如果.*(?:的话)|当年|那时候|那会儿|那几年|那阵子|"
    r"(?:上学|读书|念书|大学|高中|初中|小学|刚毕业|年轻)(?:的时候|时|那几年|那会儿|期间)|(?:养|住|用|吃|去)过(?!敏)|"
    r"\bback (?:when|in) |\bwhen I was (?:a kid|young|little|at (?:uni|university|college|school))\b|"
    r"真想|好想|特别想|做梦都想|等以后|等将来|等退休|有朝一日|梦想|希望有一天|哪天能|"
    r"haven't decided|not sure|used to|maybe one day|let me think|\bwould\b|\bshould i\b|"
    r"\bone day\b|\bsomeday\b|\bsome day\b|\bI wish\b|\bif only\b|\bdream(?:ing)? of\b|bucket list|"
    r"\bmight\b|\bin an ideal world\b", re.I)
_NOT_THAT = re.compile(r"^(?:it's |it is )?not that I (?:don't|do not|can't|cannot|won't)\b|^我(?:也)?(?:没有|并没有|不是)不(?:吃|喝|会|能)", re.I)
_INDIRECT = re.compile(r"你(?:刚才|这个|那个)|\b(?:that|this|your) (?:idea|suggestion)\b|\b(?:how|what) you\b", re.I)

_CORRECTION = re.compile(
    r"不对|说错了|打错了|写错了|记错了|口误|搞错了|不好意思，是|^不是[，,]|不是.{1,8}(?<![只就也还倒但可])是|是.{1,8}[，,]?不是|"
    r"\bno, i said\b|\bi meant\b|that's wrong|got it wrong|scratch that|typo|^no,|^(?:wait|hang on|sorry),? no\b|"
    r"\b(?:oh )?wait,? no\b|\bactually,? no\b|\bsorry,? no\b|\bno,? I mean\b", re.I)
_EVOLUTION = re.compile(
    r"提到|涨到|调到|搬到|搬去|换成|改成|改为|改坐|改骑|改开|改乘|改吃|上调|提高到|加到|降到|砍到|砍了|跳槽到|已经不在|"
    r"\bmoved\b|relocated|moved house|switched to|\bswitch\b|raised to|increased|bumped|cut (?:\w+ )*?to|"
    r"\bstarted at\b|\bjoined\b|instead of|since the move|\b(?:moving|migrating) (?:\w+ ){0,3}to\b|"
    r"\b(?:starting|from|as of) next (?:month|week|year)\b|(?<!can )(?<!could )(?<!would )\bgo(?:es|ing)? (?:up|down) to\b|"
    r"\b(?:rais|lower|reduc|increas|decreas|upp)ed\b|\b(?:rises|rose|drops|dropped) to\b|"
    r"\b(?:I've gone|I went|I became|I've become)\b|"
    r"\b(?:dropping|ditching|replacing)\b", re.I)

_CONFIRM_WORD = (r"(?:对的?|对对|是的|是啊|是呀|是|嗯+|好的|好啊|好呀|好嘞|好|可以的?|行啊|行|没错|没问题|就这样|就这么办|没毛病|"
                 r"要的|需要|麻烦了|yes pls|yes please|"
                 r"yes|yep|yup|yeah|yea|right|correct|that's right|that's correct|exactly|absolutely|definitely|"
                 r"sure|ok|okay|spot on|bingo|go ahead|please do|sounds right|let's do (?:that|it)|do it|go for it|"
                 r"sounds good|works for me|就按(?:这个|你说的)(?:来|办)|按你说的(?:来|办)|就这样吧)")
# a turn that only confirms: confirmation words, repeated or with punctuation ("可以可以。", "Yep, that's right.")
_CONFIRM = re.compile(rf"^{_CONFIRM_WORD}(?:[，,。.!！\s]*{_CONFIRM_WORD})*(?:[，,。.!！\s]|$)", re.I)
_DECLINE = re.compile(r"^(?:不是|不|不用|no|not really|nope)\b|^(?:不是|不用|不)", re.I)


# ---------------------------------------------------------------- Chinese rules

_ZH_STOP = r"[^，,。！!？?；;、]"
# "not at all" adverbs before an abstention verb: 奶茶一口都不碰, 酒我从来不喝
_ZH_ABSOLUTE = r"(?:一口都|一口也|一点都|一点也|一滴都|一滴也|一律|从来|向来|完全|基本|绝对|坚决)"
# degree and topic adverbs between a fronted object and the preference verb: 海鲜倒是很喜欢
_ZH_DEGREE = r"(?:倒是|倒|也|还|都|真的|其实)?(?:挺|很|比较|最|特别|非常|超|超级|蛮|相当)?"
# dislike verbs; the named forms need an object after them
_ZH_DISLIKE = (r"不(?:太|怎么|大|是很|是特别|咋)?喜欢|不(?:太|怎么|大)?爱喝|不(?:太|怎么|大)?爱吃|不(?:太|怎么|大)?爱(?!好)|"
               r"讨厌|受不了|反感|接受不了|忍受不了|忍不了|看不惯|最烦|很烦|特别烦|超烦|烦死了|最怕|很怕|特别怕|嫌弃|"
               r"不感冒|无感|吃不消|扛不住|烦透了|吃不惯|喝不惯|用不惯|住不惯|坐不惯|看不上|"
               r"不(?:太|怎么|大)?能接受|很难接受|没法接受|最讨厌的(?:就)?是|最烦的(?:就)?是|最受不了的(?:就)?是|"
               r"特别讨厌|非常讨厌|极其讨厌|厌恶|痛恨|怕死了|深恶痛绝|兴趣不大|没什么兴趣|不感兴趣|提不起兴趣")
# choosing and rejecting an option
_ZH_CHOOSE = ("就用|就选|就定|就买|就订|决定用|决定选|决定买|决定|定了用|定用|敲定了?|选定了?|采用|最终选了?|"
              "还是用|改成用|换成用|(?:最后|最终|我们|我)(?:还是)?选(?:了|的是)|(?:最后|最终)(?:定|用|挑)(?:了|的是)|"
              "选的是|定的是|拍板(?:了|用|选|定)?|改用|换用|改选|定下来用|就它了[，,]?|就这个了[，,]?|"
              "(?:最后|最终)(?:订|买|租|约)(?:了|的是)|用回|换回|还是(?:选|买|订|要)(?=[^，,。]{1,12}吧)")
_ZH_REJECT = "别用|不要用|不用|不考虑|不选|不采用|弃用|放弃|否掉了?|毙掉了?|淘汰掉?了?|排除掉?了?|pass掉了?"
_ZH_REJECT_IN_DECISION = "不买|不订|不要|不租|不上"  # only once a decision is being stated
_ZH_DECIDED = r"决定|定了|就买|就选|就用|就订|选了|拍板|敲定|定下来|就它了|就这个了|改用|选的是"
# what follows 不用/不考虑 when it is not an option: 不用再比了, 不用担心, 再贵就不考虑了
_ZH_NOT_AN_OPTION = re.compile(r"^(?:再|太|担心|管|急|着急|客气|麻烦|谢|了|等|想|说|问|去)|就|太|再")
# verbs of a choice that can also be negated to drop the other option: 不去了, 这期不接, 就不用了
_ZH_PARALLEL_VERBS = r"去|接|用|要|买|选|上|订|租|考虑|做"
# words naming what was decided rather than the option itself: "时间定了" decides nothing we can name
_ZH_SLOT_WORDS = r"(?:时间|日子|日期|地点|方案|名单|价格|计划|行程|事情|事儿|这事|结果)$"
# "冰的也不喝": a drink named by its temperature
_ZH_DRINK_BY_TEMPERATURE = {"冰的": "冰饮", "凉的": "冷饮", "冰": "冰饮", "冷的": "冷饮"}
_ZH_LIKE = r"喜欢|(?<![可恋亲宠])爱(?!好)|偏爱|偏好|钟爱|热爱|迷上了|爱上了|稀罕|宁可|宁愿"


# a spending limit: 预算, or a cap phrased as 上限/封顶/以内/控制在/不超过/最多
_ZH_BUDGET_CUE = r"预算|经费|上限|封顶|控制在|以内|之内|不超过|不能超过|别超过|最多|顶多|至多|钱最多|总共就|一共就|不能再多"
# prices, costs, rents and incomes are not budgets
_ZH_NOT_A_BUDGET = r"花了|房租|还剩|价格|售价|原价|卖|工资|薪|收入|赚|挣|贷款|欠"


def _zh_budget_amount(clause: str) -> Amount | None:
    """The limit a budget clause sets, in CNY unless marked: the new value of a change ("从八万提高到九万五" -> 95000),
    else the first amount, else a bare numeral after 预算/到/是 ("预算加到八百" -> 800)."""
    amounts = find_amounts(clause)
    if len(amounts) >= 2 and re.search(r"到|成|为", clause[amounts[0][1]:amounts[-1][0]]):
        amt = amounts[-1][2]
    elif amounts:
        amt = amounts[0][2]
    else:
        m = re.search(r"(?:预算|上限|到|是|为|在)(?:大概|大约|差不多)?([零一二两三四五六七八九十百千万\d.]+)(?:块|元|左右|以内|上下|$)",
                      clause) or re.search(r"([零一二两三四五六七八九十百千万\d.]+)(?:块钱?|元)?(?:以内|之内|封顶)", clause)
        value = parse_cn_number(m.group(1)) if m else None
        if value is None or value < 100:
            return None
        amt = Amount(value, None)
    return Amount(amt.value, amt.currency or "CNY")


# simple preference cues: the named group "obj" is the thing liked or disliked
_ZH_SIMPLE_PREFERENCES = [
    (re.compile(rf"(?<!不)习惯(?:用)?(?!骑|坐|开车|打车|走路|步行)(?P<obj>{_ZH_STOP}+)"), "likes"),
    (re.compile(rf"(?:一般|经常|偶尔|常常|总是|老是|每天|每周|每晚|每个?周末|平时|"
                rf"(?:每个?|)(?:周|星期)[一二三四五六日天](?=(?:早上|上午|中午|下午|傍晚|晚上)?都))"
                rf"(?:早上|上午|中午|下午|傍晚|晚上)?(?:都|也|会)*(?:去|打打|打(?!车)|玩)(?P<obj>(?!公司|单位|上班|学校){_ZH_STOP}+)"),
     "likes"),
    (re.compile(rf"只喝(?P<obj>{_ZH_STOP}+)"), "likes"),
    (re.compile(r"^(?P<obj>(?![我你他她这那今明昨每])[^，,。]{1,6}?)我?(?:每天|天天|每周|每晚|经常|一般|平时)都?(?:要|会|得)?"
                r"(?:喝|吃|来|点)"), "likes"),
    (re.compile(rf"(?:(?:平时|每次|向来|一向|总是|一直)(?:都)?|(?:之前|一般)都)要(?:订|坐|住|选|买|点)?(?P<obj>{_ZH_STOP}+)"),
     "likes"),
    (re.compile(rf"^(?P<obj>{_ZH_STOP}{{1,6}}?)我能(?:吃|喝)"), "likes"),
    (re.compile(rf"我要(?:坐|住|订)(?P<obj>{_ZH_STOP}+)"), "likes"),
    (re.compile(rf"(?:从不|从来不)(?:坐|住|订|用|买|看|去)(?P<obj>{_ZH_STOP}+)"), "dislikes"),
    (re.compile(r"^我(?:一般|平时|基本|向来)?不(?:坐|住|订|搭|乘)(?P<obj>(?![了过])[^，,。！!？?；;、这那]{2,})"), "dislikes"),
    (re.compile(rf"(?<!到时候)(?<!这次)(?<!今天)(?<!可)(?<!的)别给我(?!订|点|买|约|安排)(?P<obj>{_ZH_STOP}+)"), "dislikes"),
    (re.compile(rf"(?:改喝|改吃|爱上了喝|迷上了喝)(?!素|荤|肉)(?P<obj>{_ZH_STOP}{{2,10}})"), "likes"),
    (re.compile(r"^(?P<obj>(?![我你他她这那])[^，,。]{1,10}?)(?:我)?(?:是)?(?:一天|一刻|一顿)?(?:都|也)?离不开"), "likes"),
    (re.compile(rf"(?:^我|^)离不开(?P<obj>{_ZH_STOP}{{1,10}})"), "likes"),
    (re.compile(r"^(?P<obj>(?![我你他她这那])[^，,。]{1,10}?)是我(?:的)?(?:最爱|心头好|心头肉|命)"), "likes"),
    (re.compile(r"只要是(?P<obj>[^，,。我你]{2,10}?)(?:的话)?我?(?:都|就)(?:OK|ok|可以|行|没问题|喜欢|爱)"), "likes"),
    (re.compile(r"^(?P<obj>[\u4e00-\u9fffA-Za-z0-9]{2,14}?)是我(?:[^，,。]{0,8}的)?(?:习惯|爱好|保留节目)"), "likes"),
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
        m = re.search(rf"(?:(?:我(?:们家|家|们)?(?:目前|现在|还是|还|也|就|长期|常年)*|^目前|^现在)"
                      rf"(?:住在|住的是|住的地方(?:在|是)|家在|居住在|定居(?:在|于)?|常住在?|长住在?|安家在|落户在?|住(?![了过酒宾民院店校宿]|青旅|青年))|"
                      rf"^(?:我)?家(?:就|也|现在|目前)?(?:在|住)|^(?:我)?现居|"
                      rf"^(?:我)?(?:现在|目前|已经)?定居(?:在|于)?"
                      rf"|(?:^|[，,]\s*)(?:现在)?(?:住在|家住|住(?![了过酒宾民青院店校宿])))"  # "我叫王工，住在徐家汇", "住海淀"
                      rf"({_ZH_STOP}+?)(?:附近|那边|这边|那儿|这儿|那块儿?|这块儿?|那片儿?|这片儿?|一带|$|(?=[，,。；;]))", c)
        m = m or re.search(rf"(?:^|我|现在|目前)(?:现在|目前|一直)*在({_ZH_STOP}{{2,10}}?)住(?:着|呢|"
                           rf"了?(?:[一二两三四五六七八九十几0-9]+年(?:多)?|很久|好多年|挺久)了?)?$", c)  # "现在在深圳南山住"
        if m and not c.startswith("我老家") and not re.match(r"[得离很挺不的]", m.group(1)):
            add(_Raw("lives_in", _clean(m.group(1), True)))

    # name
    m = re.search(rf"(?:叫我|称呼我|喊我|我叫)({_ZH_STOP}+)", c)
    if m and m.group(0).startswith("我叫") and re.search(r"(?:叫|称呼|喊)我(?!叫)", whole):
        m = None  # "我叫孙浩，你叫我浩哥就行": the form of address asked for wins
    if m and re.match(r"起床|起来|吃饭|下楼|过去|回来|一声|出门|去", m.group(1)):
        m = None  # "明早八点叫我起床" asks for a wake-up call, not a name (a todo, below)
    if m and not re.search(r"别叫|不要叫|甭叫|别再叫|不用叫", c[:m.start() + 2]):
        add(_Raw("name", _clean(m.group(1), True)))

    # allergy
    if "过敏" in c and "不过敏" not in c:
        before = c[:c.index("过敏")]
        if "对" in before:
            before = before[before.rindex("对") + 1:]
        before = re.sub(r"^(?:我|有点|有|是|吃|也)+", "", before)
        before = re.sub(r"(?:会|都|也|有点)+$", "", before)
        fronted = re.fullmatch(r"([^，,。我你他她]{1,8}?)我?(?:一|只要)(?:吃|碰|喝|用|闻|接触|摸)(?:了)?(?:就|会|都)*", before)
        if fronted:
            before = fronted.group(1)  # "海鲜我一吃就过敏"
        if re.search(r"说(?:是|我)?$|诊断(?:为|是)?$|查出(?:来)?(?:是)?$", before):
            touched = re.search(r"(?:一|只要)(?:吃|碰|喝|用|闻|接触|摸)(?:了)?([\u4e00-\u9fff]{1,6}?)(?:就|会|嘴|脸|身上|皮肤|嗓子|喉咙|眼睛|鼻子|手|全身|身体|肚子|胃)", whole)
            before = touched.group(1) if touched else ""  # "我一碰芒果嘴就肿，医生说是过敏"
        if re.fullmatch(r"(?:一|只要)?(?:吃|碰|喝|用|闻|接触|摸)(?:了)?(?:就|会|都)*", before):
            before = ""  # "我吃不了海鲜，一吃就过敏": the thing is named before
            m = re.search(rf"(?:吃不了|不能吃|不吃|碰不了|不能碰|不敢吃)({_ZH_STOP}{{1,6}})", whole)
            if m:
                add(_Raw("allergy", _clean(m.group(1), True)))
        elif 1 <= len(before) <= 8 or re.fullmatch(r"[A-Za-z][\w -]{0,24}", before):
            add(_Raw("allergy", before))
        elif not before:  # "布洛芬我吃了会起疹子，过敏"
            m = re.match(r"^([^，,。我你他她]{1,6}?)(?:我)?(?:一|只要)?(?:吃|碰|用|闻|喝|接触|摸|涂)", whole)
            if m and c != whole:
                add(_Raw("allergy", m.group(1)))

    # diet
    if re.search(r"素食|(?<!不)吃素", c) and not re.search(r"不(?:再)?吃素|不是素食", c):
        add(_Raw("diet", "素食", change="evolution" if "改吃" in c else None))
    m = re.search(r"只吃(清真|素|有机\S*)", c) or re.search(r"(?:吃|是)(全素|纯素|蛋奶素|净素|清真)", c)
    if m:
        add(_Raw("diet", _clean(m.group(1), True)))
    m = re.search(r"(?:我|最近|一直|目前|现在|^)(?:都|也)?(?:是)?(?:在|正在|开始)?(控糖|减肥|断食|生酮|低碳水|轻断食|戒糖)", c) \
        or re.search(r"(?:在|正在)(戒(?:酒|烟|糖|咖啡|奶茶|碳水|甜食|零食|夜宵|宵夜))", c) \
        or re.search(r"(?:^|我|是)(?:是|在|一直|现在|坚持)*(?:吃)?((?![我是在吃]|清真)[\u4e00-\u9fff]{2,4}饮食)(?!习惯|方面|建议)", c)
    if m:
        add(_Raw("diet", m.group(1)))
    m = re.search(rf"(?:不(?:太|怎么|大)?(?:能)?|从来不|从不|戒了)(?:吃|喝|碰|沾)({_ZH_STOP}+)", c) \
        or re.search(rf"(?:吃|喝)不了({_ZH_STOP}+)", c) \
        or re.search(r"戒(?:掉)?了?(酒|糖|咖啡|奶茶|可乐|肉|碳水|辣|甜食|零食|饮料|夜宵|宵夜|咖啡因)", c) \
        or re.match(r"^((?![我你他她这那])[\u4e00-\u9fff]{1,6}?)(?:也|都|全|全都|早就|已经)*戒(?:掉)?了", c)
    if m and not re.search(r"不想|不沾地|不沾边", c):
        obj = re.sub(r"[，,].*$", "", m.group(1))
        obj = _ZH_DRINK_BY_TEMPERATURE.get(obj, re.sub(r"(?:了|的|吧)$", "", obj))
        if obj and obj != "素" and not re.match(r"那么|这么|太多|多少|完|了|饱|下", obj):  # "不吃素" ends a diet
            add(_Raw("diet", obj, polarity="negative"))
    m = re.match(rf"^(?![我你他她这那])({_ZH_STOP}{{1,6}}?)(?:我)?(?:是|也|都|就|还|可|现在|一直|已经|早就|平时|基本上?)*"
                 rf"{_ZH_ABSOLUTE}?(?:也|都)?"
                 rf"(?:不(?:太|怎么|大)?(?:能)?(?:喝|吃|碰|沾(?![地边]))(?![完饱下])|(?:吃|喝)不了)", c)
    if m and _zh_topic_ok(m.group(1), when):
        topic = re.sub(r"^(?:只是|就是|但是|可是|不过|而且)(?=..)", "", m.group(1))  # "只是肥肉一口都不碰"
        add(_Raw("diet", _ZH_DRINK_BY_TEMPERATURE.get(topic, re.sub(r"(?<=..)的$", "", topic)), polarity="negative"))

    # a habit in free time: "周末我一般在家打游戏", "下班后通常去游泳"
    m = re.match(r"^(?:周末|平时|晚上|下班后|下班以后|早上|每天|每周末|休息的时候|没事的时候|有空的时候|空闲时)(?:我)?"
                 r"(?:一般|通常|经常|常常|总是|基本上?|都|喜欢)+(?:会)?(?:在家|在外面)?(?:去)?"
                 r"(?P<obj>(?!要|得|加班|上班|工作|值班|开会|带娃|睡觉|休息|在)[\u4e00-\u9fff]{2,8})$", c)
    if m and "不" not in m.group("obj"):
        add(_Raw("likes", m.group("obj")))
    # a way to be reached: "有事微信上说就行", "发邮件联系我就好"
    m = re.match(r"^(?:有事)?(?:发|打|用|在)?(微信|短信|邮件|钉钉|飞书|企业微信)(?:上)?(?:说|联系我?|沟通|找我|留言)?(?:就行|就好|就可以|吧)", c)
    if m:
        add(_Raw("likes", f"{m.group(1)}沟通"))
    # likes / dislikes
    neg_pref = re.search(rf"(?:{_ZH_DISLIKE})({_ZH_STOP}*)", c)
    if neg_pref and re.search(r"(?:不是|并不|倒不|也不|不)$", c[:neg_pref.start()]):
        neg_pref = None  # "我不是不喜欢吃辣", "我倒不讨厌加班": the dislike denied
    if neg_pref:
        obj = re.sub(r"^(?:就是|是)", "", _clean(neg_pref.group(1), True)) or _zh_fronted_object(c, neg_pref.start())
        obj = re.sub(r"(?<=.)(?:这种事情?|这件事|这类事情?|这种东西)$", "", obj)
        if obj and not re.match(r"^(?:你|这|那|什么|死了|东西$|啥)", obj):
            add(_Raw("dislikes", obj))
        m = re.search(rf"(?:{_ZH_LIKE})({_ZH_STOP}+)", c[:neg_pref.start()])  # "我喜欢爬山不喜欢游泳"
        if m and not re.match(r"^(?:你|这|那|什么|自己)", m.group(1)):
            add(_Raw("likes", _clean(m.group(1), True)))
    else:
        m = re.search(rf"最喜欢的{_ZH_STOP}{{1,4}}是({_ZH_STOP}+)", c) \
            or re.search(rf"(?:我的|最大的)?爱好(?:是|就是)({_ZH_STOP}+)", c)
        if m:
            add(_Raw("likes", _clean(m.group(1), True)))
        else:
            m = re.search(rf"(?:{_ZH_LIKE})({_ZH_STOP}*)", c)
            if m and c[:m.start()].endswith("不"):
                m = None  # "我不是不喜欢吃辣" says no more than that
            if m and re.search(rf"我|^[^，,]{{1,6}}{_ZH_DEGREE}(?:{_ZH_LIKE})|^{_ZH_DEGREE}(?:{_ZH_LIKE})", c):
                obj = _clean(m.group(1), True)
                if not obj or re.fullmatch(r"[吃喝玩看听]|得(?!.*的是).*", obj):  # "川菜我很爱吃", "我对桌游喜欢得不得了"
                    obj = _zh_fronted_object(c, m.start())
                if obj and not re.match(r"^(?:你|这|那|什么|自己|就|的话|吗|么|不)", obj):
                    add(_Raw("likes", obj))
    m = re.match(rf"^(?![我你他她这那])(?P<obj>{_ZH_STOP}{{2,10}}?)(?:这种事情?|这件事|这类事)?(?:真的|实在|简直|总是|每次都|都|就)*"
                 rf"(?:让我|令我|使我|叫我)(?:很|特别|非常|超级|有点)?(?:崩溃|抓狂|头疼|头大|受不了|心烦|烦躁|难受|反感|恶心|"
                 rf"火大|窒息|无语)", c) \
        or re.match(rf"^(?![我你他她这那])(?P<obj>{_ZH_STOP}{{2,10}}?)(?:对我来说|对我而言|于我)(?:真的|实在|简直)?"
                    rf"(?:太|很|特别|非常|超级)?(?:痛苦|折磨|煎熬|难熬|受罪|要命)", c)
    if m and not neg_pref and _zh_topic_ok(m.group("obj"), when) and not re.search(r"今天|现在|这次|刚才|昨天", c):
        add(_Raw("dislikes", m.group("obj")))  # "挤地铁真的让我崩溃", "早起对我来说太痛苦了"
    m = re.match(rf"^(?![我你他她这那])(?P<obj>{_ZH_STOP}{{1,8}}?)(?:我|对我来说)?(?:真的|实在|是|可|完全|真|也|都)*"
                 rf"(?:不行|不可以|不太行)(?:[了啊呀]*)$", c)
    if m and not neg_pref and _zh_topic_ok(m.group("obj"), when) and not re.search(r"今天|现在|这次|暂时|得$", m.group("obj")):
        add(_Raw("dislikes", m.group("obj")))
    m = re.match(rf"^(?P<time>{_ZH_STOP}{{0,6}}?)我?(?:从来不|从不|一般不|基本不|很少|尽量不|向来不|一律不)"
                 rf"(?:安排|约|开|排)(?:任何)?(?:的)?(?:会议|会)", c)
    if m:  # "周一早上我从来不安排会议": meetings at that time are disliked
        add(_Raw("dislikes", f"{m.group('time')}开会"))
    else:  # "周末我从来不回工作消息": a habit of never doing something, with its time or topic
        m = re.match(rf"^(?P<topic>{_ZH_STOP}{{0,6}}?)我?(?:都|也)?(?:从来不|从不|向来不|一律不|坚决不)"
                     rf"(?P<vp>(?![吃喝碰沾]){_ZH_STOP}{{2,10}})", c)
        if m and not re.search(r"[你他她]", m.group("topic")) and (
                m.group("topic") or not re.match(r"[坐住订用买看去]", m.group("vp"))):
            add(_Raw("dislikes", f"{m.group('topic')}{_clean(m.group('vp'), True)}"))
    m = re.search(rf"我(?:是|算是)(?:个|一个)?(?:资深|重度|忠实)?的?({_ZH_STOP}{{1,6}}?)(?:控|迷|爱好者|发烧友|铁粉|党)(?:吧|啦)?$", c)
    if m and not re.search(r"[我你他她]", m.group(1)):
        add(_Raw("likes", m.group(1)))
    m = re.search(rf"对({_ZH_STOP}{{1,10}}?)(?:一点|一丁点)?(?:兴趣)?(?:都|也)?(?:不感兴趣|没(?:有)?(?:什么|啥)?兴趣|不太感兴趣|"
                  rf"兴趣不大)", c) or re.search(rf"对({_ZH_STOP}{{1,10}}?)(?:一点|一丁点)?兴趣(?:都|也)没有?", c)
    if m:
        add(_Raw("dislikes", _clean(m.group(1), True)))
    else:
        m = re.search(rf"对({_ZH_STOP}{{1,10}}?)(?:很|特别|非常|超级|挺|比较)?(?:感兴趣|有兴趣|情有独钟|着迷)", c)
        if m:
            add(_Raw("likes", _clean(m.group(1), True)))
    for pattern, predicate in _ZH_SIMPLE_PREFERENCES:
        m = pattern.search(c)
        if m:
            obj = _clean(m.group("obj"), True)
            if not any(r.predicate == predicate and r.object.endswith(obj) for r in out):
                add(_Raw(predicate, obj))

    # decisions
    rejections = _ZH_REJECT + (f"|{_ZH_REJECT_IN_DECISION}" if re.search(_ZH_DECIDED, whole) or project else "") \
        + ("|不做|不搞|不开发|砍掉" if project else "")
    for m in re.finditer(rf"(?:{rejections}|(?<=决定)不(?:搞|办|做|去|买|用|要|请|订|租)了?)({_ZH_STOP}+)", c):
        obj = re.sub(r"^(?:买|用|选|订|租|要)(?=.)", "", _clean(m.group(1), True))
        obj = re.sub(r"的$", "", obj)
        if re.search(r"(?:总算|终于|再也|可以|能)$", c[:m.start()]):
            continue  # "总算不用合租了": relief, not a rejection
        if obj and not _ZH_NOT_AN_OPTION.match(obj):
            add(_Raw("decision", obj, polarity="negative"))
    m = re.match(r"^(?:我们|我|那|那就)?(?:把)?(?![我你他她这那谢])([^把被，,。！!？?]{1,10}?)(?:就|也|被)?(?:给)?"
                 r"(?:否了|否掉了?|毙了|毙掉了?|淘汰了|排除了?|pass了|pass掉了?|砍了|枪毙了)(?:吧|啊)?$", c)
    if m and not _ZH_NOT_AN_OPTION.search(m.group(1)) and not re.search(_ZH_PEOPLE + r"|老板|领导|客户|他们", m.group(1)):
        add(_Raw("decision", _clean(m.group(1), True), polarity="negative"))
    m = re.match(rf"^({_ZH_STOP}{{1,8}}?)(?:这次|这期|这回|今年|就|也|先|暂时)*不考虑(?:了|啦|吧|$)", c)
    if m and not _ZH_NOT_AN_OPTION.search(m.group(1)):
        add(_Raw("decision", m.group(1), polarity="negative"))
    elif project or re.search(_ZH_DECIDED + r"|用|定在|选", whole):
        m = re.match(rf"^(?:这个|那个|这块|这部分)?(?![我你他她这那谢])({_ZH_STOP}{{2,10}}?)(?:那个方案|这个方案|那个|这个|那家|这家|方案)?"
                     rf"(?:这期|这次|这回|今年|就|也|先|还是|暂时)*(?:不用|不要|不选|不上|算了|免了|pass掉?|砍掉|去掉|别用|别选|不要用|"
                     rf"不做)(?:了|吧|啊|哈)*(?=$|太|就|，|,)", c)
        if m and not _ZH_NOT_AN_OPTION.search(m.group(1)) and not find_times(m.group(1), when):
            add(_Raw("decision", m.group(1), polarity="negative"))
    m = re.search(rf"把({_ZH_STOP}{{1,8}}?)(改到|挪到|换到|调到|改在|定在)({_ZH_STOP}{{2,10}}?)(?:吧|了)?$", c)
    if m and project and not re.search(r"不|别|没", c) and not find_amounts(m.group(3)) \
            and not re.search(_ZH_BUDGET_CUE, m.group(1)):  # "要把周会改到周二上午": a decision about the project
        add(_Raw("decision", "".join(m.groups())))
        return out
    m = re.search(r"((?:方案)?[\w\u4e00-\u9fff]{1,6}?)(?:(?:和|与|、|及)((?:方案)?[\w\u4e00-\u9fff]{1,6}?))?(?:均|都|也|则)?"
                  r"(?:不予采纳|不予考虑|不予采用|不采纳|被否决?了?|予以否决)", c)
    if m:  # "方案A和方案B均不予采纳"
        for option in filter(None, m.groups()):
            add(_Raw("decision", re.sub(r"^(?:而|但)", "", option), polarity="negative"))
    # one option kept and one dropped side by side: "川西小环线定了，青甘大环线不去了", "数据库选PostgreSQL，MongoDB就不用了"
    if re.search(rf"(?:^|[，,]){_ZH_STOP}{{2,10}}?(?:这期|这次|这回|今年|就|也|先|暂时|还是)*不(?:{_ZH_PARALLEL_VERBS})了?"
                 rf"(?:吧|啦)?(?:[，,。]|$)", whole) and (project or re.search(_ZH_DECIDED + r"|选|用", whole)):
        m = re.match(rf"^(?![我你他她这那])({_ZH_STOP}{{2,10}}?)(?:这期|这次|这回|今年|就|也|先|暂时|还是)*不"
                     rf"(?:{_ZH_PARALLEL_VERBS})了?(?:吧|啦)?$", c)
        if m and not _ZH_NOT_AN_OPTION.search(m.group(1)) and not find_times(m.group(1), when):
            add(_Raw("decision", re.sub(r"(?<=..)(?:那个方案|这个方案|那个|这个|那家|这家)$", "", m.group(1)),
                     polarity="negative"))
        m = re.match(rf"^(?![我你他她这那])({_ZH_STOP}{{2,10}}?)(?:就|先|还是|只)+(?:{_ZH_PARALLEL_VERBS})(?:吧|了)?$", c) \
            or re.match(rf"^(?![我你他她这那])(?:{_ZH_STOP}{{0,6}}?)(?:就|先|还是|只|都|也|最后|最终)*(?:定了(?:去|用|选|买)?|{_ZH_PARALLEL_VERBS})"
                     rf"(?![了过])({_ZH_STOP}{{2,12}}?)(?:吧|了)?$", c) \
            or re.match(rf"^(?![我你他她这那])({_ZH_STOP}{{2,12}}?)(?:就|也|最后|最终)?(?:定了|定下来了|敲定了)$", c)
        if m and not re.search(r"不|别|没", c) and not _ZH_NOT_AN_OPTION.match(m.group(1)) \
                and not re.search(_ZH_SLOT_WORDS, m.group(1)):
            add(_Raw("decision", _clean(m.group(1), True)))
            return out
    comp = re.search(rf"(?:{_ZH_CHOOSE}|选|用|要|上)(?P<yes>{_ZH_STOP}{{1,12}}?)[，,]?(?:而不是|而非|不是|不用|不选|不要)"
                     rf"(?:用|选|要)?(?P<no>{_ZH_STOP}{{1,12}}?)(?:了|吧|啊)?$", c)
    if comp and (project or re.search(_ZH_DECIDED, whole)) and not re.search(r"^(?:我|我们)?(?:不是|没)", c):
        yes, no = _clean(comp.group("yes"), True), _clean(comp.group("no"), True)
        if not _ZH_NOT_AN_OPTION.match(yes) and not _ZH_NOT_AN_OPTION.match(no):
            if not any(r.predicate == "decision" and r.object == no for r in out):
                add(_Raw("decision", no, polarity="negative"))
            add(_Raw("decision", yes))
            return out
    m = re.search(rf"(?:{_ZH_CHOOSE}{'|就上|改成|换成|改为' if project else ''})({_ZH_STOP}+?)(?:吧|了|$)", c)
    if m and (find_times(m.group(1), when) or find_amounts(m.group(1))):
        m = None  # "上线时间改成六月底" moves a date, "预算改成四万" is a budget
    if not m:
        m = re.search(rf"按(?!这个|那个|你说的|我说的|刚才)({_ZH_STOP}+?)(?:执行|来)", c)
    if not m and project:  # "选B方案吧", "那就定周三吧"
        m = re.match(rf"^(?:那|那就|就|还是|最后)?(?:选|定|用)(?!下来|好了|不了)({_ZH_STOP}{{1,12}}?)(?:吧|了)$", c)
    if not m and (project and re.search(_ZH_DECIDED + r"|定了|定好了", whole)):  # "定下来了，酒店选希尔顿"
        m = re.match(rf"^(?![我你他她这那])(?:(?![不没别要想该])[\u4e00-\u9fff]){{1,4}}?(?:就|最后|最终|还是)?(?:选|用|定)"
                     rf"(?:了|的是|在)?(?!下来|好了)({_ZH_STOP}{{2,12}}?)(?:吧|了)?$", c)
        if m and _ZH_NOT_AN_OPTION.match(m.group(1)):
            m = None
    if not m and re.search(r"就它了|就这个了|就这么定了|就这样定了|拍板了|敲定了|定了", whole):  # "就它了，方案C"
        m = re.match(r"^(方案[\w\u4e00-\u9fff]{1,4}|[A-Za-z][\w .+#-]{0,20})(?:吧)?$", c)
    if not m and (project or re.search(rf"{_ZH_REJECT}|不考虑", whole)):  # "支付先只接微信支付，银联就不考虑了"
        m = re.search(rf"(?:先|就|暂时)?只(?:用|接|做|上|支持|保留|选)({_ZH_STOP}+?)(?:吧|了|$)", c)
    if not m and project and re.search(rf"{_ZH_REJECT}|不要|不考虑", whole):  # "不要黑色的，换拉丝不锈钢的"
        m = re.match(rf"^(?:那就|就|还是)?换(?!成用)(?:成)?({_ZH_STOP}{{2,12}}?)(?:的)?(?:吧|了)?$", c)
    if m and not re.search(r"决定不", c):
        change = "evolution" if re.search(r"改成|换成|改用|换用|改选", c) else None
        obj = _clean(m.group(1), True)
        if re.search(r"用", m.group(0)):  # "决定用飞书做协作": the tool, not its purpose
            obj = re.sub(r"(?<=..)(?:来做|来|做|作为)[\u4e00-\u9fff]{2,4}$", "", obj)
            obj = re.sub(r"(?<=[A-Za-z0-9])(?:来|去)?(?:存|放|跑|管|写|搭|部署|托管|发|收|做|开)[\u4e00-\u9fff]{1,4}$", "", obj)
        add(_Raw("decision", obj, change=change))
    else:
        m = re.match(r"^[\u4e00-\u9fff]{0,8}用([A-Za-z][\w .+#-]*?)(?:了)?$", c)
        if m and project and not re.search(r"(?:别|不要|不)用", c):
            add(_Raw("decision", m.group(1).strip()))
        m = re.match(rf"^(?:(?:改|换|就|还是|而是|那就|直接|统一)?(?:用|订|选)|(?:直接|改|换|统一)上)({_ZH_STOP}{{2,20}}?)(?:吧|了)?$", c)
        if m and re.search(r"(?:不|别|不要)用|否了|否掉|算了|不考虑|pass", whole) \
                and not re.search(r"(?:别|不要|不)用", c):  # "不用钉钉，用企业微信", "Airbnb就否了，还是订酒店"
            add(_Raw("decision", _clean(m.group(1), True)))
        m = re.match(r"^(方案[\w\u4e00-\u9fff]{1,4}|(?!(?i:ok|okay|yes|no|fine|good|sure)(?![A-Za-z]))[A-Za-z][\w .+#-]{0,20}?)"
                     r"(?:吧|好了|算了吧)$", c)
        if m and project and not c.endswith("算了吧"):  # "方案A吧，B太贵了"
            add(_Raw("decision", m.group(1).strip()))
        m = re.search(r"(?:定了|拍板了|敲定了)[，,]\s*(?:就|用|选|就用|就选)(" + _ZH_STOP + "+)", whole)
        if m and re.match(r"(?:就|用|选)", c) and not find_times(m.group(1), when):  # "物流定了，就顺丰"
            add(_Raw("decision", _clean(m.group(1), True)))

    # "用Flutter还是原生开发" is still open
    out[:] = [r for r in out if not (r.predicate == "decision" and re.search(r"(?<=.)还是(?=.)|[吗呢]$", r.object))]
    for i, r in enumerate(out):  # "用Figma做设计稿", "还是用回MySQL": the tool, not its purpose
        if r.predicate == "decision":
            obj = re.sub(r"^回(?=[A-Za-z\u4e00-\u9fff]{2})", "", r.object)
            obj = re.sub(r"^[\u4e00-\u9fff]{1,4}(?:那边|这边|方面|这块)(?=.)", "", obj)  # "住宿那边Airbnb就否了"
            obj = re.sub(r"(?<=[A-Za-z0-9])(?:来|去)?(?:做|作为|存|放|跑|管|写|搭|部署|托管|发|收|开|重写|重构|实现)[\u4e00-\u9fff]{0,5}$",
                         "", obj)
            obj = re.sub(r"(?<=[\u4e00-\u9fff]{2})(?:来)?(?:做|负责|搞)[\u4e00-\u9fff]{2,4}$", "", obj)  # "顺丰做物流"
            if re.match(r"[A-Za-z][A-Za-z0-9.+#-]+[\u4e00-\u9fff]", obj):  # "用Vite打包": the tool, not its use ("A区" stays)
                obj = re.sub(r"(?<=[A-Za-z0-9.])[\u4e00-\u9fff]{1,5}$", "", obj)
            if obj != r.object:
                out[i] = dataclasses.replace(r, object=obj)

    # budget
    budget_cue = re.search(_ZH_BUDGET_CUE, c) or (
        re.search(r"预算|上限|封顶", whole) and not re.match(r"不|没", c)
        and re.fullmatch(rf"(?:大概|大约|差不多|约)?{_ZH_STOP}{{1,10}}?(?:左右|以内|之内|上下)?(?:就行|就好|吧)?", c)
        and find_amounts(c)
        and find_amounts(c)[0][0] <= 2 + len(re.match(r"^(?:现在|目前|只有|只剩|就|还有|总共|一共)*", c).group(0)))
    # "定了个预算，一千五百欧元", "预算砍了一半，现在只有两万"
    if budget_cue and not re.search(_ZH_NOT_A_BUDGET, c):
        amt = _zh_budget_amount(c)
        if amt is not None:
            add(_Raw("budget_limit", _amount_obj(amt), value=amt.to_json()))

    # todo
    todo = _zh_todo(c, whole, when)
    if todo:  # "发到我邮箱 a@b.cn": the address says whose it is
        add(_Raw("todo", re.sub(r"我的?(?:邮箱|信箱|手机|手机号)\s*(?=[\w.+-]+@|\+?\d)", "", todo)))
    else:
        m = re.search(rf"(?:打算|准备|计划)({_ZH_STOP}+)", c)
        if m and not any(r.predicate == "budget_limit" for r in out):
            obj = re.sub(r"^(去|到)?(?:一趟|一次|一下)", r"\1", _strip_times(m.group(1), when))
            add(_Raw("plan", _trim_measure(re.sub(r"(?:的|了|吧)+$", "", obj).strip(" ，,。"))))
        elif (trip := _zh_future_trip(c, when)) and not any(r.predicate == "budget_limit" for r in out):
            add(_Raw("plan", trip))
        else:
            modal = re.search(_ZH_MODALS, c) and not any(r.predicate == "budget_limit" for r in out) and find_times(c, when)
            plan = (_zh_timed_plan(c, when) if modal else None) or (_zh_dated_event(c, when) if not out else None)
            if plan:  # "下周三我们要做版本评审", "我们月底开一次复盘会"
                add(_Raw("plan", plan))

    # works_at
    m = re.search(rf"(?:跳槽到|跳槽去)了?({_ZH_STOP}+)", c)
    if m:
        add(_Raw("works_at", _clean(m.group(1), True), change="evolution"))
    elif re.search(r"已经不在|离职|辞职|离开了|换工作|换了工作|跳槽|跳的槽|换了家公司", whole) \
            and (m := re.search(rf"现在在({_ZH_STOP}+?)(?:上班|工作)?(?:了|啦)?$", c)):
        add(_Raw("works_at", _clean(m.group(1), True), change="evolution"))
    else:
        m = re.search(rf"(?:我|^)(?:现在|目前|还|一直|已经|是)*在((?!家|这|那|公司){_ZH_STOP}+?)(?:上班|工作|做|当|任职|干了)", c)
        if m:
            named = re.match(r"^(?:一家|一个|家)(?:叫|名叫|名字叫)(.{2,12}?)的(?:公司|单位|企业|机构|工作室|医院|学校|银行)$",
                             m.group(1))
            later = re.search(r"^(?:一家|一个|家)[\u4e00-\u9fff]{0,4}$", m.group(1)) and re.search(
                rf"{re.escape(c)}[，,]\s*(?:公司)?(?:叫|名叫|名字叫)({_ZH_STOP}{{2,12}}?)(?:[，,。]|$)", whole)
            add(_Raw("works_at", named.group(1) if named else later.group(1) if later else m.group(1)))  # "…，叫西门子"
        m = re.match(rf"^我是({_ZH_STOP}{{2,8}}?)的({_ZH_STOP}{{0,6}}(?:经理|工程师|员工|老师|医生|护士|主管|总监))", c)
        if m:
            add(_Raw("works_at", m.group(1)))

    # pet
    for pet in _zh_pets(c, whole):
        add(_Raw("pet", pet))

    # commute
    commute = _zh_commute(c, whole)
    if commute:
        add(commute)
    return out


_ZH_VEHICLE = (r"(?:地铁)?[0-9一二三四五六七八九十]{1,3}号线|地铁|公交车?|巴士|大巴|班车|出租车|的士|网约车|滴滴|高铁|火车|轻轨|轮渡|渡轮|共享单车|电动车|电瓶车|"
               r"小电驴|电驴|摩托车?|自行车|单车|滑板车|车|[A-Z]{2,5}(?![a-z])")
_ZH_COMMUTE_CONTEXT = r"上下班|上班|去公司|去单位|到公司|通勤"


def _zh_commute(clause: str, whole: str) -> _Raw | None:
    """How the user gets to work: a means of transport in a clause about getting to work ("上班我一直骑共享单车",
    "下周起上班改坐地铁", "平时坐地铁"), Chinese as said without 坐/乘/搭 ("地铁", "骑电动车", "开车")."""
    m = re.search(rf"(?:通勤|上下班|上班)(?:主要|基本|全|都|一般)?(?:靠|用|是|就是|方式是)(?:坐|乘|搭)?"
                  rf"(?P<v>(?:骑|开)?(?:{_ZH_VEHICLE})|步行|走路|骑车|开车|打车)", clause)
    if m and not re.search(r"太(?:贵|堵|挤|远|累|慢)|不想|不方便|今天|明天|这周", clause):  # "我通勤靠公交"
        return _Raw("commute", "开车" if m.group("v").startswith("开") else m.group("v"))
    m = re.search(r"(?:公司|单位|学校)(?:离家)?(步行|走路|骑车|开车)(?:就能到|就到|就行|[\u4e00-\u9fff]{1,3}分钟)", clause)
    if m:  # "公司走路就能到"
        return _Raw("commute", m.group(1))
    m = re.search(rf"(?<![不没别])(?:(?:坐|乘|搭|骑|开|打|挤)着?(?:公司|单位|学校|园区)?的?(?:{_ZH_VEHICLE})|步行|走路|骑车|开车|打车)",
                  clause) \
        or re.search(rf"(?<=换成|改成|改为)(?:{_ZH_VEHICLE})", clause) \
        or re.search(rf"(?<![在A-Za-z])(?:{_ZH_VEHICLE})(?=通勤|上下班|上班)", clause)
    if not m or re.search(r"太(?:贵|堵|挤|远|累|慢)|不想|不方便", clause):
        return None
    in_context = re.search(_ZH_COMMUTE_CONTEXT, clause) \
        or (re.match(r"^(?:我)?(?:平时|每天|一般)", clause[:m.start()]) and not re.search(_ZH_LIKE, clause)) \
        or (re.search(r"通勤|上班", whole) and re.search(r"换成|改成|改", clause[:m.start() + 1])) \
        or re.search(r"改(?:坐|乘|搭|骑|开)(?:公司|单位|学校|园区)?的?(?:班车|地铁|公交车?|电动车|自行车)了?$", clause)
    if not in_context:
        return None
    obj = re.sub(r"^(?:坐|乘|搭|挤)着?|的", "", m.group(0))
    obj = "开车" if obj.startswith("开") else obj
    change = "evolution" if re.search(r"改成|换成|改(?:坐|骑|开|乘|搭|打)", clause) else None
    return _Raw("commute", obj, change=change)


_ZH_NOT_A_TOPIC = re.compile(r"^(?:也|都|还|就|可|又|一点|一口|一滴|完全|根本|真的|实在|今天|今晚|现在|这顿|这次|暂时|"
                             r"晚上|中午|早上|最近)+$")


def _zh_topic_ok(topic: str, when: datetime) -> bool:
    """Whether a fronted topic ("羊肉也不吃", "坐船我不行") names a thing, not an adverb or a time."""
    return bool(topic) and not _ZH_NOT_A_TOPIC.match(topic) and not find_times(topic, when)


def _zh_fronted_object(clause: str, verb_at: int) -> str:
    """The topic fronted before a preference verb: "海鲜倒是很喜欢" -> 海鲜, "奶茶我不爱喝" -> 奶茶."""
    head = clause[:verb_at]
    m = re.match(rf"^(?:我|本人)?对({_ZH_STOP}{{1,8}}?){_ZH_DEGREE}$", head)  # "我对榴莲无感"
    if m:
        return m.group(1)
    m = re.match(r"^(.{1,6}?)(?:是|就是)?我", head)
    if m:
        return m.group(1)
    head = re.sub(rf"{_ZH_DEGREE}$", "", head)
    return head if 1 <= len(head) <= 6 and not re.search(r"[我你他她]", head) else ""


_ZH_IMPERSONAL = r"(?:下雨|下雪|降温|升温|刮风|变天|涨价|降价|放假|停电|停水)"
_ZH_LIGHT_VERBS = r"(?:做|搞|进行|开展|举行|举办|安排)"
_ZH_MODALS = r"(?:要|(?:(?<=[我们就还也都天午上晚末周])|^)得|必须|需要|将|会(?!议))"  # 得 as "must", not 累得不行


def _zh_future_trip(clause: str, when: datetime) -> str | None:
    """A future time and 去 + a place or errand: "下个月去日本玩" -> 去日本玩. A past time or 了/过 is an anecdote."""
    times = find_times(clause, when)
    if not times or times[0][2].start.date() <= when.date():
        return None
    body = _strip_times(clause, when)
    m = re.match(rf"^(?:我们|我|咱们)?(?:就|也|还)?(?:会|要)?去(?!了|过)(?P<vp>{_ZH_STOP}{{2,12}})$", body)
    if not m or re.search(r"了|过|哪|什么|吗|呢|好不好|怎么", m.group("vp")):
        return None
    return "去" + _trim_measure(re.sub(r"(?:吧|呢|啊)+$", "", m.group("vp")))


def _zh_timed_plan(clause: str, when: datetime) -> str | None:
    """An intention with a time: "下周三我们要做版本评审" -> 版本评审, "周五要去4S店保养车" -> 去4S店保养车,
    "设计稿下周五前必须定稿" -> 设计稿定稿. Promises (我会…) are todos and handled before."""
    body = _strip_times(clause, when)
    m = re.match(rf"^(?P<topic>{_ZH_STOP}{{0,6}}?)(?:我们|我|咱们)?(?:都|也|就)?{_ZH_MODALS}(?P<vp>{_ZH_STOP}+)", body)
    if not m or re.search(r"[你他她不没]", m.group("topic")):
        return None
    if re.search(r"别|不要|尽量|不能|不用", m.group("vp")) or re.search(r"一般|通常|经常|平时|每", m.group("topic")):
        return None  # "以后开会尽量别约在周一早上" asks for something not to happen
    vp = re.sub(rf"^{_ZH_LIGHT_VERBS}(?:一[次个场下])?", "", m.group("vp"))
    vp = _trim_measure(re.sub(r"(?:的|了|啦|吧|呢|啊)+$", "", vp).strip())
    if not vp or len(vp) > 16 or re.match(_ZH_IMPERSONAL, vp) or re.search(r"天气|气温", m.group("topic")):
        return None
    topic = re.sub(r"(?:我们|我|咱们)?(?:一定|必须|肯定|都|也|就)*$", "", m.group("topic")).strip(" ，,")
    topic = re.sub(r"^(?:前|之前|以前|之内)", "", topic)
    return f"{topic}{vp}" if topic and not re.search(r"^(?:那|就|然后|之后|以后)", topic) else vp


# what can follow a date to make a schedule entry: "5月18日安排灰度发布", "下周五发测试版"
_ZH_SCHEDULED = (r"(?:安排|举行|举办|进行|开(?!心|始)|发(?!烧|现)|上线|提交|交|发布|评审|演示|见|飞|回|出发|搬家|考试|面试|体检|复查|"
                 r"团建|聚餐|验收|交付|开会|开工|签约|答辩|汇报|出差|彩排|排练|演出|比赛|培训|路演|发布会|年会|婚礼|聚会|"
                 r"上课|开学|放假|出发|返程|装修|进场|试营业|开业|考核|复盘|评估|开一次|开个)")


def _zh_dated_event(clause: str, when: datetime) -> str | None:
    """A clause that opens with a future date and goes straight on to what happens then: the plan."""
    clause = re.sub(r"^(?:我们|咱们|我)", "", clause)  # "我们月底开一次复盘会"
    times = find_times(clause, when)
    if not times or times[0][0] != 0 or times[0][2].start < when.replace(hour=0, minute=0, second=0, microsecond=0):
        return None
    body = _strip_times(clause, when)
    if not re.match(_ZH_SCHEDULED, body) or re.search(r"[了过吗呢？?]|[你他她]", body) or not 2 <= len(body) <= 12:
        return None
    return re.sub(rf"^{_ZH_LIGHT_VERBS}", "", body) or None


def _trim_measure(obj: str) -> str:
    """Drop a bare measure word inside a verb phrase: 打个电话 -> 打电话, 参加一个行业峰会 -> 参加行业峰会."""
    obj = re.sub(r"(?<=[\u4e00-\u9fff])(?:一个|一场|一次|一趟|一下)(?=[\u4e00-\u9fff])", "", obj)
    obj = re.sub(r"(?<=[去来回])趟(?=[\u4e00-\u9fff])", "", obj)
    obj = re.sub(r"(?<=[打开洗做写买订约吃睡见拍剪理考办换修配请租找交学报搞看听喝逛补])个(?![税人体性子])(?=[\u4e00-\u9fff])", "", obj)
    return re.sub(r"[吗呢吧嘛]$", "", obj)


_ZH_ANIMAL = (r"[\u4e00-\u9fff]{0,3}?(?:猫|狗|犬|兔子?|鹦鹉|八哥|仓鼠|龙猫|豚鼠|荷兰猪|乌龟|龟|金鱼|鱼|蜥蜴|刺猬|"
              r"金毛|柯基|泰迪|哈士奇|二哈|萨摩耶|拉布拉多|边牧|比熊|博美|雪纳瑞|德牧|阿拉斯加|雪橇犬|"
              r"布偶|英短|美短|暹罗|加菲|蓝猫|狸花)(?:猫|犬|狗|咪)?")
_ZH_PET_CONTEXT = re.compile(r"养|领养|收养|领了|领回|抱回|捡了|捡回|接回|带回|我家|家里|我们家|有只|有条|我有[一两三四几]只|我有[一两三]条")
_ZH_PET_NAME = r"(?:[，,]\s*)?(?:它|他|她)?(?:叫|名叫|名字叫|取名叫?|起名叫?)(?P<name>[\u4e00-\u9fffA-Za-z0-9]{1,6})"


# a counted animal; a bare measure word needs a verb or 有 before it ("领了只三花猫", "还有只鹦鹉")
_ZH_COUNT = r"(?:(?:[一两三四]|几)|(?<=[了有养领捡抱]))(?:只|条|头|匹)"
_ZH_COUNTED_ANIMAL = re.compile(rf"{_ZH_COUNT}(?P<animal>{_ZH_ANIMAL})")


def _zh_pets(clause: str, whole: str) -> list[str]:
    """The user's pets named in a clause: "养了一只布偶猫叫年糕" -> 布偶猫（年糕）, "我家金毛叫旺财" -> 金毛（旺财）,
    "领回来一只橘猫" -> 橘猫. The turn must say the animal is the user's (养, 领养, 我家 …)."""
    if not _ZH_PET_CONTEXT.search(whole) or re.search(r"(?:不|没|别|不能|不敢)养", clause):
        return []
    out = []
    for m in re.finditer(rf"{_ZH_COUNT}(?P<animal>{_ZH_ANIMAL})(?:{_ZH_PET_NAME})?", clause):
        out.append(_zh_pet(m.group("animal"), m.group("name"), whole))
    for m in re.finditer(rf"(?:^|(?<=[，,、和]))(?:我家|家里|我们家)?(?:的)?(?P<animal>{_ZH_ANIMAL})(?:{_ZH_PET_NAME})", clause):
        if not any(f"（{m.group('name')}）" in p for p in out):  # "布偶猫叫年糕": an animal named in a list of pets
            out.append(_zh_pet(m.group("animal"), m.group("name"), whole))
    if not out:
        m = re.search(rf"(?:我家|家里|我们家|养的)(?:的|有|养的)?(?P<animal>{_ZH_ANIMAL})(?:{_ZH_PET_NAME})", clause) \
            or re.search(rf"养了?(?:只|条)?(?P<animal>{_ZH_ANIMAL})(?:{_ZH_PET_NAME})?", clause)
        if m:
            out.append(_zh_pet(m.group("animal"), m.group("name"), whole))
    if not out:  # "养了一只柯基，叫豆豆", "两只狗 一只叫豆豆一只叫球球": the names in the next clause
        names = re.findall(r"(?:^|(?<=[\u4e00-\u9fff]))(?:另一只|另一条|一只|一条|大的|小的|老大|老二)?(?:它|他|她)?"
                           r"(?:叫|名叫|名字叫)([\u4e00-\u9fffA-Za-z0-9]{1,6}?)(?=另一|一只|一条|大的|小的|老二|$)", clause)
        whole_names = re.fullmatch(r"(?:(?:另一只|另一条|一只|一条|大的|小的|老大|老二)?(?:它|他|她)?(?:叫|名叫|名字叫)"
                                   r"[\u4e00-\u9fffA-Za-z0-9]{1,6}?)+", clause)
        at = whole.find(clause)
        counted = [p for p in _ZH_COUNTED_ANIMAL.finditer(whole) if p.end() <= at] if names and whole_names else []
        if counted:  # the last animal counted before the clause: "养了两只猫，一只叫大橘，一只叫小白"
            return [_zh_pet(counted[-1].group("animal"), name) for name in names]
    return out


def _zh_pet(animal: str, name: str | None, whole: str = "") -> str:
    animal = re.sub(r"^(?:可爱的|小)", "", animal)
    kind = re.search(rf"是(?:一)?(?:只|条)(?P<kind>{_ZH_ANIMAL})", whole) if animal in _GENERIC_ANIMALS else None
    if kind and kind.group("kind") not in _GENERIC_ANIMALS:
        animal = kind.group("kind")  # "我家狗狗叫旺财，是只柴犬" -> 柴犬（旺财）
    return f"{animal}（{name}）" if name else animal


_BARE_REMINDER = re.compile(r"(?:记得提醒我|帮我记|提醒我|记)(?:一下|着|下)?(?:吧|哈)?")


def _next_to_bare_reminder(clause: str, whole: str) -> bool:
    """Whether ``clause`` sits right before or after a bare "提醒我一下"/"帮我记一下" clause of ``whole``."""
    parts = [x.strip() for x in re.split(r"[，,。！!；;：:]|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])", whole) if x.strip()]
    for i, part in enumerate(parts):
        if part == clause:
            near = parts[i - 1:i] + parts[i + 1:i + 2]
            return any(_BARE_REMINDER.fullmatch(n) for n in near)
    return False


def _zh_todo(c: str, whole: str, when: datetime) -> str | None:
    m = re.search(r"叫我(起床|起来)", c)
    if m and find_times(c, when) or re.search(r"(?:早上|明早|明天早上)[^，,。]{0,6}叫我(?:起床|起来)", c):
        return "起床"  # "明早八点叫我起床": a wake-up call
    if re.search(r"提醒我|记得|别忘了|帮我记|别让我忘|不要让我忘", c) or (
            _BARE_REMINDER.search(whole) and _next_to_bare_reminder(c, whole)
            and (re.search(r"^[^我，,]{0,6}要(?!我)", c) or find_times(c, when))):
        body = _strip_times(c, when)
        body = re.sub(r"^.*?(?:提醒我一下|提醒我|记得|别忘了|帮我记一下|帮我记着|帮我记|别让我忘了|不要让我忘了)", "", body)
        body = re.sub(r"^(?:提醒我|帮我|要)", "", body.strip(" ，,"))
        body = re.sub(r"^.*?要", "", body) if "要" in body[:4] else body
        body = _trim_measure(_clean(body, True))
        return _ba(body) or None
    if re.search(r"帮我", c) and find_times(c, when):
        body = _strip_times(c, when)
        body = re.sub(r"^.*?帮我", "", body)
        return _ba(_clean(body, True)) or None
    m = re.match(r"^(?P<obj>(?![我你他她这那今明后每])[\u4e00-\u9fffA-Za-z0-9]{2,8}?)我(?P<rest>.+)$", c)
    if m and (find_times(m.group("rest"), when) or re.match(r"今晚|今天|回头|晚点|待会", m.group("rest"))):
        # "接口文档我今晚补齐": the object put first
        v = re.fullmatch(r"(?:会|就|来|去|要|得)?([\u4e00-\u9fff]{1,3})", _strip_times(m.group("rest"), when))
        if v and not re.search(r"[了过吗呢吧不没]", v.group(1)):
            return v.group(1) + m.group("obj")
    m = re.search(rf"我(?:{_ZH_STOP}{{0,6}})?会(?!议)({_ZH_STOP}+)", c)
    if m and (find_times(c, when) or re.search(r"今晚|今天", c)):
        return _ba(_clean(_strip_times(m.group(1), when), True)) or None
    m = re.match(rf"^我(?:{_ZH_STOP}{{0,6}}?)(?:回头|待会儿?|等会儿?|晚点|马上|稍后|一会儿?)?(把{_ZH_STOP}{{1,12}}?(?:发|给|传|转|寄)(?:给)?你)",
                 _strip_times(c, when))
    if m and (find_times(c, when) or re.search(r"回头|待会|等会|晚点|马上|稍后|一会|今晚|今天", c)):  # "我回头把文件发你"
        return _ba(re.sub(r"(发|传|转|寄)你$", r"\1给你", m.group(1))) or None
    m = re.match(rf"^我(?:{_ZH_STOP}{{0,4}}?)(?:会|要|得|就)?(把{_ZH_STOP}{{1,10}}?[\u4e00-\u9fff]{{1,2}}(?:好|完|掉|齐|出来))$",
                 _strip_times(c, when))
    if m and (find_times(c, when) or re.search(r"今晚|今天|回头|待会|晚点", c)):  # "我明天把脚手架搭好"
        return re.sub(r"(?:好|完|掉|齐|出来)$", "", _ba(m.group(1))) or None
    return None


def _ba(body: str) -> str:
    """"把合同打印出来" -> "打印合同", "把报表交上去" -> "交报表": the verb before its object, without the direction
    or result after it."""
    m = re.fullmatch(rf"把(.+?)({_ZH_VERB2}|[\u4e00-\u9fff])(完|好|给你|给我|{_ZH_RESULT})?", body)
    if m:
        return m.group(2) + ("完" if m.group(3) == "完" else "") + m.group(1)
    return body


# common two-character verbs, so that "把合同打印出来" splits before 打印 and not before 印
_ZH_VERB2 = (r"打印|复印|扫描|发送|提交|上交|整理|准备|检查|修改|更新|上传|下载|补齐|补完|填写|填好|确认|预约|取消|续费|归还|"
             r"退还|转发|打包|签署|签好|翻译|打扫|清理|收拾|寄出|寄给|送去|取回|办理|处理|报销|备份|删除|写完|做完|改完|交齐")
# direction and result complements after the verb: 出来, 上去, 掉, 齐
_ZH_RESULT = r"出来|出去|上去|上来|下来|下去|起来|回来|回去|过去|过来|进去|掉|齐|一下"


def _amount_obj(amt: Amount) -> str:
    return str(amt)


# ---------------------------------------------------------------- English rules

_EN_STOP = r"(?:[^,.;!?]|\.\u2060)"  # a title's dot ("Dr.\u2060Patel", see _raw_facts) does not stop a phrase
_EN_NAME_STOP = r"(?:[^,.;!?]|\.(?=\w))"  # names may hold dots: Fly.io, Node.js
_EN_DISLIKE = ("hate|dislike|can't stand|cannot stand|can't bear|cannot bear|detest|loathe|despise|don't like|"
               "do not like|don't enjoy|do not enjoy|really don't like|never enjoy|don't really like|can't deal with|don't much like|"
               "don't particularly like|can't be doing with|can't be bothered with|never liked|"
               "can't handle|can't do|don't do|don't care for|do not care for|avoid like the plague")
# liking something, after "I" (or with "I" left out: "Love sushi")
_EN_LIKE = ("like|love|enjoy|prefer|adore|dig|fancy|really like|really love|absolutely love|can't get enough of|"
            "live for|(?:'m|am) (?:a )?(?:total |huge |big |massive |real |complete )?(?:sucker|fan) (?:for|of)|"
            "(?:'m|am) (?:really |totally |very |so |a bit )?(?:into|crazy about|mad about|nuts about|obsessed with|"
            "passionate about|fond of|partial to|all about|hooked on)")
# foods and drinks: abstaining from one of them is a diet, from anything else a dislike
_EN_FOOD = re.compile(
    r"\b(?:meat|red meat|beef|pork|lamb|mutton|veal|chicken|poultry|fish|seafood|shellfish|prawns?|shrimp|crab|"
    r"lobster|oysters?|dairy|milk|cheese|butter|eggs?|gluten|wheat|bread|carbs|sugar|sweets|chocolate|caffeine|"
    r"coffee|tea|alcohol|booze|beer|wine|spirits|soda|fizzy drinks|nuts|peanuts|soy|tofu|spicy food|spice|"
    r"chilli|chili|garlic|onions?|mushrooms?|fried food|junk food|fast food|processed food|pasta|rice|bacon|ham|"
    r"sausages?|offal|coriander|cilantro|espresso|lattes?|cappuccinos?|decaf|matcha|energy drinks?|juice|cola|coke|"
    r"sweeteners?|lactose|cream|yogh?urt|ice cream|cake|crisps|chips|raw fish|sashimi|sushi)s?\b", re.I)
# a fronted subject the user complains about: "Open-plan offices drive me up the wall"
_EN_A_NO_FROM_ME = re.compile(r"^(?:anything with |anything that has )?([\w' -]{2,30}?)(?: is| are|'s) (?:a (?:hard )?no (?:from|for) (?:me|us|this one)|"
                              r"a (?:hard|firm|big) no)\b",
                              re.I)
_EN_GETS_TO_ME = r"(?:weirds?|creeps?|grosses?|freaks?) me out|bores? me(?: to tears| stiff| silly)?|stress(?:es)? me out|winds? me up|gets? on my nerves|gets? to me|bugs? me|annoys? me|irritates? me|"
_EN_DISLIKE_PREDICATE = (_EN_GETS_TO_ME + r"(?:are|is) (?:disgusting|awful|the worst|unbearable|horrible|terrible|a nightmare|gross)\b|"
                         r"(?:drives?|make|makes) me (?:crazy|mad|nuts|insane|up the wall|sick|anxious|nervous|uncomfortable|miserable)\b|(?:is|are) (?:not|n't) (?:my thing|for me)\b|"
    r"(?:isn't|aren't) (?:really |exactly |quite )?(?:my thing|for me|my cup of tea)\b|(?:is|are) (?:a|my) (?:pet peeve|no-go|no go)\b|"
    r"(?:gives?|give) me the creeps\b|(?:is|are) overrated\b|"
                         r"(?:annoys?|irritates?|bugs?) me\b|gets? on my nerves\b|"
                         r"tastes? (?:like soap|awful|horrible|disgusting|terrible|gross)\b")
_EN_TRANSIENT = re.compile(r"\b(?:today|tonight|this morning|this afternoon|right now|at the moment|again)\b", re.I)
# rejecting an option; "decided to skip X" rejects X
_EN_REJECT = ("don't use|do not use|let's skip|let's drop|let's ditch|skip|definitely not|won't be using|not using|"
              "won't be (?:doing|having|taking|booking|going with)|"
              "(?:we're|we are|I'm|I am) not (?:doing|using|taking|renting|buying|hiring|booking|getting)|"
              "not going ahead with|shelve|shelving|let's not (?:use|go with|do|bother with)|decided against|"
              "(?:we |I )?won't (?:use|go with)|not gonna (?:use|go with)|veto|vetoed|"
              "(?:we're|we are|I'm|I am) (?:dropping|ditching|scrapping|dumping|shelving|axing|binning)|"
              "no need for|(?:\\b(?:we|let's|we'll) |^)(?:drop|ditch|scrap|dump)(?! (?:the kids|him|her|them|me|off|by|in)\\b)|rule out|ruled out|get rid of|"
              "move away from|decided (?:to )?(?:skip|drop|ditch|scrap|cancel|pass on|not (?:to )?(?:use|go with|do))|"
              "(?:won't|will not|aren't|are not|not) going with|pass on|"
              "(?:we've |we have |we )(?:scrapped|ditched|dropped|dumped|axed|binned|nixed|vetoed|rejected|"
              "turned down|passed on|killed off|shelved)(?! (?:by|off|in|into|out|over|round|around|to|my|our)\\b)|not (?:using|choosing|picking|buying|getting|booking)|"
              "(?:we're|we are|I'm|I am) not going to (?:use|go with)|"
              "decided (?:not to|to not) (?:buy|get|book|take|hire|rent|order)")
# the past-tense rejections above, also for the user alone once a project is discussed
_EN_REJECT_PROJECT = r"(?:I've |I have |I )(?:scrapped|ditched|axed|binned|nixed|vetoed|rejected)(?! my\b)"
# choosing an option in the past tense: "we opted for X", "I went with Y"
_EN_CHOSE = (r"(?:\b(?:I|we|I've|we've|I have|we have)\s+(?:finally |eventually |ultimately |just |already |have )?"
             r"(?:went with|gone with|picked|chose|chosen|opted for|selected|landed on|plumped for|locked in|"
             r"committed to|signed off on)(?! (?:up|by|off|in|out|to|my|our|his|her|their|him|them|me|us|friends|family)\b)|\bfinal answer(?: is|:|'s)|\bthe (?:decision|plan|call|verdict) "
             r"(?:is|was) to (?:use|go with|adopt)|\b(?:we(?:'ll|'re| will| are)?|let's|I'll) (?:go|going) for|"
             r"\bwe(?:'ll| will) (?:take|adopt)|\b(?:we're|we are|I'm|I am) (?:gonna|going to) (?:use|go with|adopt)|"
             r"\b(?:we'll |we will |let's |I'll |I will )stick to|\b(?:we |I |we've |I've |team )agreed on|"
             r"\b(?:we're|we are) (?:switching|moving) (?:over )?to|\b(?:let's |we'll |we will )switch (?:over )?to|"
             r"\bended up (?:going for|going with|choosing|picking|using|with))")
# "X over Y", "X instead of Y", "X rather than Y": X chosen, Y rejected
_EN_COMPARATIVE = re.compile(r"^(?P<yes>.+?) (?:instead of|rather than|over|in place of|in favou?r of) "
                             r"(?:using |going with )?(?:the |an? )?(?P<no>.+)$", re.I)
_EN_ANIMAL = (r"dog|cat|puppy|kitten|rabbit|bunny|parrot|budgie|hamster|guinea pig|tortoise|turtle|goldfish|"
              r"fish|snake|lizard|ferret|horse|pony|beagle|greyhound|terrier|spaniel|retriever|labrador|lab|poodle|"
              r"collie|dachshund|husky|corgi|pug|whippet|lurcher|tabby|ragdoll|siamese|bearded dragon|gecko|axolotl|"
              r"chinchilla|cockatiel|canary|gerbil|rat|mouse|hedgehog|iguana|chameleon|tarantula|hen|chicken|duck|"
              r"shih tzu|schnauzer|dalmatian|chihuahua|labradoodle|cockapoo|cavapoo|cavalier|maine coon|sphynx|moggy|"
              r"mutt|pup|kitty|staffy|staffie|jack russell|sheepdog|bulldog|frenchie|rottweiler|doberman|shiba|"
              r"samoyed|malamute|pomeranian|yorkie|budgerigar|cockatoo|macaw|parakeet|rescue dog|rescue cat")
_EN_PET_VERBS = (r"got|have|adopted|own|rescued|picked up|took in|brought home|welcomed|got ourselves|got myself|"
                 r"just got|fostered")
_EN_PET_PAIR = re.compile(rf"(?:\b(?:I've got|I have|we have|we've got|my|our|and) |^)(?:two|three|2|3) (?:[\w-]+ )*?"
                          rf"({_EN_ANIMAL})(?:e?s)?(?: at home| at the moment| now)?(?:,| are called| are named| called| named) "
                          r"([A-Z]\w+) and ([A-Z]\w+)", re.I)
# the slots a project decision fills ("the venue is X", "our database will be Y")
_EN_DECISION_SLOT = (r"venue|vendor|supplier|provider|database|db|stack|framework|platform|host|hosting|location|caterer|"
                     r"tool|pick|choice|winner|frontend|backend|cloud|CRM|CMS|agency|contractor|theme")
_COMMUTE_VERBS = {"drive": "driving", "walk": "walking", "cycle": "cycling", "bike": "cycling",
                  "run": "running"}


def _gerund(verb_phrase: str) -> str:
    """"work from home" -> "working from home" (the first word as its -ing form)."""
    first, _, rest = verb_phrase.partition(" ")
    low = first.lower()
    if low.endswith("ie"):
        ing = low[:-2] + "ying"
    elif low.endswith("e") and not low.endswith(("ee", "ye", "oe")):
        ing = low[:-1] + "ing"
    elif re.fullmatch(r"[^aeiou]*[aeiou][bdgmnprt]", low) and len(low) <= 4:
        ing = low + low[-1] + "ing"
    else:
        ing = low + "ing"
    return f"{ing} {rest}".strip()


_CONTACT_WAYS = {"text": "texting", "email": "email", "message": "messaging", "whatsapp": "WhatsApp", "dm": "DMs"}


# what an employer written in lower case ends with
_EN_ORG_NOUNS = (r"council|university|hospital|bank|school|college|library|museum|ministry|agency|clinic|surgery|trust|"
                 r"foundation|institute|company|studio|labs?|airport|police|county|district")


def _en_rules(clause: str, whole: str, when: datetime, project: bool = False) -> list[_Raw]:  # noqa: C901
    out: list[_Raw] = []
    c = clause.strip()
    add = out.append
    flags = re.I

    # lives_in
    m = re.search(rf"\b(?:moved|relocated)(?: house| flat| home)?(?: from [A-Z][\w' -]*?)? to ({_EN_STOP}+)", c, flags) \
        or re.search(rf"\bmoved into (?:a |the |our |my )?(?:new )?(?:flat|house|place|apartment|home|condo) in ({_EN_STOP}+)",
                     c, flags)
    if m:
        add(_Raw("lives_in", _en_place(m.group(1), when), change="evolution"))
    elif re.search(r"moved house", whole, flags) and (m := re.search(r"^now in (.+)", c, flags)):
        add(_Raw("lives_in", _clean(m.group(1), False), change="evolution"))
    else:
        m = re.search(rf"\b(?:(?:I|we) (?:still |now |currently |actually )?(?:live|reside) (?:out |over |down |up )?"
                      rf"(?:in|near|around|(?:just )?(?:outside(?: of)?|north of|south of|east of|west of|close to))|"
                      rf"(?:I'm|I am|we're|we are) (?:now |currently |still )?(?:living|residing|settled) (?:in|near)|"
                      rf"(?:I've|we've|I have|we have) (?:been living|lived) in(?= {_EN_STOP}+ (?:for|since) )|"
                      rf"(?:we're|we are) based (?:in|out of)|(?:I'm|I am) (?:down|up|out|over) in(?= [A-Z])|"
                      rf"our (?:flat|house|home|place|apartment)(?:'s| is) in|I'm based (?:in|out of)|"
                      rf"^home(?:'s| is)(?: in)?(?= [A-Z])|"
                      rf"I am based in|home is {_EN_STOP}* in|my (?:flat|house|home|place|apartment|flat)(?:'s| is) in)"
                      rf" ({_EN_STOP}+)", c, flags) \
            or re.search(r"\b(?:I'm|I am|[Ww]e're|[Ww]e are) (?:now |currently )?in ([A-Z][\w'-]*(?: [A-Z][\w'-]*)*)", c)
        if m and (re.search(r"\b(?:this (?:week|weekend|month)|for (?:the|a|two|three|a few|a couple of) (?:week|weekend|"
                            r"days?|nights?|months?|years?)|on (?:holiday|vacation|a trip|business)|for work|visiting|"
                            r"for (?:a|an|the|my) (?:conference|wedding|meeting|trip|visit|holiday|funeral|course|gig|match|"
                            r"event|interview|workshop|show|festival|job interview|hen do|stag do)|"
                            r"until|till|back in|in (?:19|20)\d\d)\b", c, flags)
                  and not re.search(r"\b(?:since|for the (?:past|last))\b", c, flags)
                  or re.match(r"(?:each other|family|friends|work|the office|here|there|us|you|them)\b", m.group(1), flags)):
            m = None  # a trip, a past stay or no place: "We're in Rome on holiday", "we live near each other"
        if m:
            add(_Raw("lives_in", _en_place(m.group(1), when),
                     change="evolution" if re.search(r"moved house|\bmoved\b", whole, flags) else None))

    # name
    m = re.search(rf"\b(?:call me|calls me|I go by|address me as|my name is|I'm called|^name's|^name is|"
                  rf"(?:I'd|I would) (?:rather|prefer to|like to) be (?:addressed as|called)|I prefer to be (?:addressed as|called)|"
                  rf"I prefer being (?:addressed as|called)) ({_EN_STOP}+?)"
                  rf"(?:\.(?!\u2060)|,|\?|$| please| too| as well)", c + ".", flags)
    if m and re.search(r"\b(?:don't|do not|never|not|stop|nobody|no one|no-one) (?:call|calls|calling|address) me\b",
                       c[:m.end()], flags):
        m = None
    if m and not re.search(r"my name(?:'s| is)", c, flags) or (m and "go by" not in whole):
        name = _clean(m.group(1), False)
        caps = re.match(r"^(?-i:[A-Z])[\w.'-]*(?:[ \u2060](?:(?-i:[A-Z])[\w.'-]*|de|van|von|da|di|le|la|del))*", name)
        add(_Raw("name", caps.group(0) if caps else name))
    m = re.match(r"^(?:I )?(?:prefer|I'd prefer) (?:to be called |being called )?((?:Mr|Ms|Mrs|Miss|Mx|Dr|Prof)\.?[ \u2060]"
                 r"(?-i:[A-Z])[\w'-]+)", c, flags)
    if m:
        add(_Raw("name", m.group(1)))
    name_ok = re.match(r"^(?:[Bb]ut |[Jj]ust )?([A-Z][\w.]*(?: [A-Z][\w.]*)?) (?:is fine|will do|works)\b", c) \
        if re.search(r"\bI'm (?:Dr\.? |Mr\.? |Ms\.? |Mrs\.? )?[A-Z]|\bcalls? me\b|\bname\b", whole) else None
    if name_ok:
        add(_Raw("name", name_ok.group(1)))  # "I'm Dr. Oyelaran at work, but Tunde is fine here"

    # allergy
    m = re.search(rf"\b(?:allergic to|allergy to) ({_EN_STOP}+)", c, flags)
    if m:
        obj = _clean(m.group(1), False)
        if obj.lower() in ("them", "it"):
            obj = _antecedent(whole)
        if obj:
            add(_Raw("allergy", obj))
    elif re.fullmatch(r"(?:(?:I'm|I am|am) )?allergic", c.strip(" .!"), flags) \
            and (m := re.match(r"^(?:no |not )?([\w -]{2,20}?)\s*(?:[-–—,:]|$)", whole, flags)) \
            and not _antecedent(whole) and not re.search(r"\ballergic\b", m.group(1), flags):
        add(_Raw("allergy", m.group(1).strip()))
    elif re.search(r"\bI'm allergic\b", c, flags) or re.fullmatch(r"(?:(?:I'm|I am|am|so|yeah) )?(?:actually |very |"
                                                                   r"super |really )?allergic", c.strip(" .!"), flags):
        obj = _antecedent(whole)
        if obj:
            add(_Raw("allergy", obj))
    elif m := re.match(r"^([\w -]{2,25}?) (?:makes?|gives?|brings?) me (?:break out|come out|out in|hives|a rash|rashes|"
                       r"itch|itchy|swell|sneeze|wheezy|an allergic reaction)", c, flags):
        add(_Raw("allergy", m.group(1).lower()))  # "Penicillin makes me break out in hives"
    else:
        m = re.match(r"^(\w+(?: \w+)?) allergy\b", c, flags) \
            or re.search(r"\b(?:have|got|has) an? (?:severe |mild |bad |serious )?([\w-]+(?: [\w-]+)?) allergy\b", c, flags)
        if m:
            add(_Raw("allergy", m.group(1).lower()))
        elif re.search(r"\bit's an allergy\b|\bI'm allergic\b", whole, flags) and (obj := _antecedent(c)):
            add(_Raw("allergy", obj))

    # diet
    m = re.search(r"\b(?:I'm|I am|I've been|I have been|I went|I've gone|I became) (?:a |an |now |fully |strictly |"
                  r"mostly |been )*(vegan|vegetarian|pescatarian|lactose intolerant|coeliac|celiac)\b", c, flags)
    if m and "intolerant" not in m.group(1):
        add(_Raw("diet", m.group(1).lower()))
    m = re.search(r"\bI(?: keep| eat| do| go| stay| follow|'m| am|'ve been| have been| went| became) "
                  r"(?:a |an |strictly |mostly |fully |completely )*"
                  r"(halal|kosher|gluten-free|dairy-free|sugar-free|low-carb|keto|paleo|plant-based)\b", c, flags) \
        or re.search(r"\b(?:I'm|I am) doing (keto|paleo|low-carb|intermittent fasting|Whole30|the 5:2)\b", c, flags) \
        or re.search(r"\bI (?:follow|stick to|keep to|eat|am on|'m on) (?:a |the )?(?:strict |mostly )?([\w-]{3,20}) diet\b", c,
                     flags) \
        or re.search(r"\b(?:I'm|I am) on (?:a |the )?(keto|paleo|low-carb|gluten-free|plant-based|vegan|vegetarian|"
                     r"Mediterranean|carnivore|FODMAP|low-FODMAP)(?: diet)?\b", c, flags)
    if m:
        add(_Raw("diet", m.group(1).lower()))
    m = re.fullmatch(r"(?:I )?(?:I'm |am |fully |strictly |mostly )*(vegetarian|vegan|pescatarian|gluten[- ]free|dairy[- ]free|"
                     r"halal|kosher|keto|paleo|plant-based)(?: diet)?(?: btw| since \d{4}| now| these days| please| only)*",
                     c.strip(" .!"), flags)
    if m:
        add(_Raw("diet", re.sub(r"\s+", "-", m.group(1).lower())))
    m = re.search(r"\bswitched to (?:a |an )?(?:fully |strictly |completely |mostly )?([\w-]+) diet\b", c, flags)
    if m:
        add(_Raw("diet", m.group(1).lower(), change="evolution"))
    m = re.search(rf"\bI (?:don't|do not|never|can't|cannot|won't) (?:eat|drink|touch) ({_EN_STOP}+)", c, flags) \
        or ((m2 := re.match(r"^(?:so |and )?no (\w+(?: \w+)?(?:(?:,| or) \w+(?: \w+)?)*) for me\b", c, flags))
            and _EN_FOOD.search(m2.group(1)) and m2) \
        or _bare_no_food(c)
    if m and re.fullmatch(r"(?:anymore|any more|at all|these days|now|much)", _clean(m.group(1), False) or "anymore",
                          flags):
        m = None
    if m:
        add(_Raw("diet", _clean(m.group(1), False), polarity="negative"))
    elif re.search(r"\bI (?:don't|do not|never|no longer) drink(?: anymore| any more| at all| these days)?$", c, flags):
        add(_Raw("diet", "alcohol", polarity="negative"))
    else:  # "I'm off dairy", "gave up sugar", "Pork's a no for me": a diet for food and drink, else a dislike
        m = re.search(rf"\bI(?:'m| am) (?:off|avoiding|cutting out|staying off|laying off) ({_EN_STOP}+)", c, flags) \
            or re.search(rf"\bI(?:'m| am)? (?:just |always |usually )?(?:(?:tend|try|trying) to )?(?:avoid|stay away from|steer clear of|stay off|keep off)"
                         rf" ({_EN_STOP}+)", c, flags) \
            or re.search(rf"\b(?:I(?:'ve| have)? )?(?:given up|gave up|quit|cut out|stopped eating|stopped drinking)"
                         rf" ({_EN_STOP}+)", c, flags) \
            or re.match(r"^([\w -]{2,30}?)(?:'s| is| are) (?:a no|a hard no|off the menu|off limits|a no-go) for me\b", c,
                        flags) \
            or re.match(r"^no ([\w' -]{2,30}?) for me\b", c, flags) \
            or re.match(r"^(?:and )?(?:please,? no|no more) ([\w' -]{2,30}?)(?:,? please)?$", c, flags)
        if m and not re.match(r"(?:worries|problem|rush|thanks|idea|clue|way|need|one|more)\b", m.group(1), flags):
            obj = _en_strip_time_words(_clean(m.group(1), False), when)
            if _EN_FOOD.search(obj):
                add(_Raw("diet", obj, polarity="negative"))
            elif re.search(r"for me\b|\b(?:avoid|stay away from|steer clear of)\b|^(?:and )?(?:please,? no|no more) ", c,
                           flags):
                add(_Raw("dislikes", obj))
    if re.search(r"\b(?:I'm|I am|I've been|I have been|I went|I've gone) (?:a |fully )?(?:teetotal|teetotaller|teetotaler|"
                 r"sober|tee-total)\b", c, flags):
        add(_Raw("diet", "alcohol", polarity="negative"))

    # a way to be reached: "Text me rather than calling"
    m = re.match(r"^(?:please |just |always )?(text|e-?mail|message|whatsapp|dm) me\b.*?\b(?:rather than|instead of|not)\b", c,
                 flags)
    if m:
        add(_Raw("likes", _CONTACT_WAYS[m.group(1).lower().replace("-", "")]))
    # likes / dislikes
    m = re.search(rf"\bI (?:really |absolutely |just |truly |honestly )?(?:{_EN_DISLIKE}) ({_EN_STOP}+)", c, flags) \
        or re.search(rf"\b(?:never|don't|do not) (?:put|book|seat|give|get) me (?:in |on |into |with )?(?:an? |the )?"
                     rf"({_EN_STOP}+)", c, flags) \
        or re.search(rf"\bI'm (?:really |just )?not (?:really |that |very |too |so |much of )?(?:a (?:big |huge )?fan of|keen on|"
                     rf"into|big on|fussed on) ({_EN_STOP}+)", c, flags) \
        or re.search(rf"\bI(?:'m| am|'ve| have) (?:really |just |honestly )?(?:no (?:big |great |huge )?fan of|"
                     rf"never (?:really )?liked|not (?:very |that |too |overly )?fond of|no time for|"
                     rf"never (?:really )?been (?:a (?:big |huge )?fan of|into|keen on)) ({_EN_STOP}+)", c, flags) \
        or re.search(r"\bI'm not (?:a |an )?(?:big |huge |great )?(\w+) (?:drinker|eater)\b", c, flags) \
        or (not _EN_TRANSIENT.search(c)
            and re.match(rf"^(?:the )?([\w' -]{{2,30}}?) (?:{_EN_DISLIKE_PREDICATE})", c, flags)) \
        or (not _EN_FOOD.search(c) and _EN_A_NO_FROM_ME.match(c)) \
        or (re.match(r"^(?:anything with|anything that has) ", c, flags) and _EN_A_NO_FROM_ME.match(c))
    if not m and not _EN_TRANSIENT.search(c):  # "I find small talk exhausting"
        m = re.search(r"\bI (?:always |really |just )?find ([\w' -]{2,30}?) (?:really |so |very |quite |a bit |pretty )?"
                      r"(?:exhausting|draining|tedious|boring|annoying|irritating|unbearable|stressful|overwhelming|"
                      r"awkward|pointless|a chore|a drag|a pain)\b", c, flags)
    if m:
        add(_Raw("dislikes", re.sub(r"^it when ", "", _clean(m.group(1), False), flags=flags)))
    m = re.search(rf"\bI never (?!eat|drink)\w+ ({_EN_STOP}+)", c, flags)
    if m:
        add(_Raw("dislikes", _clean(m.group(1), False)))
    m = re.search(rf"\bI(?: really| absolutely| just| do)? ?(?:{_EN_LIKE}) ({_EN_STOP}+)", c, flags) \
        or re.match(rf"^nothing beats ({_EN_STOP}+)", c, flags) \
        or re.search(r"\bI'm (?:a |an )(?:big |huge |real |serious |massive |keen )?(\w+) (?:drinker|lover|eater|fanatic|"
                     r"enthusiast|addict|nerd|buff)\b", c, flags) \
        or re.match(r"^([\w' -]{2,30}?) (?:is|are) my (?:absolute |all-time |total |number one )?(?:jam|favourite|favorite|"
                    r"fave|go-to|guilty pleasure)\b", c, flags) \
        or re.match(rf"^(?:my )?(?:absolute |all-time )?(?:favourite|favorite|fave) [\w ]{{1,20}}? (?:is|are|has to be) ({_EN_STOP}+)",
                    c, flags) \
        or re.match(r"^give me (?:an? |the )?([\w' -]{2,30}?) over\b", c, flags) \
        or re.search(rf"\bI'm a (?:big |huge )?fan of ({_EN_STOP}+)", c, flags) \
        or re.match(r"^(\w+(?: \w+)?) (?:is|are) my thing", c, flags) \
        or re.search(rf"\bI(?:'ll|'d| will| would)? always (?:sit in|take|book|choose|pick|order|go for|pay for|ask for) ({_EN_STOP}+)", c,
                     flags) \
        or re.search(r"\bI (?:go|head) (?:to )?(?:the )?([\w -]{2,30}?) (?:every|each|most) (?:day|morning|evening|night|"
                     r"week|weekend|Saturday|Sunday|Monday|Tuesday|Wednesday|Thursday|Friday)s?\b", c, flags) \
        or re.search(rf"\bI (?:always|usually|normally) (?:do|play|go for|start (?:the|my) day with) ({_EN_STOP}+)", c,
                     flags) \
        or re.search(r"\bI'd take (?:the |a )?(\w+(?: \w+)?) over\b", c, flags) \
        or re.search(rf"\bI'd (?:much )?rather (?:go|fly|take|have|get|book|sit in) (?:the |a |an )?({_EN_STOP}+)", c, flags) \
        or re.search(rf"\bI'm (?:really |very |quite |pretty |super )?big on ({_EN_STOP}+)", c, flags) \
        or re.search(rf"\bI(?:'m| am) in the habit of ({_EN_STOP}+)", c, flags) \
        or re.match(rf"^(?:my )?go-to(?: [\w-]+)? (?:is|has to be) (?:an? |the )?({_EN_STOP}+)", c, flags) \
        or re.search(rf"\bI'm (?:really |totally |very )?into ({_EN_STOP}+)", c, flags) \
        or re.search(r"\bI(?:'d| would) (?:much )?prefer (?!to\b|being\b|it\b|that\b|not\b|if\b)(?:an? |the )?"
                     r"([\w' -]{2,30}?)(?= on | for | when | if |$)", c, flags)
    rather = re.search(r"\bI(?:'d| would) (?:much )?rather (work|stay|eat|walk|cycle|drive|cook|train|read|study|sleep|"
                       r"swim|run|travel)\b( [\w' -]{1,30})?$", c, flags) if not m else None
    if rather:  # "I'd rather work from home" -> working from home
        add(_Raw("likes", _gerund(rather.group(1) + (rather.group(2) or ""))))
    rather_not = re.search(r"\bI(?:'d| would) (?:much )?rather not (fly|drive|cook|travel|work|eat|drink|go|walk|cycle)\b"
                           r"( [\w' -]{1,30})?$", c, flags) if not m else None
    if rather_not:  # "I'd rather not fly" -> flying
        add(_Raw("dislikes", _gerund(rather_not.group(1) + (rather_not.group(2) or ""))))
    if not m and (how := re.search(r"\bI (?:usually |always |normally |just )?(?:take|drink|have|like|order) my (coffee|tea|"
                                   r"steak|eggs|burger|martini|whisky|whiskey) ([a-z]+(?:[ -][a-z]+)?)$", c, flags)):
        add(_Raw("likes", f"{how.group(2)} {how.group(1)}"))  # "I take my coffee black" -> black coffee
    if m and not re.match(r"^(?:that|this|it|your|the new|(?:Mr|Ms|Mrs|Mx|Dr|Prof)\b)", m.group(1), flags) \
            and not re.search(r"\b(?:you|your)\b|\bto (?:work|the office)\b", m.group(1), flags):
        obj = _clean(m.group(1), False)
        obj = re.sub(r"\s+(?:if|as long as|when|than|over|rather than)\b.*$", "", obj, flags=flags)
        if obj:
            add(_Raw("likes", obj))
    m = re.search(r"\bI'm (not )?(?:really |more of |more |definitely |totally |very much |such )?an? (\w+) person\b", c,
                  flags)
    if m and m.group(2).lower() not in ("people", "nice", "good", "private", "practical", "busy", "different"):
        noun = m.group(2).lower()
        add(_Raw("dislikes" if m.group(1) else "likes", noun if noun.endswith("s") else f"{noun}s"))
    m = re.match(r"^(?!so |then |which |and )(?:a |an |the )?([\w -]+?) (?:is|are) (?:fine|ok|okay|acceptable|great)\b", c,
                 flags)
    if m and not re.match(r"^(?:that|this|it|everything|just|but)\b", m.group(1), flags) and not name_ok:
        add(_Raw("likes", m.group(1)))

    # decisions
    neg = re.search(rf"\b(?:{_EN_REJECT})\s+({_EN_STOP}+)", c, flags) \
        or re.match(r"^no ([\w-]+(?: [\w-]+)?) for (?:this|the) project", c, flags) \
        or (re.search(r"\b(?:use|go with|going with|went with|picked|pick|chose|choose|decision|decided|host|deploy|"
                      r"opted|settled)\b", whole, flags)
            and re.match(r"^not (?:the |an? )?((?-i:[A-Z]|[a-z]+[A-Z])[\w.-]+(?: [\w-]+){0,2})$", c, flags)) \
        or re.match(rf"^(?:the |an? )?({_EN_NAME_STOP}{{1,30}}?)(?: is| are|'s) (?:off the table|not an option|a no-go)\b", c,
                    flags) \
        or (re.search(r"\b(?:use|go with|going with|decided|picked|choose|chose)\b", whole, flags)
            and re.match(rf"^(?:the |an? )?({_EN_NAME_STOP}{{1,30}}?)(?: is| are|'s) (?:out|ruled out|scrapped|dropped|"
                         rf"shelved|dead)\b", c, flags)) \
        or (re.search(r"\b(?:picked|chose|went with|going with|go with|opted for|settled on|booked|bought|got)\b", whole,
                      flags)
            and re.match(r"^not (?:the|an?) ([a-z][\w-]*(?: [\w-]+){0,2})$", c, flags))
    if not neg and project:
        neg = re.search(rf"{_EN_REJECT_PROJECT}\s+({_EN_STOP}+)", c, flags) \
            or re.match(rf"^(?:the |an? )?({_EN_NAME_STOP}{{1,30}}?) (?:is|are) (?:out|ruled out|scrapped|dropped|"
                        rf"shelved|dead|a no|not happening|vetoed)\b(?! of\b)", c, flags)
    opts = re.match(r"^(?:and |but )?(Option|Plan|Proposal|Version)s? (\w+)(?:,? and |, )(\w+) (?:are|were) (?:rejected|out|dropped|"
                    r"ruled out|off the table)\b", c, flags)
    if opts:  # "Options 1 and 3 are rejected"
        for n in opts.group(2, 3):
            add(_Raw("decision", f"{opts.group(1).capitalize()} {n}", polarity="negative"))
        return out
    if neg:
        obj = _en_strip_time_words(_clean(neg.group(1), False), when)
        obj = re.sub(r"\s+(?:here|for now|for this project|idea|option|plan|approach|route)$", "", _clean(obj, False),
                     flags=flags)
        if _PRONOUN_OBJECT.match(obj):
            neg, obj = None, ""  # "we'll skip it": the option is in another clause
        swap = re.match(r"^(.+?) (?:for|in favou?r of) (?:the |an? )?(.+)$", obj, flags)
        if not obj:
            pass
        elif swap and (re.search(r"\b(?:use|using|skip)\b", neg.group(0), flags)
                       or re.match(r"(?:v\d|version|now|launch|release|the (?:launch|release|MVP|beta))", swap.group(2), flags)):
            add(_Raw("decision", swap.group(1), polarity="negative"))  # "let's not use Zendesk for onboarding"
        elif swap and not re.search(r"\b(?:pass on|rule out|ruled out|no need for)\b", neg.group(0), flags):
            add(_Raw("decision", swap.group(1), polarity="negative"))  # "we ditched Jira for Linear"
            add(_Raw("decision", swap.group(2), change="evolution"))
        else:
            add(_Raw("decision", obj, polarity="negative"))
    m = re.search(r"\bswitch(?:ed|ing)? (?:(?:the|our|my) [\w-]+(?: [\w-]+)? )?from [\w. -]+? to ([\w. -]+)", c, flags)
    if m and _en_commute(c) is None:  # "I switched from driving to the train for work" is a way to work
        add(_Raw("decision", _en_strip_time_words(_clean(m.group(1), False), when), change="evolution"))
    m = re.search(rf"\b(?:I've decided on|we've decided on|decided on|going with|go with|let's use|we'll use|"
                  rf"we will use|keeping|decided to|let's go for|stick with|sticking with|opt for|opting for|"
                  rf"settled on|(?:^|\bwe |\blet's |\bwe'll |\band |\bwe're |\bwe are )(?:move|migrate|moving|migrating) "
                  rf"(?:everything |it all |it |the \w+ |our \w+ )?(?:over )?to|"
                  rf"\bI'm (?:moving|migrating) (?:everything|it all|it|the \w+|our \w+) (?:over )?to|"
                  rf"\b(?:we'll|we will|let's|we're going to|we are going to) (?:just )?(?:host|deploy|run|build|ship) "
                  rf"(?:(?:it|them|everything|the \w+|our \w+) )?(?:on|with)|{_EN_CHOSE}) "
                  rf"({_EN_NAME_STOP}+)", c, flags)
    if not m and not neg and project:
        one = re.match(r"^(?:decision|decided|verdict|final decision|the call)\s*[:-]\s*(no |not )?(?:the )?(.+)$", c, flags)
        if one and re.match(r"(?:yet|pending|tbd|tbc|none|nothing|not sure|unclear)\b", one.group(2), flags):
            one = None
        if one:  # "Decision: Postgres", "Decided: no mobile app this quarter"
            obj = _clean(_en_strip_time_words(one.group(2), when), False)
            add(_Raw("decision", obj, polarity="negative" if one.group(1) else "positive"))
            return out
        one = re.match(r"^(?:nah,? |so |ok,? |right,? )?(?:forget|scratch|bin|kill) (?:about )?(?:the )?(.+)$", c, flags)
        if one and not _PRONOUN_OBJECT.match(one.group(1)) \
                and not re.search(r"\b(?:for now|for the moment|for the time being|until|budget|deadline)\b", c, flags):
            add(_Raw("decision", _clean(one.group(1), False), polarity="negative"))  # "Nah, forget Heroku"
            return out
        one = re.match(r"^(?:let's |we'll |we will )?(?:swap out|swap|replace) (?:the )?(.+?) (?:for|with) (?:the )?(.+)$", c, flags)
        if one:  # "Swap Mailchimp for Brevo"
            add(_Raw("decision", _clean(one.group(1), False), polarity="negative"))
            add(_Raw("decision", _clean(one.group(2), False), change="evolution"))
            return out
        m = re.match(r"^(?:ok,? |right,? |so |then )?((?:the )?[\w.+#-]+(?: [\w.+#-]+){0,3}) it is$", c, flags)
    if not m and not neg and re.search(rf"\b(?:{_EN_REJECT})\s", whole, flags):  # "…not Zendesk — Intercom it is"
        m = re.match(r"^(?:ok,? |right,? |so |then )?((?:the )?[\w.+#-]+(?: [\w.+#-]+){0,3}) it is$", c, flags)
    if not m:  # "get the Kindle rather than the iPad": a comparative makes any choice verb a decision
        m = re.search(r"\b(?:get|getting|buy|buying|take|taking|book|booked|booking|choose|choosing|pick|picking|use|"
                      r"using|order|ordered|rent|hire|went for|go for|going for)\s+((?:the |an? )?[\w.+#-]+(?: [\w.+#-]+){0,3} "
                      r"(?:instead of|rather than) (?:the |an? )?[\w.+#-]+(?: [\w.+#-]+){0,3})$", c, flags)
        if m and not re.match(r"^(?:I|we|let's|I'll|we'll|I'm|we're|I've|we've|so|then|ok|just)\b", c, flags):
            m = None
    if not m and project:  # "Postgres over MySQL." as the whole clause
        m = re.match(r"^(?:let's (?:do|have|take) |so |ok,? )?((?:the )?[\w.+#-]+(?: [\w.+#-]+){0,2} "
                     r"(?:over|instead of|rather than) (?:the )?[\w.+#-]+(?: [\w.+#-]+){0,2})$", c, flags)
    if not m and project:  # "Offsite venue is the Whistler lodge": the option named for a project's slot
        m = re.match(rf"^(?:the |our |my )?(?:[\w-]+ )?(?:{_EN_DECISION_SLOT}) (?:is|will be|'s) (?:going to be )?"
                     rf"(?:(?:locked in|confirmed|booked|sorted|final|decided)\s*[:,—–-]\s*)?"
                     rf"(?:the |an? )?({_EN_NAME_STOP}+)$", c, flags)
    if not m and re.search(rf"\b(?:{_EN_REJECT})\s", whole, flags):  # "Definitely not the Airbnb, book a hotel"
        m = re.match(r"^(?:just |so )?(?:book|use|get|take|pick|choose|go for) (?:a |an |the )?([\w -]+)$", c, flags)
    if m and (re.match(r"(?:whatever|anything|something|what|either|any|which|wrong|right|the flow|my gut)\b", m.group(1),
                       flags)
              or _PRONOUN_OBJECT.match(m.group(1).strip())
              or re.search(r"\b(?:last (?:week|weekend|time|year|month|night|summer|winter|spring|autumn)|yesterday|ago|"
                           r"back then|when I was|used to)\b", c, flags)):
        m = None  # "go with whatever you think" chooses nothing
    if m and not neg:
        obj = _clean(m.group(1), False)
        obj = re.sub(r"^(?:use|using|go with|going with|adopt|adopting) (?:the |an? )?", "", obj, flags=flags)
        obj = re.sub(r"\s+(?:in the end|after all|eventually|at last|finally|for good)$", "", obj, flags=flags)
        obj = re.sub(r"\s+(?:for (?:CI|now|you|this)|for the \w+|for (?:our |the )?\w+ing|for (?:our |the )?"
                     r"(?:payments|hosting|auth|styling|storage|search|analytics|email|logging|monitoring|deploys?|"
                     r"deployment|backend|frontend|testing))\b.*$", "", obj, flags=flags)
        comp = _EN_COMPARATIVE.match(obj)
        if comp:  # "Svelte instead of React": the first chosen, the second rejected
            change = "evolution" if re.search(r"instead of|in place of", obj, flags) else None
            add(_Raw("decision", _clean(comp.group("yes"), False), change=change))
            add(_Raw("decision", _clean(comp.group("no"), False), polarity="negative"))
        else:
            add(_Raw("decision", obj))

    # budget
    if (re.search(r"budget|\bcap(?:ped|ping)?\b|\bspend\b|spending limit|\bunder\b|no more|\btops\b|\bceiling\b|"
                  r"\bmax(?:imum)?\b|at most|\bafford\b|\bbelow\b|\bup to\b|\blimit\b|\bexceed|to play with|to spend\b|"
                  r"set aside|put aside|earmarked|in the kitty|stretch to|no further|no higher|"
                  r"(?:not|n't|never) (?:want to |wanna )?(?:go |spend |pay )?(?:over|above|more than)\b", c, flags)
            or re.search(r", (?:no more|tops)\b|that's (?:the|my|our) (?:ceiling|limit|max)", whole, flags)
            or re.search(r"\b(?:we|I)(?:'ve| have)?(?: got)? (?:about |around |roughly )?\S+(?: \w+){0,2} for (?:the|a|my|our)\b",
                         c, flags)) \
            and (re.search(r"budget", c, flags)
                 or not re.search(r"\bcosts?\b|prices?|how much|\bspent\b|\bpaid\b|\brent\b|\bearn|\bsalary\b|\bowe",
                                  c, flags)):
        amt = _en_amount(c) or _en_bare_limit(c)
        if amt is not None:
            add(_Raw("budget_limit", str(amt), value=amt.to_json()))

    # todo
    m = re.search(rf"\b(?:{_REMIND_ME})\b{_EN_STOP}*?\b(?:to|so (?:that )?I(?: can)?) ({_EN_NAME_STOP}+)", c, flags) \
        or re.search(rf"\b(?:{_REMIND_ME})(?::|{_EN_STOP}*? about)\s*({_EN_NAME_STOP}+)", c, flags) \
        or re.search(rf"^(?:note to self|memo to self|reminder|(?:my )?to-?do)\s*[:,-]\s*({_EN_NAME_STOP}+)", c, flags) \
        or re.search(rf"\bI (?:must|need to|have to|should|'ve got to|gotta) (?:remember|not forget) to ({_EN_NAME_STOP}+)",
                     c, flags)
    if m:
        obj = re.sub(r"\s+(?:by|before|on|at|for)\s*$", "", _en_strip_time_words(m.group(1), when))
        add(_Raw("todo", _clean(obj, False)))
    elif (re.search(r"please remind me|(?:remind|nudge|ping) me(?: about it| please| pls| thanks)?[.!]?$|"
                    r"^(?:and )?don't (?:let me )?forget\b", whole, flags)
          or find_times(c, when)) \
            and (m := re.search(rf"\bI(?: still| really| just)?(?: need to| have to| must| gotta| got to|'ve got to|"
                                rf" have got to) ({_EN_STOP}+)", c, flags)
                 or re.search(rf"^(?:please )?make sure I (?:remember to )?({_EN_STOP}+)", c, flags)):
        obj = re.sub(r"\s+(?:by|before|on|at|for)\s*$", "", _en_strip_time_words(m.group(1), when))
        obj = re.sub(r"\s+(?:by|before|on) the \d{1,2}(?:st|nd|rd|th)\b.*$", "", obj, flags=flags)
        add(_Raw("todo", _clean(obj, False)))  # an obligation to be reminded of, or with a time
    else:
        m = re.search(rf"\bI(?:'ll| will) (?!be \w+ing\b)({_EN_STOP}+)", c, flags) \
            or re.search(rf"\bI (?:promised|told) (?:\w+ )?(?:I'd|I would|to) ({_EN_STOP}+)", c, flags)
        if m and (find_times(c, when) or re.search(r"tonight|today", c, flags)):
            obj = re.sub(r"\s+(?:by|before|on|at|for)\s*$", "", _strip_times(m.group(1), when))
            obj = re.sub(r"^(\w+) (?:you|me) ", r"\1 ", obj)
            add(_Raw("todo", _clean(obj, False)))

    # plan
    m = re.match(r"^(?:the |my |our )?([\w -]+?) is (?:set for |scheduled for |on )?(.+?)$", c, flags)
    times = find_times(m.group(2), when) if m else []
    if m and times and times[0][0] <= 3 and len(m.group(1).split()) <= 4:  # the time right after "is"
        add(_Raw("plan", m.group(1)))

    plan = None
    if (_EN_PLAN_INTENT.search(c) or _EN_PLAN_PROGRESSIVE.search(c)) \
            and not any(r.predicate in ("todo", "commute", "budget_limit") for r in out) and not _en_commute(c) \
            and (find_times(c, when) or (_EN_PLAN_INTENT.search(c) and _EN_VAGUE_FUTURE.search(c))):
        plan = _en_timed_plan(c, when)
    if not plan and find_times(c, when):
        m = re.match(rf"^(?:we|I)(?:'ve| have)?(?: got| have) (?:a |an |the |our |my )({_EN_STOP}+)", c, flags)
        if m and not re.match(r"(?:to|no|nothing)\b", m.group(1), flags):
            plan = _clean(_en_strip_time_words(m.group(1), when), False) or None
    if plan:
        add(_Raw("plan", plan))

    # works_at
    left = re.search(r"\b(?:left|quit|leaving|resigned from|handed in my notice at)\b", whole, flags)
    m = (re.match(r"^(?:and |but )?(?:I'm |I am )?now (?:at|with|working (?:at|for)) ((?-i:[A-Z])[\w&.'-]*(?: (?-i:[A-Z])[\w&.'-]*)*)",
                  c, flags)
         or re.match(r"^(?:and |but |so )?(?:I'm|I am) (?:at|with) ((?-i:[A-Z])[\w&.'-]*(?: (?-i:[A-Z])[\w&.'-]*)*) now\b", c, flags)) \
        if left else None
    if m:
        add(_Raw("works_at", m.group(1), change="evolution"))
    m = None if m else re.search(rf"\b(?:started at|joined|started (?:a new job|a job|working|work) (?:at|for)|new job (?:at|with)) "
                  rf"({_EN_STOP}+?)(?: last \w+| this \w+| yesterday| on \w+| in \w+|$)", c, flags)
    if m:
        add(_Raw("works_at", _clean(m.group(1), False), change="evolution"))
    else:
        m = re.search(rf"\b(?:(?:I'm|I am) (?:still |currently |now )?working (?:for|at)|"
                      rf"I (?:still |currently |now )?work (?:remotely |full-time |part-time |freelance )?"
                      rf"(?:in [\w-]+(?: [\w-]+)? )?(?:for|at)|(?:I'm|I am) an? (?!(?:[\w-]+ ){{0,3}}?(?:fan|sucker|softie|fool)\b)(?:[\w-]+ ){{0,3}}?[\w-]+ (?:at|for)|"
                      rf"(?:I'm|I am) (?:on|in) the (?:[\w-]+ ){{0,3}}?(?:team|department|dept|group) (?:at|of)) "
                      rf"(?:the )?([A-Z]{_EN_STOP}+)", c)
        if m:
            obj = re.sub(r"\s+as an? .*$|\s+(?:now|these days|at the moment|full-time|part-time|since \w+)$", "", m.group(1))
            add(_Raw("works_at", _clean(obj, False)))
        m = None if m else re.match(rf"^(?:I )?work (?:at|for) (?:the )?((?-i:[A-Z]){_EN_STOP}+)", c, flags)
        if not m and (low := re.search(rf"\bI (?:still |currently |now )?work (?:at|for) (?:the )?((?:[a-z][\w&'-]* ){{0,3}}"
                                       rf"(?:{_EN_ORG_NOUNS}))\b", c)):  # "I work at wellington city council"
            add(_Raw("works_at", low.group(1).title()))
        if m:
            add(_Raw("works_at", _clean(re.sub(r"\s+as an? .*$", "", m.group(1)), False)))
        m = None if out and out[-1].predicate == "works_at" else (
            re.search(r"\b(?:[Mm]y (?:employer|company|firm|workplace)(?: is|'s)|I(?:'m| am) (?:employed|hired|contracted) "
                      r"(?:by|at)|I(?:'m| am) on the payroll (?:at|of)) (?:the )?([A-Z][\w&.'-]*(?: [A-Z][\w&.'-]*)*)", c)
            or re.search(r"\bI(?:'ve| have) (?:been|worked) (?:at|for|with) (?:the )?([A-Z][\w&.'-]*(?: [A-Z][\w&.'-]*)*) "
                         r"(?:for (?:the (?:past|last) )?(?:\w+ )?(?:years?|months?|decades?)|since\b)", c)
            if not re.search(r"\b(?:used to|previously|before that|until|back in)\b", c, flags) else None)
        if m:
            add(_Raw("works_at", m.group(1)))

    # pet
    m = _EN_PET_PAIR.search(c)
    if m:
        add(_Raw("pet", f"{m.group(1).lower()} ({m.group(2)})"))
        add(_Raw("pet", f"{m.group(1).lower()} ({m.group(3)})"))
    else:
        m = re.search(rf"\b(?:{_EN_PET_VERBS}) an? (?:[\w-]+ )*?(\w+) (?:called|named) (\w+)", c, flags) \
            or (re.search(rf"\b(?:{_EN_PET_VERBS}|my|our)\b", whole, flags)
                and re.match(rf"^an? (?:[\w-]+ )*?((?i:{_EN_ANIMAL})) (?:called|named) ([A-Z]\w+)", c)) \
            or re.search(rf"\b(?i:my|our) (?:[\w-]+ )?((?i:{_EN_ANIMAL})),? ([A-Z][a-z]+)\b", c) \
            or re.search(rf"\b(?i:my|our) ((?:[\w-]+ )?(?i:{_EN_ANIMAL})) (?i:is|'s) (?i:called|named) ([A-Z][a-z]+)\b", c) \
            or re.search(rf"\b(?i:my|our) ((?i:{_EN_ANIMAL}))(?:'s| is) (?i:name is|name's|called) ([A-Z][a-z]+)\b", c) \
            or re.search(r"\b(?:I've got|I have|we have) an? (dog|cat|puppy|kitten|rabbit|parrot|hamster), ([A-Z]\w+)",
                         whole)
        if m:
            add(_Raw("pet", f"{m.group(1).lower()} ({m.group(2)})"))
        else:
            m = re.search(rf"\b(?:{_EN_PET_VERBS}) an? ((?:rescue )?\w+)(?! allergy| hair)\b", c, flags)
            if m and re.fullmatch(rf"(?:rescue )?(?:{_EN_ANIMAL}|hound)", m.group(1), flags):
                add(_Raw("pet", m.group(1).split()[-1].lower()))

    # commute
    commute = _en_commute(c)
    if commute:
        add(commute)
    return out


_EN_VEHICLE = r"train|bus|tube|subway|metro|ferry|tram|underground|overground|coach|shuttle|light rail|streetcar|vanpool"
_COMMUTE_BY = {"bike": "cycling", "bicycle": "cycling", "car": "driving", "foot": "walking"}
_EN_COMMUTE = re.compile(
    r"(?:\b(?:I|we)(?:'ll| will)?(?: be)? |^|\bthen )(?:always |usually |normally |mostly |now |just |generally |prefer |prefer to )*"
    r"(?P<verb>take|taking|get|getting|ride|riding|drive|driving|walk|walking|cycle|cycling|bike|biking|run|running|"
    r"catch|catching)"
    rf"(?: (?:the |a |my )?(?:[\w:.-]+ )?(?P<vehicle>{_EN_VEHICLE}|bike|e-bike|e-scooter|scooter|car|(?-i:[A-Z][A-Za-z]+))\b)?"
    r"(?P<dest> (?:in)?to (?:work|the office)| in(?:to)? (?:work|the office|town|the city)| into (?-i:[A-Z])\w+| in\b|"
    r" most days| every day"
    r"|(?= instead of))", re.I)


def _en_commute(clause: str) -> _Raw | None:
    """How the user gets to work: "I cycle into work" -> cycling, "I always take the Tube to work" -> Tube,
    "I'll be taking the train in instead of driving" -> train (evolution)."""
    change = "evolution" if re.search(r"instead of|since the move|switched", clause, re.I) else None
    m = re.search(r"\bswitched to (\w+ing) to (?:work|the office)", clause, re.I)
    if m:
        return _Raw("commute", m.group(1).lower(), change="evolution")
    m = re.search(rf"\bswitch(?:ed|ing)? (?:from [\w -]+? )?to (?:taking |riding |using |getting )?(?:the |a |my )?({_EN_VEHICLE}|bike|e-bike|"
                  rf"bicycle|car|cycling|walking|driving)\b", clause, re.I)
    if m:
        vehicle = m.group(1)
        return _Raw("commute", _COMMUTE_BY.get(vehicle.lower(), vehicle), change="evolution")
    m = re.search(r"\bcommute (?:is )?by (bike|bicycle|car|foot|train|bus|tube|tram|ferry)\b", clause, re.I)
    if m:
        return _Raw("commute", _COMMUTE_BY.get(m.group(1).lower(), m.group(1)), change=change)
    m = re.search(r"\bI (?:usually |always |normally |just )?(bus|train|tube|tram|ferry|carpool) (?:it )?(?:in|to work|into work)\b",
                  clause, re.I)
    if m:  # "I bus in every day": the vehicle used as a verb
        return _Raw("commute", {"tube": "Tube", "carpool": "carpooling"}.get(m.group(1).lower(), m.group(1).lower()),
                    change=change)
    m = _EN_COMMUTE.search(clause)
    if not m:
        return None
    verb = re.sub(r"ing$", "", m.group("verb").lower())
    verb = {"tak": "take", "cycl": "cycle", "rid": "ride", "driv": "drive", "bik": "bike", "gett": "get",
            "runn": "run", "catch": "take"}.get(verb, verb)
    if verb in _COMMUTE_VERBS and not m.group("vehicle"):
        return _Raw("commute", _COMMUTE_VERBS[verb], change=change)
    vehicle = m.group("vehicle")
    if not vehicle:
        return None
    return _Raw("commute", _COMMUTE_BY.get(vehicle.lower(), vehicle), change=change)


# "-ing" forms whose stem needs more than dropping "ing"
_ING_IRREGULAR = {"seeing": "see", "being": "be", "having": "have", "making": "make", "taking": "take",
                  "moving": "move", "driving": "drive", "giving": "give", "leaving": "leave", "coming": "come",
                  "writing": "write", "riding": "ride", "hiking": "hike", "hosting": "host", "visiting": "visit",
                  "flying": "fly", "getting": "get", "running": "run", "shopping": "shop", "starting": "start"}
_EN_LIGHT_VERBS = r"doing|having|holding|running|hosting|attending"
_EN_PLAN_PROGRESSIVE = re.compile(
    rf"\b(?:I'm|I am|we're|we are)(?: (?:also|finally|probably|just|actually))? (?P<verb>[a-z]+ing) (?P<rest>{_EN_STOP}+)", re.I)
_EN_PLAN_INTENT = re.compile(
    rf"(?:^|\b(?:I'm|I am|we're|we are|I|we) )(?:planning(?: on)?|plan|intending|intend|hoping|going) to (?P<rest>{_EN_STOP}+)",
    re.I)


def _en_stem(word: str) -> str:
    """The base form of an "-ing" verb: flying -> fly, seeing -> see, shopping -> shop, taking -> take."""
    w = word.lower()
    if w in _ING_IRREGULAR:
        return _ING_IRREGULAR[w]
    stem = w[:-3]
    if len(stem) >= 3 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
        return stem[:-1]
    if re.search(r"[^aeiou][aeiou][cvz]$|[^aeiou]at$|dg$|[^aeiou]iv$", stem):
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
                m.group("verb").lower() == "going" and not re.match(r"to (?-i:[A-Z])", m.group("rest"))):
            return None
        verb, rest = m.group("verb"), m.group("rest")
        if re.fullmatch(_EN_LIGHT_VERBS, verb, re.I):
            verb, rest = "", re.sub(r"^(?:the|a|an|our|my)\s+", "", rest, flags=re.I)
        else:
            verb = _en_stem(verb) + " "
    rest = _en_strip_time_words(rest, when)
    rest = re.sub(r"\s+(?:on|at|in|by|for|this|next)$", "", rest.strip(), flags=re.I)
    if not rest.strip():  # "I'm shopping today" is what the user is doing, not a plan
        return None
    trip = re.match(r"^(?:to )?((?-i:[A-Z])[\w'-]*(?: (?-i:[A-Z])[\w'-]*)*)$", rest.strip())
    if trip and (verb.strip() in ("head", "travel", "go", "") and (verb or re.match(r"^(?-i:[A-Z])", rest.strip()))):
        return f"trip to {trip.group(1)}"  # "We're heading to Cornwall next weekend", "going to Rome in May"
    obj = _clean(f"{verb}{rest}", False)
    return obj if obj and len(obj.split()) <= 10 else None


def _en_strip_time_words(text: str, when: datetime) -> str:
    """``text`` without its time expressions ("the conference in Vegas this year" -> "the conference in Vegas")."""
    text = _strip_times(text, when)
    text = re.sub(rf"\s+(?:(?:sometime|some time|later|early|earlier) )?(?:(?:in|during|over) )?(?:the )?"
                  rf"(?:(?:this|next|last) )?(?:{_EN_SEASON})$", "", text, flags=re.I)
    text = re.sub(r"\s+(?:this|next|last) (?:year|month|week|time|quarter)$", "", text, flags=re.I)
    return re.sub(r"\s+(?:in|on|at|by|from|since|before|until|sometime)$", "", text.strip(), flags=re.I).strip()


_EN_SEASON = r"year|month|spring|summer|autumn|fall|winter|January|February|March|April|May|June|July|August|" \
             r"September|October|November|December"
# a vague future time: enough to make an intention a plan, but no event time
_EN_VAGUE_FUTURE = re.compile(rf"\b(?:(?:sometime|some time|later|early) )?(?:(?:in|during|over) )?(?:the )?"
                              rf"(?:this|next) (?:{_EN_SEASON}|weekend)\b|\b(?:sometime|some time) (?:in|during|over) "
                              rf"(?:the )?(?:{_EN_SEASON})\b|\bin the (?:spring|summer|autumn|fall|winter)\b", re.I)


def _en_place(text: str, when: datetime) -> str:
    text = _strip_times(text, when)
    m = re.match(r"(?:[A-Z][\w'-]*)(?: (?:upon |on |de |)?(?!I\b)[A-Z][\w'-]*)*", text)
    if m:
        return m.group(0)
    text = re.sub(r"\s+(?:last|this|next) \w+$", "", text)
    return _clean(text, False)


def _antecedent(whole: str) -> str:
    """The thing a turn opens with when it acts on the user: "Cat dander wrecks me, I'm allergic" -> cat dander."""
    m = re.match(r"^(\w+(?: \w+)?) (?:give|gives|make|makes|set|sets|\w+s) (?:me|my)\b", whole, re.I)
    return m.group(1).lower() if m and not re.match(r"^(?:it|this|that|he|she|they|I)$", m.group(1), re.I) else ""


_GRAND = re.compile(r"(\d+(?:\.\d+)?)\s*grand\b", re.I)


_EN_LIMIT_CUE = r"under|below|up to|max(?:imum)?|tops|at most|over|above|more than|budget(?:'s| is| of)?|cap(?:ped)? at|limit(?:'s| is| of)?"


def _bare_no_food(clause: str) -> re.Match[str] | None:
    """"no pork", "no dairy please": a food or drink refused on its own (not "no worries")."""
    m = re.fullmatch(r"(?:and )?no ([\w -]{2,20}?)(?: in (?:the |my )?\w+)?(?: please| thanks| at all)?", clause.strip(" .!"), re.I)
    return m if m and _EN_FOOD.fullmatch(m.group(1)) else None


def _en_bare_limit(text: str) -> Amount | None:
    """A number without currency right next to a limit word ("800 max", "under 1,500"): the amount, currency
    unknown. Counts of people, nights, kilometres … are not amounts."""
    m = re.search(rf"\b(?:{_EN_LIMIT_CUE})(?:'s| is| of| at)?\s+(\d[\d,]*(?:\.\d+)?)\b(?!\s*(?:%|people|persons|guests|km|miles|mins?|"
                  rf"minutes|hours|days|nights|weeks|years|kg|am|pm|[ap]\.m\.))", text, re.I) \
        or re.search(r"\b(\d[\d,]*(?:\.\d+)?)\s+(?:max|tops|maximum|at most)\b", text, re.I)
    if not m:
        return None
    value = Decimal(m.group(1).replace(",", ""))
    return Amount(value, None) if value >= 50 else None


def _en_amount(text: str) -> Amount | None:
    text = re.split(r",?\s+not\s+", text)[0]
    found = find_amounts(text)
    if found:
        return found[0][2]
    m = re.search(r"(\d[\d,]*(?:\.\d+)?)\s*(?:pounds|quid)\b", text, re.I)
    if m:
        return Amount(Decimal(m.group(1).replace(",", "")), "GBP")
    m = _GRAND.search(text)
    if m:
        return Amount(Decimal(m.group(1)) * 1000, None)
    return None


# ---------------------------------------------------------------- atomisation

_ZH_SPLIT = re.compile(r"[。！!？?；;：\n]|:(?!\d)|[，,]?\s*(?:但是|但|不过|然而|还有|另外|以及|而且|然后|并且|可是|所以|因为)[，,]?")
# clause breaks that voice-typed Chinese leaves unpunctuated: "叫我老王就行我住在昌平"
_ZH_UNPUNCTUATED_BREAK = re.compile(r"(?<=就行|就好)(?=我)|(?<=就可以)(?=我)")
_EN_SPLIT = re.compile(r"(?<=[.!;])\s+|;\s*|\s+[-–—]\s+|,?\s+\b(?:but|however|also|besides|though|and also|and)\b,?\s*",
                       re.I)
_ZH_COND = re.compile(r"^(?:如果|要是|假如|前提是|只要)")
_ZH_INLINE_COND = re.compile(r"^(?:如果|要是|假如)(?:是)?(?P<cond>.{1,12}?)(?:的话)?"
                             r"(?P<then>(?:就|也|还是|还|倒是)?(?:可以|能|没问题|也行).*)$")
_EN_COND = re.compile(r"^(?:if|as long as)\b", re.I)


def _atoms(text: str, zh: bool) -> list[tuple[str, str | None]]:
    """Clauses of ``text`` with their condition (if any)."""
    out: list[tuple[str, str | None]] = []
    if zh:
        for sent in _ZH_SPLIT.split(text):
            parts = [q.strip() for p in re.split(r"，|,(?!\d{3})|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])", sent)
                     for q in _ZH_UNPUNCTUATED_BREAK.split(p or "") if q and q.strip()]
            i = 0
            while i < len(parts):
                p = parts[i]
                m = _ZH_INLINE_COND.match(p)
                if m:  # "如果是无糖的可以来一杯": condition and conclusion in one part
                    out.append((m.group("then"), m.group("cond")))
                    i += 1
                    continue
                if _ZH_COND.match(p) and i + 1 < len(parts):
                    cond = re.sub(r"^(?:如果|要是|假如|只要)(?:是)?|的话$", "", p)
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
        text = re.sub(r",\s*[\w' -]{1,30}? and all\b", "", text, flags=re.I)  # "a Sunday roast, Yorkshires and all"
        kept = _EN_BINOMIALS.sub(lambda m: m.group(0).replace(" and ", "\x01"), text)  # "fish and chips" is one thing
        for part in _EN_SPLIT.split(kept):
            if not part or not part.strip():
                continue
            part = part.strip(" ,").replace("\x01", " and ")
            lead = re.match(r"^(?:if|as long as|provided|so long as)\s+([^,]+),\s*(.+)$", part, re.I) \
                or re.match(r"^(?:if|as long as|provided|so long as)\s+([^,]+?)\s+(I (?:always |really )?(?:want|need|"
                            r"insist on|prefer|book|get|go for)\b.+)$", part, re.I)
            if lead:  # "If it's an overnight flight, I want a lie-flat seat"
                out.append((lead.group(2).rstrip(".!"), lead.group(1)))
                continue
            m = re.search(r"\s+(?:if|as long as)\s+(.+)$", part, re.I)
            cond = m.group(1).rstrip(".!") if m else None
            out.append((part.rstrip(".!"), cond))
    return out


# a topic put first, then the verb with a pronoun or with the object left out:
# "cilantro? can't stand it", "Horror films? Nope, can't watch them.", "coriander I can't stand"
_EN_TOPIC_THEN_PRONOUN = re.compile(
    r"(?:^|(?<=[,.;!?]\s)|(?<=\bbut\s))(?!(?:but|and|so|or) )([A-Za-z][\w' -]{1,30}?)\?\s+(?:(?:nope|no|ugh|nah|honestly|god)[,!.]?\s+)?"
    r"(?:I\s+)?(can't stand|cannot stand|hate|loathe|detest|can't bear|can't watch|can't do|love|adore) (?:it|them)\b", re.I)
# "Push notifications, we're skipping them for v1": an option put first and dropped with a pronoun
_EN_TOPIC_DROPPED = re.compile(
    r"^([A-Za-z][\w' -]{1,30}?),\s+(?:we're|we are|we'll|I'm|let's) (skipping|skip|dropping|drop|ditching|ditch|"
    r"cutting|cut|shelving|shelve) (?:it|them)\b", re.I)
# "Blues I could listen to all day": a fronted taste without a taste verb
_EN_FRONTED_HABIT = re.compile(
    r"(?:^|(?<=[.!?]\s))([A-Za-z][\w' -]{1,30}?) I could (?:listen to|eat|watch|drink|read|play) (?:all day|every day|forever|"
    r"all night|for hours)\b", re.I)
_EN_FRONTED = re.compile(
    r"(?:^|(?<=[,.;!?]\s)|(?<=\bbut\s))(?!(?:and|but|so|then|now|today|also|this|that|it|which|what)\b)"
    r"([a-z][\w'-]*(?: [\w'-]+){0,2}) I (?:really |just |absolutely )?(can't stand|cannot stand|hate|loathe|detest|"
    r"can't bear|love|adore)(?=[.!]?$|[.!,;])", re.I)
# "Board games on a Friday night, that's my favourite thing", "Hiking and kayaking, that's my weekend sorted"
# "Nothing ruins my day quite like a 7am stand-up"
_EN_NOTHING_LIKE = re.compile(r"^nothing (?:ruins my (?:day|morning|week)|annoys me|winds me up|stresses me out) (?:quite |more than |as much as )?"
                              r"(?:like )?(?:an? |the )?([\w' -]{2,40})$", re.I)
_EN_THATS_MY_THING = re.compile(
    r"^([\w' ,-]{2,80}?)(?: on (?:a |the )?(?:[\w'-]+ ){0,2}(?:night|morning|evening|afternoon|weekend|monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday)s?)?,\s*"
    r"(?:that's|that is) (?:my|our) (?:favourite thing|favorite thing|fave thing|thing|jam|happy place|weekend sorted)\b"
    r"[^.!?]*", re.I)
_VERB_AS_DISLIKE = {"can't watch": "can't stand", "can't do": "can't stand"}


def _en_unfront(text: str) -> str:
    """The fronted topics above put back after their verb ("… I can't stand cilantro"), a leading "Right, so:"
    dropped and "and a rabbit, Clover" read as "and a rabbit called Clover"."""
    text = _EN_TOPIC_THEN_PRONOUN.sub(
        lambda m: f"I {_VERB_AS_DISLIKE.get(m.group(2).lower(), m.group(2))} {m.group(1)}", text)
    text = _EN_THATS_MY_THING.sub(r"I love \1", text)
    text = _EN_NOTHING_LIKE.sub(r"I hate \1", text.strip(" .!")) if _EN_NOTHING_LIKE.match(text.strip(" .!")) else text
    text = re.sub(r"\bI'll happily (eat|drink|have|watch|read) (?!it\b|them\b|one\b)(?=\w)", "I like ", text, flags=re.I)
    text = _EN_TOPIC_DROPPED.sub(lambda m: f"we'll skip {m.group(1)}", text)
    text = _EN_FRONTED_HABIT.sub(r"I love \1", text)
    text = _EN_FRONTED.sub(lambda m: f"I {m.group(2)} {m.group(1)}", text)
    text = re.sub(r"^(?:right|ok|okay|alright|so|well|anyway)(?:,?\s*so)?\s*:\s*", "", text, flags=re.I)  # "Right, so: …"
    return re.sub(rf"\b(and|plus) (an?) ({_EN_ANIMAL}),\s+(?=[A-Z])", r"\1 \2 \3 called ", text, flags=re.I)


def _en_named_first(text: str) -> str:
    """An allergen or a pet named before the words that say what it is, put after them: "I can't have nuts, I'm
    allergic" -> "I'm allergic to nuts", "Our Labrador, Pepper, turns ten" -> "I have a Labrador called Pepper, …"."""
    text = re.sub(r"\bI (?:can't|cannot|mustn't) (?:have|eat|touch|take) ([\w' -]{2,30}?),? (?:as |because |cos |since )?"
                  r"I'm allergic\b", r"I'm allergic to \1", text, flags=re.I)
    text = re.sub(r"^([\w' -]{2,30}?) and I (?:don't|do not) get along,? (?:as |because |since )?I'm allergic\b",
                  r"I'm allergic to \1", text, flags=re.I)
    return re.sub(rf"^(?:my|our) ({_EN_ANIMAL}),\s+([A-Z][\w'-]+),", r"I have a \1 called \2,", text, flags=re.I)


def _comma_split_en(text: str) -> list[str]:
    return [p.strip() for p in re.split(r",(?!\d{3})\s*", text) if p.strip()]


# ---------------------------------------------------------------- main

def _raw_facts(text: str, when: datetime, *, allow_question: bool = False,
               project: bool = False) -> list[_Raw]:
    zh = _is_zh(text)
    stripped = text.strip()
    if zh:  # dialect and formal words for "I": 俺就住五道口, 本人现居上海
        stripped = re.sub(r"(?:^|(?<=[，,。；;]))(?:俺|本人|咱)(?=[\u4e00-\u9fff])", "我", stripped)
    if _TEMPORARY.search(stripped) and not _TASTE_FOR_NOW.search(stripped):
        return []
    if not zh:  # a title's dot ends no sentence: "call me Dr. Patel" (the joiner is a space again in the objects)
        stripped = _en_unfront(_EN_TITLE_DOT.sub(r"\1." + _TITLE_JOINER, stripped))
    if not allow_question:  # drop question sentences inside the turn
        sents = re.findall(r"(?:[^。！!？?；;\n.]|\.(?!\s))+(?:[。！!？?；;\n]|\.\s|\.$)?", stripped)
        stripped = "".join(x if not re.search(r"[?？]\s*$", x) or _QUESTION_OK.search(x) else _statement_before(x)
                           for x in sents).strip()
    raws: list[_Raw] = []
    seen: set[tuple[str, str, str]] = set()
    if not zh:  # an enumeration of pets ("two cats, Salt and Pepper") before atomising
        stripped = _en_named_first(stripped)
        m = _EN_PET_PAIR.search(stripped)
        if m:
            for name in (m.group(2), m.group(3)):
                raws.append(_Raw("pet", f"{m.group(1).lower()} ({name})"))
            stripped = stripped[:m.start()] + stripped[m.end():]
    about_other = False  # "我哥在阿里上班，住在西溪那边": a clause without a subject goes on about the other person
    for clause, cond in _atoms(stripped, zh):
        subclauses = [clause] if zh else _comma_split_en(clause)
        for sub in subclauses:
            if not sub or _NOT_LASTING.search(sub) or _INDIRECT.search(sub) or _NOT_THAT.search(sub):
                continue
            if _OTHER_PEOPLE.search(sub) and not _CALLED_BY_OTHERS.search(sub) \
                    and not (zh and re.search(rf"^我?(?:{_ZH_DEGREE})(?:{_ZH_DISLIKE}|{_ZH_LIKE})(?:别人|大家|他们)", sub)):
                about_other = bool(_OTHER_SUBJECT.search(sub))
                continue
            if about_other and not _NAMES_USER.search(sub):
                continue
            about_other = False
            if not allow_question and re.search(r"[?？]", sub) and not _QUESTION_OK.search(sub):
                continue
            carried = _carried_over(sub, raws, zh, stripped, when) or (_zh_accepted_instead(sub, raws) if zh else None)
            if carried is not None:
                found = [carried]
            elif zh:
                found = _zh_rules(sub, stripped, when, project)
            else:
                found = _en_rules(_with_subject(sub), stripped, when, project)
                bare = _en_bare_item(sub, raws, stripped) if not found else None
                found = [bare] if bare else found
            narrowing = _narrowed_like(sub, cond, raws, zh) if cond and not found else None
            if narrowing:
                found = [narrowing]
            elif cond and not found and not zh:
                found = _conditional_want(sub, cond)
            if zh:
                found = _with_listed_items(found, sub)
            for r in (part for f in found for part in _split_enumeration(f, zh)):
                if zh and r.predicate in ("likes", "dislikes") and _ZH_TASTE_LEAD.match(r.object):
                    r = dataclasses.replace(r, object=_ZH_TASTE_LEAD.sub("", r.object))
                if not r.object or (r.predicate in ("likes", "dislikes") and (
                        _PRONOUN_OBJECT.match(r.object) or (zh and _ZH_NOT_A_TASTE.search(r.object)))):
                    continue
                key = (r.predicate, r.object.casefold(), r.polarity)
                if key in seen:
                    continue
                seen.add(key)
                if cond and r.predicate in ("likes", "dislikes", "decision", "diet") and not narrowing:
                    r = _Raw(r.predicate, r.object, r.polarity, r.change, r.value, cond.strip())
                raws.append(r)
    chosen = [r.object for r in raws if r.predicate == "decision" and r.polarity == "positive" and " " in r.object]
    if chosen:  # "the blue logo, not the green one": "one" stands for the chosen option's noun
        raws = [dataclasses.replace(r, object=re.sub(r"\bones?$", chosen[0].rsplit(" ", 1)[1], r.object))
                if r.predicate == "decision" and r.polarity == "negative" and re.search(r" ones?$", r.object) else r
                for r in raws]
    return [_Raw(r.predicate, r.object.replace(_TITLE_JOINER, " "), r.polarity, r.change, r.value, r.condition)
            if _TITLE_JOINER in r.object else r for r in raws]


_EN_TITLE_DOT = re.compile(r"\b(Mr|Ms|Mrs|Mx|Dr|Prof|St|Mt)\. (?=[A-Z])")
_TITLE_JOINER = "\u2060"  # word joiner: keeps "Dr." and its name in one token while clauses are split


_ENUMERATED_PREDICATES = ("allergy", "diet", "likes", "dislikes")
# "X and Y" that name one thing
_EN_BINOMIALS = re.compile(r"\b(?:fish and chips|salt and pepper|mac and cheese|rock and roll|black and white|"
                           r"bread and butter|pros and cons|bed and breakfast|sweet and sour|drum and bass|r and b|"
                           r"peanut butter and jelly|gin and tonic|bangers and mash|rhythm and blues|"
                           r"[a-z]+ and a half|(?:hundred|thousand) and [a-z]+|"
                           r"(?:options?|plans?|versions?|proposals?) \w+ and \w+)\b", re.I)  # amounts in words, "Options 1 and 3"


def _with_listed_items(found: list[_Raw], clause: str) -> list[_Raw]:
    """Chinese items listed with 、 after a fact's object ("我喜欢跑步、游泳"), which the object itself stops before."""
    out = list(found)
    for r in found:
        at = clause.find(r.object) if r.predicate in _ENUMERATED_PREDICATES and r.object else -1
        tail = clause[at + len(r.object):] if at >= 0 else ""
        for item in re.findall(r"[、和](?:还有)?([^、，,。和]{1,8})", tail) if tail.startswith("、") else []:
            out.append(_Raw(r.predicate, _clean(item, True), r.polarity, r.change, r.value, r.condition))
    return out


def _split_enumeration(raw: _Raw, zh: bool) -> list[_Raw]:
    """One fact per item of an enumerated object: "我对虾和蟹过敏" -> 虾, 蟹; "allergic to peanuts and shellfish"."""
    if raw.predicate not in _ENUMERATED_PREDICATES or raw.condition:
        return [raw]
    if zh:
        parts = re.split(r"[、和跟与及]|以及", raw.object)
        if any(not 1 <= len(p) <= 6 for p in parts):
            return [raw]
    else:
        if _EN_BINOMIALS.search(raw.object):
            return [raw]
        parts = [re.sub(r"^(?:a bit of|a little|lots of|some|the|an?)\s+", "", p.strip(), flags=re.I)
                 for p in re.split(r",\s*(?:and |or )?|\s+(?:and|or|&)\s+", raw.object)]
        limit = 3 if raw.predicate in ("allergy", "diet") else 2
        if any(not p or len(p.split()) > limit for p in parts):
            return [raw]
    if len(parts) < 2:
        return [raw]
    return [_Raw(raw.predicate, p, raw.polarity, raw.change, raw.value, raw.condition) for p in parts]


_ZH_ACCEPTED = re.compile(r"^(?P<obj>(?![我你他她这那])[^，,。]{1,8}?)(?:的话)?(?:倒是|倒|就|还是)?(?:还行|还可以|可以接受|能接受|"
                          r"没问题|挺好的?|不错|可以)[的啊吧呀]*$")


def _zh_accepted_instead(clause: str, earlier: list[_Raw]) -> _Raw | None:
    """Right after a dislike, the alternative the user accepts is a like: "我不喜欢坐飞机，高铁还行" -> likes 高铁."""
    if not earlier or earlier[-1].predicate != "dislikes":
        return None
    m = _ZH_ACCEPTED.match(clause.strip(" 。.!！"))
    return _Raw("likes", m.group("obj")) if m and not _ZH_NOT_A_TOPIC.match(m.group("obj")) else None


_CARRIED_PREDICATES = ("diet", "allergy", "likes", "dislikes", "decision")
_ZH_ELLIPSIS = re.compile(r"^(?P<obj>[^，,。我你他她这那]{1,8}?)(?:我)?(?:也|都|同样|亦)(?:一样|是|不行|不可以|不能(?:用|吃|碰|喝|沾)?|算了|免了|"
                          r"不要|不用|不考虑)?[了啊呀吧哈的]*$")
_EN_ELLIPSIS = re.compile(r"^(?:and |but |or |plus )?(?:same (?:goes )?(?:for|with) |ditto (?:for|with) |nor |neither |"
                          r"not )?(?P<obj>[\w' -]{2,30}?)(?: too| as well| also| either)?$", re.I)
_PRONOUN_OBJECT = re.compile(r"^(?:it|them|those|these|that|this|one|ones|they|him|her|you|me|它|这个|那个|这些|那些)$",
                             re.I)


def _carried_over(clause: str, earlier: list[_Raw], zh: bool, whole: str = "", when: datetime | None = None) -> _Raw | None:
    """An elliptical clause that names only a new object carries the previous fact's predicate over it:
    "我不吃牛肉，羊肉也不行" -> diet 羊肉 −, "allergic to peanuts, and cashews too" -> allergy cashews."""
    if earlier and earlier[-1].predicate == "todo":  # "提醒我后天交物业费，还有这周末给奶奶打个电话"
        bare = clause.strip(" 。.!！,，")
        if zh and re.search(rf"还有[，,]?\s*{re.escape(bare)}", whole):
            body = _trim_measure(re.sub(r"(?<=[\u4e00-\u9fff])个(?=[\u4e00-\u9fff])", "", (_strip_times(bare, when) if when else bare)))
            return _Raw("todo", _ba(body)) if 2 <= len(body) <= 12 and not re.match(r"[我你他她这那]", body) else None
        m = re.fullmatch(r"(?:and )?,?\s*(?:on \w+,?\s*|tomorrow,?\s*|next \w+,?\s*)?to ([a-z][\w' -]{2,40})", bare, re.I)
        if not zh and m:  # "Remind me to renew my passport and, on Monday, to book the MOT"
            return _Raw("todo", m.group(1))
    if earlier and earlier[-1].predicate == "pet" and not zh:  # "a greyhound called Biscuit and a rabbit, Clover"
        m = re.fullmatch(rf"(?:and )?(?:a|an|one|another|plus a) ({_EN_ANIMAL})(?:,| called| named)\s+([A-Z][\w'-]+)",
                         clause.strip(" .!"), re.I)
        return _Raw("pet", f"{m.group(1).lower()} ({m.group(2)})") if m else None
    if not earlier or earlier[-1].predicate not in _CARRIED_PREDICATES:
        return None
    prev = earlier[-1]
    if zh:
        bare = clause.strip(" 。.!！")
        found_after = re.search(rf"(?:还有|以及)[，,]?\s*{re.escape(bare)}", whole)
        bare = re.sub(r"^(?:就是|也就是)(?=..)", "", bare)  # "还有就是泡温泉"
        if prev.predicate in _ENUMERATED_PREDICATES and found_after \
                and re.fullmatch(r"(?![我你他她这那])[^，,。不没别]{1,8}", bare):
            return _Raw(prev.predicate, bare, prev.polarity)  # "我喜欢跑步、游泳，还有打羽毛球"
        m = _ZH_ELLIPSIS.match(bare)
        if not m or not re.search(r"也|都|同样|亦", clause):
            return None
    else:
        fixed = re.match(r"^(?:oh )?(?:wait,? )?(?:no,? )?(?:it's|it is|I mean|I meant|make that|rather|actually) "
                         r"(?:the |an? )?(?P<obj>[\w' -]{2,30}?)$", clause.strip(" .!"), re.I)
        if fixed and prev.predicate in ("allergy", "diet", "likes", "dislikes") and _CORRECTION.search(whole):
            return _Raw(prev.predicate, _clean(fixed.group("obj"), False), prev.polarity)  # "walnuts… oh wait, no, it's pecans"
        m = _EN_ELLIPSIS.match(clause.strip(" .!"))
        marked = re.search(r"\s(?:too|as well|also|either)$|^(?:same (?:goes )?(?:for|with)|ditto|nor|neither)\s",
                           clause.strip(" .!"), re.I)
        if not m or not marked or len(m.group("obj").split()) > 3:
            return None
    obj = _clean(m.group("obj"), zh)
    if not obj or _PRONOUN_OBJECT.match(obj) or (zh and _ZH_NOT_A_TOPIC.match(obj)) or re.match(r"^(?:I|we|you|it|that|this|me)\b", obj, re.I):
        return None
    if zh and prev.predicate == "diet" and prev.polarity == "positive" and re.search(r"不(?:行|能|要|吃|喝|碰)", clause):
        return _Raw("diet", re.sub(r"(?<=..)相关$", "", obj), "negative")  # "我是清真饮食，猪肉相关的都不能吃"
    return _Raw(prev.predicate, obj, prev.polarity)


_EN_NOT_A_BARE_ITEM = re.compile(
    r"\b(?:I|I'm|I've|I'd|I'll|me|my|we|we're|our|you|your|he|she|they|it|it's|that|this|is|are|was|were|be|been|"
    r"do|does|did|don't|have|has|had|will|would|can|could|should|must|please|thanks|thank|so|very|really|too|also|"
    r"either|not|no|yes|ok|okay|though|then|now|today|tonight|tomorrow|yesterday|week|weekend|month|year)\b", re.I)


def _en_bare_item(clause: str, earlier: list[_Raw], text: str) -> _Raw | None:
    """A bare noun phrase enumerated right after a fact's object takes its predicate: "allergic to peanuts and
    tree nuts", "I love hiking, climbing and kayaking". Only items joined to that object by commas, and, or."""
    if not earlier or earlier[-1].predicate not in _ENUMERATED_PREDICATES or earlier[-1].condition:
        return None
    item = _clean(clause.strip(" .!"), False)
    if not item or len(item.split()) > 3 or _EN_NOT_A_BARE_ITEM.search(item) or re.search(r"\d|[?？]", item):
        return None
    low = text.casefold()
    prev_at, item_at = low.find(earlier[-1].object.casefold()), low.find(item.casefold())
    if prev_at < 0 or item_at <= prev_at:
        return None
    between = text[prev_at + len(earlier[-1].object):item_at]
    joined = re.fullmatch(r"(?:\s*(?:,|\band\b|\bor\b|&)\s*(?:[\w'-]+(?: [\w'-]+){0,2}?)??)+?\s*", between)
    # a list: "and"/"or" before this item, or after it ("peanuts, shellfish and sesame")
    listed = re.search(r"\b(?:and|or)\b|&", between) \
        or re.match(r"\s*,?\s*(?:and|or|&)\s", text[item_at + len(item):], re.I)
    return _Raw(earlier[-1].predicate, item, earlier[-1].polarity) if joined and listed else None


# a clause that starts with the verb, its subject "I" left out: "Love sushi", "can't stand wasabi"
_EN_SUBJECTLESS = re.compile(
    rf"^(?:really |absolutely |totally |also |honestly )?(?:{_EN_DISLIKE}|love|like|enjoy|adore|prefer|don't|do not|"
    r"never|always|usually|normally|work|live|take|cycle|drive|walk|ride|avoid|keep|eat|need|have|got|gotta|'m|am|"
    r"went with|opted for|picked|chose|settled on|ended up (?:with|going with|choosing|picking)|"
    r"can't|cannot|won't)\b", re.I)


def _with_subject(clause: str) -> str:
    """``clause`` with "I" put back when it starts with the verb ("Love sushi" -> "I Love sushi")."""
    if re.match(r"^(?:a |an )?(?:big |huge |total |massive |real |complete )?(?:fan|sucker) (?:of|for)\b", clause, re.I):
        return f"I'm a {re.sub(r'^an? ', '', clause, flags=re.I)}"  # "Big fan of board games"
    clause = re.sub(r"^(?:also|and|plus|oh and|but)\s+(?=not\b)", "", clause, flags=re.I)
    if re.match(r"^(?:not (?:really |that |very |too |so |much of )?(?:a (?:big |huge )?fan of|keen on|into|big on)|"
                r"(?:really |totally )?into)\b", clause, re.I):
        return f"I'm {re.sub(r'[ ,]+(?:at the moment|these days|lately|right now)$', '', clause, flags=re.I)}"  # "not a fan of horror films"
    if re.match(r"^off to\b", clause, re.I):
        return f"I'm heading{clause[3:]}"  # "Off to Rome next month"
    clause = re.sub(r"^(I'm|I am|we're|we are) off to\b", r"\1 heading to", clause, flags=re.I)
    if re.match(r"^been\b", clause, re.I):
        return f"I've {clause}"  # "been vegan for 3 years now"
    if re.match(r"^[a-z]{3,}ing\b(?! (?:is|are|was|were|makes?|gives?|drives?|gets?|annoys?))", clause, re.I) \
            and not re.match(r"^(?:bring|thing|sing|ring|ping|swing|spring|string|sting|wing|king|bling)\b", clause, re.I) \
            and not re.match(r"^(?:nothing|something|anything|everything|morning|evening|thing|ceiling|king|starting|"
                             r"beginning|following|including|according|regarding|considering|assuming|depending|"
                             r"speaking|looking|going forward|seeing|given|during)\b", clause, re.I):
        return f"I'm {clause}"  # "heading to Lisbon next weekend"
    return f"I {clause}" if _EN_SUBJECTLESS.match(clause) and not re.match(r"^I\b", clause) else clause


def _conditional_want(clause: str, cond: str = "") -> list[_Raw]:
    """Under a condition, what the user wants is a like: "If it's an overnight flight, I want a lie-flat seat",
    "If the flight's over eight hours, window seat", "If it's dark chocolate, I'll happily eat it"."""
    m = re.match(rf"^I (?:always |really )?(?:want|need|insist on|go for|book|get) (?:an? |the |my )?({_EN_STOP}+)$",
                 clause.strip(), re.I) \
        or re.fullmatch(r"(?:an? |the )?((?:[a-z][\w'-]* ){0,2}(?:seat|room|table|cabin|class|flight|train|hotel))(?: please)?",
                        clause.strip(" .!"), re.I)
    if m:
        return [_Raw("likes", _clean(m.group(1), False))]
    it = re.match(r"^(?:it's|it is|they're|they are) (?:an? |the )?([\w' -]{2,30})$", cond.strip(), re.I)
    if it and re.match(r"^I(?:'ll| will| would|'d)? (?:happily |gladly |definitely )?(?:eat|drink|have|take|do|try) "
                       r"(?:it|them|one)\b", clause.strip(), re.I):
        return [_Raw("likes", _clean(it.group(1), False))]
    return []


_QUESTION_START = re.compile(
    r"^(?:what|how|do|does|did|can|could|would|will|is|are|was|were|should|shall|which|where|when|who|why|any|"
    r"have|has|may|might|am)\b|^(?:你|您|什么|怎么|哪|为什么|是不是|能不能|可不可以|有没有|要不要)", re.I)


_HYPOTHETICAL_START = re.compile(r"^(?:if|suppose|supposing|say|imagine|what if|如果|要是|假如|假设|万一)", re.I)


def _statement_before(question: str) -> str:
    """The statement a question sentence opens with, if any: "My gecko Ziggy needs a new lamp, any recs?" ->
    "My gecko Ziggy needs a new lamp." A sentence that is a question from its start yields ""."""
    m = re.match(r"^(.+)[,，]\s*([^,，]+)$", question.strip())
    if not m or _QUESTION_START.match(m.group(1).strip()) or _HYPOTHETICAL_START.match(m.group(1).strip()) \
            or not _QUESTION_START.match(m.group(2).strip()) \
            and not re.search(r"吗|呢|\?$|？$", m.group(2)) or re.search(r"[?？]", m.group(1)):
        return ""
    return m.group(1).strip() + ("。" if _is_zh(m.group(1)) else ". ")


_ACCEPTANCE = re.compile(r"^(?:也|还是|倒是|还)?(?:可以|能)(?:接受|来一[杯份个碗]|吃|喝|坐)?|^(?:也行|还行|没问题|也可以)|"
                         r"^(?:that's|it's|that is|it is) (?:fine|ok|okay)|^I(?:'m| am) (?:fine|ok|okay) with it", re.I)


def _narrowed_like(clause: str, cond: str, earlier: list[_Raw], zh: bool) -> _Raw | None:
    """"奶茶我不爱喝，但如果是无糖的可以来一杯" -> likes 无糖奶茶: a condition that only narrows the thing
    disliked before, followed by an acceptance, is a like of the narrowed thing (the condition is the object)."""
    if not _ACCEPTANCE.match(clause.strip()):
        return None
    disliked = [r.object for r in earlier if r.predicate == "dislikes"]
    if not disliked or len(cond) > 12:
        return None
    topic = re.sub(r"^(?:坐|吃|喝|用|去|住|打)", "", disliked[-1]) if zh else disliked[-1]
    narrow = re.sub(r"^(?:是|it's|it is)\s*|的$", "", cond.strip(), flags=re.I)
    if not narrow or narrow in topic:
        return None
    if zh and not cond.strip().endswith("的") and len(narrow) > 2:
        return _Raw("likes", narrow)  # "如果是黑巧克力可以接受": a thing of its own, not a modifier of the topic
    return _Raw("likes", f"{narrow}{topic}" if zh else f"{narrow} {topic}")


# "No, Bath.", "That's wrong, it's Lloyds.", "不是，我在快手，…": a new value for what the agent just said
_ANSWER_CORRECTION = re.compile(
    r"^(?:no|nope|不是|不对|actually|(?:wait, )?that's (?:wrong|not right|not it)|you got it wrong)[,，.]?\s*"
    r"(?:it's |it is |actually |I said |I meant |I'm at |I work at |I'm with |I'm in |I live in |我在|我住在|我住|在|住在|是|叫)?"
    r"((?-i:[A-Z])[\w'.-]*(?: (?-i:[A-Z])[\w'.-]*)*|[\u4e00-\u9fff]{2,6})(?:,? (?:actually|though|mate|then))?"
    r"(?:[.。!！，,]|$)", re.I)

_AGENT_HEDGE = re.compile(r"应该|好像|估计|大概|吧|看来|似乎|I guess|I assume|you seem|I'm guessing|probably|"
                          r"sounds like you|looks like you|I take it|I bet|I reckon|I imagine|presumably", re.I)


def _from_assistant(text: str) -> str:
    """The assistant's statement rewritten from the user's point of view."""
    t = re.sub(r"^(?:Am I right that|I'm guessing|I guess|I assume|So|Sounds like|Looks like|I take it|I bet|I reckon|"
               r"I imagine|(?:Shall|Should) I (?:note|put down|record|write down|log|save)(?: that)?)\s+(?:that\s+)?", "",
               text.strip(), flags=re.I)
    t = re.sub(r"^(?:我理解(?:的是)?|我的理解是|也就是说|所以)(?:您|你)?(?:是)?", "", t)  # "我理解您是要把周会改到周二上午"
    t = re.sub(r"[，,]?\s*(?:对吗|是吗|对不对|是不是)[？?]?$", "", t)
    t = re.sub(r"(?:看来|似乎)", "", t)
    t = re.sub(r"^(?:Shall|Should) I remind you\b|^(?:I'll|I will|I can|Let me) remind you\b", "Remind me", t, flags=re.I)
    t = re.sub(r"\b(?:Shall|Should) we (?:just )?", "we'll ", t, flags=re.I)  # a proposal: "shall we host it on X?"
    t = re.sub(r"(?:要不要|要不|不如|干脆)(?:直接|就)?(?=用|选|定|换)", "就", t)  # "要不直接用Next.js重写？"
    t = re.sub(r"^(?:我)?(?:建议|推荐)(?:您|你)?(?:还是)?(?=用|选|采用|上)", "就", t)  # "建议用微信扫码登录"
    t = re.sub(r"^(?:我)?(?:建议|推荐)(?:您|你)?(?:还是)?(?:住|订|去)", "就选", t)  # "建议住温泉酒店"
    t = re.sub(r"\band skipping\b", "and not", t, flags=re.I)  # "I'd suggest Fly.io and skipping Heroku"
    t = re.sub(r"\s+(?:given|because of|due to) [^.?!]*", "", t, flags=re.I)  # "… given the pricing"
    t = re.sub(r"^(?:I'd|I would|I) (?:suggest|recommend)(?! \w+ing\b)(?: going with| using| we use| we go with)?\s+",
               "let's go with ", t, flags=re.I)  # "I'd suggest annual invoicing"
    t = re.sub(r"^Should I go with", "let's go with", t, flags=re.I)
    t = re.sub(r"^(?:Would you like|Do you want|Shall|Should|Can|May) (?:me to|I) (?:address|call) you(?: as)?",
               "Call me", t, flags=re.I)
    if re.match(r"^(?:Would you like|Do you want|Shall|Should|Can|May) (?:me to|I) (?:go ahead and )?(?:book|order|"
                r"reserve|buy|purchase|send|email|text|message|print|look|search|find|check|pull up|share|forward)\b",
                t, re.I) or re.match(r"^[A-Z][a-z]+ing\b", t):
        return ""  # an offer to act ("Would you like me to book the window seat?", "Booking for Friday?")
    t = re.sub(r"^Would you like (?:the |a )?", "I like ", t, flags=re.I)
    t = re.sub(r"\bYou seem to be\b", "I'm", t, flags=re.I)
    t = re.sub(r"\bYou seem to\b", "I", t, flags=re.I)
    t = re.sub(r"\s(?:probably|presumably|likely)\b", "", t, flags=re.I)
    t = re.sub(r"\byou're\b", "I'm", t, flags=re.I)
    t = re.sub(r"\byou are\b", "I am", t, flags=re.I)
    t = re.sub(r"\byou'd\b", "I'd", t, flags=re.I)
    t = re.sub(r"\byour\b", "my", t, flags=re.I)
    t = re.sub(r"\b(?:remind|call|tell) you\b", lambda m: m.group(0).split()[0] + " me", t, flags=re.I)
    t = re.sub(r"\byou\b", "I", t, flags=re.I)
    t = re.sub(r"^需要我", "", t)
    t = re.sub(r"对吧[？?]?$|[，,]?对吧", "", t)
    t = re.sub(r"^(?:以后)?我就?(?:称呼|叫)(?:您|你)", "叫我", t)
    t = t.replace("提醒您", "提醒我").replace("您", "我").replace("你", "我")
    t = re.sub(r"(?:是不是|应该是|应该|好像|估计|平时应该是|大概|多半|可能)(?:就|也)?", "", t)
    return t


# what an assistant's question asks for, and how a bare answer to it reads
_ASKED_FOR = (
    ("name", re.compile(r"address you|call you|your name|称呼您|称呼你|怎么叫您|怎么叫你|叫您什么", re.I)),
    ("budget_limit", re.compile(r"budget|spend|\bcap\b|\blimit\b|ceiling|预算|花多少|多少钱以内|上限|最多花", re.I)),
    ("allergy", re.compile(r"allerg|过敏", re.I)),
    ("diet", re.compile(r"dietary|忌口|不吃什么|饮食", re.I)),
    ("lives_in", re.compile(r"where do you live|where are you based|where's home|which (?:city|town|area|part of town) are you|"
                            r"what (?:city|town|area) (?:are you in|do you live in)|住哪|住在哪|家在哪|哪个城市|哪个区", re.I)),
    ("works_at", re.compile(r"where do you work|who do you work for|在哪上班|在哪工作|哪家公司", re.I)),
    ("commute", re.compile(r"get (?:in)?to (?:work|the office|the (?:hospital|school|studio|site|lab|clinic|shop))|"
                           r"get into work|commute|怎么去(?:公司|单位|上班)|怎么上班|通勤|上班是|上班(?:一般|平时)?(?:开车|坐|骑)",
                           re.I)),
)


# questions whose bare answer reads as a statement once its subject and verb are put back
_RESTATED_ANSWERS = (
    (re.compile(r"what (?:kinds?|sorts?|types?) of [\w ]+ do you (?:like|enjoy|listen to|read|watch|play)|"
                r"what do you (?:like|enjoy|love) (?:doing|to do)|what are you into|any hobbies|"
                r"(?:喜欢|爱)(?:做|干|吃|喝|看|听|玩)?(?:什么|啥)|有什么爱好|爱好是(?:什么|啥)", re.I), "I like ", "我喜欢"),
    (re.compile(r"any pets|have (?:a |any )?pets?\b|养(?:了)?(?:什么)?宠物|有宠物", re.I), "I have ", "我养了"),
)


def _answer_restated(text: str, question: str, when: datetime) -> list[_Raw]:
    """"mostly jazz and a bit of soul" to "What kind of music do you like?", "Yeah, a tabby called Mango" to "Any
    pets?": the answer read with "I like" / "I have" (我喜欢 / 我养了) put before it."""
    body = re.sub(r"^(?:yeah|yes|yep|yup|sure|oh|well|hmm|um|嗯|对|是的|有|有的|有啊)[,，.!！\s]+|^(?:mostly|mainly|probably|usually)\s+",
                  "", text.strip(), flags=re.I)
    for cue, en, zh in _RESTATED_ANSWERS:
        if cue.search(question) and body and not re.match(r"(?i:no|nope|not|none|nothing|没有|没|不)", body):
            lead = zh if _is_zh(body) else en
            return [r for r in _raw_facts(lead + body, when) if r.predicate in ("likes", "pet")]
    return []


def _answer_value(text: str, question: str, when: datetime) -> _Raw | None:
    """A bare value answering the assistant's question: "Sam is fine" to "What should I call you?", "around 2k"
    to "What's your budget?", "peanuts" to "Any allergies?", "Leeds" to "Where do you live?"."""
    asked = next((pred for pred, cue in _ASKED_FOR if cue.search(question)), None)
    t = text.strip().rstrip("。.!！")
    if asked in ("commute", "lives_in", "works_at", "allergy"):  # the value comes first: "Mostly the Overground, unless…"
        t = re.split(r"(?<=[。.!！])\s*", t)[0].rstrip("。.!！") if len(t) > 30 else t
        t = re.split(r",\s*(?:unless|but|though|except)\b", t)[0]
    if asked is None or len(t) > 40 or re.search(r"[?？]", t) or _CONFIRM.match(text.strip()) \
            or re.match(r"(?i:no|nope|not|none|nothing|没有|不用|都行|随便|不是|不)", t):
        return None
    if asked == "name":
        m = re.match(r"^(?:just |叫我)?((?-i:[A-Z])[\w.]*(?: (?-i:[A-Z])[\w.]*)?|[\u4e00-\u9fff]{1,4}?)"
                     r"(?: is fine| please| works|就行|就好|就可以|吧)?$", t, re.I)
        return _Raw("name", m.group(1)) if m else None
    if asked == "commute":  # "骑电驴", "挤公交呗，还能咋", "walk, it's ten mins", "bus, mostly"
        first = re.split(r"[，,。.;；]", t)[0].strip()
        if _is_zh(first):
            found = _zh_commute(f"{re.sub(r'(?:呗|吧|啊|呀)$', '', first)}上班", "上班")
        else:
            word = re.sub(r"^(?:I |mostly |usually |by |the )+", "", first, flags=re.I).strip().lower()
            word = re.sub(r" (?:mostly|usually|normally)$", "", word)
            found = _en_commute(f"I {word} to work") or _en_commute(f"I take the {word} to work")
        return found
    if asked == "budget_limit":
        zh = _is_zh(t)
        amt = _zh_budget_amount(t) if zh else (_en_amount(t) or _en_bare_limit(f"max {re.sub(r'^[a-z ]*?(?=[$£€0-9])', '', t)}"))
        return _Raw("budget_limit", str(amt), value=amt.to_json()) if amt is not None else None
    if asked == "allergy":  # "海鲜里面主要是虾和蟹，其他都还好"
        t = re.sub(r"^[^，,。]{0,8}?(?:主要是|就是|只有|只对)", "", t)
    if asked in ("lives_in", "works_at", "allergy"):  # "Manchester, near Didsbury", "招商证券，做投研的"
        parts = [x.strip() for x in re.split(r"[,，.。]\s*", t) if x.strip()]
        exact = next((re.sub(r"\s*(?:to be exact|to be precise|specifically|precisely|具体是|具体来说)$", "", x) for x in parts[1:]
                      if re.search(r"to be exact|to be precise|specifically|precisely|具体", x)), None)
        t = exact or (parts[0] if parts else t)
    m = re.fullmatch(r"(?:(?:just |only |mainly |mostly )?([\w' -]{2,25})|([\u4e00-\u9fff]{1,8}))", t, re.I)
    if not m or re.search(r"\b(?:I|I'm|you|it|that|this|thanks|thank|sure|yes|ok|okay)\b", t, re.I):
        return None
    value = (m.group(1) or m.group(2)).strip()
    if asked == "diet":
        return None  # a bare food to "有什么忌口" is covered by the rules ("不吃香菜")
    return _Raw(asked, value)


_ZH_CHOICE_Q = re.compile(r"(?:倾向于?|选|用|要|定)?([^，,。？?：:]{1,12}?)还是([^，,。？?：:]{1,12}?)(?:呢|啊)?[？?]")
_EN_CHOICE_Q = re.compile(r"(?:^|[,:]\s*|\b(?:use|pick|choose|prefer|go with|want|like)\s+)(?:the\s+)?"
                          r"([\w.+#'-]+(?: [\w.+#'-]+){0,3}?) or (?:the\s+)?([\w.+#'-]+(?: [\w.+#'-]+){0,3}?)"
                          r"(?: for (?:the |a |our |your )?[\w' -]+)?\?|"
                          r"\bbetween (?:the\s+)?([\w.+#'-]+(?: [\w.+#'-]+){0,3}?) and (?:the\s+)?([\w.+#'-]+(?: [\w.+#'-]+){0,3}?)\?",
                          re.I)


def _answer_choice(text: str, question: str, when: datetime, project: bool) -> list[_Raw]:
    """An answer naming one option of the assistant's "X还是Y？" / "X or Y?": that option chosen, with its full name
    ("园区吧" to "酒店宴会厅还是创意园区？" -> 创意园区), and the other one rejected when the answer says so."""
    m = _ZH_CHOICE_Q.search(question) or _EN_CHOICE_Q.search(question)
    if not m or not (project or re.search(r"倾向|选|用|定|方案|想去|打算去|要去|\b(?:prefer|go with|use|pick|choose|should we|"
                                            r"shall we|decide|decided)\b",
                                            question, re.I)):
        return []  # "Tea or coffee?" asks for a choice of the moment
    if re.search(r"平时|一般|通常|平常|习惯|\b(?:usually|normally|generally|tend to)\b", question, re.I):
        return []  # "你平时用Mac还是Windows？" asks about a habit, not a decision
    options = [re.sub(r"^.*(?:倾向于|倾向|选|用|定|想要|打算|是|想去|要去)(?=.{2})", "", o).strip() for o in m.groups() if o]
    norm = [o.casefold() for o in options]

    def full(name: str) -> str | None:
        n = name.casefold().strip()
        hits = [o for o, k in zip(options, norm, strict=True) if n and len(n) >= 2 and (n in k or k in n)]
        hits = hits if len(hits) == 1 else [o for o in hits if o.casefold() == n]
        return hits[0] if len(hits) == 1 else None

    first = re.split(r"[，,。.;；!！]\s*", text.strip())[0]
    first = re.sub(r"^(?:(?:我|我们)?(?:选|用|要|定|倾向|去)|(?:let's |we'll )?(?:go with|use|pick)\s+|the\s+)|(?:吧|呗|啊|呀|吧。)$", "",
                   first.strip(), flags=re.I).strip()
    chosen = full(first) if len(first) <= max(len(o) for o in options) + 4 else None
    if chosen is None:
        return []
    out = [_Raw("decision", chosen)]
    for r in _raw_facts(text, when, project=True):
        said_no = (r.predicate == "decision" and r.polarity == "negative") or r.predicate == "dislikes"  # "X's a no"
        if said_no and (other := full(r.object)) and other != chosen:
            out.append(_Raw("decision", other, "negative"))
    return out


_ZH_WHEN = r"什么时候|哪天|哪一天|几号|何时|啥时候|(?:日期|时间|日子)(?:定了吗|定好了吗|确定了吗)"


def _answer_when(text: str, question: str, when: datetime) -> _Raw | None:
    """A time given in answer to the assistant's "when": the event asked about becomes a plan ("新版官网计划什么时候
    上线？" "月底吧" -> 上线新版官网), or a todo when the user promises it ("竞品分析什么时候能给我？" "今晚发你")."""
    t = text.strip()
    if not (find_times(t, when) or re.search(r"今晚|今天|月底|月初|周末|tonight|end of the month", t, re.I)):
        return None
    zh = _is_zh(question)
    sent = next((x for x in re.split(r"(?<=[。！!？?])\s*", question) if re.search(rf"{_ZH_WHEN}|\bwhen\b", x, re.I)), "")
    if not sent:
        return None
    if zh:
        m = re.search(rf"([^，,。：:]{{2,12}}?)(?:打算|计划|准备|预计)?(?:安排在|定在|放在)?(?:{_ZH_WHEN})(?:能|要|会|可以)?"
                      rf"([\u4e00-\u9fff]{{0,4}}?)(?:给我(?:一份)?)?(?:呢|啊)?[？?]", sent)
        if not m:
            return None
        thing, verb = re.sub(r"^(?:您|你|咱们|我们)", "", m.group(1)), m.group(2)
        promise = re.search(r"(发|给|交|传)(?:给)?你", t)
        if promise:
            return _Raw("todo", promise.group(1) + thing)
        return _Raw("plan", f"{verb}{thing}" if verb and verb not in ("做", "弄", "搞") else thing)
    own = re.search(r"\bto ([a-z][\w' -]{2,40}?)[.!]?$", t, re.I)
    m = re.search(r"\bwhen (?:is|are|will|do you want to|should we|shall we|do we|are we|can you|will you|would you like to)"
                  r"(?: do| have| hold| run| start)? (?:the |your |our |a )?([\w' -]{2,40}?)(?: booked(?: for)?| scheduled(?: for)?|"
                  r" happening| be done| happen| going to happen| due)?\?", sent, re.I)
    if own:
        return _Raw("plan", own.group(1))  # "Next Tuesday, to move the sink."
    if m and re.search(r"\bI'll\b|\bsend (?:it|you)\b", t, re.I):
        return _Raw("todo", m.group(1))
    return _Raw("plan", m.group(1)) if m else None


def _put_forward(text: str) -> str:
    """What an assistant turn puts forward for the user to confirm: its guesses and questions ("I assume you eat
    gluten-free, right? I'll skip the bakeries." -> the first sentence). A plain statement puts nothing forward:
    "好的好的" after "按计划4月11日就能完工" confirms no fact about the user."""
    sents = [x.strip() for x in re.split(r"(?<=[。！!？?])|(?<=\.)\s+", text) if x.strip()]
    # a proposal followed by a bare tag question ("…capping spend at $8,000. Okay?", "建议定在四万元，可以吗？")
    sents = [f"{x}?" if i + 1 < len(sents) and re.fullmatch(_TAG_QUESTION, sents[i + 1], re.I) else x
             for i, x in enumerate(sents)]
    sents = [re.sub(rf"[，,]\s*{_TAG_QUESTION}$", "?", x, flags=re.I) for x in sents
             if not re.fullmatch(_TAG_QUESTION, x, re.I)]
    put = [x for x in sents if re.search(r"[?？]$", x) or _AGENT_HEDGE.search(x) or _OFFERED_REMINDER.search(x)]
    if not put:  # what the assistant says it remembers of the user: "我记得您不吃猪肉，…", "You don't drink alcohol, so…"
        put = [m.group(1) or m.group(2) for x in sents if (m := _RECALLED.match(x))]
    return " ".join(re.sub(r"\?$", ".", re.sub(r"？$", "。", _OFFER_LEAD.sub("", x))) for x in put)


# an assistant's sentence that states what it knows of the user, up to the first comma or "so"
_RECALLED = re.compile(r"^(?:我记得|记得)((?:您|你)[^，,。；;]+)|^((?:You|You're|You've)\b[^,.;]+?)(?:,? so\b|[,.;]|$)")


_TAG_QUESTION = (r"(?:okay|ok|alright|all right|sound good|does that work|right|(?:您|你)?看?(?:可以吗|行吗|好吗|怎么样|呢)|可以不|"
                 r"行不行|要定下来吗|定下来吗|就这么定吗|要记下来吗|"
                 r"(?:shall|should) I (?:record|note|log|save|write|put) (?:that|it|this)(?: down)?(?: as (?:the|a) decision)?)[?？]")
# an assistant's offer the user can accept: a reminder ("I'll remind you next Monday to…", "明天提醒您…")
_OFFERED_REMINDER = re.compile(r"提醒您|提醒你|\bremind you\b", re.I)
# what leads into a proposal or an offer: "确认一下：", "那我记下了：", "Just to confirm:"
_OFFER_LEAD = re.compile(r"^(?:[^：:]{0,8}[：:]\s*)?(?=.*(?:提醒|remind|用|选|定|\b(?:use|go with|host|on)\b))|"
                         r"^(?:just )?to confirm[:,]?\s*", re.I)


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
    if prev is not None and prev.speaker != "user" and not is_correction and re.search(r"[?？]", prev.text):
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
        if _CONFIRM.match(text) and not _DECLINE.match(text) and not is_correction:
            # accepting a proposal makes it a decision, as in a project conversation ("要不用Next.js？" "行")
            confirmed = _raw_facts(_from_assistant(_put_forward(prev.text)), turn.time, allow_question=True,
                                   project=True)
            return [_fact(turn, r, "user_confirmed", 0.9) for r in confirmed]
        if re.search(r"address you|call you|称呼您|称呼你|怎么叫您", prev.text, re.I):
            m = re.match(r"^(?:just |叫我)?([A-Z][\w.]*(?: [A-Z][\w.]*)?|[\u4e00-\u9fff]{1,4}?)"
                         r"(?: is fine| please|就行|就好|就可以)?[.。!！]?$", text)
            if m:
                return [_fact(turn, _Raw("name", m.group(1)), "user_explicit", 0.9)]
        # "不是江宁啦，是河西": the value after 是 answers the guess
        m = _ANSWER_CORRECTION.match(re.sub(r"^(不是|不对)[^，,。]{1,10}?[，,]\s*(?=是)", r"\1，", text))
        if m and re.search(r"[不没想就了只吧呢]|今天|现在", m.group(1)):
            m = None  # "不是，就今天不想吃": a declined guess, no new value
        if m:
            guessed = _raw_facts(_from_assistant(prev.text), turn.time, allow_question=True, project=project) \
                or [_Raw(p, "") for p, cue in _GUESS_CUES if re.search(cue, prev.text, re.I)][:1]
            if guessed:
                g = guessed[0]
                r = _Raw(g.predicate, re.sub(r"(?<=..)[啦呀哦呢]$", "", m.group(1).strip().rstrip(".")), g.polarity, "correction")
                return [_fact(turn, r, "user_explicit", 0.9)]
        m = re.match(r"^(?:no|nope|not really|actually)[,.]?\s+(I (?:walk|cycle|bike|drive|take the \w+|get the \w+|"
                     r"ride my \w+))\b", text, re.I)
        guessed = _raw_facts(_from_assistant(prev.text), turn.time, allow_question=True, project=project) if m else []
        if m and guessed and guessed[0].predicate == "commute":  # "I'm guessing you take the bus?" "No, I walk."
            found = [r for r in _raw_facts(f"{m.group(1)} to work", turn.time) if r.predicate == "commute"]
            return [_fact(turn, _Raw("commute", r.object, r.polarity, "correction"), "user_explicit", 0.9)
                    for r in found]
    if not raws and context and (is_correction or _EVOLUTION.search(text)):
        # a bare corrected or changed amount ("是七千不是九千", "Oops, typo - $2,500.", "从下个月起降到两千")
        earlier = _earlier_budget(context)
        amt = _bare_amount(text, earlier) if earlier is not None else None
        if amt is not None:
            raws = [_Raw("budget_limit", str(amt), value=amt.to_json())]
    if not raws and is_correction and context:
        raws = _value_correction(text, context)
    raws = _alcohol_named_once(_drop_implied_abstentions(_drop_unnamed_pets(raws)))
    # "X不吃/不喝" also read as a dislike, "AWS就算了" also as a rejection: keep the diet or decision fact only
    abstain = {r.object for r in raws if r.polarity == "negative" and r.predicate in ("diet", "decision")}
    raws = [r for r in raws if not (r.predicate == "dislikes" and r.object in abstain)]
    allergens = {r.object.casefold() for r in raws if r.predicate == "allergy"}  # "no nuts - allergic": the allergy
    raws = [r for r in raws if not (r.predicate == "diet" and r.polarity == "negative" and r.object.casefold() in allergens)]
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


def _bare_amount(text: str, earlier: _Raw) -> Amount | None:
    """The amount a turn gives once a budget is being corrected or changed: money found in it, or a plain number
    ("降到五百", "No, I said 4,000"), in CNY for Chinese or in the earlier budget's currency for English."""
    if _is_zh(text):
        head = re.split(r"不是", text.replace("不是，", "", 1))[0] or text
        found = find_amounts(head)
        if found:
            a = found[0][2]
            return Amount(a.value, a.currency or "CNY")
        num = re.search(r"(?:到|是|成|为)([零〇一二两三四五六七八九十百千万]{2,8}|\d+(?:\.\d+)?)", head)
        value = parse_cn_number(num.group(1)) if num else None
        return Amount(Decimal(value), "CNY") if value else None
    amt = _en_amount(text)
    bare = re.search(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*(k)?\b", re.split(r",?\s+not\s+", text)[0],
                     re.I) if amt is None else None
    if bare:
        amt = Amount(Decimal(bare.group(1).replace(",", "")) * (1000 if bare.group(2) else 1), None)
    if amt is not None and amt.currency is None and earlier.value:
        amt = Amount(amt.value, earlier.value.get("currency"))
    return amt


def _earlier_budget(context: Sequence[Turn]) -> _Raw | None:
    """The user's last budget in the context, or a stand-in when a user turn only talks of one ("预算你帮我算个数")."""
    for t in reversed(context):
        if t.speaker != "user":
            continue
        found = [r for r in _raw_facts(t.text, t.time) if r.predicate == "budget_limit"]
        if found:
            return found[-1]
    if any(t.speaker == "user" and re.search(r"预算|budget|\bcap\b", t.text, re.I) for t in context):
        return _Raw("budget_limit", "")
    return None


def _drop_unnamed_pets(raws: list[_Raw]) -> list[_Raw]:
    """"柯基" next to "柯基（豆豆）" (or "cat" next to "cat (Salt)") is the same animal: keep the named one."""
    named = {re.split(r"[（(]", r.object)[0].strip().casefold() for r in raws
             if r.predicate == "pet" and re.search(r"[（(]", r.object)}
    # "家里两只猫，布偶猫叫年糕…", "两只狗，金毛叫大黄…": a bare animal class heads the named pets of the turn
    return [r for r in raws if not (r.predicate == "pet" and named and (
        r.object.casefold() in _GENERIC_ANIMALS or any(n.endswith(r.object.casefold()) for n in named)))]


_GENERIC_ANIMALS = {"猫", "狗", "犬", "鸟", "鱼", "小猫", "小狗", "猫咪", "狗狗", "cat", "cats", "dog", "dogs", "bird", "birds",
                    "fish", "pet", "pets", "kitten", "puppy", "pup", "kitty"}


_ALCOHOL_WORDS = re.compile(r"^(?:booze|the booze|drink|drinking|the drink|alcohol|grog|the sauce)$", re.I)
_MEATLESS_DIETS = {"素食", "吃素", "vegan", "vegetarian"}
_MEAT = re.compile(r"^(?:肉|荤|荤菜|肉类|meat|any meat|animal products)$", re.I)


def _alcohol_named_once(raws: list[_Raw]) -> list[_Raw]:
    """"off the booze", "off the drink": one word for alcohol."""
    return [dataclasses.replace(r, object="alcohol") if r.predicate == "diet" and _ALCOHOL_WORDS.match(r.object) else r
            for r in raws]


def _drop_implied_abstentions(raws: list[_Raw]) -> list[_Raw]:
    """A meat abstention next to a meatless diet restates it ("我改吃素了，肉一口都不碰"), as does 糖 next to 戒糖."""
    quitting = {r.object[1:] for r in raws if r.predicate == "diet" and r.polarity == "positive" and r.object.startswith("戒")}
    raws = [r for r in raws if not (r.predicate == "diet" and r.polarity == "negative" and r.object in quitting)]
    if not any(r.predicate == "diet" and r.object.lower() in _MEATLESS_DIETS for r in raws):
        return raws
    return [r for r in raws if not (r.predicate == "diet" and r.polarity == "negative" and _MEAT.match(r.object))]


def _value_correction(text: str, context: Sequence[Turn]) -> list[_Raw]:
    """"是X，不是Y" / "I meant X, not Y": the user's earlier fact with Y, now X."""
    m = re.search(r"(?:是|我在|我住在?)([^，,。不]{1,12})[，,]?\s*不是([^，,。]{1,12})", text) \
        or re.search(r"(?:I meant|it's|it is|I'm at|I am at|I work at|I'm in|I live in)\s+([\w' -]+?),?\s+not\s+"
                     r"([\w' -]+?)[.!]?(?:\s|$)", text, re.I)
    if not m:
        return _bare_value_correction(text, context)
    new, old = m.group(1).strip(), m.group(2).strip()
    for t in reversed(context):  # the user's own earlier value, or one the assistant stated
        said = t.text if t.speaker == "user" else _from_assistant(t.text)
        for r in _raw_facts(said, t.time, allow_question=True):
            if old.casefold() in r.object.casefold():
                return [_Raw(r.predicate, new, r.polarity, "correction")]
    for t in reversed(context):  # the old value inside a longer text: "Senior analyst at Accenture, …"
        for predicate, cue in _VALUE_CUES:
            if re.search(cue.format(old=re.escape(old)), t.text, re.I):
                return [_Raw(predicate, new, "positive", "correction")]
    return []


# what an assistant's guess is about when no rule reads it: "You're at Deloitte, right?"
_GUESS_CUES = (
    ("works_at", r"\b(?:you're|you are|you work) (?:at|for|with) [A-Z]|您?(?:在|是)[^，,。]{1,10}(?:工作|上班)"),
    ("lives_in", r"\b(?:you live|you're based|you are based|you're in|you are in) (?:in |near |around )?[A-Z]|住在"),
)
# how a value is introduced when no rule reads the sentence it is in: "{old}" stands for the value
_VALUE_CUES = (
    ("works_at", r"\b(?:at|for|joined)\s+{old}\b|在{old}(?:上班|工作|实习)|(?:工作单位|单位|公司|雇主)(?:是|：|:)\s*{old}"),
    ("lives_in", r"\b(?:live|living|lives|based|home)\b[\w ]{{0,12}}\b(?:in|near)\s+{old}\b|住在?{old}"),
)


_CORRECTED_VALUE = re.compile(
    r"(?:^|[，,。\s])是([\u4e00-\u9fff\w]{1,12})[。.!！]?$|"
    r"^(?:wait,? |sorry,? |oops,? )?(?:no|nope|sorry|oops)?[,.]?\s*(?:I meant |I said |it's |it is |make that |should be )?"
    r"((?-i:[A-Z])[\w'.-]*(?: (?-i:[A-Z])[\w'.-]*)*)[.!]?$", re.I)
_SINGLE_VALUED = ("lives_in", "works_at", "name", "commute")


def _bare_value_correction(text: str, context: Sequence[Turn]) -> list[_Raw]:
    """"说错了，是海淀" / "wait no, Worthing": the new value for the user's last single-valued fact."""
    if re.search(r"[\u4e00-\u9fff]", text):  # "哦不对，我说错了，是海珠区，天河是我上班的地方": the part that is "是X"
        parts = re.split(r"[，,。]\s*|\s+(?=是)", text.strip())
        tries = [p for p in parts if re.fullmatch(r"是[^，,。]{1,12}[。.!！]?", p)] + parts[-1:]
    else:  # "sorry, I meant Balham - Clapham's where I work out", "Sorry, I meant Crawley, autocorrect…"
        head = re.split(r"\s+[-–—]\s+|;\s*", text.strip())[0]
        tries = [head, re.sub(r",\s+[a-z][^,]*$", "", head), text.strip()]
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
