"""The audit chain's specification (docs/audit-chain.md) is enough to verify a
store: a verifier written only from that document (``rfc8785`` for the JSON,
``hashlib`` for BLAKE2b, plain SQL for the rows) agrees with ``store.audit.verify``
on stores written through the write path (imports, review decisions, undo, a
resolved conflict, a retraction, an erasure), on both backends, and under
tampering names the same first broken entry. The canonical encoder equals an
independent RFC 8785 implementation byte for byte."""

from __future__ import annotations

import json
import math
from hashlib import blake2b
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from memdesk import Store, chain
from sqlalchemy import text

rfc8785 = pytest.importorskip("rfc8785")

ROOT = Path(__file__).resolve().parent.parent
CONV = ROOT / "data" / "conversations"
DEMO = ROOT / "data" / "demo"
DOC = ROOT / "docs" / "audit-chain.md"


# ------------------------------------------------- the encoder vs RFC 8785
SAFE = 2**53 - 1
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-SAFE, SAFE),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(alphabet=st.characters(exclude_categories=("Cs",))),  # no lone surrogates
    st.sampled_from([0.0, -0.0, 1.0, 1e-7, 1e-6, 1e21, 1e20, 5e-324, 1.7976931348623157e308,
                     0.1, 1e16, 123456789.125, -2.5e-9, "\x00\x1f\x7f\u2028\u2029\"\\/",
                     "\b\t\n\f\r", "é😀", "v1.0,", "x.0]", "e-mail", "1e+5", ".0"]),
)


@settings(max_examples=2000, deadline=None)
@given(st.lists(scalars, max_size=30))
def test_encoding_is_rfc8785_byte_for_byte(values):
    row = tuple(values)
    want = rfc8785.dumps(values)
    assert chain.encode(row) == want
    streamed: list[bytes] = []
    chain.streamer(streamed.append)(row)
    assert b"".join(streamed) == want
    assert chain.row_hasher()(row) == chain.row_hash(row) == blake2b(want, digest_size=16).digest()


@pytest.mark.parametrize("x, s", [(1.0, "1"), (1e-7, "1e-7"), (1e21, "1e+21"), (1e20, "100000000000000000000"),
                                  (-0.0, "0"), (0.000001, "0.000001"), (1.5e-7, "1.5e-7"),
                                  (123.456, "123.456"), (-1e16, "-10000000000000000"),
                                  (2.5e300, "2.5e+300"), (5e-324, "5e-324")])
def test_numbers_in_ecmascript_form(x, s):
    assert chain.number(x) == s
    assert chain.encode((x,)) == f"[{s}]".encode()


@pytest.mark.parametrize("bad", [(math.nan,), (math.inf,), (1, -math.inf), ("lone \ud800",),
                                 (b"bytes",), (object(),)])
def test_values_without_a_canonical_form_are_refused(bad):
    with pytest.raises((ValueError, TypeError)):
        chain.encode(bad)


def test_large_integers_are_exact():
    assert chain.encode((2**63 - 1, -(2**63))) == b"[9223372036854775807,-9223372036854775808]"


# ------------------------------------------------- the verifier from the spec
def H32(data: bytes = b"") -> bytes:
    return blake2b(data, digest_size=32).digest()


def H16(data: bytes) -> bytes:
    return blake2b(data, digest_size=16).digest()


def unhex(s: str) -> bytes:
    try:
        return bytes.fromhex(s)
    except (TypeError, ValueError):
        return b"not a hash: " + str(s).encode()


# docs/audit-chain.md section 3: (column, type); None type = excluded
SPEC_COLUMNS: dict[str, list[tuple[str, str | None]]] = {
    "turn": [("id", "int"), ("session", "text"), ("turn", "int"), ("speaker", "text"),
             ("text", "text"), ("time", "int"), ("time_tz", "int"), ("user", "text"),
             ("project", "text"), ("recorded_at", "int"), ("imported_at", "int")],
    "claim": [tuple(p.split()) for p in (
        "id int,turn_id int,claim_key text,subject text,predicate text,object text,value text,"
        "polarity text,scope text,valid_from int,valid_to int,event_start int,event_end int,"
        "tz int,confidence float,source_kind text,extractor text,change text,single_valued bool,"
        "sensitive bool,created_at int,state text,reasons text,decided_by text,decided_at int,"
        "decision_reason text,edits text,fact_id int,merged_into int,gates text,"
        "start_stated bool,start_latest int").split(",")],
    "fact": [tuple(p.split()) for p in (
        "id int,subject text,predicate text,object text,value text,polarity text,scope text,"
        "valid_from int,valid_to int,recorded_at int,claim_id int,copy_of int,confidence float,"
        "source_kind text,extractor text,event_start int,event_end int,expires_at int,tz int,"
        "single_valued bool,sensitive bool,start_stated bool,known_from int,start_kind text,"
        "start_latest int").split(",")],
    "conflict": [tuple(p.split()) for p in (
        "id int,kind text,state text,subject text,predicate text,scope text,fact_ids text,"
        "claim_id int,opened_at int,resolved_at int,resolved_by text,resolution text,"
        "reason text").split(",")],
    "memory": [tuple(p.split()) for p in (
        "id int,subject text,predicate text,text text,text_key text,claim_id int,turn_id int,"
        "created_at int").split(",")],
    "predicate_use": [("predicate", "text"), ("single_valued", "bool"),
                      ("first_seen_at", "int"), ("first_claim_id", "int")],
}
# section 3, the dagger: how many of each table's last columns are late
LATE = {"claim": 2, "fact": 4}
ENTRY = ("id", "at", "wall_at", "actor", "action", "claim_from", "claim_to", "fact_from",
         "fact_to", "conflict_id", "subject", "predicate", "reason", "detail", "rows")
RANGED = ("turn", "claim", "fact", "conflict", "memory")
STAMP = ("retired_at", "retired_by_claim", "retire_reason", "retire_note", "known_until")


def E(values: list[Any]) -> bytes:
    return rfc8785.dumps(values)


class SpecVerifier:
    """Written from docs/audit-chain.md only (no memdesk code)."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def _select(self, table: str, where: str = "", params: dict | None = None) -> list[list]:
        cols = SPEC_COLUMNS[table]
        names = ", ".join(f'"{c}"' for c, _ in cols)
        key = "predicate" if table == "predicate_use" else "id"
        rows = self.conn.execute(text(f"SELECT {names} FROM {table} {where} ORDER BY {key}"),
                                 params or {})
        out = []
        for r in rows:
            values = [None if v is None else bool(v) if t == "bool" else
                      float(v) if t == "float" else v for v, (_, t) in zip(r, cols, strict=True)]
            for _ in range(LATE.get(table, 0)):
                if values[-1] is not None:
                    break
                values.pop()
            out.append(values)
        return out

    def row(self, table: str, row_id: int) -> list | None:
        found = self._select(table, "WHERE id = :i", {"i": row_id})
        return found[0] if found else None

    def run(self) -> int | None:
        """The first broken entry (section 7), or None when the store verifies."""
        entries = [dict(r._mapping) for r in self.conn.execute(text(
            f"SELECT {', '.join(ENTRY)}, hash FROM audit_log ORDER BY id"))]
        rows_of = {}
        for e in entries:
            try:
                rows_of[e["id"]] = json.loads(e["rows"])
            except ValueError:
                rows_of[e["id"]] = None
        updates: dict[tuple[str, int], list[tuple[int, str]]] = {}
        for e in entries:
            for t, changed in ((rows_of[e["id"]] or {}).get("updated") or {}).items():
                for key, (before, _after) in changed.items():
                    updates.setdefault((t, int(key)), []).append((e["id"], before))

        def state_after(t: str, rid: int, eid: int) -> str:
            for later, before in updates.get((t, rid), []):
                if later > eid:
                    return before
            r = self.row(t, rid)
            return H16(E(r)).hex() if r is not None else "missing"

        amended: dict[int, list[str]] = {}
        for e in entries:
            if e["action"] == "subject.erased":
                try:
                    record = json.loads(e["detail"]).get("amended", {})
                except (ValueError, AttributeError):
                    continue
                for key, pair in record.items():
                    if isinstance(pair, list) and len(pair) in (2, 3) and int(key) < e["id"]:
                        amended[int(key)] = pair
        broken: list[int] = []
        prev, expected = "0" * 64, 1
        for e in entries:
            if e["id"] != expected:
                broken.append(min(expected, e["id"]))
            expected = e["id"] + 1
            content = H32(E([e[c] for c in ENTRY]))
            rows = rows_of[e["id"]]
            digest = self.rows_digest(e["id"], rows, state_after) if isinstance(rows, dict) else b"x"
            if e["id"] in amended:
                if [content.hex(), digest.hex(), e["hash"]][:len(amended[e["id"]])] != amended[e["id"]]:
                    broken.append(e["id"])
            elif e["hash"] != H32(unhex(prev) + content + digest).hex():
                broken.append(e["id"])
            prev = e["hash"] or prev
        head, last = self.conn.execute(text(
            "SELECT audit_head, audit_last FROM store_meta WHERE id = 1")).one()
        top = entries[-1]["id"] if entries else 0
        if last is not None and last > top:
            broken.append(top + 1)
        elif (head or "0" * 64) != prev and not broken:
            broken.append(top)
        return min(broken) if broken else None

    def rows_digest(self, eid: int, rows: dict, state_after: Any) -> bytes:
        out = b""
        for name in RANGED:
            span = rows.get(name)
            data = b""
            if span:
                lo, hi = span
                if name in ("claim", "conflict"):
                    for rid in range(lo, hi + 1):
                        s = state_after(name, rid, eid)
                        if s != "missing":
                            data += unhex(s)
                else:
                    for r in self._select(name, "WHERE id >= :lo AND id <= :hi",
                                          {"lo": lo, "hi": hi}):
                        data += E(r)
            out += name.encode() + H32(data)
        data = b""
        for n in rows.get("predicate") or []:
            found = self._select("predicate_use", "WHERE predicate = :n", {"n": n})
            if found:
                data += E(found[0])
        out += b"predicate" + H32(data)
        data = b""
        for fid in rows.get("stamped") or []:
            r = self.conn.execute(text(f"SELECT {', '.join(STAMP)} FROM fact WHERE id = :i"),
                                  {"i": fid}).first()
            if r is not None:
                stamp = list(r)
                if stamp[-1] is None:  # known_until, NULL before revision 0007
                    stamp.pop()
                data += E([fid, *stamp])
        out += b"stamped" + H32(data)
        for t in sorted(rows.get("updated") or {}):
            changed = rows["updated"][t]
            for key in sorted(changed, key=int):
                out += E([t, int(key), changed[key][0], state_after(t, int(key), eid)])
        return H32(out)


def spec_first_broken(store: Store) -> int | None:
    with store.engine.connect() as conn:
        return SpecVerifier(conn).run()


def build(store: Store) -> None:
    """Every kind of write through the Store API."""
    store.facts.ingest_file(CONV / "carol-home.jsonl")
    store.facts.import_file(DEMO / "facts.jsonl")
    store.facts.import_file(DEMO / "review.jsonl")
    pending = store.review.list()
    store.review.approve(pending[0].id, by="rita")
    store.review.reject(pending[1].id, by="rita", reason="not said")
    store.review.approve(pending[2].id, by="rita")
    store.review.undo(pending[2].id, by="sam")
    conflicts = store.conflicts.list()
    if conflicts:
        store.conflicts.resolve(conflicts[0].id, "incoming", by="rita")
    tom = store.facts.current("user:tom")
    if tom:
        store.facts.retract(tom[0].id, by="rita", reason="never said")
    store.admin.erase("user:carol", by="dpo")
    later = store.review.list()
    if later:
        store.review.reject(later[-1].id, by="rita", reason="after the erasure")


@pytest.fixture
def built(store) -> Store:
    build(store)
    return store


def _sql(store: Store, sql: str, **params: Any) -> None:
    with store.engine.begin() as conn:
        conn.execute(text(sql), params)


def test_the_spec_verifier_agrees_on_a_clean_store(built):
    report = built.audit.verify()
    assert report.ok, report.problems
    assert report.erasures == 1 and report.amended > 0
    assert spec_first_broken(built) is None


def _creator(store: Store, table: str, row_id: int) -> int:
    with store.engine.connect() as conn:
        for eid, rows in conn.execute(text("SELECT id, rows FROM audit_log ORDER BY id")):
            span = json.loads(rows).get(table)
            if span and span[0] <= row_id <= span[1]:
                return eid
    raise AssertionError((table, row_id))


TAMPER = {
    "fact object": "UPDATE fact SET object = 'tampered' WHERE id = (SELECT max(id) FROM fact)",
    "turn text": "UPDATE turn SET text = 'tampered' WHERE id = (SELECT min(id) FROM turn)",
    "claim gates": "UPDATE claim SET gates = '[]' WHERE id = (SELECT max(id) FROM claim)",
    "claim confidence": "UPDATE claim SET confidence = 0.125 WHERE id = (SELECT min(id) FROM claim)",
    "conflict reason": "UPDATE conflict SET reason = 'tampered' WHERE id = (SELECT min(id) FROM conflict)",
    "fact stamp": "UPDATE fact SET retire_note = 'x' WHERE retired_at IS NOT NULL",
    "entry actor": "UPDATE audit_log SET actor = 'mallory' WHERE id = 3",
    "entry hash": "UPDATE audit_log SET hash = 'ab' WHERE id = 4",
    "tombstone record": "UPDATE audit_log SET detail = '{}' WHERE action = 'subject.erased'",
    "deleted entry": "DELETE FROM audit_log WHERE id = 2",
    "deleted newest": "DELETE FROM audit_log WHERE id = (SELECT max(id) FROM audit_log)",
}


@pytest.mark.parametrize("what", sorted(TAMPER))
def test_tampering_is_named_at_the_same_first_broken_entry(built, what):
    _sql(built, TAMPER[what])
    report = built.audit.verify()
    assert not report.ok
    if report.first_broken is not None:
        assert spec_first_broken(built) == report.first_broken
    else:  # only coverage problems: the spec verifier's chain check passes
        assert spec_first_broken(built) is None


def test_a_tampered_row_is_reported_at_the_entry_that_wrote_it(built):
    with built.engine.connect() as conn:
        fid = conn.execute(text("SELECT max(id) FROM fact WHERE retired_at IS NULL")).scalar()
    _sql(built, "UPDATE fact SET object = 'tampered' WHERE id = :i", i=fid)
    assert built.audit.verify().first_broken == _creator(built, "fact", fid) == spec_first_broken(built)
    with built.engine.connect() as conn:
        eid = conn.execute(text("SELECT min(id) FROM audit_log WHERE action = 'import'")).scalar()
    _sql(built, "UPDATE audit_log SET reason = 'edited' WHERE id = :i", i=eid)
    assert built.audit.verify().first_broken == min(eid, _creator(built, "fact", fid))


def test_the_worked_example_in_the_spec():
    doc = DOC.read_text(encoding="utf-8")
    row = (7, "user:carol", 'Café "Zoë"\n', 0.5, 1.0, True, None, 1780272000000000)
    encoded = chain.encode(row)
    assert encoded == E(list(row))
    assert encoded.decode() in doc and f"{len(encoded)} bytes" in doc
    assert H16(encoded).hex() in doc
    rows = ('{"updated":{"claim":{"55":["f0bb051d879a3390ccee9829ddb602ea",'
            '"fc407caf6eddf502ae7fe72e0eb8da7d"]}}}')
    entry = dict(id=1, at=1780272000000000, wall_at=1780272000123456, actor="rita",
                 action="claim.rejected", claim_from=55, claim_to=55, fact_from=None,
                 fact_to=None, conflict_id=None, subject="user:alice", predicate="likes",
                 reason="not said", detail="{}", rows=rows)
    assert E([entry[c] for c in ENTRY]).decode() in doc
    content = H32(E([entry[c] for c in ENTRY]))
    assert content == chain.entry_hash(entry) and content.hex() in doc
    assert H32().hex() in doc
    u = E(["claim", 55, "f0bb051d879a3390ccee9829ddb602ea", "fc407caf6eddf502ae7fe72e0eb8da7d"])
    digest = H32(b"".join(n.encode() + H32() for n in (*RANGED, "predicate", "stamped")) + u)
    assert digest.hex() in doc
    assert digest == chain.combine({n: H32() for n in (*RANGED, "predicate", "stamped")},
                                   json.loads(rows)["updated"])
    assert chain.RowsDigest().finish().hex() in doc
    link = H32(bytes(32) + content + digest).hex()
    assert link == chain.link(chain.GENESIS, content, digest) and link in doc
