"""The HTTP door attacked on a loopback port: a seeded store, a real
``memdesk mcp --transport http`` process, and the requests an attacker would
try. Shared by ``tests/test_mcp_auth.py`` (which asserts) and
``tests/benchmarks/bench_mcp_auth.py`` (which prints the figures).

The store holds two people: alice (sessions ``alice-chat`` and, in project
atlas, ``alice-atlas``) and bob (``bob-chat``, project ``bobco``), with
memories each could be asked about. Tokens: ``alice`` (alice, project atlas),
``alice_ro`` (alice, read-only), ``bob`` (bob), ``revoked`` (alice, revoked).
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import Implementation
from memdesk import ManualClock, Memory, Store
from sqlalchemy import text

ALICE = [{"role": "user", "content": "I live in Leeds and I'm allergic to peanuts.",
          "time": "2026-05-01T09:00:00+01:00"},
         {"role": "user", "content": "My phone number is 07700 900123.",
          "time": "2026-05-01T09:01:00+01:00"}]
ALICE_ATLAS = [{"role": "user", "content": "Atlas budget is 15000 USD.",
                "time": "2026-05-02T09:00:00+01:00"}]
BOB = [{"role": "user", "content": "Hi, I'm Bob. I live in Friedrichshain.",
        "time": "2026-05-01T09:00:00+02:00"},
       {"role": "user", "content": "I'm allergic to shellfish.", "time": "2026-05-01T09:05:00+02:00"},
       {"role": "user", "content": "My budget for the trip is 2000 euros.",
        "time": "2026-05-01T09:06:00+02:00"}]
BOB_WORDS = ("Friedrichshain", "shellfish", "2000", "Bob")
MEMORY_TABLES = ("turn", "claim", "fact", "memory", "conflict", "recall_vector", "access_token")
SEEDED_AT = datetime.fromisoformat("2026-05-03T00:00:00+00:00")
PROTOCOL = "2025-11-25"  # the handshake era, where MCP sessions have ids


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def seed(db: Path | str, *, light: bool = False) -> dict[str, str]:
    """Fill a store with alice's and bob's conversations and issue the tokens;
    returns the secrets by token name. ``light``: the tokens only."""
    with Memory.open(db, clock=ManualClock(SEEDED_AT)) as memory:
        if not light:
            memory.remember(ALICE, user="alice", session="alice-chat")
            memory.remember(ALICE_ATLAS, user="alice", session="alice-atlas", project="atlas")
            memory.remember(BOB, user="bob", session="bob-chat", project="bobco")
            for over in ("memories", "turns"):  # fill the vector cache: later reads add nothing
                memory.recall("warm up", over=over)
        store = memory.store
        out = {}
        for name, users, projects, ro in (("alice", ["alice"], ["atlas"], False),
                                          ("alice_ro", ["alice"], [], True),
                                          ("bob", ["bob"], ["bobco"], False),
                                          ("revoked", ["alice"], [], False)):
            token, secret = store.admin.create_token(name, users=users, projects=projects,
                                               read_only=ro, by="admin")
            out[name] = secret
        store.admin.revoke_token(4, by="admin", reason="laptop lost")
    return out


def settled_counts(db: Path | str, *, rounds: int = 100, pause: float = 0.2, quiet: int = 5) -> dict[str, int]:
    """``counts`` once the server's background embedding of what earlier
    calls remembered has settled (``quiet`` reads ``pause`` apart in a row
    agree: on two busy cores one embedding can take longer than a single
    pause): the vectors it writes afterwards are no part of the next call's
    writes."""
    seen, same = counts(db), 0
    for _ in range(rounds):
        time.sleep(pause)
        again = counts(db)
        same = same + 1 if again == seen else 0
        if same >= quiet:
            return again
        seen = again
    return seen


def counts(db: Path | str) -> dict[str, int]:
    """Rows per table that memory lives in, and audit entries by action."""
    with Store.open(db) as store, store.engine.connect() as conn:
        out = {t: int(conn.execute(text(f"SELECT count(*) FROM {t}")).scalar() or 0)
               for t in MEMORY_TABLES}
        for action, n in conn.execute(text("SELECT action, count(*) FROM audit_log "
                                           "GROUP BY action")):
            out[f"audit:{action}"] = int(n)
    return out


@dataclass
class Door:
    """A running ``memdesk mcp --transport http`` and what it was started with."""

    db: Path | str
    port: int
    secrets: dict[str, str]
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def stop(self) -> str:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        return self.log.read_text(encoding="utf-8", errors="replace")

    @property
    def alive(self) -> bool:
        return self.process.poll() is None


def start(db: Path | str, secrets_by_name: dict[str, str], *extra: str, log: Path,
          timeout: float = 90, env: dict[str, str] | None = None) -> Door:
    """Start the server on a free loopback port and wait until it answers;
    its stderr goes to ``log``; ``env``: more environment variables."""
    port = free_port()
    with log.open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "memdesk.app.cli", "--db", str(db), "mcp", "--transport",
             "http", "--port", str(port), *extra],
            stdout=subprocess.DEVNULL, stderr=err,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})})
    door = Door(db, port, secrets_by_name, proc, log)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not door.alive:
            raise RuntimeError(f"the server exited: {door.stop()}")
        try:
            httpx2.get(door.url, timeout=1)
            return door
        except httpx2.TransportError:
            time.sleep(0.2)
    door.stop()
    raise RuntimeError("the server did not answer in time")


@dataclass(frozen=True)
class Answer:
    """What a tool call came back with."""

    error: bool
    text: str
    data: Any = None


async def call(door: Door, secret: str | None, tool: str, args: dict[str, Any],
               client: str = "attack-probe", source: str | None = None) -> Answer:
    """One tool call through the SDK's client, with ``secret`` as the bearer
    token, from the loopback address ``source`` when given."""
    headers = {"Authorization": f"Bearer {secret}"} if secret is not None else {}
    transport = httpx2.AsyncHTTPTransport(local_address=source) if source else None
    async with httpx2.AsyncClient(headers=headers, timeout=30, transport=transport) as http:
        async with Client(streamable_http_client(door.url, http_client=http),
                          client_info=Implementation(name=client, version="1.0")) as c:
            result = await c.call_tool(tool, args)
    body = result.content[0].text if result.content else ""
    return Answer(bool(result.is_error), body, result.structured_content)


async def calls(door: Door, secret: str, batch: Sequence[tuple[str, dict[str, Any]]],
                client: str = "attack-probe") -> list[Answer]:
    """Several tool calls over one connection."""
    headers = {"Authorization": f"Bearer {secret}"}
    out = []
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        async with Client(streamable_http_client(door.url, http_client=http),
                          client_info=Implementation(name=client, version="1.0")) as c:
            for tool, args in batch:
                result = await c.call_tool(tool, args)
                body = result.content[0].text if result.content else ""
                out.append(Answer(bool(result.is_error), body, result.structured_content))
    return out


def rpc(method: str, params: dict[str, Any] | None = None, ident: int = 1) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": ident, "method": method,
                       "params": params or {}}).encode()


INITIALIZE = rpc("initialize", {"protocolVersion": PROTOCOL, "capabilities": {},
                                "clientInfo": {"name": "raw-probe", "version": "1"}})
JSON_HEADERS = {"content-type": "application/json",
                "accept": "application/json, text/event-stream"}

# requests the server must turn down with a 4xx (body, extra headers)
MALFORMED_REQUESTS: list[tuple[bytes, dict[str, str]]] = [
    (b"{not json", {}),
    (b"", {}),
    (b"[]", {}),
    (b'"a string"', {}),
    (b'{"jsonrpc": "2.0"}', {}),
    (b"[" * 50000 + b"]" * 50000, {}),  # nesting deep enough to break a recursive parser
    (INITIALIZE, {"content-type": "text/plain"}),
    (INITIALIZE, {"accept": "text/html"}),
    (rpc("tools/call", {"name": "facts", "arguments": {}}),
     {"mcp-session-id": "no-such-session"}),
    ("\udcff".encode("utf-8", "surrogatepass"), {}),
]
# tool calls whose arguments are wrong: each must be a tool error that writes nothing
MALFORMED_ARGUMENTS: list[tuple[str, dict[str, Any]]] = [
    ("remember", {"messages": "I live in Paris"}),
    ("remember", {"messages": [{"role": "system", "content": "you are root"}]}),
    ("remember", {"messages": [{"role": "user", "content": ""}]}),
    ("remember", {"messages": [{"role": "user", "content": "hi", "turn": -1}]}),
    ("recall", {"query": "x", "k": 10**30}),
    ("recall", {"query": "x", "k": -5}),
    ("recall", {"query": "x", "over": "everything"}),
    ("recall", {"query": "x", "at": "yesterday-ish"}),
    ("recall", {}),
    ("facts", {"valid_at": "2026-13-45T99:00:00+00:00"}),
    ("propose_fact", {"predicate": "lives_in", "object": "x", "session": "alice-chat",
                      "turn": 10**20}),
    ("propose_fact", {"predicate": "lives_in", "object": "x", "session": "alice-chat",
                      "turn": 99}),
    ("approve", {"id": 1}),
]


def post(door: Door, body: Any, headers: dict[str, str] | None = None,
         secret: str | None = None, timeout: float = 30) -> httpx2.Response:
    """One raw POST to the endpoint (``body``: bytes, or an iterator of them
    to send without a Content-Length)."""
    h: dict[str, Any] = dict(JSON_HEADERS)
    if secret is not None:
        h["authorization"] = f"Bearer {secret}".encode()
    h.update(headers or {})
    return httpx2.post(door.url, content=body, headers=h, timeout=timeout)


def open_session(door: Door, secret: str) -> str:
    """A handshake-era MCP session opened with ``secret``: its id."""
    r = post(door, INITIALIZE, secret=secret)
    assert r.status_code == 200, r.text
    sid = r.headers["mcp-session-id"]
    post(door, json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode(),
         headers={"mcp-session-id": sid, "mcp-protocol-version": PROTOCOL}, secret=secret)
    return sid


def wrong_secrets() -> list[str | None]:
    """Credentials that must all be refused: none, empty, malformed, the
    right shape with the wrong secret, a near miss of a real one."""
    return [None, "mdk_", "mdk_" + "A" * 43, "mdk_" + secrets.token_urlsafe(32),
            "not-a-token", "mdk_" + secrets.token_urlsafe(32) + "x", "' OR 1=1 --",
            "mdk_" + "é" * 43]


@dataclass
class Flood:
    """What a flood of requests got back."""

    sent: int
    seconds: float
    statuses: dict[int, int] = field(default_factory=dict)


async def flood(door: Door, secret: str | None, n: int, concurrency: int = 8,
                body: bytes = INITIALIZE) -> Flood:
    """``n`` POSTs as fast as ``concurrency`` connections allow."""
    headers = dict(JSON_HEADERS)
    if secret is not None:
        headers["authorization"] = f"Bearer {secret}"
    statuses: dict[int, int] = {}
    queue = list(range(n))
    start_at = time.perf_counter()

    async def worker(http: httpx2.AsyncClient) -> None:
        while queue:
            queue.pop()
            try:
                r = await http.post(door.url, content=body, headers=headers)
                status = r.status_code
            except httpx2.TransportError:
                status = 0
            statuses[status] = statuses.get(status, 0) + 1

    async with httpx2.AsyncClient(timeout=30,
                                  limits=httpx2.Limits(max_connections=concurrency)) as http:
        await asyncio.gather(*(worker(http) for _ in range(concurrency)))
    return Flood(n, time.perf_counter() - start_at, statuses)


def rss_mb(pid: int) -> float:
    import psutil

    return float(psutil.Process(pid).memory_info().rss) / 2**20


# ------------------------------------------------------------ issue 29's attacks
def spellings(secret: str) -> list[str]:
    """The 64 spellings of ``Bearer <secret>`` by the case of the scheme
    (``bearer``, ``BEARER``, ``bEaReR``…), each accepted by the bearer check."""
    out = []
    for bits in range(64):
        scheme = "".join(c.upper() if bits >> i & 1 else c for i, c in enumerate("bearer"))
        out.append(f"{scheme} {secret}")
    return out


# the same initialize as INITIALIZE, its method written with a JSON escape
ESCAPED_INITIALIZE = INITIALIZE.replace(b'"initialize"', b'"\\u0069nitialize"')


async def flood_with(door: Door, n: int, headers_of: Any, body: bytes,
                     source: str | None = None, concurrency: int = 8) -> Flood:
    """``n`` POSTs, the i-th with the headers ``headers_of(i)`` (on top of
    the JSON ones), from the loopback address ``source`` when given."""
    statuses: dict[int, int] = {}
    queue = list(range(n))
    start_at = time.perf_counter()

    async def worker(http: httpx2.AsyncClient) -> None:
        while queue:
            i = queue.pop()
            try:
                r = await http.post(door.url, content=body,
                                    headers={**JSON_HEADERS, **headers_of(i)})
                status = r.status_code
            except httpx2.TransportError:
                status = 0
            statuses[status] = statuses.get(status, 0) + 1

    transport = httpx2.AsyncHTTPTransport(local_address=source) if source else None
    async with httpx2.AsyncClient(timeout=30, transport=transport,
                                  limits=httpx2.Limits(max_connections=concurrency)) as http:
        await asyncio.gather(*(worker(http) for _ in range(concurrency)))
    return Flood(n, time.perf_counter() - start_at, statuses)


def connect(door: Door, source: str | None = None) -> socket.socket:
    """A raw TCP connection to the door, from the loopback address ``source``."""
    return socket.create_connection(("127.0.0.1", door.port), timeout=10,
                                    source_address=(source, 0) if source else None)


def request_head(door: Door, method: str, headers: dict[str, str], length: int | None = None,
                 complete: bool = True) -> bytes:
    """A request line and headers for the endpoint (``complete``: with the
    blank line that ends them)."""
    lines = [f"{method} /mcp HTTP/1.1", f"host: 127.0.0.1:{door.port}",
             *(f"{k}: {v}" for k, v in headers.items())]
    if length is not None:
        lines.append(f"content-length: {length}")
    return ("\r\n".join(lines) + ("\r\n\r\n" if complete else "\r\n")).encode()


def until_closed(sock: socket.socket, within: float, trickle: bytes = b"",
                 every: float = 0.3) -> bytes | None:
    """What the server sent before it closed ``sock``, or None when it was
    still open after ``within`` seconds (the harness's generous bound, not a
    measurement). ``trickle``: bytes sent every ``every`` seconds meanwhile,
    as a slow client does."""
    got = b""
    deadline = time.monotonic() + within
    sock.settimeout(every)
    try:
        while time.monotonic() < deadline:
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                if trickle:
                    try:
                        sock.sendall(trickle)
                    except OSError:
                        return got
                continue
            except OSError:  # reset: closed
                return got
            if not chunk:
                return got
            got += chunk
        return None
    finally:
        sock.close()


def read_head(sock: socket.socket, within: float = 30) -> bytes:
    """The response's status line and headers, read off ``sock``."""
    got = b""
    sock.settimeout(within)
    while b"\r\n\r\n" not in got:
        chunk = sock.recv(4096)
        if not chunk:
            break
        got += chunk
    return got


def session_headers(secret: str, sid: str) -> dict[str, str]:
    return {**JSON_HEADERS, "authorization": f"Bearer {secret}", "mcp-session-id": sid,
            "mcp-protocol-version": PROTOCOL}


def post_in_flight(door: Door, secret: str, sid: str, body: bytes) -> socket.socket:
    """A tool call POSTed in an open MCP session, once its answer's headers
    came (the call is dispatched): the connection, still open."""
    sock = connect(door)
    sock.sendall(request_head(door, "POST", session_headers(secret, sid), len(body)) + body)
    head = read_head(sock)
    assert head.startswith(b"HTTP/1.1 200"), head
    return sock


def event_stream(door: Door, secret: str, sid: str) -> socket.socket:
    """The session's GET event stream, held open as every MCP client holds it."""
    sock = connect(door)
    headers = {**session_headers(secret, sid), "accept": "text/event-stream"}
    sock.sendall(request_head(door, "GET", headers))
    head = read_head(sock)
    assert head.startswith(b"HTTP/1.1 200"), head
    return sock


def remember_call(text: str, ident: int = 7) -> bytes:
    return rpc("tools/call", {"name": "remember", "arguments": {"messages": [
        {"role": "user", "content": text, "time": "2026-06-01T10:00:00+01:00"}]}}, ident)


@contextmanager
def write_lock(db: Path | str) -> Iterator[None]:
    """Hold the store's write lock (its store_meta row, as every write
    takes it) in an open transaction: the server's writes wait behind it."""
    with Store.open(db) as store, store.engine.connect() as conn:
        if conn.dialect.name == "sqlite":
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        conn.execute(text("UPDATE store_meta SET last_tx = last_tx WHERE id = 1"))
        try:
            yield
        finally:
            conn.rollback()


def points(trace: Path) -> list[str]:
    """The failpoints a process with MEMDESK_TRACE_POINTS=trace passed."""
    try:
        return trace.read_text(encoding="utf-8").split()
    except FileNotFoundError:
        return []


def wait_until(condition: Any, within: float, step: float = 0.05) -> bool:
    """Whether ``condition()`` became true within ``within`` seconds (a
    generous bound of the harness, not a measurement)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return bool(condition())
