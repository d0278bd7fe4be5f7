"""No helper process outlives a killed memdesk.

A bulk import forks a parsing process and (on SQLite) starts a writer
process. Killing the importing process with SIGKILL mid-import once left the
parser behind, asleep forever, holding the store file open. Here the main
process is killed while both helpers are at work: every helper must be gone
within two seconds, and another writer must get the store at once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from memdesk import Store
from memdesk.parallel_parse import PARALLEL_MIN_BYTES

from .benchmarks.bench_store import write_dataset

ROOT = Path(__file__).resolve().parent.parent
GONE_WITHIN_S = 2.0


def big_import(folder: Path) -> Path:
    """An import file big enough for the parsing process (and the writer)."""
    path = folder / "big.jsonl"
    subjects = 4000
    while True:
        write_dataset(path, subjects)
        if path.stat().st_size >= PARALLEL_MIN_BYTES * 1.3:
            return path
        subjects *= 2


def small_import(folder: Path) -> Path:
    path = folder / "small.jsonl"
    write_dataset(path, 3, seed=11)
    return path


def memdesk(*args: str) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMDESK_")}
    return subprocess.Popen([sys.executable, "-m", "memdesk.app.cli", *args], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def helpers(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def alive(process: psutil.Process) -> bool:
    """Running, or asleep: not gone and not a zombie (a zombie holds nothing open)."""
    try:
        return process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def wait_for_helpers(proc: subprocess.Popen, want: int, timeout: float = 60.0) -> list[psutil.Process]:
    """The import's helpers once ``want`` of them run (the parser, the writer)."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        found = helpers(proc.pid)
        if len(found) >= want:
            return found
        assert proc.poll() is None, "the import ended before its helpers were seen"
        time.sleep(0.02)
    raise AssertionError(f"{want} helper processes did not start")


def kill_mid_import(url: str, path: Path, want: int) -> tuple[list[psutil.Process], float]:
    """Start ``memdesk import``, SIGKILL it while its helpers work; returns the
    helpers and how long the last of them took to go (seconds)."""
    proc = memdesk("--db", url, "import", str(path))
    found = wait_for_helpers(proc, want)
    time.sleep(0.3)  # well inside the import: the parser is sending chunks
    assert proc.poll() is None, "the import finished before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    killed = time.monotonic()
    while any(alive(p) for p in found) and time.monotonic() - killed < 10:
        time.sleep(0.01)
    gone = time.monotonic() - killed
    return found, gone


def writes_at_once(url: str, folder: Path) -> float:
    """Seconds another process needs to import a small file (the lock is free)."""
    start = time.monotonic()
    proc = memdesk("--db", url, "import", str(small_import(folder)))
    assert proc.wait(timeout=60) == 0, proc.stderr.read() if proc.stderr else ""
    return time.monotonic() - start


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> Path:
    return big_import(tmp_path_factory.mktemp("orphans"))


def test_killed_import_on_sqlite_leaves_no_helper_and_no_lock(big, tmp_path):
    url = str(tmp_path / "killed.db")
    with Store.open(url):
        pass  # an existing store: the kill lands in the import, not in its creation
    found, gone = kill_mid_import(url, big, want=2)  # the parser and the writer
    assert len(found) == 2
    assert not [p.pid for p in found if alive(p)], f"left behind after {gone:.1f} s"
    assert gone < GONE_WITHIN_S
    assert writes_at_once(url, tmp_path) < 30  # nobody holds the write lock
    with Store.open(url) as store:
        assert store.audit.verify().ok
        counts = store.admin.export(open(os.devnull, "w"))  # noqa: SIM115
        assert counts["fact"] < 100  # the killed import left nothing: the small one is there


@pytest.mark.postgres
def test_killed_import_on_postgres_leaves_no_helper_and_no_lock(big, tmp_path, pg_server):
    from .pgserver import reset_pg

    reset_pg(pg_server.url)
    with Store.open(pg_server.url):
        pass
    found, gone = kill_mid_import(pg_server.url, big, want=1)  # the parser; no writer process
    assert not [p.pid for p in found if alive(p)]
    assert gone < GONE_WITHIN_S
    assert writes_at_once(pg_server.url, tmp_path) < 30  # the killed client's lock is gone
    with Store.open(pg_server.url) as store:
        assert store.audit.verify().ok
