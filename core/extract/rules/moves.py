"""A move told ahead of time ("下个月搬到梅溪湖", "下周六搬家，搬到才村"; in English wherever a step reads the home
ahead): besides the home it begins (where the user lives from the day the move is to happen), the user's plan
to move, named by where to, as the turn says it. A plan that names only the move ("搬家", "the move") is that
plan without its place; said apart from the place ("the knowle house … moving in sat 28th"), it is named by it
("move to Knowle")."""

from __future__ import annotations

import dataclasses
from datetime import datetime

from ...bitemporal import ENDING
from ...pipeline import ExtractedFact
from ..interpret import searched
from .text import _P, _is_zh

_LOOK_BACK = 16  # characters before a place in which the move verb leading to it is looked for


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
        if said is None and any(f.predicate == "plan" and f.subject == home.subject
                                and searched(_P["shared.move_only"], f.object) for f in facts):
            # the move said apart from its place ("the knowle house … moving in sat 28th"): named by the place
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
