"""Shared fixtures. ``store_url`` (and ``store``) run each test on SQLite and
on a throwaway PostgreSQL server; ``-m 'not postgres'`` skips the latter."""

from __future__ import annotations

import gc
import os
import shutil
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
from memdesk import ManualClock, Store

from .pgserver import PgServer, reset_pg, start_server


def pytest_collection_finish(session: pytest.Session) -> None:
    """Once the tests are collected, the modules and tables loaded so far never become garbage:
    the collector stops walking them (gc.freeze), and runs less often (a young generation of
    50,000 objects instead of 700). The suite's many small objects made collection about a
    tenth of its time; a cycle still gets collected, later."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)

DEMO_START = datetime.fromisoformat("2026-03-01T00:00:00+08:00")


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    try:
        server = start_server()
    except RuntimeError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL is required in CI: {exc}")
        pytest.skip(str(exc))
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request, tmp_path) -> str:
    """A URL for an empty store on each backend."""
    if request.param == "sqlite":
        return str(tmp_path / "memdesk.db")
    server = request.getfixturevalue("pg_server")
    reset_pg(server.url)
    return server.url


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(DEMO_START)


@pytest.fixture
def store(store_url, clock) -> Iterator[Store]:
    with Store.open(store_url, clock=clock) as s:
        yield s


@pytest.fixture(scope="session")
def demo_db(tmp_path_factory) -> Path:
    """The demo store with the screenshots' fixed clock, built once per test
    session (per worker); tests that write get a copy (``db``)."""
    from memdesk.app.screenshots import build_demo_store

    return build_demo_store(tmp_path_factory.mktemp("demo") / "demo.db")


@pytest.fixture
def db(demo_db, tmp_path) -> Path:
    """A copy of the demo store of this test's own."""
    target = tmp_path / "demo.db"
    shutil.copy(demo_db, target)
    return target


@pytest.fixture(scope="session")
def embedded_demo_db(demo_db, tmp_path_factory) -> Path:
    """The demo store with its memories and turns embedded for recall, from the vectors shipped with the demo
    (``memdesk.KnownVectors``: what ``memdesk demo`` does), built once per test session (per worker)."""
    from memdesk import KnownVectors, Recaller, load_known, make_embedder
    from memdesk.app.demo import demo_vectors
    from memdesk.app.screenshots import DEMO_NOW
    from memdesk.recall.embedders import DEFAULT_EMBEDDER, DEFAULT_TURN_EMBEDDER

    target = tmp_path_factory.mktemp("embedded") / "demo.db"
    shutil.copy(demo_db, target)
    known = {}
    for kind, spec in (("memory", DEFAULT_EMBEDDER), ("turn", DEFAULT_TURN_EMBEDDER)):
        inner = make_embedder(spec)
        known[kind] = KnownVectors(inner, load_known(demo_vectors(), inner))
    with Store.open(target, clock=ManualClock(DEMO_NOW)) as store:
        recaller = Recaller(store, embedder=known["memory"], turn_embedder=known["turn"],
                            index_dir=target.parent / "index")
        try:
            recaller.reindex()
        finally:
            recaller.close()
    return target


@pytest.fixture
def embedded_db(embedded_demo_db, tmp_path) -> Path:
    """A copy of the embedded demo store of this test's own (recall finds its vectors stored)."""
    target = tmp_path / "demo.db"
    shutil.copy(embedded_demo_db, target)
    return target
