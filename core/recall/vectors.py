"""Vectors in the database: the source of truth of the vector path.

``VectorStore`` finds the memories or turns that have no vector yet for an
embedder, embeds them in batches and stores the results (concurrent writers
simply skip rows another process stored first), and reads vectors back for
index builds, the exact search and the tail of items added since the last
build. Every call uses its own connection, so one VectorStore may serve many
threads.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..clock import SystemClock, now_us
from ..db.recall import (
    Engine,
    VectorKey,
    count_vectors,
    ensure_vector_table,
    insert_vectors,
    item_vectors,
    items_without_vectors,
    max_vector_row,
    newest_item,
    vector_rows,
    vector_rows_after,
    vector_watermark,
)
from ..failpoints import point
from .embedders import Embedder

KINDS = ("memory", "turn")
EMBED_BATCH = 256
EMBED_BATCH_CHARS = 4_000
"""A batch ends at EMBED_BATCH items or this many characters, whichever comes
first: an embedder serves one call at a time, so a search's query waits for
at most one such batch of a refresh running in another thread."""

Progress = Callable[[str, int, int], None]
"""``progress(stage, done, total)``: called during long work (embedding, building)."""


GAP_WINDOW = 10_000
"""Row ids this far below the newest one read are watched for rows that
commit late (``VectorStore.load_new``)."""


@dataclass(frozen=True, slots=True)
class VectorBlock:
    """Vectors with their row ids and item ids, as numpy arrays, in ascending
    item id order (``by_item``: lookups search the item ids). Rows are mostly
    stored in item order too, but not always: two processes embedding at once
    commit in either order."""

    row_ids: np.ndarray  # int64
    item_ids: np.ndarray  # int64
    vectors: np.ndarray  # float32 (n, dim), unit rows

    def __len__(self) -> int:
        return int(self.row_ids.shape[0])

    @staticmethod
    def empty(dim: int) -> VectorBlock:
        return VectorBlock(np.zeros(0, np.int64), np.zeros(0, np.int64),
                           np.zeros((0, dim), np.float32))

    @property
    def last_row(self) -> int:
        """The highest row id (0 for an empty block)."""
        return int(self.row_ids.max()) if len(self) else 0

    def by_item(self) -> VectorBlock:
        """The same rows in ascending item id order (itself when they are)."""
        if len(self) < 2 or bool(np.all(np.diff(self.item_ids) > 0)):
            return self
        order = np.argsort(self.item_ids, kind="stable")
        return VectorBlock(self.row_ids[order], self.item_ids[order], self.vectors[order])

    def extend(self, other: VectorBlock) -> VectorBlock:
        if not len(other):
            return self
        return VectorBlock(np.concatenate([self.row_ids, other.row_ids]),
                           np.concatenate([self.item_ids, other.item_ids]),
                           np.concatenate([self.vectors, other.vectors])).by_item()


def _check_kind(kind: str) -> str:
    """``kind`` itself. Raises ValueError for anything but ``memory`` or ``turn``."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    return kind


class VectorStore:
    """Stored vectors of one embedder for one kind of item (memory or turn),
    read and written through ``memdesk.db.recall``. Raises ValueError for
    another kind."""

    def __init__(self, engine: Engine, embedder: Embedder, kind: str) -> None:
        self.engine = engine
        self.embedder = embedder
        self.kind = _check_kind(kind)
        self._key = VectorKey(kind, embedder.name, embedder.version)
        self._embedded_upto = 0  # every item up to this id is known to have a vector
        self._ensured = False  # the table is known to exist

    # ------------------------------------------------------------ writing
    def ensure_table(self) -> None:
        """Create the vector table (and the fact-by-claim index recall uses) in a
        store made before they existed. Checked once per instance (a check
        reads the schema: about 2 ms, on every recall whose collection is not
        loaded yet)."""
        if self._ensured:
            return
        ensure_vector_table(self.engine)
        self._ensured = True

    def watermark(self) -> int:
        """The highest item id that has a vector (items are embedded in id order)."""
        return vector_watermark(self.engine, self._key)

    def embed_missing(self, *, full: bool = False, progress: Progress | None = None) -> int:
        """Embed the items that have no vector yet, in batches, and store them.

        ``full`` also fills gaps below the newest embedded item (``reindex``);
        otherwise only items added since are looked for, which costs one index
        lookup. Returns how many vectors were stored.
        """
        newest = newest_item(self.engine, self.kind)
        if not full and newest <= self._embedded_upto:
            return 0  # nothing added since the last look: one primary-key lookup
        pending = items_without_vectors(self.engine, self._key, full=full)
        total = len(pending)
        done = 0
        for part in _batches(pending):
            vecs = self.embedder.embed([t for _, t in part])
            now = now_us(SystemClock())
            rows = [dict(kind=self.kind, item_id=i, embedder=self.embedder.name,
                         embedder_version=self.embedder.version, dim=self.embedder.dim,
                         vector=v.astype("<f4").tobytes(), created_at=now)
                    for (i, _), v in zip(part, vecs, strict=True)]
            insert_vectors(self.engine, rows, before_commit=lambda: point("vectors.commit"))
            point("vectors.committed")
            done += len(part)
            if progress is not None:
                progress(f"embedding {self.kind}s", done, total)
        self._embedded_upto = max(self._embedded_upto, newest)
        return total

    # ------------------------------------------------------------ reading
    def count(self, max_row_id: int | None = None) -> int:
        return count_vectors(self.engine, self._key, max_row_id)

    def max_row_id(self) -> int:
        return max_vector_row(self.engine, self._key)

    def _block(self, rows: Sequence[Any]) -> VectorBlock | None:
        """This store's rows among ``rows`` (id, item id, vector, kind,
        embedder, version, dim) as a block, in the order given; None if none."""
        want = (self.kind, self.embedder.name, self.embedder.version, self.embedder.dim)
        mine = [r for r in rows if tuple(r[3:]) == want]
        if not mine:
            return None
        row_ids = np.fromiter((r[0] for r in mine), np.int64, len(mine))
        item_ids = np.fromiter((r[1] for r in mine), np.int64, len(mine))
        vecs = np.frombuffer(b"".join(bytes(r[2]) for r in mine), dtype="<f4")
        return VectorBlock(row_ids, item_ids,
                           vecs.reshape(len(mine), self.embedder.dim).astype(np.float32))

    def _scan(self, after_row_id: int, batch: int) -> Iterator[tuple[np.ndarray, VectorBlock | None]]:
        """Every row with id > ``after_row_id`` (of any kind: rows of all
        collections share the id sequence), in row id order, in batches: the
        ids read, and this store's rows among them."""
        last = after_row_id
        # a range on the primary key only (the other columns are checked here)
        while True:
            fetched = vector_rows_after(self.engine, last, batch)
            if not fetched:
                return
            last = int(fetched[-1][0])
            yield np.fromiter((r[0] for r in fetched), np.int64, len(fetched)), self._block(fetched)
            if len(fetched) < batch:
                return

    def load_new(self, after_row_id: int = 0) -> tuple[VectorBlock, list[int]]:
        """All stored vectors with row id > ``after_row_id`` as one block (by
        item id), and the row ids not (yet) in the table among the last
        ``GAP_WINDOW`` below the newest row read: on PostgreSQL a row another
        process is committing holds an id below those already committed, and
        appears later (``load_rows``); an id never used (a rolled-back insert,
        a row skipped as a duplicate) never does."""
        parts: list[VectorBlock] = []
        seen: list[np.ndarray] = []
        for ids, block in self._scan(after_row_id, 20_000):
            seen.append(ids)
            if block is not None:
                parts.append(block)
        if not seen:
            return VectorBlock.empty(self.embedder.dim), []
        read = np.concatenate(seen)
        top = int(read[-1])
        low = max(after_row_id, top - GAP_WINDOW)
        window = np.arange(low + 1, top + 1, dtype=np.int64)
        gaps = window[~np.isin(window, read[np.searchsorted(read, low, side="right"):])].tolist()
        if not parts:
            return VectorBlock.empty(self.embedder.dim), gaps
        block = VectorBlock(np.concatenate([p.row_ids for p in parts]),
                            np.concatenate([p.item_ids for p in parts]),
                            np.concatenate([p.vectors for p in parts]))
        return block.by_item(), gaps

    def load_rows(self, row_ids: Sequence[int]) -> tuple[VectorBlock, set[int]]:
        """This store's vectors among rows ``row_ids`` (by item id), and which
        of those ids are in the table now (of any kind)."""
        found = vector_rows(self.engine, sorted(set(int(i) for i in row_ids)))
        block = self._block(found)
        return (VectorBlock.empty(self.embedder.dim) if block is None else block.by_item(),
                {int(r[0]) for r in found})

    def vectors_for(self, item_ids: Sequence[int]) -> dict[int, np.ndarray]:
        """The stored vectors of some items (e.g. candidates found by the lexical channel)."""
        ids = sorted(set(int(i) for i in item_ids))
        return {item_id: np.frombuffer(blob, dtype="<f4").astype(np.float32)
                for item_id, blob in item_vectors(self.engine, self._key, ids)}


def _batches(items: list[tuple[int, str]]) -> Iterator[list[tuple[int, str]]]:
    """``items`` in batches of at most EMBED_BATCH items and EMBED_BATCH_CHARS
    characters (at least one item each)."""
    part: list[tuple[int, str]] = []
    chars = 0
    for item in items:
        if part and (len(part) >= EMBED_BATCH or chars + len(item[1]) > EMBED_BATCH_CHARS):
            yield part
            part, chars = [], 0
        part.append(item)
        chars += len(item[1])
    if part:
        yield part
