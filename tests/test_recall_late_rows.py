"""Vector rows that commit out of id order (core/recall/collection.py,
``Collection._take_new``): on PostgreSQL two processes embedding at once get
their row ids when they insert and are seen when they commit, so a row may
appear below ids a collection has already read. It still reaches the
collection's tail, and lookups by item still find it in memory."""

from __future__ import annotations

from memdesk.db.tables import VECTOR, TurnRow
from memdesk.recall import IndexSettings
from memdesk.recall.collection import Collection
from sqlalchemy import select

from .recall_fixtures import HashEmbedder, write_turns

TEXTS = ["I keep a sourdough starter called Doug", "the boiler makes a knocking sound",
         "we booked the ferry to Mull for May", "my knee hurts after long runs",
         "the quarterly report is due on Friday", "I switched to oat milk last week"]


def stored(store, embedder, pairs: list[tuple[int, int, str]]) -> None:
    """Vector rows with the ids given: (row id, item id, text)."""
    vectors = embedder.embed([t for _, _, t in pairs])
    with store.engine.begin() as conn:
        conn.execute(VECTOR.insert(), [
            dict(id=row, kind="turn", item_id=item, embedder=embedder.name,
                 embedder_version=embedder.version, dim=embedder.dim,
                 vector=v.astype("<f4").tobytes(), created_at=0)
            for (row, item, _), v in zip(pairs, vectors, strict=True)])


def test_a_vector_committed_below_rows_already_read_joins_the_tail(store, tmp_path):
    store.facts.ingest_file(write_turns(tmp_path / "t.jsonl", TEXTS))
    with store.engine.connect() as conn:
        items = [int(i) for i in conn.execute(select(TurnRow.id).order_by(TurnRow.id)).scalars()]
    embedder = HashEmbedder()
    col = Collection(store.engine, embedder, "turn", tmp_path / "idx", IndexSettings(),
                     lambda message: None, None, store_erasures=store.admin.erasures)
    col.vectors.ensure_table()
    # four turns embedded, the sixth by a process whose row got id 7; the fifth's
    # row (id 5) is still being committed by another
    stored(store, embedder, [(r, items[r - 1], TEXTS[r - 1]) for r in range(1, 5)]
           + [(7, items[5], TEXTS[5])])
    col.refresh()
    late = embedder.embed([TEXTS[4]], query=True)[0]
    assert items[4] not in col.search(late, 10).item_ids.tolist()

    stored(store, embedder, [(5, items[4], TEXTS[4])])  # it commits
    col.refresh()
    found = col.search(late, 10)
    assert found.item_ids[0] == items[4] and found.cosines[0] > 0.99
    # every vector is found by item, whatever order the rows came in
    assert set(col.vectors_of(items)) == set(items)
    assert sorted(col.search(late, 10).item_ids.tolist()) == items
