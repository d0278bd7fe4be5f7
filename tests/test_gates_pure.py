"""The gates as pure rules (``core.gates``): the decisions they return for
claims against current belief, checked against the reference model's
definition of "the same value" and the review threshold, and the storage of
gate steps as structured JSON that no text can forge (issue 13)."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from memdesk import gates
from memdesk.gates import Gate, GateStep, Outcome, Resolution, Statement

from .helpers import claim, day
from .reference_model import Identity

THRESHOLD = 0.75


@dataclass(frozen=True)
class Row:
    """A current-belief row as the gates see it."""

    id: int
    object: str
    polarity: str = "positive"
    scope: str = "global"
    valid_from: int = 0
    valid_to: int | None = None
    value_json: str | None = None
    single_valued: bool = True
    start_stated: bool | None = True
    claim_id: int = 0
    start_kind: str | None = "stated"
    start_latest: int | None = None


def stmt(obj: str, *, polarity: str = "positive", start: int = 10, end: int | None = None,
         change: str | None = None, confidence: float = 0.9, kind: str = "user_explicit",
         scope: str = "global", single: bool = True) -> Statement:
    return Statement(obj, None, polarity, scope, single, start, end, change, confidence, kind)


def names(decision) -> list[str]:
    return [f"{s.gate}:{s.result}" for s in decision.steps]


# ------------------------------------------------------------- decisions
def test_a_new_value_passes_every_gate_in_order():
    d = gates.admit(stmt("Berlin"), [], turn_id=7, threshold=THRESHOLD)
    assert d.outcome == Outcome.APPLIED and d.plan.kind == "insert"
    assert names(d) == ["provenance:ok", "dedup:new", "review:pass", "conflict:none"]
    assert d.steps[0].note == "turn 7"


def test_a_repeat_from_the_same_turn_is_unchanged():
    d = gates.admit(None, [], turn_id=7, threshold=THRESHOLD)
    assert d.outcome == Outcome.UNCHANGED and d.plan is None
    assert names(d) == ["provenance:ok", "idempotency:repeated"]


def test_the_same_value_merges_before_review():
    d = gates.admit(stmt(" berlin ", confidence=0.1), [Row(3, "Berlin")], turn_id=1,
                    threshold=THRESHOLD)
    assert d.outcome == Outcome.MERGED and names(d) == ["provenance:ok", "dedup:merged"]
    assert d.steps[-1].note == "fact 3"


def test_low_confidence_and_agent_inference_wait():
    low = gates.admit(stmt("Paris", confidence=0.5), [], turn_id=1, threshold=THRESHOLD)
    agent = gates.admit(stmt("Paris", kind="agent_inferred"), [], turn_id=1, threshold=THRESHOLD)
    for d in (low, agent):
        assert d.outcome == Outcome.PENDING and names(d)[-1] == "review:queued" and d.reasons
    assert "below the review threshold" in low.reasons[0]
    assert "agent_inferred" in agent.reasons[0]


def test_another_value_without_a_signal_is_a_conflict_naming_its_id():
    d = gates.admit(stmt("Paris"), [Row(3, "Berlin")], turn_id=1, threshold=THRESHOLD)
    assert d.outcome == Outcome.CONFLICT and d.conflict_kind == "value"
    last = d.steps_with_conflict(12)[-1]
    assert (last.gate, last.result) == (Gate.CONFLICT, "opened")
    assert last.note.startswith("conflict 12 (value differs from fact 3")
    polar = gates.admit(stmt("Berlin", polarity="negative"), [Row(3, "Berlin")], turn_id=1,
                        threshold=THRESHOLD)
    assert polar.conflict_kind == "polarity"


def test_the_slot_is_the_scope_and_for_multi_valued_predicates_the_object():
    elsewhere = [Row(1, "Berlin", scope="project:x")]
    assert gates.admit(stmt("Paris"), elsewhere, turn_id=1,
                       threshold=THRESHOLD).outcome == Outcome.APPLIED
    likes = [Row(2, "tea", single_valued=False)]
    coffee = stmt("coffee", single=False)
    assert gates.admit(coffee, likes, turn_id=1, threshold=THRESHOLD).outcome == Outcome.APPLIED
    no_tea = stmt("Tea", single=False, polarity="negative")
    assert gates.admit(no_tea, likes, turn_id=1, threshold=THRESHOLD).outcome == Outcome.CONFLICT


def test_approval_runs_dedup_and_conflict_again():
    d = gates.approve(stmt("Paris", confidence=0.1), [], by="rita", edited=True)
    assert d.outcome == Outcome.APPLIED
    assert d.steps[0] == GateStep(Gate.REVIEW, "approved", "by rita after edits")


def test_resolutions():
    rows = [Row(3, "Berlin")]
    kept, _ = gates.resolve(Resolution.EXISTING, stmt("Paris"), rows, conflict_id=5,
                            conflict_scope="global", by="rita")
    assert kept.outcome == Outcome.REJECTED
    assert kept.steps == (GateStep(Gate.CONFLICT, "resolved", "conflict 5 kept existing by rita"),)
    incoming, as_taken = gates.resolve(Resolution.INCOMING, stmt("Paris"), rows, conflict_id=5,
                                       conflict_scope="global", by="rita")
    assert incoming.plan.kind == "correction" and as_taken.change == "correction"
    both, moved = gates.resolve(Resolution.BOTH, stmt("Paris"), rows, conflict_id=5,
                                conflict_scope="global", by="rita", scope="session:trip")
    assert both.outcome == Outcome.APPLIED and moved.scope == "session:trip"
    with pytest.raises(ValueError, match="other than"):
        gates.resolve(Resolution.BOTH, stmt("Paris"), rows, conflict_id=5,
                      conflict_scope="global", by="rita")


# ------------------------------------------------------------- endings
def ending(obj: str, *, start: int = 10, told: int | None = None, single: bool = True,
           values: str | None = None) -> Statement:
    return stmt(obj, start=start, change="ending", single=single)._replace(told=told, values=values)


def test_an_ending_closes_its_value_where_it_stopped_and_inserts_nothing():
    rows = [Row(3, "Acme", valid_from=2), Row(4, "Globex", valid_from=20)]
    d = gates.admit(ending("acme", start=10), rows, turn_id=1, threshold=THRESHOLD)
    assert d.outcome == Outcome.APPLIED and d.plan.kind == "ending"
    assert names(d) == ["provenance:ok", "dedup:new", "review:pass", "conflict:none"]
    assert [r.id for r in d.plan.retire] == [3]
    (kept,) = d.plan.insert
    assert (kept.source.id, kept.start, kept.end) == (3, 2, 10)  # its part before the end, as history
    assert gates.RETIRED_AS["ending"] == "superseded"


def test_an_ending_that_names_no_value_ends_what_holds_then_in_a_single_valued_slot_only():
    rows = [Row(3, "Acme", valid_from=2, valid_to=8), Row(4, "Globex", valid_from=8)]
    plan = gates.admit(ending("", start=10), rows, turn_id=1, threshold=THRESHOLD).plan
    assert [r.id for r in plan.retire] == [4] and [(p.start, p.end) for p in plan.insert] == [(8, 10)]
    # "now in Leeds, moved out of the old place": the new value said with it stays
    moved = [Row(3, "York", valid_from=2, valid_to=10), Row(4, "Leeds", valid_from=10)]
    assert gates.plan_for(ending("", start=10, told=10), moved).retire == ()
    tastes = [Row(5, "tea", valid_from=2, single_valued=False)]
    assert gates.plan_for(ending("", single=False), tastes).retire == ()


def test_an_ending_told_after_a_later_mention_retires_it_whole_but_never_a_later_value():
    # "works at Acme" heard at 12, then "I left Acme at 10" told at 15: it had ended before
    # it was heard of; a value begun after the ending was told is another story
    heard = [Row(3, "Acme", valid_from=12, start_stated=False)]
    plan = gates.plan_for(ending("Acme", start=10, told=15), heard)
    assert [r.id for r in plan.retire] == [3] and plan.insert == ()
    assert gates.plan_for(ending("Acme", start=10, told=11), heard).retire == ()
    assert gates.plan_for(ending("", start=10, told=15), heard).retire == ()


def test_nothing_held_to_end_is_an_empty_ending_and_a_place_ends_with_the_places_within_it():
    assert gates.plan_for(ending("Paris"), [Row(3, "Rome", valid_from=2)]) == \
        gates.Plan("ending")
    rows = [Row(3, "上海浦东张江", valid_from=2)]
    plan = gates.plan_for(ending("上海", values="place"), rows)
    assert [r.id for r in plan.retire] == [3]
    assert gates.plan_for(ending("北京", values="place"), rows).retire == ()


# --------------------------------------------- against the reference model
objects = st.sampled_from(["Berlin", "berlin ", "Paris", "Rome"])
polarities = st.sampled_from(["positive", "negative"])


@settings(max_examples=300, deadline=None)
@given(existing=st.lists(st.tuples(objects, polarities), max_size=1), obj=objects,
       polarity=polarities, confidence=st.floats(0, 1), agent=st.booleans())
def test_outcome_follows_the_gate_rules(existing, obj, polarity, confidence, agent):
    """One open-ended row at most (a single-valued slot) and an incoming value
    over the same time with no change signal: merged iff the model calls it the
    same value; otherwise queued iff the review rule says so; otherwise a
    conflict iff something holds, else applied. Steps follow the gate order."""
    rows = [Row(i + 1, o, polarity=p) for i, (o, p) in enumerate(existing)]
    kind = "agent_inferred" if agent else "user_explicit"
    d = gates.admit(stmt(obj, polarity=polarity, confidence=confidence, kind=kind), rows,
                    turn_id=1, threshold=THRESHOLD)
    same = any(Identity(o, None, p) == Identity(obj, None, polarity) for o, p in existing)
    queued = confidence < THRESHOLD or agent
    if same:
        expected = Outcome.MERGED
    elif queued:
        expected = Outcome.PENDING
    else:
        expected = Outcome.CONFLICT if rows else Outcome.APPLIED
    assert d.outcome == expected
    order = list(Gate)
    seen = [order.index(s.gate) for s in d.steps]
    assert seen == sorted(seen) and d.steps[0].gate == Gate.PROVENANCE


# ------------------------------------------------------------- storage
notes = st.one_of(st.none(), st.text(max_size=40), st.sampled_from(
    ["ann|dedup:merged:fact 999", 'x", "gate": "dedup', "|review:pass:", "\x00\n\"\\"]))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(list(Gate)), st.text(max_size=12), notes), max_size=6))
def test_steps_round_trip_whatever_their_text(raw):
    steps = tuple(GateStep(g, r, n) for g, r, n in raw)
    text = gates.encode_steps(steps)
    assert gates.decode_steps(text) == steps
    assert len(json.loads(text)) == len(steps)


@given(st.integers(0, 2**63))
def test_the_provenance_step_is_stored_like_any_other(turn_id):
    step = gates.provenance_step(turn_id)
    assert step == GateStep(Gate.PROVENANCE, "ok", f"turn {turn_id}")
    assert step.json == GateStep(Gate.PROVENANCE, "ok", f"turn {turn_id}").json


def test_appending_keeps_what_was_stored():
    first = gates.encode_steps([gates.provenance_step(1)])
    both = gates.append_steps(first, [gates.undone("approved", "sam|x")])
    assert [s.gate for s in gates.decode_steps(both)] == [Gate.PROVENANCE, Gate.REVIEW]


def test_a_joined_string_is_not_read_as_steps():
    with pytest.raises(ValueError):
        gates.decode_steps("provenance:ok:turn 1|dedup:new")


# ----------------------------------------------- the forging defect, end to end
@pytest.mark.parametrize("by", ["ann|dedup:merged:fact 999",
                                'ann"},{"gate":"dedup","result":"merged","note":"fact 999'])
def test_a_reviewer_name_cannot_forge_a_gate_step(store, by):
    store.facts.add(claim("user:a", "diet", "vegetarian", at=day(1), turn=1, confidence=0.5))
    candidate = store.review.list()[0]
    store.review.approve(candidate.id, by=by)
    report = store.audit.of("user:a", "diet", "vegetarian")
    recorded = next(s for s in report.chain if s.step == "gates").detail["gates"]
    assert [(g["gate"], g["result"]) for g in recorded] == [
        ("provenance", "ok"), ("dedup", "new"), ("review", "queued"), ("review", "approved"),
        ("conflict", "none")]
    assert recorded[3]["note"] == f"by {by}"
    assert not any(g["note"] == "fact 999" for g in recorded)
    store.review.undo(candidate.id, by=by)
    steps = next(s for s in store.audit.of("user:a", "diet", "vegetarian").chain
                 if s.step == "gates").detail["gates"]
    assert steps[-1] == {"gate": "review", "result": "undone", "note": f"approved undone by {by}"}
    assert sum(g["gate"] == "dedup" for g in steps) == 1


# --------------------------------------------- occasions (catalog values "occasion")
days = st.sampled_from(["2026-03-09", "2026-03-10", "2026-03-20"])


@settings(max_examples=200, deadline=None)
@given(held=st.lists(days, min_size=1, max_size=3, unique=True), said=days, moved=st.booleans())
def test_an_occasion_meets_its_own_day_and_a_move_its_latest(held, said, moved):
    """A to-do held for some days, said for a day: without a change it meets only the rows of its own day
    (merged when it holds, else applied beside the others, never a conflict); told as moved it also meets
    the latest day held, and its plan touches no other day (a reminder before the item stays)."""
    rows = [Row(i + 1, "renew the passport", valid_from=0, value_json=json.dumps({"due": d}, separators=(",", ":")),
                single_valued=False) for i, d in enumerate(held)]
    value = json.dumps({"due": said}, separators=(",", ":"))
    statement = Statement("renew the passport", value, "positive", "global", False, 10, None,
                          "evolution" if moved else None, 0.9, "user_explicit", values="occasion")
    met = {json.loads(r.value_json)["due"] for r in gates.slot_rows(rows, statement)}
    assert met == ({said} | ({max(held)} if moved else set())) & set(held)
    decision = gates.admit(statement, rows, turn_id=1, threshold=THRESHOLD)
    if not moved:
        assert decision.outcome == (Outcome.MERGED if said in held else Outcome.APPLIED)
    else:
        touched = {json.loads(r.value_json)["due"] for r in decision.plan.retire}
        assert touched <= {said, max(held)} and decision.outcome in (Outcome.APPLIED, Outcome.MERGED)
