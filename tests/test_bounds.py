"""One request must not hold the store (issue 29, section 1, the engine's part).

* Extraction is linear in a turn's length: the work the rules do (the characters their patterns are
  handed, the characters the time parser reads) grows in proportion to the turn, a turn eight times as
  long costs about eight times as much, not sixty-four; and no pattern is handed a run of blanks, which
  the patterns that open with ``\\s+`` would rescan from each of its positions. Work is counted, never
  timed (the times are in ``python -m tests.benchmarks.bench_bounds``).
* Extraction runs before the write transaction opens: while the extractor reads a turn, another
  connection can take the store's write lock at once (SQLite ``BEGIN IMMEDIATE``, PostgreSQL
  ``SELECT … FOR UPDATE NOWAIT`` on the lock row). A turn whose context another writer changed in between
  is read again, under the lock, with the new context.
* Bounds on the work of one request (core/bounds.py): a remember's turn length, messages and characters
  per call, a recall query's characters and asks, and a conversation line's length are each refused just
  above the bound, in one line naming the bound and the value, with nothing written, and accepted at it;
  through the API, the command line (flags, environment, config file) and the MCP tools.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import sqlite3
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from memdesk import (
    BoundExceeded,
    Bounds,
    InputFileError,
    InvalidInput,
    ManualClock,
    Memory,
    Store,
)
from memdesk.app import cli
from memdesk.extract import rules
from memdesk.lang.questions import asks
from memdesk.pipeline import Turn
from memdesk.recall import Recaller

from .helpers import rule_modules
from .helpers import written as _written
from .recall_fixtures import HashEmbedder

CST = timezone(timedelta(hours=8))
WHEN = datetime(2026, 3, 2, 9, 0, tzinfo=CST)
GOLD = Path(__file__).resolve().parents[1] / "tests" / "sets" / "gold" / "extraction.jsonl"


# ------------------------------------------------------------ linear extraction
def _paragraph() -> str:
    """Realistic mixed text: the first 30 Chinese and 30 English turns of the gold set, interleaved."""
    zh, en = [], []
    for line in GOLD.read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        (zh if d["lang"] == "zh" else en).append(d["turn"]["text"])
    return " ".join(t for pair in zip(zh[:30], en[:30], strict=True) for t in pair)


class _Counting:
    """A compiled pattern that adds the length of every text it is handed to ``work``, and notes the
    longest run of blanks in it."""

    def __init__(self, regex: re.Pattern[str], work: dict[str, int]) -> None:
        self._regex, self._work = regex, work

    def _text(self, text: str) -> None:
        self._work["chars"] += len(text)
        runs = re.findall(r"\s+", text)
        self._work["blanks"] = max([self._work["blanks"], *map(len, runs)])

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._regex, name)
        if name not in ("search", "match", "fullmatch", "findall", "finditer", "split", "sub", "subn"):
            return method

        def counted(*args: Any, **kw: Any) -> Any:
            if name in ("sub", "subn"):
                self._text(args[1])
            else:  # the part between pos and endpos, when given
                self._text(args[0][slice(*args[1:3])] if len(args) > 1 else args[0])
            return method(*args, **kw)
        return counted


@contextlib.contextmanager
def _counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, int]]:
    """While active: the characters handed to the rules' named patterns (``chars``), the longest run of
    blanks among them (``blanks``) and the characters the time parser reads for the rules (``times``)."""
    work = {"chars": 0, "blanks": 0, "times": 0}
    find_times = rules.find_times

    def timed(text: str, *args: Any, **kw: Any) -> Any:
        work["times"] += len(text)
        return find_times(text, *args, **kw)

    counting = {name: _Counting(p, work) for name, p in rules._P.items()}
    with monkeypatch.context() as m:
        for module in rule_modules():  # each module of the extractor reads them under its own name
            if hasattr(module, "_P"):
                m.setattr(module, "_P", counting)
            if hasattr(module, "find_times"):
                m.setattr(module, "find_times", timed)
        yield work


def _work(monkeypatch: pytest.MonkeyPatch, text: str) -> tuple[dict[str, int], int]:
    with _counted(monkeypatch) as work:
        facts = rules.extract(Turn("s", 1, "user", WHEN, text, "me"), [])
    return dict(work), len(facts)


def test_extraction_work_grows_in_proportion_to_the_turn(monkeypatch):
    one = _paragraph()
    small, facts_small = _work(monkeypatch, one)
    large, facts_large = _work(monkeypatch, " ".join([one] * 8))
    assert facts_small >= 10 and facts_large >= facts_small  # a paragraph that states facts
    for measure in ("chars", "times"):
        # eight times the text: about eight times the work (before: about 30x and 60x)
        assert large[measure] <= 8 * small[measure] * 1.25, (measure, small[measure], large[measure])


def test_no_pattern_is_handed_a_run_of_blanks(monkeypatch):
    text = "I live in Leeds." + " " * 3_000 + "I  like   tea\t\t and\n\n\n coffee" + "\n" * 500 + "我住在上海。"
    work, facts = _work(monkeypatch, text)
    assert work["blanks"] == 1  # each run is read as one blank (a line break when it holds one)
    assert facts >= 2  # and still read: Leeds, tea, …


def test_a_long_run_of_digits_is_not_a_number_read_from_each_of_its_digits():
    # the amount patterns start where a number starts (they were rescanned from every digit)
    for name in ("en.grand", "en.amount.2", "zh.budget_amount.3"):
        assert rules._P[name].pattern.startswith("(?<!"), name
    facts = rules.extract(Turn("s", 1, "user", WHEN, "My budget is 3 grand, " + "1" * 5000, "me"), [])
    assert [(f.predicate, f.object) for f in facts] == [("budget_limit", "3000")]


def test_a_correction_reads_each_earlier_turn_once_not_once_per_wrong_value(monkeypatch):
    # "I meant X, not A, not B, …": each earlier turn was extracted again for every wrong value named
    from collections import Counter

    from memdesk.extract.records import Raw

    context = [Turn("p", n, "user", WHEN, "For search we'll use Algolia.", "yu", "shop") for n in (1, 2, 3)]
    text = "Sorry, I meant Meilisearch, " + ", ".join(f"not Tool{i}" for i in range(12)) + ", not Algolia."
    reads: Counter[int] = Counter()
    extract = rules.extract

    def counting(turn: Turn, ctx: Any = ()) -> Any:
        reads[turn.turn] += 1
        return extract(turn, ctx)

    monkeypatch.setattr(rules, "extract", counting)
    out = rules._retire_wrong_values(text, context, [Raw("decision", "Meilisearch")])
    assert ("decision", "Algolia", "negative") in [(r.predicate, r.object, r.polarity) for r in out]
    assert dict(reads) == {1: 1, 2: 1, 3: 1}  # before: 12, 12 and 13


# ----------------------------------------------- extraction before the write lock
def _lock_free(url: str) -> bool:
    """Whether another connection can take the store's write lock at once."""
    if url.startswith("postgresql"):
        import psycopg

        with psycopg.connect(url) as conn:
            try:
                conn.execute("SELECT id FROM store_meta WHERE id = 1 FOR UPDATE NOWAIT")
                return True
            except psycopg.errors.LockNotAvailable:
                return False
            finally:
                conn.rollback()
    conn = sqlite3.connect(url, timeout=0, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ROLLBACK")
        return True
    except sqlite3.OperationalError:  # database is locked
        return False
    finally:
        conn.close()


class Probe:
    """An extractor that notes, for each turn it reads, whether the write lock was free and how many
    turns of context it was given; ``first`` runs once, at the first turn."""

    name = "probe@1"

    def __init__(self, url: str, first: Any = None) -> None:
        self.url, self.first = url, first
        self.lock_free: list[bool] = []
        self.context: list[int] = []

    def claims(self, turn: Turn, context: Any) -> list:
        self.lock_free.append(_lock_free(self.url))
        self.context.append(len(context))
        if self.first is not None:
            first, self.first = self.first, None
            first()
        return []


def _turn(number: int, text: str, session: str = "s1") -> Turn:
    return Turn(session, number, "user", WHEN + timedelta(minutes=number), text, "ana")


def test_turns_are_extracted_before_the_write_transaction_opens(store, store_url):
    probe = Probe(store_url)
    summary = store.facts.ingest_turns([_turn(1, "I live in Leeds"), _turn(2, "I like tea")],
                                 extractor=probe, signals=False)
    assert probe.lock_free == [True, True] and summary.turns == 2


def test_a_file_is_extracted_before_the_write_transaction_opens(store, store_url, tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(json.dumps({"session": "f", "turn": n, "speaker": "user", "user": "ana",
                                          "time": "2026-03-01T10:00:00+08:00", "text": f"line {n}"})
                              for n in (1, 2, 3)) + "\n", encoding="utf-8")
    probe = Probe(store_url)
    assert store.facts.ingest_file(path, extractor=probe, signals=False).turns == 3
    assert probe.lock_free == [True, True, True]


def test_a_turn_whose_context_changed_meanwhile_is_read_again_under_the_lock(store, store_url, clock):
    def another_writer() -> None:  # stores an earlier turn of the same session in between
        assert _lock_free(store_url), "the write lock is held while the turn is extracted"
        with Store.open(store_url, clock=clock) as other:
            other.facts.ingest_turns([_turn(1, "I moved to Leeds")], signals=False)

    probe = Probe(store_url, first=another_writer)
    summary = store.facts.ingest_turns([_turn(2, "yes")], extractor=probe, signals=False)
    # read first without the lock and without context; again under the lock, with the new turn
    assert probe.lock_free == [True, False] and probe.context == [0, 1]
    assert summary.reread == 1 and summary.turns == 1


# ------------------------------------------------------------- request bounds
@contextlib.contextmanager
def refused(store: Store, *parts: str) -> Iterator[Any]:
    """The block raises InvalidInput in one line naming ``parts``, and writes nothing."""
    before = _written(store)
    with pytest.raises(InvalidInput) as err:
        yield err
    assert "\n" not in str(err.value) and all(p in str(err.value) for p in parts), str(err.value)
    assert _written(store) == before


@pytest.fixture
def memory(store_url, tmp_path) -> Iterator[Memory]:
    store = Store.open(store_url, clock=ManualClock(datetime(2026, 6, 1, 9, 0, tzinfo=CST)))
    m = Memory(store, Recaller(store, embedder=HashEmbedder(), turn_embedder=HashEmbedder(),
                               index_dir=tmp_path / "idx"))
    yield m
    m.close()


def _said(n: int, size: int) -> list[dict[str, Any]]:
    """``n`` user messages of ``size`` characters each (Chinese and English statements)."""
    base = "我住在上海，喜欢喝咖啡。I live in Leeds and I like tea. "
    return [{"role": "user", "content": (f"{i} " + base * (size // len(base) + 1))[:size]}
            for i in range(n)]


def test_remember_refuses_above_each_bound_and_accepts_at_it(memory):
    b = Bounds()
    assert (b.turn_chars, b.turns_per_call, b.call_chars) == (4_000, 64, 16_000)
    store = memory.store
    with refused(store, "message 1", "4001 characters", "at most 4000", "bound turn_chars"):
        memory.remember(_said(1, 4_001), user="ana")
    with refused(store, "65 messages in one call", "at most 64", "bound turns_per_call"):
        memory.remember(_said(65, 10), user="ana")
    with refused(store, "16001 characters", "at most 16000", "bound call_chars"):
        memory.remember(_said(3, 4_000) + _said(1, 4_001 - 2)[:1] + [{"role": "user", "content": "ok"}],
                        user="ana")
    assert len(memory.remember(_said(1, 4_000), user="ana").turns) == 1  # at the turn bound
    assert len(memory.remember(_said(64, 10), user="bea").turns) == 64  # at the message bound
    done = memory.remember(_said(4, 4_000), user="cy")  # at the turn and the call bound
    assert len(done.turns) == 4 and done.asserted >= 1


def test_the_bounds_are_configurable_and_checked(store_url):
    with Store.open(store_url, bounds=Bounds(turn_chars=10, turns_per_call=2, call_chars=15)) as store:
        m = Memory(store, Recaller(store, embedder=HashEmbedder()))
        with refused(store, "11 characters", "bound turn_chars"):
            m.remember([{"role": "user", "content": "x" * 11}], user="ana")
        with refused(store, "3 messages", "bound turns_per_call"):
            m.remember([{"role": "user", "content": "a"}] * 3, user="ana")
        with refused(store, "16 characters", "bound call_chars"):
            m.remember([{"role": "user", "content": "x" * 8}, {"role": "user", "content": "y" * 8}],
                       user="ana")
        assert m.remember([{"role": "user", "content": "x" * 10}], user="ana").turns == (1,)
    for bad in (0, -1, True, 1.5, "3"):
        with pytest.raises(InvalidInput, match="must be a whole number of at least 1"):
            Bounds(query_chars=bad)  # type: ignore[arg-type]


def _asking(n: int) -> str:
    return "".join(f"where did I leave the blue folder number {i}? " for i in range(n))


def test_recall_refuses_above_the_query_bounds_and_accepts_at_them(memory):
    memory.remember([{"role": "user", "content": "I keep the blue folder in the attic"}], user="ana")
    store = memory.store
    for over in ("memories", "turns"):
        with refused(store, "401 characters", "at most 400", "bound query_chars"):
            memory.recall("x" * 401, user="ana", over=over)
        assert memory.recall("folder " + "x" * 393, user="ana", over=over) is not None  # 400
        nine = _asking(9)
        assert len(asks(nine)) == 9 and len(nine) <= 400
        with refused(store, "asks 9 questions", "at most 8", "bound query_asks"):
            memory.recall(nine, user="ana", over=over)
        assert len(asks(_asking(8))) == 8
        assert isinstance(memory.recall(_asking(8), user="ana", over=over), list)


def test_a_conversation_line_too_long_is_named_by_its_line(store, tmp_path):
    path = tmp_path / "long.jsonl"
    lines = [{"session": "f", "turn": n, "speaker": "user", "time": "2026-03-01T10:00:00+08:00",
              "text": "t" * size, "user": "ana"} for n, size in ((1, 4_000), (2, 4_001))]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    with refused(store, f"{path}:2:", "4001 characters", "bound turn_chars") as err:
        store.facts.ingest_file(path)
    assert isinstance(err.value, InputFileError) and err.value.line == 2
    with refused(store, "turn 2", "4001 characters", "bound turn_chars") as err:
        store.facts.ingest_turns([_turn(1, "t" * 4_000), _turn(2, "t" * 4_001)])
    assert isinstance(err.value, BoundExceeded)


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = cli.main(argv)
    return rc, out.getvalue(), err.getvalue()


def test_command_line_bounds_flags_environment_and_config(tmp_path, monkeypatch):
    db = str(tmp_path / "m.db")
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps({"session": "f", "turn": 1, "speaker": "user", "user": "ana",
                                "time": "2026-03-01T10:00:00+08:00", "text": "I live in Leeds"}) + "\n",
                    encoding="utf-8")
    monkeypatch.delenv("MEMDESK_CONFIG", raising=False)
    rc, _, err = _run(["--db", db, "--max-turn-chars", "5", "ingest", str(path)])
    assert rc == 1 and err.splitlines() == [f"memdesk: error: {path}:1: the text holds 15 characters: "
                                            "at most 5 (bound turn_chars)"]
    monkeypatch.setenv("MEMDESK_MAX_TURN_CHARS", "5")
    assert _run(["--db", db, "ingest", str(path)])[0] == 1
    assert _run(["--db", db, "--max-turn-chars", "15", "ingest", str(path)])[0] == 0  # flag over env
    monkeypatch.setenv("MEMDESK_MAX_TURN_CHARS", "zero")
    rc, _, err = _run(["--db", db, "ingest", str(path)])
    assert rc == 1 and err.splitlines() == ["memdesk: error: bound turn_chars must be a whole number "
                                            "of at least 1, got 'zero'"]
    monkeypatch.delenv("MEMDESK_MAX_TURN_CHARS")
    config = tmp_path / "config.toml"
    config.write_text("[bounds]\nquery_chars = 3\n", encoding="utf-8")
    monkeypatch.setenv("MEMDESK_CONFIG", str(config))
    rc, _, err = _run(["--db", db, "recall", "Leeds?", "--embedder", "use"])
    assert rc == 1 and "6 characters: at most 3 (bound query_chars)" in err and len(err.splitlines()) == 1
    config.write_text("[bounds]\nquery_letters = 3\n", encoding="utf-8")
    rc, _, err = _run(["--db", db, "recall", "Leeds?"])
    assert rc == 1 and "unknown [bounds] setting 'query_letters'" in err


def test_the_command_lines_defaults_are_the_engines():
    defaults = Bounds()
    assert {name: default for name, default, _ in cli._BOUND_FLAGS} == {
        name: getattr(defaults, name) for name in defaults.__dataclass_fields__}


async def test_mcp_tools_refuse_above_the_bounds_in_one_line(memory):
    pytest.importorskip("mcp")
    from mcp.server.mcpserver.exceptions import ToolError
    from memdesk.app.mcp_server import build_server

    server = build_server(memory)
    before = _written(memory.store)
    for name, args, match in [
            ("remember", {"messages": _said(65, 5), "user": "ana"}, r"\(bound turns_per_call\)"),
            ("remember", {"messages": _said(1, 4_001), "user": "ana"}, r"\(bound turn_chars\)"),
            ("recall", {"query": "q" * 401, "user": "ana"}, r"401 characters: at most 400"),
            ("recall", {"query": _asking(9), "user": "ana"}, r"\(bound query_asks\)")]:
        with pytest.raises(ToolError, match=match) as err:
            await server.call_tool(name, args)
        assert "\n" not in str(err.value)
    assert _written(memory.store) == before


def test_a_turn_of_digits_at_the_bound_is_stored_without_an_absurd_amount(memory):
    # the rules read "1111…" as a budget of thousands of digits: no claim can carry it (it crashed
    # the canonical JSON of the claim), so the turn is stored raw and nothing else
    done = memory.remember([{"role": "user", "content": "My budget is " + "1" * 3_987}], user="ana")
    assert done.turns == (1,) and (done.asserted, done.queued, done.conflicts) == (0, 0, 0)
