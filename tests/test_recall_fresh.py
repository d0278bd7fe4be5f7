"""A turn just remembered is found by the next recall over turns while its
vector is still being computed (issue point 3, freshness in one server).

With e5, a person's turns have cosines to a query near 0.8 with a spread of
a few hundredths; a turn without a vector yet used to count with cosine 0,
some twenty standard deviations down, and its own rare word could not lift
it into the top 5. Now its word score stands for its meaning too (its dense
z-score is its word z-score) until the vector is there; the mean of the
others would still leave it below the near-copies of it said before. The
embedder below is e5-like (``CrowdedEmbedder``) and holds every passage
until the test lets go, so the background embedding is still running when
the recall comes."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np
import pytest
from memdesk import Memory, Recaller

from .recall_fixtures import HashEmbedder, crowded, join_warmers, topic_texts, write_turns
from .test_recall_warm import HeldEmbedder
from .test_recall_whole import CrowdedEmbedder


class CrowdedHeld(HeldEmbedder):
    """HeldEmbedder (passages wait for ``release``) with CrowdedEmbedder's cone."""

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        return crowded(super().embed(texts, query=query))


@pytest.fixture
def memory(store, tmp_path):
    # near-copies of the new turn said before, each with its own code: the
    # dense channel favours them all, only the words tell the new one apart
    copies = [f"The storage unit code is zy{w}, remember it" for w in
              ("balto", "cremin", "dostra", "fenwick", "galvo", "hestor")]
    store.facts.ingest_file(write_turns(tmp_path / "s.jsonl", topic_texts(34) + copies, user="ines",
                                  session="ines-chat"))
    turns = CrowdedHeld()
    turns.release.set()
    m = Memory(store, Recaller(store, embedder=HashEmbedder(), turn_embedder=turns,
                               index_dir=tmp_path / "idx"), warm=True)
    assert m.recall("taxis", user="ines", over="turns", k=3)  # every turn embedded
    turns.release.clear()
    turns.started.clear()
    yield m, turns
    turns.release.set()
    join_warmers()


def test_the_crowded_stand_in_is_like_e5():
    v = CrowdedEmbedder().embed(topic_texts(10))
    cos = v[1:] @ v[0]
    assert cos.min() > 0.9 and cos.std() < 0.05


def test_a_turn_waiting_for_its_vector_is_found_by_its_words(memory):
    m, turns = memory
    m.remember([{"role": "user", "content": "The storage unit code is zyquorbat, remember it",
                 "time": "2026-06-01T10:00:00+01:00"}], user="ines")
    assert turns.started.wait(30)  # the background embedding holds the new turn
    hits = m.recall("what was the storage unit code zyquorbat", user="ines", over="turns", k=5)
    assert len(hits) == 5 and "zyquorbat" in hits[0].text, [h.text for h in hits]
    assert hits[0].json["semantic"] == 0.0  # no vector yet: shown as such
    assert m.recall("storage unit code", user="ines", k=5) is not None  # nor over memories
    turns.release.set()
    join_warmers()
    again = m.recall("what was the storage unit code zyquorbat", user="ines", over="turns", k=5)
    assert "zyquorbat" in again[0].text and again[0].json["semantic"] > 0.5


def test_an_e5_query_does_not_wait_behind_a_batch_of_passages():
    """e5 embeds queries on an engine of its own: while the background thread
    is inside a batch of passages (held here), a recall's query embeds."""
    from memdesk.recall import E5Embedder

    e5 = E5Embedder()
    inside, release = threading.Event(), threading.Event()
    passage = e5._model.passage

    def held(items):
        inside.set()
        assert release.wait(30), "the test never released the passages"
        return passage(items)

    e5._model.passage = held
    worker = threading.Thread(target=lambda: e5.embed(["a turn just remembered"]))
    worker.start()
    try:
        assert inside.wait(30)
        q = e5.embed(["what was just said"], query=True)  # returns while the batch is held
        assert q.shape == (1, e5.dim) and worker.is_alive()
    finally:
        release.set()
        worker.join(30)


def test_another_persons_remember_keeps_the_word_index(store, tmp_path):
    """A person's turns and their word index are built again only when that
    person's turns changed: another person's remember (the store stamp moves
    on) keeps them; the person's own remember builds them again, the new
    turn in."""
    store.facts.ingest_file(write_turns(tmp_path / "i.jsonl", topic_texts(20), user="ines",
                                  session="ines-chat"))
    memory = Memory(store, Recaller(store, embedder=HashEmbedder(), index_dir=tmp_path / "idx"))

    def words():
        (corpus,) = [c for c in memory.recaller._corpora.values() if len(c.ids)]
        return corpus.words

    assert memory.recall("taxis", user="ines", over="turns", k=3)
    built = words()
    memory.remember([{"role": "user", "content": "Omar's zyquorbat code",
                      "time": "2026-06-01T10:00:00+01:00"}], user="omar")
    assert memory.recall("taxis", user="ines", over="turns", k=3)
    assert words() is built
    memory.remember([{"role": "user", "content": "The storage unit code is zyquorbat",
                      "time": "2026-06-01T10:00:00+01:00"}], user="ines")
    hits = memory.recall("storage unit code zyquorbat", user="ines", over="turns", k=3)
    assert words() is not built and "zyquorbat" in hits[0].text
    assert all(h.subject == "user:ines" for h in hits)
