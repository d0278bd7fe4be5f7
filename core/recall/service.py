"""The recall service: ``Recaller(store).search("QUERY")``, the orchestrator
of a pipeline of small parts.

One search, in order:

1. the arguments are checked (``filters.check_request``) and who the recall
   is for is resolved against the store (``reads.StoreView.resolve``, the
   rules in ``scope``);
2. the store's new memories (or turns) are embedded and the index is checked
   (``collection``); the query is embedded meanwhile (``embedding``);
3. candidates come from the channels: the nearest items by meaning from the
   index plus the tail (or an exact scan), joined by the lexical channel's
   anchors and the items of the subjects the query names (``nearest``); for
   raw turns in a scope, every turn ranked by the dense and the word channel
   fused (``turns``, ``fusion``);
4. candidates are hydrated (ids → rows, ``hydrate``): each memory takes the
   status of the fact its claim produced, judged at ``at`` as known at ``at``
   (expired ones are left out unless asked for), and the ids of the open
   conflicts it is part of; then scored (relevance + recency + importance,
   times the status factor: ``results``, ``scoring``) and near-duplicates
   collapse into the best of them (``collapse``);
5. a recall over memories adds the facts the person's best turns told
   (``told``), and a query that names a predicate gets the store's current
   value of it, per subject, pinned first (``structured``); the other side
   of any conflict in the results is added next to it, and an agent's
   inference names who approved it (``results``).

Every SQL statement is ``memdesk.db.recall``'s. A Recaller may be shared
between threads (the app calls it from workers): every call opens its own
database connections and returns frozen records; the embedder, the loaded
index, the tail and what was read from the store (until it changes) are
cached in the instance.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from ..db.recall import HotReads
from ..lang.text import grams, is_chinese
from ..store import Store
from .annoy_index import remove_index_files
from .collection import Collection, IndexReport, IndexSettings
from .embedders import (
    DEFAULT_EMBEDDER,
    DEFAULT_TURN_EMBEDDER,
    Embedder,
    embedder_key,
    make_embedder,
)
from .embedding import QueryVectors
from .filters import KIND, OVER, Filters, check_over, check_request
from .folders import default_index_dir, index_folder
from .hits import Comparison, RecallHit, masked, render_prompt
from .intent import PredicateMatcher
from .lexical import QueryGrams
from .nearest import nearest
from .probe import Probe
from .query_map import QueryMap
from .reads import StoreView
from .results import with_approvers, with_conflict_partners
from .scope import ResolvedScope, Scope
from .scoring import RecallWeights
from .structured import structured
from .told import ToldQuery, told_facts, turn_vector
from .turns import TurnCorpora, TurnCorpus, corpus_vectors, rank_turns
from .vectors import Progress

_T = TypeVar("_T")
_TOLD_EMBED_MAX = 256  # turns a recall over memories embeds before it uses their vectors


class Recaller:
    """Recall over a store's memories (or raw turns): hybrid, explainable, thread-safe.

    ``embedder`` is an Embedder or a setting value (``use``, ``e5``, ``use+e5``),
    loaded on first use. ``on_message`` receives one-line notices (an index
    rebuilt, and why); ``progress(stage, done, total)`` long work.
    ``embed_in_background`` (a long-lived process: the MCP server; set by
    ``warm_in_background`` too): a search never embeds items stored since
    the last one (another process's, say) itself, a thread of its own does,
    and they count by their words meanwhile; the first search of a
    collection still embeds what it needs.
    Raises EmbedderUnavailable (on first use) when the embedder cannot load.
    """

    def __init__(self, store: Store, *, embedder: Embedder | str = DEFAULT_EMBEDDER,
                 turn_embedder: Embedder | str | None = None,
                 weights: RecallWeights | None = None, index_dir: str | Path | None = None,
                 index: IndexSettings | None = None,
                 on_message: Callable[[str], None] | None = None,
                 progress: Progress | None = None, embed_in_background: bool = False) -> None:
        self.store = store
        self.weights = weights or RecallWeights()
        self.index_settings = index or IndexSettings()
        self.index_dir = index_folder(store.url, index_dir)
        if turn_embedder is None:  # an embedder object given serves both kinds
            turn_embedder = embedder if not isinstance(embedder, str) else DEFAULT_TURN_EMBEDDER
        self._specs: dict[str, Embedder | str] = {"memory": embedder, "turn": turn_embedder}
        self._embedders: dict[str, Embedder] = {
            kind: spec for kind, spec in self._specs.items() if not isinstance(spec, str)}
        self._on_message = on_message
        self._progress = progress
        self._lock = threading.Lock()
        self._collections: dict[str, Collection] = {}
        self._predicates = PredicateMatcher.from_catalog(store.catalog)
        self._hot = HotReads(store.engine)  # the reads of every search, prepared once
        self._view = StoreView(store, self._hot, self._lock)  # reads cached per store stamp
        self._turns = TurnCorpora(store.engine, self._lock)  # a scope's turns and their words
        self._vectors = QueryVectors(self.embedder_for, self._lock)  # query vectors kept
        self.messages: list[str] = []
        self._told_notice = False
        self._query_map: QueryMap | bool | None = None  # loaded on first use; False: none shipped
        self.embed_in_background = embed_in_background
        self._pool: ThreadPoolExecutor | None = None
        store.admin.on_erasure(self._forget_erased)

    # ------------------------------------------------------------- plumbing
    @property
    def _corpora(self) -> dict[tuple, TurnCorpus]:
        """The word indexes of the scopes recently asked for (``turns``)."""
        return self._turns.by_scope

    @property
    def _vectors_cache(self) -> dict[tuple[tuple[str, bool], str], np.ndarray]:
        """The query and statement vectors kept (``embedding``)."""
        return self._vectors.cache

    @property
    def embedder(self) -> Embedder:
        """The embedder of memories (loaded on first use)."""
        return self.embedder_for("memory")

    @property
    def turn_embedder(self) -> Embedder:
        """The embedder of raw turns (loaded on first use)."""
        return self.embedder_for("turn")

    def embedder_for(self, kind: str) -> Embedder:
        """The embedder of ``memory`` or ``turn`` items. Raises EmbedderUnavailable."""
        with self._lock:
            found = self._embedders.get(kind)
            if found is None:
                spec = str(self._specs[kind])
                # the same setting for both kinds shares one loaded model
                same = next((e for k, e in self._embedders.items()
                             if str(self._specs[k]) == spec), None)
                found = self._embedders[kind] = same or make_embedder(spec)
            return found

    def _notify(self, message: str) -> None:
        self.messages.append(message)
        del self.messages[:-50]
        if self._on_message is not None:
            self._on_message(message)

    def _collection(self, over: str) -> Collection:
        """The collection searched for ``over`` (made on first use)."""
        kind = KIND[over]
        embedder = self.embedder_for(kind)
        with self._lock:
            col = self._collections.get(kind)
            if col is None:
                col = Collection(self.store.engine, embedder, kind, self.index_dir,
                                 self.index_settings, self._notify, self._progress,
                                 store_erasures=self.store.admin.erasures)
                self._collections[kind] = col
            return col

    def _forget_erased(self) -> None:
        """After an erasure committed by this process's Store: drop every vector
        and cached text held in memory and delete every index file in the
        index folder, so that nothing erased stays anywhere (the next search
        rebuilds from the stored vectors)."""
        with self._lock:
            collections = list(self._collections.values())
        for col in collections:
            col.discard()
        self.close()
        removed = remove_index_files(self.index_dir)
        if removed:
            self._notify(f"erasure: removed {len(removed)} recall index file(s) from {self.index_dir}")

    def warm(self) -> None:
        """Embed what was stored since the last search, for raw turns and
        memories (their collections made if need be), waiting for any other
        thread doing so. ``Memory.remember`` runs it in a thread of its own
        after writing, so the next search, which does not wait for it, stays
        fast; until it is done new items are found by their words only."""
        for over in ("turns", "memories"):
            self._collection(over).refresh(wait=True)

    def warm_in_background(self) -> threading.Thread:
        """``warm`` in a daemon thread (its failures are reported, never
        raised). The right to embed is taken before it returns, so a search
        right after it uses the vectors there are rather than embedding.
        From then on the Recaller serves a long-lived process: its searches
        embed in the background too (``embed_in_background``)."""
        self.embed_in_background = True
        cols = [self._collection(over) for over in ("turns", "memories")]
        claimed = [col for col in cols if col.claim_embedding()]

        def run() -> None:
            for col in claimed:
                try:
                    col.refresh(claimed=True)
                except Exception as exc:  # a background refresh must never kill the process
                    self._notify(f"embedding {col.kind}s in the background failed: {exc}")

        thread = threading.Thread(target=run, name="memdesk-warm", daemon=True)
        thread.start()
        return thread

    def _refresh(self, col: Collection, stamp: tuple) -> None:
        """A search's refresh of ``col``: never waits for another thread's
        embedding; with ``embed_in_background``, embeds nothing itself either
        (a thread of its own does, and the new items count by their words
        meanwhile), else embeds what is new (at most a batch while a search
        waits is what a one-shot caller wants: its first recall embeds)."""
        if self.embed_in_background and col.ready:
            col.refresh_in_background(stamp, self._notify)
        col.refresh(stamp, wait=False)

    def close(self) -> None:
        """Drop the cached index and vectors (the store stays open)."""
        with self._lock:
            for col in self._collections.values():
                col.close()
            self._collections.clear()
            self._view.clear()
            self._turns.clear()
            self._vectors.clear()

    # ------------------------------------------------------------------ API
    def search(self, query: str, *, k: int = 10, at: int | None = None, exact: bool = False,
               over: str = "memories", subject: str | None = None,
               scope: str | Sequence[str] | None = None,
               status: str | Sequence[str] | None = None,
               since: int | None = None, until: int | None = None,
               include_archived: bool = False, user: str | None = None,
               project: str | None = None, session: str | None = None,
               within: Iterable[str] | None = None) -> list[RecallHit]:
        """The best ``k`` results for ``query``, best first (pinned current facts
        first, then by score; the other side of a conflict in the results is
        added next to it).

        ``at`` (µs): recall as of that time: only items the store held then,
        statuses as believed then, recency measured from then. ``status``
        filters by status (default: everything but ``expired``); ``scope`` by
        the claim's scope; ``since`` / ``until`` by the item's time.

        Who it is for (``scope.Scope``): ``subject="user:alice"`` (or
        ``user="alice"``) recalls on alice's behalf: her facts, memories and
        turns and those of the projects her conversations belong to, never
        anyone else's; ``project`` and ``session`` narrow that. Another
        subject (``project:atlas``) filters by exactly that subject. Without
        any, recall is unscoped and every hit names its subject. ``within``:
        only these of the user's projects (what a door token reaches). ``exact`` skips the index. Memories
        maintenance archived (stale, or folded into a near duplicate) are left
        out unless ``include_archived`` (as of ``at``: those archived later
        were not archived then); their hits carry ``archived``.

        Raises InvalidInput for a bad argument; EmbedderUnavailable.
        """
        return self._search(query, k=k, at=at, exact=exact, over=over, subject=subject,
                            scope=scope, status=status, since=since, until=until,
                            include_archived=include_archived, user=user, project=project,
                            session=session, within=within)[0]

    def resolve_scope(self, subject: str | None = None, *, user: str | None = None,
                      project: str | None = None, session: str | None = None,
                      within: Iterable[str] | None = None) -> ResolvedScope:
        """What a recall with these arguments covers (``scope.ResolvedScope``:
        its subjects, turns and sessions), as the store stands now. Raises
        InvalidInput like ``search``."""
        return self._view.resolve(Scope.of(subject, user=user, project=project, session=session,
                                           within=within), self._view.stamp())

    def compare(self, query: str, k: int = 10, **filters: Any) -> Comparison:
        """The same search exactly and through the index, and what the index missed."""
        exact_hits, _ = self._search(query, k=k, exact=True, **filters)
        index_hits, used = self._search(query, k=k, exact=False, **filters)
        got = {h.key for h in index_hits}
        missed = tuple(h for h in exact_hits if h.key not in got)
        ranked = [h for h in exact_hits if not h.pinned]
        found = sum(1 for h in ranked if h.key in got)
        return Comparison(query, tuple(exact_hits), tuple(index_hits), missed,
                          found / len(ranked) if ranked else 1.0, used)

    def reindex(self, *, over: str | None = None,
                progress: Progress | None = None) -> list[IndexReport]:
        """Embed every item that lacks a vector and rebuild the index (of both
        collections, or of ``over``). Small collections are reported as searched
        exactly. Raises InvalidInput for a bad ``over``."""
        kinds = OVER if over is None else (over,)
        for o in kinds:
            check_over(o)
        reports = []
        for o in kinds:
            col = self._collection(o)
            saved = col._progress
            if progress is not None:
                col._progress = progress
            try:
                reports.append(col.reindex())
            finally:
                col._progress = saved
        return reports

    def status(self) -> dict[str, Any]:
        """What is loaded: per collection, items, mode and the index path."""
        collections: dict[str, Any] = {}
        def named(kind: str) -> str:
            loaded = self._embedders.get(kind)
            return embedder_key(loaded) if loaded else str(self._specs[kind])

        out = {"embedder": named("memory"), "turn_embedder": named("turn"),
               "index_dir": str(self.index_dir), "collections": collections}
        for kind, col in self._collections.items():
            collections[kind] = {"items": col.size,
                                 "mode": "index" if col.uses_index else "exact",
                                 "path": str(col.files.annoy)}
        return out

    render_prompt = staticmethod(render_prompt)

    # ------------------------------------------------------------ internals
    def _search(self, query: str, *, k: int = 10, at: int | None = None, exact: bool = False,
                over: str = "memories", subject: str | None = None,
                scope: str | Sequence[str] | None = None,
                status: str | Sequence[str] | None = None,
                since: int | None = None, until: int | None = None,
                include_archived: bool = False, user: str | None = None,
                project: str | None = None, session: str | None = None,
                within: Iterable[str] | None = None) -> tuple[list[RecallHit], bool]:
        """``search``, and whether the index served it."""
        r = check_request(query, self.store.bounds, k=k, at=at, exact=exact, over=over,
                          subject=subject, scope=scope, status=status, since=since, until=until,
                          include_archived=include_archived, user=user, project=project,
                          session=session, within=within)
        asked, statuses = r.asked, r.statuses
        # a recall over memories asked for someone also ranks their turns
        # (told facts, below): the query's turn vector is mapped from its own
        # (``query_map``), or else embedded (e5, the longest part of such a
        # recall) in a side thread meanwhile
        wants_told = over == "memories" and (statuses is None or "active" in statuses)
        told_map = self._told_map() if wants_told and asked.scoped else None
        turn_query: Future[np.ndarray] | None = None
        waiting = self._view.waiting()
        if (wants_told and asked.scoped and told_map is None
                and (waiting is None or waiting <= _TOLD_EMBED_MAX)):
            turn_query = self._side(self._vectors.query, "turn", query)
        # and the query's own vector while the store is looked at and new
        # items are embedded (e5's passages and queries have engines of their own)
        own_query = self._side(self._vectors.query, KIND[over], query)
        now = self.store.now() if at is None else at
        known_at = at
        col = self._collection(over)
        if not col.ready:
            col.vectors.ensure_table()  # the stamp reads it; stores made before it lack it
        stamp = self._view.stamp()
        if self._after_erasures(stamp):
            col = self._collection(over)
        in_scope = self._view.resolve(asked, stamp)
        self._refresh(col, stamp)  # another thread embedding (``warm``): not waited for
        q = own_query.result()
        qgrams = QueryGrams.of(grams(query))
        filters = Filters(in_scope, r.scopes, statuses, at, since, until, include_archived)
        conflicts = self._view.open_conflicts(known_at, stamp) if over == "memories" else {}
        # subjects the query names ("where does alice live"): their items are
        # candidates too, and score the subject term; a scoped recall hears
        # only names inside its scope
        named = [] if asked.subject else [
            s for s in self._view.subject_matcher(stamp).subjects(query)
            if in_scope.covers_subject(s)]
        if in_scope.scoped and not asked.subject:
            named = [s for s in named if s != f"user:{asked.user}"]
        p = Probe(over, query, q, qgrams, k, filters, tuple(named), now, known_at, conflicts,
                  stamp)

        # facts told in the turns of the person asked for, or named ("does
        # Carol have any animals": among Carol's turns, without her name); an
        # unscoped recall naming nobody (support, debugging) goes without
        told: ToldQuery | None = None
        if wants_told and (in_scope.scoped or named):
            about, content = filters, query
            if not in_scope.scoped:
                about = replace(filters, scope=self._view.resolve(Scope.of(named[0]), stamp))
                content = self._view.subject_matcher(stamp).without_names(query)
            if content.strip():
                qmap = told_map if asked.scoped else self._told_map()
                told = ToldQuery(content, about, turn_vector(
                    content, q if content == query else None, qmap, turn_query,
                    self._vectors.query))

        # a person's turns (or a small store's) are all ranked, by both channels
        # fused; beyond IndexSettings.fused_max the index brings the candidates
        corpus = (self._turns.get(filters, stamp, self.index_settings.fused_max)
                  if over == "turns" else None)
        if corpus is not None:
            hits = rank_turns(p, corpus, col, self._hot, self.weights,
                              partial(self._vectors.embedded, ("turn", True)))
            used = False
        else:
            # over-fetch until k candidates pass the filters or everything was
            # seen; should near-duplicates collapse the results below k, fetch more
            hits = nearest(p, col, exact, self._view, self._hot, self.weights)
            used = col.uses_index and not exact
        if over == "memories":
            if told is not None:
                extra = self._told_facts(told, p)
                seen = {h.key for h in hits}
                hits = sorted(hits + [h for h in extra if h.key not in seen],
                              key=lambda h: -h.score)
            pinned = structured(p, hits, self.store, self._predicates, self.weights,
                                self._vectors.passages)
            pinned = [h for h in pinned if (since is None or h.time >= since)
                      and (until is None or h.time <= until)]
            pinned_keys = {h.key for h in pinned}
            hits = pinned + [h for h in hits if h.key not in pinned_keys]
            hits = hits[:max(k, len(pinned))]
            hits = with_conflict_partners(self.store, hits, now, is_chinese(query))
        return [masked(h) for h in with_approvers(self.store.engine, hits)], used

    def _told_facts(self, told: ToldQuery, p: Probe) -> list[RecallHit]:
        """The facts told in the turns in ``told``'s scope that best answer
        it (``told.told_facts``); words only while more than
        ``_TOLD_EMBED_MAX`` turns wait for a vector, so that a recall over
        memories never waits for a store's turns to be embedded. Empty when
        too many turns are in scope for an exact pass."""
        f = told.filters
        turn_filter = Filters(f.scope, None, None, f.at, f.since, f.until)
        corpus = self._turns.get(turn_filter, p.stamp, self.index_settings.fused_max)
        if corpus is None:
            return []

        def turn_vectors(corpus: TurnCorpus) -> tuple[np.ndarray, np.ndarray] | None:
            col = self._collection("turns")
            if not col.ready:
                col.vectors.ensure_table()
            if self._view.turns_waiting(col, p.stamp) <= _TOLD_EMBED_MAX:
                self._refresh(col, p.stamp)  # at most a batch of new turns to embed
                return corpus_vectors(col, corpus)
            if not self._told_notice:
                self._told_notice = True
                self._notify("raw turns are not embedded yet: recall over memories uses their "
                             "words only (memdesk reindex --over turns embeds them)")
            return None

        return told_facts(told, corpus, p, turn_vectors, self.store, self.weights,
                          self._vectors.passages)

    def _after_erasures(self, stamp: tuple) -> bool:
        """When the store has had an erasure since the last look (committed
        by another process: this one's own are heard at once, ``on_erasure``),
        drop every text and vector cached here (``close``) and say so. The
        count is read once per store stamp (an erasure writes an audit entry)."""
        dropped = self._view.erasures_changed(stamp)
        if dropped:
            self.close()
        return dropped

    def _told_map(self) -> QueryMap | None:
        """The query map from this recaller's memory embedder to its turn
        embedder, when one was fitted for exactly these two and
        ``IndexSettings.told_query_map`` is on; None otherwise (loaded once)."""
        if not self.index_settings.told_query_map:
            return None
        if self._query_map is None:
            try:
                found: QueryMap | bool = QueryMap.load()
            except (FileNotFoundError, ValueError):
                found = False  # an install without the map embeds the query as before
            self._query_map = found
        qmap = self._query_map
        if not isinstance(qmap, QueryMap):
            return None
        source, target = embedder_key(self.embedder), embedder_key(self.turn_embedder)
        return qmap if qmap.applies(source, target) else None

    def _side(self, fn: Callable[..., _T], *args: Any) -> Future[_T]:
        """``fn(*args)`` in the Recaller's side thread (made on first use)."""
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(4, thread_name_prefix="memdesk-recall")
            return self._pool.submit(fn, *args)


__all__ = ["Comparison", "RecallHit", "Recaller", "default_index_dir",
           "index_folder"]
