"""A change of life the speaker wants, no time said, is a plan; a craving or a wish on a condition is none
(zh.wished_change, core/extract/rules/zh_plans.py)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from memdesk.extract.rules import extract
from memdesk.pipeline import Turn


def _read(text: str) -> list[tuple[str, str]]:
    turn = Turn(session="s", turn=1, speaker="user", text=text, time=datetime(2026, 3, 2, 10, tzinfo=UTC), user="u")
    return [(f.predicate, f.object) for f in extract(turn)]


@pytest.mark.parametrize(("text", "plan"), [
    ("其实我一直想自己开个花店", "自己开花店"),
    ("今年想考个会计证", "考会计证"),
])
def test_a_change_of_life_wanted_is_a_plan(text: str, plan: str) -> None:
    assert ("plan", plan) in _read(text)


@pytest.mark.parametrize("text", ["今晚想吃火锅", "有点想家了", "如果预算够的话，我想换个大点的车"])
def test_a_craving_a_feeling_or_a_wish_on_a_condition_is_no_plan(text: str) -> None:
    assert not any(p == "plan" for p, _ in _read(text))
