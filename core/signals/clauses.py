"""Clauses of a turn: the unit the signal layer reads (docs/signal-model.md).

A clause is a sentence, or a comma part of one; a fragment of two units or
fewer (a unit is a CJK character or a word) joins the fragment after it (the
last one joins the one before), so "嗯，" or "ok so," never stands alone; a
short fragment that is a sentence or a label before a colon ("ok.", "about
80.", "news:") joins the clause before it, or stands alone at the start,
never the one after it, whose subject it would hide.
Chinese typed in a chat often puts a blank where a comma goes: a blank
between two Chinese characters ends a clause when what follows opens on a
subject of its own ("我在鼎微做硬件 她在招行做客户经理"; the pattern the
caller gives, from the cue tables), not inside one ("洛阳 涧西区").
Pure functions, no I/O.
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
_SENTENCE_END = re.compile(r"[。！？!?\n：]|\.(?!\d)|:")  # a break ending a sentence, or a label before a colon
_UNIT = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]|[^\W\d_]+|\d+")
SHORT = 2


@dataclass(frozen=True)
class Clause:
    """One clause: its text and where it sits in the turn (``text == turn[start:end]``)."""

    text: str
    start: int
    end: int


def units(text: str) -> int:
    """CJK characters plus words (runs of letters or digits) in ``text``."""
    return len(_UNIT.findall(text))


def split_clauses(text: str, opening: re.Pattern[str] | None = None) -> list[Clause]:
    """The clauses of ``text`` in order, stripped, each at least three units
    long unless the whole turn is shorter. ``opening``: what a Chinese part
    after a blank opens with when it has a subject of its own (None: a blank
    never ends a clause)."""
    parts: list[tuple[int, int, bool]] = []  # (start, end, whether a sentence ends after it)
    at = 0
    for m in _BREAK.finditer(text):
        if m.group("blank") is not None and (opening is None or not opening.match(text, m.end())):
            continue
        if m.start() > at:
            parts.append((at, m.start(), bool(_SENTENCE_END.search(m.group(0)))))
        at = m.end()
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
