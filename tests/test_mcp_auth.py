"""The HTTP door, attacked the way an attacker would try it, on a loopback
port: a real ``memdesk mcp --transport http`` process over a store holding
alice's and bob's conversations (``tests/door_attacks.py``).

Each refusal must be clean (a 401/404/413/429 or an MCP tool error naming
why), write nothing of memory (turns, claims, facts, memories, conflicts,
vectors, tokens), leave the server serving, and, for a token reaching past
its grant, leave one ``access.refused`` audit entry.

Issue 29's attacks follow: limits sidestepped by spelling (a token's
scheme, an escaped ``initialize``, a rotating ``X-Forwarded-For``), slow
clients and connection caps (raw sockets from several loopback addresses),
a call whose client leaves while it waits on the write lock (cancelled,
nothing written), and SIGTERM to a busy server (gone, ``verify`` clean).
Waits are the harness's generous bounds, never measured figures.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator

import pytest
from memdesk import Store

from tests import door_attacks as attack
from tests.door_attacks import BOB_WORDS, Door

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
GENEROUS = ("--rate", "5000/second", "--address-rate", "5000/second",
            "--session-rate", "5000/minute")


@pytest.fixture(scope="module")
def door(tmp_path_factory) -> Iterator[Door]:
    where = tmp_path_factory.mktemp("door")
    db = where / "m.db"
    secrets = attack.seed(db)
    server = attack.start(db, secrets, *GENEROUS, log=where / "server.log")
    yield server
    server.stop()


def written(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    """What changed between two ``counts``, audit refusals aside."""
    return {k: after.get(k, 0) - before.get(k, 0) for k in set(before) | set(after)
            if after.get(k, 0) != before.get(k, 0) and k != "audit:access.refused"}


def refusals(before: dict[str, int], after: dict[str, int]) -> int:
    return after.get("audit:access.refused", 0) - before.get("audit:access.refused", 0)


def still_serving(door: Door) -> None:
    got = asyncio.run(attack.call(door, door.secrets["alice"], "facts", {}))
    assert not got.error and got.data["subject"] == "user:alice", got.text
    assert door.alive


# ------------------------------------------------------------ no, wrong, revoked
def test_no_token_or_a_wrong_one_is_refused_before_any_tool_runs(door):
    before = attack.settled_counts(door.db)
    tried = 0
    for secret in attack.wrong_secrets():
        for body in (attack.INITIALIZE, attack.rpc("tools/call", {"name": "facts",
                                                                  "arguments": {}})):
            r = attack.post(door, body, secret=secret)
            tried += 1
            assert r.status_code == 401, (secret, r.status_code, r.text)
            assert r.headers["www-authenticate"].startswith("Bearer ")
            assert r.json()["error"] == "invalid_token"
    for header in ("Basic YWxpY2U6c2VjcmV0", "Bearer", "bearer  " + door.secrets["alice"] + "x",
                   door.secrets["alice"]):  # another scheme, no secret, a near miss, no scheme
        r = attack.post(door, attack.INITIALIZE, headers={"authorization": header})
        tried += 1
        assert r.status_code == 401, header
    for method in ("GET", "DELETE"):
        import httpx2

        r = httpx2.request(method, door.url, headers={"accept": "text/event-stream"})
        assert r.status_code == 401
    with pytest.raises(BaseException, match="401|nauthori|rror"):  # the client cannot connect
        asyncio.run(attack.call(door, "mdk_" + "B" * 43, "facts", {}))
    after = attack.counts(door.db)
    assert written(before, after) == {} and refusals(before, after) == 0
    assert tried >= 20
    still_serving(door)


def test_a_revoked_token_is_refused_and_its_use_audited(door):
    before = attack.settled_counts(door.db)
    for _ in range(3):
        r = attack.post(door, attack.INITIALIZE, secret=door.secrets["revoked"])
        assert r.status_code == 401
    after = attack.counts(door.db)
    assert written(before, after) == {} and refusals(before, after) == 3
    with Store.open(door.db) as store:
        entries = store.engine.connect().exec_driver_sql(
            "SELECT actor, reason FROM audit_log WHERE action = 'access.refused' "
            "ORDER BY id DESC LIMIT 1").all()
    assert entries[0][0] == "token:4" and "revoked" in entries[0][1]
    still_serving(door)


def test_revoking_a_token_takes_effect_on_the_next_request(door, tmp_path):
    with Store.open(door.db) as store:
        token, secret = store.admin.create_token("short-lived", users=["alice"], by="admin")
    assert attack.post(door, attack.INITIALIZE, secret=secret).status_code == 200
    with Store.open(door.db) as store:
        store.admin.revoke_token(token.id, by="admin", reason="test")
    assert attack.post(door, attack.INITIALIZE, secret=secret).status_code == 401


# ------------------------------------------------------- alice's token, bob's data
BY_ARGUMENT = [
    ("recall", {"query": "where does he live", "user": "bob"}),
    ("recall", {"query": "allergy", "user": "user:bob"}),
    ("recall", {"query": "allergy", "user": "bob", "over": "turns"}),
    ("facts", {"user": "bob"}),
    ("facts", {"user": " bob "}),
    ("audit", {"subject": "user:alice", "predicate": "lives_in", "user": "bob"}),
    ("remember", {"messages": [{"role": "user", "content": "I live in Paris now"}],
                  "user": "bob"}),
    ("propose_fact", {"predicate": "lives_in", "object": "Paris", "session": "bob-chat",
                      "turn": 1, "user": "bob"}),
    ("recall", {"query": "budget", "project": "bobco"}),
    ("remember", {"messages": [{"role": "user", "content": "Atlas deadline is June"}],
                  "project": "bobco"}),
]
BY_SUBJECT = [
    ("facts", {"subject": "user:bob"}),
    ("facts", {"subject": "  user:bob"}),
    ("facts", {"subject": "project:bobco"}),
    ("facts", {"subject": "pet:biscuit"}),
    ("audit", {"subject": "user:bob", "predicate": "lives_in"}),
    ("audit", {"subject": "user:bob", "predicate": "allergy", "object": "shellfish"}),
    ("audit", {"subject": "project:bobco", "predicate": "budget_limit"}),
]
# bob's conversation as stored (his session names are his own: bob-chat is
# stored as bob/bob-chat); naming it to read is refused. A session name alice
# writes to is always her own (test_a_session_name_written_to_is_the_callers_own)
BY_SESSION = [
    ("recall", {"query": "allergy", "session": "bob/bob-chat"}),
    ("recall", {"query": "allergy", "session": "bob/bob-chat", "over": "turns"}),
    ("propose_fact", {"predicate": "allergy", "object": "shellfish", "session": "bob/bob-chat",
                      "turn": 2}),
]
# crafted names: the malformed ones are said as errors (not audited); the ones that
# still name someone else (a differently-cased kind, a second user) are refusals
MALFORMED_NAMES = [
    ("facts", {"subject": "USER:bob"}),
    ("facts", {"subject": "user:"}),
    ("facts", {"user": "bob\x00"}),
    ("facts", {"subject": "user:alice", "user": "bob", "predicate": "x" * 5000}),
]


@pytest.mark.parametrize("case", ["argument", "subject", "session"])
def test_alices_token_never_reaches_bob(door, case):
    batch = {"argument": BY_ARGUMENT, "subject": BY_SUBJECT, "session": BY_SESSION}[case]
    before = attack.settled_counts(door.db)
    answers = asyncio.run(attack.calls(door, door.secrets["alice"], batch))
    for (tool, args), got in zip(batch, answers, strict=True):
        assert got.error, (tool, args, got.text)
        assert "refused:" in got.text and "token 1 (alice)" in got.text, got.text
        assert not any(w in got.text for w in BOB_WORDS[:3]), got.text
    after = attack.counts(door.db)
    assert written(before, after) == {}
    assert refusals(before, after) == len(batch)
    with Store.open(door.db) as store, store.engine.connect() as conn:
        rows = conn.exec_driver_sql(
            "SELECT actor, subject, detail FROM audit_log WHERE action = 'access.refused' "
            f"ORDER BY id DESC LIMIT {len(batch)}").all()
    for actor, subject, detail in rows:
        caller = json.loads(detail)["caller"]
        assert actor == "token:1" and caller["token"] == 1 and caller["client"] == "attack-probe 1.0"
        assert subject in ("user:bob", "project:bobco", "pet:biscuit")
    still_serving(door)


def test_a_session_name_written_to_is_the_callers_own(door):
    """alice writing to a session named like bob's (his default name, or his
    stored one) writes her own conversation; bob's is untouched and stays
    his to write."""
    with Store.open(door.db) as store, store.engine.connect() as conn:
        bobs = conn.exec_driver_sql("SELECT id, session, text FROM turn WHERE session LIKE "
                                    "'bob%' ORDER BY id").all()
    answers = asyncio.run(attack.calls(door, door.secrets["alice"], [
        ("remember", {"messages": [{"role": "user", "content": "I moved to Rome"}],
                      "session": "bob-chat"}),
        ("remember", {"messages": [{"role": "user", "content": "hello", "turn": 1}],
                      "session": "bob/bob-chat"}),
    ]))
    assert [a.data["session"] for a in answers] == ["alice/bob-chat", "alice/bob/bob-chat"]
    again = asyncio.run(attack.call(door, door.secrets["bob"], "remember", {
        "messages": [{"role": "user", "content": "I'm off to Porto"}]}))
    assert not again.error and again.data["session"] == "bob/bob-chat", again.text
    with Store.open(door.db) as store, store.engine.connect() as conn:
        after = conn.exec_driver_sql("SELECT id, session, text FROM turn WHERE session LIKE "
                                     "'bob%' ORDER BY id").all()
        users = {s: sorted(set(u)) for s, *u in conn.exec_driver_sql(
            "SELECT session, \"user\" FROM turn").all()}
    assert after[:len(bobs)] == bobs and [t[2] for t in after[len(bobs):]] == ["I'm off to Porto"]
    assert users["alice/bob-chat"] == ["alice"] and users["bob/bob-chat"] == ["bob"]


def test_malformed_names_are_errors_that_write_nothing(door):
    before = attack.settled_counts(door.db)
    answers = asyncio.run(attack.calls(door, door.secrets["alice"], MALFORMED_NAMES))
    assert all(a.error for a in answers), [a.text for a in answers]
    assert [("refused:" in a.text) for a in answers] == [True, False, False, True]
    after = attack.counts(door.db)
    assert written(before, after) == {} and refusals(before, after) == 2


def test_recall_for_alice_never_returns_bobs_rows(door):
    queries = ["Friedrichshain", "shellfish allergy", "who is Bob", "budget 2000 euros",
               "where does he live", "花生过敏", "trip budget", "phone number"]
    batch = [("recall", {"query": q, "over": over, "k": 20})
             for q in queries for over in ("memories", "turns")]
    batch += [("facts", {}), ("facts", {"subject": "project:atlas"}),
              ("audit", {"subject": "user:alice", "predicate": "allergy"})]
    answers = asyncio.run(attack.calls(door, door.secrets["alice"], batch))
    seen = 0
    for (tool, args), got in zip(batch, answers, strict=True):
        assert not got.error, (tool, args, got.text)
        assert not any(w in got.text for w in BOB_WORDS), (args, got.text)
        for hit in (got.data or {}).get("results", []):
            seen += 1
            assert hit.get("subject") in (None, "user:alice", "project:atlas"), hit
    assert seen > 0


def test_an_mcp_session_opened_by_bob_is_not_alices(door):
    sid = attack.open_session(door, door.secrets["bob"])
    listing = attack.rpc("tools/list", ident=2)
    headers = {"mcp-session-id": sid, "mcp-protocol-version": attack.PROTOCOL}
    stolen = attack.post(door, listing, headers=headers, secret=door.secrets["alice"])
    assert stolen.status_code == 404
    anonymous = attack.post(door, listing, headers=headers)
    assert anonymous.status_code == 401
    own = attack.post(door, listing, headers=headers, secret=door.secrets["bob"])
    assert own.status_code == 200 and "recall" in own.text


def test_a_read_only_token_reads_but_cannot_write(door):
    before = attack.settled_counts(door.db)
    answers = asyncio.run(attack.calls(door, door.secrets["alice_ro"], [
        ("remember", {"messages": [{"role": "user", "content": "I live in York"}]}),
        ("propose_fact", {"predicate": "lives_in", "object": "York", "session": "alice-chat",
                          "turn": 1}),
        ("recall", {"query": "where do I live"}),
    ]))
    assert [a.error for a in answers] == [True, True, False]
    assert all("read-only" in a.text for a in answers[:2])
    after = attack.counts(door.db)
    assert written(before, after) == {} and refusals(before, after) == 2


def test_writes_through_the_door_name_the_token_and_the_client(door):
    answers = asyncio.run(attack.calls(door, door.secrets["alice"], [
        ("remember", {"messages": [{"role": "user", "content": "I moved to Harrogate last week",
                                    "time": "2026-06-01T10:00:00+01:00"}]}),
        ("propose_fact", {"predicate": "hobby", "object": "climbing", "session": "alice-chat",
                          "turn": 1}),
        ("audit", {"subject": "user:alice", "predicate": "lives_in", "object": "Harrogate"}),
    ], client="claude-test"))
    assert not any(a.error for a in answers), [a.text for a in answers]
    with Store.open(door.db) as store, store.engine.connect() as conn:
        rows = conn.exec_driver_sql(
            "SELECT actor, action, detail FROM audit_log WHERE action IN ('ingest', 'import') "
            "ORDER BY id DESC LIMIT 2").all()
    for actor, _action, detail in rows:
        caller = json.loads(detail)["caller"]
        assert actor == "token:1"
        assert caller == {"transport": "http", "token": 1, "token_name": "alice",
                          "client": "claude-test 1.0"}
        assert door.secrets["alice"] not in detail
    chain = answers[2].data["chain"]
    extraction = [s for s in chain if s["step"] == "extraction"][-1]
    assert "token 1 (alice), client claude-test 1.0, over http" in extraction["summary"]


# ----------------------------------------------------------- oversized, malformed
def test_oversized_and_malformed_requests_are_refused_cleanly(door):
    good = door.secrets["alice"]
    before = attack.settled_counts(door.db)
    huge = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "remember", "arguments": {"messages": [
            {"role": "user", "content": "x" * (2 << 20)}]}}}).encode()
    assert attack.post(door, huge, secret=good).status_code == 413

    def chunks():
        for _ in range(40):
            yield b"[" * 65536
    r = attack.post(door, chunks(), secret=good)
    assert r.status_code == 413  # no Content-Length: cut off past the limit
    for body, headers in attack.MALFORMED_REQUESTS:
        r = attack.post(door, body, headers=headers, secret=good)
        assert 400 <= r.status_code < 500, (body[:40], headers, r.status_code, r.text[:200])
    import httpx2

    try:  # headers past the HTTP parser's limit: refused (431) or the connection closed
        r = attack.post(door, attack.INITIALIZE, headers={"x-padding": "a" * 200_000},
                        secret=good)
        assert 400 <= r.status_code < 500
    except httpx2.TransportError:
        pass
    tool_cases = attack.MALFORMED_ARGUMENTS
    answers = asyncio.run(attack.calls(door, good, tool_cases))
    assert all(a.error for a in answers), [(c, a.text) for c, a in zip(tool_cases, answers, strict=True)]
    assert not any("Traceback" in a.text for a in answers)
    after = attack.counts(door.db)
    assert written(before, after) == {} and refusals(before, after) == 0
    still_serving(door)


# ------------------------------------------------------------------- a flood
def test_a_flood_is_bounded_in_count_and_time_and_the_server_keeps_serving(tmp_path):
    db = tmp_path / "m.db"
    secrets = attack.seed(db)
    server = attack.start(db, secrets, "--rate", "20/second", "--address-rate", "100/second",
                          "--session-rate", "5/minute", log=tmp_path / "server.log")
    try:
        before = attack.counts(db)
        rss0 = attack.rss_mb(server.process.pid)
        anonymous = asyncio.run(attack.flood(server, None, 600))
        assert set(anonymous.statuses) <= {401, 429}, anonymous.statuses
        assert anonymous.seconds < 60
        time.sleep(1.1)
        wrong = asyncio.run(attack.flood(server, "mdk_" + "C" * 43, 300))
        assert set(wrong.statuses) <= {401, 429}, wrong.statuses
        time.sleep(1.1)
        audited = attack.counts(db)
        revoked = asyncio.run(attack.flood(server, secrets["revoked"], 200))
        assert set(revoked.statuses) <= {401, 429}, revoked.statuses
        # each use of a revoked token is audited, but no faster than the token's rate
        assert 0 < refusals(audited, attack.counts(db)) <= 20 * (revoked.seconds + 1)
        before["audit:access.refused"] = attack.counts(db).get("audit:access.refused", 0)
        time.sleep(1.1)
        sessions = asyncio.run(attack.flood(server, secrets["alice"], 100))
        assert sessions.statuses.get(200, 0) <= 5, sessions.statuses  # 5 new sessions a minute
        assert set(sessions.statuses) <= {200, 429}, sessions.statuses
        time.sleep(1.1)
        listing = attack.rpc("tools/list")
        calls = asyncio.run(attack.flood(server, secrets["bob"], 200, body=listing))
        assert set(calls.statuses) <= {200, 400, 429}, calls.statuses  # 400: no session
        served = sum(n for s, n in calls.statuses.items() if s != 429)
        assert served <= 20 * (calls.seconds + 1) + 1, (calls, served)
        time.sleep(1.1)
        still_serving(server)
        assert attack.rss_mb(server.process.pid) - rss0 < 150
        after = attack.counts(db)
        assert written(before, after) == {} and refusals(before, after) == 0
    finally:
        log = server.stop()
    assert "refused" in log and "Traceback" not in log


# ------------------------------------------------------------ starting the door
def test_http_refuses_another_address_without_a_token(tmp_path, capsys, monkeypatch):
    from memdesk.app import mcp_server
    from memdesk.app.cli import main

    db = tmp_path / "m.db"
    assert main(["--db", str(db), "demo"]) == 0
    capsys.readouterr()
    started = []
    monkeypatch.setattr(mcp_server, "serve", lambda memory, **kw: started.append(kw))
    assert main(["--db", str(db), "mcp", "--transport", "http", "--host", "0.0.0.0"]) == 1
    assert "without authentication" in capsys.readouterr().err and not started
    assert main(["--db", str(db), "tokens", "create", "--name", "t", "--user", "alice"]) == 0
    assert main(["--db", str(db), "mcp", "--transport", "http", "--host", "0.0.0.0"]) == 0
    err = capsys.readouterr().err
    assert started[0]["host"] == "0.0.0.0" and "in clear" in err
    assert main(["--db", str(db), "mcp", "--transport", "http", "--rate", "fast"]) == 1
    assert "--rate must look like" in capsys.readouterr().err


@pytest.mark.postgres
def test_the_door_on_a_shared_postgresql_store(pg_server, tmp_path):
    from tests.pgserver import reset_pg

    reset_pg(pg_server.url)
    secrets = attack.seed(pg_server.url)
    server = attack.start(pg_server.url, secrets, *GENEROUS, log=tmp_path / "server.log")
    try:
        before = attack.counts(pg_server.url)
        assert attack.post(server, attack.INITIALIZE, secret=secrets["revoked"]).status_code == 401
        answers = asyncio.run(attack.calls(server, secrets["alice"], BY_ARGUMENT[:4] + BY_SESSION))
        assert all(a.error and "refused:" in a.text for a in answers)
        after = attack.counts(pg_server.url)
        assert written(before, after) == {}
        assert refusals(before, after) == 1 + len(answers)
        got = asyncio.run(attack.call(server, secrets["bob"], "recall",
                                      {"query": "what am I allergic to"}))
        assert not got.error and "shellfish" in got.text
        with Store.open(pg_server.url) as store:
            assert store.audit.verify().ok
    finally:
        server.stop()


# ------------------------------------------- issue 29: limits that cannot be sidestepped
TIGHT = ("--rate", "20/minute", "--address-rate", "150/minute", "--session-rate", "5/minute")


@pytest.fixture(scope="module")
def tight(tmp_path_factory) -> Iterator[Door]:
    """A server with small per-minute limits; each test below comes from a
    loopback address of its own, so their address windows do not mix."""
    where = tmp_path_factory.mktemp("tight")
    db = where / "m.db"
    server = attack.start(db, attack.seed(db, light=True), *TIGHT, log=where / "server.log")
    yield server
    server.stop()


def served(flood: attack.Flood) -> int:
    return sum(n for status, n in flood.statuses.items() if status != 429)


def test_one_token_spelled_64_ways_shares_one_allowance(tight):
    spelled = attack.spellings(tight.secrets["alice"])
    listing = attack.rpc("tools/list")  # no session: 400 once past the limits
    got = asyncio.run(attack.flood_with(
        tight, 2 * len(spelled), lambda i: {"authorization": spelled[i % len(spelled)]},
        listing, source="127.0.0.2"))
    assert 401 not in got.statuses, got.statuses  # every spelling is the token
    assert set(got.statuses) <= {400, 429}, got.statuses
    assert served(got) <= 20, got.statuses  # --rate 20/minute, however it is spelled


def test_a_new_session_is_decided_on_the_parsed_method(tight):
    bob = tight.secrets["bob"]
    got = asyncio.run(attack.flood_with(
        tight, 20, lambda i: {"authorization": f"Bearer {bob}"}, attack.ESCAPED_INITIALIZE,
        source="127.0.0.3"))
    assert got.statuses.get(200, 0) <= 5, got.statuses  # --session-rate 5/minute
    assert set(got.statuses) <= {200, 429}, got.statuses


def test_forwarded_for_is_not_believed_by_default(tight):
    got = asyncio.run(attack.flood_with(
        tight, 400, lambda i: {"x-forwarded-for": f"10.{i // 65536}.{i // 256 % 256}.{i % 256}"},
        attack.rpc("tools/list")))  # from 127.0.0.1, which uvicorn trusted by default
    assert set(got.statuses) <= {401, 429}, got.statuses
    assert served(got) <= 150, got.statuses  # --address-rate 150/minute for 127.0.0.1


def test_forwarded_headers_are_trusted_only_from_named_proxies(tmp_path, capsys):
    from memdesk import Memory
    from memdesk.app.cli import main
    from memdesk.app.http_guard import GuardSettings
    from memdesk.app.mcp_server import http_app, server_config

    with Memory.open(tmp_path / "m.db") as memory:
        plain = server_config(http_app(memory), host="127.0.0.1", port=1)
        assert plain.proxy_headers is False
        proxied = server_config(http_app(memory, guard=GuardSettings(
            forwarded_allow_ips=("10.0.0.0/8", "192.0.2.7"))), host="127.0.0.1", port=1)
        assert proxied.proxy_headers is True
        assert proxied.forwarded_allow_ips == ["10.0.0.0/8", "192.0.2.7"]
    for flags, said in [(["--forwarded-allow-ips", "proxy.example"], "--forwarded-allow-ips"),
                        (["--header-timeout", "0"], "--header-timeout must be at least"),
                        (["--address-connections", "0"], "--address-connections must be"),
                        (["--stop-timeout", "nan"], "--stop-timeout must be at least")]:
        assert main(["--db", str(tmp_path / "m.db"), "mcp", "--transport", "http", *flags]) == 1
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1 and "Traceback" not in err, err


# --------------------------------------------------------------- slow clients
SLOW = ("--header-timeout", "4", "--body-timeout", "3", "--address-connections", "4",
        "--max-connections", "8")


def test_slow_clients_are_timed_out_and_connections_capped(tmp_path):
    db = tmp_path / "m.db"
    server = attack.start(db, attack.seed(db, light=True), *GENEROUS, *SLOW,
                          log=tmp_path / "server.log")
    try:
        head = attack.request_head(server, "POST", {"x-slow": "1"}, complete=False)
        slow = []
        for source in ("127.0.0.2",) * 4 + ("127.0.0.3",) * 4:  # 4 per address, 8 in all
            sock = attack.connect(server, source)
            sock.sendall(head[:20])  # a request line begun, never finished
            slow.append(sock)
        refused = [attack.until_closed(attack.connect(server, source), 30)
                   for source in ("127.0.0.2", "127.0.0.4")]  # per address / in all
        for got in refused:
            assert got is not None and got.startswith(b"HTTP/1.1 503"), got
        closed = [attack.until_closed(sock, 30, trickle=b"x" if i % 2 else b"")
                  for i, sock in enumerate(slow)]  # half of them keep dribbling
        assert all(got is not None and got.startswith(b"HTTP/1.1 408") for got in closed), closed
        sock = attack.connect(server, "127.0.0.5")  # headers in time, the body a byte at a time
        sock.sendall(attack.request_head(server, "POST", {
            **attack.JSON_HEADERS, "authorization": f"Bearer {server.secrets['alice']}"},
            length=1000) + b"{")
        got = attack.until_closed(sock, 30, trickle=b" ")
        assert got is not None and got.startswith(b"HTTP/1.1 408"), got
        still_serving(server)
    finally:
        log = server.stop()
    assert "timed out (headers)" in log and "timed out (body)" in log
    assert "too many connections" in log and "Traceback" not in log


# ------------------------------------------------ a client gone, a server stopped
def backend_store(backend: str, tmp_path, request) -> str:
    if backend == "sqlite":
        return str(tmp_path / "m.db")
    from tests.pgserver import reset_pg

    url = request.getfixturevalue("pg_server").url
    reset_pg(url)
    return url


BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_call_whose_client_went_away_is_cancelled_and_writes_nothing(backend, tmp_path,
                                                                       request):
    db = backend_store(backend, tmp_path, request)
    secrets = attack.seed(db, light=True)
    trace = tmp_path / "points"
    server = attack.start(db, secrets, *GENEROUS, log=tmp_path / "server.log",
                          env={"MEMDESK_TRACE_POINTS": str(trace)})
    try:
        alice = secrets["alice"]
        sid = attack.open_session(server, alice)
        before = attack.counts(db)
        with attack.write_lock(db):  # the call's write waits behind it
            sock = attack.post_in_flight(server, alice, sid,
                                         attack.remember_call("I moved to Bristol last week."))
            sock.close()  # the client leaves before its answer
            assert attack.wait_until(lambda: "http.gone#1" in attack.points(trace), 60)
        # the lock is free: the call goes on only to find it was cancelled
        assert attack.wait_until(lambda: "http.cancelled#1" in attack.points(trace), 60), \
            attack.points(trace)
        assert written(before, attack.counts(db)) == {}
        assert not any(p.startswith("tx.committed") for p in attack.points(trace))
        got = asyncio.run(attack.call(server, alice, "remember", {"messages": [
            {"role": "user", "content": "I moved to Leeds.", "time": "2026-06-02T10:00:00+01:00"}]}))
        assert not got.error, got.text  # the next call is served and written
        assert written(before, attack.counts(db)).get("turn") == 1
    finally:
        log = server.stop()
    assert "Traceback" not in log


@pytest.mark.parametrize("backend", BACKENDS)
def test_sigterm_stops_a_busy_server_and_the_store_verifies(backend, tmp_path, request):
    import signal
    import subprocess

    from memdesk.app.cli import main

    db = backend_store(backend, tmp_path, request)
    secrets = attack.seed(db, light=True)
    server = attack.start(db, secrets, *GENEROUS, "--stop-timeout", "3",
                          log=tmp_path / "server.log")
    try:
        alice = secrets["alice"]
        sid = attack.open_session(server, alice)
        before = attack.counts(db)
        stream = attack.event_stream(server, alice, sid)  # a connected client's stream
        with attack.write_lock(db):  # a call in flight that cannot finish by itself
            busy = attack.post_in_flight(server, alice, sid, attack.remember_call("I moved to Hull."))
            server.process.send_signal(signal.SIGTERM)
            try:
                server.process.wait(timeout=60)  # the harness's bound, not a measurement
            except subprocess.TimeoutExpired:
                pass
            exited = not server.alive
        stream.close()
        busy.close()
    finally:
        log = server.stop()
    assert exited, log
    assert "stopping (SIGTERM)" in log and "Traceback" not in log, log
    assert written(before, attack.counts(db)) == {}
    assert main(["--db", str(db), "verify"]) == 0
