"""Identifiers: one rule for every name memdesk files things under (users,
sessions, projects, reviewers, extractors, token names, and the subjects and
scopes that carry them), and one rule for showing stored text on one line.

**A name** (``identifier``) is

1. stripped of surrounding white space and put in Unicode NFKC form, so the
   compatibility forms of a character are that character (fullwidth
   ``ａｌｉｃｅ`` is ``alice``, a no-break space a space, the ligature ``ﬁ``
   ``fi``);
2. refused, with one line naming the field and the character as ``U+XXXX``,
   when it holds a character that does not show as itself: a control (Cc:
   newline, carriage return, tab, ESC, DEL, the C1 controls), a format
   character (Cf: zero-width space, joiners, the bidi marks, embeddings,
   overrides and isolates, the soft hyphen, the byte order mark, tags), a
   line or paragraph separator (Zl, Zp), any space but the plain one (Zs
   other than U+0020), a private-use, surrogate or unassigned code point
   (Co, Cs, Cn), or another default-ignorable character that is not Cf
   (the Hangul fillers, variation selectors, the combining grapheme joiner,
   U+2800 BRAILLE PATTERN BLANK). So a look-alike such as ``alice`` + U+200B
   or ``bob`` + U+202E is refused, never stored.

Case is kept as written and names are compared exactly: ``Alice`` and
``alice`` are two names, and both print as written (nothing invisible tells
them apart). Names stored before this rule stay as they are (no migration
rewrites history); every listing shows them through ``shown``.

**Stored text shown** (``shown``): any text memdesk prints (a table cell, a
pane of the desk, a line of the prompt block) goes through ``shown``, which
writes every control, format, line- and paragraph-separator character as a
visible escape, the way JSON writes it (``\\n``, ``\\r``, ``\\t``, ``\\u001b``
for ESC, ``\\u202e``), so no stored
text can print as a line it is not, move the cursor or turn text around.

Pure functions over ``unicodedata``; no I/O, no state.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any

from .errors import InvalidInput

_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Co", "Cs", "Cn"})
# Default_Ignorable_Code_Point (Unicode DerivedCoreProperties) outside Cf and
# Cn, and a blank that shows nothing: characters that render as nothing.
_INVISIBLE_RANGES = (
    (0x034F, 0x034F),  # COMBINING GRAPHEME JOINER
    (0x115F, 0x1160),  # HANGUL CHOSEONG / JUNGSEONG FILLER
    (0x17B4, 0x17B5),  # KHMER VOWEL INHERENT AQ / AA
    (0x180B, 0x180F),  # MONGOLIAN FREE VARIATION SELECTORS
    (0x2800, 0x2800),  # BRAILLE PATTERN BLANK
    (0x3164, 0x3164),  # HANGUL FILLER
    (0xFE00, 0xFE0F),  # VARIATION SELECTORS
    (0xFFA0, 0xFFA0),  # HALFWIDTH HANGUL FILLER
    (0xE0100, 0xE01EF),  # VARIATION SELECTORS SUPPLEMENT
)
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp"})
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


_INVISIBLE = frozenset(chr(c) for lo, hi in _INVISIBLE_RANGES for c in range(lo, hi + 1))


def refused_character(text: str) -> str | None:
    """The first character of ``text`` no name may hold (see the module
    docstring), or None. ``text`` should be NFKC already."""
    if text.isascii():
        return next((ch for ch in text if not " " <= ch <= "~"), None)
    for ch in text:
        if ch < "\x7f" and ch >= " ":
            continue
        category = unicodedata.category(ch)
        if (category in _REFUSED_CATEGORIES or (category == "Zs" and ch != " ")
                or ch in _INVISIBLE):
            return ch
    return None


def describe(ch: str) -> str:
    """``U+200B ZERO WIDTH SPACE``: a character as a reader can identify it."""
    name = unicodedata.name(ch, "")
    return f"U+{ord(ch):04X}" + (f" {name}" if name else "")


def identifier(text: str, label: str) -> str:
    """``text`` as a name: stripped and NFKC-normalised, refused when it
    holds a character that does not show as itself (the module docstring).
    ``text`` must already be a string. Raises InvalidInput naming ``label``
    and the character as U+XXXX."""
    if text.isascii():
        if text.isprintable():  # the common case: nothing to normalise or refuse
            return text.strip()
        name = text.strip()
        bad = refused_character(name)
    else:
        name = unicodedata.normalize("NFKC", text).strip()
        bad = refused_character(name)
        if bad is not None:  # named as given (U+3164 HANGUL FILLER, not what NFKC made of it)
            bad = next((ch for ch in text.strip()
                        if refused_character(unicodedata.normalize("NFKC", ch))), bad)
    if bad is not None:
        raise InvalidInput(f"{label} contains {describe(bad)}: a name may hold no control, "
                           "format or invisible character")
    return name


def _escape(ch: str) -> str:
    """One character as a JSON string escape: ``\\n``, ``\\u001b``, a pair of
    ``\\uXXXX`` for one beyond the Basic Multilingual Plane."""
    short = _SHORT.get(ch)
    if short is not None:
        return short
    code = ord(ch)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def shown(text: str) -> str:
    """``text`` with every control (Cc), format (Cf), line- or
    paragraph-separator (Zl, Zp) character written as a visible escape, as
    JSON writes it (``\\n``, ``\\u001b`` for ESC, ``\\u202e``): one line that
    shows what it holds. JSON text stays JSON text of the same value."""
    if text.isascii():
        if text.isprintable():
            return text
        return "".join(ch if " " <= ch <= "~" else _escape(ch) for ch in text)
    return "".join(_escape(ch) if unicodedata.category(ch) in _ESCAPED_CATEGORIES else ch
                   for ch in text)


def shown_all(data: Any) -> Any:
    """``data`` (JSON-like: dicts, lists, tuples, strings, numbers) with
    every string, keys too, passed through ``shown``."""
    if isinstance(data, str):
        return shown(data)
    if isinstance(data, Mapping):
        return {shown_all(k): shown_all(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return type(data)(shown_all(v) for v in data)
    return data


__all__ = ["describe", "identifier", "refused_character", "shown", "shown_all"]
