"""Amounts of money in Chinese and English, normalised so numbers compare exactly.

``parse_amount(text)`` reads one whole expression ("五千元" -> 5000 CNY);
``find_amounts(text)`` finds every amount inside a sentence, with its span.
``parse_cn_number(text)`` converts a (possibly mixed) Chinese numeral.

Covered forms
-------------
* Arabic numbers, with thousands separators and decimals: ``5000``,
  ``12,000``, ``1.5``.
* Chinese numerals, exactly: 零/〇, 一…九, 两, 十/百/千/万/亿 (and the financial
  forms 壹贰叁肆伍陆柒捌玖拾佰仟萬億), decimals with 点 (一点五万 = 15000),
  digit strings (二〇二六 = 2026), the spoken abbreviation of a trailing digit
  (一万二 = 12000, 两千五 = 2500, 三百五 = 350; but 一万零二 = 10002), and
  digits mixed with units (1.5万, 3千, 1万2 = 12000, 12万5千).
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
* "pounds"/"quid" (GBP) and "grand" (thousand) after Arabic numbers in
  ``find_amounts``: "300 quid", "3 grand".

Not covered: ranges
("三五千", "5-6k"), negative amounts, 角/毛/分, fractions (半).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation, localcontext
from fractions import Fraction

__all__ = ["Amount", "find_amounts", "parse_amount", "parse_cn_number", "parse_en_number_words"]


@dataclass(frozen=True)
class Amount:
    """An amount of money: an exact ``Decimal`` value and an ISO 4217 code or None."""

    value: Decimal
    currency: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", _normal(Decimal(self.value)))

    def to_json(self) -> dict[str, int | float | str | None]:
        """``{"amount": number, "currency": code or None}``; whole amounts as int."""
        if self.value == self.value.to_integral_value():
            number: int | float = int(self.value)
        else:
            number = float(self.value)
        return {"amount": number, "currency": self.currency}

    def __str__(self) -> str:
        return f"{self.value} {self.currency}" if self.currency else str(self.value)


_PRECISION = 80  # digits: enough for any numeral parse_cn_number accepts, exactly
_MAX_DIGITS = 30  # longer digit runs are not amounts (ids, phone numbers, noise)


def _normal(value: Decimal) -> Decimal:
    """The value without an exponent or trailing zeros (5E+3 -> 5000, 1.50 -> 1.5)."""
    with localcontext() as ctx:
        ctx.prec = _PRECISION
        try:
            if value == value.to_integral_value():
                return value.quantize(Decimal(1))
            return value.normalize()
        except InvalidOperation:  # more digits than _PRECISION: keep it as given
            return value


# ---------------------------------------------------------------- Chinese numerals

_CN_DIGITS: dict[str, int] = {
    "零": 0, "〇": 0, "一": 1, "壹": 1, "二": 2, "贰": 2, "貳": 2, "两": 2, "兩": 2,
    "三": 3, "叁": 3, "參": 3, "四": 4, "肆": 4, "五": 5, "伍": 5, "六": 6, "陆": 6,
    "陸": 6, "七": 7, "柒": 7, "八": 8, "捌": 8, "九": 9, "玖": 9,
}
_CN_SMALL: dict[str, int] = {"十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000}
_CN_BIG: dict[str, int] = {"万": 10**4, "萬": 10**4, "亿": 10**8, "億": 10**8}
_CN_CHARS = "".join(_CN_DIGITS) + "".join(_CN_SMALL) + "".join(_CN_BIG)
_DECIMAL_POINT = "点"

_ARABIC = r"\d++(?:,\d{3})*+(?:\.\d++)?+"
_TOKEN_RE = re.compile(rf"({_ARABIC})|(.)", re.S)

# token kinds
_NUM, _ZERO, _SMALL, _BIG, _POINT = range(5)


def _tokens(text: str) -> list[tuple[int, Decimal, bool]] | None:
    """(kind, value, single_digit) per token, or None for a foreign character."""
    out: list[tuple[int, Decimal, bool]] = []
    for m in _TOKEN_RE.finditer(text):
        if m.group(1):
            if sum(ch.isdigit() for ch in m.group(1)) > _MAX_DIGITS:
                return None
            try:
                value = Decimal(m.group(1).replace(",", ""))
            except InvalidOperation:  # pragma: no cover - the regex admits digits only
                return None
            single = len(m.group(1)) == 1 and value != 0
            out.append((_NUM, value, single))
            continue
        ch = m.group(2)
        if ch in _CN_DIGITS:
            digit = _CN_DIGITS[ch]
            out.append((_ZERO, Decimal(0), False) if digit == 0 else (_NUM, Decimal(digit), True))
        elif ch in _CN_SMALL:
            out.append((_SMALL, Decimal(_CN_SMALL[ch]), False))
        elif ch in _CN_BIG:
            out.append((_BIG, Decimal(_CN_BIG[ch]), False))
        elif ch == _DECIMAL_POINT:
            out.append((_POINT, Decimal(0), False))
        else:
            return None
    return out


def _merge_points(tokens: list[tuple[int, Decimal, bool]]) -> list[tuple[int, Decimal, bool]] | None:
    """Fold ``N 点 d d d`` (Chinese decimals) into one number token; None if malformed."""
    out: list[tuple[int, Decimal, bool]] = []
    i = 0
    while i < len(tokens):
        kind = tokens[i][0]
        if kind != _POINT:
            out.append(tokens[i])
            i += 1
            continue
        if not out or out[-1][0] not in (_NUM, _ZERO) or out[-1][1] != out[-1][1].to_integral_value():
            return None
        digits: list[str] = []
        j = i + 1
        while j < len(tokens) and tokens[j][0] in (_NUM, _ZERO) and (tokens[j][2] or tokens[j][0] == _ZERO):
            digits.append(str(int(tokens[j][1])))
            j += 1
        if not digits:
            return None
        whole = out.pop()
        out.append((_NUM, Decimal(f"{int(whole[1])}.{''.join(digits)}"), False))
        i = j
    return out


def parse_cn_number(text: str) -> Decimal | None:
    """The exact value of a Chinese (or mixed Chinese/Arabic) numeral.

    "六千五百" -> 6500, "一万二" -> 12000, "1.5万" -> 15000, "二〇二六" -> 2026,
    "十" -> 10. Returns None when ``text`` is empty, holds anything else, or is
    not a well-formed numeral ("千万", "五百千", "三五").
    """
    with localcontext() as ctx:
        ctx.prec = _PRECISION
        return _parse_cn_number(text)


def _parse_cn_number(text: str) -> Decimal | None:
    raw = _tokens(text.strip()) if text else None
    if not raw:
        return None
    tokens = _merge_points(raw)
    if not tokens:
        return None
    # A plain digit string of three or more: 二〇二六, 一二三 (Chinese digits only,
    # no units); two digits (三五) is a rough range, not a number.
    if len(tokens) > 2 and all(
        (k == _ZERO or (k == _NUM and single)) for k, _, single in tokens
    ) and all(ch in _CN_DIGITS for ch in text.strip()):
        return Decimal("".join(str(int(v)) for _, v, _ in tokens))
    if len(tokens) == 1:
        kind, value, _ = tokens[0]
        if kind in (_NUM, _ZERO):
            return value
        if kind == _SMALL and value == 10:
            return value
        return None

    total_yi = Decimal(0)  # the part counted in 亿
    total_wan = Decimal(0)  # the part counted in 万 (below 亿)
    section = Decimal(0)  # below 万
    num: Decimal | None = None
    num_single = False
    last_unit: Decimal | None = None
    prev_small: Decimal | None = None
    zero_gap = False
    prev_kind: int | None = None
    for kind, value, single in tokens:
        if kind == _ZERO:
            if num is not None:
                return None
            zero_gap = True
        elif kind == _NUM:
            if num is not None:
                return None
            num, num_single = value, single
        elif kind == _SMALL:
            if num is None:
                # 十 may stand alone at the start or after 零 / a big unit (十五, 一千零十).
                if value != 10 or prev_kind == _SMALL:
                    return None
                num = Decimal(1)
            if prev_small is not None and value >= prev_small:
                return None
            section += num * value
            prev_small, last_unit, num, zero_gap = value, value, None, False
        elif kind == _BIG:
            part_below = section + (num if num is not None else 0)
            if value == 10**4:
                if total_wan or part_below == 0:
                    return None
                total_wan = part_below * value
            else:
                if total_yi or (total_wan + part_below) == 0:
                    return None
                total_yi = (total_wan + part_below) * value
                total_wan = Decimal(0)
            section, num, prev_small, last_unit, zero_gap = Decimal(0), None, None, value, False
        prev_kind = kind
    tail = Decimal(0)
    if num is not None:
        if last_unit is not None and not zero_gap and num_single and last_unit >= 100:
            tail = num * last_unit / 10  # 一万二 = 12000, 两千五 = 2500
        else:
            if last_unit is not None and num >= last_unit:
                return None
            tail = num
    return _normal(total_yi + total_wan + section + tail)


# ---------------------------------------------------------------- currencies

_PREFIX_SYMBOLS: dict[str, str] = {
    "US$": "USD", "HK$": "HKD", "$": "USD", "¥": "CNY", "￥": "CNY", "€": "EUR", "£": "GBP",
    "人民币": "CNY",
}
_PREFIX_CODES: dict[str, str] = {
    "rmb": "CNY", "cny": "CNY", "usd": "USD", "eur": "EUR", "gbp": "GBP", "jpy": "JPY", "hkd": "HKD",
}
_SUFFIX_CJK: dict[str, str] = {
    "元人民币": "CNY", "块钱": "CNY", "元钱": "CNY", "人民币": "CNY", "元": "CNY", "圆": "CNY",
    "块": "CNY", "美元": "USD", "美金": "USD", "美刀": "USD", "欧元": "EUR", "欧": "EUR",
    "英镑": "GBP", "日元": "JPY", "日币": "JPY", "港币": "HKD", "港元": "HKD",
}
_SUFFIX_WORDS: dict[str, str] = {
    "rmb": "CNY", "cny": "CNY", "yuan": "CNY", "kuai": "CNY", "usd": "USD", "dollars": "USD",
    "dollar": "USD", "bucks": "USD", "eur": "EUR", "euros": "EUR", "euro": "EUR", "gbp": "GBP",
    "jpy": "JPY", "yen": "JPY", "hkd": "HKD",
}
_MAGNITUDES: dict[str, int] = {
    "k": 1000, "thousand": 1000, "m": 10**6, "million": 10**6, "billion": 10**9,
}
_STRONG_MAGNITUDE_CHARS = set("千仟万萬亿億")

# After these suffixes, these following characters mean the suffix is not a currency
# (元旦 New Year's Day, 欧洲 Europe) ...
_SUFFIX_BLOCKERS: dict[str, str] = {
    "元": "旦素宵帅首气老年件",
    "欧": "洲美式盟文巴",
}
# ... and 块 (also a classifier: 三块蛋糕) counts only before these or a non-Han character.
_KUAI_FOLLOWERS = set("的了吧啊呢吗呀哦哈嘛左以上下多每一和或到至就都也还给买")
# A number without currency followed by one of these is a count or measure, not money.
_MEASURE_CHARS = set(
    "年月日号號点時时分秒天周个個位名人次米里克斤吨字岁歲件台张張本条條步层楼度倍%％"
    "公英千毫厘屏平方页頁部套间間辆輛家所只支瓶杯碗斤磅行号场場届届期集章节節句题題票"
)


def _alt(words: Iterable[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_AMOUNT_RE = re.compile(
    r"(?<![A-Za-z0-9.,])"
    rf"(?:(?P<pre>{_alt(_PREFIX_SYMBOLS)}|(?i:{_alt(_PREFIX_CODES)})(?![A-Za-z]))\s?)?"
    rf"(?P<num>(?:{_ARABIC}|[{_CN_CHARS}{_DECIMAL_POINT}])++)"
    r"(?P<mag>[kK](?![A-Za-z])|M(?![A-Za-z])|\s?(?i:thousand|million|billion)(?![A-Za-z]))?"
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
        if len(num_text) >= 3 and num_text[-1] == "一" and num_text[-2] in _CN_SMALL | _CN_BIG \
                and nxt in _MEASURE_CHARS:
            num_text, num_end = num_text[:-1], num_end - 1
            end, following = num_end, "一"
        else:
            end = num_end
            following = nxt
    if suf == "块" and num_text == "一":
        return None  # 一块 = together
    value = parse_cn_number(num_text)
    if value is None:
        return None
    if mag is not None:
        with localcontext() as ctx:
            ctx.prec = _PRECISION
            value *= _MAGNITUDES[mag.strip().lower()]
    pre_cur = _currency(m.group("pre"), prefix=True)
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

_EN_UNITS: dict[str, int] = {
    "zero": 0, "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
    "ninety": 90,
}
_EN_SCALES: dict[str, int] = {"hundred": 100, "thousand": 1000, "grand": 1000, "million": 10**6}
_EN_WORD_CURRENCY: dict[str, str] = {
    **_SUFFIX_WORDS, "pounds": "GBP", "pound": "GBP", "quid": "GBP",
}
_EN_WORD = rf"(?:{_alt(set(_EN_UNITS) | set(_EN_SCALES) | {'half'})})"
_EN_WORDS_RE = re.compile(
    rf"(?<![A-Za-z])(?P<num>{_EN_WORD}(?:(?:[\s-]+|\s+and\s+){_EN_WORD})*)"
    rf"(?:\s+(?P<cur>{_alt(_EN_WORD_CURRENCY)}))?(?![A-Za-z])",
    re.I,
)
_ARABIC_EN_RE = re.compile(
    rf"(?<![A-Za-z0-9.,])(?P<num>{_ARABIC})\s*(?P<cur>pounds?|quid|grand)(?![A-Za-z])", re.I)


def parse_en_number_words(text: str) -> int | None:
    """The value of an English number in words ("fifteen hundred" -> 1500, "two and a half thousand" -> 2500), or
    None when it is not a whole number."""
    words = [w for w in re.split(r"[\s-]+", text.strip().lower()) if w and w != "and"]
    words = [w for i, w in enumerate(words) if not (w in ("a", "an") and words[i + 1:i + 2] == ["half"])]
    if not words:
        return None
    total = current = Fraction(0)
    seen_number = False
    for w in words:
        if w == "half":
            if not seen_number:
                return None
            current += Fraction(1, 2)
        elif w in _EN_UNITS:
            if w in ("a", "an") and seen_number:
                return None
            current += _EN_UNITS[w]
            seen_number = True
        elif w in _EN_SCALES and seen_number:
            scale = _EN_SCALES[w]
            if scale == 100:
                current *= 100
            else:
                total += current * scale
                current = Fraction(0)
        else:
            return None
    value = total + current
    return int(value) if value.denominator == 1 else None


def _word_amounts(text: str) -> list[tuple[int, int, Amount]]:
    """Amounts written with English number words or with pounds/quid/grand after digits."""
    found: list[tuple[int, int, Amount]] = []
    for m in _EN_WORDS_RE.finditer(text):
        words = m.group("num").lower().split()
        cur = m.group("cur")
        has_scale = any(w in _EN_SCALES for w in re.split(r"[\s-]+", m.group("num").lower()))
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
            found.append((m.start(), m.end(), Amount(number * 1000, None)))
        else:
            found.append((m.start(), m.end(), Amount(number, "GBP")))
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
