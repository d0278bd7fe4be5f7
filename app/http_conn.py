"""The HTTP door's connections: how long a client may take, how many it may hold.

An ASGI middleware sees a request only once its headers are complete, so a
client that opens connections and sends nothing, or dribbles its headers or
its body a byte at a time, never reaches ``app.http_guard``. This module
bounds that below the request, in the HTTP protocol uvicorn runs for each
connection (its h11 protocol, subclassed):

* **header timeout**: from the moment a connection opens (or a kept-alive
  one starts a new request) its request line and headers must be complete
  within ``header_timeout`` seconds; otherwise it is answered 408 and closed;
* **body timeout**: once the headers are in, the whole body must arrive
  within ``body_timeout`` seconds; otherwise 408 (if nothing was answered
  yet) and the connection is closed, and the request's handler sees the
  client gone;
* **connection caps**: at most ``max_connections`` connections open at once,
  and at most ``address_connections`` from one client address; one past a
  cap is answered 503 at once and closed, before any of it is read.
  Connections from a trusted proxy (``--forwarded-allow-ips``) carry many
  clients, so only the total cap applies to them.

Idle kept-alive connections are closed by uvicorn's own keep-alive timeout
(5 s). A TLS handshake happens before a connection reaches this protocol;
asyncio gives it 60 s. Each refusal is counted in the door's ``RefusalLog``.
"""

from __future__ import annotations

import asyncio
import ipaddress
from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from .http_guard import GuardSettings, RefusalLog

_TIMEOUT = (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
            b"content-length: 16\r\nconnection: close\r\n\r\nrequest timeout\n")
_BUSY = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
         b"retry-after: 1\r\ncontent-length: 21\r\nconnection: close\r\n\r\ntoo many connections\n")

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_trusted(text: str | None) -> tuple[str, ...]:
    """The ``--forwarded-allow-ips`` list (addresses, networks like
    10.0.0.0/8, or ``*``), comma-separated; empty for None. Raises
    ValueError naming the item that is none of these."""
    if text is None or not text.strip():
        return ()
    items = tuple(item.strip() for item in text.split(",") if item.strip())
    for item in items:
        if item == "*":
            continue
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise ValueError(f"--forwarded-allow-ips: {item!r} is not an address, a network "
                             "(10.0.0.0/8) or *") from None
    return items


class _Trusted:
    """Whether an address is one of the trusted proxies."""

    def __init__(self, items: tuple[str, ...]) -> None:
        self.everyone = "*" in items
        self.networks: list[Network] = [ipaddress.ip_network(i, strict=False)
                                        for i in items if i != "*"]

    def __contains__(self, host: object) -> bool:
        if self.everyone:
            return True
        if not self.networks or not isinstance(host, str):
            return False
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(address in net for net in self.networks)


@dataclass(frozen=True, slots=True)
class Admission:
    """Whether a new connection is admitted, and why not."""

    admitted: bool
    reason: str = ""


class ConnectionBook:
    """The connections one server holds open, in all and per address (one
    book per server; its protocol class is made by ``protocol_class``)."""

    def __init__(self, settings: GuardSettings, log: RefusalLog | None = None) -> None:
        self.settings = settings
        self.log = log if log is not None else RefusalLog()
        self.trusted = _Trusted(settings.forwarded_allow_ips)
        self.per_address: Counter[str] = Counter()
        self.total = 0
        self.refused: Counter[str] = Counter()

    def admit(self, address: str | None) -> Admission:
        if self.total >= self.settings.max_connections:
            return self._refuse("too many connections")
        key = address or "unknown"
        if key not in self.trusted and self.per_address[key] >= self.settings.address_connections:
            return self._refuse("too many connections from one address")
        self.total += 1
        self.per_address[key] += 1
        return Admission(True)

    def release(self, address: str | None) -> None:
        key = address or "unknown"
        self.total -= 1
        self.per_address[key] -= 1
        if self.per_address[key] <= 0:
            del self.per_address[key]

    def _refuse(self, reason: str) -> Admission:
        self.count(reason)
        return Admission(False, reason)

    def count(self, reason: str) -> None:
        self.refused[reason] += 1
        self.log.count(reason)


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with the bounds of the module docstring; made
    per server by ``protocol_class`` (``book`` is that server's)."""

    book: ClassVar[ConnectionBook]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._address: str | None = None
        self._admitted = False
        self._header_timer: asyncio.TimerHandle | None = None
        self._body_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._address = self.client[0] if self.client else None
        admission = self.book.admit(self._address)
        if not admission.admitted:
            transport.write(_BUSY)
            transport.close()
            return
        self._admitted = True
        self._header_timer = self.loop.call_later(self.book.settings.header_timeout,
                                                  self._headers_too_slow)

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_timers()
        if self._admitted:
            self._admitted = False
            self.book.release(self._address)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def _arm(self) -> None:
        """Start or stop the timers for the state the request is in."""
        if self.transport.is_closing():
            self._stop_timers()
            return
        state = self.conn.their_state
        settings = self.book.settings
        if state is h11.IDLE and self.conn.our_state is h11.IDLE:
            # between requests: the keep-alive timer runs while nothing came;
            # once a byte of the next request came, its headers are on the clock
            if self.timeout_keep_alive_task is None and self._header_timer is None:
                self._header_timer = self.loop.call_later(settings.header_timeout,
                                                          self._headers_too_slow)
        elif self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None
        if state is h11.SEND_BODY:
            if self._body_timer is None:
                self._body_timer = self.loop.call_later(settings.body_timeout,
                                                        self._body_too_slow)
        elif self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None

    def _stop_timers(self) -> None:
        for timer in (self._header_timer, self._body_timer):
            if timer is not None:
                timer.cancel()
        self._header_timer = self._body_timer = None

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        self.book.count("timed out (headers)")
        self.transport.write(_TIMEOUT)
        self.transport.close()

    def _body_too_slow(self) -> None:
        self._body_timer = None
        if self.transport.is_closing() or self.conn.their_state is not h11.SEND_BODY:
            return
        self.book.count("timed out (body)")
        cycle = self.cycle
        if cycle is not None and not cycle.response_started:
            cycle.disconnected = True  # the handler's reads see the client gone, its answer is dropped
            cycle.message_event.set()
            self.transport.write(_TIMEOUT)
        self.transport.close()


def protocol_class(book: ConnectionBook) -> type[GuardedH11Protocol]:
    """The protocol class uvicorn should run (``uvicorn.Config(http=...)``)
    for a server whose connections ``book`` counts."""
    return type("DoorProtocol", (GuardedH11Protocol,), {"book": book})


__all__ = ["Admission", "ConnectionBook", "GuardedH11Protocol", "parse_trusted",
           "protocol_class"]
