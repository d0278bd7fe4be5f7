"""States a clause says have ended (``_ended_states``): "I quit the bank", 我不吃素了, "we've moved out",
"last day is 3 April".

An ending is read as the state it ends, by the ordinary steps of its language, so that the value it names has
the very form the steps give that value when it is said to hold, and meets the stored row at the gates:

* the clause without its ending words ("no longer", "not … any more", 不再, 不…了: ``<lang>.ended_state``,
  taken out by ``<lang>.ending_words``) states the value that ended ("I'm not vegan any more" → "I'm vegan");
* a job left (``<lang>.left_job``) or a diet given up (``en.diet_quit``) is read as the state it was, by the
  template of ``<lang>.ending_reading`` ("quit the bank in feb" → "I work at the bank in feb",
  从星巴克辞职了 → 我在星巴克上班).

Each fact of a state predicate (``shared.ending_predicates``) so read becomes an ending of that value (change
``ending``, the clause itself as the text naming when). A job left or a home moved out of that names no value
the steps can read ends whatever holds (``<lang>.job_ended``, ``en.done_with_job``, ``<lang>.moved_out``, a
workplace named by its kind alone: ``zh.workplace_left``; an ending with an empty object), a budget given up
(``<lang>.budget_dropped``) ends whatever budget holds, and a last day named (``<lang>.last_day``) ends the job
after that day; a way of getting about that stopped (不用骑车了) is read as a way to work
(``<lang>.ending_reading`` commute). Thought of, planned or
hypothetical endings are none (``<lang>.not_ended``). The gates close the row of the value where it stopped
holding (``core.bitemporal.plan_ending``)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from ...bitemporal import ENDING
from ...lang.times import find_times
from ..interpret import Whole, searched
from ..records import Raw as _Raw
from ..ruleset import RULES
from .clauses import _with_subject
from .en import _en_rules
from .text import _P, _clean, _strip_times
from .zh import _zh_rules

_STATES = RULES.sets["shared.ending_predicates"]
_EN_DIET_QUIT = _P["en.diet_quit"]


def _reader(zh: bool, whole: Whole | str, when: datetime, project: bool) -> Callable[[str], list[_Raw]]:
    """The state facts a clause states, read by the steps of its language."""
    def read(text: str) -> list[_Raw]:
        found = _zh_rules(text, whole, when, project) if zh else _en_rules(_with_subject(text), whole, when, project)
        return [r for r in found if r.predicate in _STATES and r.polarity == "positive" and r.object]
    return read


def _ending(r: _Raw, clause: str) -> _Raw:
    return _Raw(r.predicate, r.object, change=ENDING, due=clause)


def _unnamed(predicate: str, clause: str) -> _Raw:
    """An ending that names no value: whatever ``predicate`` holds then ended."""
    return _Raw(predicate, "", change=ENDING, due=clause)


def _says_nothing_more(rest: str, when: datetime, zh: bool) -> bool:
    """Nothing but times and fillers in ``rest``: an ending names no value in it."""
    left = _clean(_strip_times(rest, when), zh)
    if not left:
        return True
    return not zh and bool(searched(_P["en.ending_tail"], left))


def _ended_states(clause: str, whole: Whole | str, when: datetime, zh: bool, project: bool) -> list[_Raw] | None:
    """The endings ``clause`` (of the turn ``whole``, told at ``when``) states, or None when it states none
    (the clause is then read as usual)."""
    lang = "zh" if zh else "en"
    read = _reader(zh, whole, when, project)
    reading = RULES.maps[f"{lang}.ending_reading"]
    m = searched(_P[f"{lang}.last_day"], clause)
    if m and find_times(m.group(0), when):
        # in a turn telling of leaving a job, the job held then; else the employer named with it
        if searched(_P[f"{lang}.job_leaving"], whole):
            return [_Raw("works_at", "", change=ENDING, due=m.group(0))]
        at = m.group("at") if zh else None  # "6月30号是我在嘉醇最后一天": the employer said with the day
        employer = (at or _P["zh.job_before"].sub("", clause[:m.start()]) if zh else m.group("employer") or "").strip()
        named = [r for r in read(reading["last_day"].format(employer=employer)) if r.predicate == "works_at"] \
            if employer else []
        if named:
            return [_Raw("works_at", r.object, change=ENDING, due=m.group(0)) for r in named]
    if searched(_P[f"{lang}.not_ended"], clause):
        return None
    if searched(_P[f"{lang}.moved_out"], clause):
        return [_unnamed("lives_in", clause)]
    if searched(_P[f"{lang}.budget_dropped"], clause):
        return [_unnamed("budget_limit", clause)]
    m = searched(_P[f"{lang}.left_job"], clause)
    if m:
        if zh:
            employer = _strip_times(_P["zh.job_before"].sub("", clause[:m.start()]), when).strip()
            # (no employer says 我: "同意我13号就离职")
            named = read(reading["left_job"].format(employer=employer)) if employer and "我" not in employer else []
            rest = clause[:m.start()]
        else:
            named = read(reading["left_job"].format(rest=_strip_times(m.group("rest"), when)))
            rest = ""
        named = [r for r in named if r.predicate == "works_at"]
        if named:
            return [_ending(r, clause) for r in named]
        if zh and (_says_nothing_more(left := _P["zh.job_before"].sub("", rest).lstrip("我"), when, zh)
                   or searched(_P["zh.workplace_left"], _strip_times(left, when).strip())):
            return [_unnamed("works_at", clause)]
    if not zh:
        m = searched(_P["en.job_ended"], clause)
        if m and _says_nothing_more(m.group("rest"), when, zh):
            return [_unnamed("works_at", clause)]
        m = searched(_P["en.done_with_job"], clause)  # "gave my notice at X, done there"
        if m and searched(_P["en.job_leaving"], whole) and _says_nothing_more(m.group("rest"), when, zh):
            return [_unnamed("works_at", clause)]
        m = searched(_EN_DIET_QUIT, clause)
        if m:
            named = read(reading["diet_quit"].format(before=clause[:m.start()],
                                                     rest=_strip_times(m.group("rest"), when)))
            if named:
                return [_ending(r, clause) for r in named]
    if searched(_P[f"{lang}.ended_state"], clause):
        state = _P[f"{lang}.ending_words"].sub("", clause).strip()
        named = read(state) or _commute_ended(state, zh, read, reading["commute"])
        if named:
            return [_ending(r, clause) for r in named]
    return None


def _commute_ended(state: str, zh: bool, read: Callable[[str], list[_Raw]], template: str) -> list[_Raw]:
    """The commute a state that stopped was, when it is a way of getting about (不用骑车了, 不开车了, "I don't
    drive anymore", "no more driving over the bridge"): the state (a short Chinese one), or the first words of
    an English one, read as a way to work by ``template`` (``<lang>.ending_reading`` commute); [] else."""
    if zh:
        ways = [state] if len(state) <= _COMMUTE_STATE_CHARS else []
    else:
        words = state.split()
        if words and words[0].casefold() not in ("i", "i'm", "im"):
            words = ["I", *words]  # "no more driving over the bridge": "I driving"
        ways = [" ".join(words[:n]) for n in range(2, min(len(words), _COMMUTE_STATE_WORDS) + 1)]
    for way in ways:
        named = [r for r in read(template.format(state=way)) if r.predicate == "commute"]
        if named:
            return named
    return []


_COMMUTE_STATE_WORDS = 5  # the first words of an English state read as a way of getting about ("I driving", "I take the bus")
_COMMUTE_STATE_CHARS = 8  # a longer Chinese state says more than a way of getting about
