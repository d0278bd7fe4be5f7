"""One searchable collection: the vectors of one kind of item (memories or
turns) for one embedder, with its Annoy index, its tail and the exact search.

Lifecycle, run at the start of every search (``refresh``):

1. items added to the store since the last call are embedded and stored
   (one index lookup when there are none);
2. below ``exact_below`` items there is no index: every vector is held in
   memory and searched exactly with numpy;
3. otherwise the index file is opened and checked (manifest, checksums,
   embedder, dimension, item count against the database); an unusable index
   is rebuilt with a message, never an exception;
4. vectors stored after the index was built (the *tail*) are searched exactly
   and merged with the index results; past ``rebuild_after`` of them the index
   is rebuilt;
5. an index rebuilt meanwhile by another process is noticed (its manifest
   changed) and reopened;
6. an erasure since the index was built (the store's ``store_meta.erasures``
   is higher than the count in the manifest) discards the index files and
   every vector held in memory, and the collection is rebuilt from the stored
   vectors, which no longer hold erased items.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..db.recall import Engine
from .annoy_index import IndexFiles, LoadedIndex, Manifest, build_index, dot, open_index
from .embedders import Embedder
from .vectors import Progress, VectorBlock, VectorStore

GAP_SECONDS = 60.0
"""How long a row id below those read is looked for again before it is taken
for one never used (a transaction commits its batch of vectors within seconds)."""


@dataclass(frozen=True, slots=True)
class IndexSettings:
    """How the index is built and searched. Defaults chosen by measurement
    (``tests/benchmarks/bench_recall.py``; figures in the README)."""

    n_trees: int = 48
    """At 1M items 48 trees beat 32 at the same search_k (20,000: recall@10
    0.954–0.969 over three builds against 0.961–0.964); 64 are no better."""
    proj_dim: int = 64
    """Annoy indexes the vectors projected on this many principal directions
    (0: the full vectors); its candidates are re-ranked with the full vectors.
    At 1M items 64 beats 128 on both counts (recall@10 0.964 against 0.962 at
    search_k 20,000, and fewer bytes per distance); 32 loses neighbours (0.90)."""
    search_k: int | None = None
    """Annoy's search_k (nodes inspected); None: by size, items / 50 within
    5,000–50,000 (5,000 at 100k items; 20,000 at 1M: 17,000 gave recall@10
    0.946–0.958 depending on the build, too close to 0.95)."""
    shards: int | None = None
    """Annoy forests the items are split into, searched in parallel threads
    with a share of search_k each; None: by size, 2 from 500,000 items (at 1M
    two shards with 10,000 each find as many neighbours as one forest with
    20,000 and take about half the wall time when a second core is free)."""
    rerank: int | None = None
    """Candidates re-ranked by exact cosine; None: by size, items / 1,000 within
    500–2,000 (500 at 100k: recall@10 0.976 against 0.964 with 200; 1,000 at 1M)."""
    exact_below: int = 10_000
    """Collections smaller than this are searched exactly; no index file is made."""
    rebuild_after: int = 5_000
    rebuild_fraction: float = 0.05
    """Rebuild once the tail holds more than max(rebuild_after, rebuild_fraction * indexed)."""
    build_jobs: int = -1
    fused_max: int = 50_000
    """Raw turns in scope up to this many (a person's conversations) are ranked
    exactly, every one by both channels fused (``fusion``); above it the
    index serves, with the word channel's anchors."""
    told_query_map: bool = True
    """A recall over memories ranks the person's turns with the query's turn
    vector mapped from its memory vector (``query_map``: 0.01 ms) instead of
    embedding it with e5 (15–17 ms), when the map fits the two embedders. The
    ranking differs a little (docs/query-map.md); False embeds it exactly."""

    def search_k_for(self, items: int) -> int:
        if self.search_k is not None:
            return self.search_k
        return min(50_000, max(5_000, items // 50))

    def shards_for(self, items: int) -> int:
        if self.shards is not None:
            return self.shards
        return 2 if items >= 500_000 else 1

    def rerank_for(self, items: int) -> int:
        if self.rerank is not None:
            return self.rerank
        return min(2_000, max(500, items // 1_000))


@dataclass(frozen=True, slots=True)
class IndexReport:
    """What ``reindex`` (or a search) found and did for one collection."""

    kind: str
    embedder: str
    items: int
    embedded: int
    mode: str  # "index" or "exact"
    built: bool
    build_seconds: float | None
    path: str | None
    reason: str | None

    def to_dict(self) -> dict:
        return {"kind": self.kind, "embedder": self.embedder, "items": self.items,
                "embedded": self.embedded, "mode": self.mode, "built": self.built,
                "build_seconds": self.build_seconds, "path": self.path, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Candidates:
    """Nearest items: ids, cosines, and which part found each (index, tail, exact)."""

    item_ids: np.ndarray
    cosines: np.ndarray
    channels: tuple[str, ...]
    searched_all: bool


def _top_of(item_ids: np.ndarray, sims: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``n`` best items given every item's similarity."""
    if not len(item_ids):
        return np.zeros(0, np.int64), np.zeros(0, np.float32)
    if n < len(sims):
        part = np.argpartition(-sims, n)[:n]
    else:
        part = np.arange(len(sims))
    order = part[np.argsort(-sims[part], kind="stable")]
    return item_ids[order], sims[order]


def _top(block: VectorBlock, q: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    if not len(block):
        return np.zeros(0, np.int64), np.zeros(0, np.float32)
    return _top_of(block.item_ids, dot(block.vectors, q), n)


class Collection:
    """Vectors, index and tail of one kind of item. Thread-safe: refreshing and
    rebuilding take a lock; searches run on immutable snapshots."""

    def __init__(self, engine: Engine, embedder: Embedder, kind: str, folder: Path,
                 settings: IndexSettings, notify: Callable[[str], None],
                 progress: Progress | None = None, *,
                 store_erasures: Callable[[], int]) -> None:
        """``store_erasures`` reads the store's erasure count (``store.admin.erasures``)."""
        self.kind = kind
        self._store_erasures = store_erasures
        self.embedder = embedder
        self.settings = settings
        self.vectors = VectorStore(engine, embedder, kind)
        self.files = IndexFiles(folder, kind, embedder.name, embedder.version)
        self._notify = notify
        self._progress = progress
        self._lock = threading.RLock()
        self._embedding = threading.Lock()  # one thread embeds at a time, outside ``_lock``
        self._ready = False
        self._index: LoadedIndex | None = None
        self._tail = VectorBlock.empty(embedder.dim)  # everything, when there is no index
        self._last_row = 0
        # row ids below _last_row not in the table when last looked (a row another
        # process was committing), each with when it was first missed
        self._gaps: dict[int, float] = {}
        self._seen: object = None  # the store stamp of the last full refresh
        self._erasures = 0  # the store's erasure count when the vectors were loaded

    @property
    def ready(self) -> bool:
        return self._ready

    # ----------------------------------------------------------- lifecycle
    def claim_embedding(self) -> bool:
        """Take the right to embed now, for a refresh in another thread
        (``refresh(claimed=True)`` gives it back): a search that comes in
        between then uses the vectors there are instead of embedding itself.
        False when another thread holds it."""
        return self._embedding.acquire(blocking=False)

    def refresh_in_background(self, stamp: object, notify: Callable[[str], None]) -> bool:
        """When the store changed since the last refresh and no other thread
        is embedding: take the right to embed and refresh in a daemon thread
        of its own (failures reported through ``notify``). True when one was
        started; a ``refresh(wait=False)`` after it then embeds nothing."""
        if self._ready and stamp == self._seen:
            return False
        if not self.claim_embedding():
            return False

        def run() -> None:
            try:
                self.refresh(stamp, claimed=True)
            except Exception as exc:  # a background refresh must never kill the process
                notify(f"embedding {self.kind}s in the background failed: {exc}")

        threading.Thread(target=run, name="memdesk-warm", daemon=True).start()
        return True

    def refresh(self, stamp: object = None, *, wait: bool = True, claimed: bool = False) -> None:
        """Embed new items, open/check/rebuild the index, pick up new vectors.

        ``stamp`` (any comparable value that changes whenever the store does,
        see ``Recaller``): when it equals the one of the last refresh, only the
        index file is checked for a rebuild by another process. Embedding runs
        outside the collection's lock, one thread at a time; ``wait`` False
        (a search) does not wait while another thread embeds (``Recaller.warm``
        after a remember): it uses the vectors there are, and the items still
        waiting count in the word channel only (their vectors are zeros)."""
        try:
            with self._lock:
                if (stamp is not None and self._ready and stamp == self._seen
                        and (self._index is None
                             or self.files.manifest_stamp() == self._index.stamp)):
                    if claimed:
                        self._embedding.release()
                    return
                erasures = self._store_erasures()
                if self._ready and erasures != self._erasures:
                    self._notify(f"the store erased a subject since the {self.kind} vectors were "
                                 "loaded; discarding them and the index")
                    self.discard()
                if not self._ready:
                    self.vectors.ensure_table()
                    self._erasures = erasures
        except BaseException:
            if claimed:  # never reached the embedding: give the right back
                self._embedding.release()
            raise
        caught_up = self._embed(wait, claimed)
        with self._lock:
            if not self._ready:
                self._open()
                self._ready = True
            elif self._index is not None and self.files.manifest_stamp() != self._index.stamp:
                self._notify(f"recall index for {self.kind}s changed on disk; reopening it")
                self._open()
            self._take_new()
            self._maybe_rebuild()
            self._seen = stamp if caught_up else None  # not caught up: look again next time

    def _take_new(self) -> None:
        """Add to the tail the vectors stored since the last look, and those
        that committed late below it (``_gaps``: another process's rows, on
        PostgreSQL, get their ids when inserted and are seen when committed).
        A gap still empty after ``GAP_SECONDS`` is an id never used; it is let go."""
        if self._gaps:
            late, present = self.vectors.load_rows(list(self._gaps))
            self._tail = self._tail.extend(late)
            now = time.monotonic()
            self._gaps = {i: t for i, t in self._gaps.items()
                          if i not in present and now - t < GAP_SECONDS}
        new, gaps = self.vectors.load_new(self._last_row)
        self._tail = self._tail.extend(new)
        self._last_row = max(self._last_row, new.last_row, max(gaps, default=0))
        self._watch(gaps)

    def _watch(self, gaps: list[int]) -> None:
        now = time.monotonic()
        for i in gaps:
            self._gaps.setdefault(i, now)

    def _embed(self, wait: bool, claimed: bool = False) -> bool:
        """Embed the items without a vector; False when another thread is
        embedding and ``wait`` is False (nothing done here). ``claimed``: the
        caller holds the right already (``claim_embedding``); it is given back."""
        if not claimed and not self._embedding.acquire(blocking=wait):
            return False
        try:
            self.vectors.embed_missing(progress=self._progress)
            return True
        finally:
            self._embedding.release()

    def _open(self) -> None:
        """Decide between exact mode and the index; load or rebuild the index."""
        self._index = None  # dropped, not unloaded: a search may still hold it
        total = self.vectors.count()
        if total < self.settings.exact_below:
            self._tail, self._last_row, self._gaps = VectorBlock.empty(self.embedder.dim), 0, {}
            return
        index, why = open_index(self.files, self.embedder.dim)
        if index is not None and index.manifest.erasures != self._erasures:
            why = (f"it was built before an erasure (erasure {index.manifest.erasures}, the "
                   f"store has had {self._erasures})")
            index = None
            self.files.remove()
        if index is not None:
            in_db = self.vectors.count(index.manifest.max_row_id)
            if in_db != index.manifest.items:
                why = (f"it holds {index.manifest.items} items but the store has {in_db} "
                       "vectors up to the same point (another store's index?)")
                index = None
        if index is None:
            self._notify(f"recall index for {self.kind}s at {self.files.annoy} is unusable: "
                         f"{why}; rebuilding it from the stored vectors")
            self._build()
            return
        self._index = index
        self._tail, self._last_row = VectorBlock.empty(self.embedder.dim), index.manifest.max_row_id
        self._gaps = {}

    def _maybe_rebuild(self) -> None:
        s = self.settings
        if self._index is None:
            if len(self._tail) >= s.exact_below:
                self._notify(f"{len(self._tail):,} {self.kind}s: building the recall index "
                             f"(exact search below {s.exact_below:,})")
                self._build()
            return
        limit = max(s.rebuild_after, int(s.rebuild_fraction * len(self._index)))
        if len(self._tail) > limit:
            self._notify(f"{len(self._tail):,} {self.kind}s added since the recall index was "
                         "built; rebuilding it")
            self._build()

    def _build(self) -> Manifest:
        with self._lock:
            # the old index (if any) stays in use until the new one is in place; it is
            # dropped, never unloaded, so a search still holding it finishes safely
            block, gaps = self.vectors.load_new(0)
            manifest = build_index(self.files, block, n_trees=self.settings.n_trees,
                                   proj_dim=self.settings.proj_dim,
                                   shards=self.settings.shards_for(len(block)),
                                   n_jobs=self.settings.build_jobs, erasures=self._erasures,
                                   progress=self._progress)
            index, why = open_index(self.files, self.embedder.dim)
            if index is None:  # pragma: no cover - a build that cannot be read back
                self._notify(f"the rebuilt recall index cannot be read ({why}); searching exactly")
                self._tail, self._last_row = block, block.last_row
                self._gaps = {}
                self._watch(gaps)
                return manifest
            self._index = index
            self._tail = VectorBlock.empty(self.embedder.dim)
            self._last_row = manifest.max_row_id
            self._gaps = {}
            self._watch(gaps)  # rows committing while it was read: the tail takes them
            return manifest

    def reindex(self) -> IndexReport:
        """Fill every gap in the stored vectors and rebuild the index now
        (or report exact mode for a small collection)."""
        with self._lock:
            self.vectors.ensure_table()
            with self._embedding:
                embedded = self.vectors.embed_missing(full=True, progress=self._progress)
            total = self.vectors.count()
            key = f"{self.embedder.name}@{self.embedder.version}"
            if total < self.settings.exact_below:
                self._ready = False
                self.refresh()
                return IndexReport(self.kind, key, total, embedded, "exact", False, None, None,
                                   f"{total:,} items: searched exactly below "
                                   f"{self.settings.exact_below:,}")
            manifest = self._build()
            self._ready = True
            self._seen = None
            self._take_new()
            return IndexReport(self.kind, key, manifest.items, embedded, "index", True,
                               manifest.build_seconds, str(self.files.annoy), None)

    def discard(self) -> None:
        """Forget the index and every vector held in memory and delete this
        collection's index files (after an erasure); the next refresh reloads
        from the store."""
        with self._lock:
            self._index = None
            self._tail = VectorBlock.empty(self.embedder.dim)
            self._last_row = 0
            self._gaps = {}
            self._ready = False
            self._seen = None
            self.files.remove()

    def close(self) -> None:
        with self._lock:
            self._seen = None
            self._index = None
            self._ready = False

    # -------------------------------------------------------------- search
    @property
    def size(self) -> int:
        index = self._index
        return (len(index) if index is not None else 0) + len(self._tail)

    @property
    def uses_index(self) -> bool:
        return self._index is not None

    def search(self, q: np.ndarray, n: int, *, exact: bool = False) -> Candidates:
        """The ``n`` nearest items by cosine (index + tail, or exact: a numpy scan
        of the index's memory-mapped vectors and the tail)."""
        index, tail = self._index, self._tail
        if index is None:
            ids, sims = _top(tail, q, n)
            return Candidates(ids, sims, ("exact",) * len(ids), n >= len(tail))
        if exact:
            ids_i, sims_i = _top_of(index.item_ids, index.similarities(q), n)
            ids_t, sims_t = _top(tail, q, n)
            ids = np.concatenate([ids_i, ids_t])
            sims = np.concatenate([sims_i, sims_t])
            order = np.argsort(-sims, kind="stable")[:n]
            return Candidates(ids[order], sims[order], ("exact",) * len(order),
                              n >= len(index) + len(tail))
        ids_i, sims_i = index.search(q, n, self.settings.search_k_for(len(index)),
                                     self.settings.rerank_for(len(index)))
        ids_t, sims_t = _top(tail, q, n)
        ids = np.concatenate([ids_i, ids_t])
        sims = np.concatenate([sims_i, sims_t])
        channels = np.array(["index"] * len(ids_i) + ["tail"] * len(ids_t))
        order = np.argsort(-sims, kind="stable")[:n]
        return Candidates(ids[order], sims[order], tuple(channels[order].tolist()),
                          n >= len(index) + len(tail))

    def cosines(self, q: np.ndarray, item_ids: list[int]) -> dict[int, float]:
        """Exact cosines for given items (lexical candidates, filtered fallbacks)."""
        if not item_ids:
            return {}
        return {i: float(np.dot(v, q)) for i, v in self.vectors_of(item_ids).items()}

    def vectors_of(self, item_ids: list[int]) -> dict[int, np.ndarray]:
        """Vectors of some items, from memory (index or tail) where possible."""
        index, tail = self._index, self._tail
        out: dict[int, np.ndarray] = {}
        want = np.asarray(item_ids, dtype=np.int64)
        blocks = [(tail.item_ids, tail.vectors)]
        if index is not None:
            blocks.insert(0, (index.item_ids, index.vectors))
        for block_ids, vectors in blocks:
            if not len(block_ids) or not len(want):
                continue
            pos = np.searchsorted(block_ids, want)  # item ids ascend within a block
            pos[pos >= len(block_ids)] = 0
            hit = block_ids[pos] == want
            if not hit.any():
                continue
            found = np.asarray(vectors[np.sort(pos[hit])], dtype=np.float32)  # one gather
            for i, v in zip(block_ids[np.sort(pos[hit])].tolist(), found, strict=True):
                out.setdefault(int(i), v)
        missing = [i for i in item_ids if i not in out]
        if missing:
            out.update(self.vectors.vectors_for(missing))
        return out
