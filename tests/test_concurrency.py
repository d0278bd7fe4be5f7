"""Concurrency with real separate processes, on both backends: two reviewers
deciding the same candidates at the same moment (a barrier lines them up) →
exactly one decision takes effect per candidate and the other reviewer gets
"not pending … by NAME"; two ``memdesk ingest`` processes on the same (new)
store with overlapping files → every turn and fact once, as after running
them one after the other."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

from memdesk import AlreadyDecided, Store
from memdesk.db.tables import AUDIT, CLAIM, CONFLICT, FACT, MEMORY, TURN
from sqlalchemy import select

from .helpers import pending_lines

ROOT = Path(__file__).resolve().parent.parent
CONV = ROOT / "data" / "conversations"
ROUNDS = 12

_CTX = multiprocessing.get_context("fork")  # children start in milliseconds


def _reviewer(url: str, name: str, ids: list[int], barrier, results) -> None:
    with Store.open(url) as store:
        for cid in ids:
            barrier.wait(timeout=60)
            try:
                if name == "ann":
                    store.review.approve(cid, by=name)
                else:
                    store.review.reject(cid, by=name, reason="not so sure")
                results.put((name, cid, "ok", ""))
            except AlreadyDecided as exc:
                results.put((name, cid, "already", str(exc)))
            except Exception as exc:  # noqa: BLE001 - reported to the test
                results.put((name, cid, "error", f"{type(exc).__name__}: {exc}"))


def test_two_reviewers_race_for_the_same_candidates(store_url, tmp_path):
    path = tmp_path / "pending.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in pending_lines(ROUNDS)) + "\n")
    with Store.open(store_url) as store:
        store.facts.import_file(path)
        ids = [c.id for c in store.review.list()]
    assert len(ids) == ROUNDS
    barrier, results = _CTX.Barrier(2), _CTX.Queue()
    procs = [_CTX.Process(target=_reviewer, args=(store_url, name, ids, barrier, results))
             for name in ("ann", "bob")]
    for p in procs:
        p.start()
    outcomes = [results.get(timeout=120) for _ in range(2 * ROUNDS)]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert [o for o in outcomes if o[2] == "error"] == []
    by_candidate: dict[int, list] = {}
    for name, cid, kind, msg in outcomes:
        by_candidate.setdefault(cid, []).append((name, kind, msg))
    with Store.open(store_url) as store, store.engine.connect() as conn:
        for cid, tries in by_candidate.items():
            won = [n for n, kind, _ in tries if kind == "ok"]
            lost = [(n, m) for n, kind, m in tries if kind == "already"]
            assert len(won) == 1 and len(lost) == 1, tries
            cand = store.review.get(cid)
            assert cand.decided_by == won[0]
            assert cand.state == ("approved" if won[0] == "ann" else "rejected")
            assert f"not pending: it is {cand.state} by {won[0]}" in lost[0][1]
            decisions = conn.execute(select(AUDIT.c.action).where(
                AUDIT.c.claim_from == cid, AUDIT.c.action.in_(
                    ["claim.approved", "claim.rejected"]))).all()
            assert len(decisions) == 1
            facts = conn.execute(select(FACT.c.id).where(FACT.c.claim_id == cid)).all()
            assert len(facts) == (1 if won[0] == "ann" else 0)
        assert store.review.count() == 0
    # both reviewers won some races: the barrier really made them collide
    winners = Counter(won for cid in by_candidate
                      for won, kind, _ in by_candidate[cid] if kind == "ok")
    assert sum(winners.values()) == ROUNDS


def _memdesk(*args: str) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMDESK_")}
    return subprocess.Popen([sys.executable, "-m", "memdesk.app.cli", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_cli_reviewers_loser_gets_a_clear_message(tmp_path):
    # one backend is enough here: the race itself is tested on both above
    store_url = str(tmp_path / "cli.db")
    path = tmp_path / "pending.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in pending_lines(1)) + "\n")
    with Store.open(store_url) as store:
        store.facts.import_file(path)
        cid = store.review.list()[0].id
    procs = [_memdesk("--db", store_url, "review", "approve", str(cid), "--by", "ann"),
             _memdesk("--db", store_url, "review", "reject", str(cid), "--by", "bob",
                      "--reason", "no")]
    done = [(p.wait(timeout=120), *p.communicate()) for p in procs]
    codes = sorted(rc for rc, _, _ in done)
    assert codes == [0, 1], done
    loser = next(err for rc, _, err in done if rc == 1)
    assert "is not pending" in loser and "Traceback" not in loser


def _content(url: str) -> dict[str, Counter]:
    """The store's content without ids and transaction times (which depend on
    which process committed first)."""
    with Store.open(url) as store, store.engine.connect() as conn:
        turns = {tid: (s, t) for tid, s, t in conn.execute(
            select(TURN.c.id, TURN.c.session, TURN.c.turn))}
        return {
            "turns": Counter(conn.execute(select(TURN.c.session, TURN.c.turn, TURN.c.speaker,
                                                 TURN.c.text, TURN.c.time)).all()),
            "claims": Counter((turns[r[0]], *r[1:]) for r in conn.execute(
                select(CLAIM.c.turn_id, CLAIM.c.claim_key, CLAIM.c.subject, CLAIM.c.object,
                       CLAIM.c.state))),
            "facts": Counter(conn.execute(select(
                FACT.c.subject, FACT.c.predicate, FACT.c.object, FACT.c.valid_from,
                FACT.c.valid_to, FACT.c.retired_at.is_(None), FACT.c.retire_reason)).all()),
            "memories": Counter(conn.execute(select(MEMORY.c.subject, MEMORY.c.text,
                                                    MEMORY.c.mentions)).all()),
            "conflicts": Counter(conn.execute(select(CONFLICT.c.subject, CONFLICT.c.predicate,
                                                     CONFLICT.c.state)).all()),
        }


def test_two_ingests_with_overlapping_files(store_url, tmp_path):
    names = ["alice-reno", "carol-home", "liwei-life"]
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    texts = {n: (CONV / f"{n}.jsonl").read_text(encoding="utf-8") for n in names}
    a.write_text(texts[names[0]] + texts[names[1]], encoding="utf-8")
    b.write_text(texts[names[1]] + texts[names[2]], encoding="utf-8")
    # both start on a store that does not exist yet
    procs = [_memdesk("--db", store_url, "ingest", str(f), "--json") for f in (a, b)]
    done = [(p.wait(timeout=180), *p.communicate()) for p in procs]
    assert [rc for rc, _, _ in done] == [0, 0], done
    reference = str(tmp_path / "reference.db")
    with Store.open(reference) as store:
        store.facts.ingest_file(a)
        store.facts.ingest_file(b)
    got, want = _content(store_url), _content(reference)
    assert sum(got["turns"].values()) == sum(len(t.splitlines()) for t in texts.values())
    for part in want:
        assert got[part] == want[part], part
    assert max(got["turns"].values()) == 1 and max(got["claims"].values()) == 1


def _opener(url: str, barrier, results) -> None:
    barrier.wait(timeout=60)
    try:
        with Store.open(url) as store:
            results.put(store.review.count())
    except Exception as exc:  # noqa: BLE001 - reported to the test
        results.put(f"{type(exc).__name__}: {exc}")


def test_processes_creating_a_new_store_at_once(store_url):
    for _ in range(3):
        if "://" in store_url:
            from .pgserver import reset_pg

            reset_pg(store_url)
        else:
            for leftover in Path(store_url).parent.glob(Path(store_url).name + "*"):
                leftover.unlink()
        barrier, results = _CTX.Barrier(4), _CTX.Queue()
        procs = [_CTX.Process(target=_opener, args=(store_url, barrier, results)) for _ in range(4)]
        for p in procs:
            p.start()
        got = [results.get(timeout=60) for _ in procs]
        for p in procs:
            p.join(timeout=60)
        assert got == [0, 0, 0, 0]
