"""The command line says what things are (issue 31 §6, §7): one default store
for the app and the commands, ``--db`` before or after the command,
``MEMDESK_DB``; ingest's table names what it counts; every recall row names
its subject and date; ``review show`` cuts nothing; an as-of view shows no
later retirement; each side of a conflict names its predicate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memdesk.app.cli import main

LINES = [
    {"session": "s", "turn": 1, "speaker": "user", "user": "bob",
     "time": "2026-05-01T09:05:00+02:00", "text": "I love sushi and I live in Leeds."},
    {"session": "s", "turn": 2, "speaker": "user", "user": "bob",
     "time": "2026-05-03T09:06:00+02:00", "text": "I hate sushi."},
    {"session": "s", "turn": 3, "speaker": "user", "user": "bob",
     "time": "2026-05-04T09:06:00+02:00", "text": "ok"},
    {"session": "t", "turn": 1, "speaker": "user", "user": "ann",
     "time": "2026-05-02T09:06:00+02:00", "text": "I live in York."},
    {"session": "s", "turn": 4, "speaker": "user", "user": "bob",
     "time": "2026-06-01T09:06:00+02:00", "text": "I moved to Bath last week."},
    {"session": "s", "turn": 5, "speaker": "user", "user": "bob",
     "time": "2026-06-02T09:06:00+02:00",
     "text": "I might be working at Initech now, not 100% sure, I'll know by Friday."},
]


def run(capsys, *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def store(tmp_path, capsys) -> Path:
    conv = tmp_path / "c.jsonl"
    conv.write_text("".join(json.dumps(line) + "\n" for line in LINES), encoding="utf-8")
    db = tmp_path / "m.db"
    code, out, err = run(capsys, "--db", db, "ingest", conv)
    assert code == 0, err
    return db


def test_ingest_says_what_it_counts(tmp_path, capsys):
    conv = tmp_path / "c.jsonl"
    conv.write_text("".join(json.dumps(line) + "\n" for line in LINES), encoding="utf-8")
    code, out, _ = run(capsys, "--db", tmp_path / "m.db", "ingest", conv)
    rows = dict(line.rsplit(None, 1) for line in out.splitlines()[2:])
    assert rows["turns read"] == str(len(LINES)) and rows["turns without a fact"] == "1"
    assert "lines" not in rows and "dropped" not in rows
    code, out, _ = run(capsys, "--db", tmp_path / "m.db", "ingest", conv, "--json")
    assert {"lines", "dropped"} <= set(json.loads(out))  # the JSON contract keeps its keys


def test_db_after_the_command_and_memdesk_db(store, capsys, monkeypatch, tmp_path):
    code, after, err = run(capsys, "facts", "--db", store, "--subject", "user:bob")
    assert code == 0 and "Bath" in after, err
    assert "turns read" not in after
    code, before, _ = run(capsys, "--db", store, "facts", "--subject", "user:bob")
    assert before == after
    code, out, err = run(capsys, "--db", tmp_path / "nowhere.db", "facts", "--db", store,
                         "--subject", "user:bob")
    assert code == 0 and out == after  # the one after the command counts
    monkeypatch.setenv("MEMDESK_DB", str(store))
    code, out, err = run(capsys, "facts", "--subject", "user:bob")
    assert code == 0 and out == after, err


def test_one_default_store_for_the_app_and_the_commands(store, capsys, monkeypatch, tmp_path):
    home = tmp_path / "cwd"
    home.mkdir()
    monkeypatch.chdir(home)
    monkeypatch.delenv("MEMDESK_DB", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    code, _, err = run(capsys, "review", "list")
    assert code == 1 and "--db PATH" in err and "MEMDESK_DB" in err and "`memdesk`" in err
    assert len(err.strip().splitlines()) == 1
    demo = tmp_path / "data" / "memdesk" / "demo.db"  # where the app keeps its demo store
    demo.parent.mkdir(parents=True)
    demo.write_bytes(store.read_bytes())
    code, out, err = run(capsys, "facts", "--subject", "user:bob")
    assert code == 0 and "Bath" in out and f"using the demo store at {demo}" in err
    from memdesk.app.cli import _app_store
    from memdesk.app.config import load_settings

    assert _app_store(load_settings(None)) == str(demo)  # the app opens that one too
    assert "using the demo store" in capsys.readouterr().err
    (home / "memdesk.db").write_bytes(store.read_bytes())
    code, out, err = run(capsys, "facts", "--subject", "user:ann")
    assert code == 0 and "York" in out and "demo store" not in err
    assert _app_store(load_settings(None)) == "memdesk.db"


def test_every_recall_row_names_its_subject_and_date(store, capsys):
    code, out, err = run(capsys, "--db", store, "recall", "where does someone live", "-k", "6",
                         "--over", "turns", "--embedder", "use")
    assert code == 0, err
    head, _, *rows = out.splitlines()
    assert "subject" in head.split() and "date" in head.split()
    assert rows and all(("user:bob" in r) != ("user:ann" in r) for r in rows)
    assert any("2026-05-02" in r and "user:ann" in r for r in rows)


def test_review_show_cuts_nothing(store, capsys):
    code, out, _ = run(capsys, "--db", store, "review", "list", "--json")
    pending = json.loads(out)
    assert pending
    for c in pending:
        code, out, err = run(capsys, "--db", store, "review", "show", c["id"])
        assert code == 0, err
        for reason in c["reasons"]:
            assert reason in out


def test_an_as_of_view_shows_no_later_retirement(store, capsys):
    code, out, _ = run(capsys, "--db", store, "facts", "--subject", "user:bob",
                       "--predicate", "lives_in", "--known-at", "2026-05-10T00:00:00+02:00")
    head, *rows = out.splitlines()
    (row,) = [r for r in rows if "Leeds" in r]
    retired = row[head.index("retired"):head.index("status")]
    assert "active" in row and not retired.strip()  # not retired as known then
    code, out, _ = run(capsys, "--db", store, "facts", "--subject", "user:bob",
                       "--predicate", "lives_in", "--all")
    head, *rows = out.splitlines()
    later = [r[head.index("retired"):head.index("status")].strip() for r in rows
             if "Leeds" in r and "superseded" in r]
    assert any(later)  # the full history shows it


def test_each_side_of_a_conflict_names_its_predicate(store, capsys):
    code, out, err = run(capsys, "--db", store, "conflicts", "show", "1")
    assert code == 0, err
    lines = out.splitlines()
    assert "predicate" in lines[1].split()
    fact = next(line for line in lines if line.startswith("fact "))
    incoming = next(line for line in lines if line.startswith("incoming "))
    assert " likes " in fact and " dislikes " in incoming
    assert "incoming dislikes sushi rejected" in out


def test_the_apps_first_demo_store_is_embedded_for_recall(tmp_path, monkeypatch, capsys):
    """The demo store the app builds on first use has its turns embedded,
    as ``memdesk demo`` leaves it: a recall over turns finds them at once
    (before, the app said "raw turns are not embedded yet")."""
    from memdesk import Store
    from memdesk.app.cli import _app_store
    from memdesk.app.config import load_settings

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MEMDESK_DB", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    built = _app_store(load_settings(None))
    assert built == str(tmp_path / "data" / "memdesk" / "demo.db")
    assert "embedding memories and turns" in capsys.readouterr().err
    with Store.open(built) as store, store.engine.connect() as conn:
        from sqlalchemy import text

        stored = conn.execute(text("SELECT count(*) FROM turn")).scalar()
        embedded = conn.execute(text(
            "SELECT count(DISTINCT item_id) FROM recall_vector WHERE kind = 'turn'")).scalar()
    assert stored and embedded == stored
