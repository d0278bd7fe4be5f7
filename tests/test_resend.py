"""Sending part of a conversation again adds nothing (core/memory.py
``Memory.remember``, core/ingest.py ``stored_context``): any subset of the
messages already stored for a session, in any order, with or without their
times or turn numbers, stores no turn, no claim, no fact, no conflict, no
review item and no audit entry; a short reply after a new message is new;
the same words at another time are said again; a message without a time
takes its neighbours' time and never another session's."""

from __future__ import annotations

import itertools
import json
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memdesk import InvalidInput, ManualClock, Memory, Store
from memdesk.recall import Recaller
from memdesk.timeutil import to_us
from sqlalchemy import text

from .pgserver import reset_pg
from .recall_fixtures import HashEmbedder

CST = timezone(timedelta(hours=8))
CET = timezone(timedelta(hours=1))
NOW = datetime(2026, 6, 1, 9, 0, tzinfo=CST)
LATER = datetime(2026, 7, 15, tzinfo=CST)
TABLES = ("turn", "claim", "fact", "memory", "conflict", "predicate_use", "audit_log")

# a conversation whose user turns carry facts (a home, a like, a move, a budget)
# and whose assistant replies repeat ("好的，记住了。" twice, "ok" twice)
CONVERSATION = [
    ("user", "我住在杭州西湖区"),
    ("assistant", "好的，记住了。"),
    ("user", "I really like hiking in the mountains"),
    ("assistant", "ok"),
    ("user", "我上周末搬到张江了"),
    ("assistant", "好的，记住了。"),
    ("user", "这次装修预算两万元"),
    ("assistant", "ok"),
    ("user", "I live in Berlin"),
    ("assistant", "Noted."),
]


def at(day: int, hour: int = 10, month: int = 5) -> datetime:
    return datetime(2026, month, day, hour, tzinfo=CST)


def conversation(timed: bool) -> list[dict]:
    out = []
    for i, (role, content) in enumerate(CONVERSATION):
        message = {"role": role, "content": content}
        if timed:
            message["time"] = at(1 + i // 2, 10 + i % 2)
        out.append(message)
    return out


def open_memory(url: str) -> Memory:
    store = Store.open(url, clock=ManualClock(NOW))
    return Memory(store, Recaller(store, embedder=HashEmbedder()))


def fresh_url(store_url: str, folder: Path) -> str:
    """A URL for another empty store on the backend of ``store_url`` (on
    PostgreSQL the same database, emptied: close the first store before)."""
    if store_url.startswith("postgresql"):
        reset_pg(store_url)
        return store_url
    folder.mkdir(parents=True, exist_ok=True)
    return str(folder / "m.db")


@pytest.fixture
def memory(store_url):
    m = open_memory(store_url)
    yield m
    m.close()


def snapshot(m: Memory, *users: str, project: str = "reno") -> dict:
    """Every row a write could touch, and the read views built on them."""
    out: dict = {}
    with m.store.engine.connect() as conn:
        for table in TABLES:
            rows = conn.execute(text(f"SELECT * FROM {table}")).all()
            out[table] = sorted((tuple(r) for r in rows), key=repr)
    out["review"] = [c.id for c in m.store.review.list()]
    out["conflicts"] = [(c.id, c.state, c.fact_ids, c.claim_id) for c in m.store.conflicts.list("all")]
    for user in users:  # what is believed a month on (an untimed turn is told at the clock)
        out[f"facts:{user}"] = m.facts(user=user, valid_at=LATER, known_at=LATER)
    out["facts:project"] = m.facts(subject=f"project:{project}", valid_at=LATER, known_at=LATER)
    return out


def turn_rows(m: Memory, session: str) -> list[tuple]:
    """The turns of the session the door calls ``session`` (stored as
    ``<user>/<session>``: a session name is its user's own)."""
    with m.store.engine.connect() as conn:
        return [tuple(r) for r in conn.execute(
            text("SELECT turn, speaker, text, time FROM turn WHERE session = :s "
                 "OR session LIKE :own ORDER BY turn"), {"s": session, "own": f"%/{session}"})]


FORMS_TIMED = ("as_sent", "iso_other_offset", "no_time", "numbered", "numbered_no_time")
FORMS_UNTIMED = ("as_sent", "numbered")


@st.composite
def resends(draw):
    """A conversation variant (timed or not) and a few calls, each a subset of
    its messages in some order, each message in some form of the same turn."""
    timed = draw(st.booleans())
    forms = FORMS_TIMED if timed else FORMS_UNTIMED
    calls = []
    for _ in range(draw(st.integers(1, 3))):
        order = draw(st.permutations(range(len(CONVERSATION))))
        size = draw(st.integers(1, len(CONVERSATION)))
        calls.append([(i, draw(st.sampled_from(forms))) for i in order[:size]])
    return timed, calls


def shaped(message: dict, number: int, form: str) -> dict:
    out = dict(message)
    if form == "iso_other_offset":
        out["time"] = message["time"].astimezone(CET).isoformat()
    elif form == "no_time":
        out.pop("time", None)
    elif form == "numbered":
        out["turn"] = number
    elif form == "numbered_no_time":
        out.pop("time", None)
        out["turn"] = number
    return out


EXAMPLE = itertools.count(1)


@settings(max_examples=25, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=resends())
def test_resending_any_part_of_a_conversation_changes_nothing(memory, plan):
    """One store per backend; each example is the conversation of a user of its
    own (nothing here depends on another user's turns). The audit log is in
    the snapshot: no call adds an entry."""
    timed, calls = plan
    n = next(EXAMPLE)
    m, user = memory, f"zhou{n}"
    messages = conversation(timed)
    first = m.remember(messages, user=user, project=f"reno-{user}")
    assert first.turns == tuple(range(1, len(messages) + 1)) and first.asserted >= 3
    before = snapshot(m, user, project=f"reno-{user}")
    assert before[f"facts:{user}"] and before["facts:project"]
    for call in calls:
        got = m.remember([shaped(messages[i], i + 1, form) for i, form in call],
                         user=user, project=f"reno-{user}")
        assert got.turns == () and got.already_stored == len(call)
        assert (got.asserted, got.merged, got.queued, got.conflicts, got.memories) == (0,) * 5
        assert snapshot(m, user, project=f"reno-{user}") == before
    if n % 5 == 0:  # the whole store's chain (it grows with the examples): now and then
        assert m.store.audit.verify().ok


def test_resending_the_first_two_of_four_messages_stores_nothing_and_opens_no_conflict(memory):
    """The issue's example: a client retry of the first two messages."""
    four = [{"role": "user", "content": "I live in Berlin"},
            {"role": "assistant", "content": "Berlin, noted."},
            {"role": "user", "content": "I moved to Munich last week"},
            {"role": "assistant", "content": "Munich it is."}]
    assert memory.remember(four, user="ana").turns == (1, 2, 3, 4)
    before = snapshot(memory, "ana")
    again = memory.remember(four[:2], user="ana")
    assert again.turns == () and again.already_stored == 2 and again.conflicts == 0
    assert snapshot(memory, "ana") == before
    assert memory.store.conflicts.list() == [] and len(turn_rows(memory, "ana-chat")) == 4
    # the tail, the whole conversation, the middle: nothing either
    for part in (four[2:], four, four[1:3], four[::-1]):
        assert memory.remember(part, user="ana").turns == ()
    assert snapshot(memory, "ana") == before


def test_a_short_reply_after_a_new_message_is_a_new_turn(memory):
    m = memory
    m.remember([{"role": "assistant", "content": "要我记下你的预算吗？"},
                {"role": "user", "content": "好的"}], user="li")
    got = m.remember([{"role": "assistant", "content": "要我记下你的预算吗？"},
                      {"role": "user", "content": "好的"},
                      {"role": "assistant", "content": "Shall I remind you on Friday too?"},
                      {"role": "user", "content": "好的"}], user="li")
    assert got.already_stored == 2 and got.turns == (3, 4)
    assert [r[2] for r in turn_rows(m, "li-chat")] == [
        "要我记下你的预算吗？", "好的", "Shall I remind you on Friday too?", "好的"]
    # led by a new message, even a first message's words are a new turn
    got = m.remember([{"role": "assistant", "content": "Anything else?"},
                      {"role": "assistant", "content": "要我记下你的预算吗？"}], user="li")
    assert got.turns == (5, 6) and got.already_stored == 0
    # alone, a reply the session holds is taken as a resend (rule 2 of remember)
    assert m.remember([{"role": "user", "content": "好的"}], user="li").turns == ()


def test_the_same_words_at_another_time_are_said_again(memory):
    m = memory
    m.remember([{"role": "user", "content": "I live in Berlin", "time": at(1)}], user="bob")
    same = m.remember([{"role": "user", "content": "I live in Berlin",
                        "time": at(1).astimezone(CET).isoformat()}], user="bob")
    assert same.turns == () and same.already_stored == 1  # the same instant, other offset
    later = m.remember([{"role": "user", "content": "I live in Berlin", "time": at(3)}], user="bob")
    assert later.turns == (2,) and later.already_stored == 0
    assert [r[3] for r in turn_rows(m, "bob-chat")] == [to_us(at(1)), to_us(at(3))]


def test_numbered_messages_are_stored_once_and_a_contradiction_is_refused(memory):
    m = memory
    m.remember([{"role": "user", "content": "I have a cat", "time": at(1)},
                {"role": "assistant", "content": "Nice!", "time": at(1, 11)}], user="eve")
    got = m.remember([{"role": "assistant", "content": "Nice!", "turn": 2},
                      {"role": "user", "content": "I have a cat", "turn": 1, "time": at(1)}],
                     user="eve")
    assert got.turns == () and got.already_stored == 2
    for bad in ({"role": "user", "content": "I have a dog", "turn": 1},
                {"role": "user", "content": "I have a cat", "turn": 1, "time": at(2)},
                {"role": "assistant", "content": "I have a cat", "turn": 1}):
        with pytest.raises(InvalidInput, match="message 1: turn 1 .* already stored"):
            m.remember([bad], user="eve")
    # an unnumbered message never takes a number another message of the call gives
    got = m.remember([{"role": "user", "content": "I also have a parrot", "time": at(2)},
                      {"role": "user", "content": "and a goldfish", "time": at(2, 11), "turn": 3}],
                     user="eve")
    assert got.turns == (4, 3)
    assert len(turn_rows(m, "eve-chat")) == 4


def test_an_untimed_message_takes_the_time_of_its_neighbours(memory):
    m = memory
    june = [datetime(2026, 6, d, 10, tzinfo=CST) for d in (1, 2, 3, 4, 5, 6)]
    us = [to_us(t) for t in june]
    m.remember([{"role": "user", "content": "I'm flying to Lisbon", "time": june[0]},
                {"role": "assistant", "content": "Have a good trip!"},
                {"role": "user", "content": "I'm back home", "time": june[2]}], user="tom")
    assert [r[3] for r in turn_rows(m, "tom-chat")] == [us[0], us[0] + 1, us[2]]
    # none before it in the call: after the session's latest turn
    m.remember([{"role": "assistant", "content": "Welcome back."},
                {"role": "user", "content": "Thanks", "time": june[5]}], user="tom")
    assert [r[3] for r in turn_rows(m, "tom-chat")][3:] == [us[2] + 1, us[5]]
    # a timed message before the session's latest turn: the untimed one goes after the latest
    m.remember([{"role": "user", "content": "Oh, I forgot: I went to Porto", "time": june[3]},
                {"role": "assistant", "content": "Porto is lovely."},
                {"role": "assistant", "content": "Did you try the tarts?"}], user="tom")
    assert [r[3] for r in turn_rows(m, "tom-chat")][5:] == [us[3], us[5] + 1, us[5] + 2]
    # a new session: before the first timed message, one microsecond a step
    m.remember([{"role": "assistant", "content": "Hello!"},
                {"role": "assistant", "content": "How can I help?"},
                {"role": "user", "content": "Plan my week", "time": june[4]}],
               user="tom", session="tom-week")
    assert [r[3] for r in turn_rows(m, "tom-week")] == [us[4] - 2, us[4] - 1, us[4]]
    # no time anywhere in the call: the clock, never before the session's latest turn
    m.remember([{"role": "user", "content": "And next week?"},
                {"role": "assistant", "content": "Let's see."}], user="tom", session="tom-week")
    assert [r[3] for r in turn_rows(m, "tom-week")][3:] == [us[4] + 1, us[4] + 2]
    m.remember([{"role": "user", "content": "Remind me to call the landlord"}], user="tom",
               session="tom-later")
    assert [r[3] for r in turn_rows(m, "tom-later")] == [m.store.now()]


def test_an_untimed_message_never_moves_another_sessions_history(memory):
    m = memory
    late = datetime(2026, 7, 1, 10, tzinfo=CST)  # after the clock
    m.remember([{"role": "user", "content": "I live in Leeds", "time": late},
                {"role": "assistant", "content": "Leeds, noted.", "time": late}], user="bob")
    m.remember([{"role": "user", "content": "我住在杭州西湖区", "time": late}],
               user="zhou", session="zhou-old")
    before = snapshot(m, "bob")
    bob, old = turn_rows(m, "bob-chat"), turn_rows(m, "zhou-old")
    m.remember([{"role": "user", "content": "I live in Leeds"},
                {"role": "user", "content": "这次装修预算两万元"}], user="zhou")
    m.remember([{"role": "assistant", "content": "Noted."},
                {"role": "user", "content": "I like tea", "time": at(2)},
                {"role": "assistant", "content": "Tea it is."}], user="zhou")
    zhou = turn_rows(m, "zhou-chat")
    now = m.store.now()
    assert [r[3] for r in zhou] == [now, now + 1, now + 2, to_us(at(2)), now + 3]
    assert turn_rows(m, "bob-chat") == bob and turn_rows(m, "zhou-old") == old
    after = snapshot(m, "bob")
    assert after["facts:bob"] == before["facts:bob"]
    for table in ("turn", "fact", "claim"):
        assert {r for r in after[table] if r in before[table]} == set(before[table])


# ---------------------------------------------------------------- ingest
def _line(session: str, user: str, turn: int, speaker: str, time: str, words: str) -> dict:
    line = {"session": session, "turn": turn, "speaker": speaker, "time": time, "text": words,
            "user": user}
    return {**line, "project": "reno"} if user == "mei" else line


LINES = [
    _line("tom-travel", "tom", 1, "user", "2026-01-10T11:00:00+01:00",
          "Hi! I'm Thomas, but call me Tom. I live in Friedrichshain."),
    _line("tom-travel", "tom", 2, "assistant", "2026-01-10T11:00:00+01:00",
          "Nice to meet you, Tom. How can I help?"),
    _line("tom-travel", "tom", 3, "user", "2026-01-10T11:02:00+01:00",
          "I want to plan a long weekend in Lisbon sometime in March."),
    _line("tom-travel", "tom", 4, "assistant", "2026-01-10T11:03:00+01:00",
          "Great choice. Got it: you live in Kreuzberg, so BER is your nearest airport. "
          "Any budget in mind?"),
    _line("tom-travel", "tom", 5, "user", "2026-01-10T11:04:00+01:00",
          "No, I said Friedrichshain. Budget is 4k euros, flights and hotel included."),
    _line("tom-travel", "tom", 6, "assistant", "2026-01-10T11:05:00+01:00",
          "Sorry about that, Friedrichshain it is. 4,000 euros is plenty for a long weekend."),
    _line("tom-travel", "tom", 7, "user", "2026-01-10T11:06:00+01:00",
          "Sorry, I meant 3k, not 4k. I keep mixing it up with the ski trip."),
    _line("tom-travel", "tom", 8, "assistant", "2026-01-10T11:07:00+01:00",
          "No problem: the Lisbon budget is 3,000 euros."),
    _line("liwei-life", "liwei", 1, "user", "2026-04-01T08:40:00+08:00", "你好，以后叫我小李就行。"),
    _line("liwei-life", "liwei", 2, "assistant", "2026-04-01T08:40:00+08:00",
          "好的小李，很高兴认识你！有什么可以帮你的？"),
    _line("liwei-life", "liwei", 3, "user", "2026-04-01T08:42:00+08:00",
          "我住在浦东花木，想找附近能吃早饭的地方。"),
    _line("liwei-life", "liwei", 4, "assistant", "2026-04-01T08:43:00+08:00",
          "花木附近的早餐店我找到几家：一家生煎、一家粢饭团。"),
    _line("liwei-life", "liwei", 5, "user", "2026-04-01T08:45:00+08:00",
          "不对，我说错了，是北蔡，不是花木。"),
    _line("liwei-life", "liwei", 6, "assistant", "2026-04-01T08:46:00+08:00",
          "好的，已改为北蔡。北蔡附近有一家老字号的粢饭团。"),
    # three "yes" answers: each says what the question just before it (by number) asked
    _line("mei-reno", "mei", 1, "user", "2026-03-24T21:00:00+08:00", "我们准备翻新厨房。"),
    _line("mei-reno", "mei", 2, "assistant", "2026-03-24T21:01:00+08:00",
          "厨房朝北的话浅色更显亮，墙面就按浅灰色来？"),
    _line("mei-reno", "mei", 3, "user", "2026-03-24T21:02:00+08:00", "对，是的。"),
    _line("mei-reno", "mei", 4, "assistant", "2026-03-24T21:03:00+08:00", "地板就用橡木的？"),
    _line("mei-reno", "mei", 5, "user", "2026-03-24T21:04:00+08:00", "对，是的。"),
    _line("mei-reno", "mei", 6, "assistant", "2026-03-24T21:05:00+08:00", "预算就定两万元？"),
    _line("mei-reno", "mei", 7, "user", "2026-03-24T21:06:00+08:00", "Yes, that's right."),
]
QUIET = ("asserted", "evolutions", "corrections", "backfills", "merged", "queued", "conflicts",
         "fact_rows", "memories", "turns_added")


def _write(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines),
                    encoding="utf-8")
    return path


def _parts() -> list[list[dict]]:
    """Subsets of the file's lines in many orders: the whole file reversed, each
    context-dependent line alone and before the lines it answers, and seeded
    random subsets and shuffles."""
    rng = random.Random(20260601)
    parts = [LINES[::-1], [LINES[6]], [LINES[12]], [LINES[18]], [LINES[6], LINES[4]],
             [LINES[12], LINES[10], LINES[4]], LINES[4:7] + LINES[10:13],
             [LINES[18], LINES[16]], [LINES[20], LINES[16], LINES[18]], LINES[20:13:-2]]
    for size in itertools.islice(itertools.cycle(range(1, len(LINES) + 1)), 12):
        parts.append(rng.sample(LINES, size))
    return parts


def test_ingesting_a_conversations_lines_again_in_any_order_adds_nothing(store_url, tmp_path):
    with open_memory(store_url) as m:
        first = m.store.facts.ingest_file(_write(tmp_path / "all.jsonl", LINES))
        assert first.turns_added == len(LINES) and first.corrections >= 1
        before = snapshot(m, "tom", "liwei", "mei")
        assert [f.object for f in m.facts(user="liwei", predicate="lives_in")] == ["北蔡"]
        assert len(before["facts:project"]) >= 2  # mei's answers: decisions and a budget
        for n, part in enumerate(_parts()):
            summary = m.store.facts.ingest_file(_write(tmp_path / f"part{n}.jsonl", part))
            assert summary.turns == len(part)
            assert {k: getattr(summary, k) for k in QUIET} == dict.fromkeys(QUIET, 0), (n, summary)
            assert snapshot(m, "tom", "liwei", "mei") == before, n
        assert m.store.audit.verify().ok


def _extracted(m: Memory) -> list[tuple]:
    """What the extractor made of each turn: (session, turn, claim key, value)."""
    with m.store.engine.connect() as conn:
        return sorted(tuple(r) for r in conn.execute(text(
            "SELECT t.session, t.turn, c.claim_key, c.predicate, c.object, c.valid_from "
            "FROM claim c JOIN turn t ON t.id = c.turn_id")))


def test_ingest_context_is_the_turns_before_by_number_whatever_the_files_hold(store_url,
                                                                             tmp_path):
    """A conversation ingested in two files, each out of order, is read
    (extracted) as one ingest of the whole file reads it: a turn's context is
    the session's turns before it by number, stored or in the file."""
    with open_memory(store_url) as whole:
        whole.store.facts.ingest_file(_write(tmp_path / "all.jsonl", LINES))
        expected = _extracted(whole)
    assert {(r[1], r[3], r[4]) for r in expected if r[0] == "mei-reno" and r[1] > 1} == {
        (3, "decision", "浅灰色"), (5, "decision", "橡木"), (7, "budget_limit", "20000 CNY")}
    with open_memory(fresh_url(store_url, tmp_path / "pieces")) as pieces:
        # each session's first turns, shuffled; then the rest, last first
        first = LINES[:4] + LINES[8:11] + LINES[14:17]
        pieces.store.facts.ingest_file(_write(tmp_path / "a.jsonl",
                                        random.Random(7).sample(first, len(first))))
        pieces.store.facts.ingest_file(_write(tmp_path / "b.jsonl",
                                        (LINES[4:8] + LINES[11:14] + LINES[17:])[::-1]))
        assert _extracted(pieces) == expected
