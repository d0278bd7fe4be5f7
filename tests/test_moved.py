"""Which held item a moved date moves (``core.moved``): the pure rules over rows, and ingests where an
item restated for another day is another value of it, a move told in a later session closes the day it
held, and a rerun adds nothing."""

from __future__ import annotations

import json

from memdesk.claims import ClaimInput
from memdesk.moved import moved
from memdesk.pipeline import SourceRef
from memdesk.records import Fact

SUBJECT = "user:tomas"
T1, T3 = 1_000_000, 3_000_000
AHEAD = 9_000_000  # a due day after the turn


def _row(i: int, predicate: str, obj: str, told: int = T1, due: int | None = AHEAD,
         end: int | None = None) -> Fact:
    values = dict.fromkeys(Fact._fields)
    values.update(id=i, subject=SUBJECT, predicate=predicate, object=obj, polarity="positive", scope="global",
                  valid_from=told, valid_to=end, recorded_at=told, claim_id=i, confidence=0.9, known_from=told,
                  event_start=due)
    return Fact(**values)


def _claim(obj: str, predicate: str = "deadline", change: str | None = "evolution") -> ClaimInput:
    source = SourceRef("s", 3, "text", T3, speaker="user", kind="user_explicit")
    return ClaimInput(SUBJECT, predicate, obj, source, T3, value={"due": "2026-04-15"}, change=change,
                      confidence=0.9, extractor="rules@1", event_start=AHEAD + 1)


def _held(rows: list[Fact]):
    return lambda subject, predicate: [r for r in rows if r.subject == subject and r.predicate == predicate]


def test_an_unnamed_move_moves_the_item_the_turn_names():
    rows = [_row(1, "deadline", "house insurance"), _row(2, "todo", "call the plumber", told=T1 + 5)]
    out = moved("also that insurance thing, they pushed the deadline to april 15", [_claim("")], _held(rows))
    assert [(c.predicate, c.object, c.value) for c in out] == [("deadline", "house insurance", {"due": "2026-04-15"})]


def test_an_unnamed_move_naming_nothing_moves_the_item_told_last_whose_day_is_still_ahead():
    rows = [_row(1, "deadline", "grant report"), _row(2, "plan", "visit the farm", told=T1 + 5),
            _row(3, "todo", "renew the van tax", told=T1 + 9, due=T1 + 100)]  # its day has passed
    out = moved("ugh, it got pushed to april 15", [_claim("")], _held(rows))
    assert [(c.predicate, c.object) for c in out] == [("plan", "visit the farm")]


def test_an_unnamed_move_in_a_turn_naming_another_day_of_its_own_is_no_guess():
    """The turn spoke of an item of its own (due the 30th), which was not read: no held item is guessed."""
    rows = [_row(1, "deadline", "licence renewal")]
    out = moved("the forms are due back by the 30th. wait no, they moved it up to the 24th", [_claim("")],
                _held(rows))
    assert [(c.object, c.confidence <= 0.5) for c in out] == [
        ("the forms are due back by the 30th. wait no, they moved it up to the 24th", True)]


def test_an_unnamed_move_with_nothing_held_waits_for_a_reviewer_with_the_turns_words():
    [queued] = moved("it  got pushed to april 15", [_claim("")], _held([]))
    assert (queued.predicate, queued.object, queued.value) == ("deadline", "it got pushed to april 15",
                                                               {"due": "2026-04-15"})
    assert queued.confidence <= 0.5 and queued.change is None


def test_an_item_told_as_a_change_by_part_of_its_words_moves_the_held_item():
    rows = [_row(1, "deadline", "event permit application"), _row(2, "todo", "feature freeze before launch")]
    out = moved("they want the permit application by the 13th now", [_claim("permit application")], _held(rows))
    assert [(c.predicate, c.object) for c in out] == [("deadline", "event permit application")]
    # one word of an item is not the item, nor an item one of whose words the held one says
    for said in ("launch", "event mug playtest launch"):
        assert [c.object for c in moved("the launch slipped", [_claim(said)], _held(rows))] == [said]


def test_claims_not_told_as_a_change_and_rows_told_after_the_turn_are_left_alone():
    rows = [_row(1, "deadline", "event permit application"), _row(2, "deadline", "house insurance", told=T3 + 1)]
    plain = _claim("permit application", change=None)
    assert moved("permit application by the 13th", [plain], _held(rows)) == [plain]
    # told after the turn (a rerun meets what later turns wrote): not what it moved
    assert [c.object for c in moved("that insurance thing got pushed to april 15", [_claim("")],
                                    _held(rows[1:]))] == ["that insurance thing got pushed to april 15"]


def _lines(*turns: tuple[str, str, str]) -> str:
    return "".join(json.dumps({"session": session, "turn": i + 1, "speaker": "user", "time": time, "text": text,
                               "user": "tomas"}, ensure_ascii=False) + "\n"
                   for i, (session, time, text) in enumerate(turns))


def _dated(store, predicate: str) -> list[tuple[str, str | None, bool]]:
    return sorted((f.object, f.value_json, f.valid_to is None) for f in store.facts.history(SUBJECT)
                  if f.predicate == predicate and f.retire_reason is None)


def test_a_move_told_in_a_later_session_closes_the_day_the_item_held(store, tmp_path):
    path = tmp_path / "farm.jsonl"
    path.write_text(_lines(
        ("farm-1", "2026-03-01T10:00:00+00:00", "the tractor insurance is due by march 31"),
        ("farm-2", "2026-03-20T10:00:00+00:00", "agent called about the insurance, they pushed it to april 15")),
        "utf-8")
    store.facts.ingest_file(path)
    assert _dated(store, "deadline") == [("tractor insurance", '{"due":"2026-03-31"}', False),
                                          ("tractor insurance", '{"due":"2026-04-15"}', True)]
    again = store.facts.ingest_file(path)  # a rerun reads the same (it meets the day this move closed)
    assert (again.fact_rows, again.queued, again.conflicts) == (0, 0, 0)


def test_a_todo_restated_for_another_day_is_another_occasion_and_moved_replaces_its_day(store, tmp_path):
    """Said again for the same day it is a mention; for another day without a change (a reminder the day
    before), another occasion of it (catalog values "occasion"), both held; told as moved, the item's own
    day closes. The new day is never lost in a merge, and no conflict opens."""
    path = tmp_path / "todo.jsonl"
    turns = [("t-1", "user", "2026-03-01T10:00:00+00:00", "I need to renew my passport by march 10"),
             ("t-2", "user", "2026-03-04T10:00:00+00:00", "I need to renew my passport by march 10"),
             ("t-2", "assistant", "2026-03-04T10:01:00+00:00", "Noted. Want a reminder the day before?"),
             ("t-2", "user", "2026-03-04T10:02:00+00:00", "yes please"),
             ("t-3", "user", "2026-03-06T10:00:00+00:00", "the passport renewal got pushed to march 20")]
    lines, numbers = [], {}
    for session, speaker, time, text in turns:
        numbers[session] = numbers.get(session, 0) + 1
        lines.append(json.dumps({"session": session, "turn": numbers[session], "speaker": speaker, "time": time,
                                 "text": text, "user": "tomas"}) + "\n")
    path.write_text("".join(lines), "utf-8")
    store.facts.ingest_file(path)
    rows = _dated(store, "todo")
    # the move replaces the item's own day (the latest); the reminder the day before stays
    assert [(o, v) for o, v, current in rows if current] == [("renew my passport", '{"due":"2026-03-09"}'),
                                                              ("renew my passport", '{"due":"2026-03-20"}')]
    assert {v for o, v, current in rows if not current} == {'{"due":"2026-03-10"}'}
    assert store.conflicts.list("all") == []


def _ingest(store, tmp_path, turns: list[tuple[str, str, str, str]], project: str | None = None) -> None:
    lines, numbers = [], {}
    for session, speaker, time, text in turns:
        numbers[session] = numbers.get(session, 0) + 1
        line = {"session": session, "turn": numbers[session], "speaker": speaker, "time": time, "text": text,
                "user": "tomas"}
        if project:
            line["project"] = project
        lines.append(json.dumps(line, ensure_ascii=False) + "\n")
    path = tmp_path / "turns.jsonl"
    path.write_text("".join(lines), "utf-8")
    store.facts.ingest_file(path)


def test_a_reminder_accepted_before_the_day_keeps_the_item_on_its_own_day(store, tmp_path):
    """The assistant restates the item with its day and offers a reminder before it; the yes holds both."""
    _ingest(store, tmp_path, [
        ("shop-1", "user", "2026-03-15T15:12:00+08:00", "还没 这个月底前得把执照申请交了"),
        ("shop-1", "assistant", "2026-03-15T15:13:00+08:00", "好，3月31号前交营业执照申请。要不要我28号提醒一下？"),
        ("shop-1", "user", "2026-03-15T15:14:00+08:00", "好啊")], project="tea")
    days = {(f.predicate, f.value_json) for f in store.facts.history("project:tea")
            if f.object == "交营业执照申请" and f.valid_to is None}
    assert ("todo", '{"due":"2026-03-28"}') in days  # the reminder
    assert any(v == '{"due":"2026-03-31"}' for _, v in days)  # the item, on its own day


def test_a_move_asked_waits_for_a_reviewer(store, tmp_path):
    _ingest(store, tmp_path, [
        ("club-1", "user", "2026-06-01T10:00:00+00:00", "the first supper club is on saturday 15 august"),
        ("club-2", "user", "2026-06-11T20:20:00+00:00", "ugh the chef is away. move it to the 22nd?")])
    rows = [f for f in store.facts.history(SUBJECT) if f.predicate in ("plan", "deadline", "todo")]
    assert rows and all(f.valid_to is None for f in rows)  # nothing moved
    assert any(c.source.session == "club-2" for c in store.review.list())


def test_a_move_replaces_the_items_own_day_and_leaves_its_reminder(store, tmp_path):
    """The reminder the day before and the item's day are two occasions of one to-do; moved, the item's day
    (the latest) is replaced, the reminder stays."""
    _ingest(store, tmp_path, [
        ("p-1", "user", "2026-03-01T10:00:00+00:00", "I need to renew my passport by march 10"),
        ("p-1", "assistant", "2026-03-01T10:01:00+00:00", "Noted. Want a reminder the day before?"),
        ("p-1", "user", "2026-03-01T10:02:00+00:00", "yes please"),
        ("p-2", "user", "2026-03-05T10:00:00+00:00", "the passport renewal got pushed to march 20")])
    held = sorted(v for o, v, current in _dated(store, "todo") if current)
    assert held == ['{"due":"2026-03-09"}', '{"due":"2026-03-20"}']


def test_an_item_told_as_a_change_by_its_head_moves_the_held_item():
    """A Chinese item is named by its last characters, an English one by the last word of its first part;
    a word said after the first part names none ("launch" of "feature freeze before launch")."""
    rows = [_row(1, "plan", "去牙科诊所拔智齿"), _row(2, "todo", "renew the boat licence"),
            _row(3, "todo", "feature freeze before launch")]
    assert [c.object for c in moved("拔智齿挪到下周了", [_claim("拔智齿")], _held(rows))] == ["去牙科诊所拔智齿"]
    assert [c.object for c in moved("the licence got pushed", [_claim("licence")], _held(rows))] == [
        "renew the boat licence"]
    assert [c.object for c in moved("the launch slipped", [_claim("launch")], _held(rows))] == ["launch"]


def test_an_unnamed_move_answering_the_assistants_question_moves_the_item_it_asks_about():
    rows = [_row(1, "plan", "市二院眼科复查"), _row(2, "todo", "交物业费", told=T1 + 9)]
    asked = "那下周三的复查还去吗？"
    [out] = moved("医生临时出差 改到下下周了", [_claim("")], _held(rows), asked)
    assert (out.predicate, out.object) == ("plan", "市二院眼科复查")
    # a statement of the assistant's is not asked of the item: the item told last whose day is ahead
    [told] = moved("医生临时出差 改到下下周了", [_claim("")], _held(rows), "复查那天记得带病历。")
    assert told.object == "交物业费"


def test_a_day_of_the_month_said_alone_for_a_move_is_of_the_month_nearest_the_items_day(store, tmp_path):
    _ingest(store, tmp_path, [
        ("v-1", "user", "2026-03-02T09:00:00+08:00", "我6月10号要去车管所换驾照"),
        ("v-2", "user", "2026-03-20T09:00:00+08:00", "换驾照改到13号了")])
    held = [(f.object, f.value_json) for f in store.facts.history(SUBJECT)
            if f.predicate in ("plan", "todo", "deadline") and f.valid_to is None and f.retire_reason is None]
    assert held == [("去车管所换驾照", '{"due":"2026-06-13"}')]


def test_a_reply_taking_an_offered_reminder_for_a_day_of_the_month_is_of_the_offered_month(store, tmp_path):
    _ingest(store, tmp_path, [
        ("r-1", "user", "2026-03-02T09:00:00+00:00", "remind me to book the ferry on june 20"),
        ("r-1", "assistant", "2026-03-02T09:01:00+00:00", "Reminder set for 20 June: book the ferry."),
        ("r-1", "user", "2026-03-02T09:02:00+00:00", "make it the 17th, fares jump that week")])
    held = {f.value_json for f in store.facts.history(SUBJECT) if f.predicate == "todo" and f.valid_to is None}
    assert '{"due":"2026-06-17"}' in held and '{"due":"2026-03-17"}' not in held
