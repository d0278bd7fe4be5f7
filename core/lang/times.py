"""Event times in Chinese and English, resolved against the utterance time.

``resolve_time(expr, utterance)`` reads one whole expression; ``find_times(text,
utterance)`` finds every expression in a sentence with its span. The result is
a ``TimeSpan``: half-open ``[start, end)`` of whole days, at midnight in the
utterance's timezone.

A small hand-written resolver rather than a library: dateparser and friends
resolve "next Friday", weekends, 下周 and 月底 by their own conventions (and some
of those differ between versions and languages), while the extractor needs
exactly the conventions below, offline and deterministic. The words
(weekdays, months, 今天/明天, 上/下, 月底/月初 …) and their values are
``data/lang/times.toml``; the shapes of the expressions are the patterns below.

Conventions
-----------
* Weeks start on Monday. "this/next/last week", 这周/本周/下周/上周 (and
  下下周/上上周) are whole weeks, Monday 00:00 to the next Monday 00:00.
* Weekends run from Saturday 00:00 to Monday 00:00 of the week meant:
  "this weekend"/"the weekend"/这周末/本周末/周末 = this week's, "next weekend"/
  下周末 = next week's, "last weekend"/上周末 = last week's.
* "next Friday"/下周五 = the Friday of next week; "last Monday"/上周一 = the
  Monday of last week; 这周五/本周五 = the Friday of this week (even if past);
  bare "Friday"/"on Friday"/"this Friday"/周五/星期五/礼拜五 = the coming Friday
  (today if today is a Friday).
* Months and years are whole: "this/next/last month", 这个月/本月/下个月/下月/
  上个月/上月, "this/next/last year", 今年/明年/去年/前年/后年.
* Edges are single days: "end of the month"/月底/月末 = the last day of the
  month, "beginning/start of the month"/月初 = its first day; likewise 年底/年末
  (31 December), 年初 (1 January), "end of the year", 下个月底, 上月初, 三月底,
  明年初, "end of next month", "end of March".
* Days: today/tomorrow/yesterday/the day after tomorrow/the day before
  yesterday, 今天/今日/明天/明日/后天/大后天/昨天/昨日/前天/大前天, "in 3 days",
  "3 days ago", 三天后/3天之后/两天前.
* A month named alone is the whole month: "in October", "by June", "before
  March 2027", "early July", 十月, 6月份, 明年3月. Without a year it is the
  coming one (this month counts as coming), except after "since", which
  looks back; a bare English month needs a word before it (in/by/before/
  during/until/till/from/since/early/late/mid/around/over/this/next), so
  "May" alone is no time.
* A day of the month alone ("on the 14th", 14号, 十五号) is the coming one: this
  month's if it is today or later, else next month's (no match if that month
  has no such day). 3号线, 5号楼 and the like are not days.
* Dates: "5 March", "on 5 March", "5th of March", "the 5th of March",
  "March 5", "March 5th", "Mar. 5", with an optional year ("March 5, 2027");
  2026-03-05; 3月5日/3月5号/三月五号/十二月二十五日, optionally after 2027年/二〇二七年/
  今年/明年/去年. A date without a year takes the utterance's year. Impossible
  dates (2月30日) are no match.

Told as past
------------
``find_times(..., past=True)`` reads an expression that names no direction
the way a change told as having happened means it: the latest such time that
has begun by the utterance, not the coming one. "We moved in February" said on
20 March 2026 is February 2026, "I moved on Friday" said on a Wednesday the
Friday before, "on the 25th" said on the 20th the 25th of last month, "5
December" with no year last December. An expression that names its direction
or year ("next June", 下个月, "last Friday", 2027年3月) reads the same either way.

Periods of the year
-------------------
Seasons, halves and quarters of the year, school holidays and the days kept on a fixed date
(``zh.periods``/``en.periods``: 下半年, 暑假, 三季度, Q3, 元旦, "Christmas Eve") are whole spans by
the calendar (a season by months: summer is June to August; winter runs into the next year);
holidays whose day moves (春节, 五一, 国庆, 中秋, Thanksgiving, Easter: ``zh.holidays``/
``en.holidays``) are the days the ``holidays`` library gives them that year. With a year or a
direction (今年夏天, 明年五一, 2027年国庆, "next summer", "Christmas 2027") they are that year's;
alone, the coming one (the one under way counts). A season said alone is every one (春天出门必须戴口罩,
"in the summer I cycle"), no time: a Chinese season needs its year, an English one its year,
this/next/last or a word of direction ("by summer", "over the summer", "sometime in the spring").
A period naming a matter (暑假那事, 暑假预算) is no time. "this/next/last quarter", 这个/下个季度
are whole calendar quarters.

Not covered: times of day (下午三点, at 3pm), ranges (3月5日到8日), durations
("for two weeks"), recurring times (每周一), English number words beyond ten, and "this week's"
weekday in English ("this Friday" is the coming Friday).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo
from functools import cache, lru_cache

import holidays

from ..errors import InvalidInput
from . import tables
from .numerals import EN_UNITS, parse_cn_number

__all__ = ["TimeSpan", "day_near", "find_times", "meant_times", "names_the_day", "opening_time", "resolve_time"]


@dataclass(frozen=True)
class TimeSpan:
    """Half-open ``[start, end)`` of aware datetimes and the expression it came from."""

    start: datetime
    end: datetime
    expr: str

    def to_json(self) -> dict[str, str]:
        """``{"start": ISO 8601, "end": ISO 8601, "expr": text}``."""
        return {"start": self.start.isoformat(), "end": self.end.isoformat(), "expr": self.expr}


DateRange = tuple[date, date]
_Handler = Callable[[re.Match[str], date], DateRange | None]


# ---------------------------------------------------------------- date arithmetic

def _day(d: date) -> DateRange:
    return d, d + timedelta(days=1)


def _monday(d: date) -> date:
    return d - timedelta(days=d.weekday())


def _week(today: date, offset: int) -> DateRange:
    start = _monday(today) + timedelta(weeks=offset)
    return start, start + timedelta(weeks=1)


def _weekend(today: date, offset: int) -> DateRange:
    sat = _monday(today) + timedelta(weeks=offset, days=5)
    return sat, sat + timedelta(days=2)


def _weekday_of_week(today: date, offset: int, wd: int) -> DateRange:
    return _day(_monday(today) + timedelta(weeks=offset, days=wd))


def _coming_weekday(today: date, wd: int) -> DateRange:
    return _day(today + timedelta(days=(wd - today.weekday()) % 7))


def _shift_month(year: int, month: int, offset: int) -> tuple[int, int]:
    index = year * 12 + (month - 1) + offset
    return index // 12, index % 12 + 1


def _month(year: int, month: int) -> DateRange:
    ny, nm = _shift_month(year, month, 1)
    return date(year, month, 1), date(ny, nm, 1)


def _edge(span: DateRange, edge: str | None) -> DateRange:
    """The whole span, its first day (edge "start") or its last day (edge "end")."""
    if edge == "start":
        return _day(span[0])
    if edge == "end":
        return _day(span[1] - timedelta(days=1))
    return span


def _year(year: int) -> DateRange:
    return date(year, 1, 1), date(year + 1, 1, 1)


def _date(year: int, month: int, day: int) -> DateRange | None:
    try:
        return _day(date(year, month, day))
    except ValueError:
        return None


def _period_in(word: str, year: int) -> DateRange | None:
    """The period or holiday ``word`` names that begins in ``year`` (None: the library knows no such day)."""
    if word in _PERIODS:
        m1, d1, m2, d2 = _PERIODS[word]
        start = date(year, m1, d1)
        return start, date(year if (m2, d2) > (m1, d1) else year + 1, m2, d2)
    return _holiday_in(_HOLIDAYS[word], year)


@cache
def _holiday_in(spec: tuple[str, ...], year: int) -> DateRange | None:
    """The run of days the ``holidays`` library gives the holiday ``spec`` (country, name[, language])
    in ``year``, from its first; a day named after it (补假, "(observed)") is not the holiday."""
    country, name, *language = spec
    days = holidays.country_holidays(country, years=year, language=language[0] if language else None)
    named = sorted(d for d, n in days.items() if any(part.strip() == name for part in n.split(";")))
    if not named:
        return None
    end = named[0] + timedelta(days=1)
    while end in named:
        end += timedelta(days=1)
    return named[0], end


def _coming(word: str, today: date) -> DateRange | None:
    """The coming period ``word`` names: the first not over by ``today`` (the one under way counts)."""
    for year in (today.year - 1, today.year, today.year + 1):
        rng = _period_in(word, year)
        if rng is not None and rng[1] > today:
            return rng
    return None


def _cn_int(text: str | None) -> int | None:
    """A small Chinese or Arabic integer (三, 十二, 25, 二〇二六), or None."""
    if not text:
        return None
    value = parse_cn_number(text)
    if value is None or value != value.to_integral_value():
        return None
    return int(value)


# ---------------------------------------------------------------- vocabulary

# the words and their values: data/lang/times.toml
_CN_EDGE = tables.mapping("times", "zh.edges")
_CN_WEEKDAY = tables.ints("times", "zh.weekdays")
_CN_WEEK_REL = tables.ints("times", "zh.week_offsets")
_CN_DAY_REL = tables.ints("times", "zh.days")
_CN_YEAR_REL = tables.ints("times", "zh.years")
_CN_NOT_A_DAY_BEFORE = tables.words("times", "zh.not_a_day_before")
_CN_PERIOD_NAMES = tuple(tables.words("times", "zh.period_named_before"))
_EN_WEEKDAYS = tables.words("times", "en.weekdays")
_EN_WEEKDAY_CUTS = tables.words("times", "en.weekday_cuts")
_EN_WEEKDAY_CUTS_ALONE = tables.words("times", "en.weekday_cuts_alone")
_EN_WEEKDAY_CUT_LEADS = tables.words("times", "en.weekday_cut_leads")
_EN_MONTHS = tables.ints("times", "en.months")
_EN_REL = tables.ints("times", "en.offsets")
_EN_DAYS = tables.ints("times", "en.days")
_EN_MONTH_LEAD = tables.words("times", "en.month_lead_words")
# the number words a count of days may be ("in three days", "a day ago"), valued by numerals
_EN_SMALL = {w: EN_UNITS[w] for w in tables.words("times", "en.day_count_words")}
# periods of the year (seasons, halves, quarters, days on a fixed date) and holidays that move
_PERIODS_BY_LANG = {lang: tables.int_lists("times", f"{lang}.periods", 4) for lang in ("zh", "en")}
_HOLIDAYS_BY_LANG = {lang: tables.string_lists("times", f"{lang}.holidays") for lang in ("zh", "en")}
_PERIODS = {**_PERIODS_BY_LANG["zh"], **_PERIODS_BY_LANG["en"]}
_HOLIDAYS = {**_HOLIDAYS_BY_LANG["zh"], **_HOLIDAYS_BY_LANG["en"]}
_EN_NEEDS_LEAD = frozenset(tables.words("times", "en.period_words.needs_lead"))
_EN_PERIOD_LEAD = tables.words("times", "en.period_words.lead_words")
_ZH_NEEDS_YEAR = frozenset(tables.words("times", "zh.period_words.needs_year"))
_ZH_PERIOD_WORDS = [*_PERIODS_BY_LANG["zh"], *_HOLIDAYS_BY_LANG["zh"]]
_EN_PERIOD_WORDS = [*_PERIODS_BY_LANG["en"], *_HOLIDAYS_BY_LANG["en"]]

_CNNUM = r"[0-9０-９零〇一二两三四五六七八九十]{1,3}"
_CN_YEARNUM = r"(?:\d{4}|[零〇一二三四五六七八九]{4})"
_WEEK = r"(?:周|週|星期|礼拜|禮拜)"


_alt = tables.alternation


_EN_MONTH_RE = rf"(?P<mon>{_alt(_EN_MONTHS)})(?![A-Za-z])\.?"
_EN_DAYNUM = r"(?P<d>\d{1,2})(?:st|nd|rd|th)?(?![A-Za-z0-9])"
_EN_RANGE = r"(?:-|–|—|to|till|until|thru|through)"  # between the first and the last day of a range
# a date's year: said ("3 March 2021") or as a year from this one ("3 March last year")
_EN_YEAR = r"(?:,?\s+(?:(?P<y>\d{4})(?!\d)|(?:of\s+)?(?P<yrel>last|this|next)\s+year\b))?"
# "the day after tomorrow", any blanks between its words
_EN_DAYS_RE = "|".join(r"\s+".join(re.escape(w) for w in phrase.split())
                       for phrase in sorted(_EN_DAYS, key=len, reverse=True))
_EN_N = rf"(?P<n>\d{{1,3}}|{_alt(_EN_SMALL)})"
# a period's words, any blanks between them, either apostrophe ("new year's day")
_EN_PERIOD_RE = "|".join(r"\s+".join(re.escape(w).replace("'", "['’]") for w in phrase.split())
                         for phrase in sorted(_EN_PERIOD_WORDS, key=len, reverse=True))


# ---------------------------------------------------------------- handlers

def _cn_day(m: re.Match[str], today: date) -> DateRange | None:
    return _day(today + timedelta(days=_CN_DAY_REL[m.group(0)]))


def _cn_week(m: re.Match[str], today: date) -> DateRange | None:
    offset = _CN_WEEK_REL[m.group("rel")]
    if m.group("wd"):
        return _weekday_of_week(today, offset, _CN_WEEKDAY[m.group("wd")])
    if m.group("we"):
        return _weekend(today, offset)
    return _week(today, offset)


def _cn_bare_weekday(m: re.Match[str], today: date) -> DateRange | None:
    return _coming_weekday(today, _CN_WEEKDAY[m.group("wd")])


def _cn_bare_weekend(m: re.Match[str], today: date) -> DateRange | None:
    return _weekend(today, 0)


def _cn_month_rel(m: re.Match[str], today: date) -> DateRange | None:
    y, mo = _shift_month(today.year, today.month, _CN_WEEK_REL[m.group("rel")])
    return _edge(_month(y, mo), _CN_EDGE.get(m.group("edge") or ""))


def _cn_month_edge(m: re.Match[str], today: date) -> DateRange | None:
    return _edge(_month(today.year, today.month), _CN_EDGE[m.group("edge")])


def _cn_year_of(m: re.Match[str], today: date) -> int | None:
    if m.group("yrel"):
        return today.year + _CN_YEAR_REL[m.group("yrel")]
    if m.group("y"):
        return _cn_int(m.group("y"))
    return today.year


def _cn_named_month_edge(m: re.Match[str], today: date) -> DateRange | None:
    year, month = _cn_year_of(m, today), _cn_int(m.group("m"))
    if year is None or month is None or not 1 <= month <= 12:
        return None
    return _edge(_month(year, month), _CN_EDGE[m.group("edge")])


def _cn_date(m: re.Match[str], today: date) -> DateRange | None:
    year, month, day = _cn_year_of(m, today), _cn_int(m.group("m")), _cn_int(m.group("d"))
    if year is None or month is None or day is None:
        return None
    return _date(year, month, day)


def _cn_year(m: re.Match[str], today: date) -> DateRange | None:
    year = _cn_year_of(m, today)
    if year is None:
        return None
    return _edge(_year(year), _CN_EDGE.get(m.group("edge") or ""))


def _named_month(year: int | None, month: int, today: date, look: str = "coming") -> DateRange:
    """The whole ``month`` of ``year``. Without a year: the coming one, this month included ("coming"), the
    latest one up to this month ("since"), strictly before ("last") or strictly after this month ("next")."""
    if year is None:
        year = today.year
        if (look == "coming" and month < today.month) or (look == "next" and month <= today.month):
            year += 1
        elif (look == "since" and month > today.month) or (look == "last" and month >= today.month):
            year -= 1
    return _month(year, month)


def _cn_month(m: re.Match[str], today: date) -> DateRange | None:
    month = _cn_int(m.group("m"))
    if month is None or not 1 <= month <= 12:
        return None
    year = _cn_year_of(m, today) if m.group("yrel") or m.group("y") else None
    return _named_month(year, month, today)


def _en_month(m: re.Match[str], today: date) -> DateRange | None:
    year = int(m.group("y")) if m.group("y") else None
    pre = m.group("pre").lower()
    look = pre if pre in ("since", "last", "next") else "coming"
    return _named_month(year, _EN_MONTHS[m.group("mon").lower().rstrip(".")], today, look)


def _day_of_month(m: re.Match[str], today: date) -> DateRange | None:
    day = _cn_int(m.group("d"))
    if day is None or not 1 <= day <= 31:
        return None
    year, month = (today.year, today.month) if day >= today.day else _shift_month(today.year, today.month, 1)
    return _date(year, month, day)


def _cn_offset_days(m: re.Match[str], today: date) -> DateRange | None:
    n = _cn_int(m.group("n"))
    if n is None:
        return None
    return _day(today + timedelta(days=n if m.group("dir") == "后" else -n))


def _en_day(m: re.Match[str], today: date) -> DateRange | None:
    word = re.sub(r"\s+", " ", m.group(0).lower())
    return _day(today + timedelta(days=_EN_DAYS[word]))


def _en_week_or_weekend(m: re.Match[str], today: date) -> DateRange | None:
    return _weekend(today, 0) if m.group("we2") else _en_week(m, today)


def _en_week(m: re.Match[str], today: date) -> DateRange | None:
    offset = _EN_REL[(m.group("rel") or "this").lower()]
    return _weekend(today, offset) if m.group("we") else _week(today, offset)


def _en_weekday(m: re.Match[str], today: date) -> DateRange | None:
    wd = _EN_WEEKDAYS.index(m.group("wd").lower())
    rel = (m.group("rel") or "").lower()
    if rel in ("next", "last"):
        return _weekday_of_week(today, _EN_REL[rel], wd)
    return _coming_weekday(today, wd)


def _en_weekday_cut(m: re.Match[str], today: date) -> DateRange | None:
    """A weekday cut short ("next fri", "on sat", "thurs"): the weekday its first two letters begin."""
    cut = (m.group("cut") or m.group("alone")).lower()
    wd = next(i for i, name in enumerate(_EN_WEEKDAYS) if name.startswith(cut[:2]))
    rel = (m.group("rel") or "").lower()
    if rel in ("next", "last"):
        return _weekday_of_week(today, _EN_REL[rel], wd)
    return _coming_weekday(today, wd)


def _en_period(m: re.Match[str], today: date) -> DateRange | None:
    offset = _EN_REL[(m.group("rel") or "this").lower()]
    if m.group("unit").lower() == "month":
        return _month(*_shift_month(today.year, today.month, offset))
    return _year(today.year + offset)


def _en_edge(m: re.Match[str], today: date) -> DateRange | None:
    edge = "end" if m.group("edge").lower() == "end" else "start"
    offset = _EN_REL[(m.group("rel") or "this").lower()]
    unit = m.group("unit").lower()
    if unit == "month":
        span = _month(*_shift_month(today.year, today.month, offset))
    elif unit == "year":
        span = _year(today.year + offset)
    else:
        span = _month(today.year, _EN_MONTHS[unit.rstrip(".")])
    return _edge(span, edge)


def _en_date(m: re.Match[str], today: date) -> DateRange | None:
    return _date_of(m, today, "d")


def _en_date_range(m: re.Match[str], today: date) -> DateRange | None:
    """Days of one month said as a range ("1 to 8 May", "13-17 July", "June 3rd-6th"): from the first to
    the last, both included; None when the first is not before the last or a day is not in the month."""
    first, last = _date_of(m, today, "d1"), _en_date(m, today)
    if first is None or last is None or last[0] <= first[0]:
        return None
    return first[0], last[1]


def _date_of(m: re.Match[str], today: date, group: str) -> DateRange | None:
    """The day of an English date's month (``mon``) and year (``y`` or ``yrel``, else this year) that ``group``
    holds."""
    year = int(m.group("y")) if m.group("y") else today.year + _EN_REL.get((m.group("yrel") or "this").lower(), 0)
    return _date(year, _EN_MONTHS[m.group("mon").lower()], int(m.group(group)))


def _iso_date(m: re.Match[str], today: date) -> DateRange | None:
    return _date(int(m.group("y")), int(m.group("m")), int(m.group("d")))


def _en_offset_days(m: re.Match[str], today: date) -> DateRange | None:
    raw = m.group("n").lower()
    n = int(raw) if raw.isdigit() else _EN_SMALL[raw]
    ago = m.groupdict().get("ago")
    return _day(today + timedelta(days=-n if ago else n))


def _back(rng: DateRange, today: date, step: str) -> DateRange:
    """``rng`` stepped back by whole ``step`` units (week, month, year) until it
    has begun by ``today``: the past reading of an expression naming no
    direction. A day of the month steps to the latest month that has that day."""
    start, end = rng
    length = end - start
    while start > today:
        if step == "week":
            start -= timedelta(weeks=1)
        elif step == "month":  # a single day: the same day of an earlier month
            y, mo = start.year, start.month
            while True:
                y, mo = _shift_month(y, mo, -1)
                try:
                    start = date(y, mo, rng[0].day)
                    break
                except ValueError:
                    continue
        else:  # year
            try:
                start = start.replace(year=start.year - 1)
            except ValueError:  # 29 February
                start = start.replace(year=start.year - 1, day=28)
            if (end.month, end.day) != (start.month, start.day):
                length = _year_later(start, rng) - start
    return start, start + length


def _year_later(start: date, rng: DateRange) -> date:
    """The end of ``rng`` moved with its start (whole months keep their length by the calendar)."""
    months = (rng[1].year - rng[0].year) * 12 + rng[1].month - rng[0].month
    if rng[0].day == 1 and rng[1].day == 1 and months:
        y, mo = _shift_month(start.year, start.month, months)
        return date(y, mo, 1)
    return start + (rng[1] - rng[0])


def _undirected(m: re.Match[str], handler: _Handler) -> str | None:
    """The unit a time expression steps back by when read as past (see
    "Told as past"), or None when it names its direction or year."""
    groups = m.groupdict()
    if groups.get("yrel") or groups.get("y"):
        return None
    if handler is _en_weekday:
        return None if (groups.get("rel") or "").lower() in ("next", "last") else "week"
    if handler is _en_month:
        return None if groups["pre"].lower() in ("since", "last", "next") else "year"
    if handler is _en_edge:
        return "year" if groups["unit"].lower() not in ("month", "year") else None
    if handler is _en_week_or_weekend:  # "the weekend", "this weekend": the one just past
        weekend = groups.get("we2") or (groups.get("we") and (groups.get("rel") or "").lower()
                                        == "this")
        return "week" if weekend else None
    return _PAST_STEP.get(handler)


def _cn_period(m: re.Match[str], today: date) -> DateRange | None:
    """今年夏天, 明年五一, 下半年, 国庆: the year named, else the coming one; a season only with its year."""
    word = m.group("per")
    if not (m.group("yrel") or m.group("y")):
        return None if word in _ZH_NEEDS_YEAR else _coming(word, today)
    year = _cn_year_of(m, today)
    return None if year is None else _period_in(word, year)


def _en_period_named(m: re.Match[str], today: date) -> DateRange | None:
    """"this summer", "next Christmas", "summer 2027", "at Thanksgiving": the year named, else the coming
    one; a season only after a lead word or with its year."""
    word = " ".join(m.group("per").lower().replace("’", "'").split())
    rel, year = (m.group("rel") or "").lower(), m.group("y")
    if word in _EN_NEEDS_LEAD and not (m.group("lead") or rel or year):
        return None
    if year:
        return _period_in(word, int(year))
    if rel in _EN_REL:
        return _period_in(word, today.year + _EN_REL[rel])
    return _coming(word, today)


def _quarter_rel(m: re.Match[str], today: date) -> DateRange | None:
    """这个季度/下个季度/上季度, "this/next/last quarter": whole calendar quarters."""
    rel = m.group("rel")
    offset = _EN_REL[rel.lower()] if rel.lower() in _EN_REL else _CN_WEEK_REL[rel]
    y, mo = _shift_month(today.year, (today.month - 1) // 3 * 3 + 1, 3 * offset)
    ey, emo = _shift_month(y, mo, 3)
    return date(y, mo, 1), date(ey, emo, 1)


# ---------------------------------------------------------------- patterns

_EN_L, _EN_R = r"(?<![A-Za-z])", r"(?![A-Za-z])"
_EN_FLAGS = re.IGNORECASE

_PATTERNS: list[tuple[re.Pattern[str], _Handler]] = [
    # Chinese
    (re.compile(_alt(_CN_DAY_REL)), _cn_day),
    (re.compile(rf"(?P<rel>{_alt(_CN_WEEK_REL)})(?:个|個)?{_WEEK}"
                r"(?:(?P<wd>[一二三四五六日1-7]|天(?!气|氣))|(?P<we>末))?"), _cn_week),
    (re.compile(rf"(?<![一二两三四五六七八九十0-9每几個个上下这這本]){_WEEK}"
                r"(?P<wd>[一二三四五六日1-7]|天(?!气|氣))"), _cn_bare_weekday),
    (re.compile(r"(?<![每上下这這本个個])周末"), _cn_bare_weekend),
    (re.compile(r"(?P<rel>上上|上|下下|下|这|這|本)(?:个|個)?月(?P<edge>[底末初])?"), _cn_month_rel),
    (re.compile(r"(?<![上下这這本个個0-9零〇一二两三四五六七八九十])月(?P<edge>[底末初])"),
     _cn_month_edge),
    (re.compile(rf"(?:(?P<yrel>{_alt(_CN_YEAR_REL)})|(?P<y>{_CN_YEARNUM})年)?"
                rf"(?<![0-9零〇一二两三四五六七八九十])(?P<m>{_CNNUM})月(?P<edge>[底末初])"),
     _cn_named_month_edge),
    (re.compile(rf"(?:(?P<yrel>{_alt(_CN_YEAR_REL)})|(?P<y>{_CN_YEARNUM})年)?"
                rf"(?<![0-9零〇一二两三四五六七八九十])(?P<m>{_CNNUM})月(?P<d>{_CNNUM})[日号號]"),
     _cn_date),
    (re.compile(rf"(?:(?P<yrel>{_alt(_CN_YEAR_REL)})|(?P<y>{_CN_YEARNUM})年)?"
                rf"(?<![0-9零〇一二两三四五六七八九十个個])(?P<m>{_CNNUM})月份?(?![0-9０-９零〇一二两三四五六七八九十底末初日号號])"),
     _cn_month),
    (re.compile(rf"(?:(?P<yrel>{_alt(_CN_YEAR_REL)})|(?P<y>{_CN_YEARNUM})年)(?P<edge>[底末初])?"),
     _cn_year),
    (re.compile(r"(?<![今明去前后0-9零〇一二两三四五六七八九十])(?P<yrel>)(?P<y>)年(?P<edge>[底末初])"),
     _cn_year),
    (re.compile(rf"(?<![0-9零〇一二两三四五六七八九十])(?P<n>{_CNNUM})(?:天|日)(?:以|之)?(?P<dir>[后前])"),
     _cn_offset_days),
    (re.compile(r"(?<![0-9０-９零〇一二两三四五六七八九十月第])(?P<d>[0-9]{1,2}|[一二三]?十[一二三四五六七八九]?|[一二三四五六七八九])号"
                rf"(?!{_alt(_CN_NOT_A_DAY_BEFORE)})"), _day_of_month),
    (re.compile(rf"(?:(?P<yrel>{_alt(_CN_YEAR_REL)})|(?P<y>{_CN_YEARNUM})年)?(?P<per>{_alt(_ZH_PERIOD_WORDS)})"
                r"(?!路|街|村|大道|广场|小区)"), _cn_period),
    (re.compile(r"(?P<rel>上|下|这|這|本)(?:个|個)?季度"), _quarter_rel),
    # English
    (re.compile(rf"{_EN_L}(?:{_EN_DAYS_RE}){_EN_R}", _EN_FLAGS), _en_day),
    (re.compile(rf"{_EN_L}(?:(?P<rel>this|next|last)\s+week(?P<we>end)?"
                rf"|the\s+week(?P<we2>end)){_EN_R}", _EN_FLAGS), _en_week_or_weekend),
    (re.compile(rf"{_EN_L}(?:(?P<rel>next|last|this|coming|on)\s+)?"
                rf"(?P<wd>{_alt(_EN_WEEKDAYS)}){_EN_R}", _EN_FLAGS), _en_weekday),
    (re.compile(rf"{_EN_L}(?:(?P<rel>{_alt(_EN_WEEKDAY_CUT_LEADS)})\s+(?P<cut>{_alt(_EN_WEEKDAY_CUTS)})"
                rf"|(?P<alone>{_alt(_EN_WEEKDAY_CUTS_ALONE)}))\.?{_EN_R}", _EN_FLAGS), _en_weekday_cut),
    (re.compile(rf"{_EN_L}(?P<rel>this|next|last)\s+(?P<unit>month|year){_EN_R}", _EN_FLAGS),
     _en_period),
    (re.compile(rf"{_EN_L}(?:the\s+)?(?P<edge>end|beginning|start)\s+of\s+(?:(?:the|this)\s+)?"
                rf"(?:(?P<rel>next|last)\s+)?(?P<unit>month|year|{_alt(_EN_MONTHS)}){_EN_R}",
                _EN_FLAGS), _en_edge),
    # days of one month as a range: "1 to 8 May", "13-17 July", "the 3rd to the 6th of June", "June 3rd-6th"
    (re.compile(rf"{_EN_L}(?:from\s+)?(?:the\s+)?(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?\s*{_EN_RANGE}\s*(?:the\s+)?"
                rf"{_EN_DAYNUM}(?:\s+of)?\s+{_EN_MONTH_RE}{_EN_YEAR}", _EN_FLAGS), _en_date_range),
    (re.compile(rf"{_EN_L}(?:from\s+)?{_EN_MONTH_RE}\s+(?:the\s+)?(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?\s*{_EN_RANGE}\s*"
                rf"(?:the\s+)?{_EN_DAYNUM}{_EN_YEAR}", _EN_FLAGS), _en_date_range),
    (re.compile(rf"{_EN_L}(?:on\s+)?(?:the\s+)?{_EN_DAYNUM}(?:\s+of)?\s+{_EN_MONTH_RE}{_EN_YEAR}",
                _EN_FLAGS), _en_date),
    (re.compile(rf"{_EN_L}(?:on\s+)?{_EN_MONTH_RE}\s+(?:the\s+)?{_EN_DAYNUM}{_EN_YEAR}",
                _EN_FLAGS), _en_date),
    (re.compile(rf"{_EN_L}(?P<pre>{_alt(_EN_MONTH_LEAD)})"
                rf"(?:\s+|-)(?:early\s+|late\s+|mid-?)?{_EN_MONTH_RE}(?:\s+(?P<y>\d{{4}})(?!\d))?(?!\s*\d)",
                _EN_FLAGS), _en_month),
    (re.compile(r"(?<![0-9])(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})(?![0-9])"), _iso_date),
    (re.compile(rf"{_EN_L}(?:(?P<lead>{_alt(_EN_PERIOD_LEAD)})\s+(?:the\s+)?)?(?:(?P<rel>this|next|last)\s+)?"
                rf"(?P<per>{_EN_PERIOD_RE})"
                rf"(?:\s+(?P<y>\d{{4}})(?!\d))?{_EN_R}", _EN_FLAGS), _en_period_named),
    (re.compile(rf"{_EN_L}(?P<rel>this|next|last)\s+quarter{_EN_R}", _EN_FLAGS), _quarter_rel),
    (re.compile(rf"{_EN_L}(?:on\s+)?the\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)(?!\s+of\b){_EN_R}", _EN_FLAGS), _day_of_month),
    # a weekday, written out or cut short, with its day of the month and no "the" ("sat 28th", "friday 4th"): that day
    (re.compile(rf"{_EN_L}(?:on\s+)?(?:{_alt(_EN_WEEKDAYS)}|{_alt(_EN_WEEKDAY_CUTS)})\.?,?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)"
                rf"(?!\s+of\b){_EN_R}", _EN_FLAGS), _day_of_month),
    (re.compile(rf"{_EN_L}in\s+{_EN_N}\s+days?{_EN_R}", _EN_FLAGS), _en_offset_days),
    (re.compile(rf"{_EN_L}{_EN_N}\s+days?\s+(?P<ago>ago){_EN_R}", _EN_FLAGS), _en_offset_days),
]


# the handlers whose expressions never name a direction, and the unit they step back by
_PAST_STEP: dict[_Handler, str] = {
    _cn_bare_weekday: "week", _cn_bare_weekend: "week", _day_of_month: "month",
    _cn_month: "year", _cn_date: "year", _en_date: "year", _en_date_range: "year", _cn_named_month_edge: "year",
    _cn_period: "year", _en_period_named: "year",
}


# the readers of a span's first or last day ("end of the month", 月底, 年初): no day of its own said
_EDGES: frozenset[_Handler] = frozenset({_en_edge, _cn_month_edge, _cn_named_month_edge, _cn_month_rel, _cn_year})

# a weekday and a date that name one day when side by side (``_one_day_named_twice``)
_WEEKDAYS: frozenset[_Handler] = frozenset({_en_weekday, _cn_bare_weekday, _cn_week})
_DATES: frozenset[_Handler] = frozenset({_en_date, _day_of_month, _cn_date, _iso_date})
_BESIDE = re.compile(r"[\s,，、(（]*(?:the\s+|a\s+|an\s+)?", re.IGNORECASE)


def _only(words: list[str]) -> re.Pattern[str]:
    """Text made of ``words`` alone (one or more), blanks, commas, stops and dashes between them, a
    leading "the" after them."""
    gap = r"[\s,，、.。!！…—–~-]*"
    return re.compile(rf"{gap}(?:(?:{_alt(words)}){gap})+(?:the\s+)?", re.IGNORECASE)


_Chosen = tuple[int, int, DateRange, "_Handler | None"]  # a time found: where, its days, what read it

# the words between two times that take the first back, or the second (``_taken_back``)
_TAKES_FIRST_BACK = _only(tables.words("times", "taken_back.before"))
_TAKES_SECOND_BACK = _only(tables.words("times", "taken_back.after"))


# ---------------------------------------------------------------- public API

def _check_utterance(utterance: datetime) -> tzinfo:
    if not isinstance(utterance, datetime) or utterance.tzinfo is None \
            or utterance.utcoffset() is None:
        raise InvalidInput(f"utterance time must be an aware datetime, got {utterance!r}")
    return utterance.tzinfo


def _span(rng: DateRange, tz: tzinfo, expr: str) -> TimeSpan:
    start = datetime(rng[0].year, rng[0].month, rng[0].day, tzinfo=tz)
    end = datetime(rng[1].year, rng[1].month, rng[1].day, tzinfo=tz)
    return TimeSpan(start, end, expr)


# every pattern above needs one of these; text without any (most clauses) is skipped at once
_MAYBE_TIME = re.compile(r"[0-9０-９今明昨前后周週星礼禮月年天日号季]|\b(?:today|tomorrow|yesterday|week|month|year|days?|end|"
                         r"beginning|start|mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|"
                         r"quarter|q[1-4])|" + _alt(_ZH_PERIOD_WORDS + _EN_PERIOD_WORDS), re.IGNORECASE)


@lru_cache(maxsize=4096)
def _found(text: str, today: date, past: bool) -> tuple[_Chosen, ...]:
    """``_candidates``, kept for the texts read again (a turn's clauses are read by the rules, then again by
    the signal layer and as the context of the turns after it: six in ten readings are repeats)."""
    return tuple(_candidates(text, today, past))


def _candidates(text: str, today: date, past: bool = False) -> list[_Chosen]:
    if not _MAYBE_TIME.search(text):
        return []
    found: list[tuple[int, int, int, DateRange, _Handler]] = []
    for order, (pattern, handler) in enumerate(_PATTERNS):
        for m in pattern.finditer(text):
            if m.end() == m.start() or (handler is _cn_period and text.startswith(_CN_PERIOD_NAMES, m.end())):
                continue  # empty, or a period naming a matter ("暑假那事", "暑假预算"), not a time
            rng = handler(m, today)
            if rng is not None and past and rng[0] > today:
                step = _undirected(m, handler)
                if step is not None:
                    rng = _back(rng, today, step)
            if rng is not None:
                found.append((m.start(), m.end(), order, rng, handler))
    # Earliest first, then longest, then the first pattern; keep non-overlapping.
    found.sort(key=lambda c: (c[0], -(c[1] - c[0]), c[2]))
    chosen: list[tuple[int, int, DateRange, _Handler]] = []
    last_end = -1
    for start, end, _, rng, handler in found:
        if start >= last_end:
            chosen.append((start, end, rng, handler))
            last_end = end
    return _one_day_named_twice(text, chosen)


def _taken_back(text: str, times: list[_Chosen]) -> list[_Chosen]:
    """The times ``text`` names, less those taken back as they are said: a time followed by words that only
    take it back and then another one ("the 5th, no sorry, the 3rd", "8月6号 不对 7号": a day of the month
    said alone in place of a date is of that date's month), or one said after another with only "not"
    between ("by the 13th now, not the 20th"). The words from the first to the second are one expression
    of the day meant (where it is said, for the item nearest to it)."""
    out = list(times)
    gone: set[int] = set()
    for i in range(len(times) - 1):
        (start, end, was, _), (_, after_end, rng, handler) = out[i], times[i + 1]
        between = text[end:times[i + 1][0]]
        # the words from the first to the second are one expression, of the day meant
        if _TAKES_FIRST_BACK.fullmatch(between):
            gone.add(i)
            if handler is _day_of_month and was[1] - was[0] == timedelta(days=1):
                rng = _date(was[0].year, was[0].month, rng[0].day) or rng
            out[i + 1] = (start, after_end, rng, handler)
        elif _TAKES_SECOND_BACK.fullmatch(between):
            gone.add(i + 1)
            out[i] = (start, after_end, was, out[i][3])
    return [t for i, t in enumerate(out) if i not in gone]


def _one_day_named_twice(text: str, chosen: list[tuple[int, int, DateRange, _Handler]]
                         ) -> list[_Chosen]:
    """A weekday and a date side by side name one day ("Friday 29 May", "the
    26th, the Tuesday", "5月26号周二"): one expression, the date's day (the
    weekday alone would be the coming one)."""
    out: list[_Chosen] = []
    i = 0
    while i < len(chosen):
        start, end, rng, handler = chosen[i]
        if i + 1 < len(chosen):
            n_start, n_end, n_rng, n_handler = chosen[i + 1]
            pair = {handler in _WEEKDAYS, n_handler in _WEEKDAYS}
            dated = handler in _DATES or n_handler in _DATES
            if pair == {True, False} and dated and _BESIDE.fullmatch(text[end:n_start]):
                out.append((start, n_end, n_rng if n_handler in _DATES else rng, None))
                i += 2
                continue
        out.append((start, end, rng, handler))
        i += 1
    return out


def resolve_time(expr: str, utterance: datetime) -> TimeSpan | None:
    """The span that the whole of ``expr`` denotes, relative to ``utterance``.

    Surrounding blanks are ignored. Returns None when ``expr`` is not exactly one
    covered expression (or names an impossible date). Raises InvalidInput (a
    ValueError) when ``utterance`` is not an aware datetime.
    """
    tz = _check_utterance(utterance)
    if not isinstance(expr, str):
        return None
    text = expr.strip()
    today = utterance.date()
    for start, end, rng, _ in _found(text, today, False):
        if start == 0 and end == len(text):
            return _span(rng, tz, text)
    return None


def find_times(text: str, utterance: datetime,
               past: bool = False) -> list[tuple[int, int, TimeSpan]]:
    """Every covered time expression in ``text`` as ``(start, end, TimeSpan)``;
    with ``past``, told of something that has happened (see "Told as past").

    Spans are character offsets into ``text``, in order and non-overlapping (the
    longest expression wins). Returns an empty list when there is none. Raises
    InvalidInput (a ValueError) when ``utterance`` is not an aware datetime.
    """
    tz = _check_utterance(utterance)
    return _spans(text, _found(text, utterance.date(), past), tz)


def opening_time(text: str, utterance: datetime) -> tuple[int, int, TimeSpan] | None:
    """The time expression ``text`` opens with (``find_times``' first, when it starts the text), or None.
    Raises InvalidInput as ``find_times``."""
    found = find_times(text, utterance)
    return found[0] if found and found[0][0] == 0 else None


def meant_times(text: str, utterance: datetime,
                past: bool = False) -> list[tuple[int, int, TimeSpan]]:
    """``find_times`` less the times taken back as they are said ("the 5th, no sorry, the 3rd": the 3rd;
    "by the 13th now, not the 20th": the 13th; ``_taken_back``): the times the text means. Raises as
    ``find_times``."""
    tz = _check_utterance(utterance)
    return _spans(text, _taken_back(text, list(_found(text, utterance.date(), past))), tz)


def names_the_day(text: str, utterance: datetime, day: date) -> bool:
    """Whether ``text`` (said at ``utterance``) names ``day`` itself: a date, a weekday, "tomorrow"; not the
    first or last day of a longer span it names ("end of the month", 月底, "early June": when in it is not
    said). Raises InvalidInput as ``find_times``."""
    _check_utterance(utterance)
    return any(rng[0] == day and rng[1] - rng[0] == timedelta(days=1) and handler not in _EDGES
               for _, _, rng, handler in _found(text, utterance.date(), False))


def day_near(text: str, utterance: datetime, day: date, around: date) -> date:
    """``day`` as ``text`` (said at ``utterance``) means it when it is said of something due ``around``: a
    day of the month said alone ("改到19号", "make it the 8th") is of the month that puts it nearest
    ``around`` (of its month, the one before or the one after; not before ``utterance``'s day), as a day of
    the month said in place of a date is of that date's month. ``day`` itself when the text names it
    otherwise (with its month, a weekday, a span) or names no time that falls on it. Raises InvalidInput as
    ``find_times``."""
    _check_utterance(utterance)
    today = utterance.date()
    said = [rng for _, _, rng, handler in _taken_back(text, list(_found(text, today, False)))
            if handler is _day_of_month and rng[0] == day and rng[1] - rng[0] == timedelta(days=1)]
    if not said:
        return day
    months = (_shift_month(around.year, around.month, step) for step in (-1, 0, 1))
    days = [rng[0] for year, month in months if (rng := _date(year, month, day.day)) is not None and rng[0] >= today]
    return min(days, key=lambda d: (abs((d - around).days), d), default=day)


def _spans(text: str, found: Sequence[_Chosen], tz: tzinfo) -> list[tuple[int, int, TimeSpan]]:
    """The times found in ``text`` as ``(start, end, TimeSpan)``, in ``tz``."""
    return [(s, e, _span(rng, tz, text[s:e])) for s, e, rng, _ in found]
