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
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memdesk.app.cli import main
from memdesk.core import InputFileError, Store
from memdesk.core.claims import read_claims
from memdesk.core.ingest import iter_turns
from memdesk.core.writer import AUDIT, CLAIM, FACT, MEMORY, TURN
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
    )


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
    turns = [_line({**GOOD_TURN, "turn": i, "text": t}) for i, t in enumerate(HOSTILE_VALID)]
    claims = []
    for i, t in enumerate(HOSTILE_VALID):
        src = {**GOOD_CLAIM["source"], "session": "hv", "turn": i, "text": t}
        obj = t.strip() or "x"
        claims.append(_line({**GOOD_CLAIM, "predicate": "likes", "object": obj, "change": None,
                             "value": {"raw": t}, "source": src}))
    (tmp_path / "t.jsonl").write_text("\n".join(turns) + "\n", encoding="utf-8")
    (tmp_path / "c.jsonl").write_text("\n".join(claims) + "\n", encoding="utf-8")
    assert _run(["--db", store_url, "ingest", str(tmp_path / "t.jsonl")]) == (0, "")
    assert _run(["--db", store_url, "import", str(tmp_path / "c.jsonl")]) == (0, "")
    with Store.open(store_url) as store:
        assert [t.text for t in store.conversation("fz")] == HOSTILE_VALID
        assert [t.text for t in store.conversation("hv")] == HOSTILE_VALID
        likes = {f.object: f for f in store.current("user:alice", "likes")}
        for t in HOSTILE_VALID:
            fact = likes[t.strip() or "x"]
            assert json.loads(fact.value_json) == {"raw": t}
        # the tables are all still there
        assert len(store.review_list("all")) >= len(HOSTILE_VALID)


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(texts=st.lists(st.text(alphabet=st.characters(exclude_categories=("Cs",),
                                                     exclude_characters="\x00"),
                              min_size=0, max_size=80), min_size=1, max_size=8))
def test_any_text_ingests_verbatim(tmp_path, texts):
    db = str(tmp_path / "any.db")
    with Store.open(db) as store:
        start = len(store.conversation("fz"))
    lines = [_line({**GOOD_TURN, "turn": start + i, "text": t}) for i, t in enumerate(texts)]
    path = tmp_path / "any.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    rc, err = _run(["--db", db, "ingest", str(path)])
    assert rc == 0, err
    with Store.open(db) as store:
        assert [t.text for t in store.conversation("fz")][start:] == texts
