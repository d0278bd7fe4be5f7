"""Speed through the agent's door: ``memdesk mcp`` driven by the official SDK
client, against the Python API called directly, in the same run.

The store: N synthetic memories (default 100,000; rows and USE-shaped
vectors as in ``bench_recall``, spread over 997 users with a turn per 100
memories) plus one real person, ``daniel`` (his 255 turns of the English
development conversations, ingested through extraction and the gates, so he
has memories, facts and turns of his own), every memory and turn embedded and
indexed. It is built once and kept in ``--cache`` (default
``$TMPDIR/memdesk-bench-mcp``, outside the repository); each run works on a
copy, so the remembers of one run never reach the next.

Measured, each door the same calls in the same run:

* warm ``recall`` for the one user (``user=daniel``, k 10, with the prompt
  block as the tool returns it), each call a question of the development
  sets never asked before (``questions``), over memories (the tool's
  default) and over turns: p50 / p99;
* ``remember`` of one new message, p50 / p99;

the Python API (a ``Memory(warm=True)`` in this process, as the server
holds) first, then ``memdesk mcp`` started as a subprocess over stdio; the
ratio of the two p50s is the door's overhead. Then **freshness**: how long
after a ``remember`` the new turn is found by ``recall`` over turns (a query
naming the turn's one rare word; recalled again until it is in the top 5):

* (a) in one server (the stdio one);
* (b) across two ``memdesk mcp --transport http`` processes sharing one
  PostgreSQL store (a throwaway server, ``tests/pgserver.py``), each with its
  own index folder: server A remembers, server B recalls. Each takes one
  remember while warming up, as both servers of a team do (a server that has
  remembered embeds what others stored in the background, not in its
  searches: ``Recaller.embed_in_background``). Skipped without PostgreSQL
  binaries (``--no-pg`` skips it too).

    python -m tests.benchmarks.bench_mcp
    python -m tests.benchmarks.bench_mcp --memories 20000 --calls 100 --fresh 10
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import numpy as np
from memdesk import Memory, Store
from memdesk.recall import Recaller, UseEmbedder

from .bench_recall import base_vectors, fill_store, synth
from .eval_recall import ROOT

USER = "daniel"
DEV_EN = ROOT / "tests" / "sets" / "recall_dev" / "en"
CACHE = Path(tempfile.gettempdir()) / "memdesk-bench-mcp"
BUILD = 3  # bump when the cached store's recipe changes


def pct(values: list[float], p: float) -> float:
    return float(np.percentile(values, p)) * 1000


def message(i: int, text: str | None = None) -> list[dict]:
    return [{"role": "user", "content": text or f"Note {i}: I had green tea with Maya at the café",
             "time": f"2026-11-{1 + i // 1440 % 28:02d}T{i // 60 % 24:02d}:{i % 60:02d}:00+00:00"}]


def rare_word(i: int) -> str:
    """A made-up word no turn holds (letters only: the word channel keeps it whole)."""
    letters = ""
    n = i + 26 * 26
    while n:
        n, r = divmod(n, 26)
        letters += "bcdfghjklmnpqrstvwxz"[r % 20] + "aeiou"[r % 5]
    return "zy" + letters


def questions() -> list[str]:
    """Questions of the development sets (English and Chinese, 300), each
    asked once per door: a recall never meets a query it has embedded before
    (the Recaller keeps the last query vectors), so the figures are those of
    new questions."""
    out: list[str] = []
    for name in ("en", "zh"):
        path = ROOT / "tests" / "sets" / "recall_dev" / name / "questions.jsonl"
        out += [json.loads(line)["question"] for line in
                path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return list(dict.fromkeys(out))


def person_file(folder: Path) -> Path:
    """The one user's conversations (daniel's, from the English development set)."""
    path = folder / f"{USER}.jsonl"
    lines = [line for line in (DEV_EN / "conversations.jsonl").read_text(
        encoding="utf-8").splitlines() if line.strip() and json.loads(line)["user"] == USER]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def cached_store(memories: int, cache: Path) -> Path:
    """The benchmark store of ``memories`` synthetic memories and the one
    user, built once into ``cache`` (its index folder beside it)."""
    folder = cache / f"m{memories}-b{BUILD}"
    db = folder / "bench.db"
    if (folder / "DONE").exists():
        return db
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    started = time.perf_counter()
    embedder = UseEmbedder()
    base, texts = base_vectors(embedder)
    fill_store(db, synth(base, memories, seed=1), texts, embedder)
    with Store.open(db) as store:
        store.facts.ingest_file(person_file(folder))
        # the default embedders: USE for memories (fill_store's vectors), e5 for turns
        Recaller(store, index_dir=Path(f"{db}.recall")).reindex()
    (folder / "DONE").write_text(f"{time.perf_counter() - started:.0f} s\n")
    print(f"{memories:,} memories and {USER}'s conversations filled, embedded and indexed in "
          f"{time.perf_counter() - started:.0f} s (kept in {folder})", flush=True)
    return db


def working_copy(db: Path, where: Path) -> Path:
    """A copy of the cached store and its index folder, for one run."""
    copy = where / db.name
    shutil.copyfile(db, copy)
    if Path(f"{db}.recall").is_dir():  # below 10,000 items recall searches exactly: no index files
        shutil.copytree(Path(f"{db}.recall"), Path(f"{copy}.recall"))
    return copy


def recall_calls(calls: int, over: str) -> list[dict[str, Any]]:
    """``calls`` recalls for the one user over memories or turns, each pass
    with questions of its own (at most half the questions each)."""
    qs = questions()
    half = len(qs) // 2
    first = 0 if over == "memories" else half
    return [{"query": qs[first + i], "user": USER, "k": 10, "over": over} for i in range(calls)]


# ------------------------------------------------------------ the two doors
def direct(db: Path, calls: int) -> dict[str, list[float]]:
    store = Store.open(db)
    memory = Memory(store, Recaller(store, index_dir=Path(f"{db}.recall")), warm=True)
    try:
        for over in ("memories", "turns"):
            memory.recall("warm up", user=USER, over=over)
        out: dict[str, list[float]] = {"recall": [], "recall turns": [], "remember": []}
        for name, over in (("recall", "memories"), ("recall turns", "turns")):
            for args in recall_calls(calls, over):
                t = time.perf_counter()
                memory.recall_with_prompt(args["query"], user=USER, k=args["k"], over=over)
                out[name].append(time.perf_counter() - t)
        for i in range(calls):
            t = time.perf_counter()
            memory.remember(message(i), user="bench-direct")
            out["remember"].append(time.perf_counter() - t)
        return out
    finally:
        memory.close()


async def fresh_rounds(remember: Callable[[dict], Awaitable[Any]],
                       recall: Callable[[dict], Awaitable[Any]], n: int,
                       offset: int, give_up: float = 10.0) -> dict[str, list[float]]:
    """``n`` rounds of: remember a message holding a word nobody said, then
    recall over turns for that word until the new turn is in the top 5 (for
    at most ``give_up`` seconds). Per round: the remember's time, the time
    from the remember's return until the turn was found (not for a round
    that gave up), the recalls it took and whether it was found at all."""
    out: dict[str, list[float]] = {"remember": [], "found after": [], "recalls": [],
                                   "found": []}
    for i in range(n):
        word = rare_word(offset + i)
        text = f"The storage unit code is {word}, I keep forgetting it"
        t = time.perf_counter()
        r = await remember({"messages": message(offset + i, text), "user": USER})
        assert not r.is_error, r.content[0].text
        done = time.perf_counter()
        tries, found = 0, False
        while not found and time.perf_counter() - done < give_up:
            tries += 1
            r = await recall({"query": f"storage unit code {word}", "user": USER, "k": 5,
                              "over": "turns"})
            assert not r.is_error, r.content[0].text
            found = any(word in h["text"] for h in json.loads(r.content[0].text)["results"])
        out["remember"].append(done - t)
        if found:
            out["found after"].append(time.perf_counter() - done)
        out["recalls"].append(float(tries))
        out["found"].append(float(found))
    return out


async def through_mcp(db: Path, calls: int, fresh: int) -> dict[str, list[float]]:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "memdesk.app.cli", "--db", str(db), "mcp"],
                                   env={**os.environ, "MEMDESK_INDEX_DIR": f"{db}.recall"})
    out: dict[str, list[float]] = {"recall": [], "recall turns": [], "remember": []}
    async with Client(params) as client:
        for over in ("memories", "turns"):
            await client.call_tool("recall", {"query": "warm up", "user": USER, "over": over})
        for name, over in (("recall", "memories"), ("recall turns", "turns")):
            for args in recall_calls(calls, over):
                t = time.perf_counter()
                r = await client.call_tool("recall", args)
                out[name].append(time.perf_counter() - t)
                assert not r.is_error, r.content[0].text
        for i in range(calls):
            t = time.perf_counter()
            r = await client.call_tool("remember", {"messages": message(calls + i),
                                                    "user": "bench-mcp"})
            out["remember"].append(time.perf_counter() - t)
            assert not r.is_error, r.content[0].text

        def tool(name: str) -> Callable[[dict], Awaitable[Any]]:
            return lambda args: client.call_tool(name, args)
        for key, values in (await fresh_rounds(tool("remember"), tool("recall"), fresh,
                                               10_000)).items():
            out[f"fresh {key}"] = values
    return out


# --------------------------------------------- two HTTP servers, one PostgreSQL
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, seconds: float = 120) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"memdesk mcp exited with {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise RuntimeError(f"memdesk mcp did not listen on {port} within {seconds:.0f} s")


async def across_servers(url: str, secret: str, ports: tuple[int, int],
                         n: int) -> dict[str, list[float]]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with AsyncExitStack() as stack:
        clients = []
        for port in ports:
            http = await stack.enter_async_context(httpx2.AsyncClient(
                headers={"Authorization": f"Bearer {secret}"}, timeout=60))
            clients.append(await stack.enter_async_context(
                Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http))))
        a, b = clients
        for j, client in enumerate(clients):  # warm up: models, vectors, the person's turns
            # both servers of a team take remembers: each has embedded in the
            # background since (``Recaller.embed_in_background``)
            r = await client.call_tool("remember", {"messages": message(
                19_990 + j, f"Warm-up note {j}"), "user": USER})
            assert not r.is_error, r.content[0].text
            for over in ("memories", "turns"):
                r = await client.call_tool("recall", {"query": "warm up", "user": USER,
                                                      "over": over})
                assert not r.is_error, r.content[0].text
        return await fresh_rounds(lambda args: a.call_tool("remember", args),
                                  lambda args: b.call_tool("recall", args), n, 20_000)


def two_servers(where: Path, n: int) -> dict[str, list[float]] | None:
    sys.path.insert(0, str(ROOT))
    from tests.pgserver import start_server

    try:
        pg = start_server()
    except RuntimeError as exc:
        print(f"(b) skipped: no PostgreSQL server ({exc})")
        return None
    procs: list[subprocess.Popen] = []
    try:
        with Store.open(pg.url) as store:
            store.facts.ingest_file(person_file(where))
            _, secret = store.admin.create_token("bench", users=[USER], by="bench")
            Recaller(store, index_dir=where / "seed-index").reindex()  # the turns' vectors
        ports = (free_port(), free_port())
        for name, port in zip("AB", ports, strict=True):
            env = {**os.environ, "MEMDESK_INDEX_DIR": str(where / f"index-{name}")}
            log = (where / f"server-{name}.log").open("w")
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "memdesk.app.cli", "--db", pg.url, "mcp", "--transport",
                 "http", "--port", str(port), "--rate", "1000/second", "--session-rate",
                 "100/minute"], env=env, stdout=log, stderr=subprocess.STDOUT))
        for port, proc in zip(ports, procs, strict=True):
            wait_for_port(port, proc)
        return asyncio.run(across_servers(pg.url, secret, ports, n))
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
        pg.stop()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--memories", type=int, default=100_000)
    ap.add_argument("--calls", type=int, default=140, help="recalls per kind, and remembers")
    ap.add_argument("--fresh", type=int, default=20, help="remember→recall rounds per setting")
    ap.add_argument("--cache", type=Path, default=CACHE,
                    help=f"where the built store is kept between runs (default {CACHE})")
    ap.add_argument("--no-pg", action="store_true", help="skip (b), the two HTTP servers")
    args = ap.parse_args(argv)
    if args.calls > len(questions()) // 2:
        ap.error(f"--calls at most {len(questions()) // 2}: every recall asks a question of "
                 "its own")
    db = cached_store(args.memories, args.cache)
    with tempfile.TemporaryDirectory() as tmp:
        work = working_copy(db, Path(tmp))
        print(f"{args.memories:,} memories, one user ({USER}); load average "
              f"{os.getloadavg()[0]:.1f}", flush=True)
        api = direct(work, args.calls)
        door = asyncio.run(through_mcp(work, args.calls, args.fresh))
        shared = None if args.no_pg else two_servers(Path(tmp), args.fresh)
    print(f"{'call':<13} {'Python API p50 / p99':>22} {'MCP (stdio) p50 / p99':>24} {'ratio p50':>10}")
    for name in ("recall", "recall turns", "remember"):
        a, m = api[name], door[name]
        print(f"{name:<13} {pct(a, 50):9.2f} / {pct(a, 99):7.2f} ms {pct(m, 50):10.2f} / "
              f"{pct(m, 99):7.2f} ms {pct(m, 50) / pct(a, 50):9.2f}x")
    print("freshness: remember, then recall over turns until the new turn is in the top 5")
    rows = [("(a) one server (stdio)", {k[6:]: v for k, v in door.items() if k.startswith("fresh ")})]
    if shared is not None:
        rows.append(("(b) A remembers, B recalls (http, PostgreSQL)", shared))
    for label, got in rows:
        firsts = sum(t == 1 and f for t, f in zip(got["recalls"], got["found"], strict=True))
        after = got["found after"] or [float("nan")]
        print(f"{label}: remember p50 {pct(got['remember'], 50):.1f} ms; the new turn in the "
              f"top 5 on the first recall after it returned in {firsts} of {len(got['found'])} "
              f"rounds; found {pct(after, 50):.1f} ms (p50) / {pct(after, 100):.1f} ms (max) "
              f"after it returned; never found within 10 s: "
              f"{sum(not f for f in got['found']):.0f}")
    print(f"(load average {os.getloadavg()[0]:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
