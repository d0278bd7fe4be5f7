"""Memory that stays right (issue 14): scenario tests for the write path's
semantics, in wording of their own.

* a state heard in the present tense holds from some unknown time up to the
  utterance, so a change told later with an earlier time supersedes it;
* a value that comes back (A, B, A) is a value of its own, whatever order
  the history arrives in;
* a dated item (a reminder, a plan) expires a TTL after its event time ends,
  not after it was said.
"""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from memdesk import ClaimInput, Store
from memdesk.bitemporal import Piece, plan_change, value_key
from memdesk.timeutil import to_us

from .helpers import claim

CST = timezone(timedelta(hours=8))
LON = UTC
LATER = to_us(datetime(2100, 1, 1, tzinfo=UTC))  # known by then: everything


def t(y: int, m: int, d: int, h: int = 10, tz: timezone = CST) -> int:
    return to_us(datetime(y, m, d, h, tzinfo=tz))


def write_turns(path: Path, session: str, user: str, turns: list[tuple[int, str]],
                tz: str = "+08:00") -> Path:
    """A conversation file: (day of June 2026, text) per user turn."""
    with path.open("w", encoding="utf-8") as fh:
        for n, (d, text) in enumerate(turns, start=1):
            fh.write(json.dumps({"session": session, "turn": n, "speaker": "user",
                                 "time": f"2026-06-{d:02d}T10:00:00{tz}", "text": text,
                                 "user": user}, ensure_ascii=False) + "\n")
    return path


def current(store: Store, subject: str, predicate: str, at: int | None = None) -> list[str]:
    now = t(2099, 1, 1) if at is None else at  # "now": after everything told
    return sorted(f.object for f in store.facts.as_of(subject, predicate, valid_at=now, known_at=LATER))


# ------------------------------------------------ 1. stated and heard starts
def test_a_move_said_to_be_before_what_was_said_since_starts_right_after_it(store, tmp_path):
    """"我目前住在五道口" on 4 June, then on 27 June "上个月我就搬到通州了" (May): the
    user said 五道口 held on 4 June, so the move cannot lie in May. The store
    does not pick silently: the move starts right after 4 June 10:00, by 27 June
    (start "clamped"), and 五道口 keeps its closed interval."""
    path = write_turns(tmp_path / "move.jsonl", "move-zh", "lin", [
        (4, "我目前住在五道口。"),
        (27, "上个月我就搬到通州了。"),
    ])
    store.facts.ingest_file(path)
    facts = store.facts.history("user:lin", "lives_in")
    assert current(store, "user:lin", "lives_in", t(2026, 6, 28)) == ["通州"]
    assert current(store, "user:lin", "lives_in", t(2026, 6, 4, 10)) == ["五道口"]
    assert current(store, "user:lin", "lives_in", t(2026, 5, 20)) == []
    # the old address is kept, superseded; the new one starts right after it was said
    old = next(f for f in facts if f.object == "五道口" and f.retired_at is not None)
    assert old.retire_reason == "superseded"
    new = next(f for f in facts if f.object == "通州" and f.retired_at is None)
    assert (new.valid_from, new.start, new.latest_start) == (
        t(2026, 6, 4, 10) + 1, "clamped", t(2026, 6, 27, 10))
    assert new.start_stated is True and old.start_stated is False
    closed = next(f for f in facts if f.object == "五道口" and f.retired_at is None)
    assert (closed.valid_from, closed.valid_to) == (t(2026, 6, 4, 10), t(2026, 6, 4, 10) + 1)
    # what the store believed before the move was told is still answerable
    before = store.facts.as_of("user:lin", "lives_in", valid_at=t(2026, 6, 10),
                         known_at=t(2026, 6, 20))
    assert [f.object for f in before] == ["五道口"]


def test_the_same_in_english_and_shown_in_facts_json(store, tmp_path):

    path = write_turns(tmp_path / "move-en.jsonl", "move-en", "ola", [
        (2, "I live in Camden."),
        (20, "I moved to Hackney last month."),
    ], tz="+01:00")
    store.facts.ingest_file(path)
    assert current(store, "user:ola", "lives_in", t(2026, 6, 21, tz=LON)) == ["Hackney"]
    rows = {d["object"]: d for d in store.facts.as_json(store.facts.history("user:ola", "lives_in"),
                                                    at=store.now())}
    assert rows["Camden"]["start"]["kind"] == "heard"
    # Camden was said on 2 June, after "last month" (May): the move came after it
    assert rows["Hackney"]["start"]["kind"] == "clamped"
    assert rows["Hackney"]["start"]["text"] == (
        "clamped: between 2026-06-02 10:00 and 2026-06-20 10:00")


def test_an_explicitly_dated_history_is_still_backfilled(store):
    """A stated start is a real boundary: an older change told later is closed at it."""
    store.facts.add(claim("user:kim", "lives_in", "Bristol", at=t(2026, 6, 1), turn=1,
                    valid_from=t(2024, 2, 1), change="evolution"))
    store.facts.add(claim("user:kim", "lives_in", "Oxford", at=t(2026, 6, 2), turn=2,
                    valid_from=t(2022, 9, 1), change="evolution"))
    assert current(store, "user:kim", "lives_in") == ["Bristol"]
    assert current(store, "user:kim", "lives_in", t(2023, 1, 1)) == ["Oxford"]


def test_a_heard_value_told_after_the_change_is_not_overtaken(store):
    """Heard after the stated change was told: the heard value is the newer word."""
    store.facts.add(claim("user:kim", "lives_in", "Bristol", at=t(2026, 6, 1), turn=1,
                    valid_from=t(2026, 5, 1), change="evolution"))
    store.facts.add(claim("user:kim", "lives_in", "Bath", at=t(2026, 6, 20), turn=2,
                    change="evolution"))  # heard: valid_from is the time it was said
    assert current(store, "user:kim", "lives_in") == ["Bath"]
    assert current(store, "user:kim", "lives_in", t(2026, 6, 5)) == ["Bristol"]


def test_a_value_taken_back_in_the_turn_leaves_the_change_a_change(store, tmp_path):
    """"预算砍到十万 啊不是 十二万": the slip is taken back, and what remains is a
    cut of the budget held before, which stays in history as true until then
    (a correction would have retired it as never true)."""
    path = write_turns(tmp_path / "budget.jsonl", "car-zh", "hao", [
        (3, "买车预算二十万吧 一步到位"),
        (20, "开销太大 预算砍到十万 啊不是 十二万 还是看比亚迪吧"),
    ])
    store.facts.ingest_file(path)
    assert current(store, "user:hao", "budget_limit") == ["120000 CNY"]
    assert current(store, "user:hao", "budget_limit", t(2026, 6, 10)) == ["200000 CNY"]
    rows = store.facts.history("user:hao", "budget_limit")
    assert "100000 CNY" not in {f.object for f in rows}
    assert all(f.retire_reason is None or f.retire_reason == "superseded" for f in rows)


def test_import_lines_say_whether_the_start_was_stated(tmp_path):
    source = {"session": "s", "turn": 1, "text": "x", "time": "2026-06-01T10:00:00+08:00"}
    heard = ClaimInput.from_dict({"subject": "user:a", "predicate": "lives_in",
                                  "object": "X", "source": source})
    dated = ClaimInput.from_dict({"subject": "user:a", "predicate": "lives_in", "object": "X",
                                  "valid_from": "2020-01-01T00:00:00+08:00", "source": source})
    assert (heard.start_stated, dated.start_stated) == (False, True)


# ------------------------------------------------ 3. returns, out of order
HISTORY = [(1930, "Ashford"), (1950, "Brandon"), (2017, "Ashford"), (2021, "Corby")]


@pytest.mark.parametrize("order", list(itertools.permutations(range(len(HISTORY)))),
                         ids=lambda o: "".join(map(str, o)))
def test_a_return_to_an_earlier_value_survives_any_arrival_order(store, order):
    for turn, i in enumerate(order, start=1):
        year, value = HISTORY[i]
        store.facts.add(claim("place:x", "population_band", value, at=t(2026, 1, 1) + turn, turn=turn,
                        valid_from=t(year, 1, 1, 0), change="evolution", single_valued=True))
    for (year, value), nxt in zip(HISTORY, [*HISTORY[1:], (2100, None)], strict=True):
        for when in (t(year, 1, 1, 0), t((year + nxt[0]) // 2, 6, 1)):
            assert current(store, "place:x", "population_band", when) == [value], (year, order)


def test_a_repeat_over_a_longer_interval_is_not_merged_away(store):
    store.facts.add(claim("user:q", "works_at", "Arup", at=t(2026, 1, 1), turn=1,
                    valid_from=t(2019, 1, 1), valid_to=t(2021, 1, 1)))
    store.facts.add(claim("user:q", "works_at", "Arup", at=t(2026, 1, 2), turn=2,
                    valid_from=t(2020, 1, 1), valid_to=t(2023, 1, 1)))
    assert current(store, "user:q", "works_at", t(2022, 6, 1)) == ["Arup"]
    assert current(store, "user:q", "works_at", t(2019, 6, 1)) == ["Arup"]
    assert current(store, "user:q", "works_at", t(2023, 6, 1)) == []
    # the covered mention still merges
    summary = store.facts.add(claim("user:q", "works_at", "Arup", at=t(2026, 1, 3), turn=3,
                              valid_from=t(2020, 6, 1), valid_to=t(2020, 9, 1)))
    assert summary.merged == 1


class _Row:
    """A current-belief row as the planner reads it (``bitemporal.SlotRow``), its claim id its own id."""

    def __init__(self, id: int, obj: str, start: int, end: int | None) -> None:
        self.id, self.object, self.value_json, self.polarity = id, obj, None, "positive"
        self.valid_from, self.valid_to = start, end
        self.single_valued, self.start_stated = True, True
        self.start_kind, self.start_latest, self.claim_id = "stated", None, id


def test_the_planner_splits_a_stated_repeat_instead_of_merging():
    rows = [_Row(1, "A", 0, None)]
    plan = plan_change(rows, value_key("A", None, "positive"), 50, None, "evolution")
    assert plan.kind == "evolution"
    assert plan.insert == (Piece(0, 50, rows[0], True, "stated", None),
                           Piece(50, None, None, True, "stated", 50))
    heard = plan_change(rows, value_key("A", None, "positive"), 50, None, "evolution",
                        start_stated=False)
    assert heard.kind == "merge"


def test_a_correction_heard_right_after_a_value_told_for_later_takes_that_value_back():
    """"from the 13th I'm the UI lead" … "no, the UX lead": the row told last holds from a day still to come,
    so the correction corrects it, not the role holding until then (which was true); a correction heard with
    nothing told for later corrects the row holding when it is said."""
    old, later = _Row(1, "barista", 0, 130), _Row(2, "UI lead", 130, None)
    plan = plan_change([old, later], value_key("UX lead", None, "positive"), 100, None, "correction",
                       start_stated=False)
    assert plan.kind == "correction" and plan.retire == (later,)
    assert plan.insert == (Piece(130, None, None, True, "stated", None),)
    only = _Row(1, "barista", 0, None)
    plan = plan_change([only], value_key("barman", None, "positive"), 100, None, "correction", start_stated=False)
    assert plan.retire == (only,)


# ------------------------------------------------ 4. dated items expire after their time
def test_a_reminder_for_next_week_is_still_there_when_it_falls_due(store, tmp_path):
    path = write_turns(tmp_path / "todo.jsonl", "todo-en", "sam", [
        (1, "Remind me next Friday to renew the parking permit."),
    ], tz="+01:00")  # Monday 1 June 2026
    store.facts.ingest_file(path)
    [todo] = store.facts.history("user:sam", "todo")
    friday = to_us(datetime(2026, 6, 12, 9, tzinfo=timezone(timedelta(hours=1))))
    assert todo.event_start is not None and todo.event_start <= friday
    assert todo.expires_at is not None and todo.expires_at > friday + 6 * 86_400_000_000
    live = store.facts.as_of("user:sam", "todo", valid_at=friday, known_at=LATER, include_expired=False)
    assert [f.id for f in live] == [todo.id]
    later = friday + 9 * 86_400_000_000
    assert store.facts.as_of("user:sam", "todo", valid_at=later, known_at=LATER,
                       include_expired=False) == []


def test_facts_shows_the_due_date_and_the_start(store_url, tmp_path, capsys):
    from memdesk.app.cli import main

    path = write_turns(tmp_path / "todo-zh.jsonl", "todo-zh", "mei", [
        (1, "下周三提醒我去取护照。"),
    ])
    assert main(["--db", store_url, "ingest", str(path)]) == 0
    capsys.readouterr()
    assert main(["--db", store_url, "facts", "--subject", "user:mei", "--all"]) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[0].split()
    assert "due" in header and "start" in header
    assert "2026-06-10" in out


# ------------------------------------------------ 2. opposite predicates meet at the gates
@pytest.mark.parametrize("first,second", [
    ("I really like olives.", "Honestly, olives are the worst."),
    ("我特别喜欢榴莲。", "榴莲我实在受不了。"),
])
def test_opposite_tastes_open_a_conflict(store, tmp_path, first, second):
    path = write_turns(tmp_path / "taste.jsonl", "taste", "ren", [(3, first), (3, second)])
    store.facts.ingest_file(path)
    [conflict] = store.conflicts.list("open")
    assert conflict.kind == "polarity"
    likes = store.facts.as_of("user:ren", "likes", valid_at=t(2026, 6, 4), known_at=LATER)
    assert len(likes) == 1  # the first taste stays until a reviewer decides
    assert store.facts.as_of("user:ren", "dislikes", valid_at=t(2026, 6, 4), known_at=LATER) == []


def test_an_opposite_taste_told_as_a_change_supersedes_the_old_one(store):
    store.facts.add(claim("user:ren", "likes", "olives", at=t(2026, 1, 5), turn=1))
    summary = store.facts.add(claim("user:ren", "dislikes", "Olives", at=t(2026, 6, 5), turn=2,
                              change="evolution"))
    assert summary.evolutions == 1 and summary.conflicts == 0
    assert current(store, "user:ren", "dislikes") == ["Olives"]
    assert current(store, "user:ren", "likes") == []
    assert current(store, "user:ren", "likes", t(2026, 3, 1)) == ["olives"]
    # and back again, through the other predicate
    store.facts.add(claim("user:ren", "likes", "olives", at=t(2026, 9, 5), turn=3, change="evolution"))
    assert current(store, "user:ren", "likes") == ["olives"]
    assert current(store, "user:ren", "dislikes", t(2026, 7, 1)) == ["Olives"]


def test_not_disliking_is_the_same_as_liking_for_the_gates(store):
    store.facts.add(claim("user:ren", "dislikes", "jazz", at=t(2026, 1, 5), turn=1, polarity="negative"))
    summary = store.facts.add(claim("user:ren", "likes", "jazz", at=t(2026, 1, 6), turn=2))
    assert summary.merged == 1


def test_a_positive_and_a_negative_diet_conflict(store):
    store.facts.add(claim("user:ren", "diet", "vegetarian", at=t(2026, 1, 5), turn=1))
    summary = store.facts.add(claim("user:ren", "diet", "Vegetarian", at=t(2026, 1, 6), turn=2,
                              polarity="negative"))
    assert summary.conflicts == 1


def test_the_catalog_refuses_a_lopsided_opposite(tmp_path):
    from memdesk.catalog import Catalog
    from memdesk.errors import InvalidInput

    path = tmp_path / "cat.toml"
    path.write_text('[predicates.a]\nzh = "a"\nen = "a"\nsingle_valued = true\nopposite = "b"\n'
                    '[predicates.b]\nzh = "b"\nen = "b"\nsingle_valued = false\n')
    with pytest.raises(InvalidInput, match="multi-valued|single-valued"):
        Catalog.load(path)
    path.write_text('[predicates.a]\nzh = "a"\nen = "a"\nsingle_valued = true\nopposite = "zz"\n')
    with pytest.raises(InvalidInput, match="not another catalogued"):
        Catalog.load(path)


def test_the_catalog_names_the_team_predicates_and_refuses_a_bad_flag(tmp_path):
    from memdesk.catalog import Catalog
    from memdesk.errors import InvalidInput

    assert {p.id for p in Catalog.load() if p.team} == {"budget_limit", "decision", "plan", "deadline", "todo"}
    path = tmp_path / "cat.toml"
    path.write_text('[predicates.a]\nzh = "a"\nen = "a"\nsingle_valued = true\nteam = "yes"\n')
    with pytest.raises(InvalidInput, match="team must be true or false"):
        Catalog.load(path)


@pytest.mark.parametrize("first,second", [
    ("我很爱吃折耳根。", "折耳根我实在受不了。"),  # 爱吃X and X受不了 name one thing
    ("Rhubarb is my favourite.", "Honestly, rhubarb is the worst."),
])
def test_opposite_tastes_in_other_words_meet_too(store, tmp_path, first, second):
    path = write_turns(tmp_path / "taste2.jsonl", "taste2", "yan", [(3, first), (3, second)])
    store.facts.ingest_file(path)
    assert [c.kind for c in store.conflicts.list("open")] == ["polarity"]


@pytest.mark.parametrize("first,second,now", [
    ("Ugh, olives are disgusting.", "These days I actually like olives.", "likes"),
    ("我特别喜欢榴莲。", "我不再喜欢榴莲了。", "dislikes"),
    ("I can't stand jazz.", "I've come to love jazz.", "likes"),
])
def test_a_taste_told_as_changed_supersedes_the_opposite_one(store, tmp_path, first, second, now):
    path = write_turns(tmp_path / "taste3.jsonl", "taste3", "yan", [(3, first), (20, second)])
    store.facts.ingest_file(path)
    assert store.conflicts.list("open") == []
    later = t(2026, 6, 21)
    held = {f.predicate for p in ("likes", "dislikes")
            for f in store.facts.as_of("user:yan", p, valid_at=later, known_at=LATER)}
    assert held == {now}
    before = {f.predicate for p in ("likes", "dislikes")
              for f in store.facts.as_of("user:yan", p, valid_at=t(2026, 6, 10), known_at=LATER)}
    assert before == {"likes", "dislikes"} - {now}


# ------------------------------------------------ endings said in words of their own
@pytest.mark.parametrize(("held", "ended"), [
    ("我每天骑电动车上班", "搬完家了 现在走路就到 不用再骑电动车了"),  # a way of getting about, read as one to work
    ("我每天骑共享单车上班", "搬到公司对面了 以后走路 不骑车了"),  # the same mode (cycling) in other words
])
def test_a_way_of_getting_about_that_stopped_ends_the_commute(store, tmp_path, held, ended):
    """An ending of a way of getting about ends the commute held (and is no decision against it)."""
    store.facts.ingest_file(write_turns(tmp_path / "ride.jsonl", "ride-zh", "lan", [(1, held), (8, ended)]))
    [commute] = current(store, "user:lan", "commute", at=t(2026, 6, 4))
    assert commute not in current(store, "user:lan", "commute")
    assert current(store, "user:lan", "decision") == []


def test_a_last_day_said_with_the_employer_after_the_day_ends_that_job(store, tmp_path):
    path = write_turns(tmp_path / "job.jsonl", "job-zh", "wen", [
        (1, "我在青禾酒业做采购"),
        (3, "决定了 出来单干。6月30号是我在青禾最后一天"),
    ])
    store.facts.ingest_file(path)
    assert current(store, "user:wen", "works_at", at=t(2026, 6, 20)) == ["青禾酒业"]
    assert current(store, "user:wen", "works_at", at=t(2026, 7, 2)) == []
