"""`memdesk export` / `memdesk restore`: a restored store exports the same
bytes and answers the public queries with the same JSON, on both backends and
across them (SQLite → PostgreSQL → SQLite); a bad export is refused naming
its line, and nothing is written."""

from __future__ import annotations

import io
import json
import re
from datetime import datetime
from pathlib import Path

import pytest
from memdesk import InputFileError, ManualClock, StoreError
from memdesk.app.cli import main
from memdesk.ingest import demo_files
from memdesk.recall import Recaller
from sqlalchemy import text

from .recall_fixtures import HashEmbedder

ROOT = Path(__file__).resolve().parent.parent
REVIEW = ROOT / "data" / "demo" / "review.jsonl"
NOW = "2026-06-01T00:00:00+00:00"


def _open(url):
    from memdesk import Store

    return Store.open(url, clock=ManualClock(datetime.fromisoformat(NOW)))


def build_rich_store(url: str, tmp_path: Path) -> None:
    """Turns, facts of every kind of change, candidates decided both ways, a
    resolved and an open conflict, a retraction, recall vectors."""
    with _open(url) as store:
        for path in demo_files()[:3]:
            store.facts.ingest_file(path)
        store.facts.import_file(REVIEW, actor="demo")
        pending = store.review.list()
        store.review.approve(pending[0].id, by="ann", note="checked")
        store.review.reject(pending[1].id, by="bob", reason="a guess")
        conflicts = store.conflicts.list()
        if conflicts:
            store.conflicts.resolve(conflicts[0].id, "existing", by="ann", reason="kept")
        fact = store.facts.current("user:alice")[0]
        store.facts.retract(fact.id, by="ann", reason="never said")
        Recaller(store, embedder=HashEmbedder(), index_dir=tmp_path / "idx").search("张江", k=3)


def export_text(url: str, **kw) -> str:
    out = io.StringIO()
    with _open(url) as store:
        store.admin.export(out, **kw)
    return out.getvalue()


def public_queries(url: str) -> str:
    """The JSON of the public reads, as one string to compare."""
    with _open(url) as store:
        out = {}
        for subject in store.facts.subjects():
            out[f"facts {subject}"] = store.facts.as_json(store.facts.history(subject))
            out[f"asof {subject}"] = store.facts.as_json(store.facts.as_of(
                subject, valid_at=store.now(), known_at=store.now() - 60 * 86_400_000_000))
        out["review"] = [c.to_dict() for c in store.review.list("all")]
        out["conflicts"] = [c.to_dict() for c in store.conflicts.list("all")]
        out["audit"] = store.audit.of("user:alice", "lives_in").to_dict()
        out["memories"] = store.facts.memories()
        return json.dumps(out, ensure_ascii=False, sort_keys=True, default=str)


def _fresh_pg(pg_server) -> str:
    from .pgserver import reset_pg

    reset_pg(pg_server.url)
    return pg_server.url


def test_round_trip_is_identical(store_url, tmp_path):
    build_rich_store(store_url, tmp_path)
    original = export_text(store_url)
    header = json.loads(original.splitlines()[0])
    assert header["kind"] == "memdesk-export" and header["tables"]["recall_vector"] > 0
    assert all(header["tables"][t] > 0 for t in ("turn", "claim", "fact", "memory", "conflict",
                                                 "audit_log", "store_meta"))
    queries = public_queries(store_url)
    dump = tmp_path / "export.jsonl"
    dump.write_text(original, encoding="utf-8")

    target = str(tmp_path / "restored.db")
    with _open(target) as store:
        counts = store.admin.restore(dump)
    assert counts.to_dict() == header["tables"]
    assert export_text(target) == original
    assert public_queries(target) == queries
    # the hash chain travels with the rows: the restored store verifies, before
    # and after a new write
    with _open(target) as store:
        assert store.audit.verify().ok
        store.review.reject(store.review.list()[0].id, by="carl", reason="after restore")
        assert store.audit.verify().ok


@pytest.mark.postgres
def test_sqlite_to_postgres_and_back(tmp_path, pg_server):
    lite = str(tmp_path / "a.db")
    build_rich_store(lite, tmp_path)
    original = export_text(lite)
    queries = public_queries(lite)
    dump = tmp_path / "a.jsonl"
    dump.write_text(original, encoding="utf-8")

    pg = _fresh_pg(pg_server)
    assert main(["--db", pg, "restore", str(dump), "--json"]) == 0
    assert export_text(pg) == original
    assert public_queries(pg) == queries
    back = tmp_path / "b.jsonl"
    assert main(["--db", pg, "export", "--out", str(back)]) == 0
    assert back.read_text(encoding="utf-8") == original

    again = str(tmp_path / "c.db")
    assert main(["--db", again, "restore", str(back)]) == 0
    assert export_text(again) == original
    assert public_queries(again) == queries

    # the id sequences were moved past the restored ids: a plain insert gets a new id
    with _open(pg) as store, store.engine.begin() as conn:
        top = conn.execute(text("SELECT max(id) FROM fact")).scalar()
        nxt = conn.execute(text("SELECT nextval(pg_get_serial_sequence('fact', 'id'))")).scalar()
        assert nxt == top + 1
        # and the restored store takes new writes
    with _open(pg) as store:
        assert store.audit.verify().ok
        cand = store.review.list()[0]
        store.review.reject(cand.id, by="carl", reason="after restore")
        assert store.audit.verify().ok


def test_export_without_vectors_and_cli(tmp_path, capsys):
    db = str(tmp_path / "a.db")
    build_rich_store(db, tmp_path)
    out = tmp_path / "x.jsonl"
    assert main(["--db", db, "export", "--out", str(out), "--no-vectors", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert "recall_vector" not in summary["tables"]
    assert not any('"table":"recall_vector"' in line for line in out.read_text().splitlines())
    assert main(["--db", str(tmp_path / "b.db"), "restore", str(out)]) == 0
    assert "reindex" in capsys.readouterr().out
    # to standard output
    assert main(["--db", db, "export"]) == 0
    assert capsys.readouterr().out == export_text(db)


def _valid_export(tmp_path: Path) -> list[str]:
    db = str(tmp_path / "src.db")
    with _open(db) as store:
        store.facts.ingest_file(demo_files()[0])
    return export_text(db).splitlines()


def _row(lines: list[str], table: str) -> int:
    return next(i for i, line in enumerate(lines) if f'"table":"{table}"' in line)


BAD = [
    ("header", lambda ls: ls.__setitem__(0, '{"kind": "something else"}'), 1, "not a memdesk export"),
    ("format", lambda ls: ls.__setitem__(0, ls[0].replace('"format":1', '"format":9')), 1,
     "format 9"),
    ("json", lambda ls: ls.__setitem__(3, ls[3][:-5]), 4, "not valid JSON"),
    ("table", lambda ls: ls.__setitem__(3, '{"table": "secrets", "row": {}}'), 4, "unknown table"),
    ("shape", lambda ls: ls.__setitem__(3, '[1, 2]'), 4, "expected"),
    ("type", lambda ls: ls.__setitem__(_row(ls, "fact"), re.sub(
        r'"confidence":[0-9.]+', '"confidence":"high"', ls[_row(ls, "fact")])), None,
     "fact.confidence must be a number"),
    ("column", lambda ls: ls.__setitem__(_row(ls, "turn"), ls[_row(ls, "turn")].replace(
        '"row":{', '"row":{"evil":1,')), None, "unknown column(s) of turn: evil"),
    ("duplicate", lambda ls: ls.insert(_row(ls, "turn") + 1, ls[_row(ls, "turn")]), None,
     "appears twice"),
    ("order", lambda ls: ls.append(ls[_row(ls, "audit_log")]), None, "must come before"),
    ("cut off", lambda ls: ls.pop(), None, "cut off"),
    ("nul", lambda ls: ls.__setitem__(_row(ls, "turn"), ls[_row(ls, "turn")].replace(
        '"text":"', '"text":"\\u0000')), None, "NUL"),
]


@pytest.mark.parametrize("name,spoil,line,message", BAD, ids=[b[0] for b in BAD])
def test_bad_export_is_refused_naming_the_line(tmp_path, name, spoil, line, message):
    lines = _valid_export(tmp_path)
    spoiled = list(lines)
    spoil(spoiled)
    if line is None:  # the first line that differs (or the last one for a cut-off file)
        line = next((i + 1 for i, (a, b) in enumerate(zip(lines, spoiled, strict=False))
                     if a != b), len(spoiled))
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(spoiled) + "\n", encoding="utf-8")
    target = str(tmp_path / "t.db")
    with _open(target) as store:
        with pytest.raises(InputFileError) as err:
            store.admin.restore(path)
        assert err.value.line == line, str(err.value)
        assert message in str(err.value)
    assert export_text(target).count("\n") == 2  # header + the new store's meta row only


def test_restore_needs_an_empty_store(store_url, tmp_path, capsys):
    lines = _valid_export(tmp_path)
    path = tmp_path / "x.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with _open(store_url) as store:
        store.facts.ingest_file(demo_files()[1])
        before = export_text(store_url)
        with pytest.raises(StoreError, match="empty store"):
            store.admin.restore(path)
    assert export_text(store_url) == before
    assert main(["--db", store_url, "restore", str(path)]) == 1
    err = capsys.readouterr().err
    assert "empty store" in err and "Traceback" not in err


def test_import_and_ingest_point_an_export_to_restore(tmp_path, capsys):
    path = tmp_path / "x.jsonl"
    path.write_text("\n".join(_valid_export(tmp_path)) + "\n", encoding="utf-8")
    db = str(tmp_path / "t.db")
    for command in ("import", "ingest"):
        assert main(["--db", db, command, str(path)]) == 1
        assert "x.jsonl:1: this file is a memdesk export" in capsys.readouterr().err
