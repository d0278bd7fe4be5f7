"""A recall right after a remember does not wait for the remember's turns to
be embedded (issue 29 §1: a recall at its bound answers within its bound even
after a remember at the bounds). With ``Memory(warm=True)`` (the MCP server's
choice) the turns are embedded in a thread of its own; a search meanwhile
uses the vectors there are and finds the new turns by their words. Work is
checked, never time: the search embeds no passage while the warm-up holds the
embedding, and the warm-up's vectors are used once it is done."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np
from memdesk import Memory, Recaller

from .recall_fixtures import HashEmbedder, join_warmers


class HeldEmbedder(HashEmbedder):
    """Embeds passages only once ``release`` is set (queries at once), and
    counts the passages each thread asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.started = threading.Event()
        self.passages: dict[str, int] = {}

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        if not query:
            name = threading.current_thread().name
            self.passages[name] = self.passages.get(name, 0) + len(texts)
            self.started.set()
            assert self.release.wait(30), "the test never released the embedder"
        return super().embed(texts, query=query)


def test_a_recall_after_a_remember_does_not_wait_for_its_embedding(store):
    turns = HeldEmbedder()
    memory = Memory(store, Recaller(store, embedder=HashEmbedder(), turn_embedder=turns), warm=True)
    memory.remember([{"role": "user", "content": "Our lighthouse tour is booked for Saturday.",
                      "time": "2026-06-01T10:00:00+01:00"}], user="ines")
    assert turns.started.wait(30)  # the warm-up is embedding the turn, held
    hits = memory.recall("lighthouse tour", user="ines", over="turns", k=3)
    assert hits and "lighthouse" in hits[0].text  # found by its words meanwhile
    assert turns.passages.get(threading.current_thread().name, 0) == 0  # the search embedded none
    turns.release.set()
    join_warmers()
    assert turns.passages.get("memdesk-warm", 0) >= 1
    again = memory.recall("lighthouse tour", user="ines", over="turns", k=3)
    assert again and "lighthouse" in again[0].text


def test_without_warm_up_the_first_recall_embeds_what_it_needs(store):
    turns = HeldEmbedder()
    turns.release.set()
    memory = Memory(store, Recaller(store, embedder=HashEmbedder(), turn_embedder=turns))
    memory.remember([{"role": "user", "content": "The ferry leaves at dawn.",
                      "time": "2026-06-01T10:00:00+01:00"}], user="ines")
    assert not turns.passages  # nothing embedded in the background
    assert memory.recall("ferry", user="ines", over="turns", k=3)
    assert turns.passages.get(threading.current_thread().name, 0) >= 1
