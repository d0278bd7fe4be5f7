"""Every door checks what comes through it before anything is written (issue
18, item 3): review edits are checked as a whole claim, as an import line is;
decisions, resolutions, retractions, undos, erasures and maintenance check
their ids, names, reasons and scopes; lookups check subjects, predicates and
times; the Memory API and the MCP tools refuse what the store would. A refusal
is InvalidInput from the API and one ``memdesk: error:`` line with exit code 1
from the command line, and the store is left exactly as it was."""

from __future__ import annotations

import contextlib
import io
import json
import re
from datetime import datetime, timedelta, timezone

import pytest
from memdesk import InvalidInput, ManualClock, Memory, Store
from memdesk.app import cli
from memdesk.app.cli import parser as cli_parser  # where each command's function is bound
from memdesk.claims import ClaimInput, edited_claim
from memdesk.maintain import parse_age
from memdesk.pipeline import Turn
from memdesk.recall import Recaller
from memdesk.timeutil import parse_time_us

from .helpers import written as _written
from .recall_fixtures import HashEmbedder

CST = timezone(timedelta(hours=8))
FROM = "2026-03-10T10:00:00+08:00"
UNTIL = "2026-03-20T10:00:00+08:00"
TOLD = "2026-03-18T09:30:00+08:00"


def _line(subject: str, obj: str, turn: int, *, predicate: str = "likes", confidence: float = 0.5,
          valid_from: str = FROM, valid_to: str | None = None, told: str = TOLD,
          session: str = "checks") -> str:
    data = {"subject": subject, "predicate": predicate, "object": obj, "confidence": confidence,
            "valid_from": valid_from,
            "source": {"session": session, "turn": turn, "speaker": "user", "kind": "user_explicit",
                       "text": f"{subject} {predicate} {obj}", "time": told}}
    if valid_to is not None:
        data["valid_to"] = valid_to
    return json.dumps(data, ensure_ascii=False)


@pytest.fixture
def seeded(store, tmp_path):
    """A store with two pending candidates (the second valid until UNTIL), one
    open conflict (lives_in Old, then New without a change signal) and one fact."""
    lines = [_line("user:ana", "tea", 1), _line("user:ana", "jazz", 2, valid_to=UNTIL),
             _line("user:ana", "Old", 3, predicate="lives_in", confidence=0.95,
                   valid_from="2026-01-01T00:00:00+08:00", told="2026-01-05T10:00:00+08:00"),
             _line("user:ana", "New", 4, predicate="lives_in", confidence=0.95,
                   valid_from="2026-02-01T00:00:00+08:00", told="2026-02-05T10:00:00+08:00")]
    path = tmp_path / "seed.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    summary = store.facts.import_file(path)
    assert summary.queued == 2 and summary.conflicts == 1
    return store


def _pending(store: Store, obj: str) -> int:
    return next(c.id for c in store.review.list() if c.object == obj)


@contextlib.contextmanager
def refused(store: Store, match: str):
    """The block raises InvalidInput matching ``match`` in one line, and writes nothing."""
    before = _written(store)
    with pytest.raises(InvalidInput, match=match) as err:
        yield err
    assert "\n" not in str(err.value)
    assert _written(store) == before


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = cli.main(argv)
    return rc, out.getvalue(), err.getvalue()


def one_error_line(err: str, *parts: str) -> None:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("memdesk: error: "), err
    for part in parts:
        assert part in lines[0], err


# ------------------------------------------------------------ approve edits
def test_cli_approve_with_valid_to_before_valid_from_is_one_error_line_and_writes_nothing(
        seeded, store_url):
    cid = _pending(seeded, "tea")
    before = _written(seeded)
    rc, _, err = run(["--db", store_url, "review", "approve", str(cid), "--by", "me",
                      "--edit", "valid_to=2026-03-01T00:00:00+08:00"])
    assert rc == 1
    one_error_line(err, f"candidate {cid}: valid_to 2026-03-01T00:00:00+08:00 is before "
                        f"valid_from {FROM}: an interval must end after it starts")
    assert _written(seeded) == before and seeded.review.get(cid).state == "pending"


@pytest.mark.parametrize("edits,match", [
    ({"valid_from": "2026-04-01T00:00:00+08:00"}, "valid_to 2026-03-20T10:00:00\\+08:00 is before "
                                                  "valid_from 2026-04-01"),
    ({"valid_from": "2026-03-20T02:00:00+00:00"}, "is the same instant as valid_from"),
    ({"valid_to": "2026-03-10T02:00:00+00:00"}, "is the same instant as valid_from"),
    ({"valid_from": "2026-03-12T00:00:00", "valid_to": None}, "valid_from has no UTC offset"),
    ({"valid_to": "tomorrow"}, "not an ISO 8601 time"),
    ({"scope": "bogus"}, "scope must be global, project or session"),
    ({"scope": ""}, "scope cannot be empty"),
    ({"polarity": None}, "polarity cannot be empty"),
    ({"polarity": "maybe"}, "polarity must be one of positive, negative, neutral"),
    ({"object": "a\x00b"}, "object contains a NUL character"),
    ({"object": "\udcff"}, "object contains a lone surrogate"),
    ({"object": 5}, "object must be a string"),
    ({"value": float("nan")}, "value must be plain JSON"),
    ({"value": {1: "a"}}, "object keys are text"),
    ({"change": "moved"}, "change must be evolution, correction, retraction, ending or null"),
    ({"confidence": 0.5}, "cannot edit confidence; editable: predicate, object, value"),
    ({"subject": "user:eve", "object": "x"}, "cannot edit subject"),
])
def test_approve_checks_the_edited_candidate_as_a_whole(seeded, edits, match):
    cid = _pending(seeded, "jazz")  # valid FROM → UNTIL
    with refused(seeded, f"candidate {cid}: .*{match}"):
        seeded.review.approve(cid, by="me", edits=edits)
    assert seeded.review.get(cid).state == "pending"


def test_approve_edits_may_clear_valid_to_and_change_and_move_both_ends(seeded):
    cid = _pending(seeded, "jazz")
    result = seeded.review.approve(cid, by="me", edits={"valid_to": None, "change": None,
                                                 "valid_from": "2026-03-01T00:00:00Z"})
    fact = seeded.facts.get(result.fact_id)
    assert fact.valid_from == parse_time_us("2026-03-01T00:00:00+00:00") and fact.valid_to is None
    assert seeded.review.get(cid).edits == {"valid_to": None, "change": None,
                                          "valid_from": "2026-03-01T00:00:00Z"}


def test_edited_claim_reuses_the_import_line_rules():
    line = json.loads(_line("user:ana", "tea", 1, valid_to=UNTIL))
    assert edited_claim(line, {"object": " green tea "}).object == "green tea"
    with pytest.raises(InvalidInput, match="edits must be a non-empty mapping"):
        edited_claim(line, ["object"])
    with pytest.raises(InvalidInput, match="is before valid_from"):
        ClaimInput.from_dict({**line, "valid_to": "2026-03-01T00:00:00+08:00"})  # the same rule


def test_claims_from_code_refuse_what_no_database_stores(seeded):
    line = json.loads(_line("user:ana", "tea", 9))
    for field, value, match in [("object", "tea \ud800", "object contains a lone surrogate"),
                                ("value", float("inf"), "not a JSON number"),
                                ("value", 10**5000, "JSON readers cannot keep it exact"),
                                ("value", {"k": {2: 1}}, "object keys are text")]:
        with pytest.raises(InvalidInput, match=match):
            ClaimInput.from_dict({**line, field: value})


# ------------------------------------------- reject, retract, undo, resolve
def test_reject_needs_a_storable_reason_a_reviewer_and_an_id(seeded):
    cid = _pending(seeded, "tea")
    for kwargs, match in [({"reason": " "}, "reason .*must not be empty"),
                          ({"reason": "no\x00"}, "reason .*NUL"),
                          ({"reason": None}, "reason .*is required"),
                          ({"reason": "no", "by": "  "}, "by .*must not be empty"),
                          ({"reason": "no", "by": "x" * 201}, "longer than 200"),
                          ({"reason": "no", "by": "\udcff"}, "lone surrogate")]:
        with refused(seeded, match):
            seeded.review.reject(cid, **{"by": "me", **kwargs})
    for bad in (0, -1, 2**63, "1", True, None):
        with refused(seeded, "candidate id must be a whole number from 1 to"):
            seeded.review.reject(bad, by="me", reason="no")
    assert seeded.review.reject(cid, by="me", reason="  a joke  ").decision_reason == "a joke"


def test_approve_checks_its_id_note_and_reviewer(seeded):
    cid = _pending(seeded, "tea")
    with refused(seeded, "candidate id"):
        seeded.review.approve(2**64, by="me")
    with refused(seeded, "note contains a NUL"):
        seeded.review.approve(cid, by="me", note="\x00")
    with refused(seeded, "by .*must not be empty"):
        seeded.review.approve(cid, by="")
    assert seeded.review.get(cid).state == "pending"


def test_retract_checks_its_id_reviewer_and_reason(seeded):
    fact = seeded.facts.current("user:ana", "lives_in")[0]
    for kwargs, match in [({"by": ""}, "by .*must not be empty"),
                          ({"reason": ""}, "reason .*must not be empty"),
                          ({"reason": "x\x00"}, "NUL"),
                          ({"fact_id": 2**63}, "fact id must be a whole number")]:
        args = {"fact_id": fact.id, "by": "me", "reason": "never true", **kwargs}
        with refused(seeded, match):
            seeded.facts.retract(args.pop("fact_id"), **args)
    assert seeded.facts.retract(fact.id, by="me", reason="never true").retired_at is not None


def test_undo_checks_its_id_reviewer_and_reason(seeded):
    cid = _pending(seeded, "tea")
    seeded.review.approve(cid, by="me")
    kid = seeded.conflicts.list("open")[0].id
    seeded.conflicts.resolve(kid, "existing", by="me")
    for call, match in [(lambda: seeded.review.undo(cid, by=" "), "by .*must not be empty"),
                        (lambda: seeded.review.undo(cid, by="me", reason=7), "reason must be a string"),
                        (lambda: seeded.review.undo(-3, by="me"), "candidate id"),
                        (lambda: seeded.conflicts.undo(kid, by="me", reason="\x00"), "NUL"),
                        (lambda: seeded.conflicts.undo(2**70, by="me"), "conflict id")]:
        with refused(seeded, match):
            call()
    assert seeded.conflicts.undo(kid, by="me").undone == "existing"


@pytest.mark.parametrize("keep,scope,match", [
    ("both", None, "keep=both needs a scope"),
    ("both", "bogus", "scope must be global, project or session"),
    ("both", "session:\x00", "scope contains a NUL"),
    ("both", "global:" + "x" * 200, "scope is longer than 200"),
    ("both", "global", "other than 'global'"),  # the conflict's own scope (checked by the gates)
    ("existing", "session:trip", "only goes with keep=both"),
    ("changed", "", "only goes with keep=both"),
    ("kept", None, "keep must be one of existing, incoming, changed, both, neither"),
    (["both"], "session:x", "keep must be one of"),
])
def test_resolve_checks_keep_and_scope_before_writing(seeded, keep, scope, match):
    kid = seeded.conflicts.list("open")[0].id
    with refused(seeded, match):
        seeded.conflicts.resolve(kid, keep, by="me", scope=scope)
    assert seeded.conflicts.get(kid).state == "open"


def test_resolve_checks_its_id_reason_and_reviewer(seeded):
    kid = seeded.conflicts.list("open")[0].id
    for args, kwargs, match in [((0, "existing"), {}, "conflict id"),
                                (("1", "existing"), {}, "conflict id"),
                                ((kid, "existing"), {"reason": "a\udcffb"}, "lone surrogate"),
                                ((kid, "existing"), {"reason": ["why"]}, "reason must be a string"),
                                ((kid, "existing"), {"by": None}, "by .*is required")]:
        with refused(seeded, match):
            seeded.conflicts.resolve(*args, **{"by": "me", **kwargs})
    done = seeded.conflicts.resolve(kid, "both", by="me", scope="session:trip", reason="  ")
    assert done.state == "resolved" and done.reason is None


# --------------------------------------------------- erase, maintain, lookups
def test_erase_checks_the_subject_and_the_actor(seeded):
    for subject, by, match in [("ana", "me", "erase needs a person's subject like user:NAME"),
                               ("user:\x00", "me", "subject contains a NUL"),
                               ("user:" + "x" * 200, "me", "subject is longer than 200"),
                               ("user:ana", "", "by .*must not be empty"),
                               (None, "me", "subject is required")]:
        with refused(seeded, match):
            seeded.admin.erase(subject, by=by)
    assert seeded.facts.history("user:ana")


def test_maintain_refuses_ages_beyond_the_calendar_and_bad_subjects_actors_similarity(seeded):
    assert parse_age("3652059d") == 3652059 * 86_400 * 10**6
    for age in ("3652060d", "99999999999999999999d", timedelta.max, 2**80):
        with pytest.raises(InvalidInput, match="an age can be at most 3652059d"):
            parse_age(age)
    for kwargs, match in [({"subject": "ana"}, "subject must look like"),
                          ({"subject": "user:\x00"}, "NUL"),
                          ({"by": "\udcff"}, "lone surrogate"),
                          ({"similarity": "high"}, "similarity must be a number"),
                          ({"similarity": 0}, "similarity must be a number above 0")]:
        with refused(seeded, match):
            seeded.admin.maintain(**kwargs)


def test_lookups_check_subjects_predicates_ids_and_times(seeded):
    calls = [(lambda: seeded.facts.as_of("ana"), "subject must look like"),
             (lambda: seeded.facts.as_of("user:\x00"), "subject contains a NUL"),
             (lambda: seeded.facts.as_of("user:ana", "Lives In"), "predicate must be a snake_case id"),
             (lambda: seeded.facts.as_of("user:ana", valid_at=2**70), "valid_at must be microseconds"),
             (lambda: seeded.facts.as_of("user:ana", known_at=True), "known_at must be microseconds"),
             (lambda: seeded.facts.as_of("user:ana", valid_at=datetime(2026, 1, 1)), "without offset"),
             (lambda: seeded.facts.current("user:ana", "p\x00"), "predicate contains a NUL"),
             (lambda: seeded.facts.history(5), "subject must be a string"),
             (lambda: seeded.audit.of("user:ana", "lives_in", "\x00"), "object contains a NUL"),
             (lambda: seeded.audit.of("user:\udcff", "lives_in"), "lone surrogate"),
             (lambda: seeded.facts.get(2**63), "fact id"),
             (lambda: seeded.review.get(0), "candidate id"),
             (lambda: seeded.conflicts.get(-1), "conflict id"),
             (lambda: seeded.conflicts.preview(2**64), "conflict id"),
             (lambda: seeded.review.list(limit=-1), "limit must be a whole number from 0"),
             (lambda: seeded.review.list(offset=2**64), "offset must be a whole number from 0"),
             (lambda: seeded.review.list(subject="ana"), "subject must look like"),
             (lambda: seeded.review.count(subject="user:\x00"), "NUL"),
             (lambda: seeded.conflicts.list(limit=True), "limit must be a whole number")]
    for call, match in calls:
        with refused(seeded, match):
            call()


def test_turns_from_code_follow_the_rules_of_a_conversation_line(seeded):
    when = datetime(2026, 5, 1, 10, tzinfo=CST)
    for turn, match in [(Turn("s", 1, "user", when, "hi \ud800", "ana"), "text contains a lone surrogate"),
                        (Turn("s\x00", 1, "user", when, "hi", "ana"), "session contains a NUL"),
                        (Turn("s", 2**40, "user", when, "hi", "ana"), "turn must be a whole number"),
                        (Turn("s", 1, "robot", when, "hi", "ana"), "speaker must be one of"),
                        (Turn("s", 1, "user", datetime(2026, 5, 1), "hi", "ana"), "time must be a timezone-aware"),
                        (Turn("s", 1, "user", when, "hi", "a b"), "user must be a name"),
                        ("hi", "expected a Turn")]:
        with refused(seeded, f"turn 1: {match}"):
            seeded.facts.ingest_turns([turn])


# ---------------------------------------------------- Memory, recall and MCP
@pytest.fixture
def memory(store_url, tmp_path):
    store = Store.open(store_url, clock=ManualClock(datetime(2026, 6, 1, 9, 0, tzinfo=CST)))
    m = Memory(store, Recaller(store, embedder=HashEmbedder(), index_dir=tmp_path / "idx"))
    m.remember([{"role": "user", "content": "I live in Leeds",
                 "time": datetime(2026, 5, 1, 10, tzinfo=CST)}], user="bob")
    yield m
    m.close()


def test_memory_api_checks_names_turns_and_text_before_any_query(memory):
    hi = [{"role": "user", "content": "hi"}]
    calls = [(lambda: memory.remember(hi, user="bob", session="s\x00"), "session contains a NUL"),
             (lambda: memory.remember(hi, user="b\x00"), "user contains a NUL"),
             (lambda: memory.remember(hi, user=5), "user must be a string"),
             (lambda: memory.remember([{"role": "user", "content": "x \ud800"}], user="bob"),
              "text contains a lone surrogate"),
             (lambda: memory.propose("likes", "x", session="bob-chat", turn=2**40, user="bob"),
              "turn must be a whole number from 1 to"),
             (lambda: memory.propose("likes", "x", session="b\x00", turn=1, user="bob"),
              "session contains a NUL"),
             (lambda: memory.propose("likes", "x\ud800", session="bob-chat", turn=1, user="bob"),
              "object contains a lone surrogate"),
             (lambda: memory.propose("likes", "x", session="bob-chat", turn=1, user="bob",
                                     scope="bogus"), "scope must be global"),
             (lambda: memory.facts(user="b\x00"), "user contains a NUL"),
             (lambda: memory.facts(subject="bob"), "subject must look like"),
             (lambda: memory.facts(user="bob", predicate="p\x00"), "predicate contains a NUL"),
             (lambda: memory.audit("user:bob", 5), "predicate must be a string")]
    for call, match in calls:
        with refused(memory.store, match):
            call()


def test_recall_checks_subjects_names_scope_filters_times_and_query(memory):
    search = memory.recaller.search
    calls = [(lambda: search("x", subject="bob"), "subject must look like"),
             (lambda: search("x", subject="user:\x00"), "subject contains a NUL"),
             (lambda: search("x", subject="user:bob", project="p\x00"), "project contains a NUL"),
             (lambda: search("x", subject="user:bob", session="s" * 201), "longer than 200"),
             (lambda: search("x", scope="bogus"), "scope filter must be global"),
             (lambda: search("x", scope=[1]), "scope must be a string or a list of strings"),
             (lambda: search("x", at=2**70), "at must be microseconds"),
             (lambda: search("x", since=True), "since must be microseconds"),
             (lambda: search("x \ud800"), "the recall query contains a lone surrogate"),
             (lambda: memory.recall("x", user="b\x00"), "user contains a NUL")]
    for call, match in calls:
        with refused(memory.store, match):
            call()
    assert memory.recall("Leeds", user="bob")


async def test_mcp_tools_refuse_what_the_memory_api_refuses(memory):
    pytest.importorskip("mcp")
    from mcp.server.mcpserver.exceptions import ToolError
    from memdesk.app.mcp_server import build_server

    server = build_server(memory)
    before = _written(memory.store)
    for name, args, match in [
            ("propose_fact", {"predicate": "likes", "object": "x", "session": "s\x00", "turn": 1,
                              "user": "bob"}, "session contains a NUL"),
            ("propose_fact", {"predicate": "likes", "object": "x", "session": "bob-chat",
                              "turn": 2**40, "user": "bob"}, "turn must be a whole number"),
            ("remember", {"messages": [{"role": "user", "content": "hi"}], "user": "bob",
                          "session": "s\x00"}, "session contains a NUL"),
            ("facts", {"user": "bob", "predicate": "p\x00"}, "predicate contains a NUL"),
            ("audit", {"subject": "user:bob", "predicate": "Lives In", "user": "bob"},
             "snake_case")]:
        with pytest.raises(ToolError, match=match):
            await server.call_tool(name, args)
    assert _written(memory.store) == before


# ------------------------------------------------------------ command line
def test_cli_refuses_bad_ids_paging_and_flags_in_one_line(seeded, store_url):
    before = _written(seeded)
    for argv, part in [(["review", "approve", "99999999999999999999", "--by", "me"], "candidate id"),
                       (["review", "list", "--limit", "-1"], "limit must be a whole number"),
                       (["review", "list", "--offset", "-1"], "offset must be a whole number"),
                       (["conflicts", "show", "0"], "conflict id"),
                       (["conflicts", "undo", "99999999999999999999", "--by", "me"], "conflict id"),
                       (["retract", "99999999999999999999", "--reason", "x"], "fact id"),
                       (["review", "reject", "1", "--by", "me", "--reason", "\udcff"], "surrogate"),
                       (["conflicts", "resolve", "1", "--keep", "existing", "--scope", "project"],
                        "only goes with keep=both"),
                       (["conflicts", "resolve", "1", "--keep", "both", "--scope", "bogus"],
                        "scope must be global"),
                       (["facts", "--subject", "ana"], "subject must look like"),
                       (["facts", "--subject", "user:ana", "--predicate", "Lives In"], "snake_case"),
                       (["audit", "--subject", "user:\x00", "--predicate", "lives_in"], "NUL"),
                       (["erase", "--subject", "user:\x00"], "NUL"),
                       (["maintain", "--older-than", "99999999999999999999d"], "at most 3652059d"),
                       (["maintain", "--subject", "ana", "--dry-run"], "subject must look like"),
                       (["recall", "x", "--scope", "bogus"], "scope filter must be global"),
                       (["recall", "x", "--subject", "ana"], "subject must look like")]:
        rc, _, err = run(["--db", store_url, *argv])
        assert rc == 1, (argv, err)
        one_error_line(err, part)
    assert _written(seeded) == before


def test_cli_edit_value_is_read_as_an_import_value(seeded, store_url):
    cid = _pending(seeded, "tea")
    before = _written(seeded)
    for edits, part in [(["value=NaN"], "NaN is not a JSON number"),
                        (["value=1e999"], "inf is not a JSON number"),
                        (["value=" + "[" * 5000 + "]" * 5000], "nested too deeply"),
                        (["value=" + "9" * 5000], "too long to read"),
                        (['value={"a": "\\u0000"}'], "NUL"),
                        (["value={'a': 1}"], "--edit value= must be JSON"),
                        (["object=a", "object=b"], "--edit object= is given twice"),
                        (["object"], "--edit takes FIELD=VALUE")]:
        rc, _, err = run(["--db", store_url, "review", "approve", str(cid), "--by", "me",
                          *[f"--edit={e}" for e in edits]])
        assert rc == 1, (edits, err)
        one_error_line(err, part)
    assert _written(seeded) == before
    rc, _, err = run(["--db", store_url, "review", "approve", str(cid), "--by", "me",
                      "--edit", 'value={"kind": "green"}', "--edit", "valid_to="])
    assert (rc, err) == (0, "")
    assert seeded.review.get(cid).state == "approved"


def test_cli_facts_batch_names_the_line_of_a_bad_subject_or_predicate(seeded, store_url, tmp_path):
    for line, part in [({"subject": "ana"}, "subject must look like"),
                       ({"subject": "user:ana", "predicate": 5}, "predicate must be a string"),
                       ({"subject": "user:ana", "predicate": "Lives In"}, "predicate must be a snake_case id"),
                       ({"subject": "user:ana", "all": "yes"}, "all must be true or false")]:
        path = tmp_path / "q.jsonl"
        path.write_text(json.dumps({"subject": "user:ana"}) + "\n" + json.dumps(line) + "\n")
        rc, out, err = run(["--db", store_url, "facts", "--batch", str(path)])
        assert rc == 1 and out == ""
        one_error_line(err, f"q.jsonl:2: {part}")


def test_cli_says_os_errors_and_unexpected_exceptions_in_one_line(seeded, store_url, tmp_path,
                                                                  monkeypatch):
    def fails(exc: BaseException):
        def command(store, args, settings):
            raise exc
        return command

    monkeypatch.delenv("MEMDESK_DEBUG", raising=False)
    from sqlalchemy.exc import OperationalError

    for exc, part in [(PermissionError(13, "Permission denied", "/x/out.jsonl"),
                       "Permission denied: /x/out.jsonl"),
                      (OSError(28, "No space left on device"), "No space left on device"),
                      (RuntimeError("first line\nsecond line"),
                       "unexpected RuntimeError: first line / second line (a bug in memdesk"),
                      (RecursionError("maximum recursion depth exceeded"), "unexpected RecursionError"),
                      (ModuleNotFoundError("No module named 'mcp'", name="mcp"),
                       "memdesk predicates needs the Python package mcp, which is not installed here: "
                       "pip install 'memdesk[mcp]'"),
                      (ModuleNotFoundError("No module named 'zstandard'", name="zstandard"),
                       "this command needs the Python package zstandard, which is not installed"),
                      (OperationalError("SELECT 1", {}, Exception("server closed the connection\n"
                                                                  "unexpectedly")),
                       "the store failed: server closed the connection / unexpectedly")]:
        monkeypatch.setattr(cli_parser, "cmd_predicates", fails(exc))
        rc, _, err = run(["--db", store_url, "predicates"])
        assert rc == 1
        one_error_line(err, part)
    monkeypatch.setenv("MEMDESK_DEBUG", "1")
    monkeypatch.setattr(cli_parser, "cmd_predicates", fails(RuntimeError("shown")))
    with pytest.raises(RuntimeError, match="shown"):
        run(["--db", store_url, "predicates"])


# ------------------------------------------- issue 29, section 6: what got through
def _lines_file(tmp_path, *lines: dict) -> str:
    path = tmp_path / "lines.jsonl"
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n", encoding="utf-8")
    return str(path)


def _claim_with(field: str, value) -> dict:
    data = json.loads(_line("user:ana", "tea", 7))
    target, *path = field.split(".")
    if path:
        data[target][path[0]] = value
    else:
        data[target] = value
    return data


BEYOND = [
    ("source.turn", 0, "source.turn must be a whole number from 1 to 2147483647"),
    ("source.kind", 0, "source.kind must be one of user_explicit, agent_inferred, user_confirmed, "
                       "imported, got 0"),
    ("source.kind", [], "source.kind must be one of"),
    ("source.kind", {}, "source.kind must be one of"),
    ("source.kind", "", "source.kind must be one of"),
    ("source.kind", False, "source.kind must be one of"),
    ("value", 10**40, "value holds the whole number 100000000000… (41 digits), beyond ±9007199254740991"),
    ("value", -(2**53), "beyond ±9007199254740991 (2^53 − 1): JSON readers cannot keep it exact"),
    ("value", {"amount": 10**40, "currency": "CNY"}, "beyond ±9007199254740991"),
    ("value", {"a": {"b": {"c": 1}}}, "value is nested too deeply: at most 2 levels"),
    ("value", [[[]]], "value is nested too deeply"),
    ("value", list(range(65)), "value holds more than 64 items and keys"),
    ("value", {f"k{i}": [i] for i in range(40)}, "value holds more than 64 items and keys"),
]


@pytest.mark.parametrize(("field", "value", "match"), BEYOND)
def test_import_lines_beyond_the_documented_shape_are_refused_by_line(seeded, tmp_path, field, value,
                                                                      match):
    path = _lines_file(tmp_path, json.loads(_line("user:ana", "milk", 8)), _claim_with(field, value))
    with refused(seeded, re.escape(f"{path}:2: ") + ".*" + re.escape(match)) as err:
        seeded.facts.import_file(path)
    assert err.value.line == 2


@pytest.mark.parametrize(("field", "value"), [
    ("value", 2**53 - 1), ("value", -(2**53 - 1)), ("value", 1e300),
    ("value", {"amount": 5000, "currency": "CNY"}), ("value", {"a": [1, 2], "b": {"c": None}}),
    ("value", list(range(64))), ("source.kind", None)])
def test_import_lines_of_the_documented_shape_are_taken(seeded, tmp_path, field, value):
    path = _lines_file(tmp_path, _claim_with(field, value))
    assert seeded.facts.import_file(path).lines == 1
    if field == "source.kind":  # only an absent or null kind defaults
        assert ClaimInput.from_dict(_claim_with(field, value)).source.kind == "imported"


def test_turn_zero_is_refused_at_every_door(seeded, tmp_path):
    line = {"session": "z", "turn": 0, "speaker": "user", "time": TOLD, "text": "hi", "user": "ana"}
    path = _lines_file(tmp_path, {**line, "turn": 1}, line)
    with refused(seeded, re.escape(f"{path}:2: turn must be a whole number from 1 to 2147483647, got 0")):
        seeded.facts.ingest_file(path)
    when = datetime(2026, 5, 1, 10, tzinfo=CST)
    with refused(seeded, "turn 1: turn must be a whole number from 1 to"):
        seeded.facts.ingest_turns([Turn("z", 0, "user", when, "hi", "ana")])
    m = Memory(seeded, Recaller(seeded, embedder=HashEmbedder()))
    with refused(seeded, "message 1: turn must be a whole number from 1 to"):
        m.remember([{"role": "user", "content": "hi", "turn": 0}], user="ana")
    with refused(seeded, "turn must be a whole number from 1 to 2147483647, got 0"):
        m.propose("likes", "tea", session="checks", turn=0, user="ana")


def test_cli_refuses_what_got_through_in_one_line(seeded, store_url, tmp_path):
    before = _written(seeded)
    path = _lines_file(tmp_path, _claim_with("value", 10**40))
    rc, _, err = run(["--db", store_url, "import", path])
    assert rc == 1
    one_error_line(err, f"{path}:1: value holds the whole number", "JSON readers cannot keep it exact")
    path = _lines_file(tmp_path, _claim_with("source.kind", {}))
    rc, _, err = run(["--db", store_url, "import", path])
    assert rc == 1
    one_error_line(err, f"{path}:1: source.kind must be one of")
    cand = _pending(seeded, "tea")
    rc, _, err = run(["--db", store_url, "review", "approve", str(cand), "--by", "lin",
                      "--edit", "value=[[[1]]]"])
    assert rc == 1
    one_error_line(err, "nested too deeply")
    assert _written(seeded) == before
