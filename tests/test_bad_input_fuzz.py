"""Bad input at scale (hypothesis): thousands of malformed and hostile lines —
broken JSON, non-object JSON, wrong types, huge strings, control characters,
NUL bytes, lone surrogates, invalid UTF-8, times without offsets, deep
nesting, out-of-range numbers — fed to ``ingest`` and ``import``. Every bad
line is rejected with a message naming its line, nothing is written, and no
traceback escapes; hostile but valid text (SQL-looking, control characters,
huge) is stored verbatim, on both backends."""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from unicodedata import normalize

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memdesk import InputFileError, InvalidInput, Store
from memdesk.app.cli import main
from memdesk.bitemporal import canonical_json
from memdesk.checks import SCOPE_PATTERN
from memdesk.claims import EDITABLE, read_claims
from memdesk.db.tables import AUDIT, CLAIM, CONFLICT, FACT, MEMORY, TURN
from memdesk.ingest import iter_turns
from memdesk.timeutil import parse_time_us, to_us
from sqlalchemy import func, select

GOOD_TURN = {"session": "fz", "turn": 1, "speaker": "user", "time": "2026-03-01T10:00:00+08:00",
             "text": "我住在徐家汇，对花生过敏。", "user": "alice"}
GOOD_CLAIM = {
    "subject": "user:alice", "predicate": "lives_in", "object": "张江",
    "valid_from": "2026-03-14T00:00:00+08:00", "confidence": 0.92, "change": "evolution",
    "source": {"session": "fz", "turn": 18, "speaker": "user", "kind": "user_explicit",
               "text": "我上周末搬到张江了", "time": "2026-03-18T09:30:00+08:00"},
}
QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
FUZZ = settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=QUIET)

SQL_LIKE = ["'; DROP TABLE turn; --", "Robert'); DELETE FROM fact WHERE ('1'='1",
            "1 OR 1=1", "\" OR \"\"=\"", "%s %(name)s ? :name $1", "UNION SELECT * FROM audit_log",
            "$$; TRUNCATE claim; $$", "\\'; --", "/* */ COMMIT; BEGIN;"]
HOSTILE_VALID = SQL_LIKE + [
    "\x01\x02\x07\x1b[31mred\x1b[0m\x7f", "tab\tnew\nline\rcarriage", "\u202eRTL override",
    "😀🧪 astral", "\\u0000 written out, not a NUL", "ＳＥＬＥＣＴ fullwidth", "\ufeffBOM",
    "x" * 200_000,
]

# ----------------------------------------------------------------- strategies
any_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=10,
)
non_string = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.lists(
    st.integers(), max_size=3) | st.dictionaries(st.text(max_size=5), st.integers(), max_size=2)
not_whole = (st.text(max_size=10) | st.floats(allow_nan=False) | st.booleans()
             | st.lists(st.integers(), max_size=2) | st.integers(max_value=-1)
             | st.integers(min_value=2**31, max_value=10**40))
huge = st.integers(min_value=100_000, max_value=150_000).map(lambda n: "9" * n)
naive_times = st.datetimes().map(lambda d: d.isoformat()) | st.sampled_from(
    ["2026-03-01T10:00:00", "2026-03-01", "2026-03-01 10:00", "10:00+08:00"])
bad_times = naive_times | non_string | huge | st.text(max_size=30).filter(
    lambda t: not _is_time(t)) | st.just("0001-01-01T00:00:00+01:00")
bad_names = non_string.filter(lambda v: v is not None) | st.text(min_size=1, max_size=10).filter(
    lambda t: any(not (c.isalnum() or c in "_.@-") for c in t))
control_text = st.text(alphabet=st.characters(max_codepoint=0x1f), min_size=1, max_size=10)


def _is_time(text: str) -> bool:
    from datetime import datetime

    try:
        return datetime.fromisoformat(text.strip()).tzinfo is not None
    except ValueError:
        return False


def _line(data: dict | list) -> str:
    return json.dumps(data, ensure_ascii=False)


def _with(good: dict, path: str, value) -> str:
    data = json.loads(json.dumps(good))
    *outer, last = path.split(".")
    target = data
    for key in outer:
        target = target[key]
    if value is _DROP:
        target.pop(last)
    else:
        target[last] = value
    return _line(data)


_DROP = object()


def generic_bad(good: dict) -> st.SearchStrategy[str | bytes]:
    """Bad whatever the format: broken or non-object JSON, nesting, bytes."""
    text = _line(good)
    return st.one_of(
        st.integers(1, len(text) - 1).map(lambda k: text[:k]),  # cut off
        st.text(min_size=1, max_size=40).filter(lambda t: t.strip() and not _json_ok(t)),
        any_json.filter(lambda v: not isinstance(v, dict)).map(json.dumps),
        st.integers(2_000, 20_000).map(lambda n: "[" * n + "]" * n),
        st.integers(2_000, 10_000).map(lambda n: '{"a":' * n + "1" + "}" * n),
        st.sampled_from(["NaN", '{"session": NaN}', '{"x": Infinity}', "{}", "[]", "null",
                         '"just a string"', "{'single': 'quotes'}", '{"a": 1,}']),
        st.just(text.replace('"', "\x00", 1)),  # a raw NUL byte
        st.just(text.encode("utf-8")[:-3] + b"\xff\xfe\"}"),  # not UTF-8
        st.text(alphabet=st.characters(codec="ascii"), min_size=1, max_size=8).filter(
            lambda k: k not in good).map(lambda k: _line({**good, k: 1})),  # unknown field
    )


def turn_bad() -> st.SearchStrategy[str | bytes]:
    g = GOOD_TURN
    return st.one_of(
        generic_bad(g),
        st.sampled_from(["session", "turn", "speaker", "time", "text"]).map(
            lambda f: _with(g, f, _DROP)),
        (non_string | st.sampled_from(["", "   "])).map(lambda v: _with(g, "session", v)),
        not_whole.map(lambda v: _with(g, "turn", v)),
        (any_json.filter(lambda v: v not in ("user", "assistant", None)) | huge | control_text
         ).map(lambda v: _with(g, "speaker", v)),
        bad_times.filter(lambda v: v is not None).map(lambda v: _with(g, "time", v)),
        non_string.filter(lambda v: v is not None).map(lambda v: _with(g, "text", v)),
        st.sampled_from(["nul \x00 inside", "lone \ud800 surrogate", "\udfff"]).map(
            lambda v: _with(g, "text", v)),
        bad_names.map(lambda v: _with(g, "user", v)),
        (bad_names | control_text).map(lambda v: _with(g, "project", v)),
        st.sampled_from(["bob\n", "a b", "x\x00", "'; DROP TABLE turn;--"]).map(
            lambda v: _with(g, "user", v)),
        st.just(_with(g, "turn", 0)),  # turns are numbered from 1
    )


# values beyond the documented shape: whole numbers JSON readers cannot keep exact, more than two
# levels of lists and objects, more than 64 items and keys
beyond_shape = st.sampled_from([
    10**40, -(10**40), 2**53, -(2**53), [[[1]]], {"a": {"b": {"c": 1}}}, [{"a": [1]}],
    list(range(65)), {f"k{i}": [i] for i in range(40)}, {"amount": 10**40, "currency": "CNY"}])


def claim_bad() -> st.SearchStrategy[str | bytes]:
    g = GOOD_CLAIM
    required = ["subject", "predicate", "object", "source", "source.session", "source.turn",
                "source.text", "source.time"]
    return st.one_of(
        generic_bad(g),
        st.sampled_from(required).map(lambda f: _with(g, f, _DROP)),
        (non_string.filter(lambda v: v is not None) | st.sampled_from(
            ["alice", "user:", ":x", "1user:x", "user: x", "'; DROP TABLE fact;--"])).map(
            lambda v: _with(g, "subject", v)),
        (non_string.filter(lambda v: v is not None) | st.sampled_from(
            ["LivesIn", "lives in", "lives-in", "住在", "x" * 150_000])).map(
            lambda v: _with(g, "predicate", v)),
        (non_string.filter(lambda v: v is not None) | st.sampled_from(["", "  ", "a\x00b"])).map(
            lambda v: _with(g, "object", v)),
        (st.floats(allow_nan=False).filter(lambda x: not 0 <= x <= 1) | st.text(max_size=5)
         | st.booleans() | st.integers(2, 10**30)).map(lambda v: _with(g, "confidence", v)),
        bad_times.filter(lambda v: v is not None).map(lambda v: _with(g, "source.time", v)),
        bad_times.filter(lambda v: v is not None).map(lambda v: _with(g, "valid_from", v)),
        not_whole.map(lambda v: _with(g, "source.turn", v)),
        any_json.filter(lambda v: v not in (None, "evolution", "correction")).map(
            lambda v: _with(g, "change", v)),
        any_json.filter(lambda v: v not in (None, "positive", "negative", "neutral")).map(
            lambda v: _with(g, "polarity", v)),
        st.sampled_from(["2026-03-13T00:00:00+08:00", "2026-03-14T00:00:00+08:00"]).map(
            lambda v: _with(g, "valid_to", v)),  # not after valid_from
        st.integers(34, 500).map(lambda n: _with(g, "value", json.loads("[" * n + "]" * n))),
        (any_json.filter(lambda v: v is not None and not isinstance(v, dict))
         | st.just({"start": "2026-03-01"}) | st.just({"when": 1})).map(
            lambda v: _with(g, "event_time", v)),
        (any_json.filter(lambda v: v is not None and not isinstance(v, dict))).map(
            lambda v: _with(g, "source", v)),
        st.sampled_from(["nul \x00", "\ud83d alone"]).map(lambda v: _with(g, "source.text", v)),
        st.just(_with(g, "value", {"k": "nul \x00"})),
        st.just(_with(g, "value", {"\x00": 1})),
        beyond_shape.map(lambda v: _with(g, "value", v)),
        st.just(_with(g, "source.turn", 0)),
        # only an absent or null kind defaults: no other value that reads as false
        st.sampled_from([0, [], {}, "", False, "user", ["imported"]]).map(
            lambda v: _with(g, "source.kind", v)),
    )


def _json_ok(text: str) -> bool:
    try:
        json.loads(text)
        return True
    except (ValueError, RecursionError):
        return False


def _raw(line: str | bytes) -> bytes:
    return line if isinstance(line, bytes) else line.encode("utf-8", "surrogatepass")


def _good_lines(kind: str, n: int) -> list[bytes]:
    out = []
    for i in range(n):
        if kind == "turn":
            out.append(_line({**GOOD_TURN, "turn": 100 + i, "text": f"good turn {i}"}))
        else:
            src = {**GOOD_CLAIM["source"], "turn": 100 + i, "text": f"good line {i}"}
            out.append(_line({**GOOD_CLAIM, "object": f"place {i}", "source": src}))
    return [x.encode("utf-8") for x in out]


def _write(path: Path, lines: list[bytes]) -> None:
    path.write_bytes(b"\n".join(lines) + b"\n")


# ---------------------------------------------------------------- the readers
@pytest.mark.parametrize("kind", ["turn", "claim"])
def test_readers_name_the_line_of_every_bad_line(kind):
    strategy = turn_bad() if kind == "turn" else claim_bad()
    reader = (lambda p: list(iter_turns(p))) if kind == "turn" else read_claims
    seen = {"lines": 0}

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "in.jsonl"

        @FUZZ
        @given(bad=st.lists(strategy, min_size=20, max_size=30), before=st.integers(0, 3))
        def check(bad, before):
            good = _good_lines(kind, 5)
            for line in bad:
                _write(path, good[:before] + [_raw(line)] + good[before:])
                with pytest.raises(InputFileError) as err:
                    reader(path)
                assert err.value.line == before + 1, (line[:200], str(err.value)[:300])
                assert str(err.value).startswith(f"{path}:{before + 1}: ")
                seen["lines"] += 1

        check()
    assert seen["lines"] >= 600


# -------------------------------------------------------------- through the CLI
def _counts(db: str) -> tuple[int, ...]:
    with Store.open(db) as store, store.engine.connect() as conn:
        return tuple(conn.execute(select(func.count()).select_from(t)).scalar_one()
                     for t in (TURN, CLAIM, FACT, MEMORY, AUDIT))


def _run(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        rc = main(argv)
    return rc, err.getvalue()


@pytest.mark.parametrize("command", ["ingest", "import"])
def test_cli_rejects_bad_files_and_writes_nothing(tmp_path, command):
    kind = "turn" if command == "ingest" else "claim"
    db = str(tmp_path / "m.db")
    seed = tmp_path / "seed.jsonl"
    _write(seed, _good_lines(kind, 3))
    assert _run(["--db", db, command, str(seed)])[0] == 0
    before = _counts(db)
    path = tmp_path / "bad.jsonl"
    runs = {"n": 0}

    @settings(max_examples=110, deadline=None, derandomize=True, suppress_health_check=QUIET)
    @given(bad=turn_bad() if kind == "turn" else claim_bad(), at=st.integers(0, 4))
    def check(bad, at):
        good = _good_lines(kind, 6)[2:]  # new lines after old ones: all would be written
        _write(path, good[:at] + [_raw(bad)] + good[at:])
        rc, err = _run(["--db", db, command, str(path)])
        assert rc == 1, err
        assert f"bad.jsonl:{at + 1}: " in err and "Traceback" not in err
        runs["n"] += 1

    check()
    assert _counts(db) == before
    assert runs["n"] >= 80


# ------------------------------------------------------- hostile but valid text
def test_hostile_valid_text_is_stored_verbatim(store_url, tmp_path):
    turns = [_line({**GOOD_TURN, "turn": i, "text": t}) for i, t in enumerate(HOSTILE_VALID, 1)]
    claims = []
    for i, t in enumerate(HOSTILE_VALID, 1):
        src = {**GOOD_CLAIM["source"], "session": "hv", "turn": i, "text": t}
        obj = t.strip() or "x"
        claims.append(_line({**GOOD_CLAIM, "predicate": "likes", "object": obj, "change": None,
                             "value": {"raw": t}, "source": src}))
    (tmp_path / "t.jsonl").write_text("\n".join(turns) + "\n", encoding="utf-8")
    (tmp_path / "c.jsonl").write_text("\n".join(claims) + "\n", encoding="utf-8")
    # the 200,000-character text is past the default bound on a turn (4,000): raised for it
    assert _run(["--db", store_url, "--max-turn-chars", "200000", "ingest",
                 str(tmp_path / "t.jsonl")]) == (0, "")
    assert _run(["--db", store_url, "import", str(tmp_path / "c.jsonl")]) == (0, "")
    with Store.open(store_url) as store:
        assert [t.text for t in store.facts.conversation("fz")] == HOSTILE_VALID
        assert [t.text for t in store.facts.conversation("hv")] == HOSTILE_VALID
        likes = {f.object: f for f in store.facts.current("user:alice", "likes")}
        for t in HOSTILE_VALID:
            fact = likes[t.strip() or "x"]
            assert json.loads(fact.value_json) == {"raw": t}
        # the tables are all still there
        assert len(store.review.list("all")) >= len(HOSTILE_VALID)


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(texts=st.lists(st.text(alphabet=st.characters(exclude_categories=("Cs",),
                                                     exclude_characters="\x00"),
                              min_size=0, max_size=80), min_size=1, max_size=8))
def test_any_text_ingests_verbatim(tmp_path, texts):
    db = str(tmp_path / "any.db")
    with Store.open(db) as store:
        start = len(store.facts.conversation("fz"))
    lines = [_line({**GOOD_TURN, "turn": start + i, "text": t}) for i, t in enumerate(texts, 1)]
    path = tmp_path / "any.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    rc, err = _run(["--db", db, "ingest", str(path)])
    assert rc == 0, err
    with Store.open(db) as store:
        assert [t.text for t in store.facts.conversation("fz")][start:] == texts


# ------------------------------------------- review edits and conflict resolutions
# Random ``--edit FIELD=VALUE`` sets on pending candidates and random resolve
# arguments on open conflicts, through the command line and through the Store
# API. Each set is built from parts known good or bad, so the test knows which
# it is: every bad one is refused (one line and exit 1, or InvalidInput) with
# nothing written; every good one takes effect as asked.
REVIEW_FROM = datetime(2026, 3, 10, 10, 0, tzinfo=timezone(timedelta(hours=8)))
REVIEW_OBJECT = "thing"
OFFSETS = [UTC, timezone(timedelta(hours=8)), timezone(timedelta(hours=-5)),
           timezone(timedelta(hours=5, minutes=45)), timezone(timedelta(hours=-9, minutes=-30))]
BAD_SCOPES = ["", "   ", "bogus", "Global", "global:", "session: x", "session:" + "x" * 300,
              "session:a\x00", "session:\ud800", "project:"]
GOOD_SCOPES = ["global", "project", "session", "session:trip", "project:atlas", "global:team",
               "session:'; DROP TABLE fact; --"]
clean_text = st.text(alphabet=st.characters(exclude_categories=("Cs",), exclude_characters="\x00"),
                     min_size=1, max_size=30).filter(lambda t: t.strip())
# a name (a reviewer's): text without control, format, separator, unassigned,
# private-use or invisible characters (core/names.py), NFKC-normal-ish
clean_name = st.text(alphabet=st.characters(
    exclude_categories=("Cs", "Cc", "Cf", "Zl", "Zp", "Zs", "Co", "Cn", "Mn", "Me"),
    exclude_characters="\u115f\u1160\u2800\u3164\uffa0", include_characters=" "),
    min_size=1, max_size=30).filter(lambda t: t.strip() and len(normalize("NFKC", t)) <= 200)
unstorable = st.sampled_from(["a\x00b", "\x00", "x\ud800y", "\udcff", "\udfff tail"])
# a value of the documented shape: a scalar, or lists and objects two levels deep at most
scalar_json = (st.none() | st.booleans() | st.integers(-(2**53 - 1), 2**53 - 1)
               | st.floats(allow_nan=False, allow_infinity=False) | clean_text)
flat_json = st.lists(scalar_json, max_size=3) | st.dictionaries(clean_text, scalar_json, max_size=3)
plain_json = (scalar_json | flat_json | st.lists(scalar_json | flat_json, max_size=3)
              | st.dictionaries(clean_text, scalar_json | flat_json, max_size=3))
aware_times = st.builds(lambda d, tz: d.replace(tzinfo=tz),
                        st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2100, 1, 1)),
                        st.sampled_from(OFFSETS))
later = st.timedeltas(min_value=timedelta(microseconds=1), max_value=timedelta(days=3650))
not_later = st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=3650))
bad_time_text = (naive_times | huge | st.text(max_size=30).filter(lambda t: not _is_time(t))
                 | st.sampled_from(["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-12:00",
                                    "2026-02-30T10:00:00+08:00", "2026-03-01T25:00:00+08:00"]))


def _text_of(when: datetime, tz) -> str:
    return when.astimezone(tz).isoformat()


@st.composite
def interval_edits(draw, cli: bool) -> tuple[dict, bool]:
    """valid_from / valid_to edits and whether the interval they make with the
    candidate's stored valid_from (REVIEW_FROM, open end) is valid."""
    kind = draw(st.sampled_from(["from", "to", "both", "clear", "inverted_to", "inverted_both",
                                 "bad_from", "bad_to"]))
    tz = draw(st.sampled_from(OFFSETS))
    if kind == "from":
        return {"valid_from": draw(aware_times).isoformat()}, True
    if kind == "to":
        return {"valid_to": _text_of(REVIEW_FROM + draw(later), tz)}, True
    if kind == "both":
        start = draw(aware_times)
        return {"valid_from": start.isoformat(), "valid_to": _text_of(start + draw(later), tz)}, True
    if kind == "clear":
        return {"valid_to": draw(st.sampled_from(["", "null"])) if cli else None}, True
    if kind == "inverted_to":  # before (or at) the candidate's own valid_from
        return {"valid_to": _text_of(REVIEW_FROM - draw(not_later), tz)}, False
    if kind == "inverted_both":
        start = draw(aware_times)
        return {"valid_from": start.isoformat(), "valid_to": _text_of(start - draw(not_later), tz)}, False
    bad = bad_time_text if cli else (bad_time_text | non_string.filter(lambda v: v is not None))
    if kind == "bad_from":
        return {"valid_from": draw(bad | st.just(None if not cli else ""))}, False
    return {"valid_to": draw(bad.filter(lambda v: v not in ("", "null")))}, False


def _field_values(cli: bool) -> dict[str, tuple[st.SearchStrategy, st.SearchStrategy]]:
    """Per editable field: (good values, bad values), as API values or as the
    text after ``FIELD=`` on the command line."""
    wrong_type = non_string.filter(lambda v: v is not None)
    objects = (clean_text | st.sampled_from(SQL_LIKE + ["x" * 5000]),
               st.sampled_from(["", "   "]) | unstorable | (st.nothing() if cli else wrong_type))
    if cli:
        values = (plain_json.map(lambda v: json.dumps(v, ensure_ascii=False)),
                  st.sampled_from(["NaN", "Infinity", "-Infinity", "[1,", "{'a': 1}", "",
                                   "[" * 40 + "]" * 40, "9" * 5000, "1e999", '"\\u0000"',
                                   '{"\\u0000": 1}', '"\\ud800"', "[1] x", "{\"a\": 1e400}",
                                   "1" + "0" * 40, "[[[1]]]", json.dumps(list(range(65)))]))
    else:
        values = (plain_json,
                  st.sampled_from([float("nan"), float("inf"), -float("inf"), {1: "a"},
                                   {"k": "\x00"}, "\ud800", b"bytes", {1, 2}, 10**5000,
                                   [float("nan")], {"a": {"b": object()}}, 10**40, [[[1]]],
                                   list(range(65))])
                  | st.integers(34, 60).map(lambda n: json.loads("[" * n + "]" * n)))
    polarities = (st.sampled_from(["positive", "negative", "neutral"]),
                  st.text(max_size=10).filter(lambda t: t not in ("positive", "negative", "neutral"))
                  | (st.nothing() if cli else any_json.filter(
                      lambda v: v not in ("positive", "negative", "neutral"))))
    scopes = (st.sampled_from(GOOD_SCOPES),
              st.sampled_from(BAD_SCOPES) | st.text(max_size=12).filter(
                  lambda t: not SCOPE_PATTERN.match(t.strip())) | (st.nothing() if cli else wrong_type))
    changes = (st.sampled_from(["", "null", "evolution", "correction"] if cli
                               else [None, "evolution", "correction"]),
               st.text(max_size=12).filter(lambda t: t not in ("", "null", "evolution", "correction"))
               | (st.nothing() if cli else any_json.filter(
                   lambda v: v not in (None, "evolution", "correction"))))
    return {"object": objects, "value": values, "polarity": polarities, "scope": scopes,
            "change": changes}


mostly_good = st.sampled_from([True, True, True, False])
unknown_fields = st.sampled_from(["confidence", "subject", "predicate", "source", "sensitive",
                                  "Object", "valid-from", "turn", "state", "fact_id"]) | st.text(
    min_size=1, max_size=8).filter(lambda k: k.strip() not in EDITABLE and "=" not in k)


@st.composite
def edit_plan(draw, cli: bool) -> tuple[list[tuple[str, object]], bool]:
    """A set of edits as (field, value) pairs in order, and whether all of it is valid."""
    values = _field_values(cli)
    pairs: list[tuple[str, object]] = []
    ok = True
    for name in draw(st.lists(st.sampled_from(sorted(values)), unique=True, max_size=4)):
        good, bad = values[name]
        fine = draw(mostly_good)
        pairs.append((name, draw(good if fine else bad)))
        ok &= fine
    if draw(st.booleans()):
        times, fine = draw(interval_edits(cli))
        pairs.extend(times.items())
        ok &= fine
    if draw(st.sampled_from([False] * 7 + [True])):
        pairs.append((draw(unknown_fields), draw(clean_text)))
        ok = False
    if cli and pairs and draw(st.sampled_from([False] * 9 + [True])):
        pairs.append((pairs[0][0], pairs[0][1]))  # the same field twice
        ok = False
    if not pairs:
        pairs.append(("object", draw(clean_text)))
    return pairs, ok


def _edit_argv(pairs: list[tuple[str, object]]) -> list[str]:
    return [f"--edit={name}={value}" for name, value in pairs]


def _decision_lines(pending: int, conflicts: int) -> list[str]:
    """Import lines for ``pending`` candidates waiting in review (one subject
    each, valid from REVIEW_FROM) and ``conflicts`` open conflicts (a value
    from January, another from February, no change signal)."""
    def line(subject, predicate, obj, session, turn, told, valid_from, confidence):
        return _line({"subject": subject, "predicate": predicate, "object": obj,
                      "confidence": confidence, "valid_from": valid_from,
                      "source": {"session": session, "turn": turn, "speaker": "user",
                                 "kind": "user_explicit", "time": told,
                                 "text": f"{subject} {predicate} {obj}"}})
    out = [line(f"user:p{i}", "likes", REVIEW_OBJECT, "fz-review", i + 1, "2026-03-18T09:30:00+08:00",
                REVIEW_FROM.isoformat(), 0.5) for i in range(pending)]
    for i in range(conflicts):
        out.append(line(f"user:c{i}", "lives_in", f"Old {i}", "fz-conflict", 2 * i + 1,
                        "2026-01-05T10:00:00+08:00", "2026-01-01T00:00:00+08:00", 0.95))
        out.append(line(f"user:c{i}", "lives_in", f"New {i}", "fz-conflict", 2 * i + 2,
                        "2026-02-05T10:00:00+08:00", "2026-02-01T00:00:00+08:00", 0.95))
    return out


def _seed_decisions(store: Store, folder: Path, pending: int = 0, conflicts: int = 0) -> None:
    path = folder / "decisions.jsonl"
    path.write_text("\n".join(_decision_lines(pending, conflicts)) + "\n", encoding="utf-8")
    summary = store.facts.import_file(path)
    assert summary.queued == pending and summary.conflicts == conflicts


def _written(store: Store) -> tuple:
    """What any write changes: the store's change stamp and every table's row count."""
    with store.engine.connect() as conn:
        counts = tuple(conn.execute(select(func.count()).select_from(t)).scalar_one()
                       for t in (TURN, CLAIM, FACT, MEMORY, AUDIT, CONFLICT))
    return store.change_stamp(), counts


def _one_error_line(err: str) -> None:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("memdesk: error: "), err[:500]
    assert "Traceback" not in err


def _expect_edited(store: Store, fact_id: int, pairs: list[tuple[str, object]], cli: bool) -> None:
    """The approved fact carries every edit."""
    fact = store.facts.get(fact_id)
    asked = dict(pairs)
    assert fact.object == str(asked.get("object", REVIEW_OBJECT)).strip()
    assert fact.polarity == asked.get("polarity", "positive")
    assert fact.scope == asked.get("scope", "global")
    start = asked.get("valid_from")
    assert fact.valid_from == (parse_time_us(start) if start else to_us(REVIEW_FROM))
    end = asked.get("valid_to")
    assert fact.valid_to == (parse_time_us(end) if end not in (None, "", "null") else None)
    if "value" in asked:
        value = json.loads(asked["value"]) if cli else asked["value"]
        assert fact.value_json == canonical_json(value)


def test_random_edits_on_pending_candidates_through_the_cli(store_url, tmp_path):
    with Store.open(store_url) as store:
        _seed_decisions(store, tmp_path, pending=90)
        pool = [c.id for c in store.review.list()]
        seen = {"good": 0, "bad": 0}

        @settings(max_examples=70, deadline=None, derandomize=True, suppress_health_check=QUIET)
        @given(plan=edit_plan(cli=True))
        def check(plan):
            pairs, ok = plan
            cid = pool[seen["good"]]
            before = _written(store)
            rc, err = _run(["--db", store_url, "review", "approve", str(cid), "--by=fuzz",
                            *_edit_argv(pairs)])
            if ok:
                assert (rc, err) == (0, ""), (pairs, err)
                decided = store.review.get(cid)
                assert decided.state == "approved" and decided.fact_id
                _expect_edited(store, decided.fact_id, pairs, cli=True)
                seen["good"] += 1
            else:
                assert rc == 1, (pairs, err)
                _one_error_line(err)
                assert _written(store) == before, pairs
                assert store.review.get(cid).state == "pending"
                seen["bad"] += 1

        check()
        assert seen["good"] >= 15 and seen["bad"] >= 25, seen
        assert store.audit.verify().ok


def test_random_edits_on_pending_candidates_through_the_store_api(store, tmp_path):
    _seed_decisions(store, tmp_path, pending=110)
    pool = [c.id for c in store.review.list()]
    seen = {"good": 0, "bad": 0}

    @settings(max_examples=110, deadline=None, derandomize=True, suppress_health_check=QUIET)
    @given(plan=edit_plan(cli=False))
    def check(plan):
        pairs, ok = plan
        cid = pool[seen["good"]]
        edits = dict(pairs)
        before = _written(store)
        if ok:
            result = store.review.approve(cid, by="fuzz", edits=edits)
            assert store.review.get(cid).state == "approved" and result.fact_id, (edits, result)
            _expect_edited(store, result.fact_id, pairs, cli=False)
            seen["good"] += 1
        else:
            with pytest.raises(InvalidInput) as refused:
                store.review.approve(cid, by="fuzz", edits=edits)
            assert "\n" not in str(refused.value)
            assert _written(store) == before, edits
            assert store.review.get(cid).state == "pending"
            seen["bad"] += 1

    check()
    assert seen["good"] >= 20 and seen["bad"] >= 30, seen
    assert store.audit.verify().ok


RESOLVE_KEEPS = ("existing", "incoming", "changed", "both", "neither")
GOOD_BOTH_SCOPES = [s for s in GOOD_SCOPES if s != "global"]  # the conflicts' own scope is global


@st.composite
def resolve_plan(draw, cli: bool) -> tuple[dict, str]:
    """Arguments for resolving an open conflict (keep, scope, reason, by, id)
    and what must happen: "ok", "refused" (InvalidInput, exit 1) or "usage"
    (the command line's parser refuses it, exit 2)."""
    verdict = "ok"
    keep = draw(st.sampled_from(RESOLVE_KEEPS))
    if draw(st.sampled_from([False] * 9 + [True])):
        keep = draw(st.text(max_size=10).filter(lambda k: k not in RESOLVE_KEEPS)
                    | (st.nothing() if cli else any_json.filter(lambda k: k not in RESOLVE_KEEPS)))
        verdict = "usage" if cli else "refused"
    scope = None
    if keep == "both":
        if draw(mostly_good):
            scope = draw(st.sampled_from(GOOD_BOTH_SCOPES))
        else:
            scope = draw(st.sampled_from([None, "global"] + BAD_SCOPES))
            verdict = "refused" if verdict == "ok" else verdict
    elif draw(st.sampled_from([False] * 3 + [True])):
        scope = draw(st.sampled_from(GOOD_SCOPES + BAD_SCOPES[2:]))  # a scope without keep=both
        verdict = "refused" if verdict == "ok" else verdict
    reason = None
    if draw(st.booleans()):
        if draw(mostly_good):
            reason = draw(st.sampled_from(["", "   "]) | clean_text | st.sampled_from(HOSTILE_VALID[:9]))
        else:
            reason = draw(unstorable | (st.nothing() if cli else st.sampled_from([1, ["why"], b"x"])))
            verdict = "refused" if verdict == "ok" else verdict
    by = "fuzz"
    if draw(st.sampled_from([False] * 3 + [True])):
        if draw(mostly_good):
            by = draw(clean_name | st.sampled_from(["  lin  ", "ｌｉｎ", "Lin Wei"]))
        else:
            by = draw(st.sampled_from(["   ", "x" * 201, "lin\nSYSTEM: root", "lin\u202e",
                                       "\u200blin", "lin\x1b[2J"]) | unstorable
                      | (st.nothing() if cli else st.sampled_from(["", None, 7, ["me"]])))
            verdict = "refused" if verdict == "ok" else verdict
    bad_id = None  # or (the id to give instead of the conflict's,)
    if draw(st.sampled_from([False] * 6 + [True])):
        if cli:
            bad_id = (draw(st.sampled_from(["0", "-1", "99999999999999999999", "abc", "1.5"])),)
            verdict = "usage" if bad_id[0] in ("abc", "1.5") else verdict
        else:
            bad_id = (draw(st.sampled_from(["1", 1.0, True, 0, -1, 2**63, None])),)
        verdict = "refused" if verdict == "ok" else verdict
    return {"keep": keep, "scope": scope, "reason": reason, "by": by, "bad_id": bad_id}, verdict


def test_random_resolutions_of_open_conflicts_through_the_cli(store_url, tmp_path):
    with Store.open(store_url) as store:
        _seed_decisions(store, tmp_path, conflicts=70)
        pool = [c.id for c in store.conflicts.list("open")]
        seen = {"ok": 0, "refused": 0, "usage": 0}

        @settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=QUIET)
        @given(plan=resolve_plan(cli=True))
        def check(plan):
            args, verdict = plan
            kid = pool[seen["ok"]]
            argv = ["--db", store_url, "conflicts", "resolve",
                    args["bad_id"][0] if args["bad_id"] else str(kid),
                    f"--keep={args['keep']}", f"--by={args['by']}"]  # "--by=-x": a value, not a flag
            if args["scope"] is not None:
                argv.append(f"--scope={args['scope']}")
            if args["reason"] is not None:
                argv.append(f"--reason={args['reason']}")
            before = _written(store)
            if verdict == "usage":
                with pytest.raises(SystemExit) as parsed:
                    _run(argv)
                assert parsed.value.code == 2
            else:
                rc, err = _run(argv)
                if verdict == "ok":
                    assert (rc, err) == (0, ""), (args, err)
                    done = store.conflicts.get(kid)
                    assert done.state == "resolved" and done.resolution == args["keep"]
                else:
                    assert rc == 1, (args, err)
                    _one_error_line(err)
            if verdict != "ok":
                assert _written(store) == before, args
                assert store.conflicts.get(kid).state == "open"
            seen[verdict] += 1

        check()
        assert seen["ok"] >= 15 and seen["refused"] >= 15, seen
        assert store.audit.verify().ok


def test_random_resolutions_of_open_conflicts_through_the_store_api(store, tmp_path):
    _seed_decisions(store, tmp_path, conflicts=90)
    pool = [c.id for c in store.conflicts.list("open")]
    seen = {"ok": 0, "refused": 0}

    @settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=QUIET)
    @given(plan=resolve_plan(cli=False))
    def check(plan):
        args, verdict = plan
        kid = pool[seen["ok"]]
        target = args["bad_id"][0] if args["bad_id"] else kid

        def resolve():
            return store.conflicts.resolve(target, args["keep"], by=args["by"],
                                          reason=args["reason"], scope=args["scope"])

        before = _written(store)
        if verdict == "ok":
            done = resolve()
            assert done.state == "resolved" and done.resolution == args["keep"]
            if args["keep"] == "both":
                assert any(f.scope == args["scope"] for f in store.facts.current(done.subject, "lives_in"))
        else:
            with pytest.raises(InvalidInput) as refused:
                resolve()
            assert "\n" not in str(refused.value)
            assert _written(store) == before, args
            assert store.conflicts.get(kid).state == "open"
        seen[verdict] += 1

    check()
    assert seen["ok"] >= 20 and seen["refused"] >= 20, seen
    assert store.audit.verify().ok
