"""A move told ahead of time ("下个月搬到梅溪湖", "下周六搬家，搬到才村"; in English wherever a step reads the home
ahead): besides the home it begins (where the user lives from the day the move is to happen), the user's plan
to move, named by where to, as the turn says it. A plan that names only the move ("搬家", "the move") is that
plan without its place; said apart from the place ("the knowle house … moving in sat 28th"), it is named by it
("move to Knowle")."""

from __future__ import annotations

import dataclasses
from datetime import datetime

from ...bitemporal import ENDING
from ...lang.times import find_times, names_the_day
from ...pipeline import HEDGED_CONFIDENCE, ExtractedFact
from ..interpret import searched
from ..records import Raw as _Raw
from .text import _P, _clean, _is_zh, _sentences

_LOOK_BACK = 16  # characters before a place in which the move verb leading to it is looked for
_HOME_TAKEN = _P["shared.home_taken"]
_MOVE_DATED = _P["shared.move_dated"]
_MOVE_PLAN = _P["en.move_plan"]


def moves_ahead(facts: list[ExtractedFact], text: str, when: datetime) -> list[ExtractedFact]:
    """``facts`` with, for each home of the user that begins after the day ``when`` the turn was told, the plan
    to move there (unless a plan of the user's already names the place), dated as the home; plans naming only
    the move are dropped for it. Raises nothing."""
    homes = [f for f in facts if f.predicate == "lives_in" and f.polarity == "positive" and f.change != ENDING
             and f.subject.startswith("user:") and f.object and f.event_start is not None
             and f.event_start.date() > when.date()]
    if not homes:
        return facts
    moves = []
    for home in homes:
        said = _move_to(text, home.object)
        if said is None and (any(f.predicate == "plan" and f.subject == home.subject
                                 and searched(_P["shared.move_only"], f.object) for f in facts)
                             or _MOVE_DATED.search(text)):
            # the move said apart from its place ("the knowle house … moving in sat 28th", "got a flat in Frampton,
            # we're moving on the 23rd"): named by the place
            said = ("搬到" if _is_zh(text) else "move to ") + home.object
        if said is not None:
            moves.append((home, said))
    if not moves:
        return facts
    movers = {home.subject for home, _ in moves}
    out = [f for f in facts if not (f.predicate == "plan" and f.subject in movers
                                    and searched(_P["shared.move_only"], f.object))]
    for home, said in moves:
        place = home.object.casefold()
        if not any(f.predicate == "plan" and f.subject == home.subject and place in f.object.casefold() for f in out):
            out.append(dataclasses.replace(home, predicate="plan", object=said, value=None, change=None,
                                           start_said=False))
    return out


def _move_to(text: str, place: str) -> str | None:
    """The move to ``place`` as the turn says it ("搬到梅溪湖", "moving to Bath"), or None when no move verb
    leads to the place (a home named beside the move, "还住天津…下个月搬来北京", is not where it goes)."""
    at = text.casefold().find(place.casefold())
    if at <= 0:
        return None
    lang = "zh" if _is_zh(text) else "en"
    verb = _P[f"{lang}.move_verb_before"].search(text[max(0, at - _LOOK_BACK):at])
    return text[at - len(verb.group(0)):at + len(place)].strip() if verb is not None else None


def home_taken(text: str, raws: list[_Raw], when: datetime) -> list[_Raw]:
    """``raws`` with the home a move goes to when the turn dates the move ahead without naming its place
    (``shared.move_dated``: "moving april 25", 5月1号搬) and names the home taken apart from it
    (``shared.home_taken``: "found a rental in millersville", 在蒋村合租了个两室): the user lives there from that
    day (a change), and the plan to move there is due that day. ``raws`` as they are when the rules read a home
    (and when it began), or the turn dates no move ahead or names no home taken. Raises nothing."""
    move = _MOVE_DATED.search(text)
    day = (move.group("en") or move.group("zh") or "").strip() if move is not None else ""
    said = find_times(day, when) if day else []
    if not said or said[0][2].start.date() <= when.date() or not names_the_day(day, when, said[0][2].start.date()):
        return raws  # no day ahead to begin on
    day = day[said[0][0]:said[0][1]]
    if any(r.predicate == "lives_in" and r.polarity == "positive" for r in raws):
        return raws  # the rules read the home, and when it began ("we are in Madalena now, we move on saturday 14")
    taken = _HOME_TAKEN.search(text)
    if taken is None:
        return raws
    zh = bool(taken.group("zh") or taken.group("settled"))
    place = _clean(taken.group("zh") or taken.group("settled") or taken.group("en") or taken.group("to") or "", zh)
    if not place:
        return raws
    plan = f"搬到{place}" if zh else f"move to {place}"
    return [*raws, _Raw("lives_in", place, change="evolution", due=day), _Raw("plan", plan, due=day)]


def homes_ahead(facts: list[ExtractedFact], text: str, when: datetime) -> list[ExtractedFact]:
    """``facts`` with, for each English plan to move to a place ("move to Penarth") that the sentence of ``text``
    naming the place dates to a day after the day ``when`` it was told (not "end of the month": when in it the
    home begins is not said) and not hedged, the home it begins on that day (as a Chinese move told ahead is
    read), unless a home of the user's is read already. Raises nothing."""
    if any(f.predicate == "lives_in" and f.polarity == "positive" for f in facts):
        return facts
    out = list(facts)
    for f in facts:
        m = _MOVE_PLAN.fullmatch(f.object) if f.predicate == "plan" and f.polarity == "positive" else None
        if m is None or f.event_start is None or f.event_start.date() <= when.date() \
                or not names_the_day(_sentence_of(text, m.group("place")), when, f.event_start.date()) \
                or f.confidence <= HEDGED_CONFIDENCE \
                or not f.subject.startswith("user:"):
            continue
        out.append(dataclasses.replace(f, predicate="lives_in", object=m.group("place"), value=None,
                                       change="evolution", start_said=False))
    return out


def _sentence_of(text: str, words: str) -> str:
    """The sentence of ``text`` that says ``words`` (case aside); "" when none does."""
    folded = words.casefold()
    return next((x for x in _sentences(text) if folded in x.casefold()), "")
