"""The command line's rough edges as a new user meets them: a one-line error
or the sensible behaviour, never a traceback, and no store file left behind
by a command that failed or should not have made one."""

from __future__ import annotations

import json
from pathlib import Path

from memdesk.app.cli import main
from memdesk.ingest import demo_files


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_ingesting_a_folder_is_a_one_line_error_and_leaves_no_store(tmp_path, capsys):
    code, _, err = run(capsys, "--db", str(tmp_path / "x.db"), "ingest", str(tmp_path))
    assert code == 1 and err.strip() == f"memdesk: error: {tmp_path} is a folder, not a file"
    assert not list(tmp_path.glob("x.db*"))


def test_a_file_that_is_not_a_store_is_named(tmp_path, capsys):
    conversation = demo_files()[0]
    code, _, err = run(capsys, "--db", str(conversation), "facts", "--subject", "user:alice")
    assert code == 1 and "is not a memdesk store" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_a_read_command_on_a_mistyped_store_creates_nothing(tmp_path, capsys):
    for argv in (["facts", "--subject", "user:alice"], ["review", "list"], ["conflicts"],
                 ["audit", "--subject", "user:alice", "--predicate", "lives_in"],
                 ["recall", "where"]):
        code, out, err = run(capsys, "--db", str(tmp_path / "tpyo.db"), *argv)
        assert code == 1 and "no memdesk store at" in err and not out, argv
    assert not list(tmp_path.iterdir())


def test_a_failed_ingest_leaves_no_empty_store_and_an_existing_one_unchanged(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"session": "s", "turn": 1}\n{not json\n', encoding="utf-8")
    code, _, err = run(capsys, "--db", str(tmp_path / "new.db"), "ingest", str(bad))
    assert code == 1 and "bad.jsonl:1" in err
    assert not list(tmp_path.glob("new.db*"))
    store = tmp_path / "kept.db"
    assert run(capsys, "--db", str(store), "ingest", str(demo_files()[0]))[0] == 0
    size = store.stat().st_size
    assert run(capsys, "--db", str(store), "ingest", str(bad))[0] == 1
    assert store.exists() and store.stat().st_size == size


def test_a_store_holds_nothing_until_a_turn_or_claim_is_written(tmp_path, capsys):
    """What the command line asks before removing a store a failed command made
    (``Store.holds_nothing``, read through the store, not a second connection)."""
    from memdesk import Store

    with Store.open(tmp_path / "s.db") as store:
        assert store.holds_nothing()
    assert run(capsys, "--db", str(tmp_path / "s.db"), "ingest", str(demo_files()[0]))[0] == 0
    with Store.open(tmp_path / "s.db") as store:
        assert not store.holds_nothing()


def test_demo_hints_name_the_store_they_were_built_in(tmp_path, capsys):
    db = tmp_path / "demo.db"
    code, out, _ = run(capsys, "--db", str(db), "demo")
    assert code == 0
    hints = [line.strip() for line in out.splitlines() if line.startswith("  memdesk")]
    assert hints and all(h.startswith(f"memdesk --db {db} ") for h in hints)
    code, out, _ = run(capsys, *hints[0].split()[1:], "--json")
    assert code == 0 and json.loads(out)  # run as printed, it answers from that store


def test_a_bare_day_is_read_as_the_end_of_that_day_locally_and_said(tmp_path, capsys):
    db = tmp_path / "demo.db"
    assert run(capsys, "--db", str(db), "ingest", str(_alice()))[0] == 0
    code, out, err = run(capsys, "--db", str(db), "facts", "--subject", "user:alice",
                         "--predicate", "lives_in", "--valid-at", "2026-03-10", "--json")
    assert code == 0 and "read as 2026-03-10T23:59:59" in err and "end of that day" in err
    assert [f["object"] for f in json.loads(out)] == ["徐家汇"]
    code, _, err = run(capsys, "--db", str(db), "facts", "--subject", "user:alice",
                       "--valid-at", "2026-03-10T10:00")  # a time without an offset: still refused
    assert code == 1 and "offset" in err


def _alice() -> Path:
    return next(p for p in demo_files() if p.name == "alice-reno.jsonl")
