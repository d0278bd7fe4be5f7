"""The time axes of a fact row (docs/DESIGN.md §2.1) as SQL conditions.

A fact row carries three times:

* **valid time** ``[valid_from, valid_to)``: when the statement is true in the world;
* **told time** ``[known_from, known_until)``: when the store was told what
  made it write the row, and what retired it (a source turn's time; for a
  person's decision, the time it was taken). ``known_at`` queries read this
  axis: "what had the store been told by T", the same whatever order turns
  about different people arrived in;
* **recorded time** ``[recorded_at, retired_at)``: when this store wrote the
  row and its retirement stamp, by its own clock: monotone, never moved by
  input. ``recorded_at`` queries read it: what the store would have answered
  at that moment.

Rows written before revision 0007 have NULL ``known_from``/``known_until``:
the two axes were one then, so those read as ``recorded_at``/``retired_at``.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, func, or_

from .tables import FACT

KNOWN_FROM = func.coalesce(FACT.c.known_from, FACT.c.recorded_at)
"""Where a row starts on the told axis."""
KNOWN_UNTIL = func.coalesce(FACT.c.known_until, FACT.c.retired_at)
"""Where a row ends on the told axis (NULL: still believed)."""


def told_by(known_at: Any) -> tuple[ColumnElement[bool], ...]:
    """Rows believed as the store had been told by ``known_at`` (a value or bind parameter)."""
    return (KNOWN_FROM <= known_at, or_(KNOWN_UNTIL.is_(None), KNOWN_UNTIL > known_at))


def recorded_by(recorded_at: Any, known_at: Any) -> tuple[ColumnElement[bool], ...]:
    """Rows believed, as told by ``known_at``, among what the store had
    written by ``recorded_at``: written by then, told by ``known_at``, and
    not retired as both axes stood (a retirement recorded later did not count yet)."""
    return (FACT.c.recorded_at <= recorded_at, KNOWN_FROM <= known_at,
            or_(FACT.c.retired_at.is_(None), FACT.c.retired_at > recorded_at,
                KNOWN_UNTIL > known_at))


__all__ = ["KNOWN_FROM", "KNOWN_UNTIL", "recorded_by", "told_by"]
