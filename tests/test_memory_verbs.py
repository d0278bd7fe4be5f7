"""The verbs agent developers expect at the door (core/memory.py): list a
user's memories and facts a page at a time, ask for a correction or a
forgetting (proposed, never done: a person decides at the review queue),
and ``user_id=`` as mem0's name for ``user``."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from memdesk import AccessRefused, FactNotFound, InvalidInput, Memory

from .helpers import manual_memory

CST = timezone(timedelta(hours=8))


@pytest.fixture
def memory(store_url, tmp_path):
    m, clock = manual_memory(store_url, tmp_path / "idx")
    m.remember([
        {"role": "user", "content": "I live in Leeds and I love sushi", "time": at(1)},
        {"role": "user", "content": "my sister lives in York", "time": at(2)},
        {"role": "user", "content": "can you drop the food thing from your notes", "time": at(3)},
    ], user="alice")
    m.remember([{"role": "user", "content": "I live in Bristol", "time": at(1)}], user="bob")
    m.clock = clock  # type: ignore[attr-defined]
    yield m
    m.close()


def later(m: Memory) -> None:
    """The clock an hour on: what a decision did is known by then."""
    m.clock.set(m.clock.now() + timedelta(hours=1))  # type: ignore[attr-defined]


def at(day: int, hour: int = 10) -> datetime:
    return datetime(2026, 5, day, hour, tzinfo=CST)


def _fact(m: Memory, predicate: str, user: str = "alice"):
    (fact,) = [f for f in m.facts(user=user) if f.predicate == predicate]
    return fact


def test_forget_queues_a_retraction_that_a_reviewer_carries_out(memory):
    m = memory
    sushi = _fact(m, "likes")
    asked = m.forget(sushi.id, user="alice", session="alice-chat", turn=3)
    assert asked.state == "pending" and asked.change == "retraction"
    assert asked.source.turn == 3 and asked.source.kind == "agent_inferred"
    assert any("agent_inferred" in r for r in asked.reasons)
    assert _fact(m, "likes").id == sushi.id  # proposed, not done: the fact still holds
    outcome = m.store.review.approve(asked.id, by="rita")
    later(m)
    assert outcome.outcome == "retract" and outcome.fact_id is None
    assert [f for f in m.facts(user="alice") if f.predicate == "likes"] == []
    gone = m.store.facts.get(sushi.id)
    assert gone.retire_reason == "retracted"  # history kept, not erased
    assert len(m.store.facts.history("user:alice", "likes")) == 1
    m.store.review.undo(asked.id, by="rita")  # a person can take the decision back
    later(m)
    assert [f.object for f in m.facts(user="alice") if f.predicate == "likes"] == ["sushi"]


def test_correct_queues_an_edit_over_the_old_value_s_time(memory):
    m = memory
    leeds = _fact(m, "lives_in")
    asked = m.correct(leeds.id, "Harrogate", user_id="alice", session="alice-chat", turn=3)
    assert (asked.state, asked.change, asked.object) == ("pending", "correction", "Harrogate")
    assert asked.valid_from == leeds.valid_from
    assert _fact(m, "lives_in").object == "Leeds"
    m.store.review.approve(asked.id, by="rita")
    later(m)
    now = _fact(m, "lives_in")
    assert now.object == "Harrogate" and now.valid_from == leeds.valid_from
    assert m.store.facts.get(leeds.id).retire_reason == "corrected"


def test_a_rejected_forget_changes_nothing(memory):
    m = memory
    sushi = _fact(m, "likes")
    asked = m.forget(sushi.id, user="alice", session="alice-chat", turn=3)
    m.store.review.reject(asked.id, by="rita", reason="she still likes it")
    later(m)
    assert _fact(m, "likes").id == sushi.id


def test_an_agent_cannot_reach_another_user_s_fact_or_session(memory):
    m = memory
    bristol = _fact(m, "lives_in", user="bob")
    before = m.store.review.count()
    with pytest.raises(AccessRefused):
        m.forget(bristol.id, user="alice", session="alice-chat", turn=3)
    with pytest.raises(AccessRefused):  # bob's fact, cited to alice's turn
        m.correct(bristol.id, "Bath", user="bob", session="alice/alice-chat", turn=3)
    leeds = _fact(m, "lives_in")
    for bad, error in (
            (lambda: m.forget(leeds.id, user="alice", session="alice-chat", turn=99), InvalidInput),
            (lambda: m.forget(10**9, user="alice", session="alice-chat", turn=3), FactNotFound),
            (lambda: m.forget(leeds.id, session="alice-chat", turn=3), InvalidInput),
            (lambda: m.correct(leeds.id, "Leeds", user="alice", session="alice-chat", turn=3),
             InvalidInput),
            (lambda: m.correct(leeds.id, "", user="alice", session="alice-chat", turn=3),
             InvalidInput)):
        with pytest.raises(error):
            bad()
    assert m.store.review.count() == before  # nothing written by a refused call


def test_a_retired_fact_cannot_be_forgotten_again(memory):
    m = memory
    sushi = _fact(m, "likes")
    m.store.review.approve(m.forget(sushi.id, user="alice", session="alice-chat", turn=3).id, by="rita")
    with pytest.raises(InvalidInput, match="no longer current"):
        m.forget(sushi.id, user="alice", session="alice-chat", turn=3)


def test_memories_and_facts_come_a_page_at_a_time(memory):
    m = memory
    items = m.memories(user="alice")
    assert items and all(i.subject == "user:alice" or i.subject.startswith("person:alice/")
                         for i in items)
    assert any(i.subject.startswith("person:alice/") for i in items)  # her sister's too
    assert all("Bristol" not in i.text for i in items)
    assert [i.created_at for i in items] == sorted((i.created_at for i in items), reverse=True)
    paged = [x for n in range(len(items)) for x in m.memories(user_id="alice", limit=1, offset=n)]
    assert [i.id for i in paged] == [i.id for i in items]
    assert m.memories(user="alice", offset=len(items)) == []
    facts = m.facts(user="alice")
    assert [f.id for f in m.facts(user="alice", limit=1, offset=1)] == [facts[1].id]
    assert m.facts(user_id="alice") == facts
    for bad in ({"limit": 0}, {"limit": 1001}, {"offset": -1}, {"limit": True}):
        with pytest.raises(InvalidInput):
            m.memories(user="alice", **bad)
    with pytest.raises(InvalidInput, match="differ"):
        m.memories(user="alice", user_id="bob")


def test_user_id_is_user_everywhere(memory):
    m = memory
    got = m.remember([{"role": "user", "content": "I work at Initech", "time": at(4)}],
                     user_id="alice")
    assert got.session == "alice/alice-chat"
    hits = m.recall("where does she work", user_id="alice")
    assert hits and all(h.subject != "user:bob" for h in hits)
    assert m.prompt("where does she work", user_id="alice").startswith("Relevant memory")
    with pytest.raises(InvalidInput, match="differ"):
        m.recall("x", user="alice", user_id="bob")


def test_each_prompt_line_says_who_told_it(memory):
    """A reviewer-approved agent inference never reads like something the
    user said: each line names its source kind, and who approved it."""
    m = memory
    asked = m.propose("likes", "jazz", user="alice", session="alice-chat", turn=3,
                      confidence=0.6)
    m.store.review.approve(asked.id, by="rita")
    later(m)
    block = m.prompt("what does she like, where does she live", user="alice", k=10)
    lines = {line.split("] ", 2)[-1]: line for line in block.splitlines()[1:]}
    jazz = [line for line in lines.values() if "jazz" in line]
    assert jazz and all("an agent inferred, approved by rita]" in line for line in jazz), block
    leeds = [line for line in lines.values() if "Leeds" in line]
    assert leeds and all("; the user said]" in line for line in leeds), block
    turns = m.prompt("sushi", user="alice")  # over memories; and raw turns say who said them
    assert "; the user said]" in turns
    raw = m.recall_with_prompt("sushi", user="alice", over="turns")[0]
    assert "[raw turn; the user said]" in raw


def test_end_queues_an_ending_that_a_reviewer_carries_out_and_history_keeps(memory):
    """The user said a value stopped holding: ended at a time, not taken back as never true."""
    m = memory
    leeds = _fact(m, "lives_in")
    with pytest.raises(InvalidInput, match="offset"):
        m.end(leeds.id, user="alice", session="alice-chat", turn=3, at=datetime(2026, 5, 3))
    with pytest.raises(InvalidInput, match="cannot end"):
        m.end(leeds.id, user="alice", session="alice-chat", turn=3, at=at(1, 9))
    asked = m.end(leeds.id, user="alice", session="alice-chat", turn=3, at=at(2, 12))
    assert asked.state == "pending" and asked.change == "ending" and asked.object == "Leeds"
    assert _fact(m, "lives_in").id == leeds.id  # proposed, not done
    outcome = m.store.review.approve(asked.id, by="rita")
    later(m)
    assert outcome.outcome == "ending"
    assert [f for f in m.facts(user="alice") if f.predicate == "lives_in"] == []
    [kept] = m.store.facts.current("user:alice", "lives_in")
    assert kept.object == "Leeds" and kept.valid_to is not None and kept.retire_reason is None
    with pytest.raises(AccessRefused):
        m.end(leeds.id, user="bob", session="bob-chat", turn=1)
