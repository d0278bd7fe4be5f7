"""A role told after the employer changed is the new job's (``core.new_job``): the pure rule over rows,
and an ingest where a new job's role, given in answer to the assistant's question, replaces the old role
instead of opening a conflict, with a rerun adding nothing."""

from __future__ import annotations

import json

from memdesk.claims import ClaimInput
from memdesk.new_job import role_of_new_job
from memdesk.pipeline import SourceRef
from memdesk.records import Fact

SUBJECT = "user:ana"
T1, T2, T3 = 1_000_000, 2_000_000, 3_000_000


def _row(i: int, predicate: str, obj: str, start: int, end: int | None = None, told: int | None = None) -> Fact:
    values = dict.fromkeys(Fact._fields)
    values.update(id=i, subject=SUBJECT, predicate=predicate, object=obj, polarity="positive", scope="global",
                  valid_from=start, valid_to=end, recorded_at=told or start, claim_id=i, confidence=0.9,
                  known_from=told or start)
    return Fact(**values)


def _role(obj: str, change: str | None = None) -> ClaimInput:
    source = SourceRef("s", 3, "text", T3, speaker="user", kind="user_explicit")
    return ClaimInput(SUBJECT, "role", obj, source, T3, change=change, confidence=0.9, extractor="rules@1")


def _held(rows: list[Fact]):
    return lambda subject, predicate: [r for r in rows if r.subject == subject and r.predicate == predicate]


CHANGED = [_row(1, "role", "barista", T1), _row(2, "works_at", "Ember Roasters", T1, T2),
           _row(3, "works_at", "Harbourline", T2)]


def test_a_role_told_after_the_employer_changed_is_an_evolution():
    out = role_of_new_job([_role("ops analyst")], _held(CHANGED))
    assert out[0].change == "evolution"


def test_a_role_stays_a_contradiction_when_the_employer_never_changed_or_changed_before_it():
    never = [_row(1, "role", "barista", T1), _row(2, "works_at", "Ember Roasters", T1)]
    assert role_of_new_job([_role("ops analyst")], _held(never))[0].change is None
    # the employer changed, then the role was told for the new job: another role now contradicts it
    before = [_row(2, "works_at", "Ember Roasters", T1 - 10, T1), _row(3, "works_at", "Harbourline", T1),
              _row(1, "role", "ops analyst", T1, told=T2)]
    assert role_of_new_job([_role("barista")], _held(before))[0].change is None


def test_the_held_role_again_and_rows_told_after_the_turn_are_left_alone():
    assert role_of_new_job([_role("barista")], _held(CHANGED))[0].change is None
    later = [_row(1, "role", "barista", T1), _row(2, "works_at", "Ember Roasters", T1, T3 + 5),
             _row(3, "works_at", "Harbourline", T3 + 5)]
    assert role_of_new_job([_role("ops analyst")], _held(later))[0].change is None


def test_a_new_jobs_role_given_in_answer_replaces_the_old_one_without_a_conflict(store, tmp_path):
    turns = [("user", "I'm a barista at Ember Roasters"),
             ("user", "big news, I start at Harbourline on monday, handed my notice in"),
             ("assistant", "Congratulations! What's the new role?"),
             ("user", "ops analyst, mostly spreadsheets")]
    path = tmp_path / "job.jsonl"
    path.write_text("".join(json.dumps({"session": "s1" if i == 0 else "s2", "turn": i + 1, "speaker": who,
                                        "time": f"2026-03-0{i + 1}T10:00:00+00:00", "text": text, "user": "ana"})
                            + "\n" for i, (who, text) in enumerate(turns)), "utf-8")
    store.facts.ingest_file(path)
    roles = {f.object for f in store.facts.current(SUBJECT) if f.predicate == "role" and f.valid_to is None}
    assert roles == {"ops analyst"}
    assert not store.conflicts.list("open")
    history = [f for f in store.facts.history(SUBJECT) if f.predicate == "role" and f.object == "barista"]
    assert history and all(f.valid_to is not None for f in history if f.retired_at is None)  # it held, then ended
    assert store.facts.ingest_file(path).fact_rows == 0
