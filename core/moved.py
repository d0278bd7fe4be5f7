"""Which held item a moved date moves (docs/DESIGN.md §3.3).

A dated item's due day is its value (``core.claims.to_claims``), so a move told
as a change ("pushed to the 15th", 推迟到4月15号) of an item the store holds is
another value of that item and closes the day it held. The extractor reads one
session: a move told in a later session than the item, or naming the item by
part of its words, reaches the gates as a claim the store must place. Two
rules read the dated items the subject held when the turn was told:

- **unnamed**: a move that names no item (an empty object: "they pushed the
  deadline to april 15") moves the held item of which the turn says the largest
  share of words, half or more (the insurance named by "that insurance
  thing"), else the one the assistant's question it answers names (by half its
  words or its head: "那5月12日的复诊还去吗？" "改到19号了"), else, when the turn
  names no other day, the one told last whose day is still ahead;
- **named in part**: a dated item told as a change whose words are no held
  item's moves the held item it names, when no held item of its own value
  exists (at least half of that item's words: "the permit
  application" names "event permit application", "launch" no "feature freeze
  before launch"; or its head, ``lang.values`` "item": 复诊 names 去医院复诊).

A day of the month said alone for the new day ("改到19号", "make it the 8th")
is of the month nearest the item's day (``lang.times.day_near``), not the
coming one.

The claim becomes the held item's (its predicate and object) with the new
day. An unnamed move that finds no item is queued for a reviewer as what the
layer queues a clause of a family as: the deadline holding the turn's words,
due the new day, below the review threshold: nothing told is lost. Pure rules over the
claims and the rows given; no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from datetime import timedelta

from .bitemporal import normalise_object
from .claims import DATED, ClaimInput
from .lang.text import grams, starts_cjk
from .lang.times import day_near, find_times
from .lang.values import Relation, item_head_said, relate
from .pipeline import HEDGED_CONFIDENCE
from .records import Fact
from .timeutil import from_us, to_us

CHANGES = frozenset({"evolution", "correction"})  # an item told as a change
NAMED_SHARE = 0.5  # the share of an item's words a text says to name it
_ASKS = re.compile(r"[?？]")  # an assistant's turn that asks (a statement naming an item is not asked of it)


def moved(text: str, claims: Sequence[ClaimInput],
          held: Callable[[str, str], Sequence[Fact]], asked: str = "") -> list[ClaimInput]:
    """``claims`` (a turn's, said in ``text``) with each move placed on the held item it moves (the module
    doc); an unnamed move that finds none is a deadline of the turn's words for a reviewer.
    ``held(subject, predicate)``: the current-belief rows of a subject and predicate; only positive ones
    open when the turn was told and told by then count, so a file read again reads the same. ``asked``: the
    assistant's turn the turn answers, if it does ("那5月12日的复诊还去吗？" "改到19号了")."""
    out = []
    for claim in claims:
        unnamed = not claim.object.strip()
        if claim.predicate not in DATED or claim.polarity != "positive" or claim.value is None \
                or not (unnamed or claim.change in CHANGES):
            out.append(claim)
            continue
        # held when the turn was told: open then and told by then (a rerun meets the day this very move closed,
        # told at the turn; never what later turns wrote)
        at = claim.source.time
        items = [r for p in sorted(DATED) for r in held(claim.subject, p)
                 if r.polarity == "positive" and (r.valid_to is None or r.valid_to >= at) and r.told_from <= at]
        own = [r for r in items if normalise_object(r.object) == normalise_object(claim.object)]
        if not unnamed and own:
            out.append(_due_near(claim, own[-1]))  # its own item: the gates meet it
            continue
        item = _named(text, items) if unnamed else _named(claim.object, items, both=True)
        if item is None and unnamed and _ASKS.search(asked):  # the item the assistant asked about
            item = _named(asked, items) or _one(r for r in items if item_head_said(r.object, asked))
        if item is None and unnamed and len(find_times(text, from_us(claim.source.time, claim.source.tz))) < 2:
            # (a turn naming a day of its own besides the new one spoke of an item of its own, unread)
            ahead = [r for r in items if r.event_start is not None and r.event_start > claim.source.time]
            item = max(ahead, key=lambda r: (r.told_from, r.id), default=None)
        if item is not None:
            out.append(_due_near(claim.with_changes(predicate=item.predicate, object=item.object), item))
        elif not unnamed:
            out.append(claim)
        else:  # a move of nothing held: the turn's words, due the new day, wait for a reviewer to name the item
            out.append(claim.with_changes(object=" ".join(text.split()), change=None,
                                          confidence=min(claim.confidence, HEDGED_CONFIDENCE)))
    return out


def _due_near(claim: ClaimInput, item: Fact) -> ClaimInput:
    """``claim``, a move of ``item``, due the day it names as it means it of the item: a day of the month said
    alone ("改到19号", "make it the 8th") is of the month nearest the item's day (``lang.times.day_near``)."""
    if claim.event_start is None or item.event_start is None:
        return claim
    told = from_us(claim.source.time, claim.source.tz)
    was = from_us(claim.event_start, claim.source.tz)
    day = day_near(claim.source.text, told, was.date(), from_us(item.event_start, claim.source.tz).date())
    if day == was.date():
        return claim
    start = was.replace(year=day.year, month=day.month, day=day.day)
    value = {**claim.value, "due": day.isoformat()} if isinstance(claim.value, dict) else claim.value
    return claim.with_changes(event_start=to_us(start), event_end=to_us(start + timedelta(days=1)), value=value)


def _one(found: Iterable[Fact]) -> Fact | None:
    """The one item of ``found`` (its values' latest row), None when there are none or several."""
    items = {normalise_object(r.object): r for r in sorted(found, key=lambda r: (r.told_from, r.id))}
    return next(iter(items.values())) if len(items) == 1 else None


def _words(text: str) -> set[str]:
    """The words (Latin, of three letters or more) and character pairs (Chinese) ``text`` says, function
    words left out."""
    return {g for g in grams(text) if not g.startswith("#") and not g.isdigit()
            and (len(g) > 2 or starts_cjk(g) and len(g) > 1)}


def _named(text: str, items: Sequence[Fact], *, both: bool = False) -> Fact | None:
    """The item ``text`` names: the one of which it says the largest share of words, at least half (a word
    of an item is not the item: "launch" names no "feature freeze before launch"), the one told last among
    equals; None when it names none. ``both``: ``text`` is an item too, at least half of whose words the
    item says ("meeple mug playtest" is no "next playtest")."""
    said = _words(text)
    best: tuple[float, int, int] | None = None
    found = None
    for row in items:
        words = _words(row.object)
        shared = len(said & words)
        share = shared / len(words) if words else 0.0
        if both and relate("item", text, row.object) is Relation.WITHIN:
            share = 1.0  # named by its head (复诊 for 去医院复诊)
        elif share < NAMED_SHARE or both and shared < NAMED_SHARE * len(said):
            continue
        if best is None or (share, row.told_from, row.id) > best:
            best, found = (share, row.told_from, row.id), row
    return found
