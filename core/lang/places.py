"""Towns and cities by name, with their country, its currency and their time zone
(``data/lang/places.tsv.gz``, built by ``python -m memdesk.lang.build_places`` from GeoNames).

``town(name)`` is the town a name names whole; ``place_in(value)`` finds the town a home's value names: the whole value ("Leeds", "杭州"), else its last
comma part ("Capitol Hill, Denver"), a town it opens with in Chinese (成都武侯区 -> 成都) or a town named
among its words ("chorlton (manchester)"). ``currency_at(place, when)`` is the currency of a bare amount said
by someone living there, when the turn's clock agrees with the town's (someone typing from the other side of
the world is not at home). Pure apart from reading the table once; a missing table raises FileNotFoundError
at first use, as any missing data file.
"""

from __future__ import annotations

import gzip
import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..resources import data_path

__all__ = ["Place", "currency_at", "key", "place_in", "town"]

_PARTS = re.compile(r"\s*[,，、/()（）]\s*")
_HAN = re.compile(r"[\u4e00-\u9fff]+")
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")


@dataclass(frozen=True)
class Place:
    """A town: its name as looked up, its country (ISO code), the country's currency and the town's zone."""

    name: str
    country: str
    currency: str
    zone: str


def key(name: str) -> str:
    """How a place's name is looked up (and written in the table): NFKC, lower case, runs of white space as
    one space."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


@cache
def _table() -> dict[str, tuple[str, str, str]]:
    with gzip.open(data_path("lang", "places.tsv.gz"), "rt", encoding="utf-8") as fh:
        rows = (line.rstrip("\n").split("\t") for line in fh if line.strip())
        return {name: (country, currency, zone) for name, country, currency, zone in rows}


def town(name: str) -> Place | None:
    """The town ``name`` names whole ("深圳", "London"); None when the table holds no such name."""
    found = _table().get(key(name)) if name.strip() else None
    return Place(key(name), *found) if found else None


def place_in(value: str) -> Place | None:
    """The town a home's value names (see the module doc); None when it names none the table knows."""
    whole = town(value)
    if whole is not None:
        return whole
    parts = [p for p in _PARTS.split(value) if p.strip()]
    for part in reversed(parts):  # the coarser place comes last: "Capitol Hill, Denver"
        found = town(part)
        if found is not None:
            return found
    for run in _HAN.findall(value):  # 成都武侯区, 上海徐汇田林: the town the value opens with
        for end in range(min(len(run), 8), 1, -1):
            found = town(run[:end])
            if found is not None:
                return found
    words = _WORD.findall(value)
    for size in (3, 2, 1):  # a town among the words, the longest first ("chorlton manchester")
        for at in range(len(words) - size, -1, -1):
            found = town(" ".join(words[at:at + size]))
            if found is not None and (size > 1 or words[at][:1].isupper() or value.islower()):
                return found
    return None


def currency_at(place: Place, when: datetime) -> str | None:
    """The currency of an amount said at ``when`` by someone who lives in ``place``: the country's, when
    ``when``'s offset from UTC is the town's at that moment; None otherwise (or when the zone is unknown)."""
    if when.utcoffset() is None:
        return None
    try:
        local = when.astimezone(ZoneInfo(place.zone))
    except (ZoneInfoNotFoundError, ValueError):
        return None
    return place.currency if local.utcoffset() == when.utcoffset() else None
