"""Undoing a review decision: the candidate returns to the queue and belief
returns to what it was, by new rows only (nothing is deleted or rewritten)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from memdesk import AlreadyDecided, CandidateNotFound, InvalidInput
from sqlalchemy import create_engine, text

from .helpers import DAY0, claim, day


@pytest.fixture(autouse=True)
def _late_clock(clock):
    """Decisions happen on day 40, after every turn of these tests."""
    clock.set(DAY0 + timedelta(days=39))


def _rows(store) -> dict[int, tuple]:
    engine = create_engine(store.engine.url)
    with engine.connect() as conn:
        rows = {r[0]: tuple(r) for r in conn.execute(text(
            "SELECT id, subject, predicate, object, valid_from, valid_to, recorded_at, claim_id "
            "FROM fact"))}
    engine.dispose()
    return rows


def test_undo_approval_retracts_the_fact_and_requeues(store, clock):
    store.facts.add(claim("user:me", "diet", "素食", at=day(2), turn=2, kind="agent_inferred",
                    confidence=0.6))
    (cand,) = store.review.list()
    out = store.review.approve(cand.id, by="ann")
    assert [f.object for f in store.facts.current("user:me", "diet")] == ["素食"]
    before = _rows(store)
    undone = store.review.undo(cand.id, by="ann")
    assert undone.undone == "approved" and undone.retired == (out.fact_id,)
    clock.set(DAY0 + timedelta(days=45))
    assert store.facts.current("user:me", "diet") == []
    again = store.review.get(cand.id)
    assert again.state == "pending" and again.decided_by is None
    after = _rows(store)
    assert all(after[i] == row for i, row in before.items())  # rows unchanged but the stamp
    retired = store.facts.get(out.fact_id)
    assert retired.retire_reason == "retracted" and "undo" in retired.retire_note
    # it can be decided again, and the audit log keeps all three operations
    store.review.reject(cand.id, by="bob", reason="not stated by the user")
    steps = [s.summary for s in store.audit.of("user:me", "diet", "素食").chain if s.step == "review"]
    assert any("approved by ann" in s for s in steps) and any("rejected by bob" in s for s in steps)


def test_undo_approved_evolution_restores_the_previous_value(store, clock):
    store.facts.add(claim("user:me", "lives_in", "徐家汇", at=day(1), turn=1))
    store.facts.add(claim("user:me", "lives_in", "张江", at=day(18), turn=18, change="evolution",
                    confidence=0.5))
    (cand,) = store.review.list()
    store.review.approve(cand.id, by="ann")
    clock.set(DAY0 + timedelta(days=40))  # a moment after the approval (the clock is frozen)
    assert [f.object for f in store.facts.as_of("user:me", "lives_in", valid_at=day(20))] == ["张江"]
    out = store.review.undo(cand.id, by="ann")
    assert len(out.restored) == 1
    clock.set(DAY0 + timedelta(days=45))
    now = store.facts.as_of("user:me", "lives_in", valid_at=day(20))
    assert [(f.object, f.valid_to) for f in now] == [("徐家汇", None)]
    # what was believed while the approval stood is still replayable
    history = store.facts.history("user:me", "lives_in")
    approved_at = max(f.told_from for f in history if f.object == "张江")
    undone_at = max(f.told_from for f in history)
    assert approved_at < undone_at
    during = store.facts.as_of("user:me", "lives_in", valid_at=day(20), known_at=approved_at)
    assert [f.object for f in during] == ["张江"]


def test_undo_rejection_requeues(store):
    store.facts.add(claim("user:me", "pet", "猫", at=day(3), turn=3, confidence=0.4))
    (cand,) = store.review.list()
    store.review.reject(cand.id, by="ann", reason="unclear")
    assert store.review.undo(cand.id, by="ann").undone == "rejected"
    assert store.review.get(cand.id).state == "pending"
    assert store.facts.current("user:me", "pet") == []


def test_undo_approval_that_opened_a_conflict_withdraws_it(store):
    store.facts.add(claim("user:me", "works_at", "华为", at=day(1), turn=1))
    store.facts.add(claim("user:me", "works_at", "腾讯", at=day(5), turn=5, confidence=0.5))
    (cand,) = store.review.list()
    out = store.review.approve(cand.id, by="ann")
    assert out.conflict_id is not None and len(store.conflicts.list()) == 1
    assert store.review.undo(cand.id, by="ann").withdrawn_conflict == out.conflict_id
    assert store.conflicts.list() == []
    assert store.conflicts.get(out.conflict_id).state == "withdrawn"
    assert store.review.get(cand.id).state == "pending"


def test_undo_errors(store, clock):
    store.facts.add(claim("user:me", "pet", "狗", at=day(3), turn=3, confidence=0.4))
    store.facts.add(claim("user:me", "name", "小王", at=day(3), turn=4))
    (cand,) = store.review.list()
    with pytest.raises(AlreadyDecided, match="pending"):
        store.review.undo(cand.id, by="ann")
    with pytest.raises(CandidateNotFound):
        store.review.undo(9999, by="ann")
    with pytest.raises(InvalidInput):
        store.review.undo(cand.id, by=" ")
    asserted = store.review.list("asserted")[0]
    with pytest.raises(AlreadyDecided, match="not decided in review"):
        store.review.undo(asserted.id, by="ann")
    out = store.review.approve(cand.id, by="ann")
    store.facts.retract(out.fact_id, by="bob", reason="wrong dog")
    with pytest.raises(InvalidInput, match="changed since"):
        store.review.undo(cand.id, by="ann")
    assert store.review.get(cand.id).state == "approved"  # nothing changed
