"""What a turn asks to be reminded of (core/extract/rules/reminded.py): a to-do, due when the request says,
or some days before the day said just before it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from memdesk.pipeline import Turn

from core.extract.rules import extract

_WHEN = datetime(2026, 3, 2, 10, tzinfo=UTC)


def _read(text: str) -> list[tuple[str, str, str | None]]:
    turn = Turn(session="s", turn=1, speaker="user", text=text, time=_WHEN, user="u")
    return [(f.predicate, f.object, f.event_start.date().isoformat() if f.event_start else None)
            for f in extract(turn)]


@pytest.mark.parametrize(("text", "todo", "due"), [
    ("the boat licence has to be renewed by April 10. can you ping me two days before?", "boat licence", "2026-04-08"),
    ("牙医约在3月20号 前一天提醒我", "牙医", "2026-03-19"),
])
def test_a_reminder_some_days_before_the_day_said_is_due_then(text: str, todo: str, due: str) -> None:
    assert any(p == "todo" and todo in o and d == due for p, o, d in _read(text))


def test_a_declined_reminder_leaves_the_plan_a_plan() -> None:
    read = _read("I'm taking the van in for its service on Thursday, no need to remind me")
    assert [p for p, _, _ in read] == ["plan"]
