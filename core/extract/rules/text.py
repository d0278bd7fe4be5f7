"""What every part of the rule extractor reads text with: the named patterns of ``data/rules/*.toml``,
compiled once when the rules load (``_P["<lang>.<name>"]``, from ``ruleset.RULES``), whether a text is Chinese,
an object cleaned of punctuation and fillers, times taken out, a literal looked for next to a pattern, the
Chinese verb phrase tidied (measure words, 把), and the correction cue."""

from __future__ import annotations

import re
from datetime import datetime

from ...lang.times import find_times
from ..interpret import Whole
from ..ruleset import RULES

_P = RULES.patterns  # every pattern, compiled once when the rules load

_CJK = _P["shared.cjk"]
_SENTENCES = _P["shared.raw_facts.2"]


def _sentences(text: str) -> list[str]:
    """The sentences of ``text`` as ``_raw_facts`` cuts them (``shared.raw_facts.2``), each with its end."""
    return _SENTENCES.findall(text)


def _asks_there(text: str, at: int) -> bool:
    """Whether the sentence of ``text`` (as ``_raw_facts`` cuts them) going on at ``at`` is a question."""
    sentence = next((m.group(0) for m in _SENTENCES.finditer(text) if m.start() <= at < m.end()), "")
    return bool(_P["shared.raw_facts.3"].search(sentence))


def _is_zh(text: str) -> bool:
    return len(_CJK.findall(text)) >= max(1, len(text) // 5)


def _clean(obj: str, zh: bool) -> str:
    obj = obj.strip(" ，,。.!！?？;；:：~～-—\"'")
    if zh:
        obj = _P["zh.clean.1"].sub("", obj) if len(obj) > 2 else obj
        obj = _P["shared.clean.1"].sub("", obj)
        obj = obj.replace("一下", "")
    else:
        obj = _P["en.clean.1"].sub("", obj)
        obj = _P["en.clean.2"].sub("", obj)
    return obj.strip(" ，,。.!！?？")


_ZH_TIME_WORDS = _P["zh.time_words"]
_ZH_TIME_AT = _P["zh.time_at"]


def _strip_times(text: str, when: datetime) -> str:
    """``text`` without the times it names, the Chinese words that put a time in its clause (在, 于) and
    the time-of-day words left after one (``zh.time_words``)."""
    out, last = [], 0
    for s, e, _ in find_times(text, when):
        at = _ZH_TIME_AT.search(text, max(last, s - 2), s)  # "要在4月9号之前办完": 在 goes with its day
        out.append(text[last:at.start() if at else s])
        last = e
        m = _ZH_TIME_WORDS.match(text, last)
        if m:
            last = m.end()
    out.append(text[last:])
    res = "".join(out)
    res = _P["en.strip_times.1"].sub("", res)
    res = _P["zh.strip_times.1"].sub("", res)
    return _P["shared.strip_times.1"].sub(" ", res).strip(" ，,")


def _lead(pattern: re.Pattern[str], text: str) -> int:
    """The length of what ``pattern`` (one that matches the empty string too) matches at the start of ``text``."""
    m = pattern.match(text)
    return m.end() if m else 0


_LOOK_BACK = 32  # what ``_preceded_by`` reads before the literal: a few words ("，还有 ")


def _preceded_by(literal: str, before: re.Pattern[str], text: str) -> bool:
    """Whether ``literal`` occurs in ``text`` right after a match of ``before`` (a pattern anchored with \\Z)
    that starts at most _LOOK_BACK characters before it. For a ``Whole`` text, worked out once per literal."""
    def look() -> bool:
        i = text.find(literal)
        while i >= 0:
            if before.search(text, max(0, i - _LOOK_BACK), i):
                return True
            i = text.find(literal, i + 1)
        return False

    return text.once(("preceded_by", literal, before), look) if isinstance(text, Whole) else look()


def _match_after(literal: str, after: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The match of ``after`` right behind the first occurrence of ``literal`` in ``text`` that has one."""
    i = text.find(literal)
    while i >= 0:
        m = after.match(text, i + len(literal))
        if m:
            return m
        i = text.find(literal, i + 1)
    return None


def _introduces(text: str, value: str, before: re.Pattern[str], after: re.Pattern[str]) -> bool:
    """Whether ``value`` occurs in ``text`` (ignoring case) between a match of ``before`` and one of ``after``."""
    low, val = text.lower(), value.lower()
    if len(low) != len(text) or len(val) != len(value):
        low, val = text, value
    i = low.find(val)
    while i >= 0:
        if before.search(text, 0, i) and after.match(text, i + len(value)):
            return True
        i = low.find(val, i + 1)
    return False


def _trim_measure(obj: str) -> str:
    """Drop a bare measure word inside a verb phrase: 打个电话 -> 打电话, 参加一个行业峰会 -> 参加行业峰会."""
    obj = _P["shared.trim_measure.1"].sub("", obj)
    obj = _P["shared.trim_measure.2"].sub("", obj)
    obj = _P["shared.trim_measure.3"].sub("", obj)
    return _P["zh.trim_measure.1"].sub("", obj)


def _ba(body: str) -> str:
    """"把合同打印出来" -> "打印合同", "把报表交上去" -> "交报表": the verb before its object, without the direction
    or result after it."""
    m = _P["shared.ba.1"].fullmatch(body)
    if m:
        return m.group(2) + ("完" if m.group(3) == "完" else "") + m.group(1)
    return body


_TITLE_JOINER = "\u2060"  # word joiner: keeps "Dr." and its name in one token while clauses are split

_PRONOUN_OBJECT = _P["shared.pronoun_object"]

_CORRECTION = _P["shared.correction"]
