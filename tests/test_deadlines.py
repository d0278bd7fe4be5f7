"""Deadlines (issue 28, "a deadline is a value that slips and is pulled
back"): a deadline's object is the thing, its value the due day, so a slip or
a pull-in is another value of the same thing: a change when said as one, the
old day kept as superseded history; said again with the same day, a mention.
On SQLite and PostgreSQL through the ``store`` fixture."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from memdesk.pipeline import Turn

TZ = timezone(timedelta(hours=8))


def said(session: str, number: int, day: str, text: str, project: str | None = None) -> Turn:
    return Turn(session, number, "user", datetime.fromisoformat(f"{day}T10:00:00").replace(tzinfo=TZ),
                text, "ru", project)


def due(fact) -> str:
    """The day a deadline row is due, as the fact's value says it."""
    assert fact.due is not None
    return datetime.fromtimestamp(fact.due / 1e6, TZ).date().isoformat()


def test_an_english_deadline_slips_and_is_pulled_in(store):
    store.facts.ingest_turns([
        said("a", 1, "2026-05-04", "The handover is due on Friday 5 June."),
        said("a", 2, "2026-05-20", "bad news, the handover slipped to Friday 19 June"),
        said("a", 3, "2026-06-01", "good news: the handover was brought forward to the 12th"),
        said("a", 4, "2026-06-02", "so the handover is due on the 12th"),  # the same day again: a mention
    ])
    current = [f for f in store.facts.current("user:ru", "deadline") if f.valid_to is None]  # holding now
    assert [(f.object, due(f)) for f in current] == [("handover", "2026-06-12")]
    days = sorted({due(f) for f in store.facts.history("user:ru", "deadline")})
    assert days == ["2026-06-05", "2026-06-12", "2026-06-19"]  # every day it had is history
    assert store.conflicts.count() == 0


def test_a_chinese_deadline_with_its_old_and_new_day_in_one_turn(store):
    store.facts.ingest_turns([said("b", 1, "2026-03-02", "对了，结项报告原定4月20号交，现在推迟到5月6号了", "lab")])
    (now,) = [f for f in store.facts.current("project:lab", "deadline") if f.valid_to is None]
    assert (now.object, due(now)) == ("结项报告", "2026-05-06")
    old = [f for f in store.facts.history("project:lab", "deadline") if due(f) == "2026-04-20"]
    assert old and all(f.retire_reason in (None, "superseded") for f in old)


def test_another_day_said_without_a_change_is_a_conflict_for_a_person(store):
    store.facts.ingest_turns([
        said("c", 1, "2026-05-04", "the grant report is due on 30 June"),
        said("c", 2, "2026-05-10", "the grant report is due on 15 July"),
    ])
    assert store.conflicts.count() == 1
    (now,) = [f for f in store.facts.current("user:ru", "deadline") if f.valid_to is None]
    assert due(now) == "2026-06-30"  # belief unchanged until someone decides
