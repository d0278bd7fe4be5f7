"""Normalisation for the rule-based extractor: amounts (core.lang.amounts) and
event times resolved against the utterance time (core.lang.times).

Every case is table-driven against fixed utterance times; nothing reads the clock."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal

import pytest
from memdesk.errors import InvalidInput
from memdesk.lang import tables
from memdesk.lang.amounts import Amount, find_amounts, parse_amount
from memdesk.lang.chat import written
from memdesk.lang.numerals import parse_cn_number
from memdesk.lang.text import fold
from memdesk.lang.times import TimeSpan, day_near, find_times, names_the_day, resolve_time

# ---------------------------------------------------------------- amounts

AMOUNTS: list[tuple[str, str, str | None]] = [
    # Chinese numerals
    ("五千元", "5000", "CNY"),
    ("六千五百元", "6500", "CNY"),
    ("八千", "8000", None),
    ("一万二", "12000", None),
    ("两千五", "2500", None),
    ("十万", "100000", None),
    ("五千块钱", "5000", "CNY"),
    ("三百五", "350", None),
    ("一万零二", "10002", None),
    ("一千零五十元", "1050", "CNY"),
    ("十二万五", "125000", None),
    ("二十五元", "25", "CNY"),
    ("一亿二", "120000000", None),
    ("一万亿", "1000000000000", None),
    ("三千五百万", "35000000", None),
    ("一点五万", "15000", None),
    ("壹万贰仟元", "12000", "CNY"),
    ("零", "0", None),
    # digits with Chinese magnitudes
    ("1.5万", "15000", None),
    ("3千", "3000", None),
    ("1万2", "12000", None),
    ("1.5万元", "15000", "CNY"),
    # k / K / words
    ("4k", "4000", None),
    ("4K", "4000", None),
    ("1.5k", "1500", None),
    ("12 thousand dollars", "12000", "USD"),
    ("US$1.2M", "1200000", "USD"),
    # currency marks
    ("$12,000", "12000", "USD"),
    ("12,000 USD", "12000", "USD"),
    ("¥5000", "5000", "CNY"),
    ("￥5000", "5000", "CNY"),
    ("5000元", "5000", "CNY"),
    ("5000 块", "5000", "CNY"),
    ("RMB 800", "800", "CNY"),
    ("800 rmb", "800", "CNY"),
    ("人民币5000元", "5000", "CNY"),
    ("€30", "30", "EUR"),
    ("30 euros", "30", "EUR"),
    ("30欧元", "30", "EUR"),
    ("200美元", "200", "USD"),
    ("£7.50", "7.5", "GBP"),
    ("5000", "5000", None),
    ("  五千元 ", "5000", "CNY"),
]


@pytest.mark.parametrize(("text", "value", "currency"), AMOUNTS)
def test_parse_amount(text: str, value: str, currency: str | None) -> None:
    amount = parse_amount(text)
    assert amount == Amount(Decimal(value), currency)
    assert amount is not None and str(amount.value) == value  # no exponent, no trailing zeros


NOT_AMOUNTS = [
    "我挺好的", "", "   ", "hello", "千万", "五百千", "三五", "一块", "三块蛋糕", "$5 EUR",
    "万一", "1.2.3", "5000元吧",
]


@pytest.mark.parametrize("text", NOT_AMOUNTS)
def test_parse_amount_no_match(text: str) -> None:
    assert parse_amount(text) is None


def test_amounts_compare_exactly_across_spellings() -> None:
    spellings = ["五千元", "5000元", "¥5000", "5k 元", "5千块", "0.5万元", "RMB 5,000", "5000 rmb"]
    assert {parse_amount(s) for s in spellings} == {Amount(5000, "CNY")}
    assert parse_amount("六千五百") == parse_amount("6.5k") == parse_amount("0.65万")


def test_amount_to_json() -> None:
    assert parse_amount("五千元").to_json() == {"amount": 5000, "currency": "CNY"}  # type: ignore[union-attr]
    assert isinstance(parse_amount("五千元").to_json()["amount"], int)  # type: ignore[union-attr]
    assert parse_amount("£7.50").to_json() == {"amount": 7.5, "currency": "GBP"}  # type: ignore[union-attr]
    assert Amount(8000).to_json() == {"amount": 8000, "currency": None}


def test_amount_is_frozen_and_hashable() -> None:
    a = Amount(Decimal("5000.00"), "CNY")
    assert a == Amount(5000, "CNY") and hash(a) == hash(Amount(5000, "CNY"))
    with pytest.raises(AttributeError):
        a.currency = "USD"  # type: ignore[misc]


CN_NUMBERS = [
    ("十", 10), ("十五", 15), ("二十", 20), ("一百零五", 105), ("两百", 200),
    ("一千零一十", 1010), ("二〇二六", 2026), ("一二三", 123), ("五万零五百", 50500),
    ("1,234", 1234),
]


@pytest.mark.parametrize(("text", "value"), CN_NUMBERS)
def test_parse_cn_number(text: str, value: int) -> None:
    assert parse_cn_number(text) == value


@pytest.mark.parametrize("text", ["", "千", "百五", "五五", "十十", "一万万", "x", "点五"])
def test_parse_cn_number_no_match(text: str) -> None:
    assert parse_cn_number(text) is None


@pytest.mark.parametrize(("text", "folded"), [
    ("预算五千", "预算5000"), ("六千五百元", "6500元"), ("一万二", "12000"), ("一百零二", "102"),
    ("两千零五", "2005"), ("七八千", "七八千"), ("万一下雨", "万一下雨"), ("三五", "三五"),
])
def test_recall_folds_numerals_as_the_one_parser_reads_them(text: str, folded: str) -> None:
    """The lexical channel reads Chinese numerals with ``parse_cn_number`` (it
    once had its own reader, which made 一百零二 120 and 万一 1000); what that
    parser rejects (a range, a word) is left as it is."""
    assert fold(text) == folded


FIND_AMOUNTS: list[tuple[str, list[tuple[str, str, str | None]]]] = [
    ("我的预算是五千元，不过最多六千五百元", [("五千元", "5000", "CNY"), ("六千五百元", "6500", "CNY")]),
    ("房租八千一个月", [("八千", "8000", None)]),
    ("工资涨到一万二了", [("一万二", "12000", None)]),
    ("budget is $12,000, or 4k EUR at most", [("$12,000", "12000", "USD"), ("4k EUR", "4000", "EUR")]),
    ("大概1.5万吧", [("1.5万", "15000", None)]),
    ("花了5000 块", [("5000 块", "5000", "CNY")]),
    ("我们一块去吧，买了三块蛋糕花了30块", [("30块", "30", "CNY")]),
    ("paid 30 euros and RMB 800", [("30 euros", "30", "EUR"), ("RMB 800", "800", "CNY")]),
    ("元旦花了两千五百元", [("两千五百元", "2500", "CNY")]),
    ("house budget around R1.8 million, car R250k, C$2,000 or ₹70k", [
        ("R1.8 million", "1800000", "ZAR"), ("R250k", "250000", "ZAR"), ("C$2,000", "2000", "CAD"),
        ("₹70k", "70000", "INR")]),
    ("about 500 rand or 300 aud", [("500 rand", "500", "ZAR"), ("300 aud", "300", "AUD")]),
]


@pytest.mark.parametrize(("text", "expected"), FIND_AMOUNTS)
def test_find_amounts(text: str, expected: list[tuple[str, str, str | None]]) -> None:
    found = find_amounts(text)
    assert [(text[s:e], a) for s, e, a in found] == [
        (span, Amount(Decimal(v), c)) for span, v, c in expected
    ]


@pytest.mark.parametrize("text", [
    "我挺好的",
    "hello",
    "2026年3月5日来了三千人，跑了八千米",  # dates, counts and measures are not money
    "十分感谢，千万别忘了",
    "第一次见面，万一下雨就改天",
    "I have 3 cats and 4km to go",
    "一万个理由",
    "R2D2 took Route R1",  # a one-letter symbol only before a sizeable amount
])
def test_find_amounts_none(text: str) -> None:
    assert find_amounts(text) == []


# ---------------------------------------------------------------- times

TZ = timezone(timedelta(hours=8))
WEDNESDAY = datetime(2026, 3, 18, 9, 30, tzinfo=TZ)  # 2026-03-18 is a Wednesday

# (expression, first day, day after the last day), against WEDNESDAY
TIMES: list[tuple[str, str, str]] = [
    # English
    ("today", "2026-03-18", "2026-03-19"),
    ("Tomorrow", "2026-03-19", "2026-03-20"),
    ("yesterday", "2026-03-17", "2026-03-18"),
    ("the day after tomorrow", "2026-03-20", "2026-03-21"),
    ("the day before yesterday", "2026-03-16", "2026-03-17"),
    ("this week", "2026-03-16", "2026-03-23"),
    ("next week", "2026-03-23", "2026-03-30"),
    ("last week", "2026-03-09", "2026-03-16"),
    ("last weekend", "2026-03-14", "2026-03-16"),
    ("this weekend", "2026-03-21", "2026-03-23"),
    ("the weekend", "2026-03-21", "2026-03-23"),
    ("next weekend", "2026-03-28", "2026-03-30"),
    ("last month", "2026-02-01", "2026-03-01"),
    ("this month", "2026-03-01", "2026-04-01"),
    ("next month", "2026-04-01", "2026-05-01"),
    ("next year", "2027-01-01", "2028-01-01"),
    ("next Friday", "2026-03-27", "2026-03-28"),
    ("last Monday", "2026-03-09", "2026-03-10"),
    ("Friday", "2026-03-20", "2026-03-21"),
    ("on Friday", "2026-03-20", "2026-03-21"),
    ("this Friday", "2026-03-20", "2026-03-21"),
    ("on Wednesday", "2026-03-18", "2026-03-19"),
    ("Monday", "2026-03-23", "2026-03-24"),
    ("on 5 March", "2026-03-05", "2026-03-06"),
    ("5 March", "2026-03-05", "2026-03-06"),
    ("March 5", "2026-03-05", "2026-03-06"),
    ("March 5th", "2026-03-05", "2026-03-06"),
    ("Mar. 5", "2026-03-05", "2026-03-06"),
    ("5th of March", "2026-03-05", "2026-03-06"),
    ("the 5th of March", "2026-03-05", "2026-03-06"),
    ("March 5th, 2027", "2027-03-05", "2027-03-06"),
    ("5 March 2027", "2027-03-05", "2027-03-06"),
    ("2026-04-01", "2026-04-01", "2026-04-02"),
    ("end of the month", "2026-03-31", "2026-04-01"),
    ("the end of this month", "2026-03-31", "2026-04-01"),
    ("end of next month", "2026-04-30", "2026-05-01"),
    ("end of February", "2026-02-28", "2026-03-01"),
    ("beginning of the month", "2026-03-01", "2026-03-02"),
    ("end of the year", "2026-12-31", "2027-01-01"),
    ("in 3 days", "2026-03-21", "2026-03-22"),
    ("two days ago", "2026-03-16", "2026-03-17"),
    # Chinese
    ("今天", "2026-03-18", "2026-03-19"),
    ("明天", "2026-03-19", "2026-03-20"),
    ("后天", "2026-03-20", "2026-03-21"),
    ("大后天", "2026-03-21", "2026-03-22"),
    ("昨天", "2026-03-17", "2026-03-18"),
    ("前天", "2026-03-16", "2026-03-17"),
    ("大前天", "2026-03-15", "2026-03-16"),
    ("这周", "2026-03-16", "2026-03-23"),
    ("本周", "2026-03-16", "2026-03-23"),
    ("下周", "2026-03-23", "2026-03-30"),
    ("下个星期", "2026-03-23", "2026-03-30"),
    ("上周", "2026-03-09", "2026-03-16"),
    ("上上周", "2026-03-02", "2026-03-09"),
    ("下下周", "2026-03-30", "2026-04-06"),
    ("上周末", "2026-03-14", "2026-03-16"),
    ("这周末", "2026-03-21", "2026-03-23"),
    ("周末", "2026-03-21", "2026-03-23"),
    ("下周末", "2026-03-28", "2026-03-30"),
    ("上个月", "2026-02-01", "2026-03-01"),
    ("上月", "2026-02-01", "2026-03-01"),
    ("这个月", "2026-03-01", "2026-04-01"),
    ("下个月", "2026-04-01", "2026-05-01"),
    ("下周三", "2026-03-25", "2026-03-26"),
    ("下星期三", "2026-03-25", "2026-03-26"),
    ("上周一", "2026-03-09", "2026-03-10"),
    ("这周五", "2026-03-20", "2026-03-21"),
    ("本周一", "2026-03-16", "2026-03-17"),
    ("周五", "2026-03-20", "2026-03-21"),
    ("星期五", "2026-03-20", "2026-03-21"),
    ("礼拜五", "2026-03-20", "2026-03-21"),
    ("周三", "2026-03-18", "2026-03-19"),
    ("周一", "2026-03-23", "2026-03-24"),
    ("周日", "2026-03-22", "2026-03-23"),
    ("星期天", "2026-03-22", "2026-03-23"),
    ("3月5日", "2026-03-05", "2026-03-06"),
    ("3月5号", "2026-03-05", "2026-03-06"),
    ("三月五号", "2026-03-05", "2026-03-06"),
    ("三月五日", "2026-03-05", "2026-03-06"),
    ("十二月二十五日", "2026-12-25", "2026-12-26"),
    ("2027年3月5日", "2027-03-05", "2027-03-06"),
    ("二〇二七年三月五号", "2027-03-05", "2027-03-06"),
    ("明年3月5日", "2027-03-05", "2027-03-06"),
    ("月底", "2026-03-31", "2026-04-01"),
    ("月末", "2026-03-31", "2026-04-01"),
    ("月初", "2026-03-01", "2026-03-02"),
    ("年底", "2026-12-31", "2027-01-01"),
    ("年初", "2026-01-01", "2026-01-02"),
    ("下个月底", "2026-04-30", "2026-05-01"),
    ("上月初", "2026-02-01", "2026-02-02"),
    ("二月底", "2026-02-28", "2026-03-01"),
    ("明年初", "2027-01-01", "2027-01-02"),
    ("今年", "2026-01-01", "2027-01-01"),
    ("去年", "2025-01-01", "2026-01-01"),
    ("三天后", "2026-03-21", "2026-03-22"),
    ("两天前", "2026-03-16", "2026-03-17"),
    # a month named alone: the coming one, this month included; "since" looks back
    ("in October", "2026-10-01", "2026-11-01"),
    ("by June", "2026-06-01", "2026-07-01"),
    ("in March", "2026-03-01", "2026-04-01"),
    ("in February", "2027-02-01", "2027-03-01"),
    ("since February", "2026-02-01", "2026-03-01"),
    ("since April", "2025-04-01", "2025-05-01"),
    ("last March", "2025-03-01", "2025-04-01"),
    ("next March", "2027-03-01", "2027-04-01"),
    ("early July", "2026-07-01", "2026-08-01"),
    ("before June 2027", "2027-06-01", "2027-07-01"),
    ("十月", "2026-10-01", "2026-11-01"),
    ("6月份", "2026-06-01", "2026-07-01"),
    ("二月", "2027-02-01", "2027-03-01"),
    ("明年3月", "2027-03-01", "2027-04-01"),
    # a day of the month alone: the coming one (WEDNESDAY is the 18th)
    ("the 20th", "2026-03-20", "2026-03-21"),
    ("on the 5th", "2026-04-05", "2026-04-06"),
    ("the 18th", "2026-03-18", "2026-03-19"),
    ("25号", "2026-03-25", "2026-03-26"),
    ("十五号", "2026-04-15", "2026-04-16"),
    ("三号", "2026-04-03", "2026-04-04"),
]


def _at(day: str) -> datetime:
    return datetime.fromisoformat(day).replace(tzinfo=TZ)


@pytest.mark.parametrize(("expr", "start", "end"), TIMES)
def test_resolve_time(expr: str, start: str, end: str) -> None:
    span = resolve_time(expr, WEDNESDAY)
    assert span == TimeSpan(_at(start), _at(end), expr.strip())
    assert span is not None and span.start.utcoffset() == timedelta(hours=8)


@pytest.mark.parametrize("expr", [
    "hello", "", "2月30日", "13月1日", "February 30", "下周天气", "每周一", "一周",
    "next", "周", "May", "3个月", "十三月", "3号线", "5号楼", "第3号", "三十二号",
])
def test_resolve_time_no_match(expr: str) -> None:
    assert resolve_time(expr, WEDNESDAY) is None


# Other utterance days: the conventions at the edges of weeks, months and years.
EDGES: list[tuple[str, str, str, str]] = [
    # (utterance date, expression, first day, day after the last)
    ("2026-03-20", "周五", "2026-03-20", "2026-03-21"),  # a Friday: bare Friday is today
    ("2026-03-20", "Friday", "2026-03-20", "2026-03-21"),
    ("2026-03-21", "周五", "2026-03-27", "2026-03-28"),  # a Saturday: the coming Friday
    ("2026-03-21", "这周五", "2026-03-20", "2026-03-21"),  # ... but this week's is past
    ("2026-03-22", "这周末", "2026-03-21", "2026-03-23"),  # a Sunday: still this weekend
    ("2026-03-22", "上周末", "2026-03-14", "2026-03-16"),
    ("2026-03-22", "下周", "2026-03-23", "2026-03-30"),
    ("2026-03-23", "上周末", "2026-03-21", "2026-03-23"),  # a Monday
    ("2026-03-23", "last week", "2026-03-16", "2026-03-23"),
    ("2026-12-15", "下个月", "2027-01-01", "2027-02-01"),
    ("2026-12-15", "next month", "2027-01-01", "2027-02-01"),
    ("2026-01-10", "上个月", "2025-12-01", "2026-01-01"),
    ("2026-01-10", "last month", "2025-12-01", "2026-01-01"),
    ("2028-02-10", "月底", "2028-02-29", "2028-03-01"),  # leap year
    ("2026-02-10", "end of the month", "2026-02-28", "2026-03-01"),
    ("2026-12-31", "明天", "2027-01-01", "2027-01-02"),
    ("2026-12-30", "下周三", "2027-01-06", "2027-01-07"),
    ("2027-01-02", "3月5日", "2027-03-05", "2027-03-06"),  # the utterance's year
]


@pytest.mark.parametrize(("day", "expr", "start", "end"), EDGES)
def test_resolve_time_edges(day: str, expr: str, start: str, end: str) -> None:
    utterance = datetime.combine(date.fromisoformat(day), datetime.min.time(), TZ).replace(hour=22)
    span = resolve_time(expr, utterance)
    assert span is not None
    assert (span.start, span.end) == (_at(start), _at(end))


def test_resolve_time_keeps_the_utterance_timezone() -> None:
    new_york = timezone(timedelta(hours=-5))
    # 23:30 on Tuesday in New York is already Wednesday in UTC; "today" is Tuesday there.
    span = resolve_time("today", datetime(2026, 3, 17, 23, 30, tzinfo=new_york))
    assert span is not None
    assert span.start == datetime(2026, 3, 17, tzinfo=new_york)
    assert span.end == datetime(2026, 3, 18, tzinfo=new_york)
    assert span.start.tzinfo is new_york


def test_resolve_time_rejects_a_naive_utterance() -> None:
    with pytest.raises(InvalidInput):
        resolve_time("today", datetime(2026, 3, 18, 9, 30))
    with pytest.raises(ValueError):
        find_times("today", datetime(2026, 3, 18, 9, 30))


def test_timespan_to_json() -> None:
    span = resolve_time("下周", WEDNESDAY)
    assert span is not None
    assert span.to_json() == {
        "start": "2026-03-23T00:00:00+08:00", "end": "2026-03-30T00:00:00+08:00", "expr": "下周",
    }


FIND_TIMES: list[tuple[str, list[tuple[str, str, str]]]] = [
    ("我下周三要去上海，上周末去了杭州，月底前交报告",
     [("下周三", "2026-03-25", "2026-03-26"), ("上周末", "2026-03-14", "2026-03-16"),
      ("月底", "2026-03-31", "2026-04-01")]),
    ("I moved on 5 March and will travel next Friday; the weekend was fun",
     [("on 5 March", "2026-03-05", "2026-03-06"), ("next Friday", "2026-03-27", "2026-03-28"),
      ("the weekend", "2026-03-21", "2026-03-23")]),
    ("一周一次，每周一开会，下周天气不错", [("下周", "2026-03-23", "2026-03-30")]),
    ("下个月底之前搬到北京", [("下个月底", "2026-04-30", "2026-05-01")]),
    ("大后天和后天都行", [("大后天", "2026-03-21", "2026-03-22"), ("后天", "2026-03-20", "2026-03-21")]),
    ("see you tomorrow, or the day after tomorrow",
     [("tomorrow", "2026-03-19", "2026-03-20"), ("the day after tomorrow", "2026-03-20", "2026-03-21")]),
]


@pytest.mark.parametrize(("text", "expected"), FIND_TIMES)
def test_find_times(text: str, expected: list[tuple[str, str, str]]) -> None:
    found = find_times(text, WEDNESDAY)
    assert [(text[s:e], span) for s, e, span in found] == [
        (expr, TimeSpan(_at(start), _at(end), expr)) for expr, start, end in expected
    ]


@pytest.mark.parametrize("text", ["hello", "我挺好的", "", "Mayday, todays weekly sundayish"])
def test_find_times_none(text: str) -> None:
    assert find_times(text, WEDNESDAY) == []


def test_find_amounts_english_number_words() -> None:
    assert [a for _, _, a in find_amounts("about fifteen hundred pounds")] == [Amount(1500, "GBP")]
    assert [a for _, _, a in find_amounts("twenty-five thousand dollars")] == [Amount(25000, "USD")]
    assert [a for _, _, a in find_amounts("3 grand, tops")] == [Amount(3000, None)]
    assert [a for _, _, a in find_amounts("12 grand australian for the van")] == [Amount(12000, "AUD")]
    assert [a for _, _, a in find_amounts("900 canadian a month")] == [Amount(900, "CAD")]
    assert find_amounts("one of the two cats") == []


# ---------------------------------------------------------------- the tables in data/lang


def test_the_language_tables_are_read_and_checked() -> None:
    assert tables.ints("numerals", "zh.digits")["两"] == 2
    assert tables.mapping("currencies", "suffix.zh")["美元"] == "USD"
    assert tables.words("times", "en.weekdays")[0] == "monday"
    with pytest.raises(ValueError, match=r"data/lang/numerals.toml: no table or value 'zh.nothing'"):
        tables.ints("numerals", "zh.nothing")
    with pytest.raises(ValueError, match=r"data/lang/currencies.toml: 'suffix.zh' must be a table of whole"):
        tables.ints("currencies", "suffix.zh")
    with pytest.raises(ValueError, match=r"'en.months' must be a list"):
        tables.words("times", "en.months")
    assert tables.alternation(["元", "元人民币", "块"]) == "元人民币|元|块"


@pytest.mark.parametrize("text, expr, day", [
    ("the race moved to Sunday 7 June", "Sunday 7 June", "2026-06-07"),
    ("dinner is on the 9th, a Tuesday", "on the 9th, a Tuesday", "2026-06-09"),
    ("交稿改到6月12号（周五）", "6月12号（周五", "2026-06-12"),
    ("Sunday, and then 7 June", None, None),  # not side by side: two times
])
def test_a_weekday_beside_a_date_names_that_one_day(text, expr, day):
    from memdesk.lang.times import find_times

    found = find_times(text, datetime(2026, 6, 1, 9, tzinfo=timezone(timedelta(hours=8))))
    if expr is None:
        assert len(found) == 2
        return
    assert [(span.expr, span.start.date().isoformat()) for _, _, span in found] == [(expr, day)]


@pytest.mark.parametrize("text, expr, day", [
    ("moving in sat 28th", "sat 28th", "2026-06-28"),  # a weekday cut short, then its day of the month
    ("friday 5th works", "friday 5th", "2026-06-05"),
    ("we sat down for dinner", None, None),  # "sat" alone is a verb
])
def test_a_weekday_with_its_day_of_the_month_is_that_day(text, expr, day):
    found = find_times(text, datetime(2026, 6, 1, 9, tzinfo=timezone(timedelta(hours=8))))
    assert [(span.expr, span.start.date().isoformat()) for _, _, span in found] == ([(expr, day)] if expr else [])


@pytest.mark.parametrize("text, expr, day", [
    ("ya next fri", "next fri", "2026-06-12"),  # 2026-06-01 is a Monday: next week's Friday, as "next friday"
    ("next friday", "next friday", "2026-06-12"),
    ("thurs works better", "thurs", "2026-06-04"),  # a cut that is no English word, alone
    ("on sat", "on sat", "2026-06-06"),  # a cut that is a word, after a word leading into a day
    ("by weds pls", "by weds", "2026-06-03"),
    ("the sun is out and we sat outside", None, None),  # "sun", "sat" alone: words
    ("they got wed and moved", None, None),
])
def test_a_weekday_cut_short_is_read_alone_when_it_is_no_word_else_after_a_leading_word(text, expr, day):
    found = find_times(text, datetime(2026, 6, 1, 9, tzinfo=timezone(timedelta(hours=8))))
    got = [(span.expr, span.start.date().isoformat()) for _, _, span in found]
    assert (got[:1] if expr else got) == ([(expr, day)] if expr else [])


@pytest.mark.parametrize("text, expr, day", [
    ("working there since 3 March last year", "3 March last year", "2025-03-03"),  # a year from this one
    ("since March 3rd last year", "March 3rd last year", "2025-03-03"),
    ("the final is on the 3rd of March next year", "on the 3rd of March next year", "2027-03-03"),
    ("on 3 March this year", "on 3 March this year", "2026-03-03"),
])
def test_a_date_said_with_a_year_from_this_one_is_in_that_year(text, expr, day):
    found = find_times(text, datetime(2026, 6, 1, 9, tzinfo=timezone(timedelta(hours=8))), past=True)
    assert [(span.expr, span.start.date().isoformat()) for _, _, span in found] == [(expr, day)]


@pytest.mark.parametrize("text, meant", [
    # the first taken back as it is said: the words from it to the second name the second's day
    ("the viewing is on thursday the 4th, no sorry, tuesday the 2nd",
     [("on thursday the 4th, no sorry, tuesday the 2nd", "2026-06-02")]),
    ("the audit is june 19 — sorry, june 18", [("june 19 — sorry, june 18", "2026-06-18")]),
    ("复诊8月6号 哦不对 7号", [("8月6号 哦不对 7号", "2026-08-07")]),  # a day alone: of the month said before
    # the second taken back
    ("they need the forms by the 13th now, not the 20th", [("the 13th now, not the 20th", "2026-06-13")]),
    ("10号，不是15号", [("10号，不是15号", "2026-06-10")]),
    # two times meant
    ("between june 3 and june 5", [("june 3", "2026-06-03"), ("june 5", "2026-06-05")]),
    ("3号到5号", [("3号", "2026-06-03"), ("5号", "2026-06-05")]),
])
def test_a_time_taken_back_as_it_is_said_is_not_meant(text, meant):
    from memdesk.lang.times import meant_times

    when = datetime(2026, 6, 1, 9, tzinfo=timezone(timedelta(hours=8)))
    found = meant_times(text, when)
    assert [(span.expr, span.start.date().isoformat()) for _, _, span in found] == meant
    assert len(find_times(text, when)) == 2  # every time expression is still found as such


@pytest.mark.parametrize(("typed", "written_form"), [
    ("im moving next month", "I'm moving next month"),
    ("alright. names darren, daz to everyone", "alright. name's darren, daz to everyone"),  # opening a sentence
    ("the names are hard", "the names are hard"),  # a word of its own elsewhere
    ("Im gonna sell the car", "I'm going to sell the car"),
    ("shes vegan, dont ask", "she's vegan, don't ask"),
    ("Thats fine", "That's fine"),
    ("its fine, it was late", "its fine, it was late"),  # a word of its own stays as typed
    ("its fine, were ok, ill go", "its fine, we're ok, I'll go"),  # "were", "ill" opening a clause: we're, I'll
    ("they were late and felt ill, ill again today", "they were late and felt ill, ill again today"),
    ("Dontland is a place", "Dontland is a place"),  # not inside a longer word
    ("my husbands car broke down", "my husband's car broke down"),  # a person's 's after a possessive
    ("her grandpas farm", "her grandpa's farm"),
    ("my brothers both live abroad", "my brothers both live abroad"),  # a plural stays as typed
    ("我不吃猪肉", "我不吃猪肉"),
])
def test_chat_typing_is_read_as_written(typed: str, written_form: str) -> None:
    assert written(typed) == written_form


_NOON_3_MAR = datetime(2026, 3, 3, 12, tzinfo=timezone(timedelta(hours=8)))


@pytest.mark.parametrize(("text", "expr", "start", "end"), [
    ("下半年想换个工作", "下半年", "2026-07-01", "2027-01-01"),
    ("明年春天搬家", "明年春天", "2027-03-01", "2027-06-01"),
    ("冬天", None, None, None),  # a season alone is every one
    ("春节回老家", "春节", "2027-02-06", "2027-02-09"),  # 2026's is over: the coming one, by the lunar calendar
    ("去年国庆去的", "去年国庆", "2025-10-01", "2025-10-04"),
    ("暑假预算加到一万二", None, None, None),  # a period naming a matter
    ("we're moving by summer", "by summer", "2026-06-01", "2026-09-01"),
    ("in the summer I cycle to work", None, None, None),
    ("home for Thanksgiving", "Thanksgiving", "2026-11-26", "2026-11-27"),
    ("over Easter", "over Easter", "2026-04-05", "2026-04-06"),
    ("launch next quarter", "next quarter", "2026-04-01", "2026-07-01"),
    ("the Q3 launch", "Q3", "2026-07-01", "2026-10-01"),
])
def test_periods_of_the_year_and_holidays_are_times(text: str, expr: str | None, start: str | None,
                                                    end: str | None) -> None:
    found = find_times(text, _NOON_3_MAR)
    if expr is None:
        assert found == []
        return
    [(s, e, span)] = found
    assert (text[s:e], span.start.date().isoformat(), span.end.date().isoformat()) == (expr, start, end)


def test_a_period_told_as_past_is_the_latest_begun() -> None:
    [(_, _, span)] = find_times("五一那天搬的家", _NOON_3_MAR, past=True)
    assert span.start.date().isoformat() == "2025-05-01"


def test_w_after_a_number_is_wan_only_in_chinese_typing():
    """Chinese chat types 万 as w ("总预算15w"); English text keeps "3w" no amount."""
    from memdesk.lang.amounts import find_amounts

    assert [a.value for _, _, a in find_amounts("婚礼打算10月办 总预算15w")] == [150000]
    assert find_amounts("ran 3w in a row, 15w total") == []


@pytest.mark.parametrize(("typed", "read"), [
    # Chinese typed with English words of a fact's frame: read as the Chinese words the rules know
    ("所以 budget 提到四千吧", "所以预算提到四千吧"),
    ("论文 DDL 是下周五", "论文截止日期是下周五"),
    ("我 boyfriend 在杭州", "我男朋友在杭州"),
    # a value typed in English stays as typed; English alone is not touched
    ("在 Box Hill 一家奶茶店 Tea Lab 做兼职", "在 Box Hill 一家奶茶店 Tea Lab 做兼职"),
    ("my budget is 4k", "my budget is 4k"),
    ("the budgeting app is great", "the budgeting app is great"),
    ("so the budget is 3k 然后再说", "so the budget is 3k 然后再说"),  # inside an English clause: as typed
])
def test_chinese_typed_with_english_frame_words_reads_them_in_chinese(typed, read):
    assert written(typed) == read


@pytest.mark.parametrize("text, around, meant", [
    ("改到13号了", date(2026, 6, 10), date(2026, 6, 13)),  # of the item's month, not the coming 13th
    ("make it the 8th", date(2026, 7, 10), date(2026, 7, 8)),  # before the item's day, same month
    ("改到3号", date(2026, 8, 29), date(2026, 9, 3)),  # the month after is nearer
    ("改到6月13号", date(2026, 8, 10), date(2026, 6, 13)),  # said with its month: as said
    ("make it the 2nd", date(2026, 3, 10), date(2026, 3, 2)),  # the month before is past: not before today
])
def test_a_day_of_the_month_said_alone_is_near_the_day_it_is_said_of(text, around, meant):
    told = datetime(2026, 3, 1, 9, tzinfo=UTC)
    [(_, _, span)] = find_times(text, told)
    assert day_near(text, told, span.start.date(), around) == meant


@pytest.mark.parametrize("text, named", [
    ("moving on saturday", True), ("搬家定在6月2号", True), ("moving april 25", True),
    ("moving end of the month", False), ("月底搬", False), ("moving early june", False),
])
def test_a_day_named_itself_and_not_as_the_edge_of_a_span(text, named):
    told = datetime(2026, 3, 2, 9, tzinfo=UTC)
    [(_, _, span)] = find_times(text, told)
    assert names_the_day(text, told, span.start.date()) is named


@pytest.mark.parametrize("text, first, last", [
    ("away 1 to 8 May, visiting family", date(2026, 5, 1), date(2026, 5, 8)),
    ("on leave 13-17 July", date(2026, 7, 13), date(2026, 7, 17)),
    ("the fair runs June 3rd-6th", date(2026, 6, 3), date(2026, 6, 6)),
    ("from the 3rd to the 6th of June", date(2026, 6, 3), date(2026, 6, 6)),
])
def test_days_of_one_month_said_as_a_range_are_one_span_from_the_first(text, first, last):
    [(_, _, span)] = find_times(text, datetime(2026, 3, 2, 9, tzinfo=UTC))
    assert (span.start.date(), span.end.date() - timedelta(days=1)) == (first, last)


def test_a_range_backwards_is_no_range():
    assert [s.start.date() for _, _, s in find_times("may 8-3", datetime(2026, 3, 2, 9, tzinfo=UTC))] == [
        date(2026, 5, 8)]


@pytest.mark.parametrize("word, base", [("renewing", "renew"), ("servicing", "service"), ("fixing", "fix"),
                                        ("getting", "get"), ("doing", "do"), ("sing", None), ("blorfing", None)])
def test_the_base_of_an_ing_form(word, base):
    from memdesk.lang.verbs import base_of_gerund
    assert base_of_gerund(word) == base
