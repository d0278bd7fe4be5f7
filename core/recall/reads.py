"""What recall reads from the store besides candidate rows, each cached until
the store changes (``StoreView``): the store stamp, who a scope covers
(scope resolution), the open conflicts, the subjects and names a query may
name, the anchor index of the lexical channel, the ids a narrow filter
admits, how many turns wait for a vector, and whether the store has had an
erasure. The SQL is ``memdesk.db.recall``'s.

A stamp (``HotReads.stamp``) is one round trip that changes whenever the
store does, so a cache keyed on it is current while it is unchanged. Ids an
erasure removed may stay in these caches; their rows are gone, so they
never hydrate (and ``clear`` drops everything after an erasure). Raises
what the database driver raises; ``resolve`` InvalidInput (below)."""

from __future__ import annotations

import json
import threading

from ..db import recall as sql
from ..store import Store
from .collection import Collection
from .filters import Filters
from .intent import SubjectMatcher
from .lexical import AnchorIndex
from .probe import Conflicts
from .scope import ResolvedScope, Scope, people_of, resolve

FILTERED_EXACT_MAX = 50_000  # ids a filter admits that are still searched exactly
_FILTERED_CACHE = 64  # filters whose ids are kept


class StoreView:
    """The cached reads of one Recaller (thread-safe: ``lock`` guards the
    caches shared between threads)."""

    def __init__(self, store: Store, hot: sql.HotReads, lock: threading.Lock) -> None:
        self.store = store
        self.engine = store.engine
        self.hot = hot
        self._lock = lock
        self._conversations: dict[str, tuple[tuple, list[tuple[str, str | None]]]] = {}
        self._anchors: dict[str, AnchorIndex] = {}
        self._anchor_marks: dict[str, tuple] = {}
        self._subjects: SubjectMatcher | None = None
        self._subjects_mark: tuple | None = None
        self._conflicts: tuple[tuple, Conflicts] | None = None
        self._filtered: dict[tuple, tuple[tuple, list[int]]] = {}
        self._waiting: tuple[tuple, int] | None = None
        self._erasure_mark: tuple[tuple, int] | None = None  # (stamp, the store's erasures)

    def clear(self) -> None:
        """Drop every cached text and id (the erasure count seen stays)."""
        self._anchors.clear()
        self._anchor_marks.clear()
        self._conflicts = None
        self._subjects = self._subjects_mark = None
        self._conversations.clear()
        self._filtered.clear()
        self._waiting = None

    def stamp(self) -> tuple:
        """The store stamp (``memdesk.db.recall``): changes whenever the store does."""
        return self.hot.stamp()

    def erasures_changed(self, stamp: tuple) -> bool:
        """Whether the store has had an erasure since the last look (the
        count is read once per stamp: an erasure writes an audit entry)."""
        if self._erasure_mark is not None and self._erasure_mark[0] == stamp:
            return False
        count = self.store.admin.erasures()
        dropped = self._erasure_mark is not None and self._erasure_mark[1] != count
        self._erasure_mark = (stamp, count)
        return dropped

    def resolve(self, asked: Scope, stamp: tuple) -> ResolvedScope:
        """The subjects, turns and sessions ``asked`` covers, from the store's
        turns (the user's conversations cached until the store changes).
        Raises InvalidInput for a project or session that is not the user's."""
        def conversations(user: str) -> list[tuple[str, str | None]]:
            cached = self._conversations.get(user)
            if cached is not None and cached[0] == stamp:
                return cached[1]
            pairs = sql.conversations(self.engine, user)
            if len(self._conversations) > 256:
                self._conversations.clear()
            self._conversations[user] = (stamp, pairs)
            return pairs

        def people(user: str) -> list[str]:  # person:<user>/… subjects: what the user told of others
            return self.store.facts.subjects(people_of(user))
        return resolve(asked, conversations, people)

    def open_conflicts(self, known_at: int | None, stamp: tuple) -> Conflicts:
        """Conflicts open at ``known_at`` (default now). The current ones are
        cached until the store changes."""
        cached = self._conflicts
        if known_at is None and cached is not None and cached[0] == stamp:
            return cached[1]
        found = {cid: (set(json.loads(fids)), claim_id, subject)
                 for cid, fids, claim_id, subject in sql.open_conflicts(self.engine, known_at)}
        if known_at is None:
            self._conflicts = (stamp, found)
        return found

    def subject_matcher(self, stamp: tuple) -> SubjectMatcher:
        """The subjects (and their names) a query may name."""
        if self._subjects is not None and self._subjects_mark == stamp:
            return self._subjects
        matcher = SubjectMatcher.build(*sql.subjects_and_names(self.engine))
        self._subjects, self._subjects_mark = matcher, stamp
        return matcher

    def anchor_index(self, over: str, stamp: tuple) -> AnchorIndex:
        """The lexical channel's index of the memories' (or turns') rare
        names and numbers, brought up to date."""
        with self._lock:
            idx = self._anchors.get(over)
            if idx is None:
                idx = self._anchors[over] = AnchorIndex()
            if self._anchor_marks.get(over) == stamp:
                return idx
        rows = sql.new_texts(self.engine, over, idx.max_item_id)
        if rows:
            idx.add(rows)
        with self._lock:
            self._anchor_marks[over] = stamp
        return idx

    def filtered_ids(self, over: str, f: Filters, stamp: tuple) -> list[int]:
        """Every item id the filters admit by SQL (subject, scope, time; at
        most ``FILTERED_EXACT_MAX`` + 1), for an exact search over just
        those. Cached per filter until the store changes."""
        key = (over, *f.key())
        cached = self._filtered.get(key)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        if over == "memories":
            ids = sql.memory_ids(self.engine, f.memories(), FILTERED_EXACT_MAX + 1)
        else:
            ids = sql.turn_ids(self.engine, f.turns(), FILTERED_EXACT_MAX + 1)
        with self._lock:
            if len(self._filtered) >= _FILTERED_CACHE:
                self._filtered.pop(next(iter(self._filtered)))
            self._filtered[key] = (stamp, ids)
        return ids

    def turns_waiting(self, col: Collection, stamp: tuple) -> int:
        """How many turns (by id) are newer than the newest with a vector;
        read once per store stamp."""
        cached = self._waiting
        if cached is not None and cached[0] == stamp:
            return cached[1]
        waiting = int(stamp[sql.STAMP_TURN] or 0) - col.vectors.watermark()
        self._waiting = (stamp, waiting)
        return waiting

    def waiting(self) -> int | None:
        """The turns waiting for a vector when last read (None: not read since
        the caches were dropped)."""
        cached = self._waiting
        return None if cached is None else cached[1]


__all__ = ["FILTERED_EXACT_MAX", "StoreView"]
