"""The review queue and conflict resolution, checked against the store afterwards."""

from __future__ import annotations

from datetime import timedelta

import pytest
from memdesk import AlreadyDecided, CandidateNotFound, ConflictNotFound, InvalidInput, Store
from memdesk.timeutil import to_us

from .helpers import DAY0, claim, day


@pytest.fixture
def queued(store, clock):
    store.facts.add([
        claim("user:a", "diet", "vegetarian", at=day(1), turn=1, confidence=0.5),
        claim("user:a", "lives_in", "Berlin", at=day(1), turn=2),
        claim("user:a", "works_at", "ACME", at=day(2), turn=3, kind="agent_inferred", confidence=0.8),
    ])
    clock.set(DAY0 + timedelta(days=5))
    return store


def test_approve_asserts_fact_with_reviewer_and_time(queued):
    cand = queued.review.list()[0]
    result = queued.review.approve(cand.id, by="lin")
    assert result.outcome == "insert" and result.fact_id
    fact = queued.facts.get(result.fact_id)
    assert fact.object == "vegetarian"
    assert fact.recorded_at == to_us(DAY0 + timedelta(days=5))  # the reviewer's clock, not the turn's
    decided = queued.review.get(cand.id)
    assert decided.state == "approved" and decided.decided_by == "lin"
    assert decided.decided_at == fact.recorded_at
    chain = queued.audit.of("user:a", "diet").chain
    review = [s for s in chain if s.step == "review"]
    assert review and review[0].actor == "lin"
    assert queued.review.list() and all(c.id != cand.id for c in queued.review.list())


def test_reject_keeps_candidate_with_reason(queued):
    cand = queued.review.list()[0]
    rejected = queued.review.reject(cand.id, by="lin", reason="joke, not a diet")
    assert rejected.state == "rejected" and rejected.decision_reason == "joke, not a diet"
    assert queued.facts.history("user:a", "diet") == []
    assert [c.id for c in queued.review.list("rejected")] == [cand.id]
    with pytest.raises(InvalidInput):
        queued.review.reject(queued.review.list()[0].id, by="lin", reason=" ")


def test_edit_then_approve_uses_edits_and_keeps_original(queued):
    cand = next(c for c in queued.review.list() if c.predicate == "works_at")
    result = queued.review.approve(cand.id, by="lin", edits={"object": "ACME Corp", "scope": "global"})
    fact = queued.facts.get(result.fact_id)
    assert fact.object == "ACME Corp"
    stored = queued.review.get(cand.id)
    assert stored.object == "ACME" and stored.edits == {"object": "ACME Corp", "scope": "global"}
    with pytest.raises(InvalidInput):
        queued.review.approve(queued.review.list()[0].id, by="lin", edits={"subject": "user:b"})


def test_deciding_twice_fails_clearly_without_double_effect(queued):
    cand = queued.review.list()[0]
    queued.review.approve(cand.id, by="lin")
    with pytest.raises(AlreadyDecided, match="approved by lin"):
        queued.review.approve(cand.id, by="mo")
    with pytest.raises(AlreadyDecided):
        queued.review.reject(cand.id, by="mo", reason="no")
    assert len(queued.facts.history("user:a", "diet")) == 1
    with pytest.raises(CandidateNotFound):
        queued.review.approve(9999, by="lin")


def test_two_store_handles_race_for_one_candidate(store_url, queued, clock):
    cand = queued.review.list()[0]
    with Store.open(store_url, clock=clock) as other:
        other.review.approve(cand.id, by="mo")
        with pytest.raises(AlreadyDecided, match="mo"):
            queued.review.approve(cand.id, by="lin")
    assert len(queued.facts.history("user:a", "diet")) == 1


def test_approval_that_contradicts_opens_conflict(store, clock):
    store.facts.add([claim("user:a", "lives_in", "Berlin", at=day(1), turn=1),
               claim("user:a", "lives_in", "Paris", at=day(2), turn=2, confidence=0.4)])
    clock.set(DAY0 + timedelta(days=3))
    cand = store.review.list()[0]
    result = store.review.approve(cand.id, by="lin")
    assert result.outcome == "conflict" and result.conflict_id
    assert store.review.get(cand.id).state == "conflict"
    assert [c.id for c in store.conflicts.list()] == [result.conflict_id]


def test_an_ending_waits_for_review_then_closes_what_held_and_reads_as_one(store, clock):
    """An unsure ending (naming no value, from a JSON line as an agent or import sends it)
    waits; approved, the value holding then is closed where it ended, kept as history."""
    from memdesk import ClaimInput, claimed_object

    store.facts.add([claim("user:a", "works_at", "Acme", at=day(1), turn=1)])
    line = {"subject": "user:a", "predicate": "works_at", "change": "ending", "confidence": 0.4,
            "valid_from": "2026-03-05T00:00:00+08:00",
            "source": {"session": "s1", "turn": 2, "text": "I quit I think", "time": "2026-03-06T09:00:00+08:00"}}
    summary = store.facts.add([ClaimInput.from_dict(line)])
    clock.set(DAY0 + timedelta(days=7))
    assert summary.queued == 1 and [f.object for f in store.facts.as_of("user:a", "works_at")] == ["Acme"]
    [cand] = store.review.list()
    assert cand.change == "ending" and claimed_object(cand.change, cand.object) == "ended: whatever holds then"
    clock.set(DAY0 + timedelta(days=10))
    assert store.review.approve(cand.id, by="lin").outcome == "ending"
    assert store.facts.as_of("user:a", "works_at") == []
    [kept] = store.facts.current("user:a", "works_at")
    assert (kept.object, kept.valid_to) == ("Acme", to_us(DAY0.replace(day=5, hour=0)))


@pytest.fixture
def conflicted(store, clock):
    store.facts.add([claim("user:a", "lives_in", "Berlin", at=day(1), turn=1),
               claim("user:a", "lives_in", "Paris", at=day(4), turn=2)])
    clock.set(DAY0 + timedelta(days=6))
    [c] = store.conflicts.list()
    return store, c


def test_resolve_keep_existing(conflicted):
    store, c = conflicted
    done = store.conflicts.resolve(c.id, "existing", by="lin", reason="Paris was a trip")
    assert done.state == "resolved" and done.resolution == "existing" and done.resolved_by == "lin"
    assert [f.object for f in store.facts.current("user:a", "lives_in")] == ["Berlin"]
    assert store.review.get(c.claim_id).state == "rejected"
    assert store.conflicts.list() == []


def test_resolve_keep_incoming_corrects(conflicted):
    store, c = conflicted
    store.conflicts.resolve(c.id, "incoming", by="lin")
    assert [f.object for f in store.facts.current("user:a", "lives_in")] == ["Paris"]
    berlin = next(f for f in store.facts.history("user:a", "lives_in") if f.object == "Berlin")
    assert berlin.retire_reason == "corrected"
    chain = store.audit.of("user:a", "lives_in", "Paris").chain
    assert any(s.step == "review" and s.actor == "lin" for s in chain)


def test_resolve_keep_both_needs_other_scope(conflicted):
    store, c = conflicted
    with pytest.raises(InvalidInput):
        store.conflicts.resolve(c.id, "both", by="lin")
    assert store.conflicts.list()[0].state == "open"  # the failed attempt changed nothing
    store.conflicts.resolve(c.id, "both", by="lin", scope="session:trip")
    assert sorted((f.object, f.scope) for f in store.facts.current("user:a", "lives_in")) == [
        ("Berlin", "global"), ("Paris", "session:trip")]


def test_resolve_neither_retracts(conflicted):
    store, c = conflicted
    store.conflicts.resolve(c.id, "neither", by="lin", reason="both wrong")
    assert store.facts.current("user:a", "lives_in") == []
    assert store.review.get(c.claim_id).state == "rejected"


def test_resolving_twice_or_unknown(conflicted):
    store, c = conflicted
    store.conflicts.resolve(c.id, "existing", by="lin")
    with pytest.raises(AlreadyDecided, match="lin"):
        store.conflicts.resolve(c.id, "incoming", by="mo")
    with pytest.raises(ConflictNotFound):
        store.conflicts.resolve(999, "existing", by="mo")
    with pytest.raises(InvalidInput):
        store.conflicts.resolve(c.id, "maybe", by="mo")


def test_resolution_lands_in_audit_log(conflicted):
    store, c = conflicted
    store.conflicts.resolve(c.id, "existing", by="lin", reason="trip")
    from memdesk.db.tables import AUDIT
    from sqlalchemy import select

    with store.engine.connect() as conn:
        rows = conn.execute(select(AUDIT.c.action, AUDIT.c.actor, AUDIT.c.reason)
                            .where(AUDIT.c.conflict_id == c.id)).all()
    assert ("conflict.resolved", "lin", "trip") in [tuple(r) for r in rows]
