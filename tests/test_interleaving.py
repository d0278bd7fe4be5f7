"""What the store had been told by T does not depend on the order of other
people's turns (issue 27, part 2; docs/DESIGN.md §2.1).

Invariant: permuting the order of turns that belong to different subjects
(and different sessions) in one ingest gives identical as-of answers on both
axes (told and recorded) for every subject.

* ``test_claims_of_several_people_in_any_interleaving_match_the_model``: the
  claims of two or three people, each told in their own order, interleaved at
  random and imported in one transaction, against the reference model run on
  each person's claims alone; and two interleavings against each other.
* ``test_conversations_in_any_interleaving_answer_the_same``: the same with
  conversations through extraction (``store.facts.ingest_turns``), zh and en.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone

from hypothesis import event, given, settings
from hypothesis import strategies as st
from memdesk import ClaimInput, ManualClock, SourceRef, Store
from memdesk.pipeline import Turn
from memdesk.timeutil import from_us, to_us

from .helpers import examples
from .reference_model import INF, MClaim, Model, MRow
from .test_properties import _empty_store_file, _grid

U = 3_600_000_000
BASE = to_us(datetime(2026, 3, 1, tzinfo=UTC))
NOW = datetime(2026, 12, 4, tzinfo=UTC)
PLACES = ["Xujiahui", "Zhangjiang", "Pudong", "Minhang"]


@st.composite
def person(draw, name: str) -> list[tuple[str, ClaimInput, MClaim]]:
    """One person's claims in the order they were told: present-tense
    statements (some repeating the value that holds), moves said with a
    precision in the recent past, corrections, a low-confidence one now and
    then; and a like or two."""
    told = BASE + draw(st.integers(0, 20)) * U
    out = []
    for turn in range(1, draw(st.integers(2, 7)) + 1):
        told += draw(st.integers(0, 30)) * U
        predicate = draw(st.sampled_from(["lives_in", "lives_in", "lives_in", "likes"]))
        obj = draw(st.sampled_from(PLACES if predicate == "lives_in" else ["tea", "coffee"]))
        heard = draw(st.booleans())
        change = draw(st.sampled_from([None, "evolution", "evolution", "correction"]))
        start = told if heard else told - draw(st.integers(0, 40)) * U
        latest = None if heard else draw(st.sampled_from([None, start + 24 * U - 1,
                                                          start + 72 * U - 1]))
        confidence = draw(st.sampled_from([0.95, 0.95, 0.95, 0.5]))
        source = SourceRef(f"{name}-chat", turn, f"turn {turn} of {name}", told)
        claim = ClaimInput(subject=f"user:{name}", predicate=predicate, object=obj, source=source,
                           valid_from=start, change=change, confidence=confidence,
                           start_stated=not heard, start_latest=latest)
        mclaim = MClaim(predicate, obj, start, None, None, "positive", change, confidence,
                        "imported", stated=not heard, told=told, latest=latest)
        out.append((name, claim, mclaim))
    return out


@st.composite
def people(draw):
    names = ["ann", "bob", "cai"][:draw(st.integers(2, 3))]
    each = [draw(person(n)) for n in names]
    return names, each, [draw(interleaving(each)), draw(interleaving(each))]


@st.composite
def interleaving(draw, sequences: list[list]) -> list:
    """The items of ``sequences`` in one list, each sequence keeping its own order."""
    queues = [list(q) for q in sequences]
    out = []
    while any(queues):
        i = draw(st.sampled_from([i for i, q in enumerate(queues) if q]))
        out.append(queues[i].pop(0))
    return out


def _view(f) -> tuple:
    return (f.predicate, f.object, f.polarity, f.valid_from, f.valid_to, f.start, f.latest_start,
            f.told_from)


def _mview(r: MRow) -> tuple:
    return (r.predicate, r.object, r.polarity, r.valid_from,
            None if r.valid_to == INF else int(r.valid_to), r.kind, r.latest, r.known_from)


def _answers(store: Store, subject: str, valid: list[int], known: list[int],
             recorded: list[int]) -> dict:
    out = {}
    for predicate in ("lives_in", "likes"):
        for k in known:
            for v in valid:
                out[(predicate, v, k, None)] = sorted(
                    map(_view, store.facts.as_of(subject, predicate, valid_at=v, known_at=k)))
                for r in recorded:
                    out[(predicate, v, k, r)] = sorted(map(_view, store.facts.as_of(
                        subject, predicate, valid_at=v, known_at=k, recorded_at=r)))
    return out


def _fresh_stores(orders: list) -> Iterator[tuple[list, Store]]:
    """Each order with a store of its own, empty, on the store clock NOW."""
    with tempfile.TemporaryDirectory() as tmp:
        for i, order in enumerate(orders):
            path = shutil.copyfile(_empty_store_file(), os.path.join(tmp, f"{i}.db"))
            with Store.open(path, clock=ManualClock(NOW), create=False) as store:
                yield order, store


@settings(max_examples=examples(60), deadline=None, derandomize=True, database=None)
@given(people())
def test_claims_of_several_people_in_any_interleaving_match_the_model(case):
    names, each, orders = case
    models = {}
    for person_claims in each:  # each person on their own, in their own order
        model = Model()
        for _name, claim, mclaim in person_claims:
            model.submit(mclaim, claim, to_us(NOW))
        models[f"user:{person_claims[0][0]}"] = model
    times = {BASE} | {c.valid_from for p in each for _, c, _ in p}
    times |= {c.source.time for p in each for _, c, _ in p}
    grid = _grid(times)
    answers = []
    for order, store in _fresh_stores(orders):
        store.facts.add([claim for _, claim, _ in order])  # one ingest, one transaction
        recorded = sorted({f.recorded_at for s in models for f in store.facts.history(s)})
        for f in (f for s in models for f in store.facts.history(s)):
            event(f"start: {f.start}")
        assert len(recorded) <= 1  # everything written at the one recorded instant
        for subject, model in models.items():
            for predicate in ("lives_in", "likes"):
                for k in grid:
                    for v in grid:
                        got = sorted(map(_view, store.facts.as_of(
                            subject, predicate, valid_at=v, known_at=k)))
                        want = sorted(map(_mview, model.as_of(predicate, v, k)))
                        assert got == want, (subject, predicate, v, k)
        recorded_grid = _grid(set(recorded) | {to_us(NOW)})
        answers.append({s: _answers(store, s, grid[::3], grid[::4], recorded_grid)
                        for s in models})
        assert store.audit.verify().ok
    assert answers[0] == answers[1]


# ------------------------------------------------ conversations, through extraction
LINES = {
    "zh": ["我住在静安。", "我住在徐汇。", "上个月搬到了徐汇。", "我上周末搬到张江了。", "不对，是浦东。",
           "我喜欢喝茶。", "我对花生过敏。", "我三月份搬到了闵行。", "预算上限五千元。", "预算上调到八千元。"],
    "en": ["I live in Leeds.", "I live in York.", "I moved to York last month.",
           "I moved to Bath last weekend.", "No, I meant Wells.", "I love jazz.",
           "I'm allergic to peanuts.", "I moved to Ely in March.", "My budget is 5000 pounds.",
           "My budget went up to 8000 pounds."],
}


@st.composite
def conversations(draw):
    users = ["wang", "bob", "li"][:draw(st.integers(2, 3))]
    turns = []
    for u in users:
        lang = draw(st.sampled_from(["zh", "en"]))
        tz = timezone(timedelta(hours=8 if lang == "zh" else 0))
        when = datetime(2026, 3, 1, 9, tzinfo=tz) + timedelta(days=draw(st.integers(0, 60)))
        mine = []
        for n in range(1, draw(st.integers(2, 6)) + 1):
            when += timedelta(days=draw(st.integers(0, 20)), hours=draw(st.integers(0, 5)))
            mine.append(Turn(f"{u}-s", n, "user", when, draw(st.sampled_from(LINES[lang])), u))
        turns.append(mine)
    return users, [draw(interleaving(turns)), draw(interleaving(turns))]


@settings(max_examples=examples(30), deadline=None, derandomize=True, database=None)
@given(conversations())
def test_conversations_in_any_interleaving_answer_the_same(case):
    users, orders = case
    times = {to_us(t.time) for t in orders[0]}
    times |= {t + d for t in list(times) for d in (-40 * 24 * U, -7 * 24 * U, 24 * U)}
    grid = _grid(times)
    answers = []
    for order, store in _fresh_stores(orders):
        store.facts.ingest_turns(order)
        recorded = {f.recorded_at for u in users for f in store.facts.history(f"user:{u}")}
        answers.append({u: _answers(store, f"user:{u}", grid[::2], grid[::2],
                                    _grid(recorded | {to_us(NOW)}))
                        for u in users})
        answers[-1]["review"] = sorted(
            (c.subject, c.object, c.source.session, c.source.turn)
            for c in store.review.list())
        answers[-1]["conflicts"] = sorted(
            (c.subject, c.predicate, from_us(c.opened_at).isoformat())
            for c in store.conflicts.list("all"))
    assert answers[0] == answers[1]
