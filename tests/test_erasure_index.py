"""Erasure leaves no vector of the erased person in any recall index folder
(issue 13): the erasure only counts itself in the store; every index records
the count it was built at and discards itself when the store's is higher, and
the Recallers of the erasing process drop their files at once."""

from __future__ import annotations

import gc
import json

import numpy as np
import pytest
from memdesk import Store
from memdesk.recall import IndexSettings, Recaller

from .recall_fixtures import HashEmbedder
from .test_trust import CONV

SETTINGS = IndexSettings(exact_below=5, n_trees=4, proj_dim=0)


@pytest.fixture
def two_people(store) -> Store:
    store.facts.ingest_file(CONV / "carol-home.jsonl")
    store.facts.ingest_file(CONV / "tom-travel.jsonl")
    return store


def _carol_turn_ids(store: Store) -> set[int]:
    return {t.id for t in store.facts.conversation("carol-home")}


def _indexed_turn_ids(folder) -> set[int]:
    """Every turn id held in the turn index files of ``folder``."""
    ids: set[int] = set()
    for path in folder.glob("turn-*.ids.npy"):
        ids.update(int(i) for i in np.load(path))
    return ids


def _build(store: Store, folder) -> Recaller:
    r = Recaller(store, embedder=HashEmbedder(), index_dir=folder, index=SETTINGS)
    hits = r.search("I live in Hackney", k=5, over="turns")
    assert any("Hackney" in h.text for h in hits)
    assert list(folder.glob("turn-*.annoy"))
    return r


def test_the_erasure_is_counted_in_the_store(two_people):
    assert two_people.admin.erasures() == 0
    two_people.admin.erase("user:carol", by="dpo")
    assert two_people.admin.erasures() == 1


def test_a_recaller_of_this_process_drops_its_custom_folder_at_once(two_people, tmp_path):
    folder = tmp_path / "custom-index"
    r = _build(two_people, folder)
    carol = _carol_turn_ids(two_people)
    assert carol & _indexed_turn_ids(folder)
    two_people.admin.erase("user:carol", by="dpo")
    assert not [p for p in folder.iterdir() if p.suffix in (".annoy", ".npy", ".json")]
    hits = r.search("I live in Hackney and bank with Monzo", k=20, over="turns")
    assert hits and not any("Hackney" in h.text or "Monzo" in h.text for h in hits)
    assert not carol & _indexed_turn_ids(folder)


def test_an_index_no_recaller_here_knows_is_discarded_when_opened(two_people, store_url, tmp_path):
    """A folder used by a Recaller that is gone (another process, a past run):
    its files survive the erasure, and the first Recaller to open them
    discards them before any search can use them."""
    folder = tmp_path / "elsewhere"
    r = _build(two_people, folder)
    del r
    gc.collect()
    carol = _carol_turn_ids(two_people)
    two_people.admin.erase("user:carol", by="dpo")
    manifest = json.loads(next(folder.glob("turn-*.json")).read_text())
    assert manifest["erasures"] == 0  # built before the erasure: stale
    with Store.open(store_url) as other:
        fresh = Recaller(other, embedder=HashEmbedder(), index_dir=folder, index=SETTINGS)
        hits = fresh.search("I live in Hackney and bank with Monzo", k=20, over="turns")
        assert hits and not any("Hackney" in h.text or "Monzo" in h.text for h in hits)
        assert any("discarding" in m or "before an erasure" in m for m in fresh.messages)
        fresh.close()
    assert not carol & _indexed_turn_ids(folder)
    assert json.loads(next(folder.glob("turn-*.json")).read_text())["erasures"] == 1


def test_a_long_lived_recaller_of_another_store_object_forgets_on_refresh(
        two_people, store_url, tmp_path):
    """The desk or a server holds a Recaller open while another process erases."""
    folder = tmp_path / "server-index"
    carol = _carol_turn_ids(two_people)
    with Store.open(store_url) as server_store:
        r = _build(server_store, folder)
        two_people.admin.erase("user:carol", by="dpo")  # not this Store object
        hits = r.search("I live in Hackney and bank with Monzo", k=20, over="turns",
                        exact=True)
        assert hits and not any("Hackney" in h.text or "Monzo" in h.text for h in hits)
        assert not carol & _indexed_turn_ids(folder)
        r.close()


def test_the_cli_erase_clears_the_store_s_index_folder(two_people, store_url, capsys):
    from memdesk.app.cli import main
    from memdesk.recall import default_index_dir

    folder = default_index_dir(two_people.url)
    with Store.open(store_url) as other:  # built by "another process": no listener here
        r = _build(other, folder)
        del r
        gc.collect()
        assert main(["--db", store_url, "erase", "--subject", "user:carol", "--by", "dpo"]) == 0
    assert "erased user:carol" in capsys.readouterr().out
    assert not [p for p in folder.iterdir() if p.suffix in (".annoy", ".npy", ".json")]


def test_an_upgraded_store_counts_the_erasures_its_log_records(tmp_path):
    import shutil
    from pathlib import Path

    path = tmp_path / "v2.db"
    shutil.copy(Path(__file__).resolve().parent / "fixtures" / "store_v2.db", path)
    Store.upgrade(str(path))
    with Store.open(str(path)) as store:
        assert store.admin.erasures() == 1  # the fixture's log holds one tombstone
        assert store.audit.verify().ok


def test_ids_are_never_handed_out_twice_after_an_erasure(store):
    """An erasure deletes the rows with the highest ids; the next writes must
    not reuse them (audit entries name rows by id ranges), or verify breaks."""
    from sqlalchemy import text

    from .test_trust import DEMO, populate

    tables = ("claim", "fact", "turn", "audit_log")

    def ids() -> dict[str, set[int]]:
        with store.engine.connect() as conn:
            return {t: {i for (i,) in conn.execute(text(f"SELECT id FROM {t}"))} for t in tables}

    populate(store)
    before = ids()
    store.admin.erase("user:carol", by="dpo")
    after_erasure = ids()
    assert any(max(before[t]) not in after_erasure[t] for t in tables)  # the newest rows went
    store.facts.import_file(DEMO / "review.jsonl", actor="again")
    store.facts.ingest_file(CONV / "carol-home.jsonl")
    pending = store.review.list()
    store.review.approve(pending[0].id, by="rita")
    report = store.audit.verify()
    assert report.ok, report.problems
    for table, now in ids().items():
        new = now - after_erasure[table]
        assert new and min(new) > max(before[table]), table  # no id handed out twice


def test_an_upgraded_store_starts_past_every_id_its_log_names(tmp_path):
    import shutil
    from pathlib import Path

    path = tmp_path / "v2.db"
    shutil.copy(Path(__file__).resolve().parent / "fixtures" / "store_v2.db", path)
    Store.upgrade(str(path))
    with Store.open(str(path)) as store:
        with store.engine.connect() as conn:
            from sqlalchemy import text

            marks = json.loads(conn.execute(text("SELECT id_marks FROM store_meta")).scalar())
            highest = conn.execute(text("SELECT MAX(claim_to) FROM audit_log")).scalar()
        assert marks["claim"] > highest
        store.facts.ingest_file(CONV / "carol-home.jsonl")
        assert store.audit.verify().ok
