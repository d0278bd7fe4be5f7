"""Sensitive data in conversation text: phone numbers, e-mail addresses and
identity / passport / payment-card numbers, found and masked offline.

``find_sensitive(text)`` returns non-overlapping :class:`SensitiveSpan` s in
text order; ``mask(text)`` replaces each with a placeholder (``[phone]``,
``[email]``, ``[id]``, ``[passport]``, ``[card]``) and leaves the rest of the
text untouched; ``has_sensitive(text)`` is the yes/no form.

Recognised forms
----------------
* ``phone``: Chinese mobiles (``1[3-9]x`` + 8 digits, grouped 3-4-4 with spaces
  or dashes, optional ``+86``/``0086``); international numbers written with
  ``+`` and a country code (``+49 30 1234567``, ``+44 7700 900123``,
  8–15 digits in all); North American numbers (``(415) 555-0132``,
  ``415-555-0132``, ``415.555.0132``); national numbers with a trunk 0
  (``020 7946 0018``, ``07700 900123``, ``010-12345678``, 10–12 digits).
* ``email``: ``local@domain.tld``.
* ``cn_id``: 18-character Chinese resident ID, valid birth date and ISO 7064
  MOD 11-2 check character (``X`` allowed).
* ``passport``: Chinese passports (``E``/``G`` + 8 digits, ``E`` + letter +
  7 digits) anywhere; any 8–9 character upper-case alphanumeric code with at
  least two digits right after "passport"/"护照" (optionally "no."/"number"/
  "is"/"号"/"号码"/"是"/":").
* ``ssn``: US SSN ``ddd-dd-dddd``, not area 000/666/9xx, group 00 or serial 0000.
* ``nhs``: UK NHS number, 10 digits with the mod-11 check, spaced 3-3-4, or
  unspaced right after "NHS (number|no.)".
* ``de_id``: German Personalausweis number (9 characters from the ICAO
  alphabet without vowels, optional 10th check digit verified with 7-3-1), only
  right after "ID card"/"identity card"/"Personalausweis"/"Ausweis", since the
  number itself carries no check. Masked as ``[id]`` like the other national IDs.
* ``card``: payment cards, 13–19 digits solid or in 4-4-4-4(-3) / 4-6-5 groups,
  Luhn-valid.

False positives avoided: a number preceded by a currency sign or followed by a
currency / magnitude / measure word (``$12,000``, ``15000000000元``, ``3000人``)
is never sensitive (those marks and words are ``data/lang/sensitive.toml``);
a digit run inside a longer run (``12,000,000``, ``1.5``) is not split into
pieces; years, dates (``2026-03-18``), times and counts do
not fit any of the shapes above. Ambiguity is resolved by priority
(email > cn_id > passport > de_id > ssn > nhs > card > phone), then position.

Not covered: landlines without a trunk 0 or country code, phone extensions,
numbers written in Chinese numerals, IBANs and other national IDs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from . import tables

KINDS = ("phone", "email", "cn_id", "passport", "ssn", "nhs", "de_id", "card")

PLACEHOLDERS = {
    "phone": "[phone]",
    "email": "[email]",
    "cn_id": "[id]",
    "ssn": "[id]",
    "nhs": "[id]",
    "de_id": "[id]",
    "passport": "[passport]",
    "card": "[card]",
}


@dataclass(frozen=True)
class SensitiveSpan:
    start: int
    end: int
    kind: str
    text: str


# ASCII-only boundaries: CJK characters count as \w in Python, and a number
# glued to Chinese text ("电话13600002222") must still be found.
_L = r"(?<![0-9A-Za-z])(?<!\d[.,])"
_R = r"(?![0-9A-Za-z])(?![.,]\d)"

_EMAIL = re.compile(
    r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9_%+\-](?:[A-Za-z0-9._%+\-]*[A-Za-z0-9_%+\-])?"
    r"@[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?)*"
    r"\.[A-Za-z]{2,}(?![A-Za-z0-9\-])"
)

_CN_ID = re.compile(_L + r"[1-9]\d{16}[\dXx]" + _R)
_CN_ID_SHAPE = re.compile(
    r"[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{4}"
)

_PASSPORT_CN = re.compile(_L + r"(?:[EG]\d{8}|E[A-HJ-NP-Z]\d{7})" + _R)
_PASSPORT_KW = re.compile(
    r"(?i:passport|护照)"
    r"(?:\s*(?i:numbers?|no\.?|num\.?|#|is|was|号码|号|是|为|:|：))*\s*"
    r"(?P<code>(?<![0-9A-Za-z])[A-Z0-9]{8,9})" + _R
)

_DE_ALNUM = "CFGHJKLMNPRTVWXYZ0123456789"
_DE_ID_KW = re.compile(
    r"(?i:(?:german\s+)?(?:national\s+)?(?:id(?:entity)?\s+card|personalausweis(?:nummer)?|ausweis(?:nummer)?))"
    r"(?:\s*(?i:numbers?|no\.?|num\.?|#|is|was|:))*\s*"
    rf"(?P<code>(?<![0-9A-Za-z])[CFGHJKLMNPRTVWXYZ][{_DE_ALNUM}]{{8}}\d?)" + _R
)

_SSN = re.compile(_L + r"(?!000|666|9)\d{3}-(?!00)\d{2}-(?!0000)\d{4}" + _R)

_NHS_SPACED = re.compile(_L + r"\d{3} \d{3} \d{4}" + _R)
_NHS_KW = re.compile(r"(?i:NHS)(?:\s*(?i:numbers?|no\.?|#|is|:))*\s*(?P<code>(?<!\d)\d{10})" + _R)

_CARD = re.compile(
    r"(?<!\+)" + _L + r"(?:\d{4}([ -])\d{4}(?:\1\d{4}){1,2}(?:\1\d{1,3})?"
    r"|\d{4}([ -])\d{6}\2\d{4,5}"
    r"|\d{13,19})" + _R
)

_PHONE_PATTERNS = (
    # Chinese mobile, optional +86 / 0086.
    re.compile(r"(?:(?<![0-9A-Za-z+])(?:\+|00)86[ -]?|" + _L + r")1[3-9]\d(?:[ -]?\d{4}){2}" + _R),
    # International with a + and country code.
    # Every repetition starts with a separator, so the pattern cannot backtrack
    # exponentially on long digit runs.
    re.compile(r"(?<![0-9A-Za-z+])\+[1-9]\d*(?:(?:[ .\-]\(?|\)[ .\-]?|\()\d+)*" + _R),
    # North American: (415) 555-0132, 415-555-0132, 415.555.0132, 415 555 0132.
    re.compile(_L + r"(?:\([2-9]\d{2}\) ?|[2-9]\d{2}([ .\-]))[2-9]\d{2}[ .\-]\d{4}" + _R),
    # National with trunk 0: 020 7946 0018, 07700 900123, 010-12345678.
    re.compile(_L + r"0[1-9]\d{0,4}(?:[ \-]\d{2,8}){1,3}" + _R),
    re.compile(_L + r"0[1-9]\d{8,9}" + _R),
)

# a number after a currency mark or before a unit is an amount or a count
# (data/lang/sensitive.toml)
_CURRENCY_BEFORE = re.compile(
    rf"(?:{tables.alternation(tables.words('sensitive', 'amount_context.currency_before'))})\s*$", re.I)
_UNIT_AFTER = re.compile(
    rf"\s*(?:{tables.alternation(tables.words('sensitive', 'amount_context.unit_after_zh'))}"
    rf"|(?i:{tables.alternation(tables.words('sensitive', 'amount_context.unit_after_words'))}"
    rf"|(?:{tables.alternation(tables.words('sensitive', 'amount_context.unit_after_whole_words'))})\b))"
)


def _cn_id_ok(s: str) -> bool:
    weights = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    check = "10X98765432"[sum(int(c) * w for c, w in zip(s[:17], weights, strict=True)) % 11]
    if s[17].upper() != check:
        return False
    try:
        born = date(int(s[6:10]), int(s[10:12]), int(s[12:14]))
    except ValueError:
        return False
    return date(1880, 1, 1) <= born


def _nhs_ok(digits: str) -> bool:
    if len(digits) != 10 or len(set(digits)) == 1:
        return False
    rem = sum(int(c) * (10 - i) for i, c in enumerate(digits[:9])) % 11
    check = 11 - rem
    if check == 11:
        check = 0
    return check != 10 and check == int(digits[9])


def _luhn_ok(digits: str) -> bool:
    if len(set(digits)) == 1:
        return False
    total = 0
    for i, c in enumerate(reversed(digits)):
        d = int(c)
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def _de_id_ok(code: str) -> bool:
    if not any(c.isdigit() for c in code[:9]):
        return False
    if len(code) == 9:
        return True

    def val(c: str) -> int:
        return int(c) if c.isdigit() else ord(c) - ord("A") + 10

    weights = (7, 3, 1)
    return sum(val(c) * weights[i % 3] for i, c in enumerate(code[:9])) % 10 == int(code[9])


def _digits(s: str) -> str:
    return "".join(c for c in s if c.isdigit())


def _looks_like_amount(text: str, start: int, end: int) -> bool:
    return bool(_CURRENCY_BEFORE.search(text[max(0, start - 5) : start])) or bool(
        _UNIT_AFTER.match(text, end)
    )


def _candidates(text: str) -> list[tuple[int, SensitiveSpan]]:
    out: list[tuple[int, SensitiveSpan]] = []

    def add(prio: int, kind: str, start: int, end: int) -> None:
        out.append((prio, SensitiveSpan(start, end, kind, text[start:end])))

    for m in _EMAIL.finditer(text):
        add(0, "email", m.start(), m.end())
    for m in _CN_ID.finditer(text):
        if _cn_id_ok(m.group()):
            add(1, "cn_id", m.start(), m.end())
    for m in _PASSPORT_CN.finditer(text):
        add(2, "passport", m.start(), m.end())
    for m in _PASSPORT_KW.finditer(text):
        code = m.group("code")
        if sum(c.isdigit() for c in code) >= 2:
            add(2, "passport", m.start("code"), m.end("code"))
    for m in _DE_ID_KW.finditer(text):
        if _de_id_ok(m.group("code")):
            add(3, "de_id", m.start("code"), m.end("code"))
    for m in _SSN.finditer(text):
        add(4, "ssn", m.start(), m.end())
    for m in _NHS_SPACED.finditer(text):
        if _nhs_ok(_digits(m.group())):
            add(5, "nhs", m.start(), m.end())
    for m in _NHS_KW.finditer(text):
        if _nhs_ok(m.group("code")):
            add(5, "nhs", m.start("code"), m.end("code"))
    for m in _CARD.finditer(text):
        # An 18-digit run shaped like a resident ID (valid birth date) that
        # failed the ID check is a mistyped ID, not a card.
        if _CN_ID_SHAPE.fullmatch(m.group()):
            continue
        if _luhn_ok(_digits(m.group())):
            add(6, "card", m.start(), m.end())
    for i, pat in enumerate(_PHONE_PATTERNS):
        for m in pat.finditer(text):
            n = len(_digits(m.group()))
            if i == 1 and not 8 <= n <= 15:
                continue
            if i == 3 and not 10 <= n <= 12:
                continue
            add(7, "phone", m.start(), m.end())
    return out


def find_sensitive(text: str) -> list[SensitiveSpan]:
    """Every sensitive span in ``text``, non-overlapping, in text order."""
    chosen: list[SensitiveSpan] = []
    cands = sorted(_candidates(text), key=lambda c: (c[0], c[1].start, -c[1].end))
    for _prio, span in cands:
        if span.kind != "email" and _looks_like_amount(text, span.start, span.end):
            continue
        if any(span.start < s.end and s.start < span.end for s in chosen):
            continue
        chosen.append(span)
    return sorted(chosen, key=lambda s: s.start)


def mask(text: str, spans: list[SensitiveSpan] | None = None) -> str:
    """``text`` with each sensitive span replaced by its placeholder."""
    if spans is None:
        spans = find_sensitive(text)
    parts: list[str] = []
    pos = 0
    for s in sorted(spans, key=lambda s: s.start):
        if s.start < pos:  # overlapping spans given by the caller: skip the later one
            continue
        parts.append(text[pos : s.start])
        parts.append(PLACEHOLDERS.get(s.kind, f"[{s.kind}]"))
        pos = s.end
    parts.append(text[pos:])
    return "".join(parts)


def has_sensitive(text: str) -> bool:
    return bool(find_sensitive(text))
