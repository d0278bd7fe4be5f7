"""The reads of the agent's door (``core.memory.Memory``): who a session's
turns belong to, what a session already holds (so a resent conversation is
not stored twice), one stored turn, and the claim a proposal left on it.
Errors are the driver's.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, func, select

from .tables import CLAIM, TURN
from .writes import chunks


def session_users(conn: Connection, session: str) -> list[str | None]:
    """The distinct users of the turns of ``session`` (None: a turn without one)."""
    return [u for (u,) in conn.execute(select(TURN.c.user).distinct()
                                       .where(TURN.c.session == session))]


def last_turn(conn: Connection, session: str) -> int | None:
    """The highest turn number of ``session`` (None when it has no turn)."""
    return conn.execute(select(func.max(TURN.c.turn)).where(TURN.c.session == session)).scalar()


def latest_time(conn: Connection, session: str) -> tuple[int, int | None] | None:
    """(time, its offset in minutes) of the latest turn of ``session``, or None."""
    latest = conn.execute(select(TURN.c.time, TURN.c.time_tz).where(TURN.c.session == session)
                          .order_by(TURN.c.time.desc()).limit(1)).first()
    return None if latest is None else (latest[0], latest[1])


def turns_like_these(conn: Connection, session: str, texts: list[str], numbers: list[int]
                     ) -> list[tuple[Any, Any, Any, Any]]:
    """(turn, speaker, text, time) of the turns of ``session`` with one of
    ``texts`` (500 a query), then of those with one of the turn ``numbers``
    (500 a query); a turn matching both comes twice."""
    cols = (TURN.c.turn, TURN.c.speaker, TURN.c.text, TURN.c.time)
    in_session = TURN.c.session == session
    rows: list[Any] = []
    for part in chunks(texts):
        rows += conn.execute(select(*cols).where(in_session, TURN.c.text.in_(part))).all()
    for part in chunks(numbers):
        rows += conn.execute(select(*cols).where(in_session, TURN.c.turn.in_(part))).all()
    return [(n, s, t, us) for n, s, t, us in rows]


def stored_turn(conn: Connection, session: str, turn: int
                ) -> tuple[str, str, int, int | None, str | None] | None:
    """(speaker, text, time, offset, user) of turn ``turn`` of ``session``, or None."""
    row = conn.execute(select(TURN.c.speaker, TURN.c.text, TURN.c.time, TURN.c.time_tz,
                              TURN.c.user)
                       .where(TURN.c.session == session, TURN.c.turn == turn)).first()
    return None if row is None else (row[0], row[1], row[2], row[3], row[4])


def claim_on_turn(conn: Connection, session: str, turn: int, claim_key: str) -> int | None:
    """The id of the claim with key ``claim_key`` on turn ``turn`` of
    ``session`` (one per turn and key), or None."""
    return conn.execute(
        select(CLAIM.c.id).join(TURN, TURN.c.id == CLAIM.c.turn_id)
        .where(TURN.c.session == session, TURN.c.turn == turn,
               CLAIM.c.claim_key == claim_key)).scalar()


__all__ = ["claim_on_turn", "last_turn", "latest_time", "session_users", "stored_turn",
           "turns_like_these"]
