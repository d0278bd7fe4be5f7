"""Extraction in two processes (core/parallel_extract.py): the same claims, turn by turn, as in one; each
user's turns in one process; a second process that fails costs only time."""

from __future__ import annotations

import os
from datetime import datetime, timedelta, timezone

import pytest
from memdesk import parallel_extract
from memdesk.ingest import (
    RuleExtractor,
    SignalledExtractor,
    demo_files,
    extract_turns,
    iter_turns,
    stored_context,
)
from memdesk.pipeline import Turn
from memdesk.signals.layer import SignalLayer
from memdesk.signals.people import PeopleBook

pytestmark = pytest.mark.skipif(not parallel_extract.fork_available(), reason="needs fork")


def _numbered() -> list[tuple[int, Turn]]:
    out: list[tuple[int, Turn]] = []
    for path in demo_files():
        out.extend(iter_turns(path))
    return out


def _context(numbered: list[tuple[int, Turn]]) -> dict[tuple[str, int], list[Turn]]:
    by_session: dict[str, list[Turn]] = {}
    context = {}
    for _, turn in numbered:
        before = by_session.setdefault(turn.session, [])
        context[(turn.session, turn.turn)] = before[-6:]
        before.append(turn)
    return context


def test_the_turns_are_split_by_user_in_their_order():
    numbered = _numbered()
    parts = parallel_extract.split_by_user(numbered)
    assert parts is not None
    first, second = parts
    assert sorted(first + second) == list(range(len(numbered)))
    assert first == sorted(first) and second == sorted(second)
    users = [{numbered[i][1].user for i in part} for part in parts]
    assert not users[0] & users[1]
    assert min(len(first), len(second)) >= 0.25 * len(numbered)


def test_one_user_holding_most_turns_is_not_split():
    when = datetime(2026, 3, 3, 9, 0, tzinfo=timezone(timedelta(hours=8)))
    numbered = [(i, Turn("s", i, "user", when, "hi", "ana" if i < 90 else "bo", None)) for i in range(100)]
    assert parallel_extract.split_by_user(numbered) is None


def test_two_processes_give_the_claims_one_gives():
    """The demo conversations through the rules and the signal layer: claims identical turn by turn, and
    the names the users gave learned as if read in one process."""
    numbered = _numbered()
    context = _context(numbered)
    layer = SignalLayer()
    one = SignalledExtractor(RuleExtractor(), layer, PeopleBook())
    two = SignalledExtractor(RuleExtractor(), layer, PeopleBook())
    serial = extract_turns(numbered, one, context, parallel=False)
    parallel = extract_turns(numbered, two, context, parallel=True)
    assert [(line, turn, claims) for line, turn, claims in parallel.turns] == list(serial.turns)
    assert parallel.failed == serial.failed
    users = {turn.user for _, turn in numbered}
    assert one.people is not None and two.people is not None
    assert two.people.of_users(users) == one.people.of_users(users)
    assert any(claims for _, _, claims in serial.turns)


def test_a_second_process_that_fails_costs_only_time():
    parent = os.getpid()
    calls = []

    def run(part: list[int]) -> tuple[list[parallel_extract.TurnResult], dict]:
        if os.getpid() != parent:
            raise RuntimeError("the second process broke")
        calls.append(part)
        return [((), None) for _ in part], {}

    first, _, second, _ = parallel_extract.run_in_two(run, ([0, 1], [2, 3, 4]))
    assert first == [((), None)] * 2 and second == [((), None)] * 3
    assert calls == [[0, 1], [2, 3, 4]]  # the second part run here after the child's failure


def test_only_many_turns_in_a_process_of_one_thread_are_worth_a_second_process(monkeypatch):
    numbered = _numbered()
    monkeypatch.setattr(parallel_extract.threading, "active_count", lambda: 1)
    monkeypatch.setattr(parallel_extract, "PARALLEL_MIN_TURNS", len(numbered) + 1)
    assert not parallel_extract.worth_it(numbered)
    monkeypatch.setattr(parallel_extract, "PARALLEL_MIN_TURNS", len(numbered))
    assert parallel_extract.worth_it(numbered)
    # a fork would copy one thread of two (a test runner's worker has threads of its own too)
    monkeypatch.setattr(parallel_extract.threading, "active_count", lambda: 2)
    assert not parallel_extract.worth_it(numbered)


def test_an_extractor_that_reaches_out_is_never_forked(monkeypatch):
    """Only the rules run in a second process: another extractor (an LLM's) reads every turn here."""
    numbered = _numbered()[:40]
    seen: list[int] = []

    class Counting:
        name = "counting@1"

        def claims(self, turn: Turn, context: list[Turn]) -> list:
            seen.append(os.getpid())
            return []

    extract_turns(numbered, Counting(), _context(numbered), parallel=True)
    assert set(seen) == {os.getpid()} and len(seen) == len(numbered)


def test_stored_context_is_what_the_split_reads(tmp_path):
    """The context each turn is read with comes from the store before the split (one query), so both
    processes read the same turns before each turn."""
    from memdesk import Store

    numbered = _numbered()
    with Store.open(tmp_path / "s.db") as store, store._core.engine.connect() as conn:  # noqa: SLF001
        context = stored_context(conn, [t for _, t in numbered])
    assert context == _context(numbered)
