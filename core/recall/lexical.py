"""The lexical channel: character n-grams for exact names and numbers.

Sentence embeddings blur exactly the things a memory must get right: "上限五千元"
and "上限八千元" embed almost alike, and a rare name (Biscuit, 煤球, C01X00T47)
may sit far from a question about it. This channel scores how much of the
query's wording a text contains:

* Chinese, Japanese and Korean runs give character bigrams (and the single
  character for a one-character run);
* Latin letters and digits give whole words (lower-cased, NFKC-folded) and
  the character trigrams of words of four letters or more, so "Friedrichshain"
  still matches "friedrichshain's";
* Chinese numerals with a unit are folded to digits first (五千 → 5000), so
  "预算5000" and "预算五千" meet.

``lexical_score(query, text)`` is the share of the query's grams (common
function words removed) that the text contains, 0–1. ``AnchorIndex`` finds
the items that contain a query's rare *anchors* (numbers, Latin words, ids)
even when the vector search did not bring them up.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from ..lang.numerals import parse_cn_number

_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_RUN = re.compile(rf"[{_CJK}]+|[a-z0-9]+(?:[.:][0-9]+)*")
_CJK_RUN = re.compile(rf"^[{_CJK}]")
# the runs of Chinese numerals folded to digits (when they hold a unit and
# ``parse_cn_number`` reads them: a range such as 七八千 or a word such as 万一 stays)
_UNITS = "十百千万"
_CN_NUMBER = re.compile(r"[零〇一二两三四五六七八九十百千万]{2,}")

STOP_EN = frozenset("""a an the and or but of to in on at for from with by about as is are was were
be been being am do does did done have has had having what which who whom whose when where why how
i me my we our you your he him his she her it its they them their this that these those there here
now then any some all not no yes can could would should will shall may might must just also very
much many more most so if than too up down out into over again still ever tell know say said please
user""".split())
STOP_ZH = frozenset("""的 了 吗 呢 吧 啊 呀 么 是 在 有 和 与 及 或 我 你 他 她 它 们 这 那 哪 什 么
怎 样 多 少 几 个 些 现 在 都 也 就 还 又 要 会 能 可 以 对 从 到 给 让 被 把 用 说 过 着 得 地 之 其""".split())
STOP_ZH_BIGRAMS = frozenset("""什么 怎么 多少 哪里 哪儿 现在 目前 我们 他们 她们 是不 不是 有没 没有 一下
可以 知道 告诉 请问 以前 之前 的是 是什 么样 怎样 哪个 这个 那个 用户 的时 时候""".split())


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


def lexical_score(query_grams: set[str] | QueryGrams, text: str) -> float:
    """Share of the query's grams found in ``text`` (0–1). Whole words and
    numbers weigh three times a trigram or bigram. A gram counts when it
    occurs in the folded text (words on word boundaries). Pass a
    ``QueryGrams`` when one query is scored against many texts."""
    q = query_grams if isinstance(query_grams, QueryGrams) else QueryGrams.of(query_grams)
    if not q.total:
        return 0.0
    doc = fold(text)
    weight = 0.0
    for needle, w, whole_word in q.needles:
        if (_word_in(needle, doc) if whole_word else needle in doc):
            weight += w
    return weight / q.total


@dataclass(frozen=True, slots=True)
class QueryGrams:
    """A query's grams prepared for ``lexical_score``: what to look for, its
    weight, and whether it must stand as a whole word."""

    needles: tuple[tuple[str, float, bool], ...]
    total: float

    @classmethod
    def of(cls, query_grams: set[str]) -> QueryGrams:
        needles = []
        for g in sorted(query_grams):
            part = g.startswith("#") or bool(_CJK_RUN.match(g))
            needles.append((g.lstrip("#") if part else g, 1.0 if part else 3.0, not part))
        return cls(tuple(needles), sum(w for _, w, _ in needles))


def _word_in(word: str, doc: str) -> bool:
    start = doc.find(word)
    while start >= 0:
        end = start + len(word)
        if (start == 0 or not doc[start - 1].isalnum()) and (end == len(doc) or not doc[end].isalnum()):
            return True
        start = doc.find(word, start + 1)
    return False


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


class AnchorIndex:
    """Item ids by anchor token, built lazily from item texts and extended as
    items arrive. Tokens found in more than ``max_df`` items are not anchors
    (too common to single anything out). Thread-safe."""

    def __init__(self, max_df: int = 200) -> None:
        self.max_df = max_df
        self._postings: dict[str, list[int]] = defaultdict(list)
        self._lock = threading.Lock()
        self.max_item_id = 0

    def add(self, items: Iterable[tuple[int, str]]) -> None:
        with self._lock:
            for item_id, text in items:
                for token in anchors(text):
                    self._postings[token].append(item_id)
                self.max_item_id = max(self.max_item_id, item_id)

    def lookup(self, tokens: Iterable[str], limit: int = 50) -> list[int]:
        """Items holding any of the tokens (rare tokens only), newest first."""
        found: set[int] = set()
        with self._lock:
            for token in tokens:
                ids = self._postings.get(token)
                if ids and len(ids) <= self.max_df:
                    found.update(ids)
        return sorted(found, reverse=True)[:limit]
