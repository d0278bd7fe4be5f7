"""docs/DESIGN.md §2's worked example, through the Python API and the CLI JSON."""

from __future__ import annotations

import json

from memdesk import iso
from memdesk.app.cli import main

from .helpers import day, worked_example


def view(store, t, known=None):
    out = {}
    for subject in ("user:me", "project:home"):
        for f in store.facts.as_of(subject, valid_at=t, known_at=known if known is not None else day(40)):
            out[f.predicate] = f.object
    return out


def test_as_of_views_t10_t25_t35(store):
    store.facts.add(worked_example())
    assert view(store, day(10)) == {"lives_in": "徐家汇", "allergy": "花生", "name": "王工",
                                    "budget_limit": "5000 元"}
    assert view(store, day(25))["lives_in"] == "张江"
    assert view(store, day(25))["budget_limit"] == "5000 元"
    assert view(store, day(35))["lives_in"] == "张江"
    assert view(store, day(35))["budget_limit"] == "6500 元"


def test_eight_rows_two_retired_six_believed_four_valid_now(store):
    store.facts.add(worked_example())
    rows = store.facts.history("user:me") + store.facts.history("project:home")
    assert len(rows) == 8
    assert sum(r.retired_at is not None for r in rows) == 2
    believed = [r for r in rows if r.retired_at is None]
    assert len(believed) == 6
    assert len([r for r in believed if r.valid_at(day(40))]) == 4


def test_day_20_belief_about_day_35(store):
    store.facts.add(worked_example())
    then = store.facts.as_of("project:home", "budget_limit", valid_at=day(35), known_at=day(20))
    assert [f.object for f in then] == ["5000 元"]
    now = store.facts.as_of("project:home", "budget_limit", valid_at=day(35), known_at=day(40))
    assert [f.object for f in now] == ["6500 元"]
    assert now[0].value == {"amount": 6500, "currency": "CNY"}


def test_superseded_row_is_closed_copy_recorded_at_change(store):
    store.facts.add(worked_example())
    rows = store.facts.history("user:me", "lives_in")
    retired = [r for r in rows if r.retired_at is not None]
    assert len(retired) == 1 and retired[0].object == "徐家汇"
    assert retired[0].told_until == day(18) and retired[0].valid_to is None
    copy = next(r for r in rows if r.copy_of == retired[0].id)
    assert (copy.valid_from, copy.valid_to, copy.told_from) == (day(1), day(18), day(18))
    new = next(r for r in rows if r.object == "张江")
    assert (new.valid_from, new.valid_to, new.told_from) == (day(18), None, day(18))
    # written by this store in one import: one recorded instant for the retirement and both rows
    assert retired[0].retired_at == copy.recorded_at == new.recorded_at


def _write_jsonl(path, claims):
    lines = []
    for c in claims:
        lines.append(json.dumps({
            "subject": c.subject, "predicate": c.predicate, "object": c.object,
            "valid_from": iso(c.valid_from, 480), "value": c.value, "change": c.change,
            "confidence": c.confidence,
            "source": {"session": c.source.session, "turn": c.source.turn, "kind": c.source.kind,
                       "text": c.source.text, "time": iso(c.source.time, 480)},
        }, ensure_ascii=False))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def run_json(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_worked_example_through_cli_json(store_url, tmp_path, capsys):
    data = tmp_path / "example.jsonl"
    _write_jsonl(data, worked_example())
    summary = run_json(capsys, "--db", store_url, "import", str(data), "--json")
    assert summary["asserted"] == 4 and summary["evolutions"] == 2 and summary["fact_rows"] == 8

    def objects(subject, valid, known="2026-04-10T10:00:00+08:00"):
        rows = run_json(capsys, "--db", store_url, "facts", "--subject", subject,
                        "--valid-at", valid, "--known-at", known, "--json")
        return {r["predicate"]: r["object"] for r in rows}

    assert objects("user:me", "2026-03-10T10:00:00+08:00")["lives_in"] == "徐家汇"
    assert objects("user:me", "2026-03-25T10:00:00+08:00")["lives_in"] == "张江"
    assert objects("project:home", "2026-03-25T10:00:00+08:00")["budget_limit"] == "5000 元"
    assert objects("project:home", "2026-04-04T10:00:00+08:00")["budget_limit"] == "6500 元"
    assert objects("project:home", "2026-04-04T10:00:00+08:00",
                   known="2026-03-20T10:00:00+08:00")["budget_limit"] == "5000 元"
    [then] = run_json(capsys, "--db", store_url, "facts", "--subject", "project:home",
                      "--valid-at", "2026-04-04T10:00:00+08:00",
                      "--known-at", "2026-03-20T10:00:00+08:00", "--json")
    assert then["status"] == "active"  # as told by day 20; retired only on day 30
    assert then["known_until"] == "2026-03-30T10:00:00+08:00"
    assert then["retired_at"] is not None  # when this store wrote that: the import

    rows = run_json(capsys, "--db", store_url, "facts", "--subject", "user:me", "--all", "--json")
    assert len(rows) == 5  # lives_in: retired open row, closed copy, 张江; allergy; name
    for field in ("id", "subject", "predicate", "object", "value", "polarity", "scope",
                  "valid_from", "valid_to", "recorded_at", "retired_at", "confidence",
                  "source", "event_time", "extractor", "status"):
        assert field in rows[0]
    assert set(rows[0]["source"]) >= {"session", "turn", "text", "kind", "time"}
    assert {r["status"] for r in rows} == {"active", "superseded"}

    queries = tmp_path / "q.jsonl"
    queries.write_text(
        '{"id": "q10", "subject": "user:me", "predicate": "lives_in", "valid_at": "2026-03-10T10:00:00+08:00"}\n'
        '{"id": "q-day20", "subject": "project:home", "predicate": "budget_limit", '
        '"valid_at": "2026-04-04T10:00:00+08:00", "known_at": "2026-03-20T10:00:00+08:00"}\n',
        encoding="utf-8")
    code = main(["--db", store_url, "facts", "--batch", str(queries), "--json"])
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 0
    assert [o["id"] for o in out] == ["q10", "q-day20"]
    assert out[0]["results"][0]["object"] == "徐家汇"
    assert out[1]["results"][0]["object"] == "5000 元"

    audit = run_json(capsys, "--db", store_url, "audit", "--subject", "user:me",
                     "--predicate", "lives_in", "--object", "张江", "--json")
    assert audit["decided_at"] == "2026-03-18T10:00:00+08:00"
    assert audit["fact"]["object"] == "张江"
    steps = [s["step"] for s in audit["chain"]]
    assert steps[:4] == ["turn", "extraction", "gates", "assertion"]
    assert audit["chain"][0]["summary"] == "我搬到张江了"
