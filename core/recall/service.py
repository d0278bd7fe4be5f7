"""The recall service: ``Recaller(store).search("QUERY")``.

One search, in order:

1. the store's new memories (or turns) are embedded and the index is checked
   (see ``collection``);
2. the query is embedded; the nearest items come from the index plus the tail
   (or an exact numpy scan), over-fetched so that filters (subject, scope,
   status, time, ``at``) never starve the top k: the fetch grows until k
   results pass or everything was looked at, and a narrow filter is searched
   exactly over just the items it admits;
3. the lexical channel adds items holding the query's rare names and numbers
   and scores every candidate's wording;
4. each memory takes the status of the fact its claim produced, judged at
   ``at`` as known at ``at`` (active, superseded, corrected, retracted,
   expired; expired ones are left out unless asked for), and the ids of the
   open conflicts it is part of;
5. a query that names a predicate gets the store's current value of it, per
   subject, pinned first (the structured path decides values);
6. scores: relevance + recency + importance, times the status factor;
   near-duplicates collapse into the best of them; the other side of any
   conflict in the results is added next to it.

A Recaller may be shared between threads (the app calls it from workers):
every call opens its own database connections and returns frozen records;
the embedder, the loaded index and the tail are cached in the instance.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from hashlib import sha1
from pathlib import Path
from typing import Any, TypeVar, cast

import numpy as np
from sqlalchemy import and_, bindparam, func, or_, select
from sqlalchemy.engine import make_url
from sqlalchemy.sql.elements import BindParameter

from ..axes import KNOWN_FROM, told_by
from ..checks import check_moment, check_scope, check_text
from ..db import PreparedQuery
from ..db.tables import AUDIT, CLAIM, CONFLICT, FACT, MEMORY, TURN, VECTOR
from ..errors import InvalidInput
from ..lang.questions import asks, asks_when
from ..lang.text import anchors, grams, is_chinese
from ..lang.times import find_times
from ..records import STATUSES, Fact, Source
from ..store import Store
from ..timeutil import from_us, iso, parse_time_us
from .annoy_index import remove_index_files
from .bm25 import Bm25Index
from .collection import Collection, IndexReport, IndexSettings
from .embedders import (
    DEFAULT_EMBEDDER,
    DEFAULT_TURN_EMBEDDER,
    Embedder,
    embedder_key,
    make_embedder,
)
from .fusion import fuse, relevance_of, zscores
from .hits import RecallHit, masked, render_prompt
from .intent import PredicateMatcher, SubjectMatcher
from .lexical import AnchorIndex, QueryGrams, lexical_score
from .query_map import QueryMap
from .scope import ResolvedScope, Scope, people_of, resolve
from .scoring import RecallWeights, importance, recency, relevance, score, status_factor
from .vectors import Progress

_T = TypeVar("_T")
MAX_K = 1000  # results one recall may ask for
OVER = ("memories", "turns")
_KIND = {"memories": "memory", "turns": "turn"}
_DUP_COSINE = 0.95
_DUP_GRAMS = 0.8
_FILTERED_EXACT_MAX = 50_000
_EMBED_CACHE = 1024  # query and statement vectors kept per Recaller
_DIRECT_EXACT_MAX = 2_000  # a narrow filter admitting at most this many: scored exactly, no index

# hot statements, built once (SQLAlchemy caches their compiled form per dialect)
# candidate rows are fetched in blocks of _BLOCK ids (padded with -1) by statements
# compiled once per dialect and run on the DBAPI cursor (core.db.PreparedQuery)
_BLOCK = 64
_ID_PARAMS: list[BindParameter[int]] = [bindparam(f"i{j}") for j in range(_BLOCK)]
_MEMORY_COLS = (MEMORY.c.id, MEMORY.c.subject, MEMORY.c.predicate, MEMORY.c.text,
                MEMORY.c.created_at, MEMORY.c.mentions, MEMORY.c.claim_id, MEMORY.c.turn_id,
                CLAIM.c.scope, CLAIM.c.confidence, CLAIM.c.source_kind, CLAIM.c.merged_into,
                CLAIM.c.fact_id, TURN.c.session, TURN.c.turn, TURN.c.speaker,
                TURN.c.text.label("turn_text"), TURN.c.time, TURN.c.time_tz,
                MEMORY.c.archived_at, MEMORY.c.archive_reason,
                MEMORY.c.merged_into.label("merged_into_memory"))
_TURN_COLS = (TURN.c.id, TURN.c.session, TURN.c.turn, TURN.c.speaker, TURN.c.text, TURN.c.time,
              TURN.c.time_tz, TURN.c.user, TURN.c.project, TURN.c.recorded_at)
_Q_MEMORY_ROWS = (select(*_MEMORY_COLS)
                  .join(CLAIM, CLAIM.c.id == MEMORY.c.claim_id)
                  .join(TURN, TURN.c.id == MEMORY.c.turn_id)
                  .where(MEMORY.c.id.in_(_ID_PARAMS)))
_Q_TURN_ROWS = select(*_TURN_COLS).where(TURN.c.id.in_(_ID_PARAMS))
_CORPUS_CACHE = 16  # word indexes kept per Recaller (one per scope recently asked for)
_TOLD_TURNS = 3  # the best turns whose facts a recall over memories also returns
_NEIGHBOUR_SHARE = 0.9  # a told turn's neighbours, at this share of its relevance
_TOLD_EMBED_MAX = 256  # turns a recall over memories embeds before it uses their vectors
_Q_FACTS_BY_CLAIM = select(*FACT.c).where(FACT.c.claim_id.in_(_ID_PARAMS))
_ROW_KEYS = {"memories": tuple(c.name for c in _MEMORY_COLS),
             "turns": tuple(c.name for c in _TURN_COLS)}
_CONFLICT_COLS = (CONFLICT.c.id, CONFLICT.c.fact_ids, CONFLICT.c.claim_id, CONFLICT.c.subject)
_Q_OPEN_CONFLICTS = select(*_CONFLICT_COLS).where(CONFLICT.c.state == "open")
_Q_CONFLICTS_AT = select(*_CONFLICT_COLS).where(
    CONFLICT.c.opened_at <= bindparam("k"),
    or_(CONFLICT.c.resolved_at.is_(None), CONFLICT.c.resolved_at > bindparam("k")))
_Q_NEW_TEXTS = {
    "memories": select(MEMORY.c.id, MEMORY.c.text).where(MEMORY.c.id > bindparam("after"))
    .order_by(MEMORY.c.id),
    "turns": select(TURN.c.id, TURN.c.text).where(TURN.c.id > bindparam("after")).order_by(TURN.c.id),
}
# the store stamp: the newest row of every table recall reads. Every change to
# the store writes an audit entry (a decision, a resolution, an import, an
# erasure), so when the stamp is unchanged the index tail, the open conflicts,
# the subject list and the lexical anchors cached from the last search are
# still current: one round trip instead of six. (Ids an erasure removed may
# stay in those caches; their rows are gone, so they never hydrate.)
_Q_STAMP = select(*(select(func.max(t.c.id)).scalar_subquery()
                    for t in (AUDIT, VECTOR, MEMORY, TURN, FACT, CONFLICT, CLAIM)))


def default_index_dir(url: str) -> Path:
    """Where the index files of a store live: beside a SQLite file
    (``memdesk.db`` → ``memdesk.db.recall/``); for a server store, in the user's
    cache folder (``$XDG_CACHE_HOME`` or ``~/.cache``) under
    ``memdesk/recall/<host>-<port>-<database>-<hash>``."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        db = parsed.database
        if db and db != ":memory:":
            return Path(db).expanduser().resolve().with_name(Path(db).name + ".recall")
        return Path(tempfile.gettempdir()) / f"memdesk-recall-{os.getpid()}-{id(url)}"
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    digest = sha1(parsed.render_as_string(hide_password=True).encode()).hexdigest()[:10]
    name = re.sub(r"[^A-Za-z0-9._-]+", "_",
                  f"{parsed.host or 'local'}-{parsed.port or 5432}-{parsed.database or ''}")
    return cache / "memdesk" / "recall" / f"{name}-{digest}"


def index_folder(url: str, index_dir: str | Path | None = None) -> Path:
    """The folder a Recaller of the store at ``url`` keeps its index files in:
    ``index_dir`` when given, else ``default_index_dir(url)``."""
    return Path(index_dir) if index_dir else default_index_dir(url)


@dataclass(frozen=True, slots=True)
class Comparison:
    """Exact search against the index for one query: which results the index missed."""

    query: str
    exact: tuple[RecallHit, ...]
    index: tuple[RecallHit, ...]
    missed: tuple[RecallHit, ...]
    recall: float
    index_used: bool

    def to_json(self) -> dict[str, Any]:
        return {"query": self.query, "recall": round(self.recall, 4), "index_used": self.index_used,
                "exact": [h.to_json() for h in self.exact],
                "index": [h.to_json() for h in self.index],
                "missed": [h.to_json() for h in self.missed]}


@dataclass(slots=True)
class _Cand:
    """A candidate while one search runs (mutable, never leaves the module)."""

    item_id: int
    cosine: float
    channel: str
    row: dict[str, Any] = field(default_factory=dict)
    lexical: float = 0.0
    status: str = "active"
    conflict: tuple[int, ...] = ()
    fact_ids: tuple[int, ...] = ()
    fused: float | None = None  # the fused channels (see fusion)
    words: float = 0.0  # the BM25 score


@dataclass(frozen=True, slots=True)
class _Told:
    """Facts one turn told, as they hold now, and how they read (never leaves the module)."""

    turn: tuple[str, int]  # (session, turn)
    facts: tuple[Fact, ...]
    label: str  # the predicate's label in the query's language

    @property
    def statement(self) -> str:
        return f"{self.label} {' '.join(x.object for x in self.facts)}"


@dataclass(frozen=True, slots=True)
class _ToldQuery:
    """What ``_told_facts`` asks of whose turns (never leaves the module)."""

    query: str
    filters: _Filters
    turn_vector: Callable[[], np.ndarray]  # the query's vector among the turns' (on demand)


@dataclass(frozen=True, slots=True)
class _TurnCorpus:
    """The turns of one scope with a word index over them (never leaves the module)."""

    stamp: tuple
    mark: tuple  # (count, highest id) of the turns in scope: unchanged, the corpus is current
    ids: np.ndarray
    words: Bm25Index
    keys: tuple[tuple[str, int], ...]  # (session, turn) of each
    said: tuple[tuple[str, int, int], ...]  # (text, time µs, offset minutes) of each
    _dated: list[np.ndarray] = field(default_factory=list)
    _known: dict[tuple[str, int, int], float] = field(default_factory=dict)  # a former corpus's

    def dated(self) -> np.ndarray:
        """1 for each turn whose text names a day ("next Friday", 5月13日,
        上周末: ``lang.times.find_times`` against the turn's own time),
        else 0; worked out on first use (what the scope's former corpus
        worked out is taken over) and kept."""
        if not self._dated:
            known = self._known
            self._dated.append(np.fromiter(
                (known[x] if x in known else 1.0 if find_times(x[0], from_us(x[1], x[2])) else 0.0
                 for x in self.said), np.float64, len(self.said)))
        return self._dated[0]

    def dated_by_turn(self) -> dict[tuple[str, int, int], float]:
        """What ``dated`` worked out, by turn (empty before its first use)."""
        return dict(zip(self.said, self._dated[0].tolist(), strict=True)) if self._dated else {}


def _as_tuple(value: str | Sequence[str] | None, label: str) -> tuple[str, ...] | None:
    """A filter given as one string or a list of them, blanks dropped (None: no
    filter). Raises InvalidInput for anything but strings."""
    if value is None:
        return None
    items = (value,) if isinstance(value, str) else value
    if not isinstance(items, list | tuple) or not all(isinstance(v, str) for v in items):
        raise InvalidInput(f"{label} must be a string or a list of strings, got {value!r}")
    return tuple(v.strip() for v in items if v and v.strip()) or None


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
        self._corpora: dict[tuple, _TurnCorpus] = {}
        self._conversations: dict[str, tuple[tuple, list[tuple[str, str | None]]]] = {}
        self._on_message = on_message
        self._progress = progress
        self._lock = threading.Lock()
        self._collections: dict[str, Collection] = {}
        self._anchors: dict[str, AnchorIndex] = {}
        self._predicates = PredicateMatcher.from_catalog(store.catalog)
        self._subjects: SubjectMatcher | None = None
        self._subjects_mark: tuple | None = None
        self._conflicts: tuple[tuple, dict[int, tuple[set[int], int, str]]] | None = None
        self._anchor_marks: dict[str, tuple] = {}
        self._queries: dict[str, PreparedQuery] = {}
        self.messages: list[str] = []
        self._told_notice = False
        self._query_map: QueryMap | bool | None = None  # loaded on first use; False: none shipped
        self._turn_count: tuple[tuple, bool] | None = None
        self._waiting: tuple[tuple, int] | None = None
        self._filtered: dict[tuple, tuple[tuple, list[int]]] = {}
        self._vectors_cache: dict[tuple[tuple[str, bool], str], np.ndarray] = {}
        self._erasure_mark: tuple[tuple, int] | None = None  # (stamp, the store's erasures)
        self.embed_in_background = embed_in_background
        self._pool: ThreadPoolExecutor | None = None
        store.on_erasure(self._forget_erased)

    # ------------------------------------------------------------- plumbing
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
        kind = _KIND[over]
        embedder = self.embedder_for(kind)
        with self._lock:
            col = self._collections.get(kind)
            if col is None:
                col = Collection(self.store.engine, embedder, kind, self.index_dir,
                                 self.index_settings, self._notify, self._progress,
                                 store_erasures=self.store.erasures)
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
            self._anchors.clear()
            self._anchor_marks.clear()
            self._conflicts = None
            self._subjects = self._subjects_mark = None
            self._corpora.clear()
            self._conversations.clear()
            self._filtered.clear()
            self._waiting = None
            self._vectors_cache.clear()

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
        return self._resolve(Scope.of(subject, user=user, project=project, session=session,
                                      within=within), self._stamp())

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
            if o not in OVER:
                raise InvalidInput(f"over must be one of {', '.join(OVER)}, got {o!r}")
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
        if not isinstance(query, str) or not query.strip():
            raise InvalidInput("the recall query must not be empty")
        check_text(query, "the recall query")  # no NUL, no lone surrogate: the embedders take text
        bounds = self.store.bounds  # the work one recall may ask for (core/bounds.py)
        bounds.check_query(query)
        bounds.check_asks(len(asks(query)))  # each ask is embedded on its own
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
            raise InvalidInput(f"k must be a whole number from 1 to {MAX_K}, got {k!r}")
        if over not in OVER:
            raise InvalidInput(f"over must be one of {', '.join(OVER)}, got {over!r}")
        statuses = _as_tuple(status, "status")
        if statuses is not None:
            bad = [s for s in statuses if s not in STATUSES]
            if bad:
                raise InvalidInput(f"unknown status {bad[0]!r}: use {', '.join(STATUSES)}")
        scopes = _as_tuple(scope, "scope")
        if scopes is not None:
            scopes = tuple(check_scope(s, "scope filter") for s in scopes)
        for label, moment in (("at", at), ("since", since), ("until", until)):
            if moment is not None:
                check_moment(moment, label)
        if over == "turns" and (scopes or statuses):
            raise InvalidInput("scope and status filters apply to memories, not raw turns")
        asked = Scope.of(subject, user=user, project=project, session=session, within=within)
        # a recall over memories asked for someone also ranks their turns
        # (told facts, below): the query's turn vector is mapped from its own
        # (``query_map``), or else embedded (e5, the longest part of such a
        # recall) in a side thread meanwhile
        wants_told = over == "memories" and (statuses is None or "active" in statuses)
        told_map = self._told_map() if wants_told and asked.scoped else None
        turn_query: Future[np.ndarray] | None = None
        if (wants_told and asked.scoped and told_map is None
                and (self._waiting is None or self._waiting[1] <= _TOLD_EMBED_MAX)):
            turn_query = self._side(self._embed_query, "turn", query)
        # and the query's own vector while the store is looked at and new
        # items are embedded (e5's passages and queries have engines of their own)
        own_query = self._side(self._embed_query, _KIND[over], query)
        now = self.store.now() if at is None else at
        known_at = at
        col = self._collection(over)
        if not col.ready:
            col.vectors.ensure_table()  # the stamp reads it; stores made before it lack it
        stamp = self._stamp()
        if self._after_erasures(stamp):
            col = self._collection(over)
        in_scope = self._resolve(asked, stamp)
        self._refresh(col, stamp)  # another thread embedding (``warm``): not waited for
        q = own_query.result()
        qgrams = QueryGrams.of(grams(query))
        filters = _Filters(in_scope, scopes, statuses, at, since, until, include_archived)
        conflicts = self._open_conflicts(known_at, stamp) if over == "memories" else {}
        # subjects the query names ("where does alice live"): their items are
        # candidates too, and score the subject term; a scoped recall hears
        # only names inside its scope
        named = [] if asked.subject else [
            s for s in self._subject_matcher(stamp).subjects(query) if in_scope.covers_subject(s)]
        if in_scope.scoped and not asked.subject:
            named = [s for s in named if s != f"user:{asked.user}"]

        # facts told in the turns of the person asked for, or named ("does
        # Carol have any animals": among Carol's turns, without her name); an
        # unscoped recall naming nobody (support, debugging) goes without
        told: _ToldQuery | None = None
        if wants_told and (in_scope.scoped or named):
            about, content = filters, query
            if not in_scope.scoped:
                about = replace(filters, scope=self._resolve(Scope.of(named[0]), stamp))
                content = self._subject_matcher(stamp).without_names(query)
            if content.strip():
                qmap = told_map if asked.scoped else self._told_map()
                told = _ToldQuery(content, about, self._turn_vector(
                    content, q if content == query else None, qmap, turn_query))

        # a person's turns (or a small store's) are all ranked, by both channels
        # fused; beyond IndexSettings.fused_max the index brings the candidates
        fused = (self._fused_turns(query, q, qgrams, k, col, filters, named, now, stamp)
                 if over == "turns" else None)
        if fused is not None:
            hits, used = fused, False
        else:
            # over-fetch until k candidates pass the filters or everything was
            # seen; should near-duplicates collapse the results below k, fetch more
            n = max(2 * k, 20)
            kept: dict[int, _Cand] = {}
            while True:
                hits, seen_all = self._candidates(query, q, qgrams, k, n, over, col, exact,
                                                  named, filters, kept, now, known_at,
                                                  conflicts, stamp)
                if len(hits) >= k or seen_all:
                    break
                n *= 4
            used = col.uses_index and not exact
        if over == "memories":
            if told is not None:
                extra = self._told_facts(told, q, now, known_at, conflicts, stamp,
                                         is_chinese(query))
                seen = {h.key for h in hits}
                hits = sorted(hits + [h for h in extra if h.key not in seen],
                              key=lambda h: -h.score)
            pinned = self._structured(query, q, in_scope, named, scopes, statuses, hits, now,
                                      known_at, conflicts, stamp, k)
            pinned = [h for h in pinned if (since is None or h.time >= since)
                      and (until is None or h.time <= until)]
            pinned_keys = {h.key for h in pinned}
            hits = pinned + [h for h in hits if h.key not in pinned_keys]
            hits = hits[:max(k, len(pinned))]
            hits = self._with_conflict_partners(hits, now, is_chinese(query))
        return [masked(h) for h in self._with_approvers(hits)], used

    def _with_approvers(self, hits: list[RecallHit]) -> list[RecallHit]:
        """The hits, an agent's inference among them naming the person who
        approved it (``Source.approved_by``: the prompt line says so). One
        query, and only when such a hit is there."""
        wanted = {h.source.claim_id for h in hits if h.source is not None
                  and h.source.kind == "agent_inferred" and h.source.claim_id is not None}
        if not wanted:
            return hits
        with self.store.engine.connect() as conn:
            by = dict(conn.execute(select(CLAIM.c.id, CLAIM.c.decided_by)
                                   .where(CLAIM.c.id.in_(sorted(wanted)),
                                          CLAIM.c.state == "approved")).all())
        return [replace(h, source=replace(h.source, approved_by=by[h.source.claim_id]))
                if h.source is not None and h.source.claim_id in by else h for h in hits]

    def _candidates(self, query: str, q: np.ndarray, qgrams: QueryGrams, k: int, n: int,
                    over: str, col: Collection, exact: bool, named: list[str],
                    filters: _Filters, kept: dict[int, _Cand], now: int, known_at: int | None,
                    conflicts: dict[int, tuple[set[int], int, str]], stamp: tuple
                    ) -> tuple[list[RecallHit], bool]:
        """Candidates from the nearest ``n`` items (more while filters starve
        them), the subjects the query names and the lexical anchors, scored and
        collapsed; and whether every item was looked at. ``kept`` carries the
        admitted candidates over from a previous, smaller fetch."""
        # lexical anchors: items holding the query's rare names and numbers,
        # hydrated together with the first nearest items (one round trip)
        tokens = anchors(query)
        lexical = self._anchor_index(over, stamp).lookup(tokens) if tokens else []
        seen_all = False
        if filters.narrow and not exact:
            # a narrow filter (a person's items) admitting few items: every one
            # of them is scored exactly, without first asking the index for the
            # nearest of everyone's (which the filter then mostly refused)
            ids = self._filtered_ids(over, filters, stamp)
            if len(ids) <= _DIRECT_EXACT_MAX:
                anchor_set = set(lexical)
                cos = col.cosines(q, [i for i in ids if i not in kept])
                cands = [_Cand(i, c, "lexical" if i in anchor_set else "exact")
                         for i, c in cos.items()]
                # an item still waiting for its vector is a candidate by its words alone
                cands += [_Cand(i, 0.0, "lexical") for i in lexical
                          if i not in kept and i not in cos]
                self._admit(over, cands, filters, kept, now, known_at, conflicts)
                seen_all = True
        while not seen_all:
            found = col.search(q, n, exact=exact)
            fresh = [_Cand(int(i), float(c), ch) for i, c, ch in
                     zip(found.item_ids, found.cosines, found.channels, strict=True)
                     if int(i) not in kept]
            if lexical:
                seen = {c.item_id for c in fresh}
                anchored = [i for i in lexical if i not in kept and i not in seen]
                cos = col.cosines(q, anchored)
                # an item still waiting for its vector is a candidate by its words alone
                fresh += [_Cand(i, cos.get(i, 0.0), "lexical") for i in anchored]
                lexical = []
            self._admit(over, fresh, filters, kept, now, known_at, conflicts)
            seen_all = found.searched_all
            if len(kept) >= k or seen_all:
                break
            if filters.narrow and not exact:
                ids = self._filtered_ids(over, filters, stamp)
                if len(ids) <= _FILTERED_EXACT_MAX:
                    cos = col.cosines(q, [i for i in ids if i not in kept])
                    extra = [_Cand(i, c, "exact") for i, c in cos.items()]
                    self._admit(over, extra, filters, kept, now, known_at, conflicts)
                    seen_all = True  # every item the filters admit was looked at
                    break
            n *= 4
        for name in named[:3]:
            f = filters
            ids = self._filtered_ids(over, _Filters(self._resolve(Scope.of(name), stamp), None,
                                                    None, f.at, f.since, f.until,
                                                    f.include_archived), stamp)
            if len(ids) <= _FILTERED_EXACT_MAX:
                cos = col.cosines(q, [i for i in ids if i not in kept])
                order = sorted(cos, key=lambda i: -cos[i])[:n]
                self._admit(over, [_Cand(i, cos[i], "subject") for i in order], filters, kept,
                            now, known_at, conflicts)

        named_set = set(named)
        hits = [self._hit(over, c, qgrams, now, named_set) for c in kept.values()]
        hits.sort(key=lambda h: -h.score)
        return self._collapse(col, hits, k), seen_all

    # -- scope
    def _resolve(self, asked: Scope, stamp: tuple) -> ResolvedScope:
        """The subjects, turns and sessions ``asked`` covers, from the store's
        turns (the user's conversations cached until the store changes).
        Raises InvalidInput for a project or session that is not the user's."""
        def conversations(user: str) -> list[tuple[str, str | None]]:
            cached = self._conversations.get(user)
            if cached is not None and cached[0] == stamp:
                return cached[1]
            stmt = select(TURN.c.session, TURN.c.project).distinct()
            stmt = stmt.where(or_(TURN.c.user == user, TURN.c.user.is_(None))
                              if user == "me" else TURN.c.user == user)
            with self.store.engine.connect() as conn:
                pairs = [(str(a), b) for a, b in conn.execute(stmt)]
            if len(self._conversations) > 256:
                self._conversations.clear()
            self._conversations[user] = (stamp, pairs)
            return pairs

        def people(user: str) -> list[str]:  # person:<user>/… subjects: what the user told of others
            return self.store.subjects(people_of(user))
        return resolve(asked, conversations, people)

    # -- raw turns: the word and the dense channel, fused over every turn in scope
    def _turn_corpus(self, f: _Filters, stamp: tuple) -> _TurnCorpus | None:
        """The turns the filters admit, each with its indexed text (the turn
        between its neighbours in the session, so that "民宿吧" carries the
        question it answers) and a word index over them. None when more than
        ``IndexSettings.fused_max`` turns are in play: then the index path
        serves. Cached per scope: when the store changed, one query counts
        the scope's turns (turns are only added, an erasure drops every
        cache: ``_after_erasures``), and an unchanged count and highest id
        keep the corpus (another person's remember changes nothing here); a
        changed one builds it again, the word analysis of every indexed text
        and the days the turns name taken over from the former corpus."""
        most = self.index_settings.fused_max
        if most <= 0 or (not f.scope.scoped and int(stamp[3] or 0) > most
                         and self._more_turns_than(most, stamp)):
            return None
        key = (f.scope.subjects, f.scope.turn_users, f.scope.turn_projects,
               f.scope.sessions, f.at, f.since, f.until, f.include_archived)
        cached = self._corpora.get(key)
        if cached is not None and cached.stamp == stamp:
            return cached
        with self.store.engine.connect() as conn:
            count, top = conn.execute(_turns_where(
                select(func.count(), func.max(TURN.c.id)), f)).one()
            mark = (int(count or 0), int(top or 0))
            if cached is not None and cached.mark == mark:
                corpus = replace(cached, stamp=stamp)
                rows = None
            elif mark[0] > most:
                return None
            else:
                stmt = _turns_where(select(TURN.c.id, TURN.c.session, TURN.c.turn, TURN.c.text,
                                           TURN.c.time, TURN.c.time_tz), f)
                rows = conn.execute(stmt.order_by(TURN.c.session, TURN.c.turn)
                                    .limit(most + 1)).all()
        if rows is not None:
            if len(rows) > most:
                return None
            corpus = self._built_corpus(rows, stamp, mark, cached)
        with self._lock:
            self._corpora.pop(key, None)
            if len(self._corpora) >= _CORPUS_CACHE:
                self._corpora.pop(next(iter(self._corpora)))
            self._corpora[key] = corpus
        return corpus

    @staticmethod
    def _built_corpus(rows: Sequence[Any], stamp: tuple, mark: tuple,
                      former: _TurnCorpus | None) -> _TurnCorpus:
        """A corpus of ``rows`` (id, session, turn, text, time, offset, in
        session order), taking over what ``former`` (the scope's previous
        corpus) worked out for the texts it shares."""
        texts = []
        for j, (_, session, number, text, _, _) in enumerate(rows):
            parts = [text]
            if j and tuple(rows[j - 1][1:3]) == (session, number - 1):
                parts.insert(0, rows[j - 1][3])
            if j + 1 < len(rows) and tuple(rows[j + 1][1:3]) == (session, number + 1):
                parts.append(rows[j + 1][3])
            texts.append("\n".join(parts))
        ids = [int(r[0]) for r in rows]
        return _TurnCorpus(stamp, mark, np.asarray(ids, dtype=np.int64),
                           Bm25Index(ids, texts, known=former.words.tokens if former else None),
                           tuple((str(r[1]), int(r[2])) for r in rows),
                           tuple((str(r[3]), int(r[4]), int(r[5] or 0)) for r in rows),
                           _known=former.dated_by_turn() if former else {})

    @staticmethod
    def _corpus_vectors(col: Collection, corpus: _TurnCorpus) -> tuple[np.ndarray, np.ndarray]:
        """The stored vectors of the corpus's turns, one row per turn in its
        order (zeros for a turn without one yet), and which turns have one."""
        vectors = col.vectors_of(corpus.ids.tolist())
        zero = np.zeros(col.embedder.dim, np.float32)
        present = np.fromiter((int(i) in vectors for i in corpus.ids), bool, len(corpus.ids))
        return np.stack([vectors.get(int(i), zero) for i in corpus.ids]), present

    def _fused_turns(self, query: str, q: np.ndarray, qgrams: QueryGrams, k: int,
                     col: Collection, f: _Filters, named: list[str], now: int,
                     stamp: tuple) -> list[RecallHit] | None:
        """Every turn in scope ranked by the dense channel (its cosine) and
        BM25 over its indexed text, fused (``fusion``), then filtered, scored
        and collapsed like any candidate; None when too many turns are in
        scope for an exact pass (the index path then serves)."""
        corpus = self._turn_corpus(f, stamp)
        if corpus is None:
            return None
        if not len(corpus.ids):
            return []
        matrix, present = self._corpus_vectors(col, corpus)
        cosines = matrix @ q
        words = corpus.words.scores(query)
        fused = _fuse_turns(cosines, words, present, self.weights)
        if self.weights.dated and asks_when(query):  # "when did I move?": the turns that date it
            fused = fused + self.weights.dated * corpus.dated()
        parts = asks(query)
        if len(parts) > 1:  # "哪天考试？跑鞋多大码？": each ask finds its own turn
            for part, pq in zip(parts, self._embedded(("turn", True), parts), strict=True):
                fused = np.maximum(fused, _fuse_turns(matrix @ pq, corpus.words.scores(part),
                                                      present, self.weights))
        order = np.argsort(-fused, kind="stable")
        kept: dict[int, _Cand] = {}
        named_set = set(named)
        done, n = 0, max(3 * k, 30)
        while True:  # more while filters or near-duplicates leave fewer than k
            cands = [_Cand(int(corpus.ids[j]), float(cosines[j]), "fused", fused=float(fused[j]),
                           words=float(words[j])) for j in order[done:n]]
            self._admit("turns", cands, f, kept, now, None, {})
            done = n
            hits = [self._hit("turns", c, qgrams, now, named_set) for c in kept.values()]
            hits.sort(key=lambda h: -h.score)
            hits = self._collapse(col, hits, k)
            if len(hits) >= k or done >= len(order):
                return hits
            n *= 4

    # -- filters and hydration
    def _admit(self, over: str, cands: list[_Cand], f: _Filters, kept: dict[int, _Cand],
               now: int, known_at: int | None,
               conflicts: dict[int, tuple[set[int], int, str]]) -> None:
        if not cands:
            return
        rows = self._rows(over, [c.item_id for c in cands])
        passed = []
        for c in cands:
            row = rows.get(c.item_id)
            if row is None or not f.admits(over, row):
                continue
            c.row = row
            passed.append(c)
        if over == "memories" and passed:
            self._statuses(passed, now, known_at, conflicts)
            allowed = f.statuses or tuple(s for s in STATUSES if s != "expired")
            passed = [c for c in passed if c.status in allowed]
        for c in passed:
            kept[c.item_id] = c

    def _blocks(self, query: PreparedQuery, ids: list[int]) -> list[tuple]:
        """Run a prepared ``IN`` query over ids in padded blocks, on one DBAPI
        connection of the pool (taken for this call only)."""
        rows: list[tuple] = []
        with self._raw_reads() as raw:
            for s in range(0, len(ids), _BLOCK):
                part = list(ids[s:s + _BLOCK])
                part += [-1] * (_BLOCK - len(part))
                rows.extend(query.run(raw, **{f"i{j}": v for j, v in enumerate(part)}))
        return rows

    @contextmanager
    def _raw_reads(self) -> Iterator[Any]:
        """A DBAPI connection of the pool for a few reads (taken for this call
        only); on PostgreSQL the read transaction psycopg opened is ended."""
        fairy = self.store.engine.raw_connection()
        try:
            raw = cast(Any, fairy.driver_connection)  # the DBAPI connection: untyped
            yield raw
            if self.store.engine.dialect.name == "postgresql":
                raw.rollback()
        finally:
            fairy.close()

    def _rows(self, over: str, ids: list[int]) -> dict[int, dict[str, Any]]:
        keys = _ROW_KEYS[over]
        query = self._prepared("memory_rows" if over == "memories" else "turn_rows")
        return {int(r[0]): dict(zip(keys, r, strict=True)) for r in self._blocks(query, ids)}

    def _prepared(self, name: str) -> PreparedQuery:
        found = self._queries.get(name)
        if found is None:
            stmt = {"memory_rows": _Q_MEMORY_ROWS, "turn_rows": _Q_TURN_ROWS,
                    "facts_by_claim": _Q_FACTS_BY_CLAIM, "stamp": _Q_STAMP}[name]
            found = self._queries[name] = PreparedQuery(stmt, self.store.engine)
        return found

    def _filtered_ids(self, over: str, f: _Filters, stamp: tuple) -> list[int]:
        """Every item id the filters admit by SQL (subject, scope, time; at
        most ``_FILTERED_EXACT_MAX`` + 1), for an exact search over just
        those. Cached per filter until the store changes."""
        sc = f.scope
        key = (over, sc.subjects, sc.turn_users, sc.turn_projects, sc.sessions, f.scopes, f.at,
               f.since, f.until, f.include_archived)
        cached = self._filtered.get(key)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        if over == "memories":
            stmt = select(MEMORY.c.id)
            if f.scopes:
                stmt = stmt.join(CLAIM, CLAIM.c.id == MEMORY.c.claim_id).where(
                    CLAIM.c.scope.in_(f.scopes))
            stmt = _memories_where(stmt, f)
        else:
            stmt = _turns_where(select(TURN.c.id), f)
        with self.store.engine.connect() as conn:
            ids = [int(r[0]) for r in conn.execute(stmt.limit(_FILTERED_EXACT_MAX + 1))]
        with self._lock:
            if len(self._filtered) >= _CORPUS_CACHE * 4:
                self._filtered.pop(next(iter(self._filtered)))
            self._filtered[key] = (stamp, ids)
        return ids

    def _statuses(self, cands: list[_Cand], now: int, known_at: int | None,
                  conflicts: dict[int, tuple[set[int], int, str]]) -> None:
        """Each memory's status: that of the fact lineage of its claim, at ``now``
        as believed at ``known_at``; and the open conflicts it is part of."""
        lineage = {c.item_id: int(c.row["merged_into"] or c.row["claim_id"]) for c in cands}
        facts = self._facts_by_claim(set(lineage.values()))
        for c in cands:
            rows = facts.get(lineage[c.item_id], [])
            c.status = _lineage_status(rows, now, known_at)
            c.fact_ids = tuple(r.id for r in rows)
            ids = set(c.fact_ids)
            c.conflict = tuple(sorted(cid for cid, (fids, claim_id, _) in conflicts.items()
                                      if ids & fids or claim_id == lineage[c.item_id]))

    def _facts_by_claim(self, claim_ids: set[int]) -> dict[int, list[Fact]]:
        out: dict[int, list[Fact]] = {}
        for r in self._blocks(self._prepared("facts_by_claim"), sorted(claim_ids)):
            f = Fact(*r)
            out.setdefault(f.claim_id, []).append(f)
        return out

    def _more_turns_than(self, n: int, stamp: tuple) -> bool:
        """Whether the store holds more than ``n`` turns (counts at most n + 1,
        once per store stamp)."""
        key = (n, stamp)
        if self._turn_count is not None and self._turn_count[0] == key:
            return self._turn_count[1]
        with self.store.engine.connect() as conn:
            found = conn.execute(select(func.count()).select_from(
                select(TURN.c.id).limit(n + 1).subquery())).scalar()
        self._turn_count = (key, int(found or 0) > n)
        return self._turn_count[1]

    def _stamp(self) -> tuple:
        """The store stamp (see ``_Q_STAMP``): changes whenever the store does."""
        with self._raw_reads() as raw:
            return tuple(self._prepared("stamp").run(raw)[0])

    def _open_conflicts(self, known_at: int | None,
                        stamp: tuple) -> dict[int, tuple[set[int], int, str]]:
        """Conflicts open at ``known_at`` (default now): id → (fact ids, claim id,
        subject). The current ones are cached until the store changes."""
        cached = self._conflicts
        if known_at is None and cached is not None and cached[0] == stamp:
            return cached[1]
        with self.store.engine.connect() as conn:
            rows = (conn.execute(_Q_OPEN_CONFLICTS) if known_at is None
                    else conn.execute(_Q_CONFLICTS_AT, {"k": known_at}))
            found = {int(r[0]): (set(json.loads(r[1])), int(r[2]), r[3]) for r in rows}
        if known_at is None:
            self._conflicts = (stamp, found)
        return found

    def _anchor_index(self, over: str, stamp: tuple) -> AnchorIndex:
        with self._lock:
            idx = self._anchors.get(over)
            if idx is None:
                idx = self._anchors[over] = AnchorIndex()
            if self._anchor_marks.get(over) == stamp:
                return idx
        with self.store.engine.connect() as conn:
            rows = conn.execute(_Q_NEW_TEXTS[over], {"after": idx.max_item_id}).all()
        if rows:
            idx.add((int(i), t) for i, t in rows)
        with self._lock:
            self._anchor_marks[over] = stamp
        return idx

    # -- results
    def _hit(self, over: str, c: _Cand, qgrams: QueryGrams, now: int,
             named: set[str]) -> RecallHit:
        w = self.weights
        r = c.row
        c.lexical = lexical_score(qgrams, r["text"])
        rel = relevance(c.cosine, c.lexical, w) if c.fused is None else relevance_of(c.fused)
        if over == "memories":
            sm = 1.0 if r["subject"] in named else 0.0
            rec = recency(min(r["time"], r["created_at"]), now, w)
            imp = importance(r["confidence"], r["mentions"])
            factor = status_factor(c.status, w)
            src = Source(r["session"], r["turn"], r["speaker"], r["turn_text"], r["time"],
                         r["time_tz"], r["source_kind"], r["claim_id"])
            return RecallHit(
                kind="memory", text=r["text"], score=score(rel, rec, imp, factor, w, sm),
                relevance=rel, recency=rec, importance=imp, status=c.status,
                conflict=c.conflict, source=src, time=r["time"], tz=r["time_tz"],
                memory_id=c.item_id, fact_id=c.fact_ids[-1] if c.fact_ids else r["fact_id"],
                turn_id=r["turn_id"], claim_id=r["claim_id"], subject=r["subject"],
                predicate=r["predicate"], confidence=r["confidence"], semantic=c.cosine,
                lexical=c.lexical, subject_match=sm, status_factor=factor, channel=c.channel,
                mentions=r["mentions"], archived=_archived(r), words=c.words, fused=c.fused)
        rec = recency(r["time"], now, w)
        imp = importance(0.6 if r["speaker"] == "user" else 0.2, 1)
        src = Source(r["session"], r["turn"], r["speaker"], r["text"], r["time"], r["time_tz"], "turn")
        subject = f"user:{r.get('user') or 'me'}"
        sm = 1.0 if subject in named or (r.get("project") and f"project:{r['project']}" in named) else 0.0
        return RecallHit(
            kind="turn", text=r["text"], score=score(rel, rec, imp, 1.0, w, sm), relevance=rel,
            recency=rec, importance=imp, status="active", conflict=(), source=src,
            time=r["time"], tz=r["time_tz"], turn_id=c.item_id, subject=subject,
            semantic=c.cosine, lexical=c.lexical, subject_match=sm, channel=c.channel,
            words=c.words, fused=c.fused)

    def _collapse(self, col: Collection, hits: list[RecallHit], k: int) -> list[RecallHit]:
        """Drop near-duplicates of a better result; the kept one counts them in
        ``duplicates``. Memories: same subject and status, and cosine >= 0.95
        or nearly the same wording. Raw turns: the same words (``_wording``:
        up to case, spaces and punctuation), never by their vectors: e5 puts
        short messages in a narrow cone (two different messages of one
        person: median cosine 0.90 on the development streams, one pair in a
        hundred at 0.95 or more, an update and the plan it changed the usual
        pair), and every turn is its own evidence. Goes down the list until
        k results are kept. Vectors and n-grams are read only for memories
        that have a rival (a kept result about the same subject with the same
        status), vectors a window of max(3k, 30) results at a time."""
        if len(hits) < 2:
            return hits[:k]
        if all(h.kind == "turn" for h in hits):
            return _collapse_wording(hits, k)
        step = max(3 * k, 30)
        kept: list[RecallHit] = []
        kept_grams: list[set[str] | None] = []  # computed when first compared
        vectors: dict[int, np.ndarray | None] = {}  # read when first compared, a window at a time
        dups: list[int] = []

        def item(h: RecallHit) -> int | None:
            return h.memory_id if h.kind == "memory" else h.turn_id

        def vector(h: RecallHit, window: list[RecallHit]) -> np.ndarray | None:
            i = item(h)
            if i is not None and i not in vectors:
                wanted = {j for x in (*window, *kept) if (j := item(x)) is not None} - vectors.keys()
                vectors.update(dict.fromkeys(wanted))  # None stays for items without a vector
                vectors.update(col.vectors_of(sorted(wanted)))
            return vectors.get(i) if i is not None else None

        full = False  # k results kept and a further distinct one seen: stop
        for s in range(0, len(hits), step):
            window = hits[s:s + step]
            for h in window:
                # only results about the same subject, with the same status, can be twins
                rivals = [j for j, kh in enumerate(kept)
                          if kh.subject == h.subject and kh.status == h.status]
                g: set[str] | None = None
                twin = None
                if rivals:
                    v = vector(h, window)
                    g = grams(h.text, drop_stopwords=False)
                    for j in rivals:
                        kv = vector(kept[j], window)
                        if v is not None and kv is not None and float(v @ kv) >= _DUP_COSINE:
                            twin = j
                            break
                        kg = kept_grams[j]
                        if kg is None:
                            kg = kept_grams[j] = grams(kept[j].text, drop_stopwords=False)
                        union = g | kg
                        if union and len(g & kg) / len(union) >= _DUP_GRAMS:
                            twin = j
                            break
                if twin is not None:
                    dups[twin] += 1
                elif len(kept) >= k:
                    full = True
                    break
                else:
                    kept.append(h)
                    kept_grams.append(g)
                    dups.append(0)
            if full:
                break
        return [replace(h, duplicates=d) if d else h for h, d in zip(kept, dups, strict=True)]

    def _subject_matcher(self, stamp: tuple) -> SubjectMatcher:
        if self._subjects is not None and self._subjects_mark == stamp:
            return self._subjects
        with self.store.engine.connect() as conn:
            subjects = [r[0] for r in conn.execute(select(FACT.c.subject).distinct())]
            names = [(r[0], r[1]) for r in conn.execute(
                select(FACT.c.subject, FACT.c.object).where(
                    FACT.c.predicate == "name", FACT.c.retired_at.is_(None)))]
        matcher = SubjectMatcher.build(subjects, names)
        self._subjects, self._subjects_mark = matcher, stamp
        return matcher

    def _structured(self, query: str, q: np.ndarray, in_scope: ResolvedScope, named: list[str],
                    scopes: tuple[str, ...] | None,
                    statuses: tuple[str, ...] | None, hits: list[RecallHit], now: int,
                    known_at: int | None,
                    conflicts: dict[int, tuple[set[int], int, str]], stamp: tuple,
                    k: int) -> list[RecallHit]:
        """Current values of the predicates the query names, pinned first: of
        the subjects the query names, else of every subject in scope that
        holds one ("预算多少" asked for zhou: the budget of the trip project
        zhou's conversation set), else (unscoped) of the subjects holding one,
        those of the best memories first, at most ``k`` subjects."""
        if statuses is not None and "active" not in statuses:
            return []
        predicates = self._predicates.predicates(query)
        if not predicates:
            return []
        if in_scope.scope.subject:
            subjects = [in_scope.scope.subject]
        elif named:
            subjects = list(named)
        else:
            wanted = set(predicates)
            first = [h.subject for h in hits if h.subject and h.predicate in wanted
                     and in_scope.covers_subject(h.subject)]
            subjects = list(dict.fromkeys(first + self._holders(predicates, in_scope, now, known_at)))[:k]
        if not subjects:
            return []
        zh = is_chinese(query)
        out: list[RecallHit] = []
        for subj in subjects:
            for pred in predicates:
                facts = self.store.as_of(subj, pred, valid_at=now, known_at=known_at
                                         if known_at is not None else now, include_expired=False)
                if scopes:
                    facts = [f for f in facts if f.scope in scopes]
                if not facts:
                    continue
                sources = self.store.sources(f.claim_id for f in facts)
                info = self.store.catalog.get(pred)
                label = (info.zh if zh else info.en) if info else pred
                facts.sort(key=lambda f: (-f.told_from, -f.id))
                semantic = {f.id: 1.0 for f in facts}
                if len(facts) > 1 and not all(f.single_valued for f in facts):
                    # several values hold at once (decisions, likes): at most three,
                    # the ones whose statement is closest to the query first ...
                    texts = [sources[f.claim_id].text if f.claim_id in sources else f.object
                             for f in facts]
                    cos = self._embed_passages(texts) @ q
                    semantic = {f.id: float(c) for f, c in zip(facts, cos, strict=True)}
                    # ... the chosen options before the rejected ones
                    facts = sorted(facts, key=lambda f: (f.polarity == "negative",
                                                         -semantic[f.id]))[:3]
                out.extend(self._fact_hit(f, label, sources.get(f.claim_id), now, known_at,
                                          conflicts, zh, semantic=semantic[f.id])
                           for f in facts)
        return out

    def _fact_hit(self, f: Fact, label: str, src: Source | None, now: int, known_at: int | None,
                  conflicts: dict[int, tuple[set[int], int, str]], zh: bool, *,
                  semantic: float = 1.0, relevance: float = 1.0, pinned: bool = True,
                  channel: str = "structured") -> RecallHit:
        """A fact as a result: "user:alice lives in 张江", with its source turn."""
        conflict = tuple(sorted(cid for cid, (fids, _, _) in conflicts.items() if f.id in fids))
        rec = recency(f.told_from, now, self.weights)
        imp = importance(f.confidence, 1)
        return RecallHit(
            kind="fact", text=f"{f.subject} {label} {_negation(f.polarity, zh)}{f.object}",
            score=score(relevance, rec, imp, 1.0, self.weights), relevance=relevance,
            recency=rec, importance=imp, status=f.status(now, known_at), conflict=conflict,
            source=src, time=f.valid_from, tz=f.tz, fact_id=f.id, claim_id=f.claim_id,
            subject=f.subject, predicate=f.predicate, object=f.object, confidence=f.confidence,
            semantic=semantic, lexical=1.0, pinned=pinned, channel=channel)

    def _after_erasures(self, stamp: tuple) -> bool:
        """When the store has had an erasure since the last look (committed
        by another process: this one's own are heard at once, ``on_erasure``),
        drop every text and vector cached here (``close``) and say so. The
        count is read once per store stamp (an erasure writes an audit entry)."""
        if self._erasure_mark is not None and self._erasure_mark[0] == stamp:
            return False
        count = self.store.erasures()
        dropped = self._erasure_mark is not None and self._erasure_mark[1] != count
        if dropped:
            self.close()
        self._erasure_mark = (stamp, count)
        return dropped

    def _embed_query(self, kind: str, query: str) -> np.ndarray:
        """``query`` embedded as a query by the embedder of ``kind`` items;
        the last ``_EMBED_CACHE`` kept (an agent asks the same question over
        memories and over turns, the prompt and the results)."""
        return self._embedded((kind, True), [query])[0]

    def _embed_passages(self, texts: list[str]) -> np.ndarray:
        """``texts`` embedded by the embedder of memories as stored texts (the
        statements told facts and several held values are compared by: the
        same few again and again); the last ``_EMBED_CACHE`` kept."""
        return self._embedded(("memory", False), texts)

    def _embedded(self, how: tuple[str, bool], texts: list[str]) -> np.ndarray:
        kind, query = how
        embedder = self.embedder_for(kind)
        cache = self._vectors_cache
        with self._lock:
            found = {t: cache[(how, t)] for t in texts if (how, t) in cache}
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        if missing:
            found.update(zip(missing, embedder.embed(missing, query=query), strict=True))
            with self._lock:
                for t in missing:
                    cache[(how, t)] = found[t]
                while len(cache) > _EMBED_CACHE:
                    cache.pop(next(iter(cache)))
        if not texts:
            return np.zeros((0, embedder.dim), np.float32)
        return np.stack([found[t] for t in texts])

    def _turns_waiting(self, col: Collection, stamp: tuple) -> int:
        """How many turns (by id) are newer than the newest with a vector;
        read once per store stamp."""
        cached = self._waiting
        if cached is not None and cached[0] == stamp:
            return cached[1]
        waiting = int(stamp[3] or 0) - col.vectors.watermark()
        self._waiting = (stamp, waiting)
        return waiting

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

    def _turn_vector(self, text: str, own: np.ndarray | None, qmap: QueryMap | None,
                     pending: Future[np.ndarray] | None) -> Callable[[], np.ndarray]:
        """How told facts get ``text``'s vector among the turns': mapped from
        its memory vector (``own`` when it is the query's, else embedded), the
        turn query being computed in a side thread (``pending``, for the
        query itself), or the turn embedder on demand."""
        if qmap is not None:
            return lambda: qmap(own if own is not None else self._embed_query("memory", text))
        if pending is not None and own is not None:
            return pending.result
        return partial(self._embed_query, "turn", text)

    def _side(self, fn: Callable[..., _T], *args: Any) -> Future[_T]:
        """``fn(*args)`` in the Recaller's side thread (made on first use)."""
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(4, thread_name_prefix="memdesk-recall")
            return self._pool.submit(fn, *args)

    def _told_facts(self, told: _ToldQuery, q: np.ndarray, now: int, known_at: int | None,
                    conflicts: dict[int, tuple[set[int], int, str]], stamp: tuple,
                    zh: bool) -> list[RecallHit]:
        """Facts reached through the turns that told them: the turns in scope
        that best answer the query (the two channels of ``over="turns"``
        fused, without its "when" raise and its split of joined asks; words
        only while more than ``_TOLD_EMBED_MAX`` turns wait for a vector, so
        that a recall over memories never waits for a store's turns to be
        embedded), and the current values of the facts those turns told,
        ranked at the turn's relevance. So "how much money do we have for
        this?" finds the budget although it names no predicate, and "帮我订个
        酒店" the hotel decision, whose statements are facts, not memories.
        A value told there and changed since comes back as its current value;
        one no longer held is left out. Empty when too many turns are in scope
        for an exact pass. ``told.turn_vector``: the query's vector among the
        turns' (mapped from its own, or embedded: ``_turn_vector``)."""
        query, f = told.query, told.filters
        turn_filter = _Filters(f.scope, None, None, f.at, f.since, f.until)
        corpus = self._turn_corpus(turn_filter, stamp)
        if corpus is None or not len(corpus.ids):
            return []
        words = corpus.words.scores(query)
        fused = fuse([(words, self.weights.words)])
        col = self._collection("turns")
        if not col.ready:
            col.vectors.ensure_table()
        if self._turns_waiting(col, stamp) <= _TOLD_EMBED_MAX:
            self._refresh(col, stamp)  # at most a batch of new turns to embed
            matrix, present = self._corpus_vectors(col, corpus)
            fused = _fuse_turns(matrix @ told.turn_vector(), words, present, self.weights)
        elif not self._told_notice:
            self._told_notice = True
            self._notify("raw turns are not embedded yet: recall over memories uses their words "
                         "only (memdesk reindex --over turns embeds them)")
        told_at: dict[tuple[str, int], float] = {}
        for j in np.argsort(-fused, kind="stable")[:_TOLD_TURNS]:
            if fused[j] <= 0:  # no better than the person's typical turn
                break
            session, number = corpus.keys[j]
            # a turn's neighbours share its relevance: the best turn is often
            # the assistant's confirmation of the statement before it
            for n in (number - 1, number, number + 1):
                share = 1.0 if n == number else _NEIGHBOUR_SHARE
                told_at[(session, n)] = max(told_at.get((session, n), 0.0),
                                         share * relevance_of(float(fused[j])))
        if not told_at:
            return []
        stmt = (select(FACT.c.subject, FACT.c.predicate, FACT.c.object, TURN.c.session,
                       TURN.c.turn)
                .join(CLAIM, CLAIM.c.id == FACT.c.claim_id)
                .join(TURN, TURN.c.id == CLAIM.c.turn_id)
                .where(TURN.c.session.in_(sorted({s for s, _ in told_at})),
                       TURN.c.turn.in_(sorted({n for _, n in told_at}))).distinct())
        with self.store.engine.connect() as conn:
            rows = [(str(a), str(b), str(o), (str(c), int(d)))
                    for a, b, o, c, d in conn.execute(stmt) if (str(c), int(d)) in told_at]
        # what each turn told, as the facts that hold now: a single value as
        # it holds now, whichever was told there; of several (decisions,
        # likes), only those told there
        current: dict[tuple[str, str], list[Fact]] = {}
        options: list[_Told] = []  # what each turn told, as the facts that hold now
        for subj, pred, obj, turn in rows:
            if not f.scope.covers_subject(subj):
                continue
            if (subj, pred) not in current:
                facts = self.store.as_of(subj, pred, valid_at=now, known_at=known_at
                                         if known_at is not None else now, include_expired=False)
                current[(subj, pred)] = [x for x in facts if not f.scopes or x.scope in f.scopes]
            held = tuple(x for x in current[(subj, pred)] if x.single_valued or x.object == obj)
            if held:
                info = self.store.catalog.get(pred)
                options.append(_Told(turn, held, (info.zh if zh else info.en) if info else pred))
        if not options:
            return []
        # a turn may tell several facts ("I'm Carol, I live in Hackney and work
        # at Monzo"): it answers the query with the one whose statement is
        # closest to it
        closeness = self._embed_passages([o.statement for o in options]) @ q
        best: dict[tuple[str, int], int] = {}
        for j, o in enumerate(options):
            if o.turn not in best or closeness[j] > closeness[best[o.turn]]:
                best[o.turn] = j
        out: list[RecallHit] = []
        placed: dict[int, int] = {}  # fact id → its position in out
        for turn, j in best.items():
            o, rel = options[j], told_at[turn]
            sources = self.store.sources(x.claim_id for x in o.facts)
            for x in o.facts:
                hit = self._fact_hit(x, o.label, sources.get(x.claim_id), now, known_at,
                                     conflicts, zh, relevance=rel, pinned=False, channel="told")
                if x.id not in placed:
                    placed[x.id] = len(out)
                    out.append(hit)
                elif out[placed[x.id]].relevance < rel:  # told by two turns: the better one
                    out[placed[x.id]] = hit
        return out

    def _holders(self, predicates: list[str], in_scope: ResolvedScope, now: int,
                 known_at: int | None) -> list[str]:
        """Subjects (in scope) with a row of one of the predicates valid at
        ``now`` as the store had been told by ``known_at`` (default: now), the
        most recently told first (at most 50)."""
        believed = (FACT.c.retired_at.is_(None) if known_at is None else
                    and_(*told_by(known_at)))
        stmt = (select(FACT.c.subject, func.max(KNOWN_FROM).label("last"))
                .where(FACT.c.predicate.in_(predicates), believed,
                       FACT.c.valid_from <= now,
                       or_(FACT.c.valid_to.is_(None), FACT.c.valid_to > now))
                .group_by(FACT.c.subject).order_by(func.max(KNOWN_FROM).desc()).limit(50))
        if in_scope.subjects is not None:
            stmt = stmt.where(FACT.c.subject.in_(sorted(in_scope.subjects)))
        with self.store.engine.connect() as conn:
            return [str(r[0]) for r in conn.execute(stmt)]

    def _with_conflict_partners(self, hits: list[RecallHit], now: int,
                                zh: bool) -> list[RecallHit]:
        """Add the other side of each conflict in the results right after its
        first result: the facts involved and the incoming (unconfirmed) claim."""
        wanted = sorted({c for h in hits for c in h.conflict})
        if not wanted:
            return hits
        present = {h.key for h in hits}
        partners: dict[int, list[RecallHit]] = {}
        for cid in wanted:
            try:
                conflict = self.store.conflict(cid)
            except LookupError:
                continue
            extra: list[RecallHit] = []
            info = self.store.catalog.get(conflict.predicate)
            label = (info.zh if zh else info.en) if info else conflict.predicate
            for d in conflict.facts:
                src = d.get("source") or None
                hs = None
                if src:
                    hs = Source(src["session"], src["turn"], src.get("speaker") or "user",
                                src["text"], _parse_iso(src["time"]), 0, src["kind"],
                                src.get("claim_id"))
                fid = d.get("id")
                claim_id = d.get("candidate_id") if fid is None else d.get("claim_id")
                key = ("fact", fid if fid is not None else -(claim_id or 0))
                if key in present:
                    continue
                present.add(key)
                status = d.get("status") or "active"
                extra.append(RecallHit(
                    kind="fact", text=f"{conflict.subject} {label} {d['object']}",
                    score=0.0, relevance=0.0, recency=0.0, importance=0.0,
                    status=status, conflict=(cid,), source=hs,
                    time=hs.time if hs else now, fact_id=fid, claim_id=claim_id,
                    subject=conflict.subject, predicate=conflict.predicate, object=d["object"],
                    confidence=d.get("confidence"), status_factor=1.0, channel="conflict"))
            partners[cid] = extra
        out: list[RecallHit] = []
        placed: set[int] = set()
        for h in hits:
            out.append(h)
            for cid in h.conflict:
                if cid not in placed:
                    placed.add(cid)
                    out.extend(partners.get(cid, []))
        return out


@dataclass(frozen=True, slots=True)
class _Filters:
    scope: ResolvedScope
    scopes: tuple[str, ...] | None
    statuses: tuple[str, ...] | None
    at: int | None
    since: int | None
    until: int | None
    include_archived: bool = False

    @property
    def narrow(self) -> bool:
        return bool(self.scope.scoped or self.scopes or self.at is not None)

    def admits(self, over: str, row: dict[str, Any]) -> bool:
        if over == "memories":
            t, created = row["time"], row["created_at"]
            if not self.scope.covers_memory(row["subject"], row["scope"], row["session"]):
                return False
            if self.scopes and row["scope"] not in self.scopes:
                return False
            if not self.include_archived and self.archived(row):
                return False
        else:  # a turn is known from when it was said (the told axis)
            t = created = row["time"]
            if not self.scope.covers_turn(row["user"], row["project"], row["session"]):
                return False
        if self.at is not None and created > self.at:
            return False
        if self.since is not None and t < self.since:
            return False
        return not (self.until is not None and t > self.until)

    def archived(self, row: dict[str, Any]) -> bool:
        """Whether a memory row was archived by maintenance (as of ``at``)."""
        done = row.get("archived_at")
        return done is not None and (self.at is None or done <= self.at)


def _memories_where(stmt: Any, f: _Filters) -> Any:
    """``stmt`` (a select from the memory table) limited by the filters'
    subjects, ``at`` and archiving, in SQL (``_Filters.admits`` checks the rest)."""
    if f.scope.subjects is not None:
        stmt = stmt.where(MEMORY.c.subject.in_(sorted(f.scope.subjects)))
    if f.at is not None:
        stmt = stmt.where(MEMORY.c.created_at <= f.at)
    if not f.include_archived:
        stmt = stmt.where(MEMORY.c.archived_at.is_(None) if f.at is None else
                          or_(MEMORY.c.archived_at.is_(None), MEMORY.c.archived_at > f.at))
    return stmt


def _turns_where(stmt: Any, f: _Filters) -> Any:
    """``stmt`` (a select from the turn table) limited to the turns the
    filters' scope and times admit: the same rule as ``_Filters.admits``, in
    SQL. ``user:me`` covers turns stored without a user."""
    sc = f.scope
    if sc.scoped:
        if sc.turn_users is not None:
            users = sorted(sc.turn_users)
            cond = TURN.c.user.in_(users)
            stmt = stmt.where(or_(cond, TURN.c.user.is_(None)) if "me" in users else cond)
        if sc.turn_projects is not None:
            named = sorted(p for p in sc.turn_projects if p is not None)
            cond = TURN.c.project.in_(named)
            stmt = stmt.where(or_(cond, TURN.c.project.is_(None)) if None in sc.turn_projects
                              else cond)
        if sc.sessions is not None:
            stmt = stmt.where(TURN.c.session.in_(sorted(sc.sessions)))
    if f.at is not None:
        stmt = stmt.where(TURN.c.time <= f.at)
    if f.since is not None:
        stmt = stmt.where(TURN.c.time >= f.since)
    if f.until is not None:
        stmt = stmt.where(TURN.c.time <= f.until)
    return stmt


def _fuse_turns(cosines: np.ndarray, words: np.ndarray, present: np.ndarray,
                w: RecallWeights) -> np.ndarray:
    """The two channels of raw turns fused (``fusion.fuse``). A turn still
    waiting for its vector (``present`` False: just remembered, its vector
    being computed in the background) has its words stand for its meaning
    too: its dense z-score is its word z-score, and the dense channel is
    standardised over the turns that have a vector. A cosine of 0 would sink
    it (e5's cosines sit near 0.8 with a spread of a few hundredths: 0 is
    some twenty standard deviations down, and a turn just remembered missed
    the top 5 of a query naming its own rare word); the others' mean would
    leave it below every near-copy of it the person said before. With every
    vector there (or none) this is ``fuse`` itself."""
    if present.all() or not present.any():
        return fuse([(cosines, w.dense), (words, w.words)])
    zw = zscores(words)
    zd = zw.copy()
    zd[present] = zscores(cosines[present])
    out = np.zeros(len(words), dtype=np.float64)
    if w.dense:
        out += w.dense * zd
    if w.words:
        out += w.words * zw
    return out


def _wording(text: str) -> str:
    """A turn's words as ``_collapse_wording`` compares them: case folded,
    only letters and digits (``"好的，收到！"`` and ``"好的 收到"`` are the
    same; ``"跑了5公里"`` and ``"跑了6公里"`` are not); the text as it is
    when it holds neither."""
    folded = "".join(ch for ch in text.casefold() if ch.isalnum())
    return folded or text.strip()


def _collapse_wording(hits: list[RecallHit], k: int) -> list[RecallHit]:
    """The first k hits of different wording (``_wording``), best first; each
    counts the later hits of its wording in ``duplicates``. Fewer than k only
    when fewer than k wordings are among ``hits``."""
    first: dict[tuple[str | None, str], int] = {}
    kept: list[RecallHit] = []
    dups: list[int] = []
    for h in hits:
        key = (h.subject, _wording(h.text))
        j = first.get(key)
        if j is not None:
            dups[j] += 1
        elif len(kept) >= k:
            break
        else:
            first[key] = len(kept)
            kept.append(h)
            dups.append(0)
    return [replace(h, duplicates=d) if d else h for h, d in zip(kept, dups, strict=True)]


def _archived(row: dict[str, Any]) -> dict[str, Any] | None:
    """What maintenance did to a memory row, for its hit (None: not archived)."""
    if row.get("archived_at") is None:
        return None
    return {"at": iso(row["archived_at"]), "reason": row.get("archive_reason"),
            "merged_into": row.get("merged_into_memory")}


def _negation(polarity: str, zh: bool) -> str:
    """How a fact's text marks a negative fact (a rejected option, a food not eaten)."""
    if polarity != "negative":
        return ""
    return "不要 " if zh else "not "


def _lineage_status(rows: list[Fact], at: int, known_at: int | None) -> str:
    """Status of a claim's fact lineage at valid time ``at`` as the store had been
    told by ``known_at`` (the told axis)."""
    if not rows:
        return "active"
    k = known_at
    known = [r for r in rows if (k is None or r.told_from <= k)]
    if not known:
        return "active"  # not told yet then: the memory itself is filtered by time
    believed = [r for r in known if (r.current if k is None else r.known_at(k))]
    if believed:
        statuses = [r.status(at, k) for r in believed]
        if "active" in statuses:
            return "active"
        latest = max(believed, key=lambda r: (r.valid_from, r.id))
        return latest.status(at, k)
    latest = max(known, key=lambda r: (r.told_until or 0, r.id))
    return latest.status(at, k)


def _parse_iso(text: str | None) -> int:
    if not text:
        return 0
    try:
        return parse_time_us(text)
    except InvalidInput:
        return 0


__all__ = ["Comparison", "RecallHit", "Recaller", "default_index_dir",
           "index_folder"]
