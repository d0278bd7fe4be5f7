"""Schema migrations: the fixture store from the first released schema opens
after ``memdesk upgrade`` with its facts intact and verifies; without the
upgrade it is refused with a clear message; a store newer than the code is
refused; the migrated schema equals a freshly created one; PostgreSQL too."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from memdesk import ClaimInput, SourceRef, Store, StoreError
from memdesk.app.cli import main
from memdesk.db import make_engine, migrations, normalise_url
from sqlalchemy import Boolean, MetaData, Table, create_engine, text
from sqlmodel import SQLModel

from .helpers import downgrade
from .test_trust import populate

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "store_v1.db"
# written by the 0002 code (pickle chain, text gates), with an erasure: tests/fixtures/build_v2_store.py
FIXTURE_V2 = Path(__file__).resolve().parent / "fixtures" / "store_v2.db"
HEAD = migrations.head()


@pytest.fixture
def v1_store(tmp_path) -> Path:
    path = tmp_path / "old.db"
    shutil.copy(FIXTURE, path)
    return path


def _rows(path: Path, sql: str) -> list[tuple]:
    engine = create_engine(f"sqlite:///{path}")
    with engine.connect() as conn:
        rows = [tuple(r) for r in conn.execute(text(sql))]
    engine.dispose()
    return rows


def _facts(path: Path) -> list[tuple]:
    return _rows(path, "SELECT id, subject, predicate, object, valid_from, valid_to, recorded_at, "
                       "retired_at, claim_id FROM fact ORDER BY id")


def test_fixture_is_a_first_schema_store():
    engine = create_engine(f"sqlite:///{FIXTURE}")
    with engine.connect() as conn:
        assert migrations.current(conn) == "0001"
        assert conn.execute(text("SELECT count(*) FROM fact")).scalar() > 10
    engine.dispose()


def test_old_store_is_refused_with_a_clear_message(v1_store, capsys):
    with pytest.raises(StoreError, match="older schema.*memdesk --db ... upgrade"):
        Store.open(v1_store)
    assert main(["--db", str(v1_store), "facts", "--subject", "user:carol", "--json"]) == 1
    err = capsys.readouterr().err
    assert "upgrade" in err and "Traceback" not in err


def test_upgrade_keeps_the_facts_and_verifies(v1_store, capsys):
    before = _facts(v1_store)
    assert main(["--db", str(v1_store), "upgrade", "--json"]) == 0
    assert capsys.readouterr().out.strip() == f'{{"from": "0001", "to": "{HEAD}"}}'
    assert _facts(v1_store) == before
    with Store.open(v1_store) as store:
        report = store.audit.verify()
        assert report.ok, report.problems
        assert store.facts.as_of("user:carol", "lives_in", valid_at=2_000_000_000_000_000)
        # the adopted rows are covered: editing one is reported at the adopting entry
        with store.engine.begin() as conn:
            conn.execute(text("UPDATE fact SET object = 'x' WHERE id = 1"))
        adopted = store.audit.verify()
        assert adopted.first_broken == _entry_id(store, "chain.adopted")
        with store.engine.begin() as conn:
            conn.execute(text("UPDATE fact SET object = :o WHERE id = 1"), {"o": before[0][3]})
        assert store.audit.verify().ok
        pending = store.review.list()
        store.review.approve(pending[0].id, by="rita")  # later writes chain on
        assert store.audit.verify().ok
    assert main(["--db", str(v1_store), "upgrade"]) == 0
    assert "already at schema revision" in capsys.readouterr().out


def test_newer_store_is_refused(tmp_path, capsys):
    path = tmp_path / "new.db"
    Store.open(path).close()
    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    engine.dispose()
    with pytest.raises(StoreError, match="newer memdesk"):
        Store.open(path)
    assert main(["--db", str(path), "upgrade"]) == 1
    assert "newer memdesk" in capsys.readouterr().err


def test_new_stores_are_stamped_at_head(store):
    with store.engine.connect() as conn:
        assert MigrationContext.configure(conn).get_current_revision() == HEAD


def _migrated_equals_created(url: str) -> None:
    engine = make_engine(normalise_url(url))
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), SQLModel.metadata)
    engine.dispose()
    assert diff == []


def test_upgrade_from_0001_on_each_backend(store_url):
    """A 0001 store made by Alembic itself (PostgreSQL included), with data written
    by the first schema's code path, upgrades to head and verifies."""
    engine = make_engine(normalise_url(store_url))
    migrations.upgrade(engine, "0001")
    with engine.connect() as conn:
        assert migrations.current(conn) == "0001"
    engine.dispose()
    with pytest.raises(StoreError, match="older schema"):
        Store.open(store_url)
    result = Store.upgrade(store_url)
    assert result.to_dict() == {"from": "0001", "to": HEAD}
    _migrated_equals_created(store_url)
    with Store.open(store_url) as store:
        populate(store)
        assert store.audit.verify().ok


def test_upgrade_of_a_populated_0001_store_on_each_backend(store_url):
    """Rows written under 0001 (copied from the fixture) are adopted by 0002."""
    engine = make_engine(normalise_url(store_url))
    migrations.upgrade(engine, "0001")
    source = create_engine(f"sqlite:///{FIXTURE}")
    tables = ("turn", "claim", "fact", "conflict", "memory", "predicate_use", "audit_log")
    with source.connect() as src, engine.begin() as dst:
        dst.execute(text("DELETE FROM store_meta"))
        for table in ("store_meta", *tables):
            rows = [dict(r._mapping) for r in src.execute(text(f"SELECT * FROM {table}"))]
            if rows:
                target = Table(table, MetaData(), autoload_with=dst)
                for r in rows:
                    for col in target.c:
                        if isinstance(col.type, Boolean):
                            r[col.name] = bool(r[col.name])
                dst.execute(target.insert(), rows)
    source.dispose()
    engine.dispose()
    before = _count(store_url)
    Store.upgrade(store_url)
    assert _count(store_url) == before
    with Store.open(store_url) as store:
        report = store.audit.verify()
        assert report.ok, report.problems
        assert len(store.facts.history("user:carol")) > 5


def _count(url: str) -> tuple[int, int]:
    engine = make_engine(normalise_url(url))
    with engine.connect() as conn:
        out = (conn.execute(text("SELECT count(*) FROM fact")).scalar(),
               conn.execute(text("SELECT count(*) FROM claim")).scalar())
    engine.dispose()
    return out


def _entry_id(store: Store, action: str) -> int:
    with store.engine.connect() as conn:
        return conn.execute(text("SELECT max(id) FROM audit_log WHERE action = :a"),
                            {"a": action}).scalar()


# ------------------------------------------------- 0003: canonical chain
def _gates(url: str) -> dict[int, str]:
    engine = make_engine(normalise_url(url))
    with engine.connect() as conn:
        out = {i: g for i, g in conn.execute(text("SELECT id, gates FROM claim ORDER BY id"))}
    engine.dispose()
    return out


def _legacy_steps(text_: str) -> list[dict]:
    out = []
    for step in text_.split("|"):
        if step:
            gate, _, rest = step.partition(":")
            result, _, note = rest.partition(":")
            out.append({"gate": gate, "result": result, "note": note or None})
    return out


def _assert_upgraded(url: str, legacy_gates: dict[int, str]) -> None:
    import json

    gates = _gates(url)
    assert gates.keys() == legacy_gates.keys()
    for cid, stored in gates.items():
        steps = json.loads(stored)
        assert steps == _legacy_steps(legacy_gates[cid]), cid
        assert stored == json.dumps(steps, ensure_ascii=False, separators=(",", ":"))
    with Store.open(url) as store:
        report = store.audit.verify()
        assert report.ok, report.problems
        last = store_entries(store)[-1]
        assert last["action"] == "store.rechained"
        detail = json.loads(last["detail"])
        assert detail["revision"] == "0003" and detail["legacy_head"]


def store_entries(store: Store) -> list[dict]:
    with store.engine.connect() as conn:
        return [dict(r._mapping) for r in conn.execute(text("SELECT * FROM audit_log ORDER BY id"))]


def test_upgrade_of_the_v1_fixture_rechains_and_converts_gates(v1_store):
    url = str(v1_store)
    legacy = _gates(url)
    Store.upgrade(url)
    _assert_upgraded(url, legacy)
    with Store.open(url) as store:
        # tampering after the upgrade is still found, at the entry that wrote the row
        first_claim = min(legacy)
        with store.engine.begin() as conn:
            conn.execute(text("UPDATE claim SET gates = '[]' WHERE id = :i"), {"i": first_claim})
        report = store.audit.verify()  # the v1 rows are committed by 0002's chain.adopted entry
        assert not report.ok and report.first_broken == _entry_id(store, "chain.adopted")


@pytest.fixture
def v2_store(tmp_path) -> Path:
    path = tmp_path / "v2.db"
    shutil.copy(FIXTURE_V2, path)
    return path


def test_fixture_v2_is_a_pickle_chained_store_with_an_erasure():
    from memdesk.db import chain_legacy

    engine = create_engine(f"sqlite:///{FIXTURE_V2}")
    with engine.connect() as conn:
        assert migrations.current(conn) == "0002"
        report = chain_legacy.verify(conn)
        assert report.ok and report.erasures == 1 and report.amended > 0, report
        actions = [a for (a,) in conn.execute(text("SELECT action FROM audit_log"))]
    engine.dispose()
    assert {"claim.approved", "claim.rejected", "claim.reopened", "conflict.resolved",
            "fact.retracted", "subject.erased"} <= set(actions)


def test_upgrade_of_a_pickle_chained_store_with_an_erasure(v2_store):
    url = str(v2_store)
    legacy = _gates(url)
    before = _facts(v2_store)
    assert Store.upgrade(url).to_dict() == {"from": "0002", "to": HEAD}
    assert _facts(v2_store) == before
    _assert_upgraded(url, legacy)
    with Store.open(url) as store:
        report = store.audit.verify()
        assert report.erasures == 1 and report.amended > 0
        # later writes chain on with the new encoding
        store.facts.import_file(Path(__file__).resolve().parent.parent / "data" / "demo" / "facts.jsonl",
                          actor="after-upgrade")
        pending = store.review.list()
        if pending:
            store.review.reject(pending[0].id, by="rita", reason="after upgrade")
        assert store.audit.verify().ok
        # tampering is named at the first broken entry
        with store.engine.begin() as conn:
            conn.execute(text("UPDATE audit_log SET actor = 'mallory' WHERE id = 4"))
            conn.execute(text("UPDATE audit_log SET actor = 'mallory' WHERE id = 9"))
        assert store.audit.verify().first_broken == 4


def test_upgrade_refuses_a_store_whose_legacy_chain_is_broken(v2_store, capsys):
    engine = create_engine(f"sqlite:///{v2_store}")
    with engine.begin() as conn:
        conn.execute(text("UPDATE audit_log SET reason = 'edited' WHERE id = 7"))
    engine.dispose()
    legacy = _gates(str(v2_store))
    with pytest.raises(StoreError, match=r"legacy \(pickle\).*first broken audit entry: 7"):
        Store.upgrade(str(v2_store))
    assert _gates(str(v2_store)) == legacy  # nothing changed: one transaction
    engine = create_engine(f"sqlite:///{v2_store}")
    with engine.connect() as conn:
        assert migrations.current(conn) == "0002"
    engine.dispose()
    assert main(["--db", str(v2_store), "upgrade"]) == 1
    err = capsys.readouterr().err
    assert "first broken audit entry: 7" in err and "Traceback" not in err


def test_downgrade_restores_the_pickle_chain_and_text_gates(v2_store):
    from memdesk.db import chain_legacy

    url = str(v2_store)
    legacy = _gates(url)
    Store.upgrade(url)
    downgrade(url, "0002")
    engine = make_engine(normalise_url(url))
    with engine.connect() as conn:
        assert migrations.current(conn) == "0002"
        report = chain_legacy.verify(conn)
        assert report.ok, report.problems
    engine.dispose()
    assert _gates(url) == legacy
    Store.upgrade(url)  # and up again
    with Store.open(url) as store:
        assert store.audit.verify().ok


def test_upgrade_of_a_populated_0002_store_on_each_backend(store_url):
    """The v2 fixture's rows copied into a 0002 store on each backend upgrade and verify."""
    engine = make_engine(normalise_url(store_url))
    migrations.upgrade(engine, "0002")
    source = create_engine(f"sqlite:///{FIXTURE_V2}")
    tables = ("turn", "claim", "fact", "conflict", "memory", "predicate_use", "audit_log")
    with source.connect() as src, engine.begin() as dst:
        dst.execute(text("DELETE FROM store_meta"))
        dst.execute(text("DELETE FROM audit_log"))  # 0002's chain.adopted entry of the empty store
        for table in ("store_meta", *tables):
            rows = [dict(r._mapping) for r in src.execute(text(f"SELECT * FROM {table}"))]
            if rows:
                target = Table(table, MetaData(), autoload_with=dst)
                for r in rows:
                    for col in target.c:
                        if isinstance(col.type, Boolean):
                            r[col.name] = bool(r[col.name])
                dst.execute(target.insert(), rows)
    source.dispose()
    engine.dispose()
    legacy = _gates(store_url)
    Store.upgrade(store_url)
    _assert_upgraded(store_url, legacy)


def test_revisions_read_without_alembic_match_alembics_reading():
    """Opening a store reads the scripts' revision ids itself (no Alembic import);
    they must be what Alembic reads from the same scripts."""
    from alembic.script import ScriptDirectory

    scripts = ScriptDirectory.from_config(migrations.config())
    assert migrations.head() == scripts.get_current_head()
    assert migrations.known() == {s.revision for s in scripts.walk_revisions()}


def test_opening_a_store_does_not_import_alembic(tmp_path):
    """Alembic loads only to create or upgrade a store (it costs ~0.2 s of
    every command's start otherwise)."""
    import subprocess
    import sys

    with Store.open(tmp_path / "s.db"):
        pass
    code = ("import sys; from memdesk import Store; "
            f"s = Store.open({str(tmp_path / 's.db')!r}); s.close(); "
            "print('alembic' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_store_from_before_the_told_axis_answers_as_before_and_takes_new_writes(v1_store):
    """Rows written before revision 0007 have no told axis: as-of answers read
    their recorded axis, which was the told axis then (transaction time
    replayed each turn's time); new writes that retire them keep the chain."""
    rows = _rows(v1_store, "SELECT subject, predicate, object, valid_from, valid_to, "
                           "recorded_at, retired_at FROM fact")
    times = sorted({t for r in rows for t in r[3:] if t is not None})
    grid = sorted({*times, *((a + b) // 2 for a, b in zip(times, times[1:], strict=False)),
                   times[-1] + 1})[::3]

    def old_answer(subject, predicate, v, k):
        return sorted(r[2] for r in rows if r[:2] == (subject, predicate)
                      and r[3] <= v and (r[4] is None or v < r[4])
                      and r[5] <= k and (r[6] is None or k < r[6]))

    pairs = sorted({r[:2] for r in rows})
    Store.upgrade(v1_store)
    with Store.open(v1_store) as store:
        for subject, predicate in pairs:
            for v in grid:
                for k in grid:
                    got = sorted(f.object for f in store.facts.as_of(subject, predicate, valid_at=v,
                                                                known_at=k))
                    assert got == old_answer(subject, predicate, v, k), (subject, predicate, v, k)
        old = [f for f in store.facts.current("user:carol", "lives_in")
               if f.valid_to is None and f.known_from is None]
        assert old and old[0].start in ("stated", "heard")  # from start_stated, or stated
        told = max(times) + 86_400_000_000
        store.facts.add(ClaimInput(
            subject="user:carol", predicate="lives_in", object="Hove",
            source=SourceRef("after-0007", 1, "I moved to Hove last month.", told),
            valid_from=told - 40 * 86_400_000_000, start_latest=told - 10 * 86_400_000_000,
            change="evolution", confidence=0.95))
        [hove] = [f for f in store.facts.current("user:carol", "lives_in") if f.object == "Hove"]
        assert hove.known_from == told and hove.start in ("stated", "bounded", "clamped")
        [retired] = [f for f in store.facts.history("user:carol", "lives_in") if f.id == old[0].id]
        assert retired.told_until is not None and retired.told_until >= retired.told_from
        report = store.audit.verify()
        assert report.ok, report.problems
