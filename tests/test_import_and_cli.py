"""`memdesk import` and the CLI contract: validation names the line and writes
nothing, re-import adds nothing, errors go to stderr without tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from memdesk import InputFileError, Store
from memdesk.app.cli import main

DEMO = Path(__file__).resolve().parent.parent / "data" / "demo" / "facts.jsonl"

GOOD = {
    "subject": "user:alice", "predicate": "lives_in", "object": "张江",
    "valid_from": "2026-03-14T00:00:00+08:00", "valid_to": None, "value": None,
    "polarity": "positive", "scope": "global", "confidence": 0.92, "change": "evolution",
    "source": {"session": "s1", "turn": 18, "speaker": "user", "kind": "user_explicit",
               "text": "我上周末搬到张江了", "time": "2026-03-18T09:30:00+08:00"},
    "extractor": "my-llm-pipeline@3",
}


def write(path: Path, *lines: object) -> Path:
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x, ensure_ascii=False)
                              for x in lines) + "\n", encoding="utf-8")
    return path


def variant(**changes):
    d = json.loads(json.dumps(GOOD))
    for key, value in changes.items():
        if "." in key:
            outer, inner = key.split(".")
            if value is ...:
                d[outer].pop(inner)
            else:
                d[outer][inner] = value
        elif value is ...:
            d.pop(key)
        else:
            d[key] = value
    return d


def other_turn(n: int) -> dict:
    return variant(**{"source.turn": n, "object": f"place {n}"})


BAD_LINES = [
    ("{not json", "not valid JSON"),
    ('["a list"]', "expected a JSON object"),
    (variant(subject=...), "missing required field 'subject'"),
    (variant(object=""), "object must not be empty"),
    (variant(source=...), "missing required field 'source'"),
    (variant(**{"source.time": "2026-03-18T09:30:00"}), "no UTC offset"),
    (variant(valid_from="2026-03-14"), "no UTC offset"),
    (variant(valid_from="yesterday"), "not an ISO 8601 time"),
    (variant(confidence=1.5), "between 0 and 1"),
    (variant(confidence="high"), "confidence must be a number"),
    (variant(change="moved"), "change must be"),
    (variant(polarity="maybe"), "polarity must be"),
    (variant(predicate="Lives In"), "snake_case"),
    (variant(subject="alice"), "subject must look like"),
    (variant(**{"source.turn": "18"}), "source.turn must be a whole number"),
    (variant(valid_to="2026-03-01T00:00:00+08:00"),
     "valid_to 2026-03-01T00:00:00+08:00 is before valid_from 2026-03-14T00:00:00+08:00: "
     "an interval must end after it starts"),
    (variant(extra_field=1), "unknown field"),
    (variant(object="a\u0000b"), "NUL"),
]


@pytest.mark.parametrize("bad,message", BAD_LINES, ids=[m for _, m in BAD_LINES])
def test_bad_line_names_its_number_and_nothing_is_written(tmp_path, bad, message):
    path = write(tmp_path / "in.jsonl", other_turn(1), other_turn(2), bad, other_turn(4))
    with Store.open(tmp_path / "m.db") as store:
        with pytest.raises(InputFileError) as err:
            store.facts.import_file(path)
        assert err.value.line == 3
        assert message in str(err.value)
        assert store.facts.history("user:alice") == []


def test_same_turn_with_other_text_in_one_file(tmp_path):
    path = write(tmp_path / "in.jsonl", GOOD, variant(**{"source.text": "changed", "object": "x"}))
    with Store.open(tmp_path / "m.db") as store, pytest.raises(InputFileError) as err:
        store.facts.import_file(path)
    assert err.value.line == 2 and "differs from line 1" in str(err.value)


def test_turn_already_stored_with_other_text_names_line(store_url, tmp_path):
    with Store.open(store_url) as store:
        store.facts.import_file(write(tmp_path / "a.jsonl", GOOD))
        bad = write(tmp_path / "b.jsonl", other_turn(30), variant(**{"source.text": "其实没搬"}))
        with pytest.raises(InputFileError) as err:
            store.facts.import_file(bad)
        assert err.value.line == 2 and "already stored" in str(err.value)
        assert len(store.facts.history("user:alice")) == 1  # line 1 of b.jsonl was rolled back


def test_demo_file_imports_and_reimport_adds_nothing(store_url):
    with Store.open(store_url) as store:
        first = store.facts.import_file(DEMO)
        assert first.fact_rows > 0 and first.conflicts == 1 and first.queued == 3
        counts = _count_rows(store)
        again = store.facts.import_file(DEMO)
        assert again.unchanged == again.lines and again.fact_rows == 0
        assert _count_rows(store) == counts


def _count_rows(store):
    from memdesk.db.tables import AUDIT, CLAIM, CONFLICT, FACT, TURN
    from sqlalchemy import func, select

    with store.engine.connect() as conn:
        return {t.name: conn.execute(select(func.count()).select_from(t)).scalar_one()
                for t in (FACT, CLAIM, TURN, CONFLICT, AUDIT)}


# ---------------------------------------------------------------- the CLI
def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_error_goes_to_stderr_with_line_number(tmp_path, capsys):
    path = write(tmp_path / "in.jsonl", GOOD, variant(**{"source.time": "2026-03-18 09:30"}))
    code, out, err = run(capsys, "--db", tmp_path / "m.db", "import", path, "--json")
    assert code == 1 and out == ""
    assert "in.jsonl:2" in err and "no UTC offset" in err and "Traceback" not in err


@pytest.mark.parametrize("argv,message", [
    (["facts", "--json"], "needs --subject"),
    (["facts", "--subject", "user:a", "--valid-at", "2026-03-01T10:00"], "no UTC offset"),
    (["audit", "--subject", "user:a", "--predicate", "lives_in", "--object", "x"], "was never"),
    (["review", "approve", "42", "--by", "lin"], "no review candidate"),
    (["review", "reject", "42", "--by", "lin", "--reason", "x"], "no review candidate"),
    (["conflicts", "resolve", "7", "--keep", "existing", "--by", "lin"], "no conflict"),
    (["import", "/nonexistent/file.jsonl"], "no such file"),
])
def test_cli_user_mistakes(tmp_path, capsys, argv, message):
    Store.open(tmp_path / "m.db").close()  # read commands need an existing store
    code, out, err = run(capsys, "--db", tmp_path / "m.db", *argv)
    assert code == 1 and message in err and "Traceback" not in err


def test_cli_bad_db_url(tmp_path, capsys):
    code, _, err = run(capsys, "--db", "mysql://nobody@localhost/x", "facts", "--subject", "user:a")
    assert code == 1 and "unsupported database backend" in err
    code, _, err = run(capsys, "--db", tmp_path / "no" / "such" / "dir.db", "facts", "--subject", "user:a")
    assert code == 1 and "folder does not exist" in err


def test_cli_review_flow_and_tables(tmp_path, capsys):
    db = tmp_path / "m.db"
    assert run(capsys, "--db", db, "import", DEMO)[0] == 0
    code, out, _ = run(capsys, "--db", db, "review", "list", "--json")
    items = json.loads(out)
    assert code == 0 and len(items) == 3
    for field in ("id", "subject", "predicate", "object", "confidence", "reasons", "state", "source"):
        assert field in items[0]
    assert [i["confidence"] for i in items] == sorted(i["confidence"] for i in items)
    first = items[0]["id"]
    code, out, _ = run(capsys, "--db", db, "review", "approve", first, "--by", "lin", "--json")
    assert code == 0 and json.loads(out)["candidate"]["decided_by"] == "lin"
    code, _, err = run(capsys, "--db", db, "review", "approve", first, "--by", "mo")
    assert code == 1 and "not pending" in err and "lin" in err
    code, out, _ = run(capsys, "--db", db, "review", "reject", items[1]["id"], "--by", "mo",
                       "--reason", "guess", "--json")
    assert code == 0 and json.loads(out)["state"] == "rejected"
    code, out, _ = run(capsys, "--db", db, "review", "approve", items[2]["id"], "--by", "mo",
                       "--edit", "object=renew passport (EU)", "--json")
    assert code == 0 and json.loads(out)["candidate"]["edits"] == {"object": "renew passport (EU)"}
    code, out, _ = run(capsys, "--db", db, "review", "list")
    assert code == 0 and "no pending candidates" in out


def test_cli_conflicts_list_and_resolve(tmp_path, capsys):
    db = tmp_path / "m.db"
    run(capsys, "--db", db, "import", DEMO)
    code, out, _ = run(capsys, "--db", db, "conflicts", "--json")
    [c] = json.loads(out)
    assert code == 0 and {"id", "kind", "state", "facts"} <= set(c)
    assert [f["object"] for f in c["facts"]] == ["bike", "tram"]
    code, out, _ = run(capsys, "--db", db, "conflicts")
    assert "conflict 1 [open]" in out and "tram" in out
    code, out, _ = run(capsys, "--db", db, "conflicts", "resolve", c["id"], "--keep", "incoming",
                       "--by", "lin", "--json")
    assert code == 0 and json.loads(out)["resolution"] == "incoming"
    code, out, _ = run(capsys, "--db", db, "facts", "--subject", "user:bob", "--predicate", "commute", "--json")
    assert [f["object"] for f in json.loads(out)] == ["tram"]
    code, out, _ = run(capsys, "--db", db, "conflicts", "--json")
    assert json.loads(out) == []


def test_cli_facts_table_shows_a_rejected_option_as_not(tmp_path, capsys):
    conv = tmp_path / "c.jsonl"
    turns = [("assistant", "年会场地您倾向于酒店宴会厅还是创意园区？"), ("user", "园区吧，宴会厅就不考虑了。")]
    conv.write_text("".join(json.dumps({"session": "s1", "turn": i + 1, "speaker": who, "user": "wang", "project": "gala",
                                        "time": f"2026-03-18T09:0{i}:00+08:00", "text": text}, ensure_ascii=False) + "\n"
                            for i, (who, text) in enumerate(turns)), encoding="utf-8")
    db = tmp_path / "m.db"
    assert run(capsys, "--db", db, "ingest", conv)[0] == 0
    code, out, _ = run(capsys, "--db", db, "facts", "--subject", "project:gala")
    lines = out.splitlines()
    assert code == 0 and any("创意园区" in line and "not 创意园区" not in line for line in lines)
    assert any("not 酒店宴会厅" in line for line in lines)


def test_cli_predicates_lists_uncatalogued(tmp_path, capsys):
    db = tmp_path / "m.db"
    run(capsys, "--db", db, "import", DEMO)
    code, out, _ = run(capsys, "--db", db, "predicates", "--json")
    items = {p["id"]: p for p in json.loads(out)}
    assert code == 0 and items["favourite_team"]["catalogued"] is False
    for pid in ("lives_in", "name", "allergy", "diet", "likes", "dislikes", "budget_limit",
                "decision", "plan", "todo", "works_at", "pet", "commute"):
        assert items[pid]["catalogued"] and items[pid]["zh"] and items[pid]["en"]


def test_cli_tables_line_up(tmp_path, capsys):
    db = tmp_path / "m.db"
    run(capsys, "--db", db, "import", DEMO)
    code, out, _ = run(capsys, "--db", db, "facts", "--subject", "user:alice")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("id") and "张江" in out
    from memdesk.app.tables import width

    sep = lines[1]
    col = sep.index("  ", sep.index("  ") + 2)  # end of the second column
    assert all(width(line[:col]) <= col + 1 for line in lines)


def test_console_script_runs_without_traceback(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "memdesk.app", "--db", str(tmp_path / "m.db"), "facts",
                           "--subject", "user:a", "--valid-at", "bad"],
                          capture_output=True, text=True)
    assert proc.returncode == 1 and "memdesk: error:" in proc.stderr and "Traceback" not in proc.stderr


def test_core_never_imports_ui():
    code = ("import sys, memdesk, memdesk.store, memdesk.writer; "
            "bad = [m for m in sys.modules if m == 'memdesk.app' or m.startswith(('memdesk.app.', 'textual'))]; "
            "print(bad); sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_import_memdesk_is_the_public_face(tmp_path):
    """What an agent developer used to ``from mem0 import Memory`` types first: the
    engine is ``memdesk`` itself (core/ installed as the package), its names at the top."""
    code = ("import sys, memdesk; from memdesk import Memory, Store, Fact, InvalidInput, ClaimInput; "
            f"m = Memory.open({str(tmp_path / 'm.db')!r}); "
            "m.remember([{'role': 'user', 'content': 'I live in Leeds.', 'time': '2026-03-18T09:30:00+00:00'}], user='ann'); "
            "print([f.object for f in m.facts(user='ann')]); m.close(); "
            "print([n for n in memdesk.__all__ if not hasattr(memdesk, n)]); "
            "print([n for n in sys.modules if n.startswith(('memdesk.app', 'textual', 'mcp'))])")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    facts, missing, loaded = proc.stdout.splitlines()[-3:]
    assert "Leeds" in facts and missing == "[]" and loaded == "[]", proc.stdout


# ------------------------------------------------- large files: parsed in parallel
def test_parallel_parse_gives_the_same_store(tmp_path):
    with Store.open(tmp_path / "seq.db") as seq, Store.open(tmp_path / "par.db") as par:
        a = seq.facts.import_file(DEMO, parallel=False)
        b = par.facts.import_file(DEMO, parallel=True)
        assert a == b
        for subject in ("user:alice", "user:bob", "project:launch"):
            strip = [f._replace(recorded_at=0, retired_at=0) for f in seq.facts.history(subject)]
            assert strip == [f._replace(recorded_at=0, retired_at=0) for f in par.facts.history(subject)]


@pytest.mark.parametrize("bad,message", [(BAD_LINES[0][0], "not valid JSON"),
                                         (BAD_LINES[5][0], "no UTC offset")])
def test_parallel_parse_bad_line_rolls_back(tmp_path, monkeypatch, bad, message):
    from memdesk import parallel_parse

    monkeypatch.setattr(parallel_parse, "CHUNK_LINES", 2)  # several chunks written before the error
    lines = [other_turn(n) for n in range(1, 8)] + [bad] + [other_turn(20)]
    path = write(tmp_path / "in.jsonl", *lines)
    with Store.open(tmp_path / "m.db") as store:
        with pytest.raises(InputFileError) as err:
            store.facts.import_file(path, parallel=True)
        assert err.value.line == 8 and message in str(err.value)
        assert store.facts.history("user:alice") == [] and _count_rows(store)["turn"] == 0


def test_parallel_parse_missing_file(tmp_path):
    with Store.open(tmp_path / "m.db") as store, pytest.raises(FileNotFoundError):
        store.facts.import_file(tmp_path / "nope.jsonl", parallel=True)


def test_a_postgres_store_without_its_driver_names_the_extra(monkeypatch):
    from memdesk import MissingExtra

    monkeypatch.setitem(sys.modules, "psycopg", None)  # as if `pip install memdesk` without [postgres]
    with pytest.raises(MissingExtra, match=r"psycopg.*pip install 'memdesk\[postgres\]'") as caught:
        Store.open("postgresql://memdesk@127.0.0.1:1/none")
    assert isinstance(caught.value, ImportError) and "\n" not in str(caught.value)
