"""Transaction-time clocks. The store asks its clock for "now" at the start of
each write; it never lets transaction time move backwards (see Store)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Protocol

from .timeutil import to_us


class Clock(Protocol):
    """Anything that tells the current time as an aware datetime."""

    def now(self) -> datetime: ...


class SystemClock:
    """The wall clock, in UTC."""

    def now(self) -> datetime:
        return datetime.now(UTC)


class ManualClock:
    """A clock that only moves when told to: for tests and for replaying history."""

    def __init__(self, start: datetime) -> None:
        self._now = start

    def now(self) -> datetime:
        return self._now

    def set(self, value: datetime) -> None:
        self._now = value


def now_us(clock: Clock) -> int:
    """The clock's time in microseconds since the epoch."""
    return to_us(clock.now())
