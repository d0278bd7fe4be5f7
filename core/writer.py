"""The write path inside one transaction: gates, bitemporal changes, audit.

A ``WriteBatch`` lives for exactly one database transaction. It holds the
store's write lock (taken by updating the ``store_meta`` row first, which
serialises writers on SQLite and PostgreSQL alike), keeps transaction time
monotonic, caches the current-belief rows of the slots it touches, and buffers
its inserts so that bulk imports become a few ``executemany`` calls. Nothing is
visible to others until the transaction commits; an exception anywhere rolls
the whole batch back. For a bulk import into a SQLite file the transaction may
belong to a writer process instead (``core.writer_process``), which executes the buffered rows while the batch gates the next ones.
The ids a batch hands out and its audit entries are its base's part
(``core.writer_audit.BatchAudit``); the statements it runs are ``core.db.writes``'s.

Gate order for each claim: provenance (the cited turn is registered, and must
agree with a stored one) -> idempotency (same claim from the same turn again
is a no-op) -> dedup (the same value already holds: merge, count the mention)
-> review (low confidence or agent-inferred: queue) -> conflict / change
(apply the bitemporal plan, or open a conflict).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from operator import itemgetter
from typing import Any, cast

from .bitemporal import ENDING, EVOLUTION, RETRACTION, Piece, Said, normalise_object, said_by
from .catalog import Catalog
from .chain import FLOATS, MEMORY_MUTABLE, RowsDigest, hashed, row_hasher, streamer
from .claims import ClaimInput, SourceRef, same_turn
from .db import Connection
from .db import writes as sql
from .errors import PredicateMismatch, StoreError, TurnMismatch
from .gates import (
    RETIRED_AS,
    Decision,
    Evidence,
    Outcome,
    Statement,
    admit,
    append_steps,
    encode_steps,
)
from .lang.sensitive import mask
from .parallel_parse import ParsedClaim
from .records import Fact, ImportSummary
from .writer_audit import BatchAudit, dumps
from .writer_process import WriteProcess

FLUSH_EVERY = 20_000

_SUMMARY_FIELD = {
    "insert": "asserted",
    "evolution": "evolutions",
    "backfill": "backfills",
    "correction": "corrections",
    "refinement": "refinements",
    "retract": "retractions",
    "ending": "evolutions",  # a value that stopped holding: a change of the world with no new value
}

_STAMP = slice(10, 14)  # the retirement stamp's place in a Fact (and known_until, last)
assert Fact._fields[_STAMP.start:_STAMP.stop] == (
    "retired_at", "retired_by_claim", "retire_reason", "retire_note")
assert Fact._fields[-1] == "known_until"
assert sql.TURN_KEYS == ("id", "session", "turn", "speaker", "text", "time", "time_tz",
                         "user", "project", "recorded_at", "imported_at")
_CLAIM_KEYS = sql.CLAIM_KEYS
# a new claim's row leaves the four decision columns out (NULL); its canonical
# tuple (all columns in order) is built from two C-level lookups
_UNDECIDED = ("decided_by", "decided_at", "decision_reason", "edits")
_CUT = _CLAIM_KEYS.index(_UNDECIDED[0])
assert _CLAIM_KEYS[_CUT:_CUT + 4] == _UNDECIDED
_CLAIM_HEAD = itemgetter(*_CLAIM_KEYS[:_CUT])
_CLAIM_TAIL = itemgetter(*_CLAIM_KEYS[_CUT + 4:])
_NO_DECISION = (None,) * 4
_CONFLICT_KEYS = sql.CONFLICT_KEYS
_MEMORY_KEYS = tuple(k for k in sql.MEMORY_KEYS if k not in MEMORY_MUTABLE)


def expiry(start: int, event_start: int | None, event_end: int | None,
           ttl: int | None) -> int | None:
    """When a fact stops being fresh: ``ttl`` (microseconds; None: never) after
    the end of its event time (a reminder for next Friday lasts until a week
    after Friday), or after its valid start when it has no event time."""
    if not ttl:
        return None
    end = event_end if event_end is not None else event_start
    return max(start, end if end is not None else start) + ttl


def fact_from_row(row: Any) -> Fact:
    """A Fact from a row whose columns are in FACT_COLUMNS order."""
    return Fact(*row)


class WriteBatch(BatchAudit):
    """One write transaction's worth of gated changes. Use through Store.

    Normally ``conn`` holds the transaction: the batch takes the write lock
    on it, reads and writes through it. With ``process`` (a WriteProcess that
    already holds the lock) the transaction is the writer process's: buffered
    rows go there, and ``conn`` only reads committed state, which is exactly
    the state the transaction started from (nobody else can write while the
    lock is held, and every row this batch wrote is in its own caches).
    """

    def __init__(
        self,
        conn: Connection,
        catalog: Catalog,
        review_threshold: float,
        wall_us: int,
        insert_sql: dict | None = None,
        process: WriteProcess | None = None,
        now: int | None = None,
    ) -> None:
        self.conn = conn
        self._insert_sql = {} if insert_sql is None else insert_sql
        self._process = process
        self.catalog = catalog
        self.threshold = review_threshold
        self.wall = wall_us
        if process is None:
            last_tx, self._next, self._head = sql.lock_store(conn)
        else:
            last_tx, self._next, self._head = process.tx, dict(process.next_ids), process.head
        # recorded time: the store's clock (``now``), never before what it
        # recorded last: one instant for everything this transaction writes
        self._last_tx = last_tx
        self.tx = max(wall_us if now is None else now, last_tx + 1)
        # told time of the operation being carried out: the source turn's time
        # while a claim is submitted, else (a person's decision) the recorded time
        self.told = self.tx
        self._last_audit = self._next["audit"] - 1
        self.digest = RowsDigest()  # the rows this batch touches, for its audit entry
        # name -> encodes a row's values straight into that part's hasher
        self._hash = {name: streamer(h.update, FLOATS.get(name, ()))
                      for name, h in self.digest.parts.items()}
        self._claim_hash = row_hasher(FLOATS["claim"])
        self._conflict_hash = row_hasher(FLOATS["conflict"])
        self._before = {}
        self._pairs: dict[tuple[str, str], list[Fact]] = {}
        self._turns: dict[tuple[str, int], tuple[int, SourceRef | None]] = {}
        self._loaded_sessions: set[str] = set()
        self._claim_keys: set[tuple[int, str]] = set()
        self._keys_loaded: set[int] = set()
        self._arity: dict[str, bool] = sql.predicate_arities(conn)
        self._buf = defaultdict(list)
        self._retire: list[dict] = []
        self._unflushed_facts: dict[int, int] = {}  # fact id -> index in _fact_rows
        self._fact_rows: list[Fact] = []
        self._ttl: dict[str, int | None] = {}
        self._opposite: dict[str, str | None] = {}
        # what mentions merged into a lineage said (core.gates.Evidence), loaded per
        # lineage on first need; lineages begun in this batch have none stored
        self._said: dict[int, list[Said]] = defaultdict(list)
        self._said_loaded: set[int] = set()
        self.route_memories = False  # set by conversation ingest: feed the vector path too
        self._memories: dict[tuple[str, str], int | None] = {}
        self._memory_subjects: set[str] = set()
        self._memory_mentions: dict[int, int] = defaultdict(int)
        self._first = dict(self._next)
        self.retired_ids = []
        self.counts: dict[str, int] = defaultdict(int)
        self.new_predicates: list[str] = []

    # ------------------------------------------------------------- prefetch
    def prefetch(self, claims: Sequence[ClaimInput | ParsedClaim]) -> None:
        """Load turns, claim keys and current-belief rows for many claims at once."""
        sessions = sorted({c.source.session for c in claims} - self._loaded_sessions)
        for part in sql.chunks(sessions):
            self._load_turns(part)
        if self.route_memories:
            for part in sql.chunks(sorted({c.subject for c in claims} - self._memory_subjects)):
                self._load_memories(part)
        self.prefetch_pairs((c.subject, predicate) for c in claims
                            for predicate in (c.predicate, self.opposite(c.predicate))
                            if predicate is not None)
        if any(c.change == EVOLUTION and c.start_stated for c in claims):
            # their plans read what was said of the values they replace
            self.said_for([r for c in claims for r in self.belief_rows(c.subject, c.predicate)])

    def prefetch_pairs(self, pairs: Iterable[tuple[str, str]]) -> None:
        """Load the current-belief rows of many (subject, predicate) pairs at
        once: those of claims about to be gated (``prefetch``), or of the
        slots an operation retires or copies rows in (core.maintain)."""
        wanted: dict[str, set[str]] = defaultdict(set)
        for subject, predicate in pairs:
            if (subject, predicate) not in self._pairs:
                wanted[subject].add(predicate)
        for part in sql.chunks(sorted(wanted)):
            found: dict[tuple[str, str], list[Fact]] = defaultdict(list)
            for row in sql.current_facts_of(self.conn, part):
                found[(row.subject, row.predicate)].append(row)
            for subject in part:
                for predicate in wanted[subject]:
                    self._pairs[(subject, predicate)] = found.get((subject, predicate), [])

    def _load_turns(self, sessions: list[str]) -> None:
        for tid, session, turn, text, time, tz, speaker in sql.turns_of(self.conn, sessions):
            self._turns[(session, turn)] = (
                tid, SourceRef(session, turn, text, time, tz, speaker),
            )
        self._loaded_sessions.update(sessions)

    def _claim_key_seen(self, turn_id: int, key: str) -> bool:
        if turn_id not in self._keys_loaded:
            self._keys_loaded.add(turn_id)
            for k in sql.claim_keys_of(self.conn, turn_id):
                self._claim_keys.add((turn_id, k))
        return (turn_id, key) in self._claim_keys

    def current_rows(self, subject: str, predicate: str) -> list[Fact]:
        pair = (subject, predicate)
        rows = self._pairs.get(pair)
        if rows is None:
            rows = self._pairs[pair] = sql.current_facts(self.conn, subject, predicate)
        return rows

    def opposite(self, predicate: str) -> str | None:
        """The catalog's opposite of ``predicate`` (likes: dislikes), if any."""
        if predicate not in self._opposite:
            pred = self.catalog.get(predicate)
            self._opposite[predicate] = pred.opposite if pred is not None else None
        return self._opposite[predicate]

    def values_of(self, predicate: str) -> str | None:
        """How the catalog says ``predicate``'s values relate ("taste", "place"), if at all."""
        pred = self.catalog.get(predicate)
        return pred.values if pred is not None else None

    def belief_rows(self, subject: str, predicate: str) -> list[Fact]:
        """What a claim of ``predicate`` meets at the gates: the current-belief
        rows of its subject and predicate, and of the predicate's opposite."""
        opposite = self.opposite(predicate)
        rows = self.current_rows(subject, predicate)
        return rows if opposite is None else [*rows, *self.current_rows(subject, opposite)]

    def statement_of(self, claim: dict[str, Any]) -> Statement:
        """The gates' statement of a stored claim row, told at its turn's time."""
        told = sql.turn_time(self.conn, claim["turn_id"])
        return Statement.of(claim, told, self.opposite(claim["predicate"]),
                            self.values_of(claim["predicate"]))

    def said_for(self, rows: Iterable[Fact]) -> Evidence:
        """What the mentions merged into the rows' lineages said (``load_said``),
        with the mentions this batch merged; loads the lineages not yet known."""
        wanted = {r.claim_id for r in rows} - self._said_loaded
        if wanted:
            for lineage, instants in sql.load_said(self.conn, wanted).items():
                self._said[lineage].extend(instants)
            self._said_loaded.update(wanted)
        return self._said

    def evidence_for(self, statement: Statement, rows: Sequence[Fact]) -> Evidence | None:
        """``said_for`` the rows when the statement's plan reads it, else None."""
        return self.said_for(rows) if statement.needs_evidence else None

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
        row = {
            "id": tid, "session": source.session, "turn": source.turn,
            "speaker": source.speaker, "text": source.text, "time": source.time,
            "time_tz": source.tz, "user": user, "project": project,
            "recorded_at": self.tx, "imported_at": self.wall,
        }
        self._buf["turn"].append(row)
        self._hash["turn"]((tid, source.session, source.turn, source.speaker, source.text,
                            source.time, source.tz, user, project, self.tx, self.wall))
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
        self.digest.predicates.append(claim.predicate)
        self._hash["predicate"]((claim.predicate, single, self.tx, claim_id))
        self.audit("memdesk", "predicate.first_use", claim_id=claim_id,
                   subject=claim.subject, predicate=claim.predicate,
                   detail={"single_valued": single, "catalogued": False})
        self.new_predicates.append(claim.predicate)
        return single

    # -------------------------------------------------------------- claims
    def submit(self, claim: ClaimInput | ParsedClaim) -> str:
        """Run one claim (a ClaimInput, or the ParsedClaim of a parsing process,
        which has the same attributes) through the gates (``core.gates.admit``)
        and carry out their decision. Returns its outcome ("unchanged",
        "merged", "pending", "conflict" or, when it took effect, the plan's kind).

        Raises TurnMismatch or PredicateMismatch for inconsistent input.
        """
        # a ParsedClaim (and its ParsedSource) has every attribute read here
        claim = cast(ClaimInput, claim)
        self.counts["lines"] += 1
        source = claim.source
        self.told = source.time  # what it writes was told then (never moves recorded time)
        turn_id, _ = self.register_turn(source)  # provenance: refuses a disagreeing turn
        key = claim.key
        if self._claim_key_seen(turn_id, key):
            self.counts["unchanged"] += 1
            return admit(None, (), turn_id=turn_id, threshold=self.threshold).outcome
        self._claim_keys.add((turn_id, key))
        claim_id = self._id("claim")
        single = self.arity(claim, claim_id)
        # The claim's row. No decision yet: decided_by, decided_at, decision_reason
        # and edits are left out, so they stay NULL (and cost nothing to bind).
        row: dict[str, Any] = {  # a dict display: the fastest way to build it
            "id": claim_id, "turn_id": turn_id, "claim_key": key, "subject": claim.subject,
            "predicate": claim.predicate, "object": claim.object, "value": claim.value_json,
            "polarity": claim.polarity, "scope": claim.scope, "valid_from": claim.valid_from,
            "valid_to": claim.valid_to, "event_start": claim.event_start,
            "event_end": claim.event_end, "tz": source.tz, "confidence": float(claim.confidence),
            "source_kind": source.kind, "extractor": claim.extractor,
            "change": claim.change, "single_valued": single, "sensitive": claim.sensitive,
            "created_at": self.tx, "state": "new", "reasons": "[]", "fact_id": None,
            "merged_into": None, "start_stated": claim.start_stated,
            "start_latest": claim.start_latest,
        }
        statement = Statement(claim.object, claim.value_json, claim.polarity, claim.scope,
                              single, claim.valid_from, claim.valid_to, claim.change,
                              row["confidence"], source.kind, claim.start_stated, source.time,
                              self.opposite(claim.predicate), claim.start_latest,
                              self.values_of(claim.predicate))
        rows = self.belief_rows(claim.subject, claim.predicate)
        decision = admit(statement, rows, turn_id=turn_id, threshold=self.threshold,
                         said=self.evidence_for(statement, rows))
        if decision.outcome == Outcome.PENDING:
            row["state"] = "pending"
            row["reasons"] = dumps(list(decision.reasons))
            row["gates"] = encode_steps(decision.steps)
            self.counts["queued"] += 1
        else:
            self.apply(row, decision)
        if (self.route_memories and row["state"] in ("asserted", "merged")
                and claim.change not in (RETRACTION, ENDING)):  # a value taken back or ended is no memory
            self.remember(row, source.text)
        claims = self._buf["claim"]
        claims.append(row)
        values = _CLAIM_HEAD(row) + _NO_DECISION + _CLAIM_TAIL(row)
        if values[-1] is None:  # no start_latest (chain.hashed), the common case first
            values = values[:-1] if values[-2] is not None else hashed("claim", values)
        self.digest.parts["claim"].update(self._claim_hash(values))
        if len(claims) >= FLUSH_EVERY:
            self.flush()
        assert decision.plan is not None
        return decision.plan.kind if row["state"] == "asserted" else row["state"]

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
        memory = dict(  # created when told (recall "as of" reads the told axis)
            id=mid, subject=c["subject"], predicate=c["predicate"], text=masked, text_key=key,
            claim_id=c["id"], turn_id=c["turn_id"], created_at=self.told, mentions=1)
        self._buf["memory"].append(memory)
        self._hash["memory"](tuple(map(memory.get, _MEMORY_KEYS)))
        self.counts["memories"] += 1

    def _load_memories(self, subjects: list[str]) -> None:
        """The memory each (subject, text key) counts its mentions on. After
        maintenance (core.maintain) a text folded into a near duplicate counts
        on the memory it was merged into, and an archived stale memory on
        none: the same words said again leave a new, live memory."""
        rows = sql.memories_of(self.conn, subjects)
        state = {mid: (archived, into) for mid, _, _, archived, into in rows}
        for mid, subject, key, _, _ in rows:
            target, seen = mid, set()
            while target in state and state[target][1] is not None and target not in seen:
                seen.add(target)
                target = state[target][1]
            if target in state and state[target][0] is None:
                self._memories[(subject, key)] = target  # live: counts here
        self._memory_subjects.update(subjects)

    def apply(self, c: dict, decision: Decision) -> int | None:
        """Carry out the gates' decision for claim row ``c`` (a new claim, or a
        stored one being approved or resolved): merge it into the fact that
        holds, open a conflict, or retire and insert fact rows as the plan
        says. Sets the row's ``state``, ``fact_id``, ``merged_into`` and
        ``gates`` (the steps recorded before, if any, then the decision's).
        Returns the id of the conflict it opened, if any."""
        plan = decision.plan
        assert plan is not None
        steps = decision.steps
        conflict_id: int | None = None
        if decision.outcome == Outcome.MERGED:
            target = cast(Fact, plan.merge_into)  # the planner's rows are this batch's Facts
            c["state"], c["fact_id"], c["merged_into"] = "merged", target.id, target.claim_id
            # a mention says the value held: evidence for later changes (said_for)
            self._said[target.claim_id].append(
                said_by(c["valid_from"], c.get("start_latest"), c.get("start_stated")))
            self.counts["merged"] += 1
        elif decision.outcome == Outcome.CONFLICT:
            conflict_id = self._id("conflict")
            conflict = dict(id=conflict_id, kind=str(decision.conflict_kind), state="open",
                            subject=c["subject"], predicate=c["predicate"], scope=c["scope"],
                            fact_ids=dumps([r.id for r in plan.conflict_with]),
                            claim_id=c["id"], opened_at=self.told, resolved_at=None,
                            resolved_by=None, resolution=None, reason=None)
            self._buf["conflict"].append(conflict)
            self.digest.parts["conflict"].update(
                self._conflict_hash(tuple(map(conflict.get, _CONFLICT_KEYS))))
            steps = decision.steps_with_conflict(conflict_id)
            c["state"], c["fact_id"] = "conflict", None
            self.counts["conflicts"] += 1
        else:
            reason = RETIRED_AS.get(plan.kind, "superseded")
            for r in plan.retire:
                self.retire(cast(Fact, r), reason, c["id"])
            new_id: int | None = None
            for piece in plan.insert:
                fid = self._insert_piece(c, piece)
                if piece.source is None:
                    new_id = fid
                    self._said_loaded.add(c["id"])  # a lineage begun now: no stored mentions
            self.counts[_SUMMARY_FIELD[plan.kind]] += 1
            c["state"] = "approved" if c.get("state") == "approved" else "asserted"
            c["fact_id"] = new_id
        c["gates"] = append_steps(c.get("gates"), steps)
        return conflict_id

    def retire(self, row: Fact, reason: str, by_claim: int | None,
               note: str | None = None) -> int:
        """Stamp a current-belief row as retired at the batch's transaction time.

        The stamp itself (retired_at, retired_by_claim, retire_reason) is the
        record; the caller writes the audit entry that explains it."""
        # on the told axis: when what retires it was told, never before the row itself
        known = max(self.told, row.told_from)
        at = self._unflushed_facts.get(row.id)
        if at is not None:
            # inserted by this same transaction and not written yet: write it
            # stamped (nobody can have seen it unstamped), saving an UPDATE
            unstamped = self._fact_rows[at]
            self._fact_rows[at] = Fact._make((  # = unstamped._replace(retired_at=…, …), faster
                *unstamped[:_STAMP.start], self.tx, by_claim, reason, note,
                *unstamped[_STAMP.stop:-1], known))
        else:
            self._retire.append(dict(b_id=row.id, b_at=self.tx, b_by=by_claim,
                                     b_reason=reason, b_note=note, b_known=known))
        self.digest.stamped.append(row.id)
        self._hash["stamped"]((row.id, self.tx, by_claim, reason, note, known))
        rows = self._pairs.get((row.subject, row.predicate))
        if rows is not None:
            rows[:] = [r for r in rows if r.id != row.id]
        self.retired_ids.append(row.id)
        return row.id

    def _insert_piece(self, c: dict, piece: Piece) -> int:
        fid = self._id("fact")
        src = cast(Fact | None, piece.source)
        if src is None:
            ttl = self._ttl_us(c["predicate"])
            expires = expiry(piece.start, c["event_start"], c["event_end"], ttl)
            fact = Fact(
                fid, c["subject"], c["predicate"], c["object"], c["value"], c["polarity"],
                c["scope"], piece.start, piece.end, self.tx, None, None, None, None,
                c["id"], None, c["confidence"], c["source_kind"], c["extractor"],
                c["event_start"], c["event_end"], expires,
                c["tz"], c["single_valued"], c["sensitive"], piece.stated,
                self.told, piece.kind, piece.start if piece.latest is None else piece.latest,
                None,
            )
        else:  # a copy of a retired row over part of its interval
            fact = Fact(
                fid, src.subject, src.predicate, src.object, src.value_json, src.polarity,
                src.scope, piece.start, piece.end, self.tx, None, None, None, None,
                src.claim_id, src.id, src.confidence, src.source_kind, src.extractor,
                src.event_start, src.event_end, src.expires_at, src.tz,
                src.single_valued, src.sensitive, piece.stated,
                self.told, piece.kind, piece.latest, None,
            )
        self._unflushed_facts[fid] = len(self._fact_rows)
        self._fact_rows.append(fact)
        # hashed without the stamp (known_until last), and (chain.hashed) NULL late columns
        body = fact[:10] + fact[14:-1]
        self._hash["fact"](body if body[-1] is not None else hashed("fact", body))
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
        for name in ("turn", "predicate", "claim"):
            rows = self._buf.pop(name, None)
            if rows:
                self._write(name, rows)
        if self._fact_rows:
            self._write("fact", self._fact_rows)
            self._fact_rows, self._unflushed_facts = [], {}
        for name in ("conflict", "audit", "memory"):
            rows = self._buf.pop(name, None)
            if rows:
                self._write(name, rows)
        if self._memory_mentions:
            self._write("mentions", [
                {"b_id": memory_id, "b_extra": extra}
                for memory_id, extra in self._memory_mentions.items()])
            self._memory_mentions.clear()
        if self._retire:
            self._write("retire", self._retire, every_row=True)
            self._retire = []
        if self._process is not None:
            self._process.send()

    def _write(self, key: str, rows: list, every_row: bool = False) -> None:
        """Write ``rows`` of kind ``key`` (``sql.write_rows``) here or, with a writer
        process, there. ``every_row``: each row must change exactly one row (else StoreError)."""
        if self._process is not None:
            self._process.add(*sql.compiled_write(self.conn, key, rows, self._insert_sql), every_row)
            return
        count = sql.write_rows(self.conn, key, rows, self._insert_sql)
        if every_row and count not in (-1, len(rows)):
            raise StoreError(sql.CHANGED_MEANWHILE)

    def finish(self) -> None:
        """Flush and record the final transaction time (unless the batch wrote
        nothing: every operation that writes leaves an audit entry, and one that
        wrote nothing leaves the store as it was). Call once, last."""
        self.flush()
        wrote = self._next["audit"] != self._first["audit"]
        self._write("meta", [{"b_id": 1, "b_tx": self.tx if wrote else self._last_tx,
                              "b_head": self._head,
                              "b_last": self._last_audit,
                              "b_marks": dumps(self._next)}])  # sent with the commit

    def summary(self) -> ImportSummary:
        fields = ImportSummary.__dataclass_fields__
        return ImportSummary(
            **{k: v for k, v in self.counts.items() if k in fields},
            new_predicates=tuple(self.new_predicates),
        )
