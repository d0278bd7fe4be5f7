"""The crash harness: every writing command killed with SIGKILL at moments
taken from its own progress, then checked.

For each command the harness first runs it uninterrupted (the reference),
then once with ``MEMDESK_TRACE_POINTS`` to list the moments it passes
(``core/failpoints.py``: a transaction taken, about to commit, committed; an
ingest's turns, an import's chunks, a batch of vectors, an index file
renamed, a migration step). It then kills a fresh copy of the same store at
chosen moments (``MEMDESK_KILL_AT``) and checks, after each kill:

* no process of the killed command is left (its whole session is gone);
* ``verify`` passes (the audit chain and every row it covers);
* rerunning the command (a clean one-line refusal is fine when the killed run
  had committed) gives exactly the store the uninterrupted run gives: the
  export compared row by row, wall-clock columns aside;
* the recall index answers as exact search does.

The default run kills each command just before its commit and in the middle
of its longest progress; ``MEMDESK_CRASH_LONG=1`` kills it at every
transaction moment and at the first, middle and last of every progress
point (and runs the bulk import with its parser and writer processes).
Commands run through ``tests/crash_driver.py`` (the real command line, the
wall clock fixed so two runs write the same rows).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest
from memdesk import Store, StoreError

from .test_crash_safety import WALL, conversation

ROOT = Path(__file__).resolve().parent.parent
LONG = bool(os.environ.get("MEMDESK_CRASH_LONG"))
FIXTURE_V1 = ROOT / "tests" / "fixtures" / "store_v1.db"
BASE_ENV = {k: v for k, v in os.environ.items()
            if not k.startswith("MEMDESK_") or k == "MEMDESK_CRASH_LONG"}
BASE_ENV["MEMDESK_TURN_EMBEDDER"] = "use"  # the same code path, 30x faster than e5
FIGURES: list[str] = []  # printed when the module ends (``figures``), with -s


def drive(db: Path, *argv: str, env: dict[str, str] | None = None,
          timeout: float = 300) -> subprocess.CompletedProcess:
    """One command line through the driver, in a session of its own."""
    return subprocess.run([sys.executable, "-m", "tests.crash_driver", "--db", str(db), *argv],
                          cwd=ROOT, env={**BASE_ENV, **(env or {})}, capture_output=True,
                          text=True, timeout=timeout, start_new_session=True)


def content(db: Path | str) -> list[dict]:
    """The store's export without the wall-clock columns."""
    out = io.StringIO()
    with Store.open(db) as store:
        store.admin.export(out)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    for line in lines[1:]:
        for column in WALL.get(line["table"], ()):
            line["row"][column] = None
        row = line["row"]
        if line["table"] == "audit_log" and row.get("action") == "store.rechained":
            # the old chain's head commits to its wall-clock columns: two
            # uninterrupted upgrades of one store record different heads
            detail = json.loads(row["detail"])
            detail.pop("legacy_head", None)
            row["detail"] = detail
    return lines[1:]


def left_behind(session: int) -> list[str]:
    """Processes still running in the killed command's session."""
    out = []
    for proc in psutil.process_iter(["pid", "status", "cmdline"]):
        try:
            if os.getsid(proc.pid) == session and proc.info["status"] != psutil.STATUS_ZOMBIE:
                out.append(" ".join(proc.info["cmdline"] or []))
        except (ProcessLookupError, PermissionError, psutil.Error):
            continue
    return out


# --------------------------------------------------------------- templates
@dataclass(frozen=True)
class Command:
    """A writing command and the store it starts from."""

    name: str
    template: str  # which store it runs on (see ``templates``)
    argv: Callable[[Path], list[str]]  # given the folder holding its inputs
    checks_recall: bool = False  # the command touches vectors or the index
    long_only: bool = False


def _first_pending(db: Path) -> str:
    with Store.open(db) as store:
        return str(store.review.list("pending", limit=1)[0].id)


def _first_conflict(db: Path) -> str:
    with Store.open(db) as store:
        return str(store.conflicts.list("open", limit=1)[0].id)


def _a_fact(db: Path) -> str:
    with Store.open(db) as store:
        return str(store.facts.current("user:alice", "allergy")[0].id)


@pytest.fixture(scope="module", autouse=True)
def figures():
    """Print what each command's kills gave, when the module ends (``-s``)."""
    yield
    for line in FIGURES:
        print("crash harness:", line)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    """The files commands read, and the template stores they start from."""
    folder = tmp_path_factory.mktemp("crash")
    all_turns = conversation(folder)
    small = folder / "small.jsonl"
    small.write_text((ROOT / "data" / "demo" / "review.jsonl").read_text(encoding="utf-8"),
                     encoding="utf-8")
    empty = folder / "empty.db"
    with Store.open(empty):
        pass
    demo = folder / "demo.db"
    assert drive(demo, "demo").returncode == 0
    ingested = folder / "ingested.db"  # turns and memories, nothing embedded yet
    shutil.copy(empty, ingested)
    assert drive(ingested, "ingest", str(all_turns)).returncode == 0
    assert drive(demo, "export", "--out", str(folder / "demo.export.jsonl")).returncode == 0
    shutil.copy(FIXTURE_V1, folder / "v1.db")
    (folder / "ids.json").write_text(json.dumps({
        "pending": _first_pending(demo), "conflict": _first_conflict(demo),
        "fact": _a_fact(demo)}))
    if LONG:
        from .test_crash_orphans import big_import

        big_import(folder)
    return folder


def _ids(folder: Path) -> dict[str, str]:
    return json.loads((folder / "ids.json").read_text())


COMMANDS = [
    Command("ingest", "empty", lambda f: ["ingest", str(f / "all.jsonl")]),
    Command("import", "empty", lambda f: ["import", str(f / "small.jsonl")]),
    Command("import-bulk", "empty", lambda f: ["import", str(f / "big.jsonl")], long_only=True),
    Command("review-approve", "demo",
            lambda f: ["review", "approve", _ids(f)["pending"], "--by", "crash"]),
    Command("review-reject", "demo",
            lambda f: ["review", "reject", _ids(f)["pending"], "--by", "crash", "--reason", "no"]),
    Command("conflicts-resolve", "demo",
            lambda f: ["conflicts", "resolve", _ids(f)["conflict"], "--keep", "changed",
                       "--by", "crash"]),
    Command("retract", "demo",
            lambda f: ["retract", _ids(f)["fact"], "--by", "crash", "--reason", "never true"]),
    Command("erase", "demo", lambda f: ["erase", "--subject", "user:tom", "--by", "crash"],
            checks_recall=True),
    Command("reindex", "ingested", lambda f: ["reindex"], checks_recall=True),
    Command("restore", "empty", lambda f: ["restore", str(f / "demo.export.jsonl")]),
    Command("upgrade", "v1", lambda f: ["upgrade"]),
    Command("maintain", "demo", lambda f: ["maintain", "--older-than", "30d", "--by", "crash"],
            checks_recall=True),
]


MID_RUN = {"ingest.turn", "upgrade.step", "restore.table"}
"""Progress whose middle the default run kills too (cheap, and where a
half-done command is most likely to leave something half-written)."""


def kill_points(trace: list[str]) -> list[str]:
    """Where to kill: just before the last commit, and in the middle of the
    longest progress for the commands of ``MID_RUN`` or when there is no
    commit of its own (every transaction moment and the first, middle and
    last of each progress point in the long run)."""
    names: dict[str, list[str]] = {}
    for here in trace:
        names.setdefault(here.split("#")[0], []).append(here)
    commits = names.get("tx.commit", [])
    chosen = [commits[-1]] if commits else []
    progress = {n: p for n, p in names.items() if not n.startswith("tx.")}
    if progress and (LONG or not chosen or any(n in MID_RUN for n in progress)):
        longest = max(progress.values(), key=len)
        chosen.append(longest[len(longest) // 2])
    if LONG:
        for name, points in names.items():
            if name.startswith("tx."):
                chosen.extend(points)
            else:
                chosen.extend({points[0], points[len(points) // 2], points[-1]})
    return list(dict.fromkeys(chosen))


def _recall_consistent(db: Path) -> None:
    from memdesk.recall import Recaller

    with Store.open(db) as store:
        recaller = Recaller(store)
        for over in ("memories", "turns"):
            comparison = recaller.compare("where does she live now", 5, over=over)
            assert comparison.recall == 1.0, (over, comparison.recall)


@pytest.mark.parametrize("command", [c for c in COMMANDS if LONG or not c.long_only],
                         ids=lambda c: c.name)
def test_killed_command_leaves_a_store_a_rerun_completes(command, inputs, tmp_path):
    template = inputs / f"{command.template}.db"
    argv = command.argv(inputs)

    reference = tmp_path / "reference.db"  # uninterrupted, listing the moments it passes
    shutil.copy(template, reference)
    trace_file = tmp_path / "points.txt"
    done = drive(reference, *argv, env={"MEMDESK_TRACE_POINTS": str(trace_file)})
    assert done.returncode == 0, done.stderr
    want = content(reference)
    points = kill_points(trace_file.read_text().split())
    assert points, "the command passed no kill point"

    outcomes = []
    for n, here in enumerate(points):
        db = tmp_path / f"killed{n}.db"
        shutil.copy(template, db)
        for extra in (template.parent / f"{template.name}.recall",):
            if extra.exists():
                shutil.copytree(extra, tmp_path / f"killed{n}.db.recall")
        started = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.crash_driver", "--db", str(db), *argv], cwd=ROOT,
            env={**BASE_ENV, "MEMDESK_KILL_AT": here}, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, start_new_session=True)
        rc = proc.wait(timeout=300)
        assert rc == -9, (here, rc, proc.stderr.read() if proc.stderr else "")
        gone_by = time.monotonic()
        while left_behind(proc.pid) and time.monotonic() - gone_by < 5:
            time.sleep(0.02)
        assert not left_behind(proc.pid), (here, left_behind(proc.pid))
        if command.name == "upgrade":  # rolled back: still the old schema, which only upgrade opens
            with pytest.raises(StoreError, match="older schema"):
                Store.open(db)
        else:
            with Store.open(db) as store:
                assert store.audit.verify().ok, here
        again = drive(db, *argv)
        if again.returncode != 0:  # the killed run had committed: a clean refusal
            lines = again.stderr.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("memdesk: error:"), (here, again.stderr)
            assert "Traceback" not in again.stderr
        assert content(db) == want, here
        with Store.open(db) as store:
            assert store.audit.verify().ok, here
        if command.checks_recall and (LONG or command.name == "reindex"):
            _recall_consistent(db)
        outcomes.append(f"{here}: {'rerun' if again.returncode == 0 else 'refused'} "
                        f"({time.monotonic() - started:.1f} s)")
    FIGURES.append(f"{command.name}: {len(points)} kill points: " + "; ".join(outcomes))


# ------------------------------------------------------ the agent's door
MESSAGES = [{"role": "user", "content": "我叫周敏，住在杭州西湖区", "time": "2026-05-01T10:00:00+08:00"},
            {"role": "assistant", "content": "好的，记住了。", "time": "2026-05-01T10:01:00+08:00"},
            {"role": "user", "content": "这次出游预算两万元", "time": "2026-05-02T10:00:00+08:00"},
            {"role": "user", "content": "I'm allergic to shellfish.",
             "time": "2026-05-02T10:05:00+08:00"}]


def holding(db: Path) -> list[str]:
    """Processes whose command line names the store ``db``."""
    out = []
    for proc in psutil.process_iter(["status", "cmdline"]):
        cmd = " ".join(proc.info["cmdline"] or [])
        if str(db) in cmd and proc.info["status"] != psutil.STATUS_ZOMBIE:
            out.append(cmd)
    return out


async def _remember(db: Path, env: dict[str, str] | None = None) -> bool:
    """One ``remember`` through a fresh ``memdesk mcp`` (stdio); False when the
    server died before answering."""
    import asyncio

    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "tests.crash_driver", "--db", str(db), "mcp"],
        env={**BASE_ENV, **(env or {})}, cwd=str(ROOT))
    try:
        async with Client(params) as client:
            result = await asyncio.wait_for(client.call_tool(
                "remember", {"messages": MESSAGES, "user": "zhou", "session": "zhou-chat"}), 60)
            assert not result.is_error, result.content[0].text
            return True
    except Exception:  # noqa: BLE001 - the server was killed under the call
        return False


async def test_mcp_server_killed_during_remember(tmp_path):
    reference = tmp_path / "reference.db"
    with Store.open(reference):
        pass  # an existing store, as for the killed runs: the same moments to kill at
    trace_file = tmp_path / "points.txt"
    assert await _remember(reference, {"MEMDESK_TRACE_POINTS": str(trace_file)})
    want = content(reference)
    points = kill_points(trace_file.read_text().split())
    outcomes = []
    for n, here in enumerate(points):
        db = tmp_path / f"killed{n}.db"
        with Store.open(db):
            pass
        assert not await _remember(db, {"MEMDESK_KILL_AT": here}), here
        gone_by = time.monotonic()
        while holding(db) and time.monotonic() - gone_by < 5:
            time.sleep(0.02)
        assert not holding(db), here
        with Store.open(db) as store:
            assert store.audit.verify().ok, here
        assert await _remember(db), here  # the agent sends the conversation again
        assert content(db) == want, here
        outcomes.append(here)
    FIGURES.append(f"mcp remember: {len(points)} kill points ({', '.join(outcomes)}): "
                   "each retried to the uninterrupted store")


# ----------------------------------------------------------- PostgreSQL
@pytest.mark.postgres
def test_killed_ingest_on_postgres_holds_no_lock(pg_server, inputs, tmp_path):
    """A client killed inside its transaction leaves no lock: another writer
    gets the store at once, and the rerun completes it."""
    from .pgserver import reset_pg

    url = pg_server.url
    argv = ["ingest", str(inputs / "all.jsonl")]
    reset_pg(url)
    assert subprocess.run([sys.executable, "-m", "tests.crash_driver", "--db", url, *argv],
                          cwd=ROOT, env=BASE_ENV, capture_output=True).returncode == 0
    want = content(url)
    outcomes = []
    for here in ("tx.commit#1", "ingest.turn#150"):
        reset_pg(url)
        proc = subprocess.run([sys.executable, "-m", "tests.crash_driver", "--db", url, *argv],
                              cwd=ROOT, env={**BASE_ENV, "MEMDESK_KILL_AT": here},
                              capture_output=True, start_new_session=True)
        assert proc.returncode == -9, here
        waited = write_lock_free_after(url)
        assert waited < 15, here
        again = subprocess.run([sys.executable, "-m", "tests.crash_driver", "--db", url, *argv],
                               cwd=ROOT, env=BASE_ENV, capture_output=True, text=True)
        assert again.returncode == 0, again.stderr
        assert content(url) == want, here
        outcomes.append(f"{here}: next writer in {waited:.1f} s")
    FIGURES.append("postgres ingest: " + "; ".join(outcomes))



def write_lock_free_after(url: str) -> float:
    """Seconds until this process can take the store's write lock (the
    ``store_meta`` row every write transaction updates first), waiting at
    most 2 s per try; it rolls back, so nothing changes."""
    from memdesk.db import make_engine
    from sqlalchemy import text

    engine = make_engine(url)
    started = time.monotonic()
    try:
        while True:
            try:
                with engine.connect() as conn:
                    conn.execute(text("SET lock_timeout = '2s'"))
                    conn.execute(text("UPDATE store_meta SET last_tx = last_tx WHERE id = 1"))
                    conn.rollback()
                return time.monotonic() - started
            except Exception:  # noqa: BLE001 - still locked: try again
                if time.monotonic() - started > 30:
                    raise
    finally:
        engine.dispose()


def test_trace_times_record_each_point_with_its_instant(tmp_path, monkeypatch):
    """MEMDESK_TRACE_TIMES: ``name#n ns`` per arrival, the instants in order
    (what bench_mcp_auth times a write transaction with)."""
    from memdesk import failpoints

    times = tmp_path / "times"
    monkeypatch.setenv(failpoints.TIMES_ENV, str(times))
    monkeypatch.setattr(failpoints, "_arrivals", failpoints.Counter())
    failpoints.point("tx.begin")
    failpoints.point("tx.committed")
    failpoints.point("tx.begin")
    lines = [line.split() for line in times.read_text(encoding="utf-8").splitlines()]
    assert [mark for mark, _ in lines] == ["tx.begin#1", "tx.committed#1", "tx.begin#2"]
    instants = [int(ns) for _, ns in lines]
    assert instants == sorted(instants)
