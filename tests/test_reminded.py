"""A reminder asked for that names only when (``core/extract/rules/reminded.py``): the to-do is the action the
clause before it says, due when the request says (or some days before the day said before it); a request
naming its own action, another person's action, and a request with no time are not read so; a reminder
declined leaves a plan a plan."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from memdesk.extract.rules import extract
from memdesk.pipeline import Turn

SAID = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # a Monday


def _todos(text: str) -> list[tuple[str, str | None]]:
    facts = extract(Turn("s", 1, "user", SAID, text, "ada"), [])
    return [(f.object, f.event_start.date().isoformat() if f.event_start else None)
            for f in facts if f.predicate == "todo"]


@pytest.mark.parametrize("text, todos", [
    ("I still have to return the drill to the hire shop. Remind me on Wednesday please",
     [("return the drill to the hire shop", "2026-03-04")]),
    ("need to renew the fishing permit, can u nudge me friday", [("renew the fishing permit", "2026-03-06")]),
    ("要给电动车上牌了 周四提醒我一下", [("给电动车上牌", "2026-03-05")]),
])
def test_the_action_said_before_a_request_naming_only_when_is_the_to_do(text, todos):
    assert _todos(text) == todos


@pytest.mark.parametrize("text", [
    "周三阿梅要去拔牙 你周二提醒我吧",  # her appointment, not the user's to-do
    "the hire shop closes early. remind me",  # no action, no time
])
def test_no_to_do_of_the_users_when_the_clause_before_is_no_action_of_theirs(text):
    assert _todos(text) == []


@pytest.mark.parametrize("text, todo, due", [
    ("the boat licence has to be renewed by April 10. can you ping me two days before?", "boat licence", "2026-04-08"),
    ("牙医约在3月20号 前一天提醒我", "牙医", "2026-03-19"),
])
def test_a_reminder_some_days_before_the_day_said_is_due_then(text, todo, due):
    assert any(todo in o and d == due for o, d in _todos(text))


def test_a_declined_reminder_leaves_the_plan_a_plan():
    facts = extract(Turn("s", 1, "user", SAID, "I'm taking the van in for its service on Thursday, no need to remind me",
                         "ada"), [])
    assert [f.predicate for f in facts] == ["plan"]

# ------------------------------------------------------------------ an absence ahead (rules/absence.py)

def _plans(text: str, project: str | None = None) -> list[tuple[str, str, str | None]]:
    facts = extract(Turn("s", 1, "user", SAID, text, "ada", project), [])
    return [(f.subject, f.object, f.event_start.date().isoformat() if f.event_start else None)
            for f in facts if f.predicate == "plan"]


@pytest.mark.parametrize("text, value, day", [
    ("quick one: I'm away 9 to 14 April, Cardiff, my nephew's christening", "away, Cardiff, my nephew's christening",
     "2026-04-09"),
    ("我下周四到周五请假，回老家换身份证", "请假，回老家换身份证", "2026-03-12"),
    ("下个月休年假去桂林玩 4月7号到12号", "休年假去桂林玩", "2026-04-07"),
])
def test_an_absence_ahead_with_where_or_why_is_a_plan_due_when_it_starts(text, value, day):
    assert _plans(text) == [("user:ada", value, day)]


def test_an_absence_said_in_a_team_is_the_speakers_own():
    assert [s for s, _, _ in _plans("我下周四请假，回老家换身份证", project="shop")] == ["user:ada"]


@pytest.mark.parametrize("text", [
    "我下周四请假也还行",  # no where to, no why
    "小周下周四请假，回老家",  # his
    "I was away 1 to 8 February, Lagos",  # past
])
def test_no_absence_plan_without_where_or_why_ahead_of_the_users_own(text):
    assert _plans(text) == []


# ------------------------------------------------------------------ a pronoun's thing (rules/pronouns.py)

def _items(text: str, before: str = "") -> list[str]:
    context = [Turn("s", 1, "assistant", SAID, before, "ada")] if before else []
    turn = Turn("s", len(context) + 1, "user", SAID, text, "ada")
    return [f.object for f in extract(turn, context) if f.predicate in ("todo", "plan", "deadline")]


def test_a_pronoun_a_to_do_is_said_with_stands_for_the_thing_asked_about():
    assert _items("nope. remind me on thursday to post it", "Has the tax return gone off?") == [
        "post the tax return"]


def test_a_pronoun_plan_stands_for_the_thing_named_in_the_sentence_before():
    assert _items("The committee approved my grant bid!! It is 3 of July, the pitch.") == ["my grant bid"]


def test_a_time_is_no_thing_a_pronoun_stands_for():
    assert "the 9th" not in " ".join(_items("remind me on the 9th to file it"))
