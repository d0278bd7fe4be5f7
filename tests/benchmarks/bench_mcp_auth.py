"""The HTTP door under attack (issues 19 and 29): what it refuses, and what it costs.

Four parts, in one run:

* **Attacks.** A real ``memdesk mcp --transport http`` process over a store
  holding alice's and bob's conversations (``tests/door_attacks.py``), sent
  the attacks of ``tests/test_mcp_auth.py``: no token or a wrong one, a
  revoked token, alice's token asking for bob (by argument, subject string,
  conversation session, MCP session id), a read-only token writing, oversized
  and malformed requests, malformed tool arguments; then floods against a
  second server with the default rate limits. For each: requests tried,
  refused and how, rows written to memory tables (``counts`` before and after,
  ``access.refused`` audit entries aside), refusal audit entries added, and
  whether the server still served a good call afterwards.
* **Limits that cannot be sidestepped** (issue 29): one token spelled 64 ways,
  an ``initialize`` spelled with a JSON escape, a rotating ``X-Forwarded-For``
  against a server with per-minute limits; slow headers, slow bodies and
  connections past the caps against the defaults; calls whose client leaves
  while they wait on the write lock.
* **Stopping.** SIGTERM to a server with a client's event stream open: idle,
  with a call waiting on the write lock, with a long ``remember`` running.
  Seconds from the signal to the process gone, rows written, ``verify``.
* **Latency added by the guard and the token check.** One process, one
  ``Memory`` over a seeded store, three uvicorn servers in threads: the bare
  MCP app (no guard, uvicorn's own protocol, no token check), the same app
  behind the guard (``Guard`` and the guarded h11 protocol, no token check),
  and the real door (``http_app``: guard, token check, per-token limits). The
  same ``facts`` and ``recall`` calls over one SDK client connection to each,
  the servers alternated in rounds; p50 / p95, and the ratios. Then
  ``store.admin.token_for_secret`` alone: a good, a wrong and a malformed secret.

    python -m tests.benchmarks.bench_mcp_auth
    python -m tests.benchmarks.bench_mcp_auth --quick
    python -m tests.benchmarks.bench_mcp_auth --calls 1000 --keep /tmp/door
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import secrets
import socket
import sys
import tempfile
import threading
import time
import warnings
from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import numpy as np
from memdesk.app.http_guard import (
    DEFAULT_ADDRESS_CONNECTIONS,
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_HEADER_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_SESSION_RATE,
    DEFAULT_STOP_TIMEOUT,
    DEFAULT_TOKEN_RATE,
)

from tests import door_attacks as attack
from tests.door_attacks import BOB_WORDS, Door
from tests.test_mcp_auth import (
    BY_ARGUMENT,
    BY_SESSION,
    BY_SUBJECT,
    GENEROUS,
    MALFORMED_NAMES,
    TIGHT,
    refusals,
    written,
)

HEADER = """\
What is measured, and how to read it
  attacks : each row is one kind of attack on a real `memdesk mcp --transport http`.
            tried = requests (HTTP) or tool calls sent; refused = how many were turned
            down (4xx, a closed connection, or an MCP tool error); rows = rows added to
            memory tables (turn, claim, fact, memory, conflict, recall_vector,
            access_token) and audit entries other than access.refused: must be "-";
            audits = access.refused entries added; serves = a good call (alice, facts)
            still answered afterwards. Rows marked (control) are NOT attacks: they must
            be served. Floods run against a second server with the default limits
            (30/s per token, 120/s per address, 10 new sessions a minute per token).
            Rows marked "max N" may serve at most N: the rest must be refused (429).
            Issue 29's limits run against a server with per-minute limits (20/minute
            per token, 150/minute per address, 5 new sessions a minute), each case
            from a loopback address of its own; slow clients against the defaults.
  stopping: seconds from SIGTERM to the process gone (the promise: the stop timeout,
            4 s by default), rows written by the call in flight, `verify` after.
  latency : the same tool calls through the bare MCP app (no guard, no token check),
            through it behind the guard (no token check), and through the real door
            (guard + bearer token checked against the store + per-token limits), in
            one process, servers alternated in rounds; the ratios of the p50s are what
            the guard and the token check add per call.
"""

MALFORMED_ARGUMENTS = [*attack.MALFORMED_ARGUMENTS, *MALFORMED_NAMES]
READ_ONLY_WRITES: list[tuple[str, dict[str, Any]]] = [
    ("remember", {"messages": [{"role": "user", "content": "I live in York"}]}),
    ("propose_fact", {"predicate": "lives_in", "object": "York", "session": "alice-chat",
                      "turn": 1}),
]


def fresh(where: Path, name: str) -> Path:
    """A store path in ``where`` with no store left there by an earlier run
    (``--keep``): ``seed`` must start empty, its revoked token is token 4."""
    db = where / name
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    return db


# ------------------------------------------------------------------ attacks
@dataclass
class Tally:
    """What one attack got back."""

    tried: int = 0
    refused: int = 0
    how: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)
    allowed: int | None = None  # a flood with a good token: at most this many may be served

    def status(self, code: int | str, refused: bool | None = None) -> None:
        self.tried += 1
        self.how[str(code)] += 1
        if refused is None:  # a 4xx, or the connection closed on it
            refused = code == "closed" or (isinstance(code, int) and 400 <= code < 500)
        if refused:
            self.refused += 1

    def answers(self, batch: Sequence[tuple[str, dict[str, Any]]],
                got: Sequence[attack.Answer], expect: str | None = None) -> None:
        for (tool, _args), a in zip(batch, got, strict=True):
            self.tried += 1
            if a.error:
                self.refused += 1
                said = "refused:" if "refused:" in a.text else "other"
                self.how[f"tool error ({said})"] += 1
                if expect is not None and expect not in a.text:
                    self.notes.append(f"{tool}: error without {expect!r}: {a.text[:80]}")
            else:
                self.how["served"] += 1
            if any(w in a.text for w in BOB_WORDS[:3]):
                self.notes.append(f"{tool}: LEAKED bob's words: {a.text[:80]}")
            if "Traceback" in a.text:
                self.notes.append(f"{tool}: a traceback in the answer")


@dataclass
class Row:
    case: str
    tally: Tally
    rows: dict[str, int]
    audits: int
    serves: bool
    control: bool = False


def serves(door: Door, pause: float = 0.0, token: str = "alice",
           source: str | None = None) -> bool:
    """Whether the door still answers alice's ``facts`` as hers (asked with
    ``token``, one of alice's, from the loopback address ``source``)."""
    time.sleep(pause)
    try:
        got = asyncio.run(attack.call(door, door.secrets[token], "facts", {}, source=source))
    except Exception:  # noqa: BLE001 - not serving is the figure
        return False
    return door.alive and not got.error and (got.data or {}).get("subject") == "user:alice"


def run_case(door: Door, name: str, fn: Callable[[Door], Tally], *, control: bool = False,
             pause: float = 0.0, token: str = "alice", source: str | None = None) -> Row:
    before = attack.counts(door.db)
    tally = fn(door)
    after = attack.counts(door.db)
    return Row(name, tally, written(before, after), refusals(before, after),
               serves(door, pause, token, source), control)


def post_status(door: Door, body: Any, headers: dict[str, str] | None = None,
                secret: str | None = None) -> int | str:
    try:
        return attack.post(door, body, headers=headers, secret=secret).status_code
    except httpx2.TransportError:
        return "closed"


def no_or_wrong_token(door: Door) -> Tally:
    t = Tally()
    facts = attack.rpc("tools/call", {"name": "facts", "arguments": {}})
    for secret in attack.wrong_secrets():
        for body in (attack.INITIALIZE, facts):
            t.status(post_status(door, body, secret=secret))
    for header in ("Basic YWxpY2U6c2VjcmV0", "Bearer", "bearer  " + door.secrets["alice"] + "x",
                   door.secrets["alice"]):
        t.status(post_status(door, attack.INITIALIZE, headers={"authorization": header}))
    for method in ("GET", "DELETE"):
        t.status(httpx2.request(method, door.url, headers={"accept": "text/event-stream"},
                                timeout=30).status_code)
    try:  # the SDK's client with a wrong token: cannot connect
        asyncio.run(attack.call(door, "mdk_" + "B" * 43, "facts", {}))
        t.status("client connected", refused=False)
    except Exception:  # noqa: BLE001 - refused
        t.status("client error", refused=True)
    return t


def revoked_token(door: Door) -> Tally:
    t = Tally()
    facts = attack.rpc("tools/call", {"name": "facts", "arguments": {}})
    for body in (attack.INITIALIZE, facts, attack.INITIALIZE):
        t.status(post_status(door, body, secret=door.secrets["revoked"]))
    return t


def alice_asks(batch: Sequence[tuple[str, Any]]) -> Callable[[Door], Tally]:
    def run(door: Door) -> Tally:
        t = Tally()
        t.answers(batch, asyncio.run(attack.calls(door, door.secrets["alice"], batch)),
                  expect="token 1 (alice)")
        return t
    return run


def bobs_mcp_session(door: Door) -> Tally:
    t = Tally()
    sid = attack.open_session(door, door.secrets["bob"])
    headers = {"mcp-session-id": sid, "mcp-protocol-version": attack.PROTOCOL}
    for body in (attack.rpc("tools/list", ident=2),
                 attack.rpc("tools/call", {"name": "facts", "arguments": {}}, ident=3),
                 attack.rpc("tools/call", {"name": "recall", "arguments": {
                     "query": "allergy", "user": "bob"}}, ident=4)):
        for secret in (door.secrets["alice"], door.secrets["alice_ro"], None):
            t.status(post_status(door, body, headers=headers, secret=secret))
    own = post_status(door, attack.rpc("tools/list", ident=5), headers=headers,
                      secret=door.secrets["bob"])
    if own != 200:
        t.notes.append(f"bob's own session answered {own}, not 200")
    return t


def read_only_writes(door: Door) -> Tally:
    t = Tally()
    t.answers(READ_ONLY_WRITES, asyncio.run(attack.calls(door, door.secrets["alice_ro"],
                                                         READ_ONLY_WRITES)), expect="read-only")
    return t


def read_only_reads(door: Door) -> Tally:
    batch = [("recall", {"query": "where do I live"}), ("facts", {})]
    t = Tally()
    t.answers(batch, asyncio.run(attack.calls(door, door.secrets["alice_ro"], batch)))
    return t


def oversized(door: Door) -> Tally:
    t = Tally()
    good = door.secrets["alice"]
    huge = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "remember", "arguments": {"messages": [
            {"role": "user", "content": "x" * (2 << 20)}]}}}).encode()
    t.status(post_status(door, huge, secret=good))

    def chunks():  # no Content-Length: cut off past the limit
        for _ in range(40):
            yield b"[" * 65536
    t.status(post_status(door, chunks(), secret=good))
    t.status(post_status(door, attack.INITIALIZE, headers={"x-padding": "a" * 200_000},
                         secret=good))  # past the HTTP parser's limit: 431 or closed
    return t


def malformed_requests(door: Door) -> Tally:
    t = Tally()
    for body, headers in attack.MALFORMED_REQUESTS:
        t.status(post_status(door, body, headers=headers, secret=door.secrets["alice"]))
    return t


def malformed_arguments(door: Door) -> Tally:
    t = Tally()
    t.answers(MALFORMED_ARGUMENTS, asyncio.run(attack.calls(door, door.secrets["alice"],
                                                            MALFORMED_ARGUMENTS)))
    return t


@dataclass
class FloodFigures:
    case: str
    flood: attack.Flood
    allowed: int  # the most the limits let through


async def flood_session(door: Door, secret: str, n: int, method: str, sid: str,
                        concurrency: int = 8) -> attack.Flood:
    """``attack.flood`` inside an open MCP session (real calls, not 400s), each
    request with its own JSON-RPC id (in flight with the same id, all but one
    are left unanswered by the SDK: a client's own mistake, not measured here)."""
    headers = {**attack.JSON_HEADERS, "authorization": f"Bearer {secret}",
               "mcp-session-id": sid, "mcp-protocol-version": attack.PROTOCOL}
    statuses: Counter[int] = Counter()
    queue = list(range(n))
    start_at = time.perf_counter()

    async def worker(http: httpx2.AsyncClient) -> None:
        while queue:
            body = attack.rpc(method, ident=1000 + queue.pop())
            try:
                statuses[(await http.post(door.url, content=body, headers=headers)).status_code] += 1
            except httpx2.TransportError:
                statuses[0] += 1

    async with httpx2.AsyncClient(timeout=10,
                                  limits=httpx2.Limits(max_connections=concurrency)) as http:
        await asyncio.gather(*(worker(http) for _ in range(concurrency)))
    return attack.Flood(n, time.perf_counter() - start_at, dict(statuses))


def flood_case(figures: list[FloodFigures], name: str, fn: Callable[[Door], attack.Flood],
               allowed: Callable[[attack.Flood], int] | None,
               refused_if: Callable[[int], bool] | None = None) -> Callable[[Door], Tally]:
    """``refused_if``: which statuses count as refused (default: any 4xx)."""
    def run(door: Door) -> Tally:
        time.sleep(1.1)  # a fresh one-second window
        got = fn(door)
        figures.append(FloodFigures(name, got, allowed(got) if allowed else 0))
        t = Tally(allowed=allowed(got) if allowed else None)
        for status, n in sorted(got.statuses.items()):
            for _ in range(n):
                if not status:  # a timeout or a connection dropped: not an answer
                    t.status("no answer", refused=False)
                else:
                    t.status(status, None if refused_if is None else refused_if(status))
        return t
    return run


def attacks(where: Path, quick: bool) -> tuple[list[Row], list[FloodFigures], list[str]]:
    problems: list[str] = []
    db = fresh(where, "attacks.db")
    door = attack.start(db, attack.seed(db), *GENEROUS, log=where / "attacks.log")
    rows: list[Row] = []
    try:
        for name, fn, control in [
                ("no token / wrong tokens", no_or_wrong_token, False),
                ("revoked token", revoked_token, False),
                ("alice -> bob by argument", alice_asks(BY_ARGUMENT), False),
                ("alice -> bob by subject string", alice_asks(BY_SUBJECT), False),
                ("alice -> bob by session bob/bob-chat", alice_asks(BY_SESSION), False),
                ("alice in bob's MCP session id", bobs_mcp_session, False),
                ("read-only token writing", read_only_writes, False),
                ("read-only token reading (control)", read_only_reads, True),
                ("oversized bodies / headers", oversized, False),
                ("malformed requests", malformed_requests, False),
                ("malformed tool arguments", malformed_arguments, False)]:
            rows.append(run_case(door, name, fn, control=control))
    finally:
        log = door.stop()
    if "Traceback" in log:
        problems.append(f"a traceback in the server's log ({where / 'attacks.log'})")

    figures: list[FloodFigures] = []
    db = fresh(where, "floods.db")
    door = attack.start(db, attack.seed(db), log=where / "floods.log")
    n = 200 if quick else 600
    try:
        bob = door.secrets["bob"]
        sid = attack.open_session(door, bob)  # before bob's session flood uses up his quota
        # tools/call rather than initialize, so the address and token rates are what
        # stop them (an initialize flood meets the 10-sessions-a-minute limit first)
        facts = attack.rpc("tools/call", {"name": "facts", "arguments": {}})
        per_second = int(DEFAULT_TOKEN_RATE.split("/")[0])
        sessions = int(DEFAULT_SESSION_RATE.split("/")[0]) - 1  # one opened above
        floods: list[tuple[str, Callable[[Door], attack.Flood],
                           Callable[[attack.Flood], int] | None]] = [
            ("flood: no token", lambda d: asyncio.run(attack.flood(d, None, n, body=facts)),
             None),
            ("flood: wrong token", lambda d: asyncio.run(
                attack.flood(d, "mdk_" + secrets.token_urlsafe(32), n // 2, body=facts)), None),
            ("flood: revoked token", lambda d: asyncio.run(
                attack.flood(d, d.secrets["revoked"], n // 2, body=facts)), None),
            ("flood: good token, tools/list", lambda d: asyncio.run(
                flood_session(d, bob, n // 2, "tools/list", sid)),
             lambda f: int(per_second * (f.seconds + 1))),
            ("flood: good token, new sessions", lambda d: asyncio.run(
                attack.flood(d, bob, n // 3)), lambda f: sessions)]
        for name, make, allowed in floods:
            rows.append(run_case(door, name, flood_case(figures, name, make, allowed), pause=1.1))
    finally:
        log = door.stop()
    if "Traceback" in log:
        problems.append(f"a traceback in the flood server's log ({where / 'floods.log'})")
    return rows, figures, problems


# ------------------------------------------------- issue 29: limits, slow clients, leaving
def limits(where: Path) -> tuple[list[Row], list[FloodFigures], list[str]]:
    """One token spelled 64 ways, an escaped initialize, a rotating
    X-Forwarded-For, against per-minute limits (``TIGHT``)."""
    db = fresh(where, "limits.db")
    door = attack.start(db, attack.seed(db, light=True), *TIGHT, log=where / "limits.log")
    figures: list[FloodFigures] = []
    rows: list[Row] = []
    only_429 = (lambda status: status == 429)  # noqa: E731 - what counts as refused here
    try:
        spelled = attack.spellings(door.secrets["alice"])
        bob = door.secrets["bob"]
        listing = attack.rpc("tools/list")
        cases: list[tuple[str, Callable[[Door], attack.Flood], int]] = [
            ("one token spelled 64 ways (max 20)", lambda d: asyncio.run(attack.flood_with(
                d, 2 * len(spelled), lambda i: {"authorization": spelled[i % len(spelled)]},
                listing, source="127.0.0.2")), 20),
            ("\\u0069nitialize: new sessions (max 5)", lambda d: asyncio.run(attack.flood_with(
                d, 20, lambda i: {"authorization": f"Bearer {bob}"}, attack.ESCAPED_INITIALIZE,
                source="127.0.0.3")), 5),
            ("rotating X-Forwarded-For (max 150)", lambda d: asyncio.run(attack.flood_with(
                d, 400, lambda i: {"x-forwarded-for": f"10.0.{i // 256}.{i % 256}"}, listing)),
             150)]
        for name, make, most in cases:
            rows.append(run_case(door, name, flood_case(  # served: a token, an address unused
                figures, name, make, lambda f, most=most: most, refused_if=only_429),
                token="alice_ro", source="127.0.0.9"))
    finally:
        log = door.stop()
    problems = [f"a traceback in the server's log ({where / 'limits.log'})"] \
        if "Traceback" in log else []
    return rows, figures, problems


@dataclass
class SlowFigures:
    case: str
    opened: int
    statuses: Counter[str]
    longest: float  # seconds the longest-lived connection stayed open
    bound: float


def hold(door: Door, source: str, first: bytes, trickle: bytes, bound: float
         ) -> tuple[str, float]:
    """One slow client: what the server answered before closing ("503",
    "408", "closed", or "open" when still open after ``bound`` s) and after
    how long."""
    started = time.perf_counter()
    try:
        sock = attack.connect(door, source)
        sock.sendall(first)
    except OSError:
        return "closed", 0.0
    got = attack.until_closed(sock, bound, trickle=trickle, every=0.5)
    took = time.perf_counter() - started
    if got is None:
        return "open", took
    return (got[9:12].decode() if got.startswith(b"HTTP/1.1 ") else "closed"), took


def slow_clients(where: Path, quick: bool) -> tuple[list[Row], list[SlowFigures], list[str]]:
    """Slow headers and bodies against the default limits, all at once."""
    from concurrent.futures import ThreadPoolExecutor

    db = fresh(where, "slow.db")
    door = attack.start(db, attack.seed(db, light=True), log=where / "slow.log")
    bound = 60.0
    n = 100 if quick else 300
    head = attack.request_head(door, "POST", {"x-slow": "1"}, complete=False)
    body_head = attack.request_head(door, "POST", {
        **attack.JSON_HEADERS, "authorization": f"Bearer {door.secrets['alice']}"},
        length=1000) + b"{"
    groups = [  # (case, how many, from which addresses, first bytes, trickle)
        (f"slow headers, one address ({n})", n, ["127.0.0.2"], head[:20], b""),
        (f"slow headers dribbled, 10 addresses ({5 * n // 3})", 5 * n // 3,
         [f"127.0.1.{i}" for i in range(1, 11)], head[:20], b"x"),
        ("slow bodies, 4 addresses (40)", 40, [f"127.0.2.{i}" for i in range(1, 5)],
         body_head, b" ")]
    rows: list[Row] = []
    figures: list[SlowFigures] = []
    try:
        before = attack.counts(db)
        with ThreadPoolExecutor(max_workers=sum(g[1] for g in groups)) as pool:
            futures = {}
            for case, count, sources, first, trickle in (groups[2], groups[0], groups[1]):
                futures[case] = [pool.submit(hold, door, sources[i % len(sources)], first,
                                             trickle, bound) for i in range(count)]
                time.sleep(0.5)  # in: the next group meets the caps these left (the bodies
                # first, then one address's 64, then the total's rest)
            outcomes = {case: [f.result() for f in futures[case]] for case, *_ in groups}
        for case, got in outcomes.items():
            t = Tally()
            for status, _took in got:
                t.status(status, refused=status != "open")
            figures.append(SlowFigures(case, len(got), Counter(s for s, _ in got),
                                       max(took for _, took in got), bound))
            rows.append(Row(case, t, {}, 0, True))
        after = attack.counts(db)
        rows[-1].rows = written(before, after)
        rows[-1].serves = serves(door)
    finally:
        log = door.stop()
    problems = [f"a traceback in the server's log ({where / 'slow.log'})"] \
        if "Traceback" in log else []
    return rows, figures, problems


def show_slow(figures: list[SlowFigures]) -> None:
    print(f"slow clients against the defaults (headers {DEFAULT_HEADER_TIMEOUT:g} s, body "
          f"{DEFAULT_BODY_TIMEOUT:g} s, {DEFAULT_ADDRESS_CONNECTIONS} per address, "
          f"{DEFAULT_MAX_CONNECTIONS} in all):")
    print(f"  {'case':<42} {'opened':>6} {'503 at once':>11} {'408':>5} {'closed':>6} "
          f"{'open at the end':>15} {'longest open':>12}")
    for f in figures:
        print(f"  {f.case:<42} {f.opened:>6} {f.statuses['503']:>11} {f.statuses['408']:>5} "
              f"{f.statuses['closed']:>6} {f.statuses['open']:>15} {f.longest:>10.1f} s")
    print(f"  (open at the end: still open {figures[0].bound:g} s after they began)" if figures
          else "")


def traced_door(where: Path, name: str, variable: str, suffix: str
                ) -> tuple[Path, dict[str, str], Door, Path]:
    """A fresh seeded store ``name.db`` and its server, writing failpoints to
    ``name.suffix`` through the environment ``variable`` (MEMDESK_TRACE_POINTS
    or MEMDESK_TRACE_TIMES): the store, the secrets, the door, the trace."""
    db = fresh(where, f"{name}.db")
    trace = where / f"{name}.{suffix}"
    trace.unlink(missing_ok=True)
    secrets_by_name = attack.seed(db, light=True)
    door = attack.start(db, secrets_by_name, *GENEROUS, log=where / f"{name}.log",
                        env={variable: str(trace)})
    return db, secrets_by_name, door, trace


def leaving_clients(where: Path, backend: str = "sqlite", n: int = 5) -> Row:
    """``n`` remember calls in flight behind the write lock, whose clients
    leave before the answer: each must be cancelled, none written."""
    db, secrets_by_name, door, trace = traced_door(where, "leaving", "MEMDESK_TRACE_POINTS", "points")
    t = Tally()
    try:
        alice = secrets_by_name["alice"]
        sid = attack.open_session(door, alice)
        before = attack.counts(db)
        with attack.write_lock(db):
            for i in range(n):
                attack.post_in_flight(door, alice, sid, attack.remember_call(
                    f"I moved to Bristol {i} weeks ago.", ident=100 + i)).close()
            gone = attack.wait_until(lambda: f"http.gone#{n}" in attack.points(trace), 60)
        cancelled = attack.wait_until(
            lambda: f"http.cancelled#{n}" in attack.points(trace), 60)
        marks = attack.points(trace)
        for i in range(n):
            done = f"http.cancelled#{i + 1}" in marks
            t.status("cancelled" if done else "NOT cancelled", refused=done)
        if not (gone and cancelled):
            t.notes.append(f"saw {sum(p.startswith('http.gone') for p in marks)} gone, "
                           f"{sum(p.startswith('http.cancelled') for p in marks)} cancelled")
        after = attack.counts(db)
        return Row(f"{n} callers leave mid-call ({backend})", t, written(before, after), 0,
                   serves(door))
    finally:
        door.stop()


# --------------------------------------------------------------- lock held
def _holds(times: Path) -> list[float]:
    """Milliseconds from each write transaction's ``tx.begin`` to its
    ``tx.committed`` (failpoints with MEMDESK_TRACE_TIMES)."""
    at: dict[str, int] = {}
    for line in times.read_text(encoding="utf-8").splitlines():
        mark, ns = line.split()
        at[mark] = int(ns)
    return [(at[f"tx.committed#{mark.split('#')[1]}"] - t) / 1e6
            for mark, t in at.items()
            if mark.startswith("tx.begin#") and f"tx.committed#{mark.split('#')[1]}" in at]


def lock_holds(where: Path) -> None:
    """The longest time one request held the write lock, against the whole
    request's time: remember at its bounds (16,000 characters in 4 messages;
    64 messages of 250), ten ordinary remembers. Extraction runs before the
    transaction, so the lock is held only to write."""
    _, secrets_by_name, door, times = traced_door(where, "holds", "MEMDESK_TRACE_TIMES", "times")
    zh = "这周末我们搬到了新家，预算也从五千提到八千，下周五之前得把旧房子的钥匙交了。"
    en = "We finally moved to Leeds last weekend and the budget went up to 8000 pounds. "

    def msgs(texts: list[str]) -> list[dict[str, str]]:
        return [{"role": "user", "content": t, "time": f"2026-06-0{1 + i % 8}T10:00:00+01:00"}
                for i, t in enumerate(texts)]

    cases = [("remember 4 x 4,000 chars (the bounds)",
              {"messages": msgs([(zh * 120)[:4000], (en * 60)[:4000]] * 2), "session": "big"}),
             ("remember 64 x 250 chars (the bounds)",
              {"messages": msgs([(en * 4)[:250]] * 32 + [(zh * 8)[:250]] * 32), "session": "many"})]
    cases += [(f"remember, ordinary #{i}", {"messages": msgs([en[:80]]), "session": f"s{i}"})
              for i in range(10)]
    try:
        alice = secrets_by_name["alice"]
        for name, args in cases:
            mark = times.stat().st_size if times.exists() else 0
            started = time.perf_counter()
            answer = asyncio.run(attack.call(door, alice, "remember", {**args, "user": "alice"}))
            took = (time.perf_counter() - started) * 1000
            text = times.read_text(encoding="utf-8")[mark:] if times.exists() else ""
            scratch = where / "holds.part"
            scratch.write_text(text, encoding="utf-8")
            held = max(_holds(scratch), default=0.0)
            flag = " (refused: " + answer.text[:60] + ")" if answer.error else ""
            print(f"  {name:<40} request {took:8.0f} ms, write lock held {held:7.1f} ms "
                  f"({held / took:.2f} of it){flag}")
        every = _holds(times)
        print(f"  longest lock held by one request: {max(every, default=0.0):.1f} ms over "
              f"{len(every)} write transactions")
    finally:
        door.stop()


# ------------------------------------------------------------------ stopping
@dataclass
class Stop:
    case: str
    seconds: float | None  # None: still running at the harness's bound
    code: int | None
    how: str
    rows: dict[str, int]
    verified: bool


def stop_case(where: Path, name: str, kind: str) -> Stop:
    """SIGTERM to a server with a client's event stream open and, by
    ``kind``: nothing else ("idle"), a call waiting on the write lock
    ("lock"), or a remember of a long turn running ("long")."""
    import signal
    import subprocess
    from contextlib import ExitStack

    from memdesk import Store

    db = fresh(where, f"stop-{kind}.db")
    secrets_by_name = attack.seed(db, light=True)
    log_path = where / f"stop-{kind}.log"
    door = attack.start(db, secrets_by_name, *GENEROUS, log=log_path)
    alice = secrets_by_name["alice"]
    sid = attack.open_session(door, alice)
    before = attack.counts(db)
    socks = [attack.event_stream(door, alice, sid)]
    with ExitStack() as stack:
        if kind == "lock":
            stack.enter_context(attack.write_lock(db))
            socks.append(attack.post_in_flight(door, alice, sid,
                                               attack.remember_call("I moved to Hull.")))
        elif kind == "long":
            turn = " ".join(a["content"] for a in attack.ALICE) + " "
            socks.append(attack.post_in_flight(door, alice, sid, attack.remember_call(
                (turn * (20_000 // len(turn) + 1))[:20_000])))
            time.sleep(1.0)  # well into the call
        started = time.perf_counter()
        door.process.send_signal(signal.SIGTERM)
        try:
            door.process.wait(timeout=60)
            seconds: float | None = time.perf_counter() - started
        except subprocess.TimeoutExpired:
            seconds = None
    for sock in socks:
        sock.close()
    code = door.process.poll()
    log = door.stop()
    how = ("watchdog" if code == -signal.SIGALRM or "exiting now" in log else "graceful") \
        if seconds is not None else "STILL RUNNING"
    with Store.open(db) as store:
        verified = store.audit.verify().ok
    return Stop(name, seconds, code, how, written(before, attack.counts(db)), verified)


def stopping(where: Path) -> tuple[list[Stop], list[str]]:
    stops = [stop_case(where, "idle, an event stream open", "idle"),
             stop_case(where, "a remember waiting on the write lock", "lock"),
             stop_case(where, "a remember of a 20 KB turn running", "long")]
    print(f"SIGTERM (stop timeout {DEFAULT_STOP_TIMEOUT:g} s), one client's event stream open "
          "in each, SQLite:")
    print(f"  {'case':<40} {'exit after':>10} {'code':>5} {'how':>9} {'rows written':>14} "
          f"{'verify':>7}")
    problems = []
    for st in stops:
        rows_said = ", ".join(f"{k} +{v}" for k, v in sorted(st.rows.items())) or "-"
        took = f"{st.seconds:.2f} s" if st.seconds is not None else "> 60 s"
        print(f"  {st.case:<40} {took:>10} {st.code!s:>5} {st.how:>9} {rows_said:>14} "
              f"{'ok' if st.verified else 'BROKEN':>7}")
        if st.seconds is None or st.seconds > DEFAULT_STOP_TIMEOUT + 1:
            problems.append(f"SIGTERM, {st.case}: exit after {took}")
        if not st.verified:
            problems.append(f"SIGTERM, {st.case}: verify found problems")
    return stops, problems


def show_attacks(rows: list[Row], figures: list[FloodFigures], problems: list[str]) -> None:
    print(f"{'case':<36} {'tried':>5} {'refused':>7} {'rows':>17} {'audits':>6} {'serves':>6}  "
          "how")
    for r in rows:
        t = r.tally
        how = ", ".join(f"{k} x{n}" for k, n in sorted(t.how.items()))
        rows_said = ", ".join(f"{k} +{v}" for k, v in sorted(r.rows.items())) or "-"
        print(f"{r.case:<36} {t.tried:>5} {t.refused:>7} {rows_said:>17} {r.audits:>6} "
              f"{'yes' if r.serves else 'NO':>6}  {how}")
        if r.control and t.refused:
            problems.append(f"{r.case}: {t.refused} of {t.tried} refused (must be served)")
        elif t.allowed is not None:
            if t.tried - t.refused > t.allowed:
                problems.append(f"{r.case}: {t.tried - t.refused} served, the limits allow "
                                f"{t.allowed}")
        elif not r.control and t.refused != t.tried:
            problems.append(f"{r.case}: {t.tried - t.refused} of {t.tried} NOT refused")
        if r.rows:
            why = (" (the vector cache, filled lazily by the first recall on the store)"
                   if set(r.rows) == {"recall_vector"} else "")
            problems.append(f"{r.case}: wrote {rows_said}{why}")
        if not r.serves:
            problems.append(f"{r.case}: the server did not serve a good call afterwards")
        problems.extend(f"{r.case}: {note}" for note in t.notes)
    print()
    print(f"{'flood (8 connections)':<36} {'sent':>5} {'seconds':>8} {'served/s':>9} "
          f"{'refused/s':>9} {'may serve':>9}  statuses")
    for f in figures:
        fl = f.flood
        served = sum(n for s, n in fl.statuses.items() if 200 <= s < 300)
        refused = sum(n for s, n in fl.statuses.items() if 400 <= s < 500)
        print(f"{f.case:<36} {fl.sent:>5} {fl.seconds:>8.2f} {served / fl.seconds:>9.1f} "
              f"{refused / fl.seconds:>9.1f} {f.allowed:>9}  "
              + ", ".join(f"{s or 'no answer'} x{n}" for s, n in sorted(fl.statuses.items())))
    print()
    if problems:
        print("SURPRISES (bugs to look at):")
        for p in problems:
            print(f"  - {p}")
    else:
        print("every attack refused, nothing written, the server kept serving")


# ------------------------------------------------------------------ latency
def free_port() -> int:
    return attack.free_port()


def serve_in_thread(app: Any, port: int, config: Any = None) -> Any:
    import uvicorn

    server = uvicorn.Server(config or uvicorn.Config(app, host="127.0.0.1", port=port,
                                                     log_level="warning", access_log=False))
    threading.Thread(target=server.run, daemon=True).start()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return server
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"the server on port {port} did not start")


def pct(values: list[float], p: float) -> float:
    return float(np.percentile(values, p)) * 1000


async def timed_rounds(urls: dict[str, tuple[str, dict[str, str]]],
                       calls: dict[str, dict[str, tuple[str, dict[str, Any]]]],
                       n: int, rounds: int) -> dict[str, dict[str, list[float]]]:
    """``n`` calls of each tool per server, in ``rounds`` alternating the servers,
    over one SDK client connection per server."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.types import Implementation

    out: dict[str, dict[str, list[float]]] = {s: {t: [] for t in calls[s]} for s in urls}
    async with AsyncExitStack() as stack:
        clients = {}
        for name, (url, headers) in urls.items():
            http = await stack.enter_async_context(httpx2.AsyncClient(headers=headers,
                                                                      timeout=30))
            clients[name] = await stack.enter_async_context(
                Client(streamable_http_client(url, http_client=http),
                       client_info=Implementation(name="bench", version="1.0")))
        for name, client in clients.items():  # warm up: models, vectors, caches
            for tool, args in calls[name].values():
                for _ in range(5):
                    r = await client.call_tool(tool, args)
                    assert not r.is_error, (name, tool, r.content)
        order = list(clients)
        per_round = max(1, n // rounds)
        for rnd in range(rounds):
            for name in order if rnd % 2 == 0 else order[::-1]:
                client = clients[name]
                for tool, args in calls[name].values():
                    for _ in range(per_round):
                        t = time.perf_counter()
                        r = await client.call_tool(tool, args)
                        out[name][tool].append(time.perf_counter() - t)
                        assert not r.is_error, (name, tool, r.content)
    return out


def guard_alone(n: int) -> None:
    """The guard's own work per request, in process (no network, no SDK):
    the same POST through a do-nothing app, bare and behind ``Guard`` and
    ``TokenLimits`` (as a token the check accepted), and a new session's
    body parse."""
    from memdesk.app.http_guard import Guard, GuardSettings, Rates, TokenLimits, opens_session

    class Accepted:  # what the SDK's bearer check leaves in the scope
        class access_token:  # noqa: N801 - the SDK's attribute name
            client_id = "token:1"

    async def nothing(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    settings = GuardSettings(token_rate="100000/second", address_rate="100000/second")
    rates = Rates(settings)
    guarded = Guard(TokenLimits(nothing, rates), settings, rates=rates)
    body = attack.rpc("tools/call", {"name": "facts", "arguments": {}})
    headers = [(b"content-type", b"application/json"), (b"mcp-session-id", b"x"),
               (b"content-length", str(len(body)).encode())]

    async def run(app: Any, k: int) -> float:
        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: Any) -> None:
            return None
        started = time.perf_counter()
        for _ in range(k):
            scope = {"type": "http", "method": "POST", "headers": headers,
                     "client": ("127.0.0.1", 1), "user": Accepted()}
            await app(scope, receive, send)
        return (time.perf_counter() - started) / k * 1e6

    bare_us = min(asyncio.run(run(nothing, n)) for _ in range(3))
    guarded_us = min(asyncio.run(run(guarded, n)) for _ in range(3))
    init = attack.INITIALIZE
    parse_us = per_call_us(lambda: opens_session({"headers": []}, init), n)
    print(f"the guard alone, in process, {n:,} POSTs each (best of 3): a do-nothing app "
          f"{bare_us:.1f} µs per request, behind Guard + TokenLimits {guarded_us:.1f} µs "
          f"(+{guarded_us - bare_us:.1f} µs, {guarded_us / bare_us:.1f}x); an initialize's "
          f"parse (no session id) {parse_us:.1f} µs")


def per_call_us(fn: Callable[[], object], n: int) -> float:
    t = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t) / n * 1e6


def latency(where: Path, calls: int, token_calls: int) -> None:
    from memdesk import Memory
    from memdesk.app.http_guard import Guard, GuardSettings
    from memdesk.app.mcp_server import StoreTokenVerifier, build_server, http_app, server_config

    try:  # bm25s sets DEBUG on its logger when imported (lazily, by the first recall)
        import bm25s  # noqa: F401
    except ImportError:
        pass
    logging.getLogger("bm25s").setLevel(logging.WARNING)
    db = fresh(where, "latency.db")
    secret = attack.seed(db)["alice"]
    rates = GuardSettings(token_rate="100000/second", address_rate="100000/second",
                          session_rate="100000/minute")
    memory = Memory.open(db)
    servers = []
    try:
        ports: list[int] = []
        while len(ports) < 3:
            port = free_port()
            if port not in ports:
                ports.append(port)
        bare = build_server(memory, transport="http").streamable_http_app(host="127.0.0.1")
        servers.append(serve_in_thread(bare, ports[0]))
        guarded = Guard(build_server(memory, transport="http").streamable_http_app(
            host="127.0.0.1"), rates)
        servers.append(serve_in_thread(guarded, ports[1], server_config(
            guarded, host="127.0.0.1", port=ports[1])))
        door = http_app(memory, host="127.0.0.1", port=ports[2], guard=rates)
        servers.append(serve_in_thread(door, ports[2], server_config(
            door, host="127.0.0.1", port=ports[2])))
        urls = {"bare": (f"http://127.0.0.1:{ports[0]}/mcp", {}),
                "guarded": (f"http://127.0.0.1:{ports[1]}/mcp", {}),
                "door": (f"http://127.0.0.1:{ports[2]}/mcp",
                         {"Authorization": f"Bearer {secret}"})}
        anyone = {"facts": ("facts", {"user": "alice"}),
                  "recall": ("recall", {"query": "where do I live", "user": "alice"})}
        tool_calls = {"bare": anyone, "guarded": anyone,
                      "door": {"facts": ("facts", {}),
                               "recall": ("recall", {"query": "where do I live"})}}
        rounds = 5 if calls >= 5 else 1
        started = time.perf_counter()
        got = asyncio.run(timed_rounds(urls, tool_calls, calls, rounds))
        seconds = time.perf_counter() - started
        n = len(got["door"]["facts"])
        print(f"{n} calls of each tool per server, {rounds} rounds alternating the servers, "
              f"one SDK client connection each ({seconds:.0f} s)")
        print(f"{'tool':<8} {'bare p50 / p95':>19} {'guarded p50 / p95':>19} "
              f"{'door p50 / p95':>19} {'guard adds':>18} {'token check adds':>18}")
        for tool in ("facts", "recall"):
            b, g, d = got["bare"][tool], got["guarded"][tool], got["door"][tool]
            print(f"{tool:<8} {pct(b, 50):7.2f} / {pct(b, 95):6.2f} ms "
                  f"{pct(g, 50):7.2f} / {pct(g, 95):6.2f} ms {pct(d, 50):7.2f} / "
                  f"{pct(d, 95):6.2f} ms {pct(g, 50) - pct(b, 50):+7.2f} ms {pct(g, 50) / pct(b, 50):5.2f}x "
                  f"{pct(d, 50) - pct(g, 50):+7.2f} ms {pct(d, 50) / pct(g, 50):5.2f}x")
        print()
        store = memory.store
        verifier = StoreTokenVerifier(memory)
        wrong = "mdk_" + secrets.token_urlsafe(32)
        malformed = "mdk_" + "é" * 43
        assert store.admin.token_for_secret(secret) is not None
        assert store.admin.token_for_secret(wrong) is None and store.admin.token_for_secret(malformed) is None
        print(f"the token check alone, {token_calls:,} calls each (this process, SQLite):")
        for what, fn in [
                ("token_for_secret, good secret", lambda: store.admin.token_for_secret(secret)),
                ("token_for_secret, wrong (well-formed) secret",
                 lambda: store.admin.token_for_secret(wrong)),
                ("token_for_secret, malformed (no read)",
                 lambda: store.admin.token_for_secret(malformed)),
                ("StoreTokenVerifier.lookup, good secret", lambda: verifier.lookup(secret))]:
            print(f"  {what:<46} {per_call_us(fn, token_calls):8.1f} µs per call")

        async def verify_all(k: int) -> float:
            t = time.perf_counter()
            for _ in range(k):
                await verifier.verify_token(secret)
            return (time.perf_counter() - t) / k * 1e6
        k = max(100, token_calls // 5)
        print(f"  {'verify_token (worker-thread hop), good secret':<46} "
              f"{asyncio.run(verify_all(k)):8.1f} µs per call ({k:,} calls)")
    finally:
        for server in servers:
            server.should_exit = True
        time.sleep(0.5)
        memory.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=None,
                    help="timed calls of each tool per server (default 300; 30 with --quick)")
    ap.add_argument("--keep", type=Path, default=None, metavar="DIR",
                    help="keep the stores and server logs in DIR")
    ap.add_argument("--quick", action="store_true", help="fewer calls: a smoke run")
    args = ap.parse_args(argv)
    calls = args.calls if args.calls is not None else (30 if args.quick else 300)
    token_calls = 1000 if args.quick else 10_000
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    print(HEADER)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        where = args.keep or Path(tmp)
        where.mkdir(parents=True, exist_ok=True)
        print(f"== attacks (load average {os.getloadavg()[0]:.1f})")
        rows, figures, problems = attacks(where, args.quick)
        more, more_figures, more_problems = limits(where)
        slow_rows, slow_figures, slow_problems = slow_clients(where, args.quick)
        leaving = [leaving_clients(where)]
        show_attacks(rows + more + slow_rows + leaving, figures + more_figures,
                     problems + more_problems + slow_problems)
        print()
        show_slow(slow_figures)
        print()
        print(f"== the write lock held per request (load average {os.getloadavg()[0]:.1f})")
        lock_holds(where)
        print()
        print(f"== stopping (load average {os.getloadavg()[0]:.1f})")
        _stops, stop_problems = stopping(where)
        for p in stop_problems:
            print(f"  SURPRISE: {p}")
        print()
        print(f"== latency added by the guard and the token check (load average "
              f"{os.getloadavg()[0]:.1f})")
        latency(where, calls, token_calls)
        guard_alone(token_calls)
    print(f"\n(total {time.perf_counter() - started:.0f} s, load average "
          f"{os.getloadavg()[0]:.1f}{'; stores kept in ' + str(args.keep) if args.keep else ''})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
