"""The write gates for imported facts: provenance, idempotency, dedup,
confidence/agent-inferred review routing, conflict detection, change kinds."""

from __future__ import annotations

import pytest
from memdesk import PredicateMismatch, Store, TurnMismatch

from .helpers import claim, day


def test_dedup_same_fact_other_source_merges_and_counts(store):
    store.facts.add(claim("user:a", "likes", "jazz", at=day(1), turn=1))
    s = store.facts.add(claim("user:a", "likes", "Jazz ", at=day(3), turn=7, session="s2"))
    assert s.merged == 1 and s.fact_rows == 0
    rows = store.facts.history("user:a", "likes")
    assert len(rows) == 1
    d = store.facts.as_json(rows)[0]
    assert d["mentions"] == 2
    chain = store.audit.of("user:a", "likes", "jazz").chain
    assert [st.step for st in chain].count("mention") == 1


def test_normalised_value_beats_wording(store):
    store.facts.add(claim("project:p", "budget_limit", "五千元", at=day(1), turn=1,
                    value={"amount": 5000, "currency": "CNY"}))
    s = store.facts.add(claim("project:p", "budget_limit", "5000 元", at=day(2), turn=2,
                        value={"amount": 5000, "currency": "CNY"}))
    assert s.merged == 1 and s.conflicts == 0


def test_reimport_same_claim_same_turn_is_noop(store):
    c = claim("user:a", "lives_in", "Berlin", at=day(1), turn=1)
    store.facts.add(c)
    again = store.facts.add(c)
    assert again.unchanged == 1 and again.fact_rows == 0 and again.merged == 0


def test_same_turn_other_text_is_refused_and_nothing_written(store):
    store.facts.add(claim("user:a", "lives_in", "Berlin", at=day(1), turn=1, text="I live in Berlin"))
    with pytest.raises(TurnMismatch):
        store.facts.add([
            claim("user:a", "likes", "tea", at=day(2), turn=2),
            claim("user:a", "lives_in", "Paris", at=day(1), turn=1, text="I live in Paris"),
        ])
    assert store.facts.history("user:a", "likes") == []  # the whole batch rolled back


def test_low_confidence_and_agent_inferred_wait_for_review(store):
    s = store.facts.add([
        claim("user:a", "diet", "vegetarian", at=day(1), turn=1, confidence=0.5),
        claim("user:a", "pet", "cat", at=day(1), turn=2, kind="agent_inferred", confidence=0.99),
        claim("user:a", "likes", "tea", at=day(1), turn=3, confidence=0.75),
    ])
    assert s.queued == 2 and s.asserted == 1
    pending = store.review.list()
    assert [c.object for c in pending] == ["vegetarian", "cat"]  # lowest confidence first
    assert "below the review threshold" in pending[0].reasons[0]
    assert "agent_inferred" in pending[1].reasons[0]
    assert store.facts.history("user:a", "diet") == []


def test_threshold_is_configurable(store_url, clock):
    with Store.open(store_url, clock=clock, review_threshold=0.4) as s:
        assert s.facts.add(claim("user:a", "diet", "vegan", at=day(1), turn=1, confidence=0.5)).asserted == 1


def test_low_confidence_duplicate_of_current_fact_merges_instead_of_queueing(store):
    store.facts.add(claim("user:a", "likes", "tea", at=day(1), turn=1))
    s = store.facts.add(claim("user:a", "likes", "tea", at=day(2), turn=2, confidence=0.3))
    assert s.merged == 1 and s.queued == 0


def test_unexplained_contradiction_opens_conflict_and_keeps_current(store):
    store.facts.add(claim("user:a", "lives_in", "Berlin", at=day(1), turn=1))
    s = store.facts.add(claim("user:a", "lives_in", "Paris", at=day(5), turn=2))
    assert s.conflicts == 1
    assert [f.object for f in store.facts.as_of("user:a", "lives_in", valid_at=day(9), known_at=day(9))] == ["Berlin"]
    [c] = store.conflicts.list()
    assert c.kind == "value" and c.state == "open"
    assert [f["object"] for f in c.facts] == ["Berlin", "Paris"]
    assert c.facts[1]["status"] == "pending" and c.facts[1]["id"] is None


def test_opposite_polarity_is_a_polarity_conflict(store):
    store.facts.add(claim("user:a", "likes", "coffee", at=day(1), turn=1))
    s = store.facts.add(claim("user:a", "likes", "coffee", at=day(2), turn=2, polarity="negative"))
    assert s.conflicts == 1
    assert store.conflicts.list()[0].kind == "polarity"


def test_other_scope_is_no_conflict(store):
    store.facts.add(claim("user:a", "lives_in", "Berlin", at=day(1), turn=1))
    s = store.facts.add(claim("user:a", "lives_in", "hotel Adlon", at=day(2), turn=2, scope="session"))
    assert s.conflicts == 0 and s.asserted == 1


def test_multi_valued_predicate_keeps_several_values(store):
    s = store.facts.add([claim("user:a", "allergy", "peanuts", at=day(1), turn=1),
                   claim("user:a", "allergy", "shellfish", at=day(2), turn=2)])
    assert s.asserted == 2 and s.conflicts == 0
    assert {f.object for f in store.facts.as_of("user:a", "allergy", valid_at=day(3), known_at=day(3))} == {
        "peanuts", "shellfish"}


def test_correction_replaces_over_same_interval(store):
    store.facts.add(claim("user:a", "lives_in", "徐家汇", at=day(1), turn=1))
    store.facts.add(claim("user:a", "lives_in", "张江", at=day(1.1), turn=2, change="correction",
                    text="不对，是张江"))
    rows = store.facts.history("user:a", "lives_in")
    old = next(r for r in rows if r.object == "徐家汇")
    new = next(r for r in rows if r.object == "张江")
    assert old.retire_reason == "corrected" and old.told_until == day(1.1)
    assert (new.valid_from, new.valid_to) == (old.valid_from, old.valid_to)
    # what did we believe before the correction about day 1? the wrong value, honestly
    assert [f.object for f in store.facts.as_of("user:a", "lives_in", valid_at=day(1), known_at=day(1))] == ["徐家汇"]
    assert [f.object for f in store.facts.as_of("user:a", "lives_in", valid_at=day(1), known_at=day(2))] == ["张江"]


def test_out_of_order_evolution_is_backfilled_and_never_retires_later_value(store):
    """A later change with a stated start is a real boundary: an older change
    told after it is closed there."""
    store.facts.add(claim("user:a", "lives_in", "A", at=day(1), turn=1))
    store.facts.add(claim("user:a", "lives_in", "C", at=day(20), turn=2, valid_from=day(20),
                    change="evolution"))
    s = store.facts.add(claim("user:a", "lives_in", "B", at=day(25), turn=3, valid_from=day(10),
                        change="evolution"))
    assert s.backfills == 1
    believed = sorted((r.object, r.valid_from, r.valid_to) for r in store.facts.current("user:a", "lives_in"))
    assert believed == [("A", day(1), day(10)), ("B", day(10), day(20)), ("C", day(20), None)]


def test_a_change_told_later_with_a_time_before_what_was_said_starts_after_it(store):
    """"I've moved to C" (heard at day 20) then, at day 25, "I moved to B on day
    10": C held on day 20 as the user said then, so B cannot have started on
    day 10: it starts right after day 20 (clamped, by day 25 at the latest),
    and C keeps its closed interval in history."""
    store.facts.add(claim("user:a", "lives_in", "A", at=day(1), turn=1))
    store.facts.add(claim("user:a", "lives_in", "C", at=day(20), turn=2, change="evolution"))
    s = store.facts.add(claim("user:a", "lives_in", "B", at=day(25), turn=3, valid_from=day(10),
                        change="evolution"))
    assert s.evolutions == 1
    believed = sorted((r.object, r.valid_from, r.valid_to) for r in store.facts.current("user:a", "lives_in"))
    assert believed == [("A", day(1), day(20)), ("B", day(20) + 1, None),
                        ("C", day(20), day(20) + 1)]
    [b] = [r for r in store.facts.current("user:a", "lives_in") if r.object == "B"]
    assert (b.start, b.latest_start) == ("clamped", day(25))
    [c] = [r for r in store.facts.history("user:a", "lives_in") if r.object == "C" and r.retired_at]
    assert (c.retire_reason, c.start_stated) == ("superseded", False)
    assert [f.object for f in store.facts.as_of("user:a", "lives_in", valid_at=day(15),
                                          known_at=day(30))] == ["A"]


def test_recorded_time_never_moves_backwards_and_told_time_is_the_turns(store):
    store.facts.add(claim("user:a", "likes", "tea", at=day(10), turn=1))
    store.facts.add(claim("user:a", "likes", "jazz", at=day(2), turn=2))  # older turn replayed later
    rows = {r.object: r for r in store.facts.history("user:a", "likes")}
    assert rows["jazz"].recorded_at > rows["tea"].recorded_at  # the store's own clock
    assert (rows["tea"].told_from, rows["jazz"].told_from) == (day(10), day(2))


def test_uncatalogued_predicate_accepted_recorded_and_listed(store):
    s = store.facts.add(claim("user:a", "favourite_team", "Bayern", at=day(1), turn=1, single_valued=True))
    assert s.new_predicates == ("favourite_team",)
    info = {p.id: p for p in store.facts.predicates()}
    assert info["favourite_team"].catalogued is False and info["favourite_team"].single_valued
    assert info["lives_in"].catalogued
    # single-valued as first declared: a second value with no signal conflicts
    assert store.facts.add(claim("user:a", "favourite_team", "Dortmund", at=day(2), turn=2)).conflicts == 1
    with pytest.raises(PredicateMismatch):
        store.facts.add(claim("user:a", "favourite_team", "x", at=day(3), turn=3, single_valued=False))


def test_declaring_catalogued_predicate_otherwise_is_refused(store):
    with pytest.raises(PredicateMismatch):
        store.facts.add(claim("user:a", "lives_in", "x", at=day(1), turn=1, single_valued=False))


def test_ttl_from_catalog_expires_todo(store):
    store.facts.add(claim("user:a", "todo", "renew passport", at=day(1), turn=1))
    [f] = store.facts.history("user:a", "todo")
    assert f.expires_at == day(8)  # short = one week
    assert f.status(day(2)) == "active" and f.status(day(9)) == "expired"
    assert store.facts.as_of("user:a", "todo", valid_at=day(9), known_at=day(9), include_expired=False) == []


def test_retract_withdraws_without_replacement(store, clock):
    store.facts.add(claim("user:a", "pet", "cat", at=day(1), turn=1))
    [f] = store.facts.current("user:a", "pet")
    retracted = store.facts.retract(f.id, by="lin", reason="was the neighbour's cat")
    assert retracted.retire_reason == "retracted" and retracted.retire_note == "was the neighbour's cat"
    assert store.facts.current("user:a", "pet") == []
    assert store.facts.as_json([retracted])[0]["status"] == "retracted"


def test_same_object_with_and_without_normalised_value_is_the_same_fact(store):
    store.facts.add(claim("user:a", "lives_in", "Xujiahui", at=day(1), turn=1))
    s = store.facts.add(claim("user:a", "lives_in", "xujiahui", at=day(2), turn=2, value="XH"))
    assert s.merged == 1 and s.conflicts == 0
    # but two different normalised values are different facts, whatever the wording
    store.facts.add(claim("project:p", "budget_limit", "5000", at=day(1), turn=3, value={"amount": 5000}))
    s = store.facts.add(claim("project:p", "budget_limit", "5000", at=day(2), turn=4, value={"amount": 6000}))
    assert s.conflicts == 1


def test_open_checks_schema_version_and_existence(tmp_path):
    from memdesk import StoreError
    from memdesk.db.tables import META
    from sqlalchemy import update

    path = tmp_path / "m.db"
    with pytest.raises(StoreError, match="no memdesk store"):
        Store.open(path, create=False)
    with Store.open(path) as s:
        with s.engine.begin() as conn:
            conn.execute(update(META).values(schema_version=99))
    with pytest.raises(StoreError, match="schema version 99"):
        Store.open(path)
