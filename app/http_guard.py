"""The HTTP door's guard: what one client can make the server do.

An ASGI middleware in front of the MCP app (``app.mcp_server``), before the
bearer-token check, so that a flood or an oversized request costs the server
almost nothing and never reaches the store:

* a request body larger than ``max_body`` bytes is refused (413) without
  being read further; a ``Content-Length`` that says so is refused unread;
* each client address, and each credential (the ``Authorization`` header,
  hashed: a good, wrong or revoked token alike), gets a moving-window rate
  limit (``limits``); past it the answer is 429 with ``Retry-After``;
* each credential may open only so many MCP sessions (``initialize``
  without a session id) per window, so one token cannot fill the server's
  session table (``MAX_SESSIONS``, idle ones closed after
  ``SESSION_IDLE_SECONDS``);
* every refused request (4xx from here or from the token check behind it)
  is counted by status, and reported on stderr at most once a second, so a
  flood cannot flood the log either.

The limits are in ``limits``' notation (``30/second``, ``600/minute``).
"""

from __future__ import annotations

import hashlib
import json
import sys
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any, TextIO

from limits import parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

DEFAULT_MAX_BODY = 1 << 20  # 1 MiB: a long conversation in one remember call
DEFAULT_TOKEN_RATE = "30/second"
DEFAULT_ADDRESS_RATE = "120/second"
DEFAULT_SESSION_RATE = "10/minute"
MAX_SESSIONS = 256
SESSION_IDLE_SECONDS = 600


def check_rate(text: str, what: str) -> str:
    """A rate in ``limits``' notation (``30/second``). Raises ValueError naming ``what``."""
    try:
        parse(text)
    except ValueError:
        raise ValueError(f"{what} must look like 30/second or 600/minute, got {text!r}") from None
    return text


@dataclass(frozen=True, slots=True)
class GuardSettings:
    max_body: int = DEFAULT_MAX_BODY
    token_rate: str = DEFAULT_TOKEN_RATE
    address_rate: str = DEFAULT_ADDRESS_RATE
    session_rate: str = DEFAULT_SESSION_RATE


class RefusalLog:
    """Refused requests counted by reason; a line on ``out`` at most every
    ``every`` seconds with what was refused since the last line."""

    def __init__(self, out: TextIO | None = None, every: float = 1.0) -> None:
        self.total: Counter[str] = Counter()
        self._pending: Counter[str] = Counter()
        self._out = out if out is not None else sys.stderr
        self._every = every
        self._last = 0.0
        self._lock = threading.Lock()

    def count(self, reason: str) -> None:
        with self._lock:
            self.total[reason] += 1
            self._pending[reason] += 1
            now = time.monotonic()
            if now - self._last < self._every:
                return
            self._last = now
            said = ", ".join(f"{n} {r}" for r, n in sorted(self._pending.items()))
            self._pending.clear()
        print(f"memdesk mcp: refused {said}", file=self._out, flush=True)


_REASONS = {400: "malformed", 401: "unauthenticated", 403: "forbidden", 404: "unknown session",
            405: "wrong method", 406: "not acceptable", 413: "too large", 415: "wrong type",
            429: "rate limited", 503: "busy"}


async def _answer(send: Send, status: int, error: str, description: str,
                  headers: tuple[tuple[bytes, bytes], ...] = ()) -> None:
    body = json.dumps({"error": error, "error_description": description}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()), *headers]})
    await send({"type": "http.response.body", "body": body})


class Guard:
    """The ASGI middleware (see the module docstring)."""

    def __init__(self, app: ASGIApp, settings: GuardSettings | None = None,
                 log: RefusalLog | None = None) -> None:
        self.app = app
        self.settings = settings = settings or GuardSettings()
        self.log = log if log is not None else RefusalLog()
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self._per_token = parse(settings.token_rate)
        self._per_address = parse(settings.address_rate)
        self._sessions = parse(settings.session_rate)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        counted = self._counting(send)
        limited = self._rate_limited(scope)
        if limited is not None:
            self.log.count(_REASONS[429])
            await _answer(send, 429, "rate_limited", f"too many requests {limited}; retry later",
                          ((b"retry-after", b"1"),))
            return
        if scope.get("method") in ("POST", "PUT", "PATCH"):
            body = await self._read_body(scope, receive)
            if body is None:
                self.log.count(_REASONS[413])
                await _answer(send, 413, "request_too_large",
                              f"the request body is larger than {self.settings.max_body} bytes")
                return
            if self._too_many_sessions(scope, body):
                self.log.count(_REASONS[429])
                await _answer(send, 429, "rate_limited", "too many new sessions with this "
                              "token; reuse an open session or retry later",
                              ((b"retry-after", b"60"),))
                return
            receive = self._replay(body, receive)
        await self.app(scope, receive, counted)

    def _too_many_sessions(self, scope: Scope, body: bytes) -> bool:
        """Whether this request opens a session (``initialize`` without a
        session id) past its credential's session limit."""
        headers = dict(scope.get("headers", ()))
        if b"mcp-session-id" in headers or b'"initialize"' not in body:
            return False
        try:
            message = json.loads(body)
        except ValueError:
            return False  # malformed: the endpoint says so
        if not isinstance(message, dict) or message.get("method") != "initialize":
            return False
        key = hashlib.sha256(headers.get(b"authorization", b"")).hexdigest()[:32]
        return not self._limiter.hit(self._sessions, "sessions", key)

    def _rate_limited(self, scope: Scope) -> str | None:
        """Why the request is over a rate limit (``from 127.0.0.1``), or None."""
        client = scope.get("client")
        address = str(client[0]) if client else "unknown"
        if not self._limiter.hit(self._per_address, "address", address):
            return f"from {address}"
        credential = next((v for k, v in scope.get("headers", ()) if k == b"authorization"), None)
        if credential is not None:
            key = hashlib.sha256(credential).hexdigest()[:32]
            if not self._limiter.hit(self._per_token, "credential", key):
                return "with this token"
        return None

    async def _read_body(self, scope: Scope, receive: Receive) -> bytes | None:
        """The whole body, or None when it is larger than ``max_body`` (read no further)."""
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

    def _counting(self, send: Send) -> Send:
        async def counted(message: Message) -> None:
            if message["type"] == "http.response.start":
                status = int(message["status"])
                if 400 <= status < 600:
                    self.log.count(_REASONS.get(status, f"HTTP {status}"))
            await send(message)
        return counted


__all__ = ["DEFAULT_ADDRESS_RATE", "DEFAULT_MAX_BODY", "DEFAULT_SESSION_RATE",
           "DEFAULT_TOKEN_RATE", "MAX_SESSIONS", "SESSION_IDLE_SECONDS", "Guard", "GuardSettings",
           "RefusalLog", "check_rate"]
