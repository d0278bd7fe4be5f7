"""Towns by name (core/lang/places.py) and a bare budget in the currency of where the user lives."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from memdesk import Store
from memdesk.clock import ManualClock
from memdesk.ingest import RuleExtractor, SignalledExtractor, in_home_currency, turn_from_dict
from memdesk.lang.build_places import table
from memdesk.lang.places import currency_at, place_in
from memdesk.signals.layer import SignalLayer
from memdesk.signals.people import PeopleBook

BST = timezone(timedelta(hours=1))


@pytest.mark.parametrize(("value", "town", "currency"), [
    ("Leeds", "leeds", "GBP"),
    ("Capitol Hill, Denver", "denver", "USD"),  # the coarser place, last
    ("chorlton (manchester)", "manchester", "GBP"),
    ("成都武侯区", "成都", "CNY"),  # the town a Chinese value opens with
    ("杭州", "杭州", "CNY"),
])
def test_a_homes_value_names_its_town(value: str, town: str, currency: str) -> None:
    place = place_in(value)
    assert place is not None and (place.name, place.currency) == (town, currency)


def test_a_value_naming_no_known_town_has_none() -> None:
    assert place_in("my mum's") is None
    assert place_in("") is None


def test_the_currency_is_the_towns_only_on_the_towns_clock() -> None:
    denver = place_in("Denver")
    assert denver is not None
    assert currency_at(denver, datetime(2026, 4, 1, 9, tzinfo=timezone(timedelta(hours=-6)))) == "USD"  # summer time
    assert currency_at(denver, datetime(2026, 1, 5, 9, tzinfo=timezone(timedelta(hours=-7)))) == "USD"
    assert currency_at(denver, datetime(2026, 1, 5, 9, tzinfo=timezone(timedelta(hours=9)))) is None  # in Tokyo


def test_the_table_keeps_a_shared_name_for_the_more_populous_place() -> None:
    countries = {"GB": {"currencycode": "GBP"}, "CA": {"currencycode": "CAD"}}
    cities = {"1": {"name": "Halifax", "countrycode": "GB", "population": 88000, "timezone": "Europe/London"},
              "2": {"name": "Halifax", "countrycode": "CA", "population": 400000, "timezone": "America/Halifax",
                    "alternatenames": ["哈利法克斯", "Хали́факс"]}}
    lines = table(cities, countries)
    assert lines == ["halifax\tCA\tCAD\tAmerica/Halifax", "哈利法克斯\tCA\tCAD\tAmerica/Halifax"]
    assert table(cities, countries) == lines  # the same input, the same table


def test_a_bare_budget_takes_the_currency_of_home_and_nothing_else_changes() -> None:
    ex = SignalledExtractor(RuleExtractor(), SignalLayer(), PeopleBook())
    when = datetime(2026, 5, 4, 9, tzinfo=BST)
    turns = [turn_from_dict({"session": "s", "turn": n, "speaker": "user", "time": (when + timedelta(minutes=n)).isoformat(),
                             "text": text, "user": "otto"})
             for n, text in enumerate(["i live in Leeds", "rent max 1300 a month between us"], 1)]
    ex.claims(turns[0], [])
    [budget] = [c for c in ex.claims(turns[1], turns[:1]) if c.predicate == "budget_limit"]
    assert (budget.object, budget.value) == ("1300 GBP", {"amount": 1300, "currency": "GBP"})
    assert in_home_currency(budget, "Tokyo", when) is budget  # said with one already
    bare = budget.with_changes(object="1300", value={"amount": 1300, "currency": None})
    assert in_home_currency(bare, "Leeds", when.astimezone(timezone(timedelta(hours=9)))).value["currency"] is None


def test_a_home_stored_before_gives_a_later_ingest_its_currency(tmp_path: Path) -> None:
    """The home is read from the store too: a later file's bare budget is in its currency; a turn typed on
    another continent's clock keeps its amount bare."""
    when = datetime(2026, 5, 4, 9, tzinfo=BST)

    def write(name: str, rows: list[tuple[str, datetime]]) -> Path:
        path = tmp_path / name
        path.write_text("".join(json.dumps({"session": name, "turn": n, "speaker": "user", "time": t.isoformat(),
                                            "text": text, "user": "otto"}) + "\n"
                                for n, (text, t) in enumerate(rows, 1)), "utf-8")
        return path

    with Store.open(tmp_path / "s.db", clock=ManualClock(when + timedelta(days=30))) as store:
        store.facts.ingest_file(write("a.jsonl", [("i live in Leeds", when)]))
        store.facts.ingest_file(write("b.jsonl", [("rent max 1300 a month", when + timedelta(days=1)),
                                                  ("food budget max 300 a week",
                                                   (when + timedelta(days=2)).astimezone(timezone(timedelta(hours=9))))]))
        said = {f.object for f in store.facts.history("user:otto") if f.predicate == "budget_limit"} | {
            c.object for c in store.review.list() if c.predicate == "budget_limit"}
    assert "1300 GBP" in said and "300" in said and "300 GBP" not in said


def test_the_book_keeps_where_each_user_lives_and_hands_it_on() -> None:
    book = PeopleBook(homes={"otto": [(100, "Leeds")]})
    book.learn_home("otto", 200, "Bristol")
    assert (book.home_before("otto", 150), book.home_before("otto", 250), book.home_before("otto", 50)) == (
        "Leeds", "Bristol", None)
    other = PeopleBook()
    other.take(book.of_users(["otto", "nobody"]))
    assert other.home_before("otto", 250) == "Bristol" and other.of_users(["otto"]) == book.of_users(["otto"])
