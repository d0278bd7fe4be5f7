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
from memdesk.app.cli import main
from memdesk.core import Store, StoreError, migrations
from memdesk.core.db import make_engine, normalise_url
from sqlalchemy import Boolean, MetaData, Table, create_engine, text
from sqlmodel import SQLModel

from .test_trust import populate

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "store_v1.db"
HEAD = migrations.head()


@pytest.fixture
def v1_store(tmp_path) -> Path:
    path = tmp_path / "old.db"
    shutil.copy(FIXTURE, path)
    return path


def _facts(path: Path) -> list[tuple]:
    engine = create_engine(f"sqlite:///{path}")
    with engine.connect() as conn:
        rows = [tuple(r) for r in conn.execute(text(
            "SELECT id, subject, predicate, object, valid_from, valid_to, recorded_at, "
            "retired_at, claim_id FROM fact ORDER BY id"))]
    engine.dispose()
    return rows


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
        report = store.verify()
        assert report.ok, report.problems
        assert store.as_of("user:carol", "lives_in", valid_at=2_000_000_000_000_000)
        # the adopted rows are covered: editing one is reported at the adopting entry
        with store.engine.begin() as conn:
            conn.execute(text("UPDATE fact SET object = 'x' WHERE id = 1"))
        adopted = store.verify()
        assert adopted.first_broken == report.entries  # the chain.adopted entry, last
        with store.engine.begin() as conn:
            conn.execute(text("UPDATE fact SET object = :o WHERE id = 1"), {"o": before[0][3]})
        assert store.verify().ok
        pending = store.review_list()
        store.approve(pending[0].id, by="rita")  # later writes chain on
        assert store.verify().ok
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
    assert result == {"from": "0001", "to": HEAD}
    _migrated_equals_created(store_url)
    with Store.open(store_url) as store:
        populate(store)
        assert store.verify().ok


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
        report = store.verify()
        assert report.ok, report.problems
        assert len(store.history("user:carol")) > 5


def _count(url: str) -> tuple[int, int]:
    engine = make_engine(normalise_url(url))
    with engine.connect() as conn:
        out = (conn.execute(text("SELECT count(*) FROM fact")).scalar(),
               conn.execute(text("SELECT count(*) FROM claim")).scalar())
    engine.dispose()
    return out
