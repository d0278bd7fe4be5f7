"""Amounts of money in Chinese and English, normalised so numbers compare exactly.

``parse_amount(text)`` reads one whole expression ("五千元" -> 5000 CNY);
``find_amounts(text)`` finds every amount inside a sentence, with its span.
Numbers are read by ``numerals`` (``parse_cn_number``, ``parse_en_number_words``).

Covered forms
-------------
* Arabic numbers, with thousands separators and decimals: ``5000``,
  ``12,000``, ``1.5``.
* Chinese numerals, exactly, as ``numerals.parse_cn_number`` reads them
  (五千, 一万二 = 12000, 1.5万, 二〇二六 = 2026).
* Magnitudes after a number: ``k``/``K`` (thousand), ``M`` (million),
  ``thousand``/``million``/``billion``.
* Currency before the number: ``$``/``US$`` (USD), ``¥``/``￥``/``RMB``/``CNY``/
  ``人民币`` (CNY), ``€``/``EUR``, ``£``/``GBP``, ``HK$``/``HKD``, ``JPY``; codes
  case-insensitively.
* Currency after the number: 元/圆/块/块钱/人民币/rmb/cny/yuan (CNY), 美元/美金/
  美刀/usd/dollars/bucks (USD), 欧元/欧/eur/euro(s) (EUR), 英镑/gbp (GBP),
  日元/jpy/yen (JPY), 港币/港元/hkd (HKD).

Conventions: ``¥`` is read as CNY (not JPY) and "dollars" as USD; an amount
with two disagreeing currencies ("$5 EUR") is not an amount.

``find_amounts`` is stricter than ``parse_amount``: inside free text it reports
a number only when it carries a currency, or a magnitude (千/万/亿, k, thousand,
million, billion), so years, dates, counts and "第一" are not amounts. A number
without currency followed by a measure word or unit (三千人, 八千米, 4K屏) is not
an amount; 块 is a currency only when not followed by a noun (三块蛋糕 is three
pieces); "一块" alone (together) is not an amount; a trailing 一 before a measure
word is not abbreviated (八千一个月 is 8000, "a month").

* English number words before a currency word or a magnitude
  (``find_amounts`` only): "fifteen hundred pounds" = 1500 GBP, "eight hundred
  dollars", "twelve hundred dollars" = 1200 USD, "five thousand euros", "three
  grand" = 3000 (no currency), "a thousand quid".
* "pounds"/"quid" (GBP) and "grand" (thousand, with a currency word after it:
  "18 grand canadian") after Arabic numbers in ``find_amounts``: "300 quid", "3 grand".
* Chinese chat writes 万 as w ("总预算15w" = 150000): a w after a number is a magnitude only in a text with
  Chinese characters.

The currency and magnitude words are ``data/lang/currencies.toml``.

Not covered: ranges
("三五千", "5-6k"), negative amounts, 角/毛/分, fractions (半).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, localcontext
from typing import Any

from . import tables
from .numerals import (
    ARABIC,
    CN_BIG_UNITS,
    CN_CHARS,
    CN_SMALL_UNITS,
    DECIMAL_POINT,
    EN_SCALES,
    EN_UNITS,
    PRECISION,
    normal_decimal,
    parse_cn_number,
    parse_en_number_words,
)

__all__ = ["Amount", "find_amounts", "parse_amount"]


@dataclass(frozen=True)
class Amount:
    """An amount of money: an exact ``Decimal`` value and an ISO 4217 code or None."""

    value: Decimal
    currency: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", normal_decimal(Decimal(self.value)))

    @classmethod
    def from_json(cls, value: Mapping[str, Any], currency: str | None = None) -> Amount:
        """The amount ``to_json`` wrote (``{"amount": number, …}``), in ``currency`` (None: the one it
        holds). Raises KeyError when it holds no amount."""
        return cls(Decimal(str(value["amount"])), currency if currency is not None else value.get("currency"))

    def to_json(self) -> dict[str, int | float | str | None]:
        """``{"amount": number, "currency": code or None}``; whole amounts as int."""
        if self.value == self.value.to_integral_value():
            number: int | float = int(self.value)
        else:
            number = float(self.value)
        return {"amount": number, "currency": self.currency}

    def __str__(self) -> str:
        return f"{self.value} {self.currency}" if self.currency else str(self.value)


# ---------------------------------------------------------------- currencies

_PREFIX_SYMBOLS: dict[str, str] = tables.mapping("currencies", "prefix.symbols")
_PREFIX_CODES: dict[str, str] = tables.mapping("currencies", "prefix.codes")
_SUFFIX_CJK: dict[str, str] = tables.mapping("currencies", "suffix.zh")
_SUFFIX_WORDS: dict[str, str] = tables.mapping("currencies", "suffix.words")
_MAGNITUDES: dict[str, int] = tables.ints("currencies", "magnitudes")
_STRONG_MAGNITUDE_CHARS = set(tables.chars("currencies", "zh.magnitude_chars"))
# after these suffixes, these next characters mean the suffix is not a currency (元旦, 欧洲) ...
_SUFFIX_BLOCKERS: dict[str, str] = tables.mapping("currencies", "suffix.not_before")
# ... and 块 (also a classifier: 三块蛋糕) counts only before these or a non-Han character
_KUAI_FOLLOWERS = set(tables.chars("currencies", "zh.kuai_followers"))
# a number without currency followed by one of these is a count or measure, not money
_MEASURE_CHARS = set(tables.chars("currencies", "zh.measure_chars"))
_alt = tables.alternation
_LOCAL_DOLLARS = frozenset(tables.words("currencies", "dollars.local"))
_US_SAID = tuple(tables.words("currencies", "dollars.us_said"))


_AMOUNT_RE = re.compile(
    r"(?<![A-Za-z0-9.,])"
    rf"(?:(?P<pre>{_alt(_PREFIX_SYMBOLS)}|(?i:{_alt(_PREFIX_CODES)})(?![A-Za-z]))\s?)?"
    rf"(?P<num>(?:{ARABIC}|[{CN_CHARS}{DECIMAL_POINT}])++)"
    r"(?P<mag>[kK](?![A-Za-z])|M(?![A-Za-z])|w(?![A-Za-z])|\s?(?i:thousand|million|billion)(?![A-Za-z]))?"
    rf"(?:\s?(?P<suf>{_alt(_SUFFIX_CJK)}|(?i:{_alt(_SUFFIX_WORDS)})(?![A-Za-z])))?"
)


def _currency(code_text: str | None, *, prefix: bool) -> str | None:
    if code_text is None:
        return None
    if prefix:
        return _PREFIX_SYMBOLS.get(code_text) or _PREFIX_CODES.get(code_text.lower())
    return _SUFFIX_CJK.get(code_text) or _SUFFIX_WORDS.get(code_text.lower())


def _suffix_ok(suffix: str, following: str) -> bool:
    """Whether a CJK currency suffix really is one, given the next character."""
    blockers = _SUFFIX_BLOCKERS.get(suffix)
    if blockers and following and following in blockers:
        return False
    if suffix == "块" and following and _is_han(following) and following not in _KUAI_FOLLOWERS:
        return False
    return True


def _is_han(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf"


@dataclass(frozen=True)
class _Candidate:
    start: int
    end: int
    amount: Amount
    strong: bool  # has a currency or a magnitude


def _evaluate(m: re.Match[str], text: str) -> _Candidate | None:
    """Turn one regex match into a candidate, or None when the number is malformed."""
    start, num_text = m.start(), m.group("num")
    num_end = m.end("num")
    mag, suf = m.group("mag"), m.group("suf")
    end = m.end()
    following = text[end:end + 1]
    if suf is not None and not _suffix_ok(suf, following):
        suf, end = None, m.end("mag") if mag is not None else num_end
        following = text[end:end + 1]
    if suf is None and mag is None:
        # 八千一个月: the 一 begins "一个月", it does not abbreviate 一百.
        nxt = text[num_end:num_end + 1]
        if len(num_text) >= 3 and num_text[-1] == "一" and num_text[-2] in CN_SMALL_UNITS | CN_BIG_UNITS \
                and nxt in _MEASURE_CHARS:
            num_text, num_end = num_text[:-1], num_end - 1
            end, following = num_end, "一"
        else:
            end = num_end
            following = nxt
    if suf == "块" and num_text == "一":
        return None  # 一块 = together
    if mag == "w" and not any(_is_han(ch) for ch in text):
        return None  # w for 万 only in Chinese typing ("总预算15w"), not "3w" in English
    value = parse_cn_number(num_text)
    if value is None:
        return None
    if mag is not None:
        with localcontext() as ctx:
            ctx.prec = PRECISION
            value *= _MAGNITUDES[mag.strip().lower()]
    pre = m.group("pre")
    if pre is not None and len(pre) == 1 and pre.isalpha() and not (
            mag is not None or len(re.sub(r"\D", "", num_text)) >= 3) or pre is not None and pre.isalpha() \
            and following.isalpha():
        return None  # a one-letter symbol (R for rand) only before a sizeable amount: not "R2D2", "Route R1"
    pre_cur = _currency(pre, prefix=True)
    suf_cur = _currency(suf, prefix=False)
    if pre_cur and suf_cur and pre_cur != suf_cur:
        return None
    currency = pre_cur or suf_cur
    magnitude = (mag is not None and mag.strip() != "M") or bool(
        _STRONG_MAGNITUDE_CHARS & set(num_text)
    )
    strong = currency is not None or magnitude
    if currency is None and (following in _MEASURE_CHARS or following.isascii() and following.isalpha()):
        strong = False
    return _Candidate(start, end, Amount(value, currency), strong)


def parse_amount(text: str) -> Amount | None:
    """The amount that ``text`` (as a whole, surrounding blanks aside) expresses.

    "五千元" -> Amount(5000, "CNY"); "八千" -> Amount(8000, None); "$12,000" ->
    Amount(12000, "USD"). Returns None when the text is not exactly one amount
    expression (or not a string); never raises.
    """
    if not isinstance(text, str):
        return None
    stripped = text.strip()
    m = _AMOUNT_RE.fullmatch(stripped)
    if m is None:
        return None
    cand = _evaluate(m, stripped)
    if cand is None or cand.start != 0 or cand.end != len(stripped):
        return None
    return cand.amount


# ---------------------------------------------------------------- English number words

_AFTER_NUMBER_WORDS: dict[str, str] = tables.mapping("currencies", "suffix.after_number_words")
_EN_WORD_CURRENCY: dict[str, str] = {**_SUFFIX_WORDS, **_AFTER_NUMBER_WORDS}
_EN_WORD = rf"(?:{_alt(set(EN_UNITS) | set(EN_SCALES) | {'half'})})"
_EN_WORDS_RE = re.compile(
    rf"(?<![A-Za-z])(?P<num>{_EN_WORD}(?:(?:[\s-]+|\s+and\s+){_EN_WORD})*)"
    rf"(?:\s+(?P<cur>{_alt(_EN_WORD_CURRENCY)}))?(?![A-Za-z])",
    re.I,
)
_ARABIC_EN_RE = re.compile(
    rf"(?<![A-Za-z0-9.,])(?P<num>{ARABIC})\s*(?P<cur>{_alt(_AFTER_NUMBER_WORDS)}|grand)"
    rf"(?:\s+(?P<then>{_alt(_EN_WORD_CURRENCY)}))?(?![A-Za-z])", re.I)  # "18 grand canadian"


def _word_amounts(text: str) -> list[tuple[int, int, Amount]]:
    """Amounts written with English number words or with pounds/quid/grand after digits."""
    found: list[tuple[int, int, Amount]] = []
    for m in _EN_WORDS_RE.finditer(text):
        words = m.group("num").lower().split()
        cur = m.group("cur")
        has_scale = any(w in EN_SCALES for w in re.split(r"[\s-]+", m.group("num").lower()))
        if cur is None and not has_scale or words in (["a"], ["an"]):
            continue
        value = parse_en_number_words(m.group("num"))
        if value is None or value == 0:
            continue
        currency = _EN_WORD_CURRENCY.get(cur.lower()) if cur else None
        found.append((m.start(), m.end(), Amount(Decimal(value), currency)))
    for m in _ARABIC_EN_RE.finditer(text):
        unit = m.group("cur").lower()
        number = Decimal(m.group("num").replace(",", ""))
        if unit == "grand":
            then = m.group("then")
            found.append((m.start(), m.end(), Amount(number * 1000, _EN_WORD_CURRENCY[then.lower()] if then else None)))
        else:
            found.append((m.start(), m.end(), Amount(number, _AFTER_NUMBER_WORDS[unit])))
    return found


def find_amounts(text: str) -> list[tuple[int, int, Amount]]:
    """Every amount of money in ``text`` as ``(start, end, Amount)``, in order.

    Spans are character offsets into ``text`` and include the currency marks.
    Only numbers with a currency or a magnitude count (see the module doc);
    returns an empty list when there is none.
    """
    found: list[tuple[int, int, Amount]] = []
    for m in _AMOUNT_RE.finditer(text):
        cand = _evaluate(m, text)
        if cand is not None and cand.strong:
            found.append((cand.start, cand.end, cand.amount))
    if re.search(r"[A-Za-z]", text):
        for start, end, amount in _word_amounts(text):
            overlaps = [f for f in found if f[0] < end and start < f[1]]
            if all(end - start > f[1] - f[0] for f in overlaps):
                found = [f for f in found if f not in overlaps]
                found.append((start, end, amount))
        found.sort(key=lambda f: f[0])
    return found


def local_dollars(said: str | None, local: str, text: str) -> bool:
    """Whether an amount read as ``said`` (USD for a bare "$" or "dollars") in ``text`` is rather in ``local``,
    the money where the speaker lives: it is when that is another dollar and the text does not say US dollars
    ("3000 dollars for flights" said in Timaru). Raises nothing."""
    if said != "USD" or local not in _LOCAL_DOLLARS:
        return False
    folded = text.casefold()
    return not any(marker in folded for marker in _US_SAID)
