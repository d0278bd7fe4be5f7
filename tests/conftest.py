"""Shared fixtures. ``store_url`` (and ``store``) run each test on SQLite and
on a throwaway PostgreSQL server; ``-m 'not postgres'`` skips the latter."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import datetime

import pytest
from memdesk.core import ManualClock, Store

from .pgserver import PgServer, reset_pg, start_server

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
