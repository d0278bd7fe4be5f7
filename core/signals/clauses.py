"""Clauses of a turn: the unit the signal layer reads (docs/signal-model.md).

A clause is a sentence, or a comma part of one; a fragment of two units or
fewer (a unit is a CJK character or a word) joins the fragment after it (the
last one joins the one before), so "嗯，" or "ok so," never stands alone; a
short fragment that is a sentence or a label before a colon ("ok.", "about
80.", "news:") joins the clause before it, or stands alone at the start,
never the one after it, whose subject it would hide.
Chat often puts a blank where a comma goes: a blank between two Chinese
characters ends a clause when what follows opens on a subject of its own
("我在鼎微做硬件 她在招行做客户经理"), not inside one ("洛阳 涧西区"); a blank
in an English sentence typed or spoken without punctuation ends one when what
follows opens on a third person as its subject and the word before it does not
lead into a clause ("…minding her dog this week she lives in Boston", not "I
think she lives in Boston"). What opens a part is the caller's (``Openings``,
from the cue tables). Pure functions, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# a break: sentence ends, semicolons, commas (not one between digits: £7,500), colons, line breaks;
# an English full stop only before white space or the end (not in 3.5, e.g. or Node.js)
# an emoji (with its modifiers) is chat's punctuation: "叫我芸芸😂 在学校教语文"
_BREAK = re.compile(r"(?:[。！？!?；;，、：\n]|(?<!\d),|,(?!\d))+|:(?=\s)|\.{3,}|…+|\.(?=\s|$)|\s[-–—]\s|——+"
                    r"|\s*[\U0001F000-\U0001FAFF\u2600-\u27BF][\U0001F000-\U0001FAFF\u2600-\u27BF\uFE0F\u200D]*\s*"
                    r"|(?P<blank>(?<=[\u3400-\u9fff])\s+(?=[\u3400-\u9fff]))")
# a blank between two English words, where a part may begin
_EN_BLANK = re.compile(r"(?<=[A-Za-z0-9'’])\s+(?=[A-Za-z])")
_WORD = re.compile(r"[\w'’]+")
# an English stretch with no punctuation this many words long is typed or spoken as it comes, and a blank in
# it may end a clause; the part before such a blank is at least this many words ("my brother Rui he is…": one
# subject said twice, no clause of its own)
EN_RUN_ON = 12
EN_PART_WORDS = 4
_LAST_WORDS = re.compile(r"(?:([\w'’]+)\s+)?(?:([\w'’]+)\s+)?([\w'’]+)$")
_SENTENCE_END = re.compile(r"[。！？!?\n：]|\.(?!\d)|:")  # a break ending a sentence, or a label before a colon
_UNIT = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]|[^\W\d_]+|\d+")
SHORT = 2


@dataclass(frozen=True)
class Clause:
    """One clause: its text and where it sits in the turn (``text == turn[start:end]``)."""

    text: str
    start: int
    end: int


@dataclass(frozen=True)
class Openings:
    """What opens a part of its own after a blank: ``zh``, a Chinese part's subject (matched right after a blank
    between Chinese characters); ``en``, an English one's (matched right after a blank between words), unless
    the word before the blank is one of ``en_goes_on`` (lower case: "that", "think", "and"…) or a noun after
    one of ``en_determiners`` (one or two words before it) that is none of ``en_times`` ("the new flat she found",
    not "this week she moved")."""

    zh: re.Pattern[str]
    en: re.Pattern[str] | None = None
    en_goes_on: frozenset[str] = frozenset()
    # a noun after one of these goes on into a clause of its own ("the flat she found"), unless it is a time
    en_determiners: frozenset[str] = frozenset()
    en_times: frozenset[str] = frozenset()


def units(text: str) -> int:
    """CJK characters plus words (runs of letters or digits) in ``text``."""
    return len(_UNIT.findall(text))


def split_clauses(text: str, opening: Openings | None = None) -> list[Clause]:
    """The clauses of ``text`` in order, stripped, each at least three units
    long unless the whole turn is shorter. ``opening``: what a part after a
    blank opens with when it has a subject of its own (None: a blank never
    ends a clause)."""
    parts: list[tuple[int, int, bool]] = []  # (start, end, whether a sentence ends after it)
    at = 0
    for start, end, ends_sentence in _breaks(text, opening):
        if start > at:
            parts.append((at, start, ends_sentence))
        at = end
    if at < len(text):
        parts.append((at, len(text), True))
    merged: list[tuple[int, int]] = []
    pending: int | None = None  # start of short fragments waiting for the next one
    for start, end, ends_sentence in parts:
        if units(text[start:end]) == 0:
            continue
        begin = start if pending is None else pending
        if units(text[begin:end]) <= SHORT:
            if ends_sentence:  # a short sentence ("ok.", "about 80.") is said of what came before it, or alone:
                # joined to the next it would hide that sentence's own subject ("about 80. My mam lives in Galway")
                if merged:
                    merged[-1] = (merged[-1][0], end)
                else:
                    merged.append((begin, end))
                pending = None
            else:
                pending = begin
            continue
        merged.append((begin, end))
        pending = None
    if pending is not None:
        if merged:
            merged[-1] = (merged[-1][0], parts[-1][1])
        else:
            merged.append((pending, parts[-1][1]))
    out = []
    for start, end in merged:
        chunk = text[start:end]
        lead = len(chunk) - len(chunk.lstrip())
        out.append(Clause(chunk.strip(), start + lead, start + lead + len(chunk.strip())))
    return out


def _breaks(text: str, opening: Openings | None) -> list[tuple[int, int, bool]]:
    """Where ``text`` breaks, in order: (start, end, whether a sentence ends there)."""
    out = [(m.start(), m.end(), bool(_SENTENCE_END.search(m.group(0)))) for m in _BREAK.finditer(text)
           if m.group("blank") is None or (opening is not None and opening.zh.match(text, m.end()))]
    if opening is None or opening.en is None:
        return out
    blanks: list[tuple[int, int, bool]] = []
    for start, end in zip([0, *(e for _, e, _ in out)], [*(s for s, _, _ in out), len(text)], strict=True):
        if len(_WORD.findall(text, start, end)) < EN_RUN_ON:
            continue  # a stretch typed with its punctuation: "31st march is the date he gave us"
        at = start
        for m in _EN_BLANK.finditer(text, start, end):
            if len(_WORD.findall(text, at, m.start())) >= EN_PART_WORDS and opening.en.match(text, m.end()) \
                    and (w := _LAST_WORDS.search(text, 0, m.start())) is not None and _opens_part(w, opening):
                blanks.append((m.start(), m.end(), False))
                at = m.end()
    return sorted(out + blanks) if blanks else out


def _opens_part(words: re.Match[str], opening: Openings) -> bool:
    """Whether an English part may begin after the last of ``words`` (up to three words before a blank): not
    after a word leading into a clause, nor after a noun phrase (a determiner one or two words before) that is
    no time."""
    last = words.group(3).casefold()
    before = {(w or "").casefold() for w in words.group(1, 2)}
    return last not in opening.en_goes_on and not (before & opening.en_determiners and last not in opening.en_times)
