"""Tokenising helpers for Chinese and English text: how memdesk folds text
and cuts it into the grams recall's lexical channel and maintenance's
near-duplicate test compare.

* ``fold(text)``: NFKC, lower case, and Chinese numerals with a unit as digits
  (五千 → 5000, read by ``numerals.parse_cn_number``), so "预算5000" and
  "预算五千" meet;
* ``grams(text)``: Chinese, Japanese and Korean runs give character bigrams
  (the single character for a one-character run); Latin letters and digits
  give whole words and the character trigrams (``#`` + three letters) of words
  of four letters or more, so "Friedrichshain" still matches
  "friedrichshain's"; function words (``STOP_EN``, ``STOP_ZH``,
  ``STOP_ZH_BIGRAMS``) are dropped unless asked to keep them;
* ``anchors(text)``: the rare-looking tokens worth an exact lookup;
* ``fold_case(text)`` (NFKC, lower case, typographic apostrophe as ``'``) and
  ``is_chinese(text)`` for reading queries.
"""

from __future__ import annotations

import re
import unicodedata

from . import tables
from .numerals import parse_cn_number

__all__ = ["CJK", "STOP_EN", "STOP_ZH", "STOP_ZH_BIGRAMS", "anchors", "fold", "fold_case", "grams",
           "is_chinese", "starts_cjk"]

CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_RUN = re.compile(rf"[{CJK}]+|[a-z0-9]+(?:[.:][0-9]+)*")
_CJK_RUN = re.compile(rf"^[{CJK}]")
# the runs of Chinese numerals folded to digits (when they hold a unit and
# ``parse_cn_number`` reads them: a range such as 七八千 or a word such as 万一 stays)
_UNITS = tables.chars("numerals", "zh.folded_units")
_CN_NUMBER = re.compile(f"[{re.escape(tables.chars('numerals', 'zh.folded_digits') + _UNITS)}]{{2,}}")

# function words the grams leave out: data/lang/stopwords.toml
STOP_EN = frozenset(tables.words("stopwords", "en"))
STOP_ZH = frozenset(tables.words("stopwords", "zh"))
STOP_ZH_BIGRAMS = frozenset(tables.words("stopwords", "zh_bigrams"))


def _cn_number(text: str) -> str:
    """A Chinese numeral with a unit (五千, 六千五百, 两万, 一万二) as digits; the
    text itself when it is not one."""
    if not any(c in _UNITS for c in text):
        return text
    value = parse_cn_number(text)
    return text if value is None else str(value)


def fold(text: str) -> str:
    """NFKC, lower case, Chinese numerals with a unit folded to digits."""
    text = unicodedata.normalize("NFKC", text).lower()
    return _CN_NUMBER.sub(lambda m: _cn_number(m.group()), text)


def grams(text: str, *, drop_stopwords: bool = True) -> set[str]:
    """The character n-grams the lexical channel compares."""
    out: set[str] = set()
    for run in _RUN.findall(fold(text)):
        if _CJK_RUN.match(run):
            if len(run) == 1:
                if not (drop_stopwords and run in STOP_ZH):
                    out.add(run)
                continue
            for i in range(len(run) - 1):
                g = run[i:i + 2]
                if drop_stopwords and (g in STOP_ZH_BIGRAMS or (g[0] in STOP_ZH and g[1] in STOP_ZH)):
                    continue
                out.add(g)
        else:
            if drop_stopwords and run in STOP_EN:
                continue
            if len(run) < 2 and not run.isdigit():
                continue
            out.add(run)
            if len(run) >= 4 and not run.isdigit():
                out.update("#" + run[i:i + 3] for i in range(len(run) - 2))
    return out


def anchors(text: str) -> set[str]:
    """Rare-looking tokens worth an exact lookup: numbers of two digits or more,
    Latin words of three letters or more that are not function words, and
    mixed letter-digit ids."""
    out = set()
    for run in _RUN.findall(fold(text)):
        if _CJK_RUN.match(run) or run in STOP_EN:
            continue
        if (run.isdigit() and len(run) >= 2) or (not run.isdigit() and len(run) >= 3):
            out.add(run)
    return out


def starts_cjk(gram: str) -> bool:
    """Whether a run or gram of ``grams`` is Chinese, Japanese or Korean (a
    bigram or a single character) rather than a Latin word or number."""
    return bool(_CJK_RUN.match(gram))


# the characters ``is_chinese`` looks for (the runs above also take the
# compatibility ideographs U+F900–U+FAFF)
_CJK_TEXT = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


def fold_case(text: str) -> str:
    """NFKC, lower case, the typographic apostrophe as ``'`` (how a query is
    matched against names and phrases)."""
    return unicodedata.normalize("NFKC", text).lower().replace("’", "'")


def is_chinese(text: str) -> bool:
    """True when the text holds Chinese (or other CJK) characters."""
    return bool(_CJK_TEXT.search(text))
