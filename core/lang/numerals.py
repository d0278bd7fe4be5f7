"""Numerals in Chinese and English: memdesk's one numeral parser, which
amounts, times and recall's folding all read numbers with.

``parse_cn_number(text)`` converts a (possibly mixed) Chinese numeral exactly:
零/〇, 一…九, 两, 十/百/千/万/亿 (and the financial forms 壹贰叁肆伍陆柒捌玖拾佰仟萬億),
decimals with 点 (一点五万 = 15000), digit strings (二〇二六 = 2026), the spoken
abbreviation of a trailing digit (一万二 = 12000, 两千五 = 2500, 三百五 = 350;
but 一万零二 = 10002), and digits mixed with units (1.5万, 3千, 1万2 = 12000,
12万5千). Ranges (三五千, 七八千) and other malformed runs are not numbers.

``parse_en_number_words(text)`` reads English number words ("fifteen
hundred" = 1500, "two and a half thousand" = 2500, "three grand" = 3000).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation, localcontext
from fractions import Fraction

from . import tables

__all__ = [
    "ARABIC", "CN_BIG_UNITS", "CN_CHARS", "CN_DIGITS", "CN_SMALL_UNITS", "DECIMAL_POINT", "EN_SCALES",
    "EN_UNITS", "PRECISION", "normal_decimal", "parse_cn_number", "parse_en_number_words",
]

PRECISION = 80  # digits: enough for any numeral parse_cn_number accepts, exactly
_MAX_DIGITS = 30  # longer digit runs are not amounts (ids, phone numbers, noise)


def normal_decimal(value: Decimal) -> Decimal:
    """The value without an exponent or trailing zeros (5E+3 -> 5000, 1.50 -> 1.5)."""
    with localcontext() as ctx:
        ctx.prec = PRECISION
        try:
            if value == value.to_integral_value():
                return value.quantize(Decimal(1))
            return value.normalize()
        except InvalidOperation:  # more digits than PRECISION: keep it as given
            return value


# ---------------------------------------------------------------- Chinese numerals

CN_DIGITS: dict[str, int] = tables.ints("numerals", "zh.digits")
CN_SMALL_UNITS: dict[str, int] = tables.ints("numerals", "zh.units")
CN_BIG_UNITS: dict[str, int] = tables.ints("numerals", "zh.big_units")
CN_CHARS = "".join(CN_DIGITS) + "".join(CN_SMALL_UNITS) + "".join(CN_BIG_UNITS)
DECIMAL_POINT = tables.chars("numerals", "zh.decimal_point")

ARABIC = r"\d++(?:,\d{3})*+(?:\.\d++)?+"
_TOKEN_RE = re.compile(rf"({ARABIC})|(.)", re.S)

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
        if ch in CN_DIGITS:
            digit = CN_DIGITS[ch]
            out.append((_ZERO, Decimal(0), False) if digit == 0 else (_NUM, Decimal(digit), True))
        elif ch in CN_SMALL_UNITS:
            out.append((_SMALL, Decimal(CN_SMALL_UNITS[ch]), False))
        elif ch in CN_BIG_UNITS:
            out.append((_BIG, Decimal(CN_BIG_UNITS[ch]), False))
        elif ch == DECIMAL_POINT:
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
        ctx.prec = PRECISION
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
    ) and all(ch in CN_DIGITS for ch in text.strip()):
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
    return normal_decimal(total_yi + total_wan + section + tail)


# ---------------------------------------------------------------- English number words

EN_UNITS: dict[str, int] = tables.ints("numerals", "en.units")
EN_SCALES: dict[str, int] = tables.ints("numerals", "en.scales")


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
        elif w in EN_UNITS:
            if w in ("a", "an") and seen_number:
                return None
            current += EN_UNITS[w]
            seen_number = True
        elif w in EN_SCALES and seen_number:
            scale = EN_SCALES[w]
            if scale == 100:
                current *= 100
            else:
                total += current * scale
                current = Fraction(0)
        else:
            return None
    value = total + current
    return int(value) if value.denominator == 1 else None
