"""What a new decision replaces (``core.replaced``): the pure rules over rows, and an ingest that
reverses a decision and returns to it, with its history kept and a rerun adding nothing."""

from __future__ import annotations

import json

from memdesk.claims import ClaimInput
from memdesk.pipeline import SourceRef
from memdesk.records import Fact
from memdesk.replaced import replaced

SUBJECT = "user:ana"
T1, T2, T3 = 1_000_000, 2_000_000, 3_000_000


def _row(i: int, obj: str, start: int, end: int | None = None, polarity: str = "positive") -> Fact:
    values = dict.fromkeys(Fact._fields)
    values.update(id=i, subject=SUBJECT, predicate="decision", object=obj, polarity=polarity, scope="global",
                  valid_from=start, valid_to=end, recorded_at=start, claim_id=i, confidence=0.9, known_from=start)
    return Fact(**values)


def _claim(obj: str, change: str | None = None, polarity: str = "positive") -> ClaimInput:
    source = SourceRef("s", 3, "text", T3, speaker="user", kind="user_explicit")
    return ClaimInput(SUBJECT, "decision", obj, source, T3, polarity=polarity, change=change, confidence=0.9,
                      extractor="rules@1")


def _ended(out: list[ClaimInput]) -> set[str]:
    return {c.object for c in out if c.polarity == "negative"}


def test_a_decision_told_as_a_change_ends_a_held_one_the_turn_names():
    rows = [_row(1, "oak table", T1), _row(2, "caterer Bongi", T1)]
    out = replaced("the oak table is too big for the hall, we switched to the pine one", [
        _claim("pine one", change="evolution")], lambda s: rows)
    assert _ended(out) == {"oak table"}  # the caterer, not named, holds on
    ended = next(c for c in out if c.polarity == "negative")
    assert (ended.subject, ended.valid_from, ended.change) == (SUBJECT, T3, "evolution")


def test_a_chinese_decision_held_with_its_verb_is_named_by_its_option():
    """报瑜伽课 held; "瑜伽课上了两周 还是改报游泳课": the turn names the option, not the verb before it."""
    rows = [_row(1, "报瑜伽课", T1)]
    out = replaced("瑜伽课上了两周 太累了 还是改报游泳课", [_claim("报游泳课", change="evolution")],
                   lambda s: rows)
    assert _ended(out) == {"报瑜伽课"}


def test_a_decision_ends_when_the_turn_says_so_whatever_time_the_new_one_is_for():
    """The new decision said for a month of its own ("every weekend in September") still ends the old one
    from the turn, not from that month."""
    rows = [_row(1, "online course", T1)]
    new = _claim("weekend class", change="evolution").with_changes(valid_from=T1 - 500, start_stated=True)
    out = replaced("the online course was useless, switching to the weekend class in september", [new],
                   lambda s: rows)
    ended = next(c for c in out if c.polarity == "negative")
    assert (ended.object, ended.valid_from, ended.start_stated) == ("online course", T3, False)


def test_nothing_is_ended_by_a_decision_not_told_as_a_change_nor_by_a_value_within_the_new_one():
    rows = [_row(1, "oak table", T1), _row(2, "quartz", T1)]
    assert _ended(replaced("oak table is great, and the pine one for the porch", [_claim("pine one")],
                           lambda s: rows)) == set()
    assert _ended(replaced("ok white quartz it is, changed it", [_claim("white quartz", change="evolution")],
                           lambda s: rows)) == set()


def test_a_value_named_only_inside_a_longer_word_is_not_named():
    rows = [_row(1, "uni", T1)]
    assert _ended(replaced("the community college instead", [_claim("community college", change="evolution")],
                           lambda s: rows)) == set()


def test_a_return_to_a_value_replaced_ends_what_replaced_it_and_is_itself_a_change():
    """Oak at T1, replaced by pine at T2 ("pine instead of oak": oak's row closed at T2 where its
    negative row begins); the caterer decided at T2 in another turn, a chair at T1: only pine ends."""
    rows = [_row(1, "oak table", T1, end=T2), _row(2, "oak table", T2, polarity="negative"),
            _row(3, "pine table", T2), _row(4, "chairs", T1), _row(5, "caterer", T2 + 1)]
    out = replaced("let's do the oak table after all", [_claim("oak table")], lambda s: rows)
    assert _ended(out) == {"pine table"}
    assert next(c for c in out if c.object == "oak table").change == "evolution"


def test_rows_told_after_the_turn_are_not_what_it_replaces():
    """A turn read again (a rerun) meets rows told after it: a return it could not have meant."""
    rows = [_row(1, "oak table", T1, end=T3 + 5), _row(2, "oak table", T3 + 5, polarity="negative"),
            _row(3, "pine table", T3 + 5)]
    out = replaced("sorry, scratch that: the oak table", [_claim("oak table", change="correction")], lambda s: rows)
    assert _ended(out) == set()


def test_a_value_the_turn_claims_itself_is_never_ended():
    rows = [_row(1, "oak table", T1)]
    out = replaced("oak table and pine table, changed my mind", [
        _claim("pine table", change="evolution"), _claim("oak table")], lambda s: rows)
    assert _ended(out) == set()


def _lines(*texts: str) -> str:
    return "".join(json.dumps({"session": "kitchen", "turn": i + 1, "speaker": "user",
                               "time": f"2026-03-0{i + 1}T10:00:00+00:00", "text": t, "user": "ana"},
                              ensure_ascii=False) + "\n" for i, t in enumerate(texts))


def test_a_decision_replaced_and_returned_to_is_current_again_with_its_history_kept(store, tmp_path):
    path = tmp_path / "kitchen.jsonl"
    path.write_text(_lines(
        "we decided on the oak table for the kitchen",
        "the oak table is too dark in there, we're going with the pine table instead",
        "nah the pine table scratches. we're going back to the oak table like we first said"), "utf-8")
    store.facts.ingest_file(path)
    current = {(f.object, f.polarity) for f in store.facts.current(SUBJECT)
               if f.predicate == "decision" and f.valid_to is None}  # holding now
    assert ("oak table", "positive") in current and ("pine table", "positive") not in current
    assert ("pine table", "negative") in current
    history = [f for f in store.facts.history(SUBJECT) if f.predicate == "decision" and f.object == "pine table"]
    assert any(f.polarity == "positive" and f.valid_to is not None for f in history)  # it held, then ended
    again = store.facts.ingest_file(path)
    assert again.fact_rows == 0
