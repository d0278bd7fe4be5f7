"""``memdesk mcp`` driven the way a client drives it: the server started as a
subprocess and spoken to with the official SDK's own client, over stdio.
The HTTP door, with its tokens, is tested in ``tests/test_mcp_auth.py``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from memdesk import Store
from sqlalchemy import text

mcp = pytest.importorskip("mcp")
from mcp import Client, StdioServerParameters  # noqa: E402

ZH = [{"role": "user", "content": "我叫周敏，住在杭州西湖区", "time": "2026-05-01T10:00:00+08:00"},
      {"role": "assistant", "content": "好的，记住了。", "time": "2026-05-01T10:01:00+08:00"},
      {"role": "user", "content": "这次出游预算两万元", "time": "2026-05-02T10:00:00+08:00"},
      {"role": "user", "content": "我上周末搬到张江了", "time": "2026-05-20T10:00:00+08:00"}]
EN = [{"role": "user", "content": "Hi, I'm Bob. I live in Friedrichshain.",
       "time": "2026-05-01T09:00:00+02:00"},
      {"role": "user", "content": "I'm allergic to shellfish.", "time": "2026-05-01T09:05:00+02:00"}]


def server(db: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable,
                                 args=["-m", "memdesk.app.cli", "--db", str(db), "mcp", *extra])


def data(result) -> dict:
    assert not result.is_error, result.content[0].text
    return result.structured_content


def counts(db: Path) -> tuple[int, int, int]:
    with Store.open(db) as store, store.engine.connect() as conn:
        return tuple(conn.execute(text(q)).scalar() for q in (
            "SELECT count(*) FROM turn", "SELECT count(*) FROM claim WHERE state = 'pending'",
            "SELECT count(*) FROM conflict WHERE state = 'open'"))


async def test_an_agent_remembers_recalls_reads_and_proposes_over_stdio(tmp_path):
    db = tmp_path / "m.db"
    async with Client(server(db)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == {"remember", "recall", "facts", "memories", "audit", "propose_fact",
                              "correct", "forget", "end_fact"}
        for name in ("remember", "propose_fact", "correct", "forget", "end_fact"):
            assert "never approve, reject or resolve" in tools[name].description
        assert tools["recall"].input_schema["properties"]["query"]["type"] == "string"

        got = data(await client.call_tool("remember", {"messages": ZH, "user": "zhou",
                                                       "project": "trip"}))
        assert got["turns"] == [1, 2, 3, 4] and got["asserted"] >= 3
        data(await client.call_tool("remember", {"messages": EN, "user": "bob"}))
        again = data(await client.call_tool("remember", {"messages": ZH, "user": "zhou",
                                                         "project": "trip"}))
        assert again["already_stored"] == 4 and again["turns"] == []
        # any part of it again, in another order, with or without its times: nothing new
        for part in ([ZH[3], ZH[0]], [{"role": m["role"], "content": m["content"]} for m in ZH[:2]]):
            again = data(await client.call_tool("remember", {"messages": part, "user": "zhou",
                                                             "project": "trip"}))
            assert again["turns"] == [] and again["already_stored"] == len(part)

        found = data(await client.call_tool("recall", {"query": "预算多少", "user": "zhou"}))
        assert "project:trip: " in found["prompt"]
        assert found["results"][0]["object"] == "20000 CNY"
        assert all("Friedrichshain" not in r["text"] for r in found["results"])

        now = data(await client.call_tool("facts", {"user": "zhou", "predicate": "lives_in"}))
        assert [f["object"] for f in now["facts"]] == ["张江"]
        start = now["facts"][0]["start"]  # 上周末: the weekend, told as past
        assert (start["kind"], start["earliest"][:10], start["latest"][:10]) == (
            "stated", "2026-05-16", "2026-05-17")
        then = data(await client.call_tool("facts", {
            "user": "zhou", "predicate": "lives_in", "valid_at": "2026-05-10T12:00:00+08:00",
            "known_at": "2026-05-10T12:00:00+08:00"}))
        assert [f["object"] for f in then["facts"]] == ["杭州西湖区"]
        chain = data(await client.call_tool("audit", {"subject": "user:zhou",
                                                      "predicate": "lives_in", "object": "张江"}))
        assert chain["chain"][0]["step"] == "turn"

        proposed = data(await client.call_tool("propose_fact", {
            "predicate": "likes", "object": "熊猫", "user": "zhou", "session": "zhou-chat",
            "turn": 1}))
        assert proposed["state"] == "pending" and any("agent" in r for r in proposed["reasons"])
    turns, pending, _ = counts(db)
    assert turns == 6 and pending == 1  # the proposal waits for a person


@pytest.mark.parametrize("tool, arguments, message", [
    ("remember", {"messages": [{"role": "system", "content": "x"}], "user": "zhou"},
     "role must be user or assistant"),
    ("remember", {"messages": [{"role": "user", "content": "hi"}]}, "name the user"),
    ("recall", {"query": "", "user": "zhou"}, "must not be empty"),
    ("recall", {"query": "x", "user": "zhou", "k": 0}, "k must be"),
    ("facts", {"user": "zhou", "valid_at": "yesterday"}, "valid_at"),
    ("audit", {"subject": "user:zhou", "predicate": "lives_in", "object": "火星"}, "no"),
    ("propose_fact", {"predicate": "likes", "object": "x", "user": "zhou", "session": "nope",
                      "turn": 9}, "no stored turn"),
    ("recall", {"query": "x", "user": "zhou", "over": "everything"}, "over must be"),
])
async def test_bad_arguments_are_mcp_errors_and_write_nothing(tmp_path, tool, arguments, message):
    db = tmp_path / "m.db"
    async with Client(server(db)) as client:
        data(await client.call_tool("remember", {"messages": ZH[:1], "user": "zhou"}))
        before = counts(db)
        result = await client.call_tool(tool, arguments)
        assert result.is_error and message in result.content[0].text, result.content[0].text
        assert counts(db) == before
        # the server still serves
        assert data(await client.call_tool("facts", {"user": "zhou"}))["facts"]


async def test_a_server_for_one_user_never_serves_another(tmp_path):
    db = tmp_path / "m.db"
    async with Client(server(db)) as client:  # an unbound server, to fill the store
        data(await client.call_tool("remember", {"messages": ZH, "user": "zhou", "project": "trip"}))
        data(await client.call_tool("remember", {"messages": EN, "user": "bob"}))
    async with Client(server(db, "--user", "bob")) as client:
        for tool, arguments in [("recall", {"query": "预算", "user": "zhou"}),
                                ("facts", {"user": "zhou"}),
                                ("facts", {"subject": "project:trip"}),
                                ("audit", {"subject": "user:zhou", "predicate": "lives_in"}),
                                ("remember", {"messages": EN, "user": "zhou"})]:
            result = await client.call_tool(tool, arguments)
            assert result.is_error, (tool, arguments)
        mine = data(await client.call_tool("recall", {"query": "预算 where do I live"}))
        assert mine["results"] and all(r["subject"] == "user:bob" for r in mine["results"])


async def test_no_tool_changes_a_decision(tmp_path):
    """Whatever an agent calls, a pending candidate stays pending and an open
    conflict stays open: only people decide."""
    db = tmp_path / "m.db"
    conflicting = [{"role": "user", "content": "I work at Monzo", "time": "2026-05-01T09:00:00+01:00"},
                   {"role": "user", "content": "I work at Revolut", "time": "2026-05-03T09:00:00+01:00"}]
    async with Client(server(db)) as client:
        data(await client.call_tool("remember", {"messages": conflicting, "user": "carol"}))
        data(await client.call_tool("propose_fact", {"predicate": "likes", "object": "tea",
                                                     "user": "carol", "session": "carol-chat",
                                                     "turn": 1}))
        _, pending, open_conflicts = counts(db)
        assert pending >= 1 and open_conflicts == 1
        names = {t.name for t in (await client.list_tools()).tools}
        assert not names & {"approve", "reject", "resolve", "review", "retract", "erase"}
        for tool, arguments in [("remember", {"messages": conflicting, "user": "carol"}),
                                ("propose_fact", {"predicate": "works_at", "object": "Monzo",
                                                  "user": "carol", "session": "carol-chat",
                                                  "turn": 1, "confidence": 1.0}),
                                ("recall", {"query": "where does she work", "user": "carol"})]:
            await client.call_tool(tool, arguments)
        with Store.open(db) as store, store.engine.connect() as conn:
            states = {r[0] for r in conn.execute(text("SELECT state FROM conflict"))}
            decided = conn.execute(text("SELECT count(*) FROM claim WHERE decided_by IS NOT NULL")).scalar()
        assert states == {"open"} and decided == 0


async def test_a_statement_about_someone_else_never_becomes_the_speakers_fact(tmp_path):
    """Issue 29 §4 through the door: what a user says of another person (a
    possessor, a relation word, a name) is that person's, never the speaker's."""
    db = tmp_path / "m.db"
    said = [{"role": "user", "content": text, "time": f"2026-05-0{i}T10:00:00+02:00"}
            for i, text in enumerate(["Lena's rent is 900 pounds a month.",
                                      "My brother's budget for the trip is 2000 dollars.",
                                      "小陈的预算是三千块。"], 1)]
    async with Client(server(db)) as client:
        data(await client.call_tool("remember", {"messages": said, "user": "ivy"}))
        mine = data(await client.call_tool("facts", {"user": "ivy"}))
    assert not [f for f in mine["facts"] if f["subject"] == "user:ivy"], mine
    with Store.open(db) as store, store.engine.connect() as conn:
        held = set(conn.execute(text("SELECT subject, predicate FROM fact")).all())
    assert ("person:ivy/brother", "budget_limit") in held and ("person:ivy/小陈", "budget_limit") in held
    assert not {s for s, _ in held} & {"user:ivy"}


@pytest.mark.parametrize(("arguments", "said"), [
    ({"user": "zhou"}, "recall: missing argument 'query'"),
    ({"query": "x", "user": "zhou", "k": "many"}, "recall: argument 'k': "),
    ({"query": "x", "user": "zhou", "k": 0}, "recall: k must be a whole number"),
    ({"query": "x", "user": "zhou", "user_id": "bob"}, "recall: user 'zhou' and user_id 'bob' differ"),
])
async def test_every_tool_error_is_one_line_naming_the_argument(tmp_path, arguments, said):
    async with Client(server(tmp_path / "m.db")) as client:
        result = await client.call_tool("recall", arguments)
        text_ = result.content[0].text
        assert result.is_error and text_.startswith(said), text_
        assert "\n" not in text_ and "http" not in text_ and len(text_) < 200, text_


async def test_the_server_logs_no_debug_lines_unless_asked(tmp_path):
    from mcp.client.stdio import stdio_client

    db = tmp_path / "m.db"
    for level, debug_expected in (("warning", False), ("debug", True)):
        log = tmp_path / f"{level}.log"
        with log.open("w") as errlog:
            params = server(db, "--log-level", level)
            async with Client(stdio_client(params, errlog=errlog)) as client:
                data(await client.call_tool("remember", {"messages": EN, "user": "bob"}))
                data(await client.call_tool("recall", {"query": "where do I live", "user": "bob",
                                                       "over": "turns"}))
        said = log.read_text()
        assert ("DEBUG" in said) == debug_expected, said
        assert "memdesk: MCP server on stdio" in said  # its own start line, either way


async def test_agents_page_through_memories_and_facts_and_ask_to_correct_or_forget(tmp_path):
    db = tmp_path / "m.db"
    async with Client(server(db)) as client:
        data(await client.call_tool("remember", {"messages": EN, "user_id": "bob"}))
        data(await client.call_tool("remember", {"messages": ZH, "user": "zhou"}))
        facts = data(await client.call_tool("facts", {"user_id": "bob"}))
        assert facts["next_offset"] is None and len(facts["facts"]) >= 2
        first = data(await client.call_tool("facts", {"user": "bob", "limit": 1}))
        assert first["next_offset"] == 1 and first["facts"] == facts["facts"][:1]
        largest = data(await client.call_tool("facts", {"user": "bob", "limit": 1000}))
        assert largest == facts  # the largest page is a page, not an error
        for bad in (0, 1001):
            refused = await client.call_tool("memories", {"user": "bob", "limit": bad})
            assert refused.is_error and refused.content[0].text.startswith(
                "memories: limit must be a whole number from 1 to 1000"), refused.content[0].text
        listed = data(await client.call_tool("memories", {"user_id": "bob", "limit": 1}))
        assert len(listed["memories"]) == 1 and listed["memories"][0]["subject"] == "user:bob"
        rest = data(await client.call_tool("memories", {"user": "bob", "offset": 1}))
        assert all(m["subject"] == "user:bob" for m in rest["memories"])
        assert listed["memories"][0]["id"] not in {m["id"] for m in rest["memories"]}

        by = {f["predicate"]: f for f in facts["facts"]}
        before = counts(db)
        gone = data(await client.call_tool("forget", {"fact_id": by["allergy"]["id"],
                                                      "user": "bob", "session": "bob-chat",
                                                      "turn": 2}))
        assert gone["state"] == "pending" and gone["change"] == "retraction"
        fixed = data(await client.call_tool("correct", {"fact_id": by["lives_in"]["id"],
                                                        "object": "Kreuzberg", "user": "bob",
                                                        "session": "bob-chat", "turn": 1}))
        assert fixed["state"] == "pending" and fixed["change"] == "correction"
        bad_time = await client.call_tool("end_fact", {"fact_id": by["lives_in"]["id"], "user": "bob",
                                                       "session": "bob-chat", "turn": 1,
                                                       "at": "2026-05-02 10:00"})
        assert bad_time.is_error and "offset" in bad_time.content[0].text
        ended = data(await client.call_tool("end_fact", {"fact_id": by["lives_in"]["id"], "user": "bob",
                                                         "session": "bob-chat", "turn": 1}))
        assert ended["state"] == "pending" and ended["change"] == "ending"
        assert counts(db)[1] == before[1] + 3  # queued for a person, nothing decided
        after = data(await client.call_tool("facts", {"user": "bob"}))
        assert after["facts"] == facts["facts"]
        zhou = data(await client.call_tool("facts", {"user": "zhou"}))["facts"][0]
    async with Client(server(db, "--user", "bob")) as client:  # bob's server, zhou's fact
        result = await client.call_tool("forget", {"fact_id": zhou["id"], "session": "bob-chat",
                                                   "turn": 1})
        assert result.is_error and "refused" in result.content[0].text
    assert counts(db)[1] == before[1] + 3
