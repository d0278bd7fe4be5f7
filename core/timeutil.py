"""Time handling: every time in the store is an integer of microseconds since
the Unix epoch (UTC), which compares exactly and the same way on SQLite and
PostgreSQL. Offsets are kept separately (minutes east of UTC) for display.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta, timezone, tzinfo

from .errors import InvalidInput

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_ONE_US = timedelta(microseconds=1)


def parse_time(text: str, what: str = "time") -> datetime:
    """Parse an ISO 8601 time that carries an offset.

    Raises InvalidInput when the text is not ISO 8601 or has no UTC offset
    (a time without an offset is an error, never a guess).
    """
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput(f"{what} must be an ISO 8601 string, got {text!r}")
    try:
        value = datetime.fromisoformat(text.strip())
    except ValueError:
        raise InvalidInput(f"{what} is not an ISO 8601 time: {text!r}") from None
    if value.tzinfo is None or value.utcoffset() is None:
        raise InvalidInput(f"{what} has no UTC offset: {text!r} (write e.g. 2026-03-18T09:30:00+08:00)")
    try:
        value.astimezone(UTC)
    except OverflowError:
        raise InvalidInput(f"{what} is out of range once converted to UTC: {text!r}") from None
    return value


def to_us(value: datetime) -> int:
    """Microseconds since the epoch for an aware datetime. Raises InvalidInput if naive."""
    if value.tzinfo is None:
        raise InvalidInput(f"time without offset: {value.isoformat()}")
    return (value - _EPOCH) // _ONE_US


def offset_minutes(value: datetime) -> int:
    """Minutes east of UTC of an aware datetime."""
    off = value.utcoffset()
    return int(off.total_seconds() // 60) if off is not None else 0


def from_us(us: int, offset_min: int = 0) -> datetime:
    """The aware datetime for microseconds since the epoch, shown at ``offset_min``."""
    tz = UTC if offset_min == 0 else timezone(timedelta(minutes=offset_min))
    return (_EPOCH + timedelta(microseconds=us)).astimezone(tz)


def iso(us: int | None, offset_min: int = 0) -> str | None:
    """ISO 8601 text for microseconds since the epoch, or None for None."""
    if us is None:
        return None
    return from_us(us, offset_min).isoformat()


def parse_time_us(text: str, what: str = "time") -> int:
    """parse_time then to_us. Raises InvalidInput."""
    return to_us(parse_time(text, what))


def read_moment(text: str, what: str = "time",
                zone: tzinfo | None = None) -> tuple[int, str | None]:
    """A moment typed by a person, in µs, and how it was read. A bare day
    (2026-06-14) means the end of that day in ``zone`` (default: this
    machine's timezone), and the note says so; anything else must be a full
    ISO 8601 time with its offset, as for ``parse_time`` (note None).
    Raises InvalidInput."""
    text = text.strip()
    if len(text) == 10 and text[4] == "-" and text[7] == "-":
        try:
            day = date.fromisoformat(text)
        except ValueError:
            raise InvalidInput(f"{what}: not a date: {text!r}") from None
        where = zone or datetime.now().astimezone().tzinfo
        end = datetime.combine(day, time(23, 59, 59, 999999), tzinfo=where)
        place = "this machine's timezone" if zone is None else f"UTC{end.isoformat()[-6:]}"
        return to_us(end), (f"{what} {text} read as {end.isoformat(timespec='seconds')}, "
                            f"the end of that day in {place}")
    return parse_time_us(text, what), None
