"""The in-process agent API (core/memory.py): chat messages in, the same
extraction and gates as ``ingest``, recall scoped to the user, times as aware
datetimes, resends stored once, bad messages refused with nothing written."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from memdesk import InvalidInput

from .helpers import manual_memory

CST = timezone(timedelta(hours=8))


@pytest.fixture
def memory(store_url, tmp_path):
    m, clock = manual_memory(store_url, tmp_path / "idx")
    yield m, clock
    m.close()


def at(day: int, hour: int = 10) -> datetime:
    return datetime(2026, 5, day, hour, tzinfo=CST)


def test_remember_runs_the_gates_and_recall_finds_it_for_that_user_only(memory):
    m, _ = memory
    got = m.remember([
        {"role": "user", "content": "我叫周敏，住在杭州西湖区", "time": at(1)},
        {"role": "assistant", "content": "好的，记住了。", "time": at(1, 11)},
        {"role": "user", "content": "这次出游预算两万元", "time": at(2)},
    ], user="zhou", project="trip")
    assert got.session == "zhou/zhou-chat" and got.turns == (1, 2, 3) and got.asserted >= 3
    m.remember([{"role": "user", "content": "I live in Friedrichshain", "time": at(3)}], user="bob")
    facts = {(f.predicate, f.object) for f in m.facts(user="zhou")}
    assert ("lives_in", "杭州西湖区") in facts
    assert [f.object for f in m.facts(subject="project:trip", predicate="budget_limit")] == ["20000 CNY"]
    hits = m.recall("预算多少", user="zhou")
    assert hits[0].subject == "project:trip" and hits[0].object == "20000 CNY"
    for query in ("where do I live", "Friedrichshain", "预算"):
        assert all("Friedrichshain" not in h.text for h in m.recall(query, user="zhou"))
    block = m.prompt("预算多少", user="zhou")
    assert "project:trip: " in block and block.startswith("Relevant memory")


def test_sending_a_conversation_again_stores_each_message_once(memory):
    m, _ = memory
    first = [{"role": "user", "content": "I have a dog called Biscuit", "time": at(1)},
             {"role": "assistant", "content": "Lovely name!", "time": at(1, 11)}]
    m.remember(first, user="carol")
    again = m.remember(first + [{"role": "user", "content": "I'm allergic to penicillin",
                                 "time": at(2)}], user="carol")
    assert again.already_stored == 2 and again.turns == (3,)
    numbered = m.remember([{"role": "user", "content": "I have a dog called Biscuit", "turn": 1,
                            "time": at(1)}], user="carol")
    assert numbered.asserted == 0 and numbered.merged == 0  # the same turn: nothing new
    with m.store.engine.connect() as conn:
        from sqlalchemy import text
        assert conn.execute(text("SELECT count(*) FROM turn")).scalar() == 3


def test_times_default_to_the_clock_and_never_go_backwards(memory):
    m, clock = memory
    m.remember([{"role": "user", "content": "Remind me to call the landlord"},
                {"role": "assistant", "content": "Will do."}], user="carol")
    from sqlalchemy import text
    with m.store.engine.connect() as conn:
        times = [r[0] for r in conn.execute(text("SELECT time FROM turn ORDER BY turn"))]
    assert times[0] == m.store.now() and times[0] < times[1]  # the clock, then a step after


@pytest.mark.parametrize("messages, message", [
    ([{"role": "system", "content": "be nice"}], "role must be user or assistant"),
    ([{"role": "user", "content": ""}], "content must be non-empty"),
    ([{"role": "user", "content": "hi", "time": datetime(2026, 5, 1)}], "timezone-aware"),
    ([{"role": "user", "content": "hi", "time": "2026-05-01T10:00"}], "message 1"),
    ([{"role": "user", "content": "hi", "mood": "happy"}], "unknown field"),
    ([{"role": "user", "content": "ok"}, "not a message"], "message 2"),
    ("hello", "list of"),
])
def test_a_bad_message_is_refused_and_nothing_is_written(memory, messages, message):
    m, _ = memory
    with pytest.raises(InvalidInput, match=message):
        m.remember(messages, user="zhou")
    from sqlalchemy import text
    with m.store.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM turn")).scalar() == 0


def test_a_turn_that_contradicts_a_stored_one_is_refused(memory):
    m, _ = memory
    m.remember([{"role": "user", "content": "I live in Leeds", "turn": 1, "time": at(1)}],
               user="carol", session="c1")
    with pytest.raises(InvalidInput, match="turn 1"):
        m.remember([{"role": "user", "content": "I live in York", "turn": 1, "time": at(1)}],
                   user="carol", session="c1")


def test_times_in_and_out_are_aware_datetimes(memory):
    m, _ = memory
    m.remember([{"role": "user", "content": "我住在徐家汇", "time": "2026-03-01T10:00:00+08:00"},
                {"role": "user", "content": "我上周末搬到张江了", "time": at(20)}], user="alice")
    before = m.facts(user="alice", predicate="lives_in", valid_at=at(10), known_at=at(10))
    assert [f.object for f in before] == ["徐家汇"]
    with pytest.raises(InvalidInput, match="timezone-aware"):
        m.facts(user="alice", valid_at=datetime(2026, 5, 1))
    report = m.audit("user:alice", "lives_in", "张江")
    assert report.to_dict()["chain"]
