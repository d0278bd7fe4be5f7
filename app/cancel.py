"""Work done for an HTTP request stops once nobody waits for its answer.

The door's guard (``app.http_guard``) gives each request a ``Cancellation``
and makes it the current one (a context variable: it follows the request
into the MCP session's handler and into the worker thread a tool runs in).
The guard cancels it when the client goes away before its answer is
complete, or when the server is stopping (``InFlight.cancel_all``).

Python cannot stop a thread from outside, so the work notices at its next
step: a tool checks before it starts (``check_current``), and
``stop_cancelled_work(engine)`` makes the store refuse every further
statement and the commit of a cancelled request. The statement running when
the cancellation came finishes, the next one raises ``RequestCancelled``,
and the transaction rolls back: a request whose client went away before its
write committed writes nothing. A step that never touches the store (rule
extraction, an embedding) runs to its end; the per-request work bounds keep
that short.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from memdesk import RequestCancelled, refuse_statements


class Cancellation:
    """One request's cancellation: None until ``cancel(reason)``; then every
    ``check`` raises ``RequestCancelled`` naming the reason."""

    __slots__ = ("_lock", "_reason")

    def __init__(self) -> None:
        self._reason: str | None = None
        self._lock = threading.Lock()

    @property
    def reason(self) -> str | None:
        return self._reason

    def cancel(self, reason: str) -> bool:
        """Cancel (the first reason stays); whether this call cancelled it."""
        with self._lock:
            if self._reason is not None:
                return False
            self._reason = reason
            return True

    def check(self) -> None:
        """Raises RequestCancelled once cancelled."""
        reason = self._reason
        if reason is not None:
            raise RequestCancelled(f"cancelled: {reason}; nothing of this request was written")


_current: ContextVar[Cancellation | None] = ContextVar("memdesk_request_cancellation",
                                                       default=None)


@contextmanager
def current_request(cancellation: Cancellation) -> Iterator[Cancellation]:
    """Make ``cancellation`` the current request's within the block (and in
    every task and worker thread started from it)."""
    token = _current.set(cancellation)
    try:
        yield cancellation
    finally:
        _current.reset(token)


def check_current() -> None:
    """Raises RequestCancelled when the current request (if any) is cancelled."""
    cancellation = _current.get()
    if cancellation is not None:
        cancellation.check()


class InFlight:
    """The cancellations of the requests being served, so that stopping the
    server can cancel them all."""

    def __init__(self) -> None:
        self._open: set[Cancellation] = set()
        self._lock = threading.Lock()
        self.stopping: str | None = None

    def add(self, cancellation: Cancellation) -> None:
        with self._lock:
            self._open.add(cancellation)
        if self.stopping is not None:
            cancellation.cancel(self.stopping)

    def discard(self, cancellation: Cancellation) -> None:
        with self._lock:
            self._open.discard(cancellation)

    def __len__(self) -> int:
        return len(self._open)

    def cancel_all(self, reason: str) -> int:
        """Cancel every request in flight and every one that starts later;
        how many were in flight."""
        with self._lock:
            self.stopping = reason
            open_now = list(self._open)
        return sum(c.cancel(reason) for c in open_now)


def _refuse(*_event: Any) -> None:
    """Run before a statement or a commit (``refuse_statements``): raises
    RequestCancelled when the current request is cancelled."""
    check_current()


def stop_cancelled_work(engine: Any) -> None:
    """From now on, a statement or a commit on ``engine`` (a store's) for a
    cancelled request raises RequestCancelled (the transaction rolls back).
    Work outside any request (no current cancellation) is not affected;
    calling it again on the same engine changes nothing."""
    refuse_statements(engine, _refuse)


__all__ = ["Cancellation", "InFlight", "check_current", "current_request",
           "stop_cancelled_work"]
