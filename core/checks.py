"""Single values checked alike at every door: the rules an import line's fields
follow (``core.claims``), for the same values given one at a time — a reviewer's
name, a reason, a subject to look up, an id. The command line, the Store and
Memory APIs and the MCP tools check them here before a value reaches a query or
a write. Pure functions; each raises InvalidInput saying what is wrong.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from .catalog import is_predicate_id
from .errors import InvalidInput
from .names import identifier
from .timeutil import to_us

MAX_TURN = 2**31 - 1  # turn numbers are 32-bit integers in the store
MIN_TURN = 1  # turns are numbered from 1 (``Memory.remember`` numbers them so)
MAX_ID = 2**63 - 1  # row ids and counts are 64-bit integers in the store
MAX_NAME = 200  # identifiers that are indexed (subject, scope, session, …): PostgreSQL
# refuses index entries of more than about 2.7 kB, and no name needs that much
SCOPE_PATTERN = re.compile(r"^(global|project|session)(:\S.*)?$")
_SUBJECT = re.compile(r"^[A-Za-z_][\w.-]*:\S.*$")


def _clean(text: str, label: str) -> str:
    """``text`` if a database can store it: no NUL character, no lone UTF-16
    surrogate (what undecodable bytes in a command line become). Raises InvalidInput."""
    if "\x00" in text:
        raise InvalidInput(f"{label} contains a NUL character")
    return _encodable(text, label)


def _encodable(text: str, label: str) -> str:
    """``text`` unless it holds a lone UTF-16 surrogate. Raises InvalidInput."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidInput(f"{label} contains a lone surrogate (invalid Unicode), "
                               "which cannot be stored") from None
    return text


def _short_number(number: int) -> str:
    """A whole number as it reads in a one-line message: its first digits when it is long."""
    if number.bit_length() > 14_000:  # past what Python writes as text by default
        return "of thousands of digits"
    text = str(number)
    return f"{text[:12]}… ({len(text.lstrip('-'))} digits)" if len(text) > 40 else text


def check_storable(text: str, label: str) -> str:
    """``text`` unchanged (kept verbatim, unlike the stripped checks below) if
    a database can store it: no NUL character, no lone surrogate. Raises InvalidInput."""
    return _clean(text, label)


def check_name(value: Any, label: str, *, limit: int = MAX_NAME) -> str:
    """A required name (a user, a session, a project, a reviewer, an
    extractor, a token's name): a non-empty string of at most ``limit``
    characters, stripped and NFKC-normalised, holding no control, format or
    invisible character (``names.identifier``). Raises InvalidInput saying
    what is wrong (the character as U+XXXX)."""
    text = identifier(check_required_text(value, label), label)
    if not text:
        raise InvalidInput(f"{label} must not be empty")
    if len(text) > limit:
        raise InvalidInput(f"{label} is longer than {limit} characters")
    return text


def check_stored_name(value: Any, label: str, *, limit: int = MAX_NAME) -> str:
    """A name exactly as it may be stored, taken verbatim (stripped, never
    normalised): for the one lookup that must reach whatever a store holds,
    names written before ``check_name`` normalised them included (erasure).
    Raises InvalidInput."""
    text = check_required_text(value, label)
    if len(text) > limit:
        raise InvalidInput(f"{label} is longer than {limit} characters")
    return text


def check_text(value: Any, label: str, *, required: bool = False) -> str | None:
    """Free text (a reason, a note), stripped; None (or blank) gives None
    unless ``required``. Raises InvalidInput for a value that is not text, holds
    a NUL character or a lone surrogate, or is missing or blank when required."""
    if value is None:
        if required:
            raise InvalidInput(f"{label} is required")
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"{label} must be a string, got {type(value).__name__}")
    text = value.strip()
    if not text:
        if required:
            raise InvalidInput(f"{label} must not be empty")
        return None
    return _clean(text, label)


def check_required_text(value: Any, label: str) -> str:
    """Required free text (a rejection's reason, an object), stripped: ``check_text``
    with ``required``. Raises InvalidInput."""
    text = check_text(value, label, required=True)
    assert text is not None  # required: never None
    return text


def check_subject(value: Any, label: str = "subject") -> str:
    """A subject as import lines write it (``user:NAME``, ``project:NAME``).
    Raises InvalidInput."""
    subject = check_name(value, label)
    if not _SUBJECT.match(subject):
        raise InvalidInput(f"{label} must look like 'user:NAME' or 'project:NAME', got {subject!r}")
    return subject


def check_predicate(value: Any, label: str = "predicate") -> str:
    """A predicate id (snake_case, e.g. lives_in). Raises InvalidInput."""
    predicate = check_name(value, label)
    if not is_predicate_id(predicate):
        raise InvalidInput(f"{label} must be a snake_case id like lives_in, got {predicate!r}")
    return predicate


def check_scope(value: Any, label: str = "scope") -> str:
    """A scope: global, project or session, optionally ``:NAME``. Raises InvalidInput."""
    scope = check_name(value, label)
    if not SCOPE_PATTERN.match(scope):
        raise InvalidInput(f"{label} must be global, project or session (optionally ':NAME'), "
                           f"got {scope!r}")
    return scope


def check_turn(value: Any, label: str = "turn") -> int:
    """A turn number: a whole number from MIN_TURN (1) to 2^31 - 1 (the store's integers).
    Raises InvalidInput."""
    if isinstance(value, bool) or not isinstance(value, int) or not MIN_TURN <= value <= MAX_TURN:
        raise InvalidInput(f"{label} must be a whole number from {MIN_TURN} to {MAX_TURN}, "
                           f"got {_short_number(value) if isinstance(value, int) else repr(value)}")
    return value


def check_id(value: Any, label: str = "id") -> int:
    """A row id: a whole number from 1 to 2^63 - 1 (the store's integers).
    Raises InvalidInput."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_ID:
        raise InvalidInput(f"{label} must be a whole number from 1 to {MAX_ID}, got {value!r}")
    return value


def check_count(value: Any, label: str) -> int:
    """A count or offset: a whole number from 0 to 2^63 - 1. Raises InvalidInput."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_ID:
        raise InvalidInput(f"{label} must be a whole number from 0 to {MAX_ID}, got {value!r}")
    return value


_FIRST_US = to_us(datetime.min.replace(tzinfo=UTC))
_LAST_US = to_us(datetime.max.replace(tzinfo=UTC))


def check_moment(value: Any, label: str) -> int:
    """A time already in microseconds since the epoch: a whole number within
    the calendar (years 1 to 9999). Raises InvalidInput."""
    if isinstance(value, bool) or not isinstance(value, int) or not _FIRST_US <= value <= _LAST_US:
        raise InvalidInput(f"{label} must be microseconds since the epoch within years 1 to "
                           f"9999 (or an aware datetime), got {value!r}")
    return value
