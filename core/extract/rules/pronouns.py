"""A to-do or plan whose thing is a pronoun, alone or right after its verb ("remind me friday to book it", "It is
12 of June"): what the pronoun stands for is the thing named last before it, with its determiner
(``shared.item_antecedent``: "the van", "my talk"): in the turn's sentences before it, else in the turn before
(the assistant's "Is the van booked?"); whom one rings, calls, emails or chases ("ring them") is the party the
turn names last before it (``shared.named_party``), in the same sentence too. English only; a pronoun with no such thing
before it stays as said."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import datetime

from ...lang.times import find_times
from ...pipeline import Turn
from ..records import Raw as _Raw
from .text import _P, _is_zh, _sentences

_IT = _P["shared.item_it"]
_THING = _P["shared.item_antecedent"]
_CONTACTED = _P["shared.contacted_them"]
_PARTY = _P["shared.named_party"]
_ITEMS = ("todo", "plan", "deadline")


def things_for_pronouns(text: str, raws: list[_Raw], context: Sequence[Turn], when: datetime) -> list[_Raw]:
    """``raws`` with the pronoun of each to-do, plan or deadline of ``text`` replaced by the thing it stands
    for. Raises nothing."""
    if _is_zh(text) or not any(r.predicate in _ITEMS and _IT.match(r.object) for r in raws):
        return raws
    out = []
    for r in raws:
        said = _IT.match(r.object) if r.predicate in _ITEMS else None
        # "fine, Harbour Catering then, I'll email them tomorrow": whom one contacts is the party named last before
        thing = (_party_before(text, r.object, when) if _CONTACTED.match(r.object) else None) \
            or _thing_before(text, r.object, context, when) if said else None
        out.append(dataclasses.replace(r, object=r.object[:said.start("it")] + thing + r.object[said.end("it"):])
                   if said and thing else r)
    return out


def _thing_before(text: str, item: str, context: Sequence[Turn], when: datetime) -> str | None:
    """The thing named last before ``item`` is said in ``text`` (said at ``when``): in its sentences before the
    one saying it, else in the turn before; a time is no thing ("the 8th"); None when none is named."""
    at = text.find(item)
    sentences = _sentences(text[:at]) if at > 0 else []
    earlier = "".join(sentences[:-1]) if sentences else ""
    for where in (earlier, context[-1].text if context else ""):
        things = [t for t in _THING.findall(where) if not find_times(t, when)]
        if things:
            return str(things[-1])
    return None


def _party_before(text: str, item: str, when: datetime) -> str | None:
    """The party (a name in capitals: "Harbour Catering", "Acorn") ``text`` names last before ``item``, in the same
    sentence too; not a day, a month, "I" or a sentence's first word alone. None when the turn names none there
    (the thing said before is then looked for as for "it")."""
    at = text.find(item)
    parties = [m.group(0) for m in _PARTY.finditer(text[:at] if at > 0 else "")
               if not find_times(m.group(0), when) and not find_times("in " + m.group(0), when)]
    return parties[-1] if parties else None
