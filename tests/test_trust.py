"""Tamper evidence (the hash-chained audit log, ``verify``) and erasure, on
SQLite and PostgreSQL: edits behind memdesk's back are reported at the right
entry; an erasure removes a person everywhere and still verifies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memdesk import InputFileError, InvalidInput, Store, SubjectNotFound
from memdesk.app.cli import main
from memdesk.recall import IndexSettings, Recaller
from sqlalchemy import text

from .recall_fixtures import HashEmbedder

ROOT = Path(__file__).resolve().parent.parent
CONV = ROOT / "data" / "conversations"
DEMO = ROOT / "data" / "demo"


def populate(store: Store) -> None:
    """Every kind of write: ingest, import, approve, reject, undo, resolve, retract."""
    store.facts.ingest_file(CONV / "carol-home.jsonl")
    store.facts.ingest_file(CONV / "tom-travel.jsonl")
    store.facts.import_file(DEMO / "facts.jsonl")
    store.facts.import_file(DEMO / "review.jsonl")
    pending = store.review.list()
    store.review.approve(pending[0].id, by="rita")
    store.review.reject(pending[1].id, by="rita", reason="not said")
    store.review.approve(pending[2].id, by="rita")
    store.review.undo(pending[2].id, by="sam")
    conflicts = store.conflicts.list()
    store.conflicts.resolve(conflicts[0].id, "incoming", by="rita")
    current = store.facts.current("user:tom")
    store.facts.retract(current[0].id, by="rita", reason="never said")


def run(conn_url: str, sql: str, **params) -> None:
    with Store.open(conn_url) as s, s.engine.begin() as conn:
        conn.execute(text(sql), params)


def entries(store: Store) -> list[dict]:
    with store.engine.connect() as conn:
        return [dict(r._mapping) for r in conn.execute(
            text("SELECT * FROM audit_log ORDER BY id"))]


def creator(store: Store, table: str, row_id: int) -> int:
    """The audit entry whose rows record names ``row_id`` of ``table`` as created."""
    for e in entries(store):
        span = json.loads(e["rows"]).get(table)
        if span and span[0] <= row_id <= span[1]:
            return e["id"]
    raise AssertionError(f"no entry created {table} {row_id}")


@pytest.fixture
def full(store) -> Store:
    populate(store)
    return store


def test_a_clean_store_verifies(full):
    report = full.audit.verify()
    assert report.ok, report.problems
    assert report.first_broken is None and report.entries == len(entries(full))
    assert report.head == entries(full)[-1]["hash"]


def test_editing_a_fact_object_is_reported_at_the_entry_that_wrote_it(full, store_url):
    fact = full.facts.current("user:carol")[0]
    run(store_url, "UPDATE fact SET object = 'Paris' WHERE id = :i", i=fact.id)
    report = full.audit.verify()
    assert not report.ok and report.first_broken == creator(full, "fact", fact.id)


def test_deleting_a_fact_row_is_reported(full, store_url):
    fact = full.facts.history("user:tom")[-1]
    run(store_url, "DELETE FROM fact WHERE id = :i", i=fact.id)
    assert full.audit.verify().first_broken == creator(full, "fact", fact.id)


def test_unretiring_or_retiring_a_fact_behind_the_back_is_reported(full, store_url):
    retired = next(f for f in full.facts.history("user:carol") if f.retired_at is not None)
    run(store_url, "UPDATE fact SET retired_at = NULL, retire_reason = NULL WHERE id = :i",
        i=retired.id)
    report = full.audit.verify()
    assert not report.ok and report.first_broken is not None
    stamper = next(e["id"] for e in entries(full)
                   if retired.id in json.loads(e["rows"]).get("stamped", []))
    assert report.first_broken == stamper

    run(store_url, "UPDATE fact SET retired_at = 1 WHERE retired_at IS NULL")
    report = full.audit.verify()
    assert any("retired without an audit entry" in p.message for p in report.problems)


def test_editing_a_turn_or_a_claim_is_reported(full, store_url):
    turn_id = full.facts.conversation("tom-travel")[0].id
    run(store_url, "UPDATE turn SET text = 'forged' WHERE id = :i", i=turn_id)
    assert full.audit.verify().first_broken == creator(full, "turn", turn_id)


def test_editing_a_decided_claim_is_reported_at_the_decision(full, store_url):
    rejected = full.review.list("rejected")[0]
    run(store_url, "UPDATE claim SET decided_by = 'mallory' WHERE id = :i", i=rejected.id)
    decision = next(e["id"] for e in entries(full) if e["action"] == "claim.rejected")
    assert full.audit.verify().first_broken == decision


def test_editing_a_conflict_is_reported(full, store_url):
    conflict = full.conflicts.list("resolved")[0]
    run(store_url, "UPDATE conflict SET resolved_by = 'mallory' WHERE id = :i", i=conflict.id)
    resolution = next(e["id"] for e in entries(full) if e["action"] == "conflict.resolved")
    assert full.audit.verify().first_broken == resolution


def test_editing_an_audit_entry_is_reported(full, store_url):
    target = entries(full)[3]["id"]
    run(store_url, "UPDATE audit_log SET actor = 'mallory' WHERE id = :i", i=target)
    assert full.audit.verify().first_broken == target


def test_mangled_rows_records_are_reported_not_crashed_on(full, store_url):
    target = entries(full)[0]["id"]
    for mangled in ('{"fact": ["a", "b"]}', "not json", '{"updated": {"claim": {"x": 1}}}'):
        run(store_url, "UPDATE audit_log SET rows = :r WHERE id = :i", r=mangled, i=target)
        assert full.audit.verify().first_broken == target


def test_deleting_an_audit_entry_is_reported(full, store_url):
    middle = entries(full)[2]["id"]
    run(store_url, "DELETE FROM audit_log WHERE id = :i", i=middle)
    report = full.audit.verify()
    assert report.first_broken == middle
    assert any("missing" in p.message for p in report.problems)


def test_deleting_the_newest_audit_entry_is_reported(full, store_url):
    last = entries(full)[-1]["id"]
    run(store_url, "DELETE FROM audit_log WHERE id = :i", i=last)
    assert full.audit.verify().first_broken == last


def test_reordering_audit_entries_is_reported(full, store_url):
    a, b = (e["id"] for e in entries(full)[1:3])
    run(store_url, "UPDATE audit_log SET id = -1 WHERE id = :a", a=a)
    run(store_url, "UPDATE audit_log SET id = :a WHERE id = :b", a=a, b=b)
    run(store_url, "UPDATE audit_log SET id = :b WHERE id = -1", b=b)
    assert full.audit.verify().first_broken == a


def test_cli_verify_exit_codes(full, store_url, capsys):
    assert main(["--db", store_url, "verify", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True
    fact = full.facts.current("user:carol")[0]
    run(store_url, "UPDATE fact SET object = 'Paris' WHERE id = :i", i=fact.id)
    assert main(["--db", store_url, "verify"]) == 1
    err = capsys.readouterr().err
    assert f"first broken audit entry: {creator(full, 'fact', fact.id)}" in err
    assert "Traceback" not in err


def test_import_citing_a_stored_turn_with_other_text_is_refused(store, store_url, tmp_path,
                                                                capsys):
    line = json.loads((DEMO / "facts.jsonl").read_text(encoding="utf-8").splitlines()[0])
    first = tmp_path / "first.jsonl"
    first.write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    store.facts.import_file(first)
    before = (len(entries(store)), store.review.count("all"))
    line["source"]["text"] = "something never said"
    line["object"] = "forged value"
    forged = tmp_path / "forged.jsonl"
    forged.write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    with pytest.raises(InputFileError) as err:
        store.facts.import_file(forged)
    assert err.value.line == 1 and "already stored with other content" in str(err.value)
    assert (len(entries(store)), store.review.count("all")) == before
    assert main(["--db", store_url, "import", str(forged)]) == 1
    assert "forged.jsonl:1: " in capsys.readouterr().err
    assert store.audit.verify().ok


# ------------------------------------------------------------------ erasure
def _everything(store: Store) -> str:
    """Every text column of every table, as one string."""
    out = []
    with store.engine.connect() as conn:
        for table in ("turn", "claim", "fact", "conflict", "memory", "audit_log",
                      "predicate_use"):
            for row in conn.execute(text(f"SELECT * FROM {table}")):
                out.append(" ".join(str(v) for v in row))
    return "\n".join(out)


def test_erasure_removes_a_person_and_verify_still_passes(full, tmp_path):
    tom_before = [f.to_dict(at=0) for f in full.facts.history("user:tom")]
    embedder = HashEmbedder()
    settings = IndexSettings(exact_below=5, n_trees=4, proj_dim=0)
    recaller = Recaller(full, embedder=embedder, index_dir=tmp_path / "idx", index=settings)
    hits = recaller.search("Hackney Monzo", k=5, over="turns", exact=True)
    assert any("Hackney" in h.text for h in hits)
    assert any("Hackney" in h.text for h in recaller.search("I live in Hackney", k=5,
                                                             over="turns"))
    recaller.close()
    assert "Hackney" in _everything(full)

    index_files = sorted((tmp_path / "idx").glob("*.annoy"))
    assert index_files
    report = full.admin.erase("user:carol", by="dpo")
    assert not any(p.exists() for p in index_files)  # stale: rebuilt on the next search
    assert report.turns == 50 and report.facts > 0 and report.claims > 0
    assert report.vectors > 0

    dump = _everything(full)
    for secret in ("Hackney", "Monzo", "user:carol", "carol-home"):
        assert secret not in dump, secret
    assert full.facts.history("user:carol") == []
    assert [f.to_dict(at=0) for f in full.facts.history("user:tom")] == tom_before
    tombstone = entries(full)[-1]
    assert tombstone["action"] == "subject.erased" and tombstone["actor"] == "dpo"
    assert json.loads(tombstone["detail"])["counts"]["turns"] == 50

    verified = full.audit.verify()
    assert verified.ok, verified.problems
    assert verified.erasures == 1 and verified.amended >= 1

    fresh = Recaller(full, embedder=embedder, index_dir=tmp_path / "idx", index=settings)
    for over in ("turns", "memories"):
        for exact in (True, False):
            hits = fresh.search("I live in Hackney and work at Monzo", k=20, over=over,
                                exact=exact)
            assert not any("Hackney" in h.text or "Monzo" in h.text for h in hits)
            assert hits  # others are still found
    fresh.close()


def test_erasure_keeps_later_tampering_detectable(full, store_url):
    full.admin.erase("user:carol", by="dpo")
    fact = full.facts.current("user:tom")[0]
    run(store_url, "UPDATE fact SET object = 'forged' WHERE id = :i", i=fact.id)
    assert full.audit.verify().first_broken == creator(full, "fact", fact.id)


def test_erasure_refuses_bad_subjects_and_tampered_stores(full, store_url, capsys):
    with pytest.raises(InvalidInput):
        full.admin.erase("project:atlas", by="dpo")
    with pytest.raises(SubjectNotFound):
        full.admin.erase("user:nobody", by="dpo")
    assert main(["--db", store_url, "erase", "--subject", "user:nobody"]) == 1
    assert "nothing about user:nobody" in capsys.readouterr().err
    assert main(["--db", store_url, "erase", "--subject", "user:tom", "--by", "dpo",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["facts"] > 0
    assert main(["--db", store_url, "verify"]) == 0


def test_concurrent_writers_keep_one_chain(full, store_url):
    """Writers in two threads (own Store each) serialise on the write lock, and
    each entry chains to the head the other left."""
    from concurrent.futures import ThreadPoolExecutor

    pending = [c.id for c in full.review.list()]
    halves = [pending[0::2], pending[1::2]]

    def decide(ids: list[int]) -> int:
        with Store.open(store_url) as mine:
            for cid in ids:
                mine.review.reject(cid, by="t", reason="concurrent")
        return len(ids)

    with ThreadPoolExecutor(2) as pool:
        assert sum(pool.map(decide, halves)) == len(pending)
    report = full.audit.verify()
    assert report.ok, report.problems
