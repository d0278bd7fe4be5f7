"""The write path inside one transaction: gates, bitemporal changes, audit.

A ``WriteBatch`` lives for exactly one database transaction. It holds the
store's write lock (taken by updating the ``store_meta`` row first, which
serialises writers on SQLite and PostgreSQL alike), keeps transaction time
monotonic, caches the current-belief rows of the slots it touches, and buffers
its inserts so that bulk imports become a few ``executemany`` calls. Nothing is
visible to others until the transaction commits; an exception anywhere rolls
the whole batch back.

Gate order for each claim: provenance (the cited turn is registered, and must
agree with a stored one) -> idempotency (same claim from the same turn again
is a no-op) -> dedup (the same value already holds: merge, count the mention)
-> review (low confidence or agent-inferred: queue) -> conflict / change
(apply the bitemporal plan, or open a conflict).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from operator import itemgetter
from typing import Any

from sqlalchemy import Connection, bindparam, func, select, update

from .bitemporal import Piece, Plan, normalise_object, plan_change, row_key, value_key
from .catalog import Catalog
from .claims import ClaimInput, SourceRef, same_turn
from .errors import PredicateMismatch, StoreError, TurnMismatch
from .extract.sensitive import mask
from .records import Fact, ImportSummary
from .schema import (
    FACT_COLUMNS,
    AuditRow,
    ClaimRow,
    ConflictRow,
    FactRow,
    MemoryRow,
    PredicateUse,
    StoreMeta,
    TurnRow,
)

FACT = FactRow.__table__
CLAIM = ClaimRow.__table__
TURN = TurnRow.__table__
CONFLICT = ConflictRow.__table__
AUDIT = AuditRow.__table__
META = StoreMeta.__table__
PRED = PredicateUse.__table__
MEMORY = MemoryRow.__table__

CHUNK = 500
FLUSH_EVERY = 20_000

_RETIRE_REASON = {"evolution": "superseded", "backfill": "superseded", "correction": "corrected"}
_SUMMARY_FIELD = {
    "insert": "asserted",
    "evolution": "evolutions",
    "backfill": "backfills",
    "correction": "corrections",
}

_RETIRE = (
    update(FACT)
    .where(FACT.c.id == bindparam("b_id"), FACT.c.retired_at.is_(None))
    .values(
        retired_at=bindparam("b_at"),
        retired_by_claim=bindparam("b_by"),
        retire_reason=bindparam("b_reason"),
        retire_note=bindparam("b_note"),
    )
)


_ENCODER = json.JSONEncoder(ensure_ascii=False)


def gate_dict(entry: str) -> dict[str, str | None]:
    """Expand a compact gate record "gate:result[:note]" as stored in audit details."""
    gate, _, rest = entry.partition(":")
    result, _, note = rest.partition(":")
    return {"gate": gate, "result": result, "note": note or None}


def _dumps(value: Any) -> str:
    return _ENCODER.encode(value)




def chunks(items: list, size: int = CHUNK) -> Iterator[list]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def execute_many(conn: Connection, key: str, statement: Any, rows: list,
                 cache: dict[str, tuple[str, tuple[str, ...]]],
                 columns: tuple[str, ...] | None = None) -> int:
    """Run one statement for many rows with a single DBAPI executemany.

    ``rows`` are dicts, or tuples whose values follow ``columns``. The
    statement is compiled once by SQLAlchemy for the connection's dialect
    (with positional parameters, and cached in ``cache`` under ``key``), so
    the SQL stays portable; skipping SQLAlchemy's per-row parameter
    processing is what makes bulk imports fast. Values must already be plain
    DBAPI types. Returns the driver's row count (-1 when it does not tell).
    """
    entry = cache.get(key)
    if entry is None:
        dialect = conn.dialect
        if not dialect.positional:  # psycopg: compile with %s markers instead of %(name)s
            dialect = type(dialect)(paramstyle="format")
        keys = list(columns) if columns is not None else list(rows[0])
        compiled = statement.compile(dialect=dialect, column_keys=keys)
        entry = (str(compiled), tuple(compiled.positiontup))
        cache[key] = entry
    sql, names = entry
    if columns is not None:
        if names != columns:
            order = [columns.index(n) for n in names]
            rows = [tuple(r[i] for i in order) for r in rows]
        params = rows
    else:
        params = list(map(itemgetter(*names), rows))
    cursor = conn.connection.dbapi_connection.cursor()
    try:
        cursor.executemany(sql, params)
        return cursor.rowcount
    finally:
        cursor.close()


def fact_from_row(row: Any) -> Fact:
    """A Fact from a row whose columns are in FACT_COLUMNS order."""
    return Fact(*row)


class WriteBatch:
    """One write transaction's worth of gated changes. Use through Store."""

    def __init__(
        self,
        conn: Connection,
        catalog: Catalog,
        review_threshold: float,
        wall_us: int,
        insert_sql: dict | None = None,
    ) -> None:
        self.conn = conn
        self._insert_sql = {} if insert_sql is None else insert_sql
        self.catalog = catalog
        self.threshold = review_threshold
        self.wall = wall_us
        locked = conn.execute(update(META).where(META.c.id == 1).values(last_tx=META.c.last_tx))
        if locked.rowcount != 1:
            raise StoreError("store_meta row missing: the store was not initialised")
        self.tx = conn.execute(select(META.c.last_tx).where(META.c.id == 1)).scalar_one()
        self._next = {
            name: (conn.execute(select(func.max(table.c.id))).scalar() or 0) + 1
            for name, table in (
                ("fact", FACT), ("claim", CLAIM), ("turn", TURN),
                ("conflict", CONFLICT), ("audit", AUDIT), ("memory", MEMORY),
            )
        }
        self._pairs: dict[tuple[str, str], list[Fact]] = {}
        self._turns: dict[tuple[str, int], tuple[int, SourceRef | None]] = {}
        self._loaded_sessions: set[str] = set()
        self._claim_keys: set[tuple[int, str]] = set()
        self._keys_loaded: set[int] = set()
        self._arity: dict[str, bool] = {
            p: s for p, s in conn.execute(select(PRED.c.predicate, PRED.c.single_valued))
        }
        self._buf: dict[str, list[dict]] = defaultdict(list)
        self._retire: list[dict] = []
        self._unflushed_facts: dict[int, int] = {}  # fact id -> index in _fact_rows
        self._fact_rows: list[Fact] = []
        self._ttl: dict[str, int | None] = {}
        self.route_memories = False  # set by conversation ingest: feed the vector path too
        self._memories: dict[tuple[str, str], int | None] = {}
        self._memory_subjects: set[str] = set()
        self._memory_mentions: dict[int, int] = defaultdict(int)
        self._first = dict(self._next)
        self.retired_ids: list[int] = []
        self.counts: dict[str, int] = defaultdict(int)
        self.new_predicates: list[str] = []

    # ----------------------------------------------------------------- time
    def tick(self, t: int | None = None) -> int:
        """Advance transaction time to ``t`` unless that would move it backwards."""
        if t is not None and t > self.tx:
            self.tx = t
        return self.tx

    def _id(self, name: str) -> int:
        value = self._next[name]
        self._next[name] = value + 1
        return value

    # ------------------------------------------------------------- prefetch
    def prefetch(self, claims: list[ClaimInput]) -> None:
        """Load turns, claim keys and current-belief rows for many claims at once."""
        sessions = sorted({c.source.session for c in claims} - self._loaded_sessions)
        for part in chunks(sessions):
            self._load_turns(part)
        if self.route_memories:
            for part in chunks(sorted({c.subject for c in claims} - self._memory_subjects)):
                self._load_memories(part)
        wanted: dict[str, set[str]] = defaultdict(set)
        for c in claims:
            if (c.subject, c.predicate) not in self._pairs:
                wanted[c.subject].add(c.predicate)
        for part in chunks(sorted(wanted)):
            rows = self.conn.execute(
                select(*FACT.c).where(FACT.c.subject.in_(part), FACT.c.retired_at.is_(None))
            )
            found: dict[tuple[str, str], list[Fact]] = defaultdict(list)
            for row in rows:
                found[(row[1], row[2])].append(fact_from_row(row))
            for subject in part:
                for predicate in wanted[subject]:
                    self._pairs[(subject, predicate)] = found.get((subject, predicate), [])

    def _load_turns(self, sessions: list[str]) -> None:
        rows = self.conn.execute(
            select(TURN.c.id, TURN.c.session, TURN.c.turn, TURN.c.text, TURN.c.time,
                   TURN.c.time_tz, TURN.c.speaker).where(TURN.c.session.in_(sessions))
        )
        for tid, session, turn, text, time, tz, speaker in rows:
            self._turns[(session, turn)] = (
                tid, SourceRef(session, turn, text, time, tz, speaker),
            )
        self._loaded_sessions.update(sessions)

    def _claim_key_seen(self, turn_id: int, key: str) -> bool:
        if turn_id not in self._keys_loaded:
            self._keys_loaded.add(turn_id)
            for (k,) in self.conn.execute(select(CLAIM.c.claim_key).where(CLAIM.c.turn_id == turn_id)):
                self._claim_keys.add((turn_id, k))
        return (turn_id, key) in self._claim_keys

    def current_rows(self, subject: str, predicate: str) -> list[Fact]:
        pair = (subject, predicate)
        rows = self._pairs.get(pair)
        if rows is None:
            rows = [
                fact_from_row(r)
                for r in self.conn.execute(
                    select(*FACT.c).where(
                        FACT.c.subject == subject,
                        FACT.c.predicate == predicate,
                        FACT.c.retired_at.is_(None),
                    )
                )
            ]
            self._pairs[pair] = rows
        return rows

    # ---------------------------------------------------------- resources
    def register_turn(self, source: SourceRef, user: str | None = None,
                      project: str | None = None) -> tuple[int, bool]:
        """The id of the stored turn, storing it if new. Returns (id, added).

        Raises TurnMismatch when the stored turn has other text, speaker or time.
        """
        ref = (source.session, source.turn)
        if source.session not in self._loaded_sessions:
            self._load_turns([source.session])
        known = self._turns.get(ref)
        if known is not None:
            tid, stored = known
            if stored is not None and not same_turn(stored, source):
                raise TurnMismatch(
                    f"session {source.session!r} turn {source.turn} is already stored "
                    f"with other content ({stored.text[:60]!r})"
                )
            return tid, False
        tid = self._id("turn")
        self._turns[ref] = (tid, source)
        self._keys_loaded.add(tid)
        self._buf["turn"].append(
            dict(id=tid, session=source.session, turn=source.turn, speaker=source.speaker,
                 text=source.text, time=source.time, time_tz=source.tz, user=user,
                 project=project, recorded_at=self.tx, imported_at=self.wall)
        )
        self.counts["turns_added"] += 1
        return tid, True

    def arity(self, claim: ClaimInput, claim_id: int) -> bool:
        """Whether the claim's predicate is single-valued; records first uses of
        uncatalogued predicates. Raises PredicateMismatch on a contradicting declaration."""
        pred = self.catalog.get(claim.predicate)
        declared = claim.single_valued
        if pred is not None:
            if declared is not None and declared != pred.single_valued:
                raise PredicateMismatch(
                    f"predicate {claim.predicate!r} is {'single' if pred.single_valued else 'multi'}"
                    f"-valued in the catalog; the line declares single_valued={str(declared).lower()}"
                )
            return pred.single_valued
        known = self._arity.get(claim.predicate)
        if known is not None:
            if declared is not None and declared != known:
                raise PredicateMismatch(
                    f"predicate {claim.predicate!r} was first used as single_valued="
                    f"{str(known).lower()}; the line declares {str(declared).lower()}"
                )
            return known
        single = bool(declared)
        self._arity[claim.predicate] = single
        self._buf["predicate"].append(
            dict(predicate=claim.predicate, single_valued=single,
                 first_seen_at=self.tx, first_claim_id=claim_id)
        )
        self.audit("memdesk", "predicate.first_use", claim_id=claim_id,
                   subject=claim.subject, predicate=claim.predicate,
                   detail={"single_valued": single, "catalogued": False})
        self.new_predicates.append(claim.predicate)
        return single

    # --------------------------------------------------------------- audit
    def audit(self, actor: str, action: str, *, claim_id: int | None = None,
              claims: tuple[int, int] | None = None, facts: tuple[int, int] | None = None,
              conflict_id: int | None = None, subject: str | None = None,
              predicate: str | None = None, reason: str | None = None,
              detail: dict | None = None) -> None:
        """Append one audit entry. ``claim_id`` names a single claim; ``claims``
        and ``facts`` are inclusive id ranges of rows the operation touched."""
        if claim_id is not None:
            claims = (claim_id, claim_id)
        self._buf["audit"].append(
            dict(id=self._id("audit"), at=self.tx, wall_at=self.wall, actor=actor,
                 action=action, claim_from=claims[0] if claims else None,
                 claim_to=claims[1] if claims else None,
                 fact_from=facts[0] if facts else None, fact_to=facts[1] if facts else None,
                 conflict_id=conflict_id, subject=subject, predicate=predicate,
                 reason=reason, detail=_dumps(detail or {}))
        )

    def created(self, name: str) -> tuple[int, int] | None:
        """The inclusive id range of ``name`` rows ("claim", "fact", …) this batch created."""
        first, after = self._first[name], self._next[name]
        return (first, after - 1) if after > first else None

    def record_operation(self, actor: str, action: str, *, claim_id: int | None = None,
                         conflict_id: int | None = None, subject: str | None = None,
                         predicate: str | None = None, reason: str | None = None,
                         detail: dict | None = None, skip_if_unchanged: bool = False) -> None:
        """The one audit entry that describes this batch's operation: who, when,
        why, the claims it created (or the one it decided), the facts it
        created and the facts it retired. With ``skip_if_unchanged`` an
        operation that wrote nothing (a repeated import) leaves no entry."""
        if skip_if_unchanged and self._first == self._next and not self.retired_ids:
            return
        detail = dict(detail or {})
        if self.retired_ids:
            if len(self.retired_ids) <= 1000:
                detail["retired"] = list(self.retired_ids)
            else:
                detail["retired_count"] = len(self.retired_ids)
        self.audit(actor, action, claim_id=claim_id,
                   claims=None if claim_id is not None else self.created("claim"),
                   facts=self.created("fact"), conflict_id=conflict_id, subject=subject,
                   predicate=predicate, reason=reason, detail=detail)

    # -------------------------------------------------------------- claims
    def submit(self, claim: ClaimInput) -> str:
        """Run one claim through every gate. Returns its outcome
        ("unchanged", "merged", "pending", "conflict" or a plan kind).

        Raises TurnMismatch or PredicateMismatch for inconsistent input.
        """
        self.counts["lines"] += 1
        self.tick(claim.source.time)
        turn_id, _ = self.register_turn(claim.source)
        key = claim.key
        if self._claim_key_seen(turn_id, key):
            self.counts["unchanged"] += 1
            return "unchanged"
        self._claim_keys.add((turn_id, key))
        claim_id = self._id("claim")
        single = self.arity(claim, claim_id)
        row = dict(
            id=claim_id, turn_id=turn_id, claim_key=key, subject=claim.subject,
            predicate=claim.predicate, object=claim.object, value=claim.value_json,
            polarity=claim.polarity, scope=claim.scope, valid_from=claim.valid_from,
            valid_to=claim.valid_to, event_start=claim.event_start,
            event_end=claim.event_end, tz=claim.tz, confidence=claim.confidence,
            source_kind=claim.source.kind, extractor=claim.extractor,
            change=claim.change, single_valued=single, sensitive=claim.sensitive,
            created_at=self.tx, state="new", reasons="[]", decided_by=None,
            decided_at=None, decision_reason=None, edits=None, fact_id=None,
            merged_into=None,
        )
        gates: list[str] = [f"provenance:ok:turn {turn_id}"]
        plan = self.plan(row)
        reasons = self.review_reasons(claim.confidence, claim.source.kind)
        if plan.kind == "merge":
            self._merge(row, plan, gates)
        elif reasons:
            gates.append("dedup:new")
            gates.append("review:queued")
            row["state"] = "pending"
            row["reasons"] = _dumps(reasons)
            self.counts["queued"] += 1
        else:
            gates.append("dedup:new")
            gates.append(f"review:pass:confidence >= {self.threshold}")
            state, fact_id, _ = self.apply(row, plan, gates)
            row["state"], row["fact_id"] = state, fact_id
        if self.route_memories and row["state"] in ("asserted", "merged"):
            self.remember(row, claim.source.text)
        row["gates"] = "|".join(gates)
        self._buf["claim"].append(row)
        if len(self._buf["claim"]) >= FLUSH_EVERY:
            self.flush()
        return plan.kind if row["state"] == "asserted" else row["state"]

    def remember(self, c: dict, text: str) -> None:
        """Route a claim that took effect to the vector path when its predicate
        says so (catalog routing "vector" or "both"): store the turn's text, with
        sensitive data masked, as a memory; a near duplicate for the same
        subject only counts another mention."""
        pred = self.catalog.get(c["predicate"])
        if pred is None or pred.routing == "structured":
            return
        masked = mask(" ".join(text.split()))[:1000]
        key = normalise_object(masked)[:200]
        slot = (c["subject"], key)
        if c["subject"] not in self._memory_subjects:
            self._load_memories([c["subject"]])
        known = self._memories.get(slot)
        if known is not None:
            self._memory_mentions[known] += 1
            return
        mid = self._id("memory")
        self._memories[slot] = mid
        self._buf["memory"].append(dict(
            id=mid, subject=c["subject"], predicate=c["predicate"], text=masked, text_key=key,
            claim_id=c["id"], turn_id=c["turn_id"], created_at=self.tx, mentions=1))
        self.counts["memories"] += 1

    def _load_memories(self, subjects: list[str]) -> None:
        for mid, subject, key in self.conn.execute(
            select(MEMORY.c.id, MEMORY.c.subject, MEMORY.c.text_key)
            .where(MEMORY.c.subject.in_(subjects))
        ):
            self._memories[(subject, key)] = mid
        self._memory_subjects.update(subjects)

    def review_reasons(self, confidence: float, kind: str) -> list[str]:
        reasons = []
        if confidence < self.threshold:
            reasons.append(f"confidence {confidence:.2f} is below the review threshold {self.threshold:.2f}")
        if kind == "agent_inferred":
            reasons.append("agent_inferred: the agent's own inference needs a person's confirmation")
        return reasons

    def plan(self, c: dict) -> Plan:
        """The bitemporal plan for claim-shaped dict ``c`` against current belief."""
        scope = c["scope"]
        rows = [r for r in self.current_rows(c["subject"], c["predicate"]) if r.scope == scope]
        if not c["single_valued"]:  # one slot per object
            obj = normalise_object(c["object"])
            rows = [r for r in rows if normalise_object(r.object) == obj]
        key = value_key(c["object"], c["value"], c["polarity"])
        return plan_change(rows, key, c["valid_from"], c["valid_to"], c["change"])

    def _merge(self, c: dict, plan: Plan, gates: list[str]) -> None:
        target = plan.merge_into
        assert target is not None
        gates.append(f"dedup:merged:fact {target.id}")
        c["state"] = "merged"
        c["fact_id"] = target.id
        c["merged_into"] = target.claim_id
        self.counts["merged"] += 1

    def apply(self, c: dict, plan: Plan, gates: list[str]
              ) -> tuple[str, int | None, int | None]:
        """Carry out a plan for claim ``c``, appending the gate outcomes to
        ``gates``. Returns (claim state, fact id, conflict id)."""
        if plan.kind == "merge":
            self._merge(c, plan, gates)
            return "merged", c["fact_id"], None
        if plan.kind == "conflict":
            conflict_id = self._id("conflict")
            ids = [r.id for r in plan.conflict_with]
            kind = "value"
            incoming = value_key(c["object"], c["value"], c["polarity"])
            if all(row_key(r).same_thing(incoming) for r in plan.conflict_with):
                kind = "polarity"
            self._buf["conflict"].append(
                dict(id=conflict_id, kind=kind, state="open", subject=c["subject"],
                     predicate=c["predicate"], scope=c["scope"], fact_ids=_dumps(ids),
                     claim_id=c["id"], opened_at=self.tx, resolved_at=None,
                     resolved_by=None, resolution=None, reason=None)
            )
            gates.append(f"conflict:opened:conflict {conflict_id} ({kind} differs from fact "
                         f"{', '.join(map(str, ids))}, no change or correction signal)")
            self.counts["conflicts"] += 1
            return "conflict", None, conflict_id
        gates.append(f"conflict:none:{plan.kind}")
        reason = _RETIRE_REASON.get(plan.kind, "superseded")
        for r in plan.retire:
            self.retire(r, reason, c["id"])
        new_id: int | None = None
        for piece in plan.insert:
            fid = self._insert_piece(c, piece)
            if piece.source is None:
                new_id = fid
        self.counts[_SUMMARY_FIELD[plan.kind]] += 1
        return ("approved" if c.get("state") == "approved" else "asserted"), new_id, None

    def retire(self, row: Fact, reason: str, by_claim: int | None,
               note: str | None = None) -> int:
        """Stamp a current-belief row as retired at the batch's transaction time.

        The stamp itself (retired_at, retired_by_claim, retire_reason) is the
        record; the caller writes the audit entry that explains it."""
        at = self._unflushed_facts.get(row.id)
        if at is not None:
            # inserted by this same transaction and not written yet: write it
            # stamped (nobody can have seen it unstamped), saving an UPDATE
            self._fact_rows[at] = self._fact_rows[at]._replace(
                retired_at=self.tx, retired_by_claim=by_claim, retire_reason=reason,
                retire_note=note)
        else:
            self._retire.append(dict(b_id=row.id, b_at=self.tx, b_by=by_claim,
                                     b_reason=reason, b_note=note))
        rows = self._pairs.get((row.subject, row.predicate))
        if rows is not None:
            rows[:] = [r for r in rows if r.id != row.id]
        self.retired_ids.append(row.id)
        return row.id

    def _insert_piece(self, c: dict, piece: Piece) -> int:
        fid = self._id("fact")
        src = piece.source
        if src is None:
            ttl = self._ttl_us(c["predicate"])
            fact = Fact(
                fid, c["subject"], c["predicate"], c["object"], c["value"], c["polarity"],
                c["scope"], piece.start, piece.end, self.tx, None, None, None, None,
                c["id"], None, c["confidence"], c["source_kind"], c["extractor"],
                c["event_start"], c["event_end"], piece.start + ttl if ttl else None,
                c["tz"], c["single_valued"], c["sensitive"],
            )
        else:
            fact = src._replace(id=fid, valid_from=piece.start, valid_to=piece.end,
                                recorded_at=self.tx, retired_at=None, retired_by_claim=None,
                                retire_reason=None, retire_note=None, copy_of=src.id)
        self._unflushed_facts[fid] = len(self._fact_rows)
        self._fact_rows.append(fact)
        self.current_rows(fact.subject, fact.predicate).append(fact)
        self.counts["fact_rows"] += 1
        return fid

    def _ttl_us(self, predicate: str) -> int | None:
        if predicate not in self._ttl:
            pred = self.catalog.get(predicate)
            self._ttl[predicate] = pred.ttl_us if pred is not None else None
        return self._ttl[predicate]

    # --------------------------------------------------------------- flush
    def flush(self) -> None:
        """Write buffered rows (inserts first, then retirement stamps)."""
        for name, table in (("turn", TURN), ("predicate", PRED), ("claim", CLAIM)):
            rows = self._buf.pop(name, None)
            if rows:
                execute_many(self.conn, name, table.insert(), rows, self._insert_sql)
        if self._fact_rows:
            execute_many(self.conn, "fact", FACT.insert(), self._fact_rows, self._insert_sql,
                         columns=FACT_COLUMNS)
            self._fact_rows, self._unflushed_facts = [], {}
        for name, table in (("conflict", CONFLICT), ("audit", AUDIT), ("memory", MEMORY)):
            rows = self._buf.pop(name, None)
            if rows:
                execute_many(self.conn, name, table.insert(), rows, self._insert_sql)
        for memory_id, extra in self._memory_mentions.items():
            self.conn.execute(update(MEMORY).where(MEMORY.c.id == memory_id)
                              .values(mentions=MEMORY.c.mentions + extra))
        self._memory_mentions.clear()
        if self._retire:
            count = execute_many(self.conn, "retire", _RETIRE, self._retire, self._insert_sql)
            if count not in (-1, len(self._retire)):
                raise StoreError("a fact was retired by someone else during this write; nothing was saved")
            self._retire = []

    def finish(self) -> None:
        """Flush and record the final transaction time. Call once, last."""
        self.flush()
        self.conn.execute(update(META).where(META.c.id == 1).values(last_tx=self.tx))

    def summary(self) -> ImportSummary:
        fields = ImportSummary.__dataclass_fields__
        return ImportSummary(
            **{k: v for k, v in self.counts.items() if k in fields},
            new_predicates=tuple(self.new_predicates),
        )
