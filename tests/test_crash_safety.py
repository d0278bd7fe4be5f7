"""Crash safety: ``memdesk ingest`` killed with SIGKILL at random points
(fixed seed) leaves either nothing or everything — never part of a file — and
a rerun gives the store an uninterrupted run gives; a recall index build
killed at each of its steps leaves an index that is either intact or
detected as damaged and rebuilt, and its temporary files are cleaned up; a
process killed while creating a new store leaves no half schema behind."""

from __future__ import annotations

import io
import json
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from memdesk import Store
from memdesk.recall import Recaller, annoy_index

from .recall_fixtures import HashEmbedder, topic_texts, write_turns
from .test_recall_index import SMALL

ROOT = Path(__file__).resolve().parent.parent
CONV = ROOT / "data" / "conversations"
KILLS = 8
SEED = 6  # kill points at 0.1-1.05 of an uninterrupted run: 0.85, 0.88, 0.56, 0.35, 0.1, …
SEED_PG = 9  # two mid-run points, 0.54 and 0.45
# wall-clock and recorded-time columns: when the rows were written, not what they
# say (docs/DESIGN.md §2.1), and the chain hashes that commit to them (the chain
# itself is checked with verify instead)
WALL = {"turn": ("imported_at", "recorded_at"), "audit_log": ("wall_at", "hash", "at"),
        "store_meta": ("created_at", "audit_head", "last_tx"),
        "claim": ("created_at", "decided_at"), "fact": ("recorded_at", "retired_at"),
        "predicate_use": ("first_seen_at",), "conflict": ("resolved_at",)}


def conversation(tmp_path: Path) -> Path:
    """All demo conversations in one file (one ingest = one transaction)."""
    path = tmp_path / "all.jsonl"
    path.write_text("".join(p.read_text(encoding="utf-8") for p in sorted(CONV.glob("*.jsonl"))),
                    encoding="utf-8")
    return path


def content(url: str) -> list[dict]:
    """The store's export without the wall-clock columns."""
    out = io.StringIO()
    with Store.open(url) as store:
        store.admin.export(out)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    for line in lines[1:]:
        for column in WALL.get(line["table"], ()):
            line["row"][column] = None
    return lines


def _ingest(url: str, path: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMDESK_")}
    return subprocess.Popen([sys.executable, "-m", "memdesk.app.cli", "--db", url, "ingest", str(path)],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)


def _fresh(url: str, tmp_path: Path, n: int) -> str:
    if "://" in url:
        from .pgserver import reset_pg

        reset_pg(url)
        return url
    return str(tmp_path / f"run{n}.db")


@pytest.mark.parametrize("kills", [pytest.param(KILLS, id="sqlite"),
                                   pytest.param(2, id="postgres", marks=pytest.mark.postgres)])
def test_ingest_killed_at_random_points(tmp_path, request, kills):
    url = (request.getfixturevalue("pg_server").url if request.node.callspec.id == "postgres"
           else str(tmp_path / "x.db"))
    path = conversation(tmp_path)
    ref_url = str(tmp_path / "reference.db")
    started = time.perf_counter()
    proc = _ingest(ref_url, path)
    assert proc.wait(timeout=120) == 0, proc.stderr.read()
    full = time.perf_counter() - started  # interpreter start, store open, ingest, commit
    want = content(ref_url)
    turns = sum(1 for line in want if line.get("table") == "turn")
    assert turns == sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line)

    rng = random.Random(SEED if kills == KILLS else SEED_PG)
    outcomes = []
    for n in range(kills):
        target = _fresh(url, tmp_path, n)
        proc = _ingest(target, path)
        time.sleep(rng.uniform(0.1, 1.05) * full)
        proc.send_signal(signal.SIGKILL)
        rc = proc.wait(timeout=60)
        outcomes.append("finished" if rc == 0 else "killed")
        # nothing or everything: never part of the file
        with Store.open(target) as store:
            kept = store.admin.export(io.StringIO())
        assert kept["turn"] in (0, turns), (n, kept)
        if kept["turn"] == 0:
            assert kept.total == 1  # only the meta row of a new store
        else:
            assert content(target) == want
        # the rerun completes the store
        with Store.open(target) as store:
            store.facts.ingest_file(path)
        assert content(target) == want, n
        with Store.open(target) as store:
            assert store.audit.verify().ok, n  # and its audit chain is whole
    assert "killed" in outcomes


# ------------------------------------------------------------------ the index
def _build_and_die(folder: str, db: str, step: int) -> None:
    """Rebuild the index, dying (like a SIGKILL: no cleanup) at rename ``step``."""
    calls = 0
    real = os.replace

    def dying_replace(src, dst):
        nonlocal calls
        if calls == step:
            os._exit(9)
        calls += 1
        real(src, dst)

    annoy_index.os.replace = dying_replace
    with Store.open(db) as store:
        r = Recaller(store, embedder=HashEmbedder(), index_dir=Path(folder), index=SMALL)
        r.reindex(over="turns")
    os._exit(0)


@pytest.mark.parametrize("step", range(5), ids=[f"rename{i}" for i in range(5)])
def test_index_build_killed_between_renames(tmp_path, step):
    db = tmp_path / "m.db"
    with Store.open(db) as store:
        store.facts.ingest_file(write_turns(tmp_path / "c.jsonl", topic_texts(30)))
        folder = tmp_path / "idx"
        r = Recaller(store, embedder=HashEmbedder(), index_dir=folder, index=SMALL)
        r.search("board games", over="turns", k=5)  # builds the index of 30 turns
        # three more turns (searched in the tail): the killed build differs from the old one
        store.facts.ingest_file(write_turns(tmp_path / "c2.jsonl", topic_texts(3, 100), session="s2",
                                      day=2))
        expected = [h.key for h in r.search("board games", over="turns", k=5)]
        manifest_before = next(folder.glob("turn-*.json")).read_text()

        child = multiprocessing.get_context("fork").Process(
            target=_build_and_die, args=(str(folder), str(db), step))
        child.start()
        child.join(timeout=60)
        assert child.exitcode == 9
        leftovers = list(folder.glob("*.tmp-*"))
        assert leftovers  # the killed build could not clean up
        # steps 0-3 rename the parts, step 4 the manifest: the manifest is still the old one
        assert next(folder.glob("turn-*.json")).read_text() == manifest_before

        messages: list[str] = []
        r2 = Recaller(store, embedder=HashEmbedder(), index_dir=folder, index=SMALL,
                      on_message=messages.append)
        assert [h.key for h in r2.search("board games", over="turns", k=5)] == expected
        if step == 0:  # nothing renamed yet: the old index is intact and used as is
            assert messages == []
            r2.reindex(over="turns")
        else:
            assert len(messages) == 1 and "rebuilding it from the stored vectors" in messages[0]
        # the next build removed the dead build's temporary files
        assert list(folder.glob("*.tmp-*")) == []


def _create_and_die(db: str) -> None:
    """Create a new store, dying (no cleanup) once the store_meta table exists."""
    from memdesk.db.tables import META
    from sqlalchemy import event

    event.listen(META, "after_create", lambda *a, **k: os._exit(9))
    Store.open(db)
    os._exit(0)


def test_store_creation_killed_halfway(store_url):
    target = store_url  # a new SQLite file, or an empty PostgreSQL database
    child = multiprocessing.get_context("fork").Process(target=_create_and_die, args=(target,))
    child.start()
    child.join(timeout=60)
    assert child.exitcode == 9
    with Store.open(target) as store:  # no half schema was left behind
        assert store.review.count() == 0
        assert store.admin.export(io.StringIO())["store_meta"] == 1
