"""The query map (core/recall/query_map.py, docs/query-map.md): a recall over
memories ranks the person's turns with its query's USE vector mapped into
e5's space, so it embeds no e5 query; with another pair of embedders, or
the map turned off, the turn embedder embeds the query as before."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from memdesk import Store
from memdesk.recall import E5Embedder, IndexSettings, Recaller, UseEmbedder, embedder_key
from memdesk.recall.query_map import QueryMap, fit

from .recall_fixtures import HashEmbedder


class Counting:
    """An embedder that counts the queries it embeds."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.name, self.version, self.dim = inner.name, inner.version, inner.dim
        self.queries: list[str] = []

    def embed(self, texts, *, query: bool = False):
        if query:
            self.queries += list(texts)
        return self.inner.embed(texts, query=query)


@pytest.fixture(scope="module")
def embedders():
    return UseEmbedder(), E5Embedder()


def test_the_bundled_map_fits_the_default_embedders(embedders):
    """A new release of either model needs a new map
    (``python -m memdesk.recall.train_query_map``)."""
    qmap = QueryMap.load()
    use, e5 = embedders
    assert qmap.applies(embedder_key(use), embedder_key(e5))
    assert not qmap.applies(embedder_key(e5), embedder_key(use))
    assert qmap.weights.shape == (use.dim + 1, e5.dim)


@pytest.mark.parametrize("query", ["what did my landlord say about the boiler",
                                   "周末那个徒步活动定在哪天了", "any allergies I should know about?"])
def test_a_mapped_query_lands_near_e5s_own(embedders, query):
    use, e5 = embedders
    mapped = QueryMap.load()(use.embed([query], query=True)[0])
    assert abs(float(np.linalg.norm(mapped)) - 1.0) < 1e-5
    assert float(mapped @ e5.embed([query], query=True)[0]) > 0.85


def test_fit_recovers_a_linear_map_and_is_repeatable():
    rng = np.random.default_rng(3)
    source = rng.normal(size=(400, 6)).astype(np.float32)
    true = rng.normal(size=(6, 4))
    target = source @ true + 0.5
    w = fit(source, target, ridge=1e-6)
    assert np.allclose(w[:-1], true, atol=1e-3) and np.allclose(w[-1], 0.5, atol=1e-3)
    assert np.array_equal(w, fit(source, target, ridge=1e-6))


def test_a_map_file_round_trips_and_a_bad_one_is_refused(tmp_path):
    qmap = QueryMap("a@1", "b@2", np.arange(12, dtype=np.float32).reshape(4, 3))
    qmap.save(tmp_path / "m.npz")
    back = QueryMap.load(tmp_path / "m.npz")
    assert (back.source, back.target) == ("a@1", "b@2") and np.array_equal(back.weights, qmap.weights)
    with pytest.raises(ValueError, match="takes 3 dimensions"):
        back(np.ones(5, np.float32))
    np.savez(tmp_path / "other.npz", weights=np.ones((2, 2)))
    with pytest.raises(ValueError, match="not a query map"):
        QueryMap.load(tmp_path / "other.npz")


TURNS = [
    "Morning! Quick one: we're redoing the kitchen this spring.",
    "Our budget for the whole kitchen is 3000 euros, not a cent more.",
    "I live in Leith, near the shore.",
    "My sister Mara is allergic to peanuts, so no satay when she visits.",
    "Work has been hectic, three launches this month.",
]


QUESTION = "anything to keep in mind about satay when she visits?"


def ingest(store: Store, folder: Path) -> None:
    path = folder / "dana.jsonl"
    path.write_text("".join(json.dumps({
        "session": "dana-1", "turn": i, "speaker": "user", "user": "dana", "text": text,
        "time": f"2026-02-10T10:{i:02d}:00+00:00"}) + "\n" for i, text in enumerate(TURNS, 1)),
        encoding="utf-8")
    store.facts.ingest_file(path)


def test_told_facts_rank_turns_with_the_mapped_query_and_embed_no_e5_query(
        store, tmp_path, embedders):
    use, e5 = embedders
    ingest(store, tmp_path)
    turns = Counting(e5)
    recaller = Recaller(store, embedder=use, turn_embedder=turns, index_dir=tmp_path / "idx")
    recaller.search("warm up", k=1, over="turns")  # embeds the turns
    turns.queries.clear()
    # the satay turn told the sister's facts: the best turn, so the first told fact is hers
    hits = recaller.search(QUESTION, k=5, subject="user:dana")
    assert turns.queries == []  # the turn vector came from the map
    told = [h for h in hits if h.channel == "told"]
    assert told and told[0].subject == "person:dana/sister"
    # recall over turns still embeds its query with e5
    recaller.search(QUESTION, k=5, over="turns", subject="user:dana")
    assert turns.queries == [QUESTION]

    # turned off: the told facts' ranking embeds the query with e5, and reads the same turn first
    exact = Recaller(store, embedder=use, turn_embedder=turns, index_dir=tmp_path / "idx",
                     index=IndexSettings(told_query_map=False))
    turns.queries.clear()
    hits = exact.search(QUESTION, k=5, subject="user:dana")
    assert turns.queries == [QUESTION]
    told = [h for h in hits if h.channel == "told"]
    assert told and told[0].subject == "person:dana/sister"


def test_another_pair_of_embedders_embeds_the_query_as_before(store, tmp_path):
    ingest(store, tmp_path)
    turns = Counting(HashEmbedder())
    recaller = Recaller(store, embedder=HashEmbedder(), turn_embedder=turns,
                        index_dir=tmp_path / "idx")
    recaller.search("warm up", k=1, over="turns")
    turns.queries.clear()
    recaller.search(QUESTION, k=5, subject="user:dana")
    assert turns.queries == [QUESTION]
