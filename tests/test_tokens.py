"""The door's tokens (``core.tokens``, ``memdesk tokens``): issued, listed and
revoked on both backends; the secret is shown once and never stored (only
its SHA-256); every change is audited and ``verify`` catches a token row
changed behind memdesk's back; an erasure takes the person out of tokens;
tokens survive export and restore, and the revision that adds them upgrades
a store and downgrades again."""

from __future__ import annotations

import hashlib
import json
import sqlite3

import pytest
from memdesk import InvalidInput, Memory, Store, TokenNotFound
from memdesk.app.cli import main
from memdesk.db import make_engine, migrations, normalise_url
from memdesk.tokens import PREFIX, well_formed
from sqlalchemy import inspect, text

from tests.helpers import downgrade

BOB = [{"role": "user", "content": "I'm Bob and I live in Leeds.",
        "time": "2026-05-01T09:00:00+01:00"}]


def test_a_token_is_issued_found_listed_and_revoked(store):
    token, secret = store.admin.create_token("alice-laptop", users=["alice", "user:alice"],
                                       projects=["project:atlas"], by="admin")
    assert secret.startswith(PREFIX) and well_formed(secret) and len(secret) == 47
    assert token.users == ("alice",) and token.projects == ("atlas",) and token.active
    assert token.secret_hash == hashlib.sha256(secret.encode()).hexdigest()
    assert store.admin.token_for_secret(secret) == token
    assert store.admin.token_for_secret(secret[:-1] + ("A" if secret[-1] != "A" else "B")) is None
    assert store.admin.token_for_secret("garbage") is None
    grant = token.grant()
    assert grant.users == {"alice"} and grant.projects == {"atlas"} and not grant.read_only
    assert grant.label == "token 1 (alice-laptop)"
    ro, _ = store.admin.create_token("reader", users=["bob"], read_only=True, by="admin")
    assert ro.id == 2 and ro.grant().read_only
    assert [t.id for t in store.admin.tokens()] == [1, 2]
    revoked = store.admin.revoke_token(1, by="admin", reason="laptop lost")
    assert not revoked.active and revoked.revoked_by == "admin"
    assert store.admin.token_for_secret(secret).active is False  # found, but refused by the door
    assert [t.id for t in store.admin.tokens(include_revoked=False)] == [2]
    with pytest.raises(InvalidInput, match="already revoked"):
        store.admin.revoke_token(1, by="admin", reason="again")
    with pytest.raises(TokenNotFound):
        store.admin.revoke_token(99, by="admin", reason="x")
    for bad in ({"users": []}, {"users": ["a\x00"]}, {"users": ["alice"], "name": " "},
                {"users": ["alice"], "projects": [""]}):
        with pytest.raises(InvalidInput):
            store.admin.create_token(bad.get("name", "t"), users=bad["users"],
                               projects=bad.get("projects", ()), by="admin")
    with pytest.raises(InvalidInput, match="reason"):
        store.admin.revoke_token(2, by="admin", reason=" ")
    with store.engine.connect() as conn:
        actions = [a for (a,) in conn.execute(text(
            "SELECT action FROM audit_log WHERE action LIKE 'token.%' ORDER BY id"))]
    assert actions == ["token.created", "token.created", "token.revoked"]
    assert store.audit.verify().ok


def test_the_secret_is_stored_nowhere(tmp_path):
    db = tmp_path / "m.db"
    with Store.open(db) as store:
        token, secret = store.admin.create_token("t", users=["alice"], by="admin")
        out = tmp_path / "export.jsonl"
        store.admin.export(out)
    raw = db.read_bytes() + (tmp_path / "m.db-wal").read_bytes() if (tmp_path / "m.db-wal").exists() \
        else db.read_bytes()
    assert secret.encode() not in raw and secret[len(PREFIX):].encode() not in raw
    assert secret not in out.read_text(encoding="utf-8")
    assert token.secret_hash in out.read_text(encoding="utf-8")


@pytest.mark.parametrize("tamper, problem", [
    ("UPDATE access_token SET users = '[\"alice\", \"bob\"]' WHERE id = 1", "differs from"),
    ("UPDATE access_token SET read_only = 0 WHERE id = 2", "differs from"),
    ("UPDATE access_token SET secret_hash = 'ab' WHERE id = 1", "differs from"),
    ("UPDATE access_token SET revoked_at = NULL WHERE id = 3", "active again"),
    ("UPDATE access_token SET revoked_at = 5, revoked_by = 'x' WHERE id = 1", "without a"),
    ("INSERT INTO access_token VALUES (9, 'x', 'cd', '[\"carol\"]', '[]', 0, 0, 'me', NULL, "
     "NULL, NULL)", "not issued by memdesk"),
])
def test_verify_catches_a_token_changed_behind_memdesks_back(tmp_path, tamper, problem):
    db = tmp_path / "m.db"
    with Store.open(db) as store:
        store.admin.create_token("a", users=["alice"], by="admin")
        store.admin.create_token("b", users=["bob"], read_only=True, by="admin")
        store.admin.create_token("c", users=["carol"], by="admin")
        store.admin.revoke_token(3, by="admin", reason="gone")
        assert store.audit.verify().ok
    with sqlite3.connect(db) as conn:
        conn.execute(tamper)
    with Store.open(db) as store:
        report = store.audit.verify()
    assert not report.ok and any(problem in p.message for p in report.problems), report.problems


def test_an_erasure_takes_the_person_out_of_every_token(tmp_path):
    db = tmp_path / "m.db"
    with Memory.open(db) as memory:
        memory.remember(BOB, user="bob")
        store = memory.store
        only, _ = store.admin.create_token("bob-only", users=["bob"], by="admin")
        shared, _ = store.admin.create_token("team", users=["alice", "bob"], by="admin")
        store.admin.erase("user:bob", by="dpo")
        assert not store.admin.token(only.id).active
        assert store.admin.token(only.id).revoke_reason == "every user it was bound to was erased"
        assert store.admin.token(shared.id).users == ("alice",) and store.admin.token(shared.id).active
        assert store.audit.verify().ok
        with store.engine.connect() as conn:
            names = " ".join(str(v) for row in conn.execute(text("SELECT * FROM access_token"))
                             for v in row)
            audit = " ".join(str(v) for row in conn.execute(text(
                "SELECT subject, reason, detail FROM audit_log")) for v in row)
        assert "bob" not in names and "bob" not in audit


def test_tokens_survive_export_and_restore_and_old_exports_still_restore(tmp_path):
    src = tmp_path / "src.db"
    with Memory.open(src) as memory:
        memory.remember(BOB, user="bob")
        _, secret = memory.store.admin.create_token("t", users=["bob"], by="admin")
        memory.store.admin.export(tmp_path / "x.jsonl")
    dst = tmp_path / "dst.db"
    with Store.open(dst) as store:
        store.admin.restore(tmp_path / "x.jsonl")
        assert store.admin.token_for_secret(secret).name == "t" and store.audit.verify().ok
    # an export written before tokens existed (schema version 4): no access_token rows
    lines = (tmp_path / "x.jsonl").read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["schema_version"] = 4
    del header["tables"]["access_token"]
    old = [json.dumps(header)] + [ln for ln in lines[1:]
                                  if json.loads(ln).get("table") != "access_token"]
    (tmp_path / "v4.jsonl").write_text("\n".join(old) + "\n", encoding="utf-8")
    with Store.open(tmp_path / "dst4.db") as store:
        store.admin.restore(tmp_path / "v4.jsonl")
        assert store.admin.tokens() == []


def test_the_tokens_revision_upgrades_and_downgrades(store_url):
    with Store.open(store_url) as store:
        store.admin.create_token("t", users=["alice"], by="admin")
    downgrade(store_url, "0005")
    engine = make_engine(normalise_url(store_url))
    with engine.connect() as conn:
        assert migrations.current(conn) == "0005"
        assert "access_token" not in inspect(conn).get_table_names()
    engine.dispose()
    Store.upgrade(store_url)
    with Store.open(store_url) as store:
        store.admin.create_token("t2", users=["alice"], by="admin")
        assert [t.name for t in store.admin.tokens()] == ["t2"]


def test_the_command_line_issues_lists_and_revokes(tmp_path, capsys):
    db = str(tmp_path / "new.db")  # the first token of a new store creates it
    assert main(["--db", db, "tokens", "create", "--name", "laptop", "--user", "alice",
                 "--project", "atlas", "--json"]) == 0
    made = json.loads(capsys.readouterr().out)
    assert made["id"] == 1 and made["secret"].startswith(PREFIX) and made["users"] == ["alice"]
    assert main(["--db", db, "tokens", "create", "--name", "ro", "--user", "bob",
                 "--read-only"]) == 0
    out = capsys.readouterr().out
    assert "token 2 (ro) for user:bob, read-only" in out and "shown once" in out
    assert main(["--db", db, "tokens", "list", "--json"]) == 0
    listed = capsys.readouterr().out
    assert made["secret"] not in listed and "secret_hash" not in listed
    assert [t["name"] for t in json.loads(listed)] == ["laptop", "ro"]
    assert main(["--db", db, "tokens", "revoke", "1", "--reason", "lost", "--by", "ops"]) == 0
    assert "refused from the next request on" in capsys.readouterr().out
    assert main(["--db", db, "tokens", "list"]) == 0
    table = capsys.readouterr().out
    assert "ro" in table and "laptop" not in table
    assert main(["--db", db, "tokens", "list", "--all"]) == 0
    assert "laptop" in capsys.readouterr().out
    assert main(["--db", db, "tokens", "revoke", "1", "--reason", "x"]) == 1
    assert "already revoked" in capsys.readouterr().err
    assert main(["--db", db, "tokens", "revoke", "7", "--reason", "x"]) == 1
    assert "no token with id 7" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_code:
        main(["--db", db, "tokens", "create", "--name", "x"])  # no --user
    assert exit_code.value.code == 2
    assert main(["--db", str(tmp_path / "other.db"), "tokens", "list"]) == 1
    assert "no memdesk store" in capsys.readouterr().err
    assert not (tmp_path / "other.db").exists()
