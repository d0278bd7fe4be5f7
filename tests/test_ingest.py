"""`memdesk ingest`: the resource layer, idempotent reruns, bad lines, and the
rule extractor wired to the gates (issue 3, first part)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memdesk import InputFileError, Store
from memdesk.app.cli import main

CONVERSATIONS = Path(__file__).resolve().parent.parent / "data" / "conversations"


def turn(n, text, speaker="user", session="s1", time="2026-03-18T09:30:00+08:00", **extra):
    return {"session": session, "turn": n, "speaker": speaker, "time": time, "text": text,
            "user": "alice", **extra}


def write(path, *lines):
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x, ensure_ascii=False)) + "\n"
                            for x in lines), encoding="utf-8")
    return path


def count_turns(store):
    from memdesk.db.tables import TURN
    from sqlalchemy import func, select

    with store.engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(TURN)).scalar_one()


def test_every_turn_is_stored_raw_and_rerun_adds_nothing(store_url, tmp_path):
    path = write(tmp_path / "c.jsonl",
                 turn(1, "我叫王工，对花生过敏。"),
                 turn(2, "好的王工，记下了。", speaker="assistant", time="2026-03-18T09:31:00+08:00"),
                 turn(3, "挺有意思的", time="2026-03-18T09:32:00+08:00"))
    with Store.open(store_url) as store:
        first = store.facts.ingest_file(path)
        assert first.turns == 3 and first.dropped == 2 and first.asserted >= 2
        assert count_turns(store) == 3
        assert {f.predicate for f in store.facts.as_of("user:alice")} >= {"name", "allergy"}
        again = store.facts.ingest_file(path)
        assert again.unchanged == first.lines and again.fact_rows == 0
        assert count_turns(store) == 3


@pytest.mark.parametrize("bad,message", [
    ("{oops", "not valid JSON"),
    (turn(2, "hi", time="2026-03-18T09:30:00"), "no UTC offset"),
    (turn(2, "hi", speaker="bot"), "speaker must be"),
    ({"session": "s1", "turn": 2, "speaker": "user", "time": "2026-03-18T09:30:00+08:00"}, "missing required field 'text'"),
])
def test_bad_line_is_named_and_nothing_written(tmp_path, bad, message):
    path = write(tmp_path / "c.jsonl", turn(1, "我住在徐家汇"), bad)
    with Store.open(tmp_path / "m.db") as store:
        with pytest.raises(InputFileError) as err:
            store.facts.ingest_file(path)
        assert err.value.line == 2 and message in str(err.value)
        assert count_turns(store) == 0


def test_same_turn_other_text_than_stored_is_refused(tmp_path):
    with Store.open(tmp_path / "m.db") as store:
        store.facts.ingest_file(write(tmp_path / "a.jsonl", turn(1, "我住在徐家汇")))
        with pytest.raises(InputFileError) as err:
            store.facts.ingest_file(write(tmp_path / "b.jsonl", turn(2, "hello", time="2026-03-18T10:00:00+08:00"),
                                    turn(1, "我住在张江")))
        assert err.value.line == 2 and "already stored" in str(err.value)
        assert count_turns(store) == 1


def test_demo_conversation_evolution_through_cli(tmp_path, capsys):
    db = tmp_path / "m.db"
    assert main(["--db", str(db), "ingest", str(CONVERSATIONS / "alice-reno.jsonl"), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["turns"] == 44 and summary["evolutions"] >= 1
    assert main(["--db", str(db), "facts", "--subject", "project:renovation", "--predicate",
                 "budget_limit", "--valid-at", "2026-03-25T10:00:00+08:00", "--json"]) == 0
    assert [f["value"] for f in json.loads(capsys.readouterr().out)] == [{"amount": 5000, "currency": "CNY"}]
    assert main(["--db", str(db), "facts", "--subject", "project:renovation", "--predicate",
                 "budget_limit", "--valid-at", "2026-04-04T10:00:00+08:00", "--json"]) == 0
    assert [f["value"] for f in json.loads(capsys.readouterr().out)] == [{"amount": 6500, "currency": "CNY"}]


def _snapshot(store):
    from memdesk.db.tables import CLAIM, CONFLICT, FACT, TURN
    from sqlalchemy import select

    with store.engine.connect() as conn:
        return {t.name: sorted(tuple(r) for r in conn.execute(select(*[c for c in t.c if c.name not in (
            "recorded_at", "retired_at", "created_at", "opened_at", "imported_at", "decided_at")])))
            for t in (TURN, CLAIM, FACT, CONFLICT)}


def test_interrupted_ingest_leaves_nothing_and_rerun_matches_clean_run(tmp_path, monkeypatch):
    path = CONVERSATIONS / "liwei-life.jsonl"
    with Store.open(tmp_path / "clean.db") as clean:
        clean.facts.ingest_file(path)
        expected = _snapshot(clean)

    from memdesk.writer import WriteBatch

    real_submit = WriteBatch.submit
    calls = {"n": 0}

    def crashing_submit(self, claim):
        calls["n"] += 1
        if calls["n"] == 7:
            raise KeyboardInterrupt  # the user pressed Ctrl-C half-way
        return real_submit(self, claim)

    with Store.open(tmp_path / "m.db") as store:
        monkeypatch.setattr(WriteBatch, "submit", crashing_submit)
        with pytest.raises(KeyboardInterrupt):
            store.facts.ingest_file(path)
        monkeypatch.setattr(WriteBatch, "submit", real_submit)
        assert count_turns(store) == 0
        store.facts.ingest_file(path)
        assert _snapshot(store) == expected


def test_progress_is_reported_to_the_end(tmp_path):
    seen = []
    with Store.open(tmp_path / "m.db") as store:
        store.facts.ingest_file(CONVERSATIONS / "tom-travel.jsonl", progress=lambda d, t: seen.append((d, t)))
    assert seen and seen[-1][0] == seen[-1][1] == 46


def test_fact_holding_a_phone_number_is_marked_sensitive(tmp_path):
    from memdesk import ClaimInput
    from memdesk.ingest import RuleExtractor

    class PhoneExtractor(RuleExtractor):
        def claims(self, turn, context):
            from memdesk.ingest import source_of
            return [ClaimInput(subject="user:alice", predicate="phone", object="13600002222",
                               source=source_of(turn), valid_from=source_of(turn).time)]

    path = write(tmp_path / "c.jsonl", turn(1, "我的手机是13600002222"))
    with Store.open(tmp_path / "m.db") as store:
        store.facts.ingest_file(path, extractor=PhoneExtractor())
        [fact] = store.facts.current("user:alice", "phone")
        assert fact.sensitive


def test_failed_extraction_keeps_the_turn_and_logs_it_for_retry(tmp_path):
    from memdesk import ExtractorUnavailable
    from memdesk.db.tables import AUDIT
    from memdesk.ingest import RuleExtractor
    from sqlalchemy import select

    class Down(RuleExtractor):
        def claims(self, turn, context):
            raise ExtractorUnavailable("llm:x@1: timed out after 30 s")

    path = write(tmp_path / "c.jsonl", turn(1, "我叫王工"))
    with Store.open(tmp_path / "m.db") as store:
        summary = store.facts.ingest_file(path, extractor=Down())
        assert summary.extraction_failed == 1 and count_turns(store) == 1
        with store.engine.connect() as conn:
            rows = conn.execute(select(AUDIT.c.action, AUDIT.c.reason)).all()
        assert ("extract.failed", "llm:x@1: timed out after 30 s") in [tuple(r) for r in rows]
        retry = store.facts.ingest_file(path)  # the rule extractor this time: the turn's facts arrive
        assert retry.asserted >= 1 and count_turns(store) == 1


def test_vector_routed_facts_become_masked_memories_and_near_duplicates_merge(tmp_path):
    path = write(tmp_path / "c.jsonl",
                 turn(1, "我讨厌打车，有事打我电话13600002222"),
                 turn(2, "我讨厌打车，有事打我电话13600002222", session="s2"),
                 turn(3, "我叫王工", time="2026-03-18T09:40:00+08:00"))
    with Store.open(tmp_path / "m.db") as store:
        summary = store.facts.ingest_file(path)
        mems = store.facts.memories("user:alice")
        assert summary.memories == 1 and len(mems) == 1  # name is routed "structured" only
        assert "13600002222" not in mems[0].text and "[phone]" in mems[0].text
        assert mems[0].mentions == 2 and mems[0].predicate == "dislikes"
        store.facts.ingest_file(path)  # a rerun counts nothing twice
        assert store.facts.memories("user:alice")[0].mentions == 2


def test_worked_example_conversation_gives_the_design_views(tmp_path):
    from memdesk import parse_time_us

    with Store.open(tmp_path / "m.db") as store:
        store.facts.ingest_file(CONVERSATIONS / "alice-reno.jsonl")

        def view(day):
            t = parse_time_us(f"2026-03-{day:02d}T12:00:00+08:00" if day <= 31
                              else f"2026-04-{day - 31:02d}T12:00:00+08:00")
            lives = [f.object for f in store.facts.as_of("user:alice", "lives_in", valid_at=t, known_at=t)]
            budget = [f.value["amount"] for f in store.facts.as_of("project:renovation", "budget_limit",
                                                             valid_at=t, known_at=t)]
            return lives, budget

        assert view(10) == (["徐家汇"], [5000])
        assert view(25) == (["张江"], [5000])
        assert view(35) == (["张江"], [6500])


def test_demo_command_builds_the_demo_store_once(tmp_path, capsys):
    db = str(tmp_path / "demo.db")
    assert main(["--db", db, "demo", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert len(first) >= 6 and sum(r["turns"] for r in first) >= 250
    assert sum(r["facts"] for r in first) > 50 and sum(r["memories"] for r in first) > 0
    assert main(["--db", db, "demo", "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert sum(r["facts"] + r["memories"] for r in again) == 0


@pytest.mark.parametrize("name", ["blindJ", "blindX"])
def test_a_conversation_set_read_again_adds_nothing(name, tmp_path):
    """Two sets whose later turns change what earlier ones are read with (a home told after a turn with
    a start before it; decisions replaced and returned to): the second ingest of the file adds no row."""
    src = Path(__file__).parent / "sets" / "convo_blind" / name / "conversations.jsonl"
    with Store.open(tmp_path / "again.db") as store:
        first = store.facts.ingest_file(src, signals=True)
        again = store.facts.ingest_file(src, signals=True)
    assert first.fact_rows > 100
    assert (again.fact_rows, again.queued, again.conflicts, again.evolutions, again.corrections) == (0, 0, 0, 0, 0)
