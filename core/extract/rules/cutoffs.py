"""A day said as a cutoff makes what is owed by it a deadline ("the flyers have to reach the print shop by
Friday 9 May", "报名表要4月10号之前交", "…, they say the deadline is 2 June"): the thing, its day and the cutoff's
words taken out of it, due that day.

A day is a cutoff when the words right before it say so (by, before, no later than, due, 最晚, 截止到:
``shared.cutoff_before``), the words right after it (之前, 前, 为止, "at the latest": ``shared.cutoff_after``), or
the clause names a deadline in words (``shared.cutoff_named``); a thing is owed by it when its clause says it
must be done or is due (``shared.cutoff_owed``: need to, must, 要, 必须; a wish by a day, 想五一前提车, stays a
plan). Made deadlines so:

* a plan a reader found in such a clause, and a to-do another asks for by the day (客户要求…, "the school says…":
  ``shared.cutoff_reporter``; the speaker's own "I'll get three quotes by Friday" stays a to-do);
* a clause no reader took that owes a thing by a day to come (``_owed_in``), the thing without who asks for it,
  the modal and what happens if it is not done ("… or I lose the entry fee": ``shared.cutoff_tail``);
* a clause that only names the deadline ("they say the deadline is 2 June") makes the plan or to-do said just
  before it due that day.

Left as they are: a to-do asked to be reminded of (its day is the reminder's), a change (its own reader's), a
thing owed no more (不用管了, no need to: ``shared.cutoff_not_owed``), a turn taking a slip back (the correction
readers'), a question, and "until" ("staying with mum until Sunday": how long, not by when).
"""

from __future__ import annotations

import dataclasses
from datetime import datetime

from ...lang.times import find_times
from ..records import Raw as _Raw
from .text import _CJK, _P, _clean, _sentences, _strip_times

_SAID = _P["shared.cutoff_said"]
_BEFORE = _P["shared.cutoff_before"]
_AFTER = _P["shared.cutoff_after"]
_NAMED = _P["shared.cutoff_named"]
_GLUE = _P["shared.cutoff_glue"]
_REMINDER = _P["shared.reminder_asked"]
_PARTS = _P["shared.cutoff_parts"]
_OWED = _P["shared.cutoff_owed"]
_REPORTER = _P["shared.cutoff_reporter"]
_OPENING = _P["shared.cutoff_opening"]
_QUESTION = _P["shared.raw_facts.3"]
_TAIL = _P["shared.cutoff_tail"]
_SUBJECTLESS = _P["shared.cutoff_subjectless"]
_AT = _P["shared.cutoff_at"]
_CJK_GAP = _P["shared.cjk_gap"]
_NOT_OWED = _P["shared.cutoff_not_owed"]
_CORRECTION = _P["shared.correction"]
_LOOK = 24  # characters before a day in which its cutoff's words are looked for


def cutoffs_as_deadlines(text: str, raws: list[_Raw], when: datetime) -> list[_Raw]:
    """``raws`` (what the rules read from ``text``, said at ``when``) with each plan or to-do whose clause says
    its day as a cutoff made a deadline: the thing without the day and the cutoff's words, due that day.
    ``raws`` as they are when the turn says no cutoff. Raises nothing."""
    if not _SAID.search(text):
        return raws  # (most turns: no word that could make a day a cutoff)
    out: list[_Raw] = []
    for r in raws:
        made = _as_deadline(text, r, when) if r.predicate in ("plan", "todo") and r.change is None else None
        out.append(made if made is not None else r)
    said = [r.object for r in raws if r.object]
    if _CORRECTION.search(text):
        return out  # a slip taken back ("…户口本… 啊不是，是身份证"): what was meant is the correction readers'
    for sentence in _sentences(text) or [text]:
        if _QUESTION.search(sentence) or _REMINDER.search(sentence):
            continue
        for clause in _PARTS.split(sentence):
            if not clause.strip() or any(_says(clause, thing) for thing in said):
                continue
            owed = _owed_in(clause, when)
            if owed is None:
                continue
            if owed.object:
                if not any(r.predicate == "deadline" and r.object == owed.object for r in out):
                    out.append(owed)
            elif (at := _said_last_before(text, text.find(clause), out)) is not None:
                # "i want send my showreel, they say the deadline is 2 june": the thing said just before is due
                out[at] = dataclasses.replace(out[at], predicate="deadline", object=_without_day(out[at].object, when),
                                              due=owed.due)
    return out


def _said_last_before(text: str, at: int, raws: list[_Raw]) -> int | None:
    """The index in ``raws`` of the plan or to-do ``text`` says last before ``at`` (None: none is)."""
    before = [(text.find(r.object), i) for i, r in enumerate(raws)
              if r.predicate in ("plan", "todo") and r.change is None and r.object and 0 <= text.find(r.object) < at]
    return max(before)[1] if before else None


def _owed_in(clause: str, when: datetime) -> _Raw | None:
    """The deadline a clause no reader took says when it owes a thing by a day to come said as a cutoff
    ("the tax forms have to reach the accountant by 9 April", 客户要求4月12号之前把瓷砖定下来): the thing, without
    the day, the cutoff's words, who asks for it and the modal; None when it says no such thing, or the thing
    left is too short or too long to be one (``_THING_UNITS``)."""
    if not _OWED.search(clause) or _NOT_OWED.search(clause):
        return None  # (owed no more: "5月底截止的那个表不用管了")
    times = find_times(clause, when)
    if len(times) != 1 or times[0][2].start.date() <= when.date():
        return None
    start, end, _ = times[0]
    if not (_BEFORE.search(clause, max(0, start - _LOOK), start) or _AFTER.match(clause, end)):
        return None
    zh = bool(_CJK.search(clause))
    thing = _bare(_TAIL.sub("", _without_day(clause, when)))
    if not thing and _NAMED.search(clause):
        return _Raw("deadline", "", due=clause[start:end])  # "the deadline is 2 june": of the thing said before
    if _SUBJECTLESS.match(thing):
        return None
    thing = _CJK_GAP.sub("", _clean(thing, zh))
    size = len(thing) if zh else len(thing.split())
    if len(thing) < _THING_UNITS[0] or size > _THING_UNITS[1 if zh else 2]:
        return None
    return _Raw("deadline", thing, due=clause[start:end])


_THING_UNITS = (3, 14, 10)  # a thing owed: 3 to 14 Chinese characters, or 3 characters to 10 English words


def _as_deadline(text: str, r: _Raw, when: datetime) -> _Raw | None:
    """The deadline the plan or to-do ``r`` is when the clause of ``text`` that says it owes it by a day said
    as a cutoff (a to-do, when another asks for it); else None."""
    clause = _clause_of(text, r.object)
    if clause is None or _REMINDER.search(clause) or not _OWED.search(clause):
        return None
    if r.predicate == "todo" and not _REPORTER.match(clause.strip()):
        return None  # the speaker's own to-do by a day ("I'll get three quotes by Friday"); another's asking is owed
    times = find_times(clause, when)
    if not times:
        return None
    at = clause.find(r.object) if r.object else -1
    # the day nearest the thing (the one it is due by when the clause names two: "in May, by the 12th")
    start, end, _ = min(times, key=lambda t: 0 if at < 0 else max(0, t[0] - (at + len(r.object)), at - t[1]))
    cutoff = bool(_BEFORE.search(clause, max(0, start - _LOOK), start)) or bool(_AFTER.match(clause, end)) \
        or bool(_NAMED.search(clause))
    if not cutoff:
        return None
    thing = _bare(_without_day(r.object, when))
    if not thing:
        return None
    # (a day a reader gave it stays: the one it moved to, "周报下周一之前要交 … 提前到周五了")
    return dataclasses.replace(r, predicate="deadline", object=thing, due=r.due or clause[start:end])


def _clause_of(text: str, thing: str) -> str | None:
    """The clause of ``text`` (its sentence, parted by ``shared.cutoff_parts``) that says ``thing``; the
    sentence when ``thing`` runs over more than one clause; None when no sentence says it."""
    sentence = _sentence_of(text, thing)
    if sentence is None:
        return None
    return next((part for part in _PARTS.split(sentence) if thing and thing in part), sentence)


def _without_day(said: str, when: datetime) -> str:
    """``said`` without its days and the cutoff's words around them (by, before, 在…之前, "at the latest"),
    cleaned as a value is."""
    zh = bool(_CJK.search(said))
    for start, end, _ in sorted(find_times(said, when), key=lambda t: -t[0]):
        before = _BEFORE.search(said, max(0, start - _LOOK), start) or _AT.search(said, max(0, start - _LOOK), start)
        after = _AFTER.match(said, end)
        said = said[:before.start() if before else start] + " " + said[after.end() if after else end:]
    thing = _clean(_GLUE.sub(" ", _strip_times(said, when)), zh)
    return _CJK_GAP.sub("", thing) if zh else " ".join(thing.split())


def _bare(thing: str) -> str:
    """A thing owed without who asks for it and the modal or fillers it opens with (客户要求, "we have to")."""
    return _OPENING.sub("", _REPORTER.sub("", thing)).strip()


def _says(clause: str, thing: str) -> bool:
    """Whether ``clause`` says ``thing`` (a value read from it, found by ``_probes``), or is all said in it."""
    return any(probe and probe in clause for probe in _probes(thing)) or clause.strip() in thing


def _probes(thing: str) -> tuple[str, ...]:
    """What ``thing`` is looked for by in a text: itself, then its longest word (a Chinese thing: its first two
    characters), so that a reader's rewriting of it ("get the tiles chosen" for "the tiles need choosing") is
    still found, and a word as common as "the" finds nothing by itself."""
    words = thing.split()
    return (thing, max(words, key=len) if words and not _CJK.search(thing) else thing[:2])


def _sentence_of(text: str, thing: str) -> str | None:
    """The sentence of ``text`` that says ``thing`` (found by ``_probes``); None when no sentence does."""
    sentences = _sentences(text) or [text]
    for probe in _probes(thing):
        if probe:
            found = next((s for s in sentences if probe in s), None)
            if found is not None:
                return found
    return None
