"""Two servers over one store (issue point 3, a team's deployment: two
``memdesk mcp --transport http`` processes on one PostgreSQL store, each with
its own index folder rebuilt from the database): a turn one server's
``remember`` stored is found by the other server's very next recall over
turns, while the first server is still embedding it or before anyone has.
Behaviour, never time. Two ``Memory`` objects, each with its own ``Store``
(engine) and index folder, stand for the two processes."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from memdesk import Memory, Recaller, Store
from memdesk.recall import IndexSettings

from .recall_fixtures import HashEmbedder, join_warmers, topic_texts, write_turns
from .test_recall_warm import HeldEmbedder

WORDS = ["zyquorbat", "zyplendix", "zyvarnook"]


def _server(url: str, folder, *, turns=None, index: IndexSettings | None = None) -> Memory:
    store = Store.open(url)
    return Memory(store, Recaller(store, embedder=HashEmbedder(), turn_embedder=turns or
                                  HashEmbedder(), index_dir=folder, index=index), warm=True)


@pytest.fixture
def servers(store_url, tmp_path) -> Iterator[tuple[Memory, Memory]]:
    """A and B over one store: A embeds its remembers in the background, held
    until the test lets go (B must not need A's vectors)."""
    with Store.open(store_url) as seed:
        seed.facts.ingest_file(write_turns(tmp_path / "s.jsonl", topic_texts(30), user="ines",
                                     session="ines-chat"))
        seed.facts.ingest_file(write_turns(tmp_path / "o.jsonl", topic_texts(30, 30), user="omar",
                                     session="omar-chat"))
    held = HeldEmbedder()
    a = _server(store_url, tmp_path / "index-a", turns=held)
    b = _server(store_url, tmp_path / "index-b")
    held.release.set()
    for m in (a, b):  # warm: vectors, the person's turns and word index cached
        assert m.recall("taxis", user="ines", over="turns", k=3)
        assert m.recall("taxis", user="ines", k=3) is not None
    held.release.clear()
    held.started.clear()
    yield a, b
    held.release.set()
    join_warmers()
    for m in (a, b):
        m.close()


def _said(memory: Memory, word: str, at: str) -> None:
    memory.remember([{"role": "user", "content": f"The storage unit code is {word}, remember it",
                      "time": at}], user="ines")


def test_a_turn_remembered_by_one_server_is_recalled_by_the_other_at_once(servers):
    a, b = servers
    for n, word in enumerate(WORDS):
        _said(a, word, f"2026-06-0{n + 1}T10:00:00+01:00")
        # B's first recall after A's remember returned: in the top 5, for ines
        hits = b.recall(f"storage unit code {word}", user="ines", over="turns", k=5)
        assert word in hits[0].text, [h.text for h in hits]
        assert all(h.subject == "user:ines" for h in hits)
        # nobody else's recall hears of it
        assert not any(word in h.text for h in
                       b.recall(f"storage unit code {word}", user="omar", over="turns", k=5))
        # and A, whose embedding is still held, finds it by its words too
        assert word in a.recall(f"storage unit code {word}", user="ines", over="turns",
                                k=5)[0].text


def test_the_other_servers_index_path_finds_it_too(store_url, tmp_path):
    """B with an Annoy index over every turn (no exact pass: ``fused_max`` 0,
    index from 20 items): A's new turn is not in B's index file; B's next
    recall finds it in the tail it refreshes from the database."""
    with Store.open(store_url) as seed:
        seed.facts.ingest_file(write_turns(tmp_path / "s.jsonl", topic_texts(40), user="ines",
                                     session="ines-chat"))
    index = IndexSettings(exact_below=20, fused_max=0)
    a = _server(store_url, tmp_path / "index-a", index=index)
    b = _server(store_url, tmp_path / "index-b", index=index)
    try:
        assert b.recall("taxis", over="turns", k=3)
        assert b.recaller.status()["collections"]["turn"]["mode"] == "index"
        _said(a, WORDS[0], "2026-06-01T10:00:00+01:00")
        hits = b.recall(f"storage unit code {WORDS[0]}", over="turns", k=5)
        assert any(WORDS[0] in h.text for h in hits), [h.text for h in hits]
        hits = b.recall(f"storage unit code {WORDS[0]}", user="ines", over="turns", k=5)
        assert WORDS[0] in hits[0].text
    finally:
        join_warmers()
        a.close()
        b.close()


def test_the_other_server_forgets_what_an_erasure_removed(store_url, tmp_path):
    """An erasure committed by A: B's next recall drops every text and vector
    it had cached (its query and statement vectors, the person's turns), not
    only its index."""
    with Store.open(store_url) as seed:
        seed.facts.ingest_file(write_turns(tmp_path / "s.jsonl", topic_texts(12), user="ines",
                                     session="ines-chat"))
    a = _server(store_url, tmp_path / "index-a")
    b = _server(store_url, tmp_path / "index-b")
    try:
        assert b.recall("what did ines say about taxis", user="ines", over="turns", k=3)
        assert b.recall("what did ines say about taxis", user="ines", k=3) is not None
        cached = b.recaller._vectors_cache
        assert {text for _, text in cached} == {"what did ines say about taxis"}
        a.store.admin.erase("user:ines", by="test")
        assert not b.recall("anything else", user="ines", over="turns", k=3)
        assert {text for _, text in cached} <= {"anything else"}
        assert all(not len(c.ids) for c in b.recaller._corpora.values())
    finally:
        a.close()
        b.close()


@pytest.mark.parametrize("how", ["flag", "a remember of its own"])
def test_a_long_lived_server_does_not_embed_the_others_turns_in_its_search(store_url, tmp_path,
                                                                          how):
    """B in a long-lived process (``embed_in_background``, or set by its own
    ``remember``'s warm-up): the turn A stored is found by B's next recall by
    its words while B's own thread embeds it; the search itself embeds
    nothing (its embedder holds every passage until the test lets go)."""
    with Store.open(store_url) as seed:
        seed.facts.ingest_file(write_turns(tmp_path / "s.jsonl", topic_texts(30), user="ines",
                                     session="ines-chat"))
    held = HeldEmbedder()
    held.release.set()
    # A's vectors are of another version, so B's own thread has to embed
    a = _server(store_url, tmp_path / "index-a", turns=HashEmbedder(version="a"))
    b = _server(store_url, tmp_path / "index-b", turns=held)
    try:
        assert b.recall("taxis", user="ines", over="turns", k=3)  # B's vectors loaded
        if how == "flag":
            b.recaller.embed_in_background = True
        else:
            b.remember([{"role": "user", "content": "Omar's first note",
                         "time": "2026-05-01T10:00:00+01:00"}], user="omar")
            join_warmers()
        held.release.clear()
        held.started.clear()
        me = threading.current_thread().name
        before = held.passages.get(me, 0)
        _said(a, WORDS[0], "2026-06-01T10:00:00+01:00")
        hits = b.recall(f"storage unit code {WORDS[0]}", user="ines", over="turns", k=5)
        assert WORDS[0] in hits[0].text, [h.text for h in hits]
        assert held.passages.get(me, 0) == before  # the search embedded none itself
        assert held.started.wait(30)  # B's own thread is embedding it
    finally:
        held.release.set()
        join_warmers()
        a.close()
        b.close()
