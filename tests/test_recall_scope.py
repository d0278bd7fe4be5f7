"""The scope of a recall (core/recall/scope.py, docs/DESIGN.md §4.6): a recall
asked on behalf of a user covers that user's facts, memories and turns,
those of the projects their conversations belong to and what they told of
other people (``person:<user>/…``), never anyone else's.
Unscoped recall names every hit's subject, in the prompt block too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memdesk import InvalidInput, Store
from memdesk.recall import Recaller
from memdesk.recall.scope import Scope, resolve

from .recall_fixtures import HashEmbedder

# two people, each with a private life and a project of their own, and a
# third who shares nothing: every text names its owner so a leak is visible
CONVERSATIONS = {
    "zhou": [("zhou-trip", "trip", "这次出游预算两万元，住民宿就行 (zhou)"),
             ("zhou-trip", "trip", "帮我订成都的酒店，就选宽窄巷子那家 (zhou)"),
             ("zhou-life", None, "我住在杭州西湖区 (zhou)"),
             ("zhou-life", None, "I am allergic to peanuts (zhou)"),
             ("zhou-life", None, "我姐对海鲜过敏，她喜欢爬山 (zhou)")],
    "bob": [("bob-shop", "bistro", "The bistro budget is $40,000 for the fit-out (bob)"),
            ("bob-shop", "bistro", "Let's go with the oak counter for the bistro (bob)"),
            ("bob-life", None, "I live in Friedrichshain (bob)"),
            ("bob-life", None, "我对芒果过敏 (bob)"),
            ("bob-life", None, "My sister loves climbing and she is allergic to shellfish (bob)")],
    "carol": [("carol-home", None, "I live in Leeds and cycle to work (carol)"),
              ("carol-home", None, "我们的预算是五千英镑 (carol)")],
}
QUERIES = ["预算多少", "what's our budget", "where do I live now", "帮我订个酒店", "allergy",
           "过敏", "Friedrichshain", "bistro counter", "Leeds", "民宿", "hotel"]


def ingest_all(store: Store, folder: Path) -> None:
    for user, turns in CONVERSATIONS.items():
        path = folder / f"{user}.jsonl"
        numbers: dict[str, int] = {}
        with path.open("w", encoding="utf-8") as fh:
            for i, (session, project, text) in enumerate(turns):
                numbers[session] = numbers.get(session, 0) + 1
                row = {"session": session, "turn": numbers[session], "speaker": "user",
                       "time": f"2026-01-{1 + i:02d}T10:00:00+08:00", "text": text, "user": user}
                if project:
                    row["project"] = project
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        store.facts.ingest_file(path)


@pytest.fixture
def scoped(store, tmp_path):
    ingest_all(store, tmp_path)
    return Recaller(store, embedder=HashEmbedder(), index_dir=tmp_path / "idx")


def owners(hit) -> set[str]:
    """Whose words a hit carries: its own text and its source turn's."""
    texts = [hit.text] + ([hit.source.text] if hit.source else [])
    return {u for u in CONVERSATIONS for t in texts if f"({u})" in t}


def test_resolve_covers_the_users_projects_only():
    pairs = {"zhou": [("zhou-trip", "trip"), ("zhou-life", None)]}
    got = resolve(Scope.of("user:zhou"), lambda u: pairs.get(u, []))
    assert got.subjects == {"user:zhou", "project:trip"}
    assert got.covers_turn("zhou", None, "zhou-life") and not got.covers_turn("bob", None, "b")
    assert got.covers_memory("project:trip", "project", "zhou-trip")
    assert not got.covers_memory("project:bistro", "project", "bob-shop")
    narrowed = resolve(Scope.of(user="zhou", session="zhou-life"), lambda u: pairs.get(u, []))
    assert not narrowed.covers_memory("user:zhou", "session", "zhou-trip")  # another session's state
    assert narrowed.covers_memory("user:zhou", "global", "zhou-trip")
    with pytest.raises(InvalidInput, match="no conversation in project:bistro"):
        resolve(Scope.of("user:zhou", project="bistro"), lambda u: pairs.get(u, []))
    with pytest.raises(InvalidInput, match="name the user"):
        Scope.of(project="trip")
    assert not resolve(Scope.of(), lambda u: []).scoped


@pytest.mark.parametrize("over", ["memories", "turns"])
def test_a_scoped_recall_never_returns_another_users_text(scoped, over):
    for user in CONVERSATIONS:
        for query in QUERIES:
            for hit in scoped.search(query, k=10, over=over, subject=f"user:{user}"):
                assert owners(hit) <= {user}, (user, query, hit.text)
                assert (hit.subject in (f"user:{user}", None) or hit.subject.startswith("project:")
                        or hit.subject.startswith(f"person:{user}/"))


def test_a_users_recall_covers_their_projects(scoped):
    hits = scoped.search("预算多少", subject="user:zhou")
    assert hits[0].kind == "fact" and hits[0].subject == "project:trip" and hits[0].pinned
    assert hits[0].object == "20000 CNY"
    hotel = scoped.search("帮我订个酒店", subject="user:zhou", k=5)
    assert any("宽窄巷子" in h.text for h in hotel)
    # bob's bistro never comes into zhou's recall, nor zhou's trip into bob's
    assert not any("bistro" in h.text for h in scoped.search("bistro budget", subject="user:zhou"))
    assert not any(h.subject == "project:trip"
                   for h in scoped.search("预算多少", subject="user:bob", k=10))


def test_a_users_recall_covers_the_people_they_told_of_and_no_one_elses(scoped, store):
    """What a user told about other people (person:<user>/…) is recalled for
    that user, under its own subject; another user's people never."""
    assert store.facts.subjects("person:") == ["person:bob/sister", "person:zhou/sister"]
    hits = scoped.search("我姐姐对什么过敏", subject="user:zhou", k=10)
    assert "person:zhou/sister" in {h.subject for h in hits}
    for user, other in (("zhou", "bob"), ("bob", "zhou")):
        for query in ("sister allergy", "姐姐喜欢什么", "climbing"):
            assert not any(h.subject.startswith(f"person:{other}/") or owners(h) - {user}
                           for h in scoped.search(query, subject=f"user:{user}", k=10))


def test_a_predicate_question_without_a_subject_names_each_candidate(scoped):
    hits = scoped.search("预算多少", k=10)
    pinned = [h for h in hits if h.pinned]
    assert {h.subject for h in pinned} >= {"project:trip", "project:bistro"}
    block = Recaller.render_prompt(hits)
    for line in block.splitlines()[1:]:
        assert line.split("] ", 2)[2].split(": ", 1)[0].split(":")[0] in ("user", "project", "person"), line
    assert "project:trip: " in block


def test_the_prompt_block_names_the_subject_of_every_line(scoped):
    block = Recaller.render_prompt(scoped.search("where do I live now", k=6))
    lines = block.splitlines()[1:]
    assert lines and all(": " in line and ("user:" in line or "project:" in line) for line in lines)
    assert any(line.startswith("- [") and "user:bob: " in line for line in lines)


def test_a_project_or_session_narrows_and_is_checked(scoped):
    hits = scoped.search("预算", subject="user:zhou", project="trip", over="turns", k=10)
    assert hits and all("(zhou)" in h.text for h in hits)
    only = scoped.search("杭州", subject="user:zhou", session="zhou-life", over="turns", k=10)
    assert only and {h.source.session for h in only} == {"zhou-life"}
    with pytest.raises(InvalidInput):
        scoped.search("预算", subject="user:zhou", project="bistro")
    with pytest.raises(InvalidInput):
        scoped.search("预算", subject="user:zhou", session="bob-life")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.text(alphabet=st.sampled_from(list("预算酒店过敏住在 budgethotelivLeds")),
                     min_size=1, max_size=12).filter(str.strip),
       user=st.sampled_from(sorted(CONVERSATIONS)), over=st.sampled_from(["memories", "turns"]))
def test_no_query_leaks_across_users(scoped, query, user, over):
    for hit in scoped.search(query, k=10, over=over, subject=f"user:{user}"):
        assert owners(hit) <= {user}, (user, query, hit.text)
