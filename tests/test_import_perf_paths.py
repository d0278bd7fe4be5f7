"""The fast paths of a large import: the parsing process, the writer process
that owns the SQLite transaction, and the binding shortcuts. Each must give
exactly the store the plain in-process import gives, and fail as cleanly."""

from __future__ import annotations

import dataclasses
import gc
import json
import sqlite3
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from memdesk import (
    ClaimInput,
    InputFileError,
    ManualClock,
    SourceRef,
    Store,
    StoreError,
    parallel_parse,
    writer,
)

from tests.benchmarks.bench_store import write_dataset

DEMO = Path(__file__).resolve().parent.parent / "data" / "demo" / "facts.jsonl"
# wall-clock columns, and the chain hashes that commit to them (core.chain)
WALL_CLOCK = {"turn": {"imported_at"}, "audit_log": {"wall_at", "hash"},
              "store_meta": {"created_at", "audit_head"}}
TABLES = ("turn", "claim", "fact", "conflict", "predicate_use", "audit_log", "store_meta")


def _rows(path: Path) -> dict[str, list[tuple]]:
    """Every row of every table, in key order, wall-clock columns left out."""
    conn = sqlite3.connect(path)
    out = {}
    for table in TABLES:
        cols = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")
                if r[1] not in WALL_CLOCK.get(table, ())]
        names = ", ".join(f'"{c}"' for c in cols)
        out[table] = conn.execute(f"SELECT {names} FROM {table} ORDER BY 1").fetchall()
    conn.close()
    return out


@pytest.fixture
def big_file(tmp_path: Path) -> Path:
    """The benchmark's history (evolutions, corrections) for 300 subjects, then the demo
    facts (merges, conflicts, the review queue, uncatalogued predicates)."""
    path = tmp_path / "facts.jsonl"
    write_dataset(path, 300)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(DEMO.read_text(encoding="utf-8"))
    return path


@pytest.fixture
def spy_writer(monkeypatch):
    """Counts writer processes started, so a test knows the fast path ran."""
    started = []
    real = writer.WriteProcess.__init__

    def init(self, url):
        real(self, url)
        started.append(url)

    monkeypatch.setattr(writer.WriteProcess, "__init__", init)
    return started


def test_parsed_claim_carries_every_field_of_a_claim():
    # the parsing process sends claims as named tuples: they must not drift apart
    claim_fields = {f.name for f in dataclasses.fields(ClaimInput)}
    assert set(parallel_parse.ParsedClaim._fields) == claim_fields
    assert set(parallel_parse.ParsedSource._fields) == {f.name for f in dataclasses.fields(SourceRef)}


def test_writer_process_gives_the_same_store(tmp_path, big_file, spy_writer, monkeypatch):
    monkeypatch.setattr(writer, "FLUSH_EVERY", 500)  # many chunks cross to the writer
    monkeypatch.setattr(parallel_parse, "CHUNK_LINES", 700)
    clock = ManualClock(datetime(2026, 12, 1, tzinfo=UTC))  # one recorded time for both
    with Store.open(tmp_path / "seq.db", clock=clock) as seq, \
            Store.open(tmp_path / "par.db", clock=clock) as par, par.bulk():
        a = seq.facts.import_file(big_file, parallel=False)
        assert not spy_writer
        b = par.facts.import_file(big_file, parallel=True)
        assert spy_writer  # the writer process ran
        assert a == b and a.evolutions and a.corrections and a.conflicts and a.queued and a.merged
    assert _rows(tmp_path / "seq.db") == _rows(tmp_path / "par.db")


def test_writer_process_import_is_idempotent(tmp_path, big_file, spy_writer):
    with Store.open(tmp_path / "m.db") as store, store.bulk():
        first = store.facts.import_file(big_file, parallel=True)
        before = _rows(tmp_path / "m.db")
        again = store.facts.import_file(big_file, parallel=True)
        assert len(spy_writer) == 2
        assert again.unchanged == again.lines == first.lines and again.fact_rows == 0
    assert _rows(tmp_path / "m.db") == before  # not even an audit entry


def test_stored_values_keep_their_types(tmp_path, big_file):
    # None binds as NULL and booleans as 0/1, as they always did
    with Store.open(tmp_path / "m.db") as store, store.bulk():
        store.facts.import_file(big_file, parallel=True)
    conn = sqlite3.connect(tmp_path / "m.db")
    kinds = {
        "valid_to": "SELECT DISTINCT typeof(valid_to) FROM fact WHERE valid_to IS NULL",
        "single_valued": "SELECT DISTINCT typeof(single_valued) FROM fact",
        "sensitive": "SELECT DISTINCT typeof(sensitive) FROM claim",
        "decided_by": "SELECT DISTINCT typeof(decided_by) FROM claim",
    }
    assert {k: {t for (t,) in conn.execute(q)} for k, q in kinds.items()} == {
        "valid_to": {"null"}, "single_valued": {"integer"}, "sensitive": {"integer"},
        "decided_by": {"null"}}
    assert {v for (v,) in conn.execute("SELECT DISTINCT single_valued FROM fact")} == {0, 1}
    conn.close()


def _assert_untouched_and_writable(path: Path, before: dict[str, list[tuple]]) -> None:
    assert _rows(path) == before
    with Store.open(path) as store, store.bulk():
        store.facts.import_file(DEMO, parallel=True)  # the lock was released
        assert store.facts.subjects()


def test_bad_line_after_rows_reached_the_writer_rolls_back(tmp_path, big_file, spy_writer,
                                                          monkeypatch):
    monkeypatch.setattr(writer, "FLUSH_EVERY", 200)
    monkeypatch.setattr(parallel_parse, "CHUNK_LINES", 300)
    first = json.loads(big_file.read_text(encoding="utf-8").splitlines()[0])
    first["source"]["text"] = "something else"  # its turn, other text: refused by the parser
    with open(big_file, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(first, ensure_ascii=False) + "\n")
    lines = len(big_file.read_text(encoding="utf-8").splitlines())
    Store.open(tmp_path / "m.db").close()
    before = _rows(tmp_path / "m.db")
    with Store.open(tmp_path / "m.db") as store, store.bulk(), pytest.raises(InputFileError) as err:
        store.facts.import_file(big_file, parallel=True)
    assert err.value.line == lines and "differs from line 1" in str(err.value) and spy_writer
    _assert_untouched_and_writable(tmp_path / "m.db", before)


def test_gate_refusal_after_rows_reached_the_writer_rolls_back(tmp_path, big_file, monkeypatch):
    monkeypatch.setattr(writer, "FLUSH_EVERY", 200)
    # the store already holds the demo's first turn with other text: the demo lines,
    # after 2,100 benchmark lines, are refused by the provenance gate
    stored = json.loads(DEMO.read_text(encoding="utf-8").splitlines()[0])
    stored["source"]["text"] = "what was really said"
    (tmp_path / "one.jsonl").write_text(json.dumps(stored, ensure_ascii=False) + "\n",
                                        encoding="utf-8")
    with Store.open(tmp_path / "m.db") as store:
        store.facts.import_file(tmp_path / "one.jsonl", parallel=False)
    before = _rows(tmp_path / "m.db")
    with Store.open(tmp_path / "m.db") as store, store.bulk(), pytest.raises(InputFileError) as err:
        store.facts.import_file(big_file, parallel=True)
    assert err.value.line == 2101 and "already stored with other content" in str(err.value)
    assert _rows(tmp_path / "m.db") == before


def test_error_in_the_writer_process_rolls_back(tmp_path, big_file, monkeypatch):
    monkeypatch.setattr(writer, "FLUSH_EVERY", 200)
    real_add = writer.WriteProcess.add
    calls, broken = [], []

    def add(self, sql, params, every_row):
        calls.append(sql)
        if len(calls) >= 12 and not broken and sql.startswith("INSERT INTO "):
            sql = sql.replace("INSERT INTO ", "INSERT INTO missing_", 1)  # refused there
            broken.append(sql)
        real_add(self, sql, params, every_row)

    monkeypatch.setattr(writer.WriteProcess, "add", add)
    Store.open(tmp_path / "m.db").close()
    before = _rows(tmp_path / "m.db")
    with Store.open(tmp_path / "m.db") as store, store.bulk(), pytest.raises(StoreError) as err:
        store.facts.import_file(big_file, parallel=True)
    assert "no such table: missing_" in str(err.value)
    _assert_untouched_and_writable(tmp_path / "m.db", before)


def test_writer_process_dying_rolls_back(tmp_path, big_file, monkeypatch):
    monkeypatch.setattr(writer, "FLUSH_EVERY", 200)
    real_send = writer.WriteProcess.send
    calls = []

    def send(self):
        calls.append(1)
        if len(calls) == 3:
            self._proc.kill()
            self._proc.wait()
        real_send(self)

    monkeypatch.setattr(writer.WriteProcess, "send", send)
    Store.open(tmp_path / "m.db").close()
    before = _rows(tmp_path / "m.db")
    with Store.open(tmp_path / "m.db") as store, store.bulk(), pytest.raises(StoreError, match="ended unexpectedly"):
        store.facts.import_file(big_file, parallel=True)
    _assert_untouched_and_writable(tmp_path / "m.db", before)


def test_without_a_writer_process_the_import_writes_in_process(tmp_path, big_file, monkeypatch):
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-such-python"))
    with Store.open(tmp_path / "m.db") as store, store.bulk():
        summary = store.facts.import_file(big_file, parallel=True)
        assert summary.fact_rows and store.facts.subjects()


def test_idempotency_is_enforced_by_the_gates(tmp_path):
    # the same claim from the same turn twice in one file: one claim row, one unchanged
    line = {"subject": "user:a", "predicate": "lives_in", "object": "Berlin",
            "source": {"session": "s", "turn": 1, "text": "t", "time": "2026-01-01T00:00:00+00:00"}}
    path = tmp_path / "twice.jsonl"
    path.write_text((json.dumps(line) + "\n") * 2, encoding="utf-8")
    for parallel in (False, True):
        with Store.open(tmp_path / f"{parallel}.db") as store, store.bulk():
            summary = store.facts.import_file(path, parallel=parallel)
            assert (summary.lines, summary.unchanged, summary.asserted) == (2, 1, 1)
        assert len(_rows(tmp_path / f"{parallel}.db")["claim"]) == 1


def test_writer_process_import_verifies(tmp_path, big_file, spy_writer, monkeypatch):
    """Rows written by the writer process are hashed by the gating process: the
    chain holds, and an edit behind memdesk's back is still found."""
    monkeypatch.setattr(writer, "FLUSH_EVERY", 200)
    with Store.open(tmp_path / "m.db") as store, store.bulk():
        store.facts.import_file(big_file, parallel=True)
        assert spy_writer, "the writer process was not used"
        report = store.audit.verify()
        assert report.ok, report.problems
        with store.engine.begin() as conn:
            conn.exec_driver_sql("UPDATE fact SET valid_to = 1 WHERE id = 500")
        assert store.audit.verify().first_broken == report.entries


def test_only_a_bulk_block_starts_a_writer_or_pauses_the_collector(tmp_path, big_file, spy_writer,
                                                                   monkeypatch):
    """Issue 30 §3: an ordinary call changes nothing in the process (no writer
    process, the garbage collector as it was); ``store.bulk()`` opts in, and
    gives the collector back as it found it."""
    seen: list[bool] = []
    real_submit = writer.WriteBatch.submit

    def submit(self, claim):
        seen.append(gc.isenabled())
        return real_submit(self, claim)

    monkeypatch.setattr(writer.WriteBatch, "submit", submit)
    with Store.open(tmp_path / "m.db") as store:
        store.facts.import_file(big_file)
        assert not spy_writer and all(seen) and gc.isenabled()
        seen.clear()
        with store.bulk():
            store.facts.import_file(big_file, parallel=True)
        assert spy_writer and seen and not any(seen) and gc.isenabled()
        gc.disable()
        try:
            with store.bulk():
                pass
            assert not gc.isenabled()  # left as the caller had it
        finally:
            gc.enable()
