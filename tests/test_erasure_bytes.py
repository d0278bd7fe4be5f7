"""After an erasure the erased text is in neither the SQLite file nor its WAL
(issue 29 §5), whatever the SQLite build's default for ``secure_delete``:
every connection sets it (``core.db``), and the WAL, which keeps every page
version written since it was last reset, is emptied once the erasure commits.
"A build whose default is off" is simulated by a driver ``connect`` that turns
it off before memdesk's connection setup runs. (PostgreSQL keeps deleted
tuples in its table files and its own WAL until VACUUM and recycling: that is
the server operator's, see README "erase".)"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from memdesk import Memory, Store

from .test_trust import CONV

SECRETS = (b"Hackney", b"Monzo", b"carol-home", b"user:carol", b"carol-laptop")


@pytest.fixture(params=["build default", "build default off"])
def build(request, monkeypatch) -> str:
    if request.param == "build default off":
        real = sqlite3.dbapi2.connect

        def connect(*args, **kwargs):
            conn = real(*args, **kwargs)
            conn.execute("PRAGMA secure_delete=OFF")
            return conn

        monkeypatch.setattr(sqlite3.dbapi2, "connect", connect)
    return request.param


def _pragma(store: Store) -> int:
    with store.engine.connect() as conn:
        return int(conn.exec_driver_sql("PRAGMA secure_delete").scalar())


def test_every_connection_sets_secure_delete(build, tmp_path):
    with Store.open(tmp_path / "m.db") as store:
        with store.engine.connect() as a, store.engine.connect() as b:  # two pool connections
            assert [int(c.exec_driver_sql("PRAGMA secure_delete").scalar())
                    for c in (a, b)] == [1, 1]
        assert _pragma(store) == 1


def _on_disk(db: Path) -> bytes:
    wal = db.with_name(db.name + "-wal")
    return db.read_bytes() + (wal.read_bytes() if wal.exists() else b"")


def test_the_erased_text_is_in_neither_the_file_nor_the_wal(build, tmp_path):
    """The store stays open, as a server's does: nothing checkpoints on close."""
    db = tmp_path / "m.db"
    with Memory.open(db) as memory:
        store = memory.store
        store.facts.ingest_file(CONV / "carol-home.jsonl")
        store.facts.ingest_file(CONV / "tom-travel.jsonl")
        store.admin.create_token("carol-laptop", users=["carol"], by="admin")
        with store.engine.connect() as conn:  # a reader that comes and goes
            conn.exec_driver_sql("SELECT count(*) FROM turn").scalar()
        raw = _on_disk(db)
        assert all(s in raw for s in SECRETS)  # the control: they were written
        report = store.admin.erase("user:carol", by="dpo")
        raw = _on_disk(db)
        for secret in SECRETS:
            assert secret not in raw, secret
        assert report.wal_cleared is True
        assert b"tom-travel" in raw  # tom's rows are still there
        store.facts.ingest_file(CONV / "tom-travel.jsonl")  # the store goes on as before
        assert store.audit.verify().ok
