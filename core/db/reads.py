"""Reads the Store's facets share: facts by a condition or by id, the review
candidate's statement (a claim joined with its source turn), the record
built from one of its rows and the candidates of a list of claims, one claim
row, and a prefix test that walks an index."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, Engine, and_, select

from ..records import Candidate, Fact, Source
from .tables import CLAIM, CONFLICT, FACT, TURN
from .writes import chunks


def starts_with(column: Any, prefix: str) -> Any:
    """``column`` starts with ``prefix``, as a range instead of LIKE, so both
    backends walk the column's index (and no LIKE wildcard needs escaping)."""
    return and_(column >= prefix, column < prefix + "\U0010ffff")


def select_facts(engine: Engine, *where: Any) -> list[Fact]:
    """Fact rows meeting ``where``, by predicate, valid time, recorded time and id."""
    stmt = select(*FACT.c).where(*where).order_by(
        FACT.c.predicate, FACT.c.valid_from, FACT.c.recorded_at, FACT.c.id)
    with engine.connect() as conn:
        return [Fact(*r) for r in conn.execute(stmt)]  # columns in FACT_COLUMNS order


def candidate_stmt() -> Any:
    """Claims joined with their source turn, as ``candidate_from_row`` reads them."""
    return select(*CLAIM.c, TURN.c.session, TURN.c.turn, TURN.c.speaker, TURN.c.text,
                  TURN.c.time, TURN.c.time_tz, TURN.c.recorded_at.label("turn_recorded_at")
                  ).join(TURN, TURN.c.id == CLAIM.c.turn_id)


def candidate_from_row(row: Any) -> Candidate:
    """The review candidate of one row of ``candidate_stmt``."""
    m = row._mapping
    source = Source(m["session"], m["turn"], m["speaker"], m["text"], m["time"],
                    m["time_tz"], m["source_kind"], m["id"], m["confidence"],
                    m["extractor"])
    return Candidate(
        id=m["id"], subject=m["subject"], predicate=m["predicate"], object=m["object"],
        value_json=m["value"], polarity=m["polarity"], scope=m["scope"],
        valid_from=m["valid_from"], valid_to=m["valid_to"], confidence=m["confidence"],
        reasons=tuple(json.loads(m["reasons"])), state=m["state"], change=m["change"],
        source=source, created_at=m["created_at"], decided_by=m["decided_by"],
        decided_at=m["decided_at"], decision_reason=m["decision_reason"],
        fact_id=m["fact_id"], edits=json.loads(m["edits"]) if m["edits"] else None,
    )


def facts_with_ids(engine: Engine, fact_ids: list[int]) -> list[Fact]:
    """The fact rows of ``fact_ids``, 500 ids a query (each on its own connection)."""
    out: list[Fact] = []
    for part in chunks(fact_ids):
        out.extend(select_facts(engine, FACT.c.id.in_(part)))
    return out


def candidates_with_ids(engine: Engine, claim_ids: list[int]) -> list[Candidate]:
    """The review candidates of ``claim_ids``, 500 ids a query, on one connection."""
    out: list[Candidate] = []
    with engine.connect() as conn:
        for part in chunks(claim_ids):
            out.extend(candidate_from_row(row)
                       for row in conn.execute(candidate_stmt().where(CLAIM.c.id.in_(part))))
    return out


def row_by_id(conn: Connection, table: str, row_id: int) -> dict[str, Any] | None:
    """Every column of claim ``row_id`` (``table`` "claim") or conflict
    ``row_id`` (``table`` "conflict"), by name, read on ``conn``; None when
    there is no such row."""
    t = CLAIM if table == "claim" else CONFLICT
    row = conn.execute(select(*t.c).where(t.c.id == row_id)).first()
    return None if row is None else dict(row._mapping)


def claim_row(conn: Connection, claim_id: int) -> dict[str, Any] | None:
    """Every column of one claim row, by name, read on ``conn``; None when there is none."""
    return row_by_id(conn, "claim", claim_id)
