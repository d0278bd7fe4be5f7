"""Resolving a conflict as a change, as a correction, and the other ways, and
undoing every resolution (issue 14, part 5).

``keep="changed"``: the incoming value is an evolution from its own valid
time, the existing row is closed there and kept as history (superseded).
``keep="incoming"``: the existing value was wrong, corrected over its whole
interval. Each resolution is previewed by a dry run of the gates before it is
taken, and each can be undone: the timeline then answers every as-of query
exactly as before the resolution, while what was believed in between stays
replayable. Every test runs on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import NamedTuple

import pytest
from memdesk import AlreadyDecided, ConflictNotFound, InvalidInput, Store, gates
from memdesk.app.cli import main
from memdesk.gates import Outcome, Resolution, Statement
from memdesk.timeutil import parse_time_us

from .helpers import DAY0, claim, day

SUBJECT = "user:dana"
EMPLOYER = "works_at"
#: valid times the timeline is asked about: before, inside and after each interval
PROBES = (day(0), day(1), day(5), day(19.9), day(20), day(25), day(40), day(90))
#: "known at" for current belief: every decision here is taken at the frozen clock's
#: day 60 (one microsecond apart), so "now" would still see the state at day 60
LATEST = day(10_000)
DAY_US = 86_400_000_000


@pytest.fixture(autouse=True)
def _late_clock(clock):
    """Decisions are taken on day 60, after every turn of these tests."""
    clock.set(DAY0 + timedelta(days=59))


def employer_conflict(store: Store):
    """Dana said she works at Acme Robotics on day 1; on day 20, without saying
    anything changed, that she works at Globex."""
    store.facts.add(claim(SUBJECT, EMPLOYER, "Acme Robotics", at=day(1), turn=1,
                    text="I'm an engineer at Acme Robotics."))
    store.facts.add(claim(SUBJECT, EMPLOYER, "Globex", at=day(20), turn=2,
                    text="Globex has me on the night shift this week."))
    (conflict,) = store.conflicts.list()
    return conflict


def budget_conflict(store: Store):
    """The kitchen budget was £8,000 from day 3; on day 15 it is £9,500, said
    without a change word."""
    store.facts.add(claim("project:kitchen", "budget_limit", "£8,000", at=day(3), turn=1,
                    value={"amount": 8000, "currency": "GBP"}))
    store.facts.add(claim("project:kitchen", "budget_limit", "£9,500", at=day(15), turn=2,
                    value={"amount": 9500, "currency": "GBP"}))
    (conflict,) = store.conflicts.list()
    return conflict


def objects_at(store: Store, subject: str, predicate: str, t: int, known_at: int = LATEST):
    return [f.object for f in store.facts.as_of(subject, predicate, valid_at=t, known_at=known_at)]


def timeline(store: Store, subject: str = SUBJECT, predicate: str = EMPLOYER,
             known_at: int = LATEST) -> list[tuple]:
    """Every as-of answer on the probes, as the store believes it now (or at ``known_at``)."""
    return [(t, tuple((f.object, f.polarity, f.scope, f.valid_from, f.valid_to, f.value_json,
                       f.expires_at, f.claim_id)
                      for f in store.facts.as_of(subject, predicate, valid_at=t, known_at=known_at)))
            for t in PROBES]


def current_spans(store: Store, subject: str = SUBJECT, predicate: str = EMPLOYER) -> list[tuple]:
    return sorted((f.object, f.scope, f.valid_from, f.valid_to)
                  for f in store.facts.current(subject, predicate))


# -------------------------------------------------------------- the choices
def test_changed_closes_the_existing_value_at_the_incoming_start(store):
    c = employer_conflict(store)
    done = store.conflicts.resolve(c.id, "changed", by="ines", reason="she switched jobs")
    assert (done.state, done.resolution, done.resolved_by) == ("resolved", "changed", "ines")
    assert objects_at(store, SUBJECT, EMPLOYER, day(10)) == ["Acme Robotics"]
    assert objects_at(store, SUBJECT, EMPLOYER, day(25)) == ["Globex"]
    assert current_spans(store) == [("Acme Robotics", "global", day(1), day(20)),
                                    ("Globex", "global", day(20), None)]
    history = store.facts.history(SUBJECT, EMPLOYER)
    original = next(f for f in history if f.object == "Acme Robotics" and f.copy_of is None)
    assert original.retire_reason == "superseded"  # kept as history, not "corrected"
    assert not any(f.retire_reason == "corrected" for f in history)
    cand = store.review.get(c.claim_id)
    assert cand.state == "approved" and cand.decided_by == "ines"
    # the JSON status of the old value on day 10 is active: it was true then
    old = store.facts.as_json(store.facts.as_of(SUBJECT, EMPLOYER, valid_at=day(10), known_at=LATEST),
                           at=day(10))
    assert [d["status"] for d in old] == ["active"]
    assert store.audit.verify().ok


def test_incoming_still_means_the_existing_value_was_wrong(store):
    c = employer_conflict(store)
    store.conflicts.resolve(c.id, "incoming", by="ines")
    assert objects_at(store, SUBJECT, EMPLOYER, day(10)) == ["Globex"]
    assert current_spans(store) == [("Globex", "global", day(1), None)]
    acme = next(f for f in store.facts.history(SUBJECT, EMPLOYER) if f.object == "Acme Robotics")
    assert acme.retire_reason == "corrected"


def test_a_raise_resolved_as_a_change_is_not_backdated(store):
    c = budget_conflict(store)
    store.conflicts.resolve(c.id, "changed", by="ines")
    before = store.facts.as_of("project:kitchen", "budget_limit", valid_at=day(10), known_at=LATEST)
    after = store.facts.as_of("project:kitchen", "budget_limit", valid_at=day(16), known_at=LATEST)
    assert [f.value for f in before] == [{"amount": 8000, "currency": "GBP"}]
    assert [f.value for f in after] == [{"amount": 9500, "currency": "GBP"}]


def test_changed_with_an_earlier_start_is_a_backfill_before_a_stated_start(store):
    """Omar moved to Porto on day 10 (a stated start); a line imported later
    says Lisbon from day 2, with no change signal. As a change, Lisbon held
    until Porto began, and Porto is never retired."""
    store.facts.add(claim("user:omar", "lives_in", "Porto", at=day(11), turn=1, valid_from=day(10)))
    store.facts.add(claim("user:omar", "lives_in", "Lisbon", at=day(12), turn=2, valid_from=day(2)))
    (c,) = store.conflicts.list()
    [preview] = [p for p in (choice.to_dict() for choice in store.conflicts.preview(c.id)) if p["keep"] == "changed"]
    assert preview["plan"] == "backfill" and preview["retired"] == []
    store.conflicts.resolve(c.id, "changed", by="ines")
    assert current_spans(store, "user:omar", "lives_in") == [
        ("Lisbon", "global", day(2), day(10)), ("Porto", "global", day(10), None)]
    assert all(f.retired_at is None for f in store.facts.history("user:omar", "lives_in"))


def test_changed_with_an_earlier_start_than_a_heard_value_starts_right_after_it(store):
    """Porto was only heard on day 10 ("I live in Porto"): it held then, so a
    change to Lisbon stated from day 2 and told later cannot have happened on
    day 2; as a change it starts right after day 10 (clamped) and Lisbon is
    current (docs/DESIGN.md §2.2, evidence bounds a stated start)."""
    store.facts.add(claim("user:omar", "lives_in", "Porto", at=day(10), turn=1))
    store.facts.add(claim("user:omar", "lives_in", "Lisbon", at=day(12), turn=2, valid_from=day(2)))
    (c,) = store.conflicts.list()
    [preview] = [p for p in (choice.to_dict() for choice in store.conflicts.preview(c.id)) if p["keep"] == "changed"]
    assert [r["reason"] for r in preview["retired"]] == ["superseded"]
    store.conflicts.resolve(c.id, "changed", by="ines")
    assert objects_at(store, "user:omar", "lives_in", day(20)) == ["Lisbon"]
    assert objects_at(store, "user:omar", "lives_in", day(10)) == ["Porto"]
    promised = [(s["object"], parse_time_us(s["valid_from"])) for s in preview["timeline"]]
    spans = sorted(current_spans(store, "user:omar", "lives_in"), key=lambda s: s[2])
    assert [(o, f) for o, _, f, _ in spans] == promised == [("Porto", day(10)),
                                                           ("Lisbon", day(10) + 1)]
    [lisbon] = [f for f in store.facts.current("user:omar", "lives_in") if f.object == "Lisbon"]
    assert lisbon.start == "clamped"


@pytest.mark.parametrize("told", [(2, 3), (-8, -7)], ids=["told-after", "told-before"])
def test_changed_at_the_instant_the_existing_value_starts_is_refused(store, told):
    """Two values stated to start at one instant (told after it, or before it
    as plans): a change "from then" makes no sense (what was said of the one
    only says it began then, as the other is said to); the preview says so and
    the resolution is refused, nothing written; a correction still works."""
    start = day(9)
    store.facts.add(claim(SUBJECT, EMPLOYER, "Acme Robotics", at=start + told[0] * DAY_US, turn=1,
                    valid_from=start))
    store.facts.add(claim(SUBJECT, EMPLOYER, "Globex", at=start + told[1] * DAY_US, turn=2,
                    valid_from=start))
    (c,) = store.conflicts.list()
    [preview] = [p for p in (choice.to_dict() for choice in store.conflicts.preview(c.id)) if p["keep"] == "changed"]
    assert preview["error"] and preview["text"].startswith("not possible now")
    with pytest.raises(InvalidInput, match="start when the existing one does"):
        store.conflicts.resolve(c.id, "changed", by="ines")
    assert store.conflicts.get(c.id).state == "open"
    store.conflicts.resolve(c.id, "incoming", by="ines")  # a correction still works


def test_changed_on_a_polarity_conflict_turns_the_polarity_from_then_on(store):
    store.facts.add(claim("user:dana", "diet", "pork", at=day(1), turn=1))
    store.facts.add(claim("user:dana", "diet", "pork", at=day(30), turn=2, polarity="negative"))
    (c,) = store.conflicts.list()
    assert c.kind == "polarity"
    store.conflicts.resolve(c.id, "changed", by="ines")
    now = sorted((f.polarity, f.valid_from, f.valid_to) for f in store.facts.current("user:dana", "diet"))
    assert now == [("negative", day(30), None), ("positive", day(1), day(30))]


def test_opposite_predicates_resolved_as_a_change_and_undone(store):
    """Liking olives, then (no change word) disliking them: a polarity conflict
    across likes/dislikes. As a change, the like ends where the dislike
    begins; the preview names the predicates; the undo restores both sides."""
    store.facts.add(claim(SUBJECT, "likes", "olives", at=day(1), turn=1))
    store.facts.add(claim(SUBJECT, "dislikes", "olives", at=day(30), turn=2))
    (c,) = store.conflicts.list()
    assert c.kind == "polarity" and c.predicate == "dislikes"
    before = timeline(store, SUBJECT, "likes") + timeline(store, SUBJECT, "dislikes")
    text = {p["keep"]: p["text"] for p in (choice.to_dict() for choice in store.conflicts.preview(c.id))}
    assert text["changed"].startswith("likes olives 2026-03-01 10:00 → 2026-03-30 10:00, "
                                      "dislikes olives from 2026-03-30 10:00")
    store.conflicts.resolve(c.id, "changed", by="ines")
    assert objects_at(store, SUBJECT, "likes", day(10)) == ["olives"]
    assert objects_at(store, SUBJECT, "likes", day(40)) == []
    assert objects_at(store, SUBJECT, "dislikes", day(40)) == ["olives"]
    store.conflicts.undo(c.id, by="ines")
    assert timeline(store, SUBJECT, "likes") + timeline(store, SUBJECT, "dislikes") == before
    assert store.conflicts.get(c.id).state == "open" and store.audit.verify().ok


def test_existing_both_and_neither(store):
    c = employer_conflict(store)
    store.conflicts.resolve(c.id, "existing", by="ines")
    assert current_spans(store) == [("Acme Robotics", "global", day(1), None)]
    assert store.review.get(c.claim_id).state == "rejected"
    store.conflicts.undo(c.id, by="ines")
    store.conflicts.resolve(c.id, "both", by="ines", scope="session:contract")
    assert current_spans(store) == [("Acme Robotics", "global", day(1), None),
                                    ("Globex", "session:contract", day(20), None)]
    store.conflicts.undo(c.id, by="ines")
    store.conflicts.resolve(c.id, "neither", by="ines", reason="neither is her employer")
    assert current_spans(store) == []
    assert store.audit.verify().ok


def test_unknown_choice_names_changed(store):
    c = employer_conflict(store)
    with pytest.raises(InvalidInput, match="changed"):
        store.conflicts.resolve(c.id, "evolved", by="ines")


# ------------------------------------------------------------- the preview
@pytest.mark.parametrize("keep", ["existing", "incoming", "changed", "neither"])
def test_the_preview_is_what_the_resolution_does(store, keep):
    """The dry run the app and ``conflicts show`` display is the timeline the
    resolution then leaves, row for row, and names what it retires and why."""
    c = employer_conflict(store)
    preview = {p["keep"]: p for p in (choice.to_dict() for choice in store.conflicts.preview(c.id))}
    assert list(preview) == ["existing", "incoming", "changed", "both", "neither"]
    shown = preview[keep]
    store.conflicts.resolve(c.id, keep, by="ines")
    after = sorted((f.object, f.valid_from, f.valid_to) for f in store.facts.current(SUBJECT, EMPLOYER))
    promised = sorted((s["object"], parse_time_us(s["valid_from"]),
                       None if s["valid_to"] is None else parse_time_us(s["valid_to"]))
                      for s in shown["timeline"])
    assert promised == after
    retired_now = {f.id: f.retire_reason for f in store.facts.history(SUBJECT, EMPLOYER)
                   if f.retired_at is not None}
    assert {r["fact_id"]: r["reason"] for r in shown["retired"]} == retired_now


def test_preview_texts_say_what_happens_to_each_value(store):
    c = employer_conflict(store)
    text = {p["keep"]: p["text"] for p in (choice.to_dict() for choice in store.conflicts.preview(c.id))}
    assert text["changed"].startswith("Acme Robotics 2026-03-01 10:00 → 2026-03-20 10:00, "
                                      "Globex from 2026-03-20 10:00")
    assert "superseded" in text["changed"]
    assert text["incoming"].startswith("Globex from 2026-03-01 10:00")
    assert "Acme Robotics marked corrected" in text["incoming"]
    assert "Globex rejected" in text["existing"]
    assert text["neither"].startswith("no value") and "retracted" in text["neither"]
    assert "the scope you name" in text["both"]
    store.conflicts.resolve(c.id, "existing", by="ines")
    with pytest.raises(AlreadyDecided):
        store.conflicts.preview(c.id)
    with pytest.raises(ConflictNotFound):
        store.conflicts.preview(999)


def test_the_pure_preview_writes_nothing_and_reports_an_impossible_choice():
    class Row:
        def __init__(self, id, obj, start, scope="global"):
            self.id, self.object, self.valid_from, self.valid_to = id, obj, start, None
            self.value_json, self.polarity, self.single_valued, self.scope = (
                None, "positive", True, scope)
            self.start_stated, self.predicate = False, "lives_in"
            self.start_kind, self.start_latest, self.claim_id = "heard", None, id

    rows = [Row(1, "Leeds", 0), Row(2, "York", 0, scope="session:trip")]
    incoming = Statement("Hull", None, "positive", "global", True, 50, None, None, 0.9, "user_explicit")
    found = {o.keep: o for o in gates.outlooks(incoming, rows, conflict_scope="global", fact_ids=[1])}
    assert set(found) == set(Resolution)
    assert found[Resolution.CHANGED].kind == "evolution"
    assert [(s.object, s.start, s.end, s.origin) for s in found[Resolution.CHANGED].timeline] == [
        ("Leeds", 0, 50, "history"), ("Hull", 50, None, "incoming")]
    assert found[Resolution.INCOMING].retired[0].reason == "corrected"
    assert found[Resolution.NEITHER].outcome == Outcome.REJECTED
    assert [r.fact_id for r in found[Resolution.NEITHER].retired] == [1]
    taken = gates.outlook(Resolution.BOTH, incoming, rows, conflict_scope="global", fact_ids=[1],
                          scope="session:trip")
    assert taken.error is not None and "already holds" in taken.error
    assert taken.describe(str).startswith("not possible now")


def test_pure_resolve_changed_and_neither():
    class Row(NamedTuple):
        id: int
        object: str
        valid_from: int
        valid_to: int | None = None
        value_json: str | None = None
        polarity: str = "positive"
        single_valued: bool = True
        scope: str = "global"
        start_stated: bool = False
        predicate: str = "lives_in"
        start_kind: str | None = "heard"
        start_latest: int | None = None
        claim_id: int = 0

    rows = [Row(3, "Leeds", 0), Row(4, "York", 0, scope="session:trip")]
    hull = Statement("Hull", None, "positive", "global", True, 50, None, None, 0.9, "user_explicit")
    changed, taken = gates.resolve(Resolution.CHANGED, hull, rows, conflict_id=5,
                                   conflict_scope="global", by="rita")
    assert taken.change == "evolution" and changed.plan.kind == "evolution"
    assert changed.steps[0].note == "conflict 5 kept changed by rita"
    assert [p[:2] for p in changed.plan.insert] == [(0, 50), (50, None)]
    neither, _ = gates.resolve(Resolution.NEITHER, hull, rows, conflict_id=5,
                               conflict_scope="global", by="rita", fact_ids=[3, 99])
    assert neither.outcome == Outcome.REJECTED
    assert neither.plan.kind == "retract" and [r.id for r in neither.plan.retire] == [3]
    assert gates.reopened(5, "changed", "rita").result == "reopened"


def test_retire_reasons_agree_with_the_writer():
    """A preview says what the writer will stamp: both read one table."""
    from memdesk import writer

    assert writer.RETIRED_AS is gates.RETIRED_AS
    assert {k: gates.RETIRED_AS[k] for k in ("evolution", "backfill", "correction", "retract")} == {
        "evolution": "superseded", "backfill": "superseded", "correction": "corrected",
        "retract": "retracted"}


# -------------------------------------------------------------------- undo
@pytest.mark.parametrize("keep", ["existing", "incoming", "changed", "both", "neither"])
def test_undo_restores_the_timeline_exactly(store, keep):
    c = employer_conflict(store)
    claim_before = store.review.get(c.claim_id)
    before = timeline(store)
    store.conflicts.resolve(c.id, keep, by="ines", reason="looked into it",
                           scope="session:contract" if keep == "both" else None)
    resolved_at = store.conflicts.get(c.id).resolved_at
    during = timeline(store)
    out = store.conflicts.undo(c.id, by="ines")
    assert out.undone == keep
    assert timeline(store) == before
    if keep == "both":  # the other scope is empty again
        assert [f for f in store.facts.current(SUBJECT, EMPLOYER) if f.scope != "global"] == []
    # what was believed while the resolution stood is still replayable
    assert timeline(store, known_at=resolved_at) == during
    again = store.conflicts.get(c.id)
    assert (again.state, again.resolution, again.resolved_by, again.resolved_at) == (
        "open", None, None, None)
    assert [f["object"] for f in again.facts] == ["Acme Robotics", "Globex"]
    assert all(f["status"] in ("active", "pending") for f in again.facts)
    cand = store.review.get(c.claim_id)
    assert (cand.state, cand.scope, cand.fact_id, cand.decided_by, cand.decided_at,
            cand.decision_reason) == (claim_before.state, claim_before.scope, None,
                                      claim_before.decided_by, claim_before.decided_at,
                                      claim_before.decision_reason)
    # nothing was deleted: every row the resolution wrote is still there, retired
    for f in store.facts.history(SUBJECT, EMPLOYER):
        if f.recorded_at == resolved_at:
            assert f.retire_reason == "retracted" and "undo" in (f.retire_note or "")
    assert store.audit.verify().ok
    # it can be resolved again, another way
    store.conflicts.resolve(c.id, "changed" if keep != "changed" else "incoming", by="ines")
    assert store.audit.verify().ok


@pytest.mark.parametrize("keep", ["existing", "incoming", "changed", "both", "neither"])
def test_undo_of_a_budget_resolution(store, keep):
    c = budget_conflict(store)
    subject, predicate = "project:kitchen", "budget_limit"
    before = timeline(store, subject, predicate)
    store.conflicts.resolve(c.id, keep, by="ines", scope="session:quote" if keep == "both" else None)
    store.conflicts.undo(c.id, by="ines")
    assert timeline(store, subject, predicate) == before
    assert store.audit.verify().ok


def test_one_audit_entry_per_undo_and_the_audit_shows_both(store):
    from memdesk.db.tables import AUDIT
    from sqlalchemy import select

    c = employer_conflict(store)
    store.conflicts.resolve(c.id, "changed", by="ines")
    with store.engine.connect() as conn:
        count = len(conn.execute(select(AUDIT.c.id)).all())
    store.conflicts.undo(c.id, by="jo", reason="resolved the wrong conflict")
    with store.engine.connect() as conn:
        rows = conn.execute(select(AUDIT.c.action, AUDIT.c.actor, AUDIT.c.reason)
                            .order_by(AUDIT.c.id)).all()
    assert len(rows) == count + 1
    assert tuple(rows[-1]) == ("conflict.reopened", "jo", "resolved the wrong conflict")
    steps = [s.summary for s in store.audit.of(SUBJECT, EMPLOYER, "Globex").chain if s.step == "review"]
    assert any("resolved: kept changed" in s for s in steps)
    assert any("reopened: kept changed undone" in s for s in steps)
    chain = store.audit.of(SUBJECT, EMPLOYER, "Globex").chain
    recorded = next(s for s in chain if s.step == "gates" and "resolved" in s.summary)
    assert [(g["gate"], g["result"]) for g in recorded.detail["gates"]][-3:] == [
        ("conflict", "resolved"), ("conflict", "none"), ("conflict", "reopened")]


def test_undo_then_neither_retracts_the_value_that_holds_again(store):
    c = employer_conflict(store)
    store.conflicts.resolve(c.id, "changed", by="ines")
    store.conflicts.undo(c.id, by="ines")
    reopened = store.conflicts.get(c.id)
    assert reopened.fact_ids != c.fact_ids  # it names the copy that holds again
    store.conflicts.resolve(c.id, "neither", by="ines")
    assert store.facts.current(SUBJECT, EMPLOYER) == []


def test_undo_of_a_resolution_of_an_approval_restores_the_approval(store):
    store.facts.add(claim(SUBJECT, EMPLOYER, "Acme Robotics", at=day(1), turn=1))
    store.facts.add(claim(SUBJECT, EMPLOYER, "Globex", at=day(20), turn=2, confidence=0.5))
    (cand,) = store.review.list()
    store.review.approve(cand.id, by="kim", note="she said so")
    (c,) = store.conflicts.list()
    store.conflicts.resolve(c.id, "changed", by="ines")
    store.conflicts.undo(c.id, by="ines")
    back = store.review.get(cand.id)
    assert (back.state, back.decided_by, back.decision_reason) == ("conflict", "kim", "she said so")
    # and the approval itself can now be undone: the conflict is withdrawn
    assert store.review.undo(cand.id, by="kim").withdrawn_conflict == c.id
    assert store.review.get(cand.id).state == "pending"


# ------------------------------------------------------------ refusals
def test_undo_is_refused_when_a_later_change_superseded_what_it_asserted(store):
    c = employer_conflict(store)
    store.conflicts.resolve(c.id, "changed", by="ines")
    store.facts.add(claim(SUBJECT, EMPLOYER, "Initech", at=day(70), turn=3, change="evolution"))
    before = timeline(store)
    with pytest.raises(InvalidInput, match="changed since|superseded since"):
        store.conflicts.undo(c.id, by="ines")
    assert timeline(store) == before and store.conflicts.get(c.id).state == "resolved"


def test_undo_is_refused_when_a_later_value_took_the_retracted_place(store):
    c = employer_conflict(store)
    store.conflicts.resolve(c.id, "neither", by="ines")
    store.facts.add(claim(SUBJECT, EMPLOYER, "Initech", at=day(70), turn=3, valid_from=day(1)))
    with pytest.raises(InvalidInput, match="written since"):
        store.conflicts.undo(c.id, by="ines")
    assert [f.object for f in store.facts.current(SUBJECT, EMPLOYER)] == ["Initech"]
    assert store.audit.verify().ok


def test_undo_is_refused_when_a_later_change_retired_the_kept_value(store):
    c = employer_conflict(store)
    store.conflicts.resolve(c.id, "existing", by="ines")
    store.facts.add(claim(SUBJECT, EMPLOYER, "Initech", at=day(70), turn=3, change="evolution"))
    with pytest.raises(InvalidInput, match="of the conflict was superseded since"):
        store.conflicts.undo(c.id, by="ines")


def test_undo_errors(store):
    c = employer_conflict(store)
    with pytest.raises(AlreadyDecided, match="open"):
        store.conflicts.undo(c.id, by="ines")
    with pytest.raises(ConflictNotFound):
        store.conflicts.undo(999, by="ines")
    store.conflicts.resolve(c.id, "existing", by="ines")
    with pytest.raises(InvalidInput, match="name"):
        store.conflicts.undo(c.id, by=" ")
    store.conflicts.undo(c.id, by="ines")
    with pytest.raises(AlreadyDecided):
        store.conflicts.undo(c.id, by="ines")


# --------------------------------------------------------------------- CLI
def test_cli_resolve_changed_show_and_undo(store_url, clock, capsys):
    with Store.open(store_url, clock=clock) as store:
        c = employer_conflict(store)
    db = ["--db", store_url]
    assert main([*db, "conflicts", "show", str(c.id), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert [p["keep"] for p in shown["choices"]] == ["existing", "incoming", "changed", "both",
                                                     "neither"]
    assert main([*db, "conflicts", "show", str(c.id)]) == 0
    text = capsys.readouterr().out
    assert "changed" in text and "marked corrected" in text
    assert main([*db, "facts", "--subject", SUBJECT, "--predicate", EMPLOYER, "--json"]) == 0
    capsys.readouterr()
    assert main([*db, "conflicts", "resolve", str(c.id), "--keep", "changed", "--by", "ines",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["resolution"] == "changed"
    assert main([*db, "facts", "--subject", SUBJECT, "--predicate", EMPLOYER, "--all",
                 "--json"]) == 0
    facts = json.loads(capsys.readouterr().out)
    statuses = sorted((f["object"], f["status"]) for f in facts)
    assert ("Acme Robotics", "superseded") in statuses and ("Globex", "active") in statuses
    assert not any(s == "corrected" for _, s in statuses)
    assert main([*db, "conflicts", "undo", str(c.id), "--by", "ines", "--json"]) == 0
    undone = json.loads(capsys.readouterr().out)
    assert undone["undone"] == "changed" and undone["conflict"]["state"] == "open"
    assert main([*db, "conflicts", "undo", str(c.id), "--by", "ines"]) == 1
    assert "no resolution to undo" in capsys.readouterr().err
    assert main([*db, "verify"]) == 0


def test_cli_help_explains_each_choice(capsys):
    with pytest.raises(SystemExit):
        main(["conflicts", "resolve", "--help"])
    text = capsys.readouterr().out
    for keep in ("existing", "changed", "incoming", "both", "neither"):
        assert f"\n  {keep}" in text
    assert "closed at the" in text and "superseded" in text and "corrected" in text
    assert "conflicts undo" in text
