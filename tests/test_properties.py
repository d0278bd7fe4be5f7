"""Property-based tests of the bitemporal rules (docs/DESIGN.md §2).

Random sequences of writes (assert / evolve / correct claims, low-confidence
claims that go through the review queue and are approved or rejected later,
retractions, and verbatim re-imports of earlier claims) run against a real
SQLite ``Store`` and against the brute-force model in ``reference_model``.
After every step:

* the store's full history equals the model's, row for row (object, value,
  polarity, valid interval, recorded_at, retired_at, retire reason, lineage);
* current-belief rows of one slot never overlap in valid time (rule 7);
* no row's content changes after insert, and a retirement stamp, once set,
  never changes (rule 1);
* transaction time never moves backwards, and everything one operation
  writes carries that operation's single transaction time (rule 4);
* what the store reports (import summary, approval outcome, review queue)
  matches the model;
* resolving a conflict (existing / incoming / changed / neither) and undoing
  a resolution do what the model does, and the store refuses an undo exactly
  when the model does (a later write changed the rows involved).

At the end of each sequence ``store.facts.as_of`` is compared with the model on a
grid of (valid_at, known_at) pairs made of every time used, the midpoints
between them, and times before and after all of them; open conflicts too.

A few plain example tests pin the tricky cases by hand.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
from dataclasses import dataclass
from datetime import datetime

from hypothesis import event, example, given, note, settings
from hypothesis import strategies as st
from memdesk import ClaimInput, Fact, InvalidInput, ManualClock, SourceRef, Store
from memdesk.timeutil import from_us, to_us

from .helpers import examples
from .reference_model import INF, MClaim, MConflict, Model, MRow, Outcome, norm

SUBJECT = "user:p"
SESSION = "s"
U = 3_600_000_000  # one time unit (an hour) in microseconds
HALF = U // 2
BASE = to_us(datetime.fromisoformat("2026-03-01T00:00:00+08:00"))


def at(units: int) -> int:
    """A time ``units`` hours after BASE, in microseconds."""
    return BASE + units * U


_RETIRE_FIELDS = ("retired_at", "retired_by_claim", "retire_reason", "retire_note",
                  "known_until")
_CONTENT_FIELDS = tuple(f for f in Fact._fields if f not in _RETIRE_FIELDS)


def content(f: Fact) -> tuple:
    return tuple(getattr(f, name) for name in _CONTENT_FIELDS)


def retirement(f: Fact) -> tuple:
    return tuple(getattr(f, name) for name in _RETIRE_FIELDS)


def fact_view(f: Fact) -> tuple:
    """What a row says: compared between the store and the model (its start:
    whether stated, how, the latest it can be; when it was told)."""
    return (f.predicate, f.object, f.value, f.polarity, f.valid_from, f.valid_to,
            bool(f.start_stated), f.start, f.latest_start, f.told_from)


def row_view(r: MRow) -> tuple:
    return (r.predicate, r.object, r.value, r.polarity, r.valid_from,
            None if r.valid_to == INF else int(r.valid_to), r.stated, r.kind, r.latest,
            r.known_from)


def end_lt(a: int | None, b: int | None) -> bool:
    """a < b where None is +infinity."""
    return a is not None and (b is None or a < b)


# ------------------------------------------------------------------- operations
@dataclass(frozen=True)
class Add:
    """Submit a new claim. ``dt``: the new turn's time relative to the previous
    new turn (negative = the transcript's clock went backwards). ``reuse``: cite
    an earlier turn (same text and time) instead of a new one."""

    predicate: str
    object: str
    value: str | None
    polarity: str
    valid_from: int
    length: int | None
    change: str | None
    confidence: float
    kind: str
    dt: int
    reuse: int | None
    heard: bool = False  # the start is only the time it was told (valid_from = turn time)
    precision: int | None = None  # a stated start said to lie within this many units
    back: int | None = None  # a stated start this many units before the turn (else valid_from)


@dataclass(frozen=True)
class Readd:
    """Submit an earlier claim again, verbatim, from the same turn."""

    index: int


@dataclass(frozen=True)
class Approve:
    """Approve a pending candidate with the clock at last transaction time + dt."""

    index: int
    dt: int


@dataclass(frozen=True)
class Reject:
    index: int
    dt: int


@dataclass(frozen=True)
class Retract:
    """Retract a current-belief row with the clock at last transaction time + dt."""

    index: int
    dt: int


@dataclass(frozen=True)
class Resolve:
    """Resolve an open conflict with the clock at last transaction time + dt."""

    index: int
    keep: str
    dt: int


@dataclass(frozen=True)
class UndoResolve:
    """Undo a standing resolution with the clock at last transaction time + dt."""

    index: int
    dt: int


PLACES = ["Xujiahui", "xujiahui ", "Zhang  jiang", "zhang jiang", "Pudong",
          # places that refine or contain one another (value identity)
          "Pudong, Shanghai", "Shanghai", "上海", "上海浦东"]
DRINKS = ["tea", " Tea", "coffee", "green tea"]  # green tea: a kind of tea


@st.composite
def add_ops(draw) -> Add:
    predicate = draw(st.sampled_from(["lives_in", "lives_in", "lives_in", "likes", "dislikes"]))
    if predicate == "lives_in":
        obj = draw(st.sampled_from(PLACES))
        polarity = draw(st.sampled_from(["positive"] * 5 + ["negative"]))
    else:
        obj = draw(st.sampled_from(DRINKS))
        polarity = draw(st.sampled_from(["positive", "positive", "negative", "neutral"]))
    change = draw(st.sampled_from([None, "evolution", "evolution", "correction", "retraction",
                                   "ending"]))
    if change == "ending" and draw(st.booleans()):
        obj = ""  # an ending that names no value ("I moved out")
    return Add(
        predicate=predicate,
        object=obj,
        value=draw(st.sampled_from([None, None, None, None, "A", "B"])),
        polarity=polarity,
        valid_from=draw(st.integers(0, 8)),
        length=draw(st.one_of(st.none(), st.integers(1, 5))),
        change=change,
        confidence=draw(st.sampled_from([1.0, 1.0, 1.0, 0.75, 0.5])),
        kind=draw(st.sampled_from(["imported"] * 5 + ["agent_inferred"])),
        dt=draw(st.integers(-2, 4)),
        reuse=draw(st.one_of(st.none(), st.none(), st.none(), st.integers(0, 20))),
        heard=draw(st.sampled_from([False, False, True])),
        precision=draw(st.sampled_from([None, None, 1, 2, 4])),
    )


_index = st.integers(0, 20)
_dt = st.integers(-2, 3)
RESOLUTIONS = ["existing", "incoming", "changed", "changed", "neither"]  # "both" needs scopes
OPS = st.lists(
    st.one_of(
        add_ops(), add_ops(), add_ops(), add_ops(), add_ops(), add_ops(),
        st.builds(Readd, _index),
        st.builds(Approve, _index, _dt),
        st.builds(Approve, _index, _dt),
        st.builds(Approve, _index, _dt),
        st.builds(Reject, _index, _dt),
        st.builds(Retract, _index, _dt),
        st.builds(Resolve, _index, st.sampled_from(RESOLUTIONS), _dt),
        st.builds(UndoResolve, _index, _dt),
    ),
    min_size=3,
    max_size=12,
)


@st.composite
def contradicting_adds(draw) -> Add:
    """Claims that mostly contradict one another: open-ended, overlapping, most
    without a change signal, most taking effect at once."""
    predicate = draw(st.sampled_from(["lives_in", "lives_in", "likes", "dislikes"]))
    obj = draw(st.sampled_from(PLACES if predicate == "lives_in" else DRINKS))
    return Add(
        predicate=predicate, object=obj, value=None,
        polarity=draw(st.sampled_from(["positive", "positive", "negative"])),
        valid_from=draw(st.integers(0, 6)),
        length=draw(st.sampled_from([None, None, None, 2, 4])),
        change=draw(st.sampled_from([None, None, None, "evolution", "correction"])),
        confidence=draw(st.sampled_from([1.0, 1.0, 1.0, 0.5])), kind="imported",
        dt=draw(st.integers(-1, 3)), reuse=None, heard=draw(st.booleans()),
        precision=draw(st.sampled_from([None, None, 2])),
    )


@st.composite
def told_in_order(draw) -> Add:
    """A conversation told in order about where one person lives: present-tense
    statements (heard, some repeating the value that holds: mentions), and
    moves said to have happened within a stated stretch of the recent past,
    some before what was said since (clamped), most after it (bounded)."""
    heard = draw(st.booleans())
    back = draw(st.integers(0, 6))
    return Add(
        predicate="lives_in", object=draw(st.sampled_from(PLACES[:2] + PLACES[3:])), value=None,
        polarity="positive", valid_from=0, length=None,
        change=draw(st.sampled_from([None, "evolution"] if heard else ["evolution"])),
        confidence=draw(st.sampled_from([1.0, 1.0, 1.0, 0.5])), kind="imported",
        dt=draw(st.integers(0, 3)), reuse=None, heard=heard,
        precision=None if heard else draw(st.sampled_from([None, 1, 2, 3, 5])),
        back=back,
    )


_EVIDENCE_OPS = st.lists(
    st.one_of(told_in_order(), told_in_order(), told_in_order(),
              st.builds(Approve, _index, _dt), st.builds(Resolve, _index,
                                                          st.sampled_from(RESOLUTIONS), _dt)),
    min_size=3, max_size=12)


_CONFLICT_STEPS = st.lists(
    st.one_of(
        contradicting_adds(), contradicting_adds(),
        st.builds(Approve, _index, _dt),
        st.builds(Retract, _index, _dt),
        st.builds(Resolve, _index, st.sampled_from(RESOLUTIONS), _dt),
        st.builds(Resolve, _index, st.sampled_from(RESOLUTIONS), _dt),
        st.builds(Resolve, _index, st.sampled_from(RESOLUTIONS), _dt),
        st.builds(UndoResolve, _index, _dt),
        st.builds(UndoResolve, _index, _dt),
        st.builds(UndoResolve, _index, _dt),
    ),
    min_size=3,
    max_size=14,
)
CONFLICT_OPS = st.builds(lambda first, rest: first + rest,
                         st.lists(contradicting_adds(), min_size=2, max_size=4), _CONFLICT_STEPS)


_SUMMARY_FIELD = {
    "insert": "asserted", "evolution": "evolutions", "backfill": "backfills",
    "correction": "corrections", "refinement": "refinements", "merge": "merged", "pending": "queued",
    "conflict": "conflicts", "unchanged": "unchanged", "retract": "retractions",
    "ending": "evolutions",
}
_APPROVAL_OUTCOME = {"merge": "merged", "conflict": "conflict"}


# ---------------------------------------------------------------------- harness
class Harness:
    """Drives one store and one model through the same operations and compares them."""

    def __init__(self, store: Store, clock: ManualClock) -> None:
        self.store = store
        self.clock = clock
        self.model = Model()
        self.turns: list[SourceRef] = []
        self.claims: list[tuple[ClaimInput, MClaim]] = []
        self.turn_time = BASE
        self.candidates: dict[int, int] = {}  # model claim number -> store candidate id
        self.ids: dict[int, int] = {}  # model row id -> store fact id
        self.claim_ids: dict[int, int] = {}  # model claim number -> store claim id
        self.first: dict[int, Fact] = {}  # store fact id -> the row as first seen
        self.retired: dict[int, tuple] = {}  # store fact id -> its retirement stamp
        self.max_tx = 0
        self.valid_times: set[int] = set()
        self.told = BASE  # the told time of the operation being checked
        self.conflict_ids: dict[int, int] = {}  # id() of a model conflict -> store conflict id

    # ------------------------------------------------------------ operations
    def run(self, op: object) -> None:
        outcome = getattr(self, "do_" + type(op).__name__.lower())(op)
        if outcome is not None:
            event(f"{type(op).__name__}: {outcome.kind}")
            self.check(outcome)

    def do_add(self, op: Add) -> Outcome:
        if op.reuse is not None and self.turns:
            source = dataclasses.replace(self.turns[op.reuse % len(self.turns)], kind=op.kind)
        else:
            self.turn_time += op.dt * U
            number = len(self.turns) + 1
            source = SourceRef(SESSION, number, f"turn {number}", self.turn_time, kind=op.kind)
            self.turns.append(source)
        valid_from = (source.time if op.heard else at(op.valid_from) if op.back is None
                      else source.time - op.back * U)
        valid_to = None if op.length is None or op.heard else at(op.valid_from + op.length)
        if valid_to is not None and valid_to <= valid_from:
            valid_to = None
        latest = (None if op.heard or op.precision is None
                  else valid_from + op.precision * U - 1)
        if latest is not None and valid_to is not None and latest >= valid_to:
            latest = None
        claim = ClaimInput(
            subject=SUBJECT, predicate=op.predicate, object=op.object, source=source,
            valid_from=valid_from, valid_to=valid_to, value=op.value, polarity=op.polarity,
            confidence=op.confidence, change=op.change, start_stated=not op.heard,
            start_latest=latest,
        )
        mclaim = MClaim(op.predicate, op.object, valid_from, valid_to, op.value,
                        op.polarity, op.change, op.confidence, op.kind,
                        stated=not op.heard, told=source.time, latest=latest)
        self.claims.append((claim, mclaim))
        return self._submit(claim, mclaim)

    def do_readd(self, op: Readd) -> Outcome | None:
        if not self.claims:
            return None
        claim, mclaim = self.claims[op.index % len(self.claims)]
        return self._submit(claim, mclaim)

    def _submit(self, claim: ClaimInput, mclaim: MClaim) -> Outcome:
        self.valid_times.add(claim.valid_from)
        if claim.valid_to is not None:
            self.valid_times.add(claim.valid_to)
        summary = self.store.facts.add(claim)
        out = self.model.submit(mclaim, claim, to_us(self.clock.now()))
        self.told = claim.source.time
        counts = {name: getattr(summary, name) for name in _SUMMARY_FIELD.values()}
        expected = {name: int(name == _SUMMARY_FIELD[out.kind]) for name in counts}
        assert counts == expected, f"store did {counts}, model expected {out.kind}"
        if out.kind == "pending":
            newest = max(self.store.review.list("pending"), key=lambda c: c.id)
            assert (newest.source.turn, newest.object) == (claim.source.turn, claim.object)
            assert newest.created_at == out.tx
            self.candidates[out.claim] = newest.id
            self._same_claim(out.claim, newest.id)
        return out

    def _pick_pending(self, index: int) -> tuple[int, int] | None:
        if not self.model.pending:
            return None
        number = sorted(self.model.pending)[index % len(self.model.pending)]
        return number, self.candidates[number]

    def _set_clock(self, dt: int) -> int:
        now = self.model.last_tx + dt * U
        self.clock.set(from_us(now))
        return now

    def do_approve(self, op: Approve) -> Outcome | None:
        picked = self._pick_pending(op.index)
        if picked is None:
            return None
        number, cid = picked
        now = self._set_clock(op.dt)
        result = self.store.review.approve(cid, by="r")
        out = self.model.approve(number, now)
        self.told = out.tx
        want = _APPROVAL_OUTCOME.get(out.kind, out.kind)
        assert result.outcome == want, f"approval did {result}, model expected {want}"
        assert self.store.review.get(cid).decided_at == out.tx
        return out

    def do_reject(self, op: Reject) -> Outcome | None:
        picked = self._pick_pending(op.index)
        if picked is None:
            return None
        number, cid = picked
        now = self._set_clock(op.dt)
        decided = self.store.review.reject(cid, by="r", reason="x")
        out = self.model.reject(number, now)
        self.told = out.tx
        assert (decided.state, decided.decided_at) == ("rejected", out.tx)
        return out

    def do_retract(self, op: Retract) -> Outcome | None:
        rows = sorted(self.model.current(),
                      key=lambda r: (r.predicate, norm(r.object), r.valid_from))
        if not rows:
            return None
        row = rows[op.index % len(rows)]
        now = self._set_clock(op.dt)
        fact = self.store.facts.retract(self.ids[row.id], by="r", reason="x")
        out = self.model.retract(row.id, now)
        self.told = out.tx
        assert (fact.retired_at, fact.retire_reason) == (out.tx, "retracted")
        return out

    def _open_conflicts(self) -> list[tuple[MConflict, int]]:
        """The open conflicts of the model and the store, paired (both oldest first)."""
        stored = self.store.conflicts.list("open")
        assert len(stored) == len(self.model.conflicts)
        for c, m in zip(stored, self.model.conflicts, strict=True):
            self._same_claim(m.claim, c.claim_id)
            known = self.conflict_ids.setdefault(id(m), c.id)
            assert known == c.id, f"model conflict {m} is store conflict {known} and {c.id}"
        return [(m, c.id) for c, m in zip(stored, self.model.conflicts, strict=True)]

    def do_resolve(self, op: Resolve) -> Outcome | None:
        pairs = self._open_conflicts()
        if not pairs:
            return None
        mconflict, cid = pairs[op.index % len(pairs)]
        now = self._set_clock(op.dt)
        out = self.model.resolve(mconflict, op.keep, now)
        if out.kind == "refused":  # "changed" where that is itself a conflict
            try:
                self.store.conflicts.resolve(cid, op.keep, by="r")
            except InvalidInput:
                pass
            else:
                raise AssertionError(f"the store resolved conflict {cid}; the model refuses")
            assert self.store.conflicts.get(cid).state == "open"
            return out
        done = self.store.conflicts.resolve(cid, op.keep, by="r")
        self.told = out.tx
        assert (done.state, done.resolution, done.resolved_at) == ("resolved", op.keep, out.tx)
        state = self.store.review.get(done.claim_id).state
        want = {"rejected": "rejected", "merge": "merged"}.get(out.kind, "approved")
        assert state == want, f"resolution {op.keep} left the claim {state}, model {out.kind}"
        return out

    def do_undoresolve(self, op: UndoResolve) -> Outcome | None:
        standing = self.model.resolutions
        if not standing:
            return None
        res = standing[op.index % len(standing)]
        cid = self.conflict_ids[id(res.conflict)]
        now = self._set_clock(op.dt)
        out = self.model.undo_resolution(res, now)
        if out.kind == "refused":
            try:
                self.store.conflicts.undo(cid, by="r")
            except InvalidInput:
                pass
            else:
                raise AssertionError(f"the store undid the resolution of conflict {cid}; "
                                     "the model refuses")
            assert self.store.conflicts.get(cid).state == "resolved"
            return out
        result = self.store.conflicts.undo(cid, by="r")
        self.told = out.tx
        assert result.undone == res.keep
        again = self.store.conflicts.get(cid)
        assert again.state == "open" and self.store.review.get(again.claim_id).state == "conflict"
        self._open_conflicts()
        return out

    def _same_claim(self, number: int, claim_id: int) -> None:
        known = self.claim_ids.setdefault(number, claim_id)
        assert known == claim_id, f"model claim {number} is store claim {known} and {claim_id}"

    # ---------------------------------------------------------------- checks
    def check(self, out: Outcome) -> None:
        history = self.store.facts.history(SUBJECT)
        by_id = {f.id: f for f in history}

        # rule 1: a row's content never changes; a retirement stamp never changes
        for fid, first in self.first.items():
            now = by_id.get(fid)
            assert now is not None, f"fact {fid} disappeared"
            assert content(now) == content(first), f"fact {fid} changed:\n{first}\n{now}"
            if fid in self.retired:
                assert retirement(now) == self.retired[fid], f"retirement of fact {fid} changed"

        # rule 4: one recorded time per operation, never moving backwards; on the
        # told axis, what it writes is known from its told time, what it retires
        # known until then (never before that row was known from)
        fresh = [f for f in history if f.id not in self.first]
        newly_retired = [f for f in history
                         if f.retired_at is not None and f.id not in self.retired]
        stamps = {f.recorded_at for f in fresh} | {f.retired_at for f in newly_retired}
        assert len(stamps) <= 1, f"one operation wrote several stamps {sorted(stamps)}"
        assert all(s > self.max_tx for s in stamps), (
            f"recorded time moved backwards: {sorted(stamps)} after {self.max_tx}")
        assert stamps <= {out.tx}, f"operation at {out.tx} wrote stamps {sorted(stamps)}"
        assert out.tx > self.max_tx or out.kind in ("refused", "unchanged")
        self.max_tx = max(out.tx, self.max_tx)
        assert {f.known_from for f in fresh} <= {self.told}
        for f in newly_retired:
            assert f.known_until == max(self.told, f.told_from), (f, self.told)
        for f in fresh:
            self.first[f.id] = f
            if f.copy_of is None:
                event(f"new row's start: {f.start}")
        for f in newly_retired:
            self.retired[f.id] = retirement(f)

        # the new rows are the model's new rows
        mine = [r for r in self.model.rows if r.id not in self.ids]
        wanted = {(*row_view(r), r.recorded_at): r for r in mine}
        got = {(*fact_view(f), f.recorded_at): f for f in fresh}
        assert sorted(got, key=repr) == sorted(wanted, key=repr), (
            f"after {out.kind} at {out.tx}: store inserted {sorted(got, key=repr)}, "
            f"model expected {sorted(wanted, key=repr)}"
        )
        for key, r in wanted.items():
            self.ids[r.id] = got[key].id

        # every row, old and new, agrees with the model
        for r in self.model.rows:
            f = by_id[self.ids[r.id]]
            assert fact_view(f) == row_view(r)
            assert f.recorded_at == r.recorded_at
            assert f.retired_at == (None if r.retired_at == INF else r.retired_at), (
                f"fact {f.id} {fact_view(f)}: retired_at {f.retired_at}, model {r.retired_at}")
            assert f.told_until == (None if r.known_until == INF else r.known_until)
            assert f.retire_reason == r.retire_reason
            want_copy = None if r.copy_of is None else self.ids[r.copy_of]
            assert f.copy_of == want_copy, f"fact {f.id} is a copy of {f.copy_of}, not {want_copy}"
            self._same_claim(r.claim, f.claim_id)
        assert len(history) == len(self.model.rows)

        # rule 7: current belief of one slot never overlaps in valid time
        for predicate in sorted({"lives_in"} | {f.predicate for f in history}):
            current = self.store.facts.current(SUBJECT, predicate)
            slots: dict[tuple, list[Fact]] = {}
            for f in current:
                slot = (f.scope,) if f.single_valued else (f.scope, norm(f.object))
                slots.setdefault(slot, []).append(f)
            for rows in slots.values():
                rows.sort(key=lambda f: f.valid_from)
                for a, b in zip(rows, rows[1:], strict=False):
                    assert not end_lt(b.valid_from, a.valid_to), (
                        f"overlapping current rows {fact_view(a)} and {fact_view(b)}")
            assert sorted(map(fact_view, current), key=repr) == sorted(
                map(row_view, self.model.current(predicate)), key=repr)

        assert self.store.review.count("pending") == len(self.model.pending)

    def final_check(self) -> None:
        model = self.model
        # as-of on a grid of every time used, midpoints, and before/after all
        valid = set(self.valid_times) | {BASE}
        for r in model.rows:
            valid.add(r.valid_from)
            if r.valid_to != INF:
                valid.add(int(r.valid_to))
        known = {r.known_from for r in model.rows}
        known |= {int(r.known_until) for r in model.rows if r.known_until != INF}
        known |= {c.opened_at for c in model.conflicts} | {model.last_tx, BASE}
        recorded = {r.recorded_at for r in model.rows}
        recorded |= {int(r.retired_at) for r in model.rows if r.retired_at != INF}
        points_v, points_k = _grid(valid), _grid(known)
        some_k = sorted({points_k[0], points_k[len(points_k) // 2], points_k[-1]})
        predicates = {"lives_in"} | {r.predicate for r in model.rows}
        for predicate in sorted(predicates):
            for k in points_k:
                for v in points_v:
                    got = self.store.facts.as_of(SUBJECT, predicate, valid_at=v, known_at=k)
                    want = model.as_of(predicate, v, k)
                    assert sorted(map(fact_view, got), key=repr) == sorted(
                        map(row_view, want), key=repr), (
                        f"as_of({predicate}, valid_at={v}, known_at={k}): store "
                        f"{[fact_view(f) for f in got]}, model {[row_view(r) for r in want]}")
            # the recorded axis: what the store would have answered at each moment
            for r_at in _grid(recorded | {BASE}):
                for k in some_k:
                    for v in points_v:
                        got = self.store.facts.as_of(SUBJECT, predicate, valid_at=v, known_at=k,
                                               recorded_at=r_at)
                        want = model.as_of(predicate, v, k, recorded_at=r_at)
                        assert sorted(map(fact_view, got), key=repr) == sorted(
                            map(row_view, want), key=repr), (
                            f"as_of({predicate}, valid_at={v}, known_at={k}, recorded_at={r_at})")

        # open conflicts: one per contradicting claim, naming the rows it contradicts
        conflicts = self.store.conflicts.list("open")
        assert len(conflicts) == len(model.conflicts)
        for c, m in zip(conflicts, model.conflicts, strict=True):
            assert (c.predicate, c.opened_at) == (m.predicate, m.opened_at)
            assert sorted(c.fact_ids) == sorted(self.ids[i] for i in m.row_ids)
            self._same_claim(m.claim, c.claim_id)
        assert self.store.audit.verify().ok


def _grid(times: set[int]) -> list[int]:
    """The times, the midpoints between neighbours, and one before and after all."""
    ts = sorted(times)
    points = set(ts) | {ts[0] - HALF, ts[-1] + HALF}
    points |= {(a + b) // 2 for a, b in zip(ts, ts[1:], strict=False)}
    return sorted(points)


_TEMPLATE: list[tempfile.TemporaryDirectory] = []


def _empty_store_file() -> str:
    """An empty store, created once per test run: copying it is much cheaper
    than creating the schema for every example."""
    if not _TEMPLATE:
        _TEMPLATE.append(tempfile.TemporaryDirectory())
        Store.open(os.path.join(_TEMPLATE[0].name, "empty.db")).close()
    return os.path.join(_TEMPLATE[0].name, "empty.db")


def run_ops(ops: list[object]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = shutil.copyfile(_empty_store_file(), os.path.join(tmp, "props.db"))
        clock = ManualClock(from_us(BASE))
        with Store.open(path, clock=clock, create=False) as store:
            harness = Harness(store, clock)
            for i, op in enumerate(ops):
                note(f"step {i}: {op}")
                harness.run(op)
            harness.final_check()


@settings(max_examples=examples(200), deadline=None, derandomize=True, database=None)
@given(OPS)
def test_store_matches_reference_model(ops):
    run_ops(ops)


@settings(max_examples=examples(200), deadline=None, derandomize=True, database=None)
@given(_EVIDENCE_OPS)
def test_bounded_starts_match_reference_model(ops):
    """Moves said with a precision, after and before what was said of the
    value they replace (and its mentions), against the model."""
    run_ops(ops)


def _place(obj: str, dt: int = 0, heard: bool = False) -> Add:
    return Add("lives_in", obj, None, "positive", 0, None, None, 1.0, "imported", dt, None, heard)


@settings(max_examples=examples(250), deadline=None, derandomize=True, database=None)
@given(CONFLICT_OPS)
# the value kept by "existing" is retracted later: the undo must be refused
@example([_place("Xujiahui"), _place("Pudong"), Resolve(0, "existing", 0), Retract(0, 0),
          UndoResolve(0, 0)])
# "neither", then a new value where the retracted one was: refused too
@example([_place("Xujiahui"), _place("Pudong"), Resolve(0, "neither", 0), _place("Zhang  jiang"),
          UndoResolve(0, 0)])
# "changed", undone, resolved again as a correction, undone again
@example([_place("Xujiahui", heard=True), _place("Pudong", 2, heard=True), Resolve(0, "changed", 1),
          UndoResolve(0, 1), Resolve(0, "incoming", 1), UndoResolve(0, 1)])
# two values stated from one instant: "changed" is refused, "incoming" is not
@example([_place("Xujiahui"), _place("Pudong", 2), Resolve(0, "changed", 1),
          Resolve(0, "incoming", 1), UndoResolve(0, 1)])
# ... the same when both were told before that instant
@example([_place("Xujiahui", -2), _place("Pudong", 1), Resolve(0, "changed", 1),
          Resolve(0, "incoming", 1), UndoResolve(0, 1)])
def test_resolutions_and_their_undo_match_reference_model(ops):
    """Conflicts resolved every way, resolutions undone (or refused) in any
    order, between further contradicting writes."""
    run_ops(ops)


# ------------------------------------------------------------ example tests
def _claim(turn: int, obj: str, valid_from: int, *, t: int, change: str | None = None,
           valid_to: int | None = None, predicate: str = "lives_in",
           confidence: float = 1.0) -> ClaimInput:
    return ClaimInput(
        subject=SUBJECT, predicate=predicate, object=obj,
        source=SourceRef(SESSION, turn, f"turn {turn}", at(t)),
        valid_from=at(valid_from), valid_to=None if valid_to is None else at(valid_to),
        change=change, confidence=confidence,
    )


def _as_of(store: Store, valid: int, known: int) -> list[str]:
    return [f.object for f in store.facts.as_of(SUBJECT, "lives_in", valid_at=at(valid),
                                           known_at=at(known))]


def _current(store: Store) -> list[tuple]:
    return [(f.object, f.valid_from, f.valid_to, f.told_from)
            for f in store.facts.current(SUBJECT, "lives_in")]


def test_backfill_is_closed_at_the_next_change_and_never_retires_it(store):
    store.facts.add(_claim(1, "Zhangjiang", 10, t=20))
    later = store.facts.current(SUBJECT, "lives_in")
    # learned at 30 that the user lived in Xujiahui from 2: a backfill up to 10
    summary = store.facts.add(_claim(2, "Xujiahui", 2, t=30, change="evolution"))
    assert summary.backfills == 1
    assert store.facts.current(SUBJECT, "lives_in")[1:] == later  # untouched, not retired
    assert _current(store) == [
        ("Xujiahui", at(2), at(10), at(30)),
        ("Zhangjiang", at(10), None, at(20)),
    ]
    # a second late change inside the backfilled span splits only that span
    summary = store.facts.add(_claim(3, "Pudong", 5, t=40, change="evolution"))
    assert summary.backfills == 1
    assert _current(store) == [
        ("Xujiahui", at(2), at(5), at(40)),
        ("Pudong", at(5), at(10), at(40)),
        ("Zhangjiang", at(10), None, at(20)),
    ]
    assert [f.retired_at for f in store.facts.history(SUBJECT, "lives_in")
            if f.object == "Zhangjiang"] == [None]
    assert _as_of(store, 6, 35) == ["Xujiahui"]
    assert _as_of(store, 6, 45) == ["Pudong"]
    assert _as_of(store, 6, 25) == []
    assert _as_of(store, 12, 45) == ["Zhangjiang"]


def test_evolution_with_valid_to_restores_the_old_value_after_it(store):
    store.facts.add(_claim(1, "Xujiahui", 0, t=1))
    summary = store.facts.add(_claim(2, "Pudong", 5, t=10, change="evolution", valid_to=8))
    assert summary.backfills == 0 and summary.evolutions == 1
    assert _current(store) == [
        ("Xujiahui", at(0), at(5), at(10)),
        ("Pudong", at(5), at(8), at(10)),
        ("Xujiahui", at(8), None, at(10)),
    ]
    original = [f for f in store.facts.history(SUBJECT, "lives_in") if f.told_from == at(1)]
    assert [(f.told_until, f.retire_reason) for f in original] == [(at(10), "superseded")]
    assert _as_of(store, 4, 20) == ["Xujiahui"]
    assert _as_of(store, 6, 20) == ["Pudong"]
    assert _as_of(store, 9, 20) == ["Xujiahui"]
    assert _as_of(store, 6, 5) == ["Xujiahui"]  # before the move was learned


def test_correction_keeps_the_valid_interval(store):
    store.facts.add(_claim(1, "Xujiahui", 0, t=1))
    store.facts.add(_claim(2, "Zhangjiang", 10, t=11, change="evolution"))
    # "no, not Zhangjiang, Pudong" said at 20 (its start only heard)
    summary = store.facts.add(dataclasses.replace(
        _claim(3, "Pudong", 20, t=20, change="correction"), start_stated=False))
    assert summary.corrections == 1
    assert _current(store) == [
        ("Xujiahui", at(0), at(10), at(11)),
        ("Pudong", at(10), None, at(20)),
    ]
    wrong = [f for f in store.facts.history(SUBJECT, "lives_in") if f.object == "Zhangjiang"]
    assert [(f.told_until, f.retire_reason) for f in wrong] == [(at(20), "corrected")]
    assert _as_of(store, 12, 15) == ["Zhangjiang"]  # what we believed before
    assert _as_of(store, 12, 25) == ["Pudong"]
    assert _as_of(store, 5, 25) == ["Xujiahui"]
    # a correction dated before any value holds says what held then, up to
    # the next change (a dated history arriving out of order) ...
    summary = store.facts.add(_claim(4, "Minhang", -5, t=30, change="correction"))
    assert summary.backfills == 1
    assert _current(store) == [
        ("Minhang", at(-5), at(0), at(30)),
        ("Xujiahui", at(0), at(10), at(11)),
        ("Pudong", at(10), None, at(20)),
    ]
    # ... one dated inside a row replaces what held from its own start on ...
    summary = store.facts.add(_claim(5, "Songjiang", 15, t=40, change="correction", valid_to=16))
    assert summary.corrections == 1
    assert _current(store)[2:] == [
        ("Pudong", at(10), at(15), at(40)),
        ("Songjiang", at(15), at(16), at(40)),
        ("Pudong", at(16), None, at(40)),
    ]
    # ... and one only heard ("no, it's Minhang") replaces the whole row holding then
    heard = _claim(6, "Fengxian", 50, t=50, change="correction")
    store.facts.add(dataclasses.replace(heard, start_stated=False))
    assert _current(store)[-1] == ("Fengxian", at(16), None, at(50))


def test_told_time_is_never_clamped_recorded_time_never_moves_back(store, clock):
    """A turn whose time lies before what the store already recorded keeps its
    own time on the told axis; the store's clock orders what it writes (each
    operation at least a microsecond after the last); a re-import changes nothing."""
    clock.set(from_us(at(100)))
    store.facts.add(_claim(1, "Xujiahui", 0, t=10))
    # a turn told before the last one, written after it
    store.facts.add(_claim(2, "Pudong", 3, t=5, change="evolution"))
    history = store.facts.history(SUBJECT)
    assert {f.told_from for f in history} == {at(10), at(5)}
    assert {f.recorded_at for f in history} == {at(100), at(100) + 1}
    # what retired the first row was told at 5: it is known until then (not before its own start)
    [first] = [f for f in history if f.retired_at is not None]
    assert (first.retired_at, first.told_until) == (at(100) + 1, at(10))
    before = store.facts.history(SUBJECT)
    summary = store.facts.add(_claim(2, "Pudong", 3, t=5, change="evolution"))
    assert summary.unchanged == 1 and store.facts.history(SUBJECT) == before
    # a low-confidence claim waits; approval happens at max(clock, just after the last write)
    summary = store.facts.add(_claim(3, "Minhang", 20, t=12, change="evolution", confidence=0.5))
    assert summary.queued == 1 and store.facts.history(SUBJECT) == before
    (candidate,) = store.review.list()
    clock.set(from_us(at(11)))
    result = store.review.approve(candidate.id, by="r")
    assert result.outcome == "evolution"
    fact = store.facts.get(result.fact_id)
    assert fact.recorded_at == at(100) + 3  # two writes before it (the re-import wrote nothing)
    assert fact.told_from == fact.recorded_at  # a person's decision is told when taken
