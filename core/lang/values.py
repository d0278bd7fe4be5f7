"""How two values of one kind relate, beyond being equal: the language part
of value identity (docs/DESIGN.md §2, "value identity").

* **Tastes compare by their head.** Chinese and English compounds put their
  head last: 重庆火锅 is a kind of 火锅, "dark chocolate" a kind of
  "chocolate", while 巧克力蛋糕 and "chocolate cake" are cakes. So a taste is
  ``within`` another when the other is its tail: the last characters of a
  Chinese value, the last words of an English one (a plural folded).
* **Places compare as paths.** A place is written as a path of parts: coarsest
  first and often without separators in Chinese (上海浦东张江, 杭州市西湖区),
  finest first with commas in English ("Brooklyn, New York"). A place is
  ``within`` another when the other is an end of its path: 上海 contains
  上海浦东 and 杭州西湖区 (the coarser one's 市 left out), "New York" contains
  "Brooklyn, New York", and "Portland, Maine" is a more exact "Portland".
* **Ways of getting about compare by their mode.** A commute is said many
  ways: "cycling", "bike", "I cycle", 骑车, 骑自行车 are one way; 地铁 and
  地铁2号线 are one, the second finer. The modes and their words are a table
  (``[means]``); a value naming none is OTHER to every other.
* **Decisions compare by their option** where a turn names one: a Chinese
  decision is often held with the verb of taking its option (报网课, 买油车:
  ``[decision] zh_taking``), and ``option`` gives the option alone (网课).
* **Dated items compare by their head.** A to-do, plan or deadline is named
  again short: 复诊 for 去医院复诊, "insurance" for "renew the van
  insurance". An item is ``within`` another (the longer is the finer) when the
  shorter is its head: the last characters of a Chinese item (two at least),
  the last words of an English one's first part, the part before a word that
  says where, when or what it is for (``[item] en_after_head``: "launch" is
  no head of "feature freeze before launch").
* **Organisations compare by their name's start.** An employer is often named
  short: 橙桔 for 橙桔网络, "Harbourline" for "Harbourline Logistics". A name
  is ``within`` another (the full name is the finer) when the other begins it:
  its first characters in Chinese (two at least), its first words in English;
  a legal form at the end ("Ltd", 有限公司) is no part of the name.

``relate(kind, a, b)`` answers with a ``Relation`` of ``b`` to ``a``. Values
in different scripts, and values one cannot place in the other, are
``OTHER``: the relation never guesses across languages or from knowledge it
does not have (no gazetteer: 张江 is not known to lie in 上海 unless said so);
ways of getting about meet across languages only through the modes' table,
which names each mode's words in both. Word tables: ``data/lang/values.toml``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from enum import StrEnum
from typing import TypeVar

from . import tables
from .text import CJK

__all__ = ["Relation", "item_head_said", "option", "relate"]


class Relation(StrEnum):
    """What value ``b`` is to value ``a``."""

    SAME = "same"  # the same value, written alike (case, spacing, width)
    WITHIN = "within"  # b is a finer or more exact value inside a (a refinement)
    CONTAINS = "contains"  # b is a coarser value containing a
    OTHER = "other"  # neither: another value


_HAS_CJK = re.compile(f"[{CJK}]")
_ZH_SUFFIXES = tuple(sorted(tables.words("values", "place.zh_suffixes"), key=len, reverse=True))
_EN_SUFFIXES = frozenset(tables.words("values", "place.en_suffixes"))
_SEPARATORS = re.compile("|".join(map(re.escape, tables.words("values", "place.separators"))))
_ZH_TASTE_MIN = int(tables.load("values")["taste"]["min_zh"])
_T = TypeVar("_T", str, list[str])
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")


def _fold(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _is_zh(text: str) -> bool:
    return bool(_HAS_CJK.search(text))


def _compare(a: _T, b: _T, same: bool, within: Callable[[_T, _T], bool]) -> Relation:
    """SAME when ``same``; else WITHIN when ``b`` is ``a`` made finer
    (``within(a, b)``), CONTAINS the other way round, OTHER otherwise."""
    if same:
        return Relation.SAME
    if within(a, b):
        return Relation.WITHIN
    if within(b, a):
        return Relation.CONTAINS
    return Relation.OTHER


def relate(kind: str, a: str, b: str) -> Relation:
    """The relation of value ``b`` to value ``a`` for values of ``kind``
    (``"taste"``, ``"place"``, ``"organisation"``, ``"means"`` or ``"item"``; any other kind
    only knows SAME and OTHER).
    Raises nothing: unknown shapes are OTHER."""
    fa, fb = _fold(a), _fold(b)
    if fa == fb:
        return Relation.SAME
    if not fa or not fb:
        return Relation.OTHER
    if kind == "means":  # a way of getting about is one in any language (骑车, cycling)
        return _means(fa, fb)
    if _is_zh(fa) != _is_zh(fb):
        return Relation.OTHER
    if kind == "taste":
        return _taste(fa, fb)
    if kind == "place":
        return _place(fa, fb)
    if kind == "organisation":
        return _organisation(fa, fb)
    if kind == "item":
        return _item(fa, fb)
    return Relation.OTHER


# ---------------------------------------------------------------- decisions
_ZH_TAKING = re.compile("^(?:" + tables.alternation(tables.words("values", "decision.zh_taking")) + f")(?=[{CJK}]{{2}})")


def option(value: str) -> str:
    """The option a decision takes: a Chinese one without the verb of taking it before two characters or
    more (报网课 -> 网课, 买油车 -> 油车); any other value as it is. Raises nothing."""
    return _ZH_TAKING.sub("", value, count=1)


# ---------------------------------------------------------------- tastes
def _words(text: str) -> list[str]:
    words = _WORD.findall(text)
    if words:  # a plural head is the same head: "chocolates", "peaches"
        last = words[-1]
        if last.endswith("es") and len(last) > 4 and last[-3] in "sxzh":
            words[-1] = last[:-2]
        elif last.endswith("s") and len(last) > 3 and not last.endswith("ss"):
            words[-1] = last[:-1]
    return words


def _zh_head_of(head: str, whole: str) -> bool:
    """Whether Chinese ``head`` ends the longer ``whole`` (火锅, 四川火锅)."""
    return len(head) >= _ZH_TASTE_MIN and len(whole) > len(head) and whole.endswith(head)


def _head_words_of(head: list[str], whole: list[str]) -> bool:
    """Whether the words ``head`` end the longer ``whole`` ("cheese", "blue cheese")."""
    return len(whole) > len(head) and whole[-len(head):] == head


def _by_head(a: str, b: str, zh_head_of: Callable[[str, str], bool], words: Callable[[str], list[str]],
             en_head_of: Callable[[list[str], list[str]], bool]) -> Relation:
    """``_compare`` of two values by their head: Chinese ones as their characters (blanks left out) with
    ``zh_head_of``, English ones as their ``words`` with ``en_head_of``; OTHER when one has no words."""
    if _is_zh(a):
        za, zb = re.sub(r"\s", "", a), re.sub(r"\s", "", b)
        return _compare(za, zb, za == zb, zh_head_of)
    wa, wb = words(a), words(b)
    if not wa or not wb:
        return Relation.OTHER
    return _compare(wa, wb, wa == wb, en_head_of)


def _taste(a: str, b: str) -> Relation:
    return _by_head(a, b, _zh_head_of, _words, _head_words_of)


# ---------------------------------------------------------------- dated items
_ITEM_ZH_MIN = int(tables.load("values")["item"]["min_zh"])
_ITEM_AFTER_HEAD = frozenset(tables.words("values", "item.en_after_head"))
_ITEM_DETERMINERS = frozenset(tables.words("values", "item.en_determiners"))


def _zh_item_head_of(head: str, whole: str) -> bool:
    return len(head) >= _ITEM_ZH_MIN and len(whole) > len(head) and whole.endswith(head)


def _item_words(text: str) -> list[str]:
    """The words of an English item, a determiner it opens with left out ("the insurance": insurance)."""
    return [w for i, w in enumerate(_WORD.findall(text)) if i or w not in _ITEM_DETERMINERS]


def _first_part(words: list[str]) -> list[str]:
    """An English item's words before the first of ``[item] en_after_head`` (where, when or what it is for)."""
    return words[:next((i for i, w in enumerate(words) if i and w in _ITEM_AFTER_HEAD), len(words))]


def _en_item_head_of(head: list[str], whole: list[str]) -> bool:
    """Whether the words ``head`` end the first part of ``whole``, or are that part."""
    part = _first_part(whole)
    return _head_words_of(head, part) or len(whole) > len(part) and head == part


def item_head_said(item: str, text: str) -> bool:
    """Whether ``text`` says the head of dated item ``item`` (see "Dated items compare by their head"):
    its last two characters or more in Chinese (复诊 of 去医院复诊 in 那5月12日的复诊还去吗), the last word
    of its first part in English ("insurance" of "renew the van insurance"). Raises nothing."""
    fi, ft = _fold(item), _fold(text)
    if _is_zh(fi):
        zi = re.sub(r"\s", "", fi)
        return len(zi) > _ITEM_ZH_MIN and zi[-_ITEM_ZH_MIN:] in re.sub(r"\s", "", ft)
    part = _first_part(_item_words(fi))
    return bool(part) and part[-1] in _WORD.findall(ft)


def _item(a: str, b: str) -> Relation:
    return _by_head(a, b, _zh_item_head_of, _item_words, _en_item_head_of)


# ---------------------------------------------------------------- places
def _zh_path(text: str) -> str:
    return re.sub(r"\s", "", _SEPARATORS.sub("", text))


def _zh_stem(text: str) -> str:
    """The place without its administrative suffix (杭州市 → 杭州), when a name is left."""
    for suffix in _ZH_SUFFIXES:
        if text.endswith(suffix) and len(text) - len(suffix) >= 2:
            return text[: -len(suffix)]
    return text


def _zh_within(coarse: str, fine: str) -> bool:
    """Whether ``fine`` is ``coarse`` made more exact: continued after it (上海 →
    上海浦东, 杭州市 → 杭州西湖区) or qualified before it (浦东 → 上海浦东)."""
    if len(fine) <= len(coarse) or len(coarse) < 2:
        return False
    stem = _zh_stem(coarse)
    return fine.startswith(coarse) or fine.startswith(stem) or fine.endswith(coarse)


def _en_parts(text: str) -> list[str]:
    parts = []
    for part in _SEPARATORS.split(text):
        words = _WORD.findall(part)
        while len(words) > 1 and words[-1] in _EN_SUFFIXES:
            words.pop()
        if words:
            parts.append(" ".join(words))
    return parts


def _en_within(coarse: list[str], fine: list[str]) -> bool:
    """Whether path ``fine`` ends (or begins) with the whole of path ``coarse``."""
    n = len(coarse)
    return len(fine) > n and (fine[-n:] == coarse or fine[:n] == coarse)


def _place(a: str, b: str) -> Relation:
    if _is_zh(a):
        za, zb = _zh_path(a), _zh_path(b)
        return _compare(za, zb, za == zb or _zh_stem(za) == _zh_stem(zb), _zh_within)
    pa, pb = _en_parts(a), _en_parts(b)
    if not pa or not pb:
        return Relation.OTHER
    return _compare(pa, pb, pa == pb, _en_within)


# ---------------------------------------------------------- ways of getting about
_MODES: dict[str, str] = {_fold(word): mode for mode, words in tables.load("values")["means"]["modes"].items()
                          for word in words}
# the words of a mode, the longest first, found inside a longer value (骑电动车, "the 57 bus", 地铁2号线)
_MODE_WORDS = re.compile("|".join(
    rf"(?<![a-z]){re.escape(w)}(?![a-z])" if w.isascii() else re.escape(w)
    for w in sorted(_MODES, key=len, reverse=True)))


def _mode(value: str) -> tuple[str, str] | None:
    """The way of getting about a value names, and the word naming it; None when it names none."""
    if value in _MODES:
        return _MODES[value], value
    m = _MODE_WORDS.search(value)
    return (_MODES[m.group(0)], m.group(0)) if m else None


def _means(a: str, b: str) -> Relation:
    """Two values of one way of getting about are that way (cycling / bike / 骑车: SAME); the one that
    says more of it (地铁 / 地铁2号线, "bus" / "the 57 bus") is the finer."""
    ma, mb = _mode(a), _mode(b)
    if ma is None or mb is None or ma[0] != mb[0]:
        return Relation.OTHER
    if a in b:
        return Relation.WITHIN
    if b in a:
        return Relation.CONTAINS
    return Relation.SAME


# ---------------------------------------------------------- organisations
_ZH_LEGAL = tuple(sorted(tables.words("values", "organisation.zh_legal_forms"), key=len, reverse=True))
_EN_LEGAL = frozenset(tables.words("values", "organisation.en_legal_forms"))
_ZH_NAME_MIN = int(tables.load("values")["organisation"]["min_zh"])


def _zh_name(text: str) -> str:
    name = re.sub(r"\s", "", text)
    for form in _ZH_LEGAL:
        if name.endswith(form) and len(name) - len(form) >= _ZH_NAME_MIN:
            return name[: -len(form)]
    return name


def _en_name(text: str) -> list[str]:
    words = _WORD.findall(text)
    while len(words) > 1 and words[-1] in _EN_LEGAL:
        words.pop()
    return words


def _zh_begins(short: str, full: str) -> bool:
    return len(short) >= _ZH_NAME_MIN and len(full) > len(short) and full.startswith(short)


def _en_begins(short: list[str], full: list[str]) -> bool:
    return len(full) > len(short) and full[: len(short)] == short


def _organisation(a: str, b: str) -> Relation:
    if _is_zh(a):
        za, zb = _zh_name(a), _zh_name(b)
        return _compare(za, zb, za == zb, _zh_begins)
    wa, wb = _en_name(a), _en_name(b)
    if not wa or not wb:
        return Relation.OTHER
    return _compare(wa, wb, wa == wb, _en_begins)
