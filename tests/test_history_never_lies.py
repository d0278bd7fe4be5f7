"""History that never lies (issue 27), on SQLite and PostgreSQL.

1. A stated start has a precision, and what the user said of the value before
   bounds it: "我住在静安" on 1 June 10:00, then on 15 July "上个月搬到了徐汇"
   puts the move in (1 June 10:00, 30 June], 静安 keeps its closed interval,
   and the rows say how their start is known (stated, heard, bounded,
   clamped) with its bounds, in ``facts``, ``audit`` and the JSON contract.
   A named month in a change told as past is in the past.
2. What the store had been told by T does not depend on the order in which
   turns about different people arrive: each row is on the told axis (when
   its source turn was said) and on the recorded axis (when this store wrote
   it, by its own clock, never moved by input).
4. The agent's door gives aware datetimes, never the store's integers.

(Part 3, resends that add nothing, is ``tests/test_resend.py``; the
reference-model property tests of bounded starts and of both axes are in
``tests/test_properties.py`` and ``tests/test_interleaving.py``.)
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from memdesk import ManualClock, Memory, Store
from memdesk.app.cli import main
from memdesk.timeutil import parse_time_us, to_us

from .recall_fixtures import HashEmbedder

CST = timezone(timedelta(hours=8))
NYC = timezone(timedelta(hours=-4))
LATER = parse_time_us("2030-01-01T00:00:00+00:00")  # told by then: everything
NOW = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)  # the store's clock


@pytest.fixture
def store(store_url):
    with Store.open(store_url, clock=ManualClock(NOW)) as s:
        yield s


def conversation(path: Path, turns: list[tuple[str, str, str, str]]) -> Path:
    """A JSONL conversation: (user, session, ISO time, text) per user turn,
    numbered in its session in the order given."""
    numbers: dict[str, int] = {}
    with open(path, "w", encoding="utf-8") as fh:
        for user, session, when, text in turns:
            numbers[session] = numbers.get(session, 0) + 1
            fh.write(json.dumps({"session": session, "turn": numbers[session], "speaker": "user",
                                 "time": when, "text": text, "user": user},
                                ensure_ascii=False) + "\n")
    return path


def objects(store: Store, subject: str, at: str, known: int = LATER,
            predicate: str = "lives_in") -> list[str]:
    return sorted(f.object for f in store.facts.as_of(subject, predicate, valid_at=parse_time_us(at),
                                                 known_at=known))


def rows_of(store: Store, subject: str, obj: str) -> list:
    return [f for f in store.facts.history(subject, "lives_in") if f.object == obj]


# ------------------------------------------------ 1. bounded starts
MOVES = {
    "zh": ("li", "+08:00", "我住在静安。", "上个月搬到了徐汇。", "静安", "徐汇"),
    "en": ("sam", "-04:00", "I live in Manhattan.", "I moved to Brooklyn last month.",
           "Manhattan", "Brooklyn"),
}


@pytest.mark.parametrize("lang", sorted(MOVES))
def test_a_move_said_with_a_month_starts_after_what_was_said_before(store, tmp_path, lang):
    user, tz, before, move, old, new = MOVES[lang]
    store.facts.ingest_file(conversation(tmp_path / "move.jsonl", [
        (user, "a", f"2026-06-01T10:00:00{tz}", before),
        (user, "b", f"2026-07-15T10:00:00{tz}", move),
    ]))
    subject = f"user:{user}"
    said = parse_time_us(f"2026-06-01T10:00:00{tz}")
    # what the user said holds where they said it; the move comes after it
    assert objects(store, subject, f"2026-06-01T10:00:00{tz}") == [old]
    assert objects(store, subject, f"2026-06-01T09:00:00{tz}") == []  # heard: since some time
    assert objects(store, subject, f"2026-07-01T00:00:00{tz}") == [new]
    [moved] = [f for f in rows_of(store, subject, new) if f.retired_at is None]
    assert (moved.valid_from, moved.start) == (said + 1, "bounded")
    assert moved.latest_start == parse_time_us(f"2026-07-01T00:00:00{tz}") - 1
    # the old value keeps a closed, superseded interval in history
    [closed] = [f for f in rows_of(store, subject, old) if f.retired_at is None]
    assert (closed.valid_from, closed.valid_to) == (said, said + 1)
    assert closed.status(parse_time_us("2026-08-01T00:00:00+00:00")) == "superseded"
    [first] = [f for f in rows_of(store, subject, old) if f.retired_at is not None]
    assert first.retire_reason == "superseded"
    # as known before the move was told, the old value is still current
    assert objects(store, subject, f"2026-07-10T00:00:00{tz}",
                   known=parse_time_us(f"2026-07-10T00:00:00{tz}")) == [old]
    # the JSON contract says how the start is known
    [d] = store.facts.as_json([moved])
    assert d["start"]["kind"] == "bounded"
    assert d["start"]["earliest"].startswith("2026-06-01T10:00:00.000001")
    assert d["start"]["latest"].startswith("2026-06-30T23:59:59.999999")
    assert d["start"]["text"] == "bounded: between 2026-06-01 10:00 and 2026-06-30"
    assert store.audit.verify().ok


@pytest.mark.parametrize("lang", sorted(MOVES))
def test_facts_and_audit_show_the_bounds_on_the_command_line(store_url, tmp_path, capsys, lang):
    user, tz, before, move, old, new = MOVES[lang]
    path = conversation(tmp_path / "move.jsonl", [
        (user, "a", f"2026-06-01T10:00:00{tz}", before),
        (user, "b", f"2026-07-15T10:00:00{tz}", move),
    ])
    assert main(["--db", store_url, "ingest", str(path), "--json"]) == 0
    capsys.readouterr()
    assert main(["--db", store_url, "facts", "--subject", f"user:{user}", "--valid-at",
                 f"2026-06-01T12:00:00{tz}", "--known-at", "2026-06-20T00:00:00+00:00"]) == 0
    out = capsys.readouterr().out
    assert old in out and new not in out  # as told by 20 June: only the old value
    assert main(["--db", store_url, "facts", "--subject", f"user:{user}", "--all"]) == 0
    out = capsys.readouterr().out
    assert "bounded ≤06-30" in out and "told" in out and "recorded" in out
    assert main(["--db", store_url, "audit", "--subject", f"user:{user}", "--predicate",
                 "lives_in", "--object", new]) == 0
    out = capsys.readouterr().out
    assert f"decided at 2026-07-15T10:00:00{tz} as told" in out
    assert "start bounded: between 2026-06-01 10:00 and 2026-06-30" in out
    assert main(["--db", store_url, "audit", "--subject", f"user:{user}", "--predicate",
                 "lives_in", "--object", new, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["decided_at"] == f"2026-07-15T10:00:00{tz}"
    assert report["recorded_at"] is not None and report["fact"]["start"]["kind"] == "bounded"
    assert all("recorded_at" in step for step in report["chain"])


PRECISIONS = [
    # (said before, when, the change, when, kind, start, latest): the change's stated
    # precision is a week, a weekend, a year, a named month; evidence inside it, before
    # it, and after it
    ("我住在静安。", "2026-06-09T10:00:00+08:00", "上周搬到了徐汇。", "2026-06-15T10:00:00+08:00",
     "bounded", "2026-06-09T10:00:00+08:00", "2026-06-14T23:59:59.999999+08:00"),
    ("我住在静安。", "2026-06-01T10:00:00+08:00", "上周末搬到了徐汇。", "2026-06-15T10:00:00+08:00",
     "stated", None, "2026-06-14T23:59:59.999999+08:00"),
    ("I live in Leeds.", "2025-03-01T10:00:00+00:00", "I moved to York last year.",
     "2026-02-01T10:00:00+00:00", "bounded", "2025-03-01T10:00:00+00:00",
     "2025-12-31T23:59:59.999999+00:00"),
    ("I live in Leeds.", "2026-05-03T10:00:00+00:00", "I moved to York in April.",
     "2026-06-10T10:00:00+00:00", "clamped", "2026-05-03T10:00:00+00:00",
     "2026-06-10T10:00:00+00:00"),
    ("我住在静安。", "2026-05-03T10:00:00+08:00", "我四月份搬到了徐汇。", "2026-06-10T10:00:00+08:00",
     "clamped", "2026-05-03T10:00:00+08:00", "2026-06-10T10:00:00+08:00"),
]


@pytest.mark.parametrize("case", PRECISIONS, ids=lambda c: f"{c[2][:12]}-{c[4]}")
def test_each_precision_is_bounded_by_what_was_said(store, tmp_path, case):
    before, said, change, told, kind, after, latest = case
    store.facts.ingest_file(conversation(tmp_path / "c.jsonl", [
        ("kim", "a", said, before), ("kim", "b", told, change)]))
    [new] = [f for f in store.facts.current("user:kim", "lives_in") if f.start_stated]
    assert new.start == kind
    if after is not None:  # right after what was said of the value before
        assert new.valid_from == parse_time_us(after) + 1
    assert new.latest_start == parse_time_us(latest)
    # the value said before holds where it was said, whatever the change's precision
    assert objects(store, "user:kim", said) == [f.object for f in store.facts.current("user:kim",
                                                                                 "lives_in")
                                                 if not f.start_stated]


def test_a_value_said_again_bounds_the_move_by_its_last_mention(store, tmp_path):
    store.facts.ingest_file(conversation(tmp_path / "c.jsonl", [
        ("ann", "a", "2026-06-01T10:00:00+00:00", "I live in Camden."),
        ("ann", "a", "2026-06-20T10:00:00+00:00", "I live in Camden."),
        ("ann", "a", "2026-07-15T10:00:00+00:00", "I moved to Hackney last month."),
    ]))
    assert objects(store, "user:ann", "2026-06-20T10:00:00+00:00") == ["Camden"]
    [new] = [f for f in store.facts.current("user:ann", "lives_in") if f.object == "Hackney"]
    assert (new.start, new.valid_from) == ("bounded",
                                           parse_time_us("2026-06-20T10:00:00+00:00") + 1)


def test_a_month_named_in_a_change_told_as_past_is_in_the_past(store, tmp_path):
    store.facts.ingest_file(conversation(tmp_path / "c.jsonl", [
        ("bo", "a", "2026-03-20T10:00:00+08:00", "I moved to Leeds in February."),
        ("mei", "b", "2026-03-20T10:00:00+08:00", "我二月份搬到了徐汇。"),
        ("tom", "c", "2026-03-20T10:00:00+08:00", "I moved to York on the 25th."),
        ("pat", "d", "2026-03-20T10:00:00+08:00", "Our budget will go up to 9000 in June."),
    ]))
    feb = (parse_time_us("2026-02-01T00:00:00+08:00"), parse_time_us("2026-03-01T00:00:00+08:00") - 1)
    for subject in ("user:bo", "user:mei"):
        [f] = store.facts.current(subject, "lives_in")
        assert (f.valid_from, f.latest_start) == feb, subject
    [york] = store.facts.current("user:tom", "lives_in")
    assert york.valid_from == parse_time_us("2026-02-25T00:00:00+08:00")  # last month's 25th
    # told of what is to come: the coming June
    [budget] = store.facts.current("user:pat", "budget_limit")
    assert budget.valid_from == parse_time_us("2026-06-01T00:00:00+08:00")


def test_import_lines_carry_a_start_with_its_precision(store, tmp_path):
    source = {"session": "s", "speaker": "user", "kind": "user_explicit", "text": "x"}
    path = tmp_path / "lines.jsonl"
    lines = [
        {"subject": "user:ola", "predicate": "lives_in", "object": "Bath",
         "source": {**source, "turn": 1, "time": "2026-05-10T10:00:00+00:00"}},
        {"subject": "user:ola", "predicate": "lives_in", "object": "Wells",
         "valid_from": "2026-05-01T00:00:00+00:00", "valid_from_latest":
         "2026-05-31T23:59:59+00:00", "change": "evolution",
         "source": {**source, "turn": 2, "time": "2026-06-02T10:00:00+00:00"}},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    store.facts.import_file(path)
    [wells] = [f for f in store.facts.current("user:ola", "lives_in") if f.object == "Wells"]
    assert (wells.start, wells.valid_from, wells.latest_start) == (
        "bounded", parse_time_us("2026-05-10T10:00:00+00:00") + 1,
        parse_time_us("2026-05-31T23:59:59+00:00"))
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({**lines[1], "valid_from_latest": "2026-04-01T00:00:00+00:00"})
                   + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="1: valid_from_latest .* is before valid_from"):
        store.facts.import_file(bad)


# ------------------------------------------------ 2. told and recorded time
def test_the_order_of_other_peoples_turns_changes_no_ones_history(store_url, tmp_path):
    """bob's July turns listed before wang's June turns, in one file: wang's
    facts are known from when wang said them, and recorded when the store
    wrote them (one transaction: one instant, the store's clock)."""
    turns = [
        ("bob", "bob-1", "2026-07-01T09:00:00+00:00", "I live in Leeds."),
        ("bob", "bob-1", "2026-07-02T09:00:00+00:00", "I moved to York yesterday."),
        ("wang", "wang-1", "2026-06-01T10:00:00+08:00", "我住在静安，我对花生过敏。"),
        ("wang", "wang-1", "2026-06-10T10:00:00+08:00", "我搬到徐汇了。"),
    ]
    answers = []
    for order, name in ((turns, "bob-first"), (turns[2:] + turns[:2], "wang-first")):
        url = store_url if name == "bob-first" else str(tmp_path / "other.db")
        with Store.open(url, clock=ManualClock(NOW)) as store:
            store.facts.ingest_file(conversation(tmp_path / f"{name}.jsonl", order))
            known = parse_time_us("2026-06-20T00:00:00+08:00")
            assert objects(store, "user:wang", "2026-06-05T00:00:00+08:00", known) == ["静安"]
            assert objects(store, "user:wang", "2026-06-15T00:00:00+08:00", known) == ["徐汇"]
            assert objects(store, "user:bob", "2026-07-05T00:00:00+00:00", known) == []
            report = store.audit.of("user:wang", "allergy", "花生")
            assert report.decided_at == parse_time_us("2026-06-01T10:00:00+08:00")
            recorded = {f.recorded_at for s in ("user:wang", "user:bob")
                        for f in store.facts.history(s)}
            assert recorded == {to_us(NOW)}  # the store's clock, one instant per transaction
            assert report.recorded_at == to_us(NOW)
            answers.append({(s, p, v, k): objects(store, s, v, parse_time_us(k), p)
                            for s in ("user:wang", "user:bob") for p in ("lives_in", "allergy")
                            for v in ("2026-06-05T00:00:00+08:00", "2026-07-05T00:00:00+00:00")
                            for k in ("2026-06-02T00:00:00+00:00", "2026-06-20T00:00:00+00:00",
                                      "2026-07-01T12:00:00+00:00", "2027-01-01T00:00:00+00:00")})
            assert store.audit.verify().ok
    assert answers[0] == answers[1]


def test_the_first_record_is_when_the_store_was_first_told(store, tmp_path):
    """Recall "as of" reads the told axis, so what it calls the first record is
    the first turn said, not the day a backfill was imported."""
    store.facts.ingest_file(conversation(tmp_path / "c.jsonl", [
        ("wang", "w", "2026-06-01T10:00:00+08:00", "我叫王工。")]))  # a name: no memory text
    said = parse_time_us("2026-06-01T10:00:00+08:00")
    assert [f.object for f in store.facts.history("user:wang")] == ["王工"] and not store.facts.memories()
    assert store.facts.first_told() == store.facts.first_told("user:wang") == said
    assert {f.recorded_at for f in store.facts.history("user:wang")} == {to_us(NOW)}


def test_recorded_time_answers_what_the_store_would_have_said_then(store):
    from .helpers import claim

    clock = store.clock
    assert isinstance(clock, ManualClock)
    june = parse_time_us("2026-06-01T10:00:00+08:00")
    store.facts.add(claim("user:q", "lives_in", "静安", at=june, turn=1))
    first = store.facts.current("user:q", "lives_in")[0].recorded_at
    clock.set(NOW + timedelta(days=1))
    store.facts.add(claim("user:q", "lives_in", "徐汇", at=june + 86_400_000_000, turn=2,
                    change="evolution"))
    valid = june + 2 * 86_400_000_000
    assert [f.object for f in store.facts.as_of("user:q", "lives_in", valid_at=valid,
                                           known_at=LATER)] == ["徐汇"]
    # as this store had written by the first write: the move was not told to it yet
    assert [f.object for f in store.facts.as_of("user:q", "lives_in", valid_at=valid, known_at=LATER,
                                           recorded_at=first)] == ["静安"]


def test_a_message_without_a_time_moves_no_one_elses_history(tmp_path):
    clock = ManualClock(NOW)
    with Memory(Store.open(tmp_path / "m.db", clock=clock)) as m:
        m.recaller = m.recaller.__class__(m.store, embedder=HashEmbedder())
        m.remember([{"role": "user", "content": "我住在静安。",
                     "time": "2026-06-01T10:00:00+08:00"}], user="wang")
        m.remember([{"role": "user", "content": "I live in Leeds."}], user="bob")  # no time: now
        m.remember([{"role": "user", "content": "我搬到徐汇了。",
                     "time": "2026-06-10T10:00:00+08:00"}], user="wang")
        [moved] = [f for f in m.facts(user="wang", predicate="lives_in",
                                      valid_at=datetime(2026, 6, 11, tzinfo=CST),
                                      known_at=datetime(2026, 6, 11, tzinfo=CST))]
        assert moved.object == "徐汇"
        assert moved.known_from == datetime(2026, 6, 10, 10, tzinfo=CST)
        [leeds] = m.facts(user="bob")
        assert leeds.known_from == NOW


# ------------------------------------------------ 4. the door speaks datetimes
def test_the_agents_door_gives_aware_datetimes(tmp_path):
    with Memory(Store.open(tmp_path / "m.db", clock=ManualClock(NOW))) as m:
        m.recaller = m.recaller.__class__(m.store, embedder=HashEmbedder())
        m.remember([{"role": "user", "content": "I live in Manhattan.",
                     "time": "2026-06-01T10:00:00-04:00"},
                    {"role": "user", "content": "I moved to Brooklyn last month.",
                     "time": "2026-07-15T10:00:00-04:00"}], user="sam")
        facts = m.facts(user="sam", predicate="lives_in")
        [f] = facts
        for value in (f.valid_from, f.known_from, f.recorded_at, f.start.latest,
                      f.start.earliest, f.source.time if f.source else None):
            assert isinstance(value, datetime) and value.utcoffset() is not None, value
        assert f.valid_from == datetime(2026, 6, 1, 10, 0, 0, 1, tzinfo=NYC)
        assert f.start.kind == "bounded" and f.to_dict()["valid_from"] == f.valid_from.isoformat()
        audit = m.audit("user:sam", "lives_in", "Brooklyn")
        assert audit.decided_at == datetime(2026, 7, 15, 10, tzinfo=NYC)
        assert all(isinstance(s.at, datetime) for s in audit.chain)
        assert audit.to_dict()["fact"]["start"]["kind"] == "bounded"
        hits = m.recall("where does sam live", user="sam")
        assert hits and all(isinstance(h.time, datetime) for h in hits)
        candidate = m.propose("likes", "jazz", session="sam-chat", turn=1, user="sam")
        assert isinstance(candidate.valid_from, datetime) and candidate.state == "pending"
        assert isinstance(candidate.created_at, datetime)
