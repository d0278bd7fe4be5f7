"""An erasure leaves nothing that names the person (issue 29 §5), on SQLite
and PostgreSQL: her tokens keep no name, user or project and stay checked by
``verify``; other people's rows that name her are listed (``--mentions``),
never changed unless a person names them for redaction, and a redaction
keeps the chain and recall consistent. The bytes of the SQLite file and WAL
are in ``test_erasure_bytes.py``."""

from __future__ import annotations

import json

import pytest
from memdesk import InvalidInput, Memory, Store
from memdesk.access import Caller
from memdesk.app.cli import main
from memdesk.recall import IndexSettings, Recaller
from memdesk.tokens import ERASED, ERASED_REASON
from sqlalchemy import text

from .recall_fixtures import HashEmbedder
from .test_trust import run

ALICE = [{"role": "user", "content": "Hi, my name is Alice Martin. I live in Hackney.",
          "time": "2026-05-01T09:00:00+01:00"}]
BOB = [{"role": "user", "content": "My colleague Alice is allergic to peanuts. I live in Leeds.",
        "time": "2026-05-02T09:00:00+01:00"}]
CAROL = [{"role": "user", "content": "Martin from accounts sent the invoice. I live in York.",
          "time": "2026-05-03T09:00:00+01:00"}]
DAVE = [{"role": "user", "content": "The Alicetown office is closed. I live in Bath.",
         "time": "2026-05-04T09:00:00+01:00"}]
SETTINGS = IndexSettings(exact_below=5, n_trees=4, proj_dim=0)


def _memory(store: Store, tmp_path) -> Memory:
    return Memory(store, Recaller(store, embedder=HashEmbedder(), index_dir=tmp_path / "idx",
                                  index=SETTINGS))


@pytest.fixture
def office(store, tmp_path) -> Memory:
    """alice, bob who names her, carol who names a Martin, dave who names no one."""
    memory = _memory(store, tmp_path)
    memory.remember(ALICE, user="alice", project="renovation")
    memory.remember(BOB, user="bob", project="renovation")
    memory.remember(CAROL, user="carol")
    memory.remember(DAVE, user="dave")
    return memory


def _rows(store: Store, table: str, where: str = "") -> list[str]:
    with store.engine.connect() as conn:
        return [" ".join(str(v) for v in row)
                for row in conn.execute(text(f"SELECT * FROM {table} {where}"))]


def _turn_of(store: Store, user: str) -> tuple[int, str]:
    with store.engine.connect() as conn:
        return tuple(conn.execute(text("SELECT id, text FROM turn WHERE \"user\" = :u"),
                                  {"u": user}).one())


# ------------------------------------------------------------------ tokens
def test_her_tokens_keep_nothing_that_names_her_and_verify_still_checks_them(
        office, store_url):
    store = office.store
    mine, secret = store.admin.create_token("laptop-7", users=["alice"], projects=["renovation"],
                                      read_only=True, by="admin")
    lost, _ = store.admin.create_token("phone", users=["alice"], by="admin")
    lost_at = store.admin.revoke_token(lost.id, by="admin", reason="Alice Martin lost her phone").revoked_at
    shared, _ = store.admin.create_token("team", users=["alice", "bob"], projects=["renovation"],
                                   by="admin")
    other, _ = store.admin.create_token("ops", users=["bob"], by="admin")
    store.audit.record_refusal(Caller("http", mine.id, mine.name, "claude-code 1.2"), tool="recall",
                         reason=f"refused: {mine.label} may not reach user:bob",
                         subject="user:bob")

    report = store.admin.erase("user:alice", by="dpo")

    stripped = store.admin.token(mine.id)
    assert (stripped.name, stripped.users, stripped.projects) == (ERASED, (), ())
    assert not stripped.active and stripped.revoke_reason == ERASED_REASON
    assert stripped.revoked_by == "dpo" and stripped.read_only
    assert (stripped.created_at, stripped.created_by, stripped.secret_hash) == (
        mine.created_at, "admin", mine.secret_hash)
    assert store.admin.token_for_secret(secret) == stripped  # the door still refuses it as revoked
    earlier = store.admin.token(lost.id)
    assert (earlier.name, earlier.revoke_reason, earlier.revoked_at) == (
        ERASED, ERASED_REASON, lost_at)
    assert earlier.revoked_by == "admin"  # revoked before the erasure, by the admin
    assert store.admin.token(shared.id).users == ("bob",) and store.admin.token(shared.id).active
    assert store.admin.token(shared.id).projects == ("renovation",)  # bob's project too
    assert store.admin.token(other.id) == other

    for token_id in (mine.id, lost.id):
        row = _rows(store, "access_token", f"WHERE id = {token_id}")[0].lower()
        for name in ("alice", "martin", "laptop-7", "phone", "renovation"):
            assert name not in row, (token_id, name)
    audit = " ".join(_rows(store, "audit_log")).lower()
    for name in ("alice", "martin", "laptop-7"):
        assert name not in audit, name
    verified = store.audit.verify()
    assert verified.ok, verified.problems
    assert report.tokens == 3  # laptop-7, phone, team; ops untouched


def test_verify_still_holds_every_token_to_its_entries_after_an_erasure(office, store_url):
    """Before, an erasure scrubbed the tokens' entries and ``verify`` stopped
    reporting token rows without entries: a token slipped in afterwards went
    unnoticed."""
    store = office.store
    mine, _ = store.admin.create_token("laptop-7", users=["alice"], by="admin")
    shared, _ = store.admin.create_token("team", users=["alice", "bob"], by="admin")
    store.admin.erase("user:alice", by="dpo")
    assert store.audit.verify().ok
    run(store_url, "INSERT INTO access_token VALUES (9, 'x', 'cd', '[\"mallory\"]', '[]', "
                   "false, 0, 'me', NULL, NULL, NULL)")
    run(store_url, "UPDATE access_token SET users = '[\"bob\", \"mallory\"]' WHERE id = :i",
        i=shared.id)
    run(store_url, "UPDATE access_token SET revoked_at = NULL WHERE id = :i", i=mine.id)
    problems = " | ".join(p.message for p in store.audit.verify().problems)
    assert "token 9 (x) has no token.created audit entry" in problems
    assert f"token {shared.id} (team) differs from" in problems
    assert f"token {mine.id} (erased) was revoked (token.revoked entry) but is active" in problems


def test_a_person_known_only_by_a_token_can_be_erased(store):
    """Before, a person with a token and no turns was "not found"; the token
    kept her name."""
    token, _ = store.admin.create_token("erin-laptop", users=["erin"], projects=["atlas"], by="admin")
    report = store.admin.erase("user:erin", by="dpo")
    assert report.tokens == 1 and report.turns == 0
    assert (store.admin.token(token.id).name, store.admin.token(token.id).users) == (ERASED, ())
    assert not any("erin" in r for r in _rows(store, "audit_log") + _rows(store, "access_token"))
    assert store.audit.verify().ok


# ---------------------------------------------------------------- mentions
def test_mentions_by_others_are_listed_and_left_as_they_are(office, store_url, capsys):
    store = office.store
    bob_turn, bob_text = _turn_of(store, "bob")
    carol_turn, carol_text = _turn_of(store, "carol")
    found = store.admin.mentions_of("user:alice")
    refs = {m.ref: m for m in found}
    assert f"turn:{bob_turn}" in refs and refs[f"turn:{bob_turn}"].owner == "user:bob"
    assert refs[f"turn:{bob_turn}"].name == "Alice"
    assert refs[f"turn:{carol_turn}"].name == "Martin"  # a part of her name fact
    kinds = {(m.kind, m.where.split(":")[0]) for m in found}
    assert ("fact", "name object") in kinds  # person:bob/colleague name Alice
    assert ("fact", "allergy") in kinds  # a fact of the subject named Alice
    assert any(m.kind == "memory" and m.owner == "user:bob" for m in found)
    assert not any("Alicetown" in m.snippet or m.owner == "user:alice" for m in found)

    # the listing erases nothing
    assert main(["--db", store_url, "erase", "--subject", "user:alice", "--mentions",
                 "--json"]) == 0
    assert {m["ref"] for m in json.loads(capsys.readouterr().out)} == set(refs)
    assert store.facts.current("user:alice") and store.admin.erasures() == 0

    report = store.admin.erase("user:alice", by="dpo")
    assert {m.ref for m in report.mentions} == set(refs)  # left, and said so
    assert report.redacted == ()
    assert _turn_of(store, "bob") == (bob_turn, bob_text)  # another user's data stays
    assert _turn_of(store, "carol") == (carol_turn, carol_text)
    assert store.audit.verify().ok
    # after the erasure her full name is no longer known: found by her user id only
    after = {m.ref for m in store.admin.mentions_of("user:alice")}
    assert f"turn:{bob_turn}" in after and f"turn:{carol_turn}" not in after


def test_the_command_lists_what_it_leaves(office, store_url, capsys):
    assert main(["--db", store_url, "erase", "--subject", "user:alice", "--by", "dpo"]) == 0
    out = capsys.readouterr().out
    assert "erased user:alice:" in out and "left as they are:" in out
    assert "user:bob" in out and "My colleague Alice" in out
    with pytest.raises(SystemExit) as usage:
        main(["--db", store_url, "erase", "--subject", "user:bob", "--mentions",
              "--redact", "turn:1"])
    assert usage.value.code == 2


# --------------------------------------------------------------- redaction
def test_a_redaction_changes_only_what_a_person_named_and_recall_follows(
        office, tmp_path, capsys, store_url):
    store = office.store
    recaller = office.recaller
    hits = recaller.search("colleague Alice peanuts", k=5, over="turns", exact=True,
                           user="bob")
    assert any("Alice" in h.text for h in hits)  # embedded and found before
    bob_turn, _ = _turn_of(store, "bob")
    found = store.admin.mentions_of("user:alice")
    name_fact = next(m for m in found if m.kind == "fact" and m.where == "name object")
    allergy = next(m for m in found if m.where.startswith("allergy"))
    carol = next(m for m in found if m.owner == "user:carol")
    audit_before = len(_rows(store, "audit_log"))

    for bad, why in ((["turn:x"], "KIND:ID"), ([f"turn:{bob_turn + 100}"], "is not a row"),
                     (["fact:0"], "KIND:ID")):
        with pytest.raises(InvalidInput, match=why):
            store.admin.erase("user:alice", by="dpo", redact=bad)
    assert main(["--db", store_url, "erase", "--subject", "user:alice",
                 "--redact", "memory:99999"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "memdesk: error: memory 99999 is not a row" in err
    assert store.admin.erasures() == 0 and len(_rows(store, "audit_log")) == audit_before

    with store.engine.connect() as conn:
        vectors = conn.execute(text("SELECT count(*) FROM recall_vector WHERE kind = 'turn' "
                                    "AND item_id = :i"), {"i": bob_turn}).scalar()
    assert vectors == 1
    report = store.admin.erase("user:alice", by="dpo",
                                 redact=[f"turn:{bob_turn}", name_fact.ref])
    assert f"turn:{bob_turn}" in report.redacted
    left = {m.ref for m in report.mentions}
    assert allergy.ref in left and carol.ref in left  # not named: left, and listed
    assert f"turn:{bob_turn}" not in left and name_fact.ref not in left

    _, redacted = _turn_of(store, "bob")
    assert redacted == "My colleague [erased] is allergic to peanuts. I live in Leeds."
    bob_memories = [t for t in _rows(store, "memory") if "peanuts" in t]
    assert bob_memories and not any("alice" in t.lower() for t in bob_memories)
    assert not any("Alice" in r for r in _rows(store, "fact"))
    assert [f.object for f in store.facts.current("user:bob")] == ["Leeds"]  # his own fact stays
    with store.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM recall_vector WHERE kind = 'turn' "
                                 "AND item_id = :i"), {"i": bob_turn}).scalar() == 0
    with store.engine.connect() as conn:
        detail = json.loads(conn.execute(text(
            "SELECT detail FROM audit_log WHERE action = 'subject.erased'")).scalar())
    assert detail["redacted"]["turn"] == [bob_turn]  # the history says what changed
    assert detail["counts"]["redacted"]["turn"] == 1
    verified = store.audit.verify()
    assert verified.ok, verified.problems

    fresh = Recaller(store, embedder=HashEmbedder(), index_dir=tmp_path / "idx2",
                     index=SETTINGS)
    for exact in (True, False):
        hits = fresh.search("colleague Alice allergic to peanuts", k=10, over="turns",
                            exact=exact, user="bob")
        assert not any("Alice" in h.text for h in hits)
    [report] = fresh.reindex(over="turns")  # `memdesk reindex`: the new text gets its vector
    assert report.embedded == 1
    hits = fresh.search("allergic to peanuts", k=10, over="turns", exact=True, user="bob")
    assert any("[erased]" in h.text for h in hits)  # the redacted turn is still bob's
    fresh.close()


def test_names_are_found_as_words_and_cjk_names_anywhere():
    from memdesk.mentions import Names

    names = Names.of("user:alice", ["alice", "Alice Martin", "Martin", "王芳", "a.b", " "])
    assert names.names[0] == "Alice Martin"  # the longest first: replaced whole
    assert names.find("my colleague ALICE said") == "ALICE"
    assert names.find("the Alicetown office, malice") is None
    assert names.find("我同事王芳对花生过敏") == "王芳"  # no spaces between CJK words
    assert names.find("ask a.b now") == "a.b" and names.find("ask axb now") is None
    assert names.find("refused: may not reach user:alice") == "user:alice"
    assert names.find(None) is None and names.find("") is None
    assert names.replace("Alice Martin met alice and 王芳.", "[erased]") == \
        "[erased] met [erased] and [erased]."
