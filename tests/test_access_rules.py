"""The door's rules (``core.access``), pure, against a reference model: a
grant reaches exactly its users' own subjects and the projects it lists (or,
listing none, the user's own projects); whatever the arguments say, a call
resolves inside that set or is refused. And at the Memory level: a session is
one person's conversation, whoever asks."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memdesk import AccessRefused, InvalidInput, ManualClock, Store
from memdesk.access import Caller, Grant, check_session_owner
from memdesk.memory import Memory
from memdesk.recall.scope import Scope, resolve
from sqlalchemy import text

from tests.conftest import DEMO_START

NAMES = ["alice", "bob", "carol", "me"]
PROJECTS = ["atlas", "bobco", "home"]
# who belongs to which project, as the store's conversations would say
MEMBERS = {("alice", "atlas"), ("alice", "home"), ("bob", "bobco"), ("carol", "home")}
WEIRD = ["", " ", "user:", "user:bob ", " user:bob", "USER:bob", "user:bob\x00", "bob\x00",
         "user:al ice", "project:", "project:atlas", "pet:biscuit", "user:alice:bob",
         "user:*", "*", "user:%", "x" * 300]


def member(user: str, project: str) -> bool:
    return (user, project) in MEMBERS


def allowed(grant: Grant, about: str, asked: str | None) -> bool:
    """The reference model: whether the grant may read ``about`` on behalf
    of ``asked`` (None: the grant's one user)."""
    kind, _, name = about.partition(":")
    if kind == "user":
        return grant.users is None or name in grant.users
    if kind != "project":
        return False
    if grant.projects is not None:
        return name in grant.projects
    user = (asked or "").strip().removeprefix("user:") or next(iter(grant.users or ()), "")
    return member(user, name)


grants = st.builds(
    lambda users, projects, ro: Grant.of(users, projects, read_only=ro, label="token 9 (t)"),
    st.one_of(st.none(), st.lists(st.sampled_from(NAMES), min_size=1, max_size=3)),
    st.one_of(st.none(), st.lists(st.sampled_from(PROJECTS), max_size=3)),
    st.booleans())
names = st.one_of(st.none(), st.sampled_from(NAMES), st.sampled_from([f"user:{n}" for n in NAMES]),
                  st.sampled_from(WEIRD), st.text(max_size=12))
subjects = st.one_of(st.none(), st.sampled_from([f"user:{n}" for n in NAMES]),
                     st.sampled_from([f"project:{p}" for p in PROJECTS]),
                     st.sampled_from(WEIRD), st.text(max_size=12))


@settings(max_examples=400, derandomize=True)
@given(grants, subjects, names)
def test_a_read_resolves_inside_the_grant_or_is_refused(grant, subject, asked):
    try:
        about = grant.subject(subject, asked, member)
    except (AccessRefused, InvalidInput):
        return
    assert allowed(grant, about, asked), (grant, subject, asked, about)
    if about.startswith("user:") and grant.users is not None:
        assert about[5:] in grant.users


@settings(max_examples=300, derandomize=True)
@given(grants, names)
def test_a_call_is_for_one_of_the_grants_users(grant, asked):
    try:
        user = grant.user(asked)
    except (AccessRefused, InvalidInput):
        return
    assert grant.users is None or user in grant.users
    assert not user.startswith("user:")


@settings(max_examples=300, derandomize=True)
@given(grants, st.sampled_from(NAMES), st.one_of(st.none(), st.sampled_from(PROJECTS + WEIRD)))
def test_writes_need_a_writable_grant_and_a_project_it_reaches(grant, user, project):
    try:
        grant.check_write(user, project)
    except AccessRefused:
        assert grant.read_only or (grant.projects is not None and project is not None)
        return
    assert not grant.read_only
    if project is not None and grant.projects is not None:
        assert project.removeprefix("project:") in grant.projects


@settings(max_examples=300, derandomize=True)
@given(st.sampled_from(NAMES), st.lists(st.sampled_from(PROJECTS), max_size=3),
       st.one_of(st.none(), st.sampled_from(PROJECTS)),
       st.lists(st.tuples(st.sampled_from(["s1", "s2"]),
                          st.one_of(st.none(), st.sampled_from(PROJECTS))), max_size=6))
def test_recall_within_a_tokens_projects_covers_no_other(user, within, project, pairs):
    try:
        scope = resolve(Scope.of(user=user, project=project, within=within), lambda _u: pairs)
    except InvalidInput:
        return
    theirs = {p for _, p in pairs if p}
    allowed = {f"user:{user}"} | {f"project:{p}" for p in theirs & set(within)}
    assert scope.subjects is not None and scope.subjects <= allowed
    assert scope.turn_projects is not None and scope.turn_projects <= {None, *within}
    for other in PROJECTS:
        if other not in within:
            assert not scope.covers_turn(user, other, "s1")


def test_refusals_name_the_grant_and_whose_data_was_asked_for():
    grant = Grant.of(["alice"], ["atlas"], label="token 3 (laptop)")
    with pytest.raises(AccessRefused, match=r"token 3 \(laptop\) may not reach user:bob") as exc:
        grant.user("bob")
    assert exc.value.subject == "user:bob"
    with pytest.raises(AccessRefused) as exc:
        grant.subject("project:bobco", None, member)
    assert exc.value.subject == "project:bobco"
    with pytest.raises(AccessRefused, match="read-only"):
        Grant.of(["alice"], read_only=True).check_write("alice", None)
    with pytest.raises(InvalidInput, match="name the user this call is for: token 3"):
        Grant.of(["alice", "bob"], label="token 3").user(None)
    assert Grant.of(["alice"]).user(None) == "alice"
    with pytest.raises(AccessRefused, match="not a conversation of user:alice") as exc:
        check_session_owner("bob-chat", ["bob", None], "alice")
    assert "bob" not in str(exc.value).replace("bob-chat", "")  # no refusal names another user
    assert exc.value.subject == "user:bob"  # (the audit entry's subject, for the operator)
    check_session_owner("new", [], "alice")
    check_session_owner("mine", [None], "me")


def test_a_caller_is_named_without_its_secret():
    caller = Caller("http", 3, "laptop", "claude-code 1.2")
    assert caller.actor == "token:3"
    assert caller.describe() == "token 3 (laptop), client claude-code 1.2, over http"
    assert caller.to_dict() == {"transport": "http", "token": 3, "token_name": "laptop",
                                "client": "claude-code 1.2"}
    assert Caller("stdio").actor == "mcp" and Caller("stdio").describe() == "over stdio"


@settings(max_examples=25, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(NAMES[:3]), st.sampled_from(["s1", "s2", "s3"]),
                          st.sampled_from(["I live in Leeds", "我住在杭州", "I'm allergic to nuts"])),
                min_size=1, max_size=6))
def test_a_session_only_ever_holds_one_persons_turns(tmp_path_factory, ops):
    db = tmp_path_factory.mktemp("sessions") / "m.db"
    with Store.open(db, clock=ManualClock(DEMO_START)) as store:
        memory = Memory(store)
        stored: dict[tuple[str, str], str] = {}
        for user, session, words in ops:  # sessions are scoped by their user: never refused
            got = memory.remember([{"role": "user", "content": words}], user=user,
                                  session=session).session
            assert stored.setdefault((user, session), got) == got
        assert len(set(stored.values())) == len(stored)  # one stored session per (user, name)
        with store.engine.connect() as conn:
            mixed = conn.execute(text("SELECT session FROM turn GROUP BY session "
                                      "HAVING count(DISTINCT user) > 1")).all()
        assert mixed == []
