"""A day said as a cutoff makes what is owed by it a deadline (core/extract/rules/cutoffs.py)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from memdesk.extract.rules import extract
from memdesk.pipeline import Turn

_WHEN = datetime(2026, 3, 2, 10, tzinfo=UTC)


def _read(text: str) -> list[tuple[str, str, str | None]]:
    turn = Turn(session="s", turn=1, speaker="user", text=text, time=_WHEN, user="u")
    return [(f.predicate, f.object, (f.value or {}).get("due")) for f in extract(turn)]


@pytest.mark.parametrize(("text", "thing", "due"), [
    ("the dissertation draft has to reach my supervisor by 9 April", "dissertation draft has to reach my supervisor",
     "2026-04-09"),
    ("the caterer needs final numbers no later than the 20th, or they charge for 80", "final numbers", "2026-03-20"),
    ("物业要求月底之前把装修押金交了", "装修押金交", "2026-03-31"),
    ("健康证要在4月15号之前办下来", "健康证办下来", "2026-04-15"),
])
def test_a_thing_owed_by_a_cutoff_day_is_a_deadline_due_that_day(text: str, thing: str, due: str) -> None:
    assert ("deadline", thing, due) in _read(text)


@pytest.mark.parametrize("text", [
    "we're hoping to sell the flat before June",  # a wish by a day: a plan
    "我想五一前把车换了",
    "I'm at my sister's until Sunday",  # how long, not by when
    "remind me to post the forms before Friday",  # the reminder's day
])
def test_a_wish_a_stay_or_a_reminder_by_a_day_is_no_deadline(text: str) -> None:
    assert not any(p == "deadline" for p, _, _ in _read(text))


def test_a_day_already_past_owes_nothing() -> None:
    assert _read("the forms had to be in by 1 March") == []


def test_what_happens_if_it_is_not_done_is_no_part_of_the_thing() -> None:
    assert _read("签证材料最晚周五之前必须递交，否则来不及") == [("deadline", "签证材料递交", "2026-03-06")]
