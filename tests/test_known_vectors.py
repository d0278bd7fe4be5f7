"""Vectors worked out before (core/recall/known.py): the demo's passages are answered from the table shipped
with it, which must hold what the embedders give and cover every passage the demo embeds."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from memdesk import KnownVectors, ManualClock, Recaller, Store, load_known, make_embedder
from memdesk.app.demo import build_demo, demo_vectors
from memdesk.app.screenshots import DEMO_NOW
from memdesk.recall.embedders import DEFAULT_EMBEDDER, DEFAULT_TURN_EMBEDDER
from memdesk.recall.known import save_known


class _Counting:
    name, version, dim = "counting", "1", 3

    def __init__(self) -> None:
        self.asked: list[str] = []

    def embed(self, texts, *, query=False):
        self.asked.extend(texts)
        return np.array([[len(t), 1.0 if query else 0.0, 1.0] for t in texts], dtype=np.float32)


def test_known_passages_come_from_the_table_and_the_rest_from_the_embedder() -> None:
    inner = _Counting()
    known = KnownVectors(inner, {"a": np.array([9, 9, 9], dtype=np.float32)})
    out = known.embed(["a", "bb", "a", "bb"])
    assert out.tolist() == [[9, 9, 9], [2, 0, 1], [9, 9, 9], [2, 0, 1]]
    assert inner.asked == ["bb"] and known.asked == 1  # each missing text embedded once
    assert known.embed(["a"], query=True).tolist() == [[1, 1, 1]]  # a query is never taken from the table
    assert (known.name, known.version, known.dim) == ("counting", "1", 3)  # stored vectors carry its key


def test_a_table_of_another_version_is_not_used_and_a_malformed_one_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "v.npz"
    save_known(path, {"counting@0": {"a": np.zeros(3, dtype=np.float32)}})
    assert load_known(path, _Counting()) == {}  # made by version 0: not this embedder's vectors
    assert load_known(tmp_path / "missing.npz", _Counting()) == {}
    save_known(path, {"counting@1": {"a": np.zeros(4, dtype=np.float32)}})
    with pytest.raises(ValueError, match="not 1 x 3"):
        load_known(path, _Counting())


@pytest.fixture(scope="module")
def embedders() -> dict[str, object]:
    return {"memory": make_embedder(DEFAULT_EMBEDDER), "turn": make_embedder(DEFAULT_TURN_EMBEDDER)}


def test_the_shipped_table_covers_every_passage_the_demo_embeds(tmp_path: Path, embedders) -> None:
    """Fails after a change to the demo data, the extraction or an embedder: rebuild the table with
    ``python -m memdesk.app.demo_vectors``."""
    known = {kind: KnownVectors(e, load_known(demo_vectors(), e)) for kind, e in embedders.items()}
    with Store.open(tmp_path / "demo.db", clock=ManualClock(DEMO_NOW)) as store:
        build_demo(store)
        recaller = Recaller(store, embedder=known["memory"], turn_embedder=known["turn"],
                            index_dir=tmp_path / "index")
        try:
            recaller.reindex()
        finally:
            recaller.close()
    assert {kind: k.asked for kind, k in known.items()} == {"memory": 0, "turn": 0}


def test_the_shipped_vectors_are_the_embedders_own(embedders) -> None:
    for embedder in embedders.values():
        table = load_known(demo_vectors(), embedder)
        texts = sorted(table)[:: max(1, len(table) // 4)]  # a few across the table
        fresh = embedder.embed(texts)
        assert np.allclose(np.stack([table[t] for t in texts]), fresh, atol=1e-5)
