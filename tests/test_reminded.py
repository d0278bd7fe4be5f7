"""A reminder asked for that names only when (``core/extract/rules/reminded.py``): the to-do is the action the
clause before it says, due when the request says; a request naming its own action, another person's action,
and a request with no time are not read so."""

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
