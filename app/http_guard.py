"""The HTTP door's guard: what one client can make the server do.

Two ASGI middlewares around the MCP app (``app.mcp_server``), so that a
flood, an oversized request or a client that leaves costs the server almost
nothing and never reaches the store. Below them, ``app.http_conn`` bounds
what happens before a request is complete (slow headers and bodies,
connections per address and in all).

``Guard``, in front of everything (before the bearer-token check):

* each client address gets a moving-window rate limit (``limits``); past it
  the answer is 429 with ``Retry-After``. The address is the connection's
  peer: ``X-Forwarded-For`` rewrites it only when the peer is a proxy named
  by ``--forwarded-allow-ips`` (none by default);
* a request body larger than ``max_body`` bytes is refused (413) without
  being read further; a ``Content-Length`` that says so is refused unread;
* each POST gets a ``Cancellation`` (``app.cancel``), cancelled when the
  client goes away before its answer is complete or when the server stops
  (``stop``): its work stops at its next step and writes nothing;
* every refused request (4xx from here, from the token check, or from the
  SDK behind it) is counted by status, and reported on stderr at most once a
  second (``RefusalLog``), so a flood cannot flood the log either.

``TokenLimits``, inside the SDK's app just after its bearer-token check,
keys the per-token limits on the token the check accepted (its principal,
``token:ID``), not on how its header was spelled (``bearer``, ``BEARER``):

* each token gets a moving-window rate limit; past it 429;
* each token may open only so many MCP sessions per window, so one token
  cannot fill the server's session table (``MAX_SESSIONS``, idle ones closed
  after ``SESSION_IDLE_SECONDS``). Whether a request opens one (an
  ``initialize`` request without a session id) is decided on its body parsed
  as the SDK parses it (``pydantic_core``, the SDK's JSON-RPC model): on the
  method the server will dispatch, however it is spelled
  (``"\\u0069nitialize"``), not on its bytes.

Requests without a valid token meet only the address limit before the SDK
answers them 401. The limits are in ``limits``' notation (``30/second``,
``600/minute``).
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any, TextIO

import pydantic_core
from limits import parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from memdesk import failpoint as point

from .cancel import Cancellation, InFlight, current_request

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

DEFAULT_MAX_BODY = 1 << 20  # 1 MiB: a long conversation in one remember call
DEFAULT_TOKEN_RATE = "30/second"
DEFAULT_ADDRESS_RATE = "120/second"
DEFAULT_SESSION_RATE = "10/minute"
DEFAULT_HEADER_TIMEOUT = 10.0  # seconds for a request line and its headers
DEFAULT_BODY_TIMEOUT = 30.0  # seconds for a whole body (1 MiB at 35 KB/s)
DEFAULT_MAX_CONNECTIONS = 512  # open at once, in all
DEFAULT_ADDRESS_CONNECTIONS = 64  # open at once from one client address
DEFAULT_STOP_TIMEOUT = 4.0  # seconds from SIGTERM to the process gone
MAX_SESSIONS = 256
SESSION_IDLE_SECONDS = 600
BODY = "memdesk.body"
"""Scope key: the request's body, as the guard read it."""


def check_rate(text: str, what: str) -> str:
    """A rate in ``limits``' notation (``30/second``). Raises ValueError naming ``what``."""
    try:
        parse(text)
    except ValueError:
        raise ValueError(f"{what} must look like 30/second or 600/minute, got {text!r}") from None
    return text


@dataclass(frozen=True, slots=True)
class GuardSettings:
    """Every bound of the HTTP door (``memdesk mcp`` flags of the same names)."""

    max_body: int = DEFAULT_MAX_BODY
    token_rate: str = DEFAULT_TOKEN_RATE
    address_rate: str = DEFAULT_ADDRESS_RATE
    session_rate: str = DEFAULT_SESSION_RATE
    header_timeout: float = DEFAULT_HEADER_TIMEOUT
    body_timeout: float = DEFAULT_BODY_TIMEOUT
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    address_connections: int = DEFAULT_ADDRESS_CONNECTIONS
    forwarded_allow_ips: tuple[str, ...] = ()  # proxies whose X-Forwarded-For is believed
    stop_timeout: float = DEFAULT_STOP_TIMEOUT


class RefusalLog:
    """Refused (and cancelled) requests counted by reason; a line on ``out``
    at most every ``every`` seconds with what happened since the last line."""

    def __init__(self, out: TextIO | None = None, every: float = 1.0) -> None:
        self.total: Counter[str] = Counter()
        self._pending: Counter[tuple[str, str]] = Counter()
        self._out = out if out is not None else sys.stderr
        self._every = every
        self._last = 0.0
        self._lock = threading.Lock()

    def count(self, reason: str, kind: str = "refused") -> None:
        with self._lock:
            self.total[reason] += 1
            self._pending[(kind, reason)] += 1
            now = time.monotonic()
            if now - self._last < self._every:
                return
            self._last = now
            kinds: dict[str, list[str]] = {}
            for (k, r), n in sorted(self._pending.items()):
                kinds.setdefault(k, []).append(f"{n} {r}")
            self._pending.clear()
        said = "; ".join(f"{k} {', '.join(parts)}" for k, parts in kinds.items())
        print(f"memdesk mcp: {said}", file=self._out, flush=True)


_REASONS = {400: "malformed", 401: "unauthenticated", 403: "forbidden", 404: "unknown session",
            405: "wrong method", 406: "not acceptable", 413: "too large", 415: "wrong type",
            429: "rate limited", 503: "busy"}
GONE = "the client went away"


async def _answer(send: Send, status: int, error: str, description: str,
                  headers: tuple[tuple[bytes, bytes], ...] = ()) -> None:
    body = json.dumps({"error": error, "error_description": description}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()), *headers]})
    await send({"type": "http.response.body", "body": body})


def opens_session(scope: Scope, body: bytes) -> bool:
    """Whether this POST opens an MCP session: no ``mcp-session-id`` header
    and, parsed as the SDK parses it, an ``initialize`` request."""
    from mcp_types import JSONRPCRequest, jsonrpc_message_adapter
    from pydantic import ValidationError

    if any(k == b"mcp-session-id" for k, _ in scope.get("headers", ())):
        return False
    try:
        message = jsonrpc_message_adapter.validate_python(pydantic_core.from_json(body),
                                                          by_name=False)
    except (ValueError, ValidationError):
        return False  # malformed: the endpoint says so
    return isinstance(message, JSONRPCRequest) and message.method == "initialize"


class Rates:
    """The moving-window limits of one server (``limits``, kept in memory),
    shared by the guard, the per-token limits and the token check. Each
    method records one request and says whether it is within its limit."""

    def __init__(self, settings: GuardSettings) -> None:
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self._per_token = parse(settings.token_rate)
        self._per_address = parse(settings.address_rate)
        self._sessions = parse(settings.session_rate)

    def address(self, address: str) -> bool:
        return self._limiter.hit(self._per_address, "address", address)

    def token(self, principal: str) -> bool:
        return self._limiter.hit(self._per_token, "token", principal)

    def session(self, principal: str) -> bool:
        return self._limiter.hit(self._sessions, "sessions", principal)


class _Exchange:
    """One request's state as the guard follows it."""

    __slots__ = ("answered", "cancellation")

    def __init__(self) -> None:
        self.answered = False  # the whole answer was sent
        self.cancellation = Cancellation()


class Guard:
    """The outer ASGI middleware (see the module docstring)."""

    def __init__(self, app: ASGIApp, settings: GuardSettings | None = None,
                 log: RefusalLog | None = None, rates: Rates | None = None) -> None:
        self.app = app
        self.settings = settings = settings or GuardSettings()
        self.log = log if log is not None else RefusalLog()
        self.rates = rates if rates is not None else Rates(settings)
        self.in_flight = InFlight()

    def stop(self, reason: str = "the server is stopping") -> int:
        """Cancel every request in flight, and refuse (503) those that come
        later; how many were cancelled."""
        return self.in_flight.cancel_all(reason)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        exchange = _Exchange()
        send = self._counting(send, exchange)
        if self.in_flight.stopping is not None:
            await _answer(send, 503, "unavailable", "the server is stopping",
                          ((b"retry-after", b"5"), (b"connection", b"close")))
            return
        address = self._address(scope)
        if not self.rates.address(address):
            await _answer(send, 429, "rate_limited",
                          f"too many requests from {address}; retry later",
                          ((b"retry-after", b"1"),))
            return
        if scope.get("method") not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)  # no work to cancel (GET: an event stream)
            return
        self.in_flight.add(exchange.cancellation)
        try:
            receive = self._watching(receive, exchange)
            body = await self._read_body(scope, receive)
            if body is None:
                await _answer(send, 413, "request_too_large",
                              f"the request body is larger than {self.settings.max_body} bytes")
                return
            if exchange.cancellation.reason is not None:
                return  # the client left before its body was complete: nothing to serve
            scope[BODY] = body  # parsed after the token check, only if it may open a session
            with current_request(exchange.cancellation):
                await self.app(scope, self._replay(body, receive), send)
        finally:
            self.in_flight.discard(exchange.cancellation)

    @staticmethod
    def _address(scope: Scope) -> str:
        client = scope.get("client")
        return str(client[0]) if client else "unknown"

    async def _read_body(self, scope: Scope, receive: Receive) -> bytes | None:
        """The whole body, or None when it is larger than ``max_body`` (read
        no further); what came before the client left, when it left."""
        most = self.settings.max_body
        declared = next((v for k, v in scope.get("headers", ()) if k == b"content-length"), None)
        if declared is not None:
            try:
                if int(declared) > most:
                    return None
            except ValueError:
                return None
        parts: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > most:
                return None
            parts.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(parts)

    def _watching(self, receive: Receive, exchange: _Exchange) -> Receive:
        """``receive`` that cancels the request when it reports the client
        gone before the answer was complete."""
        async def watched() -> Message:
            message = await receive()
            if message["type"] == "http.disconnect" and not exchange.answered:
                if exchange.cancellation.cancel(GONE):
                    point("http.gone")
                    self.log.count("client gone", kind="cancelled")
            return message
        return watched

    @staticmethod
    def _replay(body: bytes, receive: Receive) -> Receive:
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()
        return replay

    def _counting(self, send: Send, exchange: _Exchange) -> Send:
        async def counted(message: Message) -> None:
            if message["type"] == "http.response.start":
                status = int(message["status"])
                if 400 <= status < 600:
                    self.log.count(_REASONS.get(status, f"HTTP {status}"))
            elif message["type"] == "http.response.body" and not message.get("more_body"):
                exchange.answered = True
            await send(message)
        return counted


class TokenLimits:
    """The inner ASGI middleware: per-token limits after the bearer check
    (see the module docstring), counted in the guard's ``Rates``."""

    def __init__(self, app: ASGIApp, rates: Rates) -> None:
        self.app = app
        self.rates = rates

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            who = self.principal(scope)
            if who is not None:
                if not self.rates.token(who):
                    await _answer(send, 429, "rate_limited",
                                  "too many requests with this token; retry later",
                                  ((b"retry-after", b"1"),))
                    return
                body = scope.get(BODY)
                if isinstance(body, bytes) and opens_session(scope, body) and \
                        not self.rates.session(who):
                    await _answer(send, 429, "rate_limited", "too many new sessions with this "
                                  "token; reuse an open session or retry later",
                                  ((b"retry-after", b"60"),))
                    return
        await self.app(scope, receive, send)

    @staticmethod
    def principal(scope: Scope) -> str | None:
        """The principal of the token the bearer check accepted (``token:1``), or None."""
        token = getattr(scope.get("user"), "access_token", None)
        who = getattr(token, "client_id", None)
        return who if isinstance(who, str) and who else None


__all__ = ["BODY", "DEFAULT_ADDRESS_CONNECTIONS", "DEFAULT_ADDRESS_RATE", "DEFAULT_BODY_TIMEOUT",
           "DEFAULT_HEADER_TIMEOUT", "DEFAULT_MAX_BODY", "DEFAULT_MAX_CONNECTIONS",
           "DEFAULT_SESSION_RATE", "DEFAULT_STOP_TIMEOUT", "DEFAULT_TOKEN_RATE", "GONE",
           "MAX_SESSIONS", "SESSION_IDLE_SECONDS", "Guard", "GuardSettings",
           "Rates", "RefusalLog", "TokenLimits", "check_rate", "opens_session"]
