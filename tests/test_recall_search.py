"""Recall over the demo store on both backends: the structured path decides
values, stale memories are marked and ranked below the current fact,
conflicts come back together, ``at`` recalls only what was known then, and
the filters never starve the top k. A hashing embedder stands in for the
model (the probe test uses the real one)."""

from __future__ import annotations

import json

import pytest
from memdesk import InvalidInput, parse_time_us
from memdesk.app.cli import main
from memdesk.recall import Recaller

from .recall_fixtures import HashEmbedder, demo_store, write_turns


@pytest.fixture
def demo(store_url, tmp_path):
    store = demo_store(store_url)
    recaller = Recaller(store, embedder=HashEmbedder(), index_dir=tmp_path / "idx")
    yield store, recaller
    store.close()


def test_named_predicate_returns_the_current_fact_first(demo):
    store, r = demo
    hits = r.search("王工现在住在哪里？", k=20)
    first = hits[0]
    assert (first.kind, first.object, first.status, first.pinned) == ("fact", "张江", "active", True)
    assert first.source.session == "alice-reno" and first.subject == "user:alice"
    stale = [h for h in hits if h.kind == "memory" and h.source.turn == 1]
    assert stale and stale[0].status == "superseded" and stale[0].status_factor < 1
    assert hits.index(stale[0]) > 0
    # English, subject named by its id, and the project budget by a filter
    assert r.search("where does alice live now", k=3)[0].object == "张江"
    budget = r.search("what is the budget limit", subject="project:renovation", k=3)[0]
    assert (budget.kind, budget.object) == ("fact", "6500 CNY")


def test_corrected_memory_is_marked(demo):
    _, r = demo
    hits = r.search("我住在浦东花木，想找附近能吃早饭的地方", subject="user:liwei", k=10)
    assert hits[0].kind == "fact" and hits[0].object == "北蔡"
    flower = next(h for h in hits if h.kind == "memory" and h.source.turn == 3)
    assert flower.status == "corrected"
    assert hits.index(flower) > 0


def test_conflicting_results_come_back_together(demo):
    _, r = demo
    hits = r.search("where does carol work", k=5)
    sides = [h for h in hits if h.conflict]
    assert {h.object for h in sides} >= {"Monzo", "Revolut"}
    assert len({h.conflict for h in sides}) == 1
    incoming = next(h for h in sides if h.object == "Revolut")
    assert incoming.status == "pending" and incoming.fact_id is None and incoming.claim_id
    assert hits.index(incoming) == hits.index(next(h for h in sides if h.object == "Monzo")) + 1
    assert incoming.to_json()["conflict"] == list(incoming.conflict)


def test_at_recalls_only_what_was_known_then(demo):
    store, r = demo
    before_move = parse_time_us("2026-03-10T12:00:00+08:00")
    hits = r.search("where does alice live", k=10, at=before_move)
    assert hits[0].object == "徐家汇" and hits[0].status == "active"
    assert all(h.source.time <= before_move for h in hits if h.source)
    first_turn = [h for h in hits if h.kind == "memory" and h.source.turn == 1]
    assert first_turn and first_turn[0].status == "active"  # not yet superseded then
    assert not [h for h in hits if h.kind == "memory" and h.source.turn == 18]
    later = r.search("where does alice live", k=10, at=parse_time_us("2026-03-25T12:00:00+08:00"))
    assert later[0].object == "张江"


def test_filters_and_overfetch(demo):
    store, r = demo
    hits = r.search("what does she like", subject="user:tom", k=4)
    assert len(hits) == 4 and all(h.subject == "user:tom" for h in hits)
    project = r.search("decisions we made", scope="project", k=20)
    assert project and all(h.subject.startswith("project:") for h in project if h.kind == "memory")
    stale = r.search("where does she live", status=["superseded", "corrected"], k=10)
    assert stale and all(h.status in ("superseded", "corrected") for h in stale)
    since = parse_time_us("2026-05-01T00:00:00+08:00")
    assert all(h.time >= since for h in r.search("plans", since=since, k=10))
    everything = r.search("anything at all", k=100)
    assert len({h.key for h in everything}) == len(everything)
    with pytest.raises(InvalidInput):
        r.search("x", status="stale")
    with pytest.raises(InvalidInput):
        r.search("x", over="turns", scope="global")
    with pytest.raises(InvalidInput):
        r.search("   ")


def test_expired_memories_are_left_out_unless_asked_for(store_url, tmp_path):
    store = demo_store(store_url, clock_iso="2028-06-01T00:00:00+00:00")  # likes expire after a year
    try:
        r = Recaller(store, embedder=HashEmbedder(), index_dir=tmp_path / "idx")
        hits = r.search("我喜欢坐地铁，不打车", subject="user:alice", k=10)
        assert all(h.status != "expired" for h in hits)
        expired = r.search("我喜欢坐地铁，不打车", subject="user:alice", k=10, status="expired")
        assert expired and expired[0].source.turn == 5
    finally:
        store.close()


def test_over_turns_and_duplicates_collapse(tmp_path):
    from memdesk import Store

    with Store.open(tmp_path / "t.db") as store:
        store.facts.ingest_file(write_turns(tmp_path / "t.jsonl", [
            "I really hate taking taxis to the airport", "I really hate taking taxis to the airport.",
            "My favourite food is dumplings", "Let's meet on Friday"]))
        r = Recaller(store, embedder=HashEmbedder(), index_dir=tmp_path / "idx")
        hits = r.search("taxis to the airport", over="turns", k=3)
        assert hits[0].kind == "turn" and hits[0].duplicates == 1
        assert sum("taxis" in h.text for h in hits) == 1
        data = hits[0].to_json()
        assert data["source"]["session"] == "s1" and data["memory_ids"] == [] and data["claims"] == []
        prompt = Recaller.render_prompt(hits, store.now())
        assert "raw turn" in prompt and "taxis" in prompt


def test_duplicates_never_starve_the_top_k(tmp_path):
    """30 copies of one sentence are nearer the query than anything else: they
    collapse into one result, and the search fetches further until k distinct
    results are found (the first fetch holds only copies)."""
    from memdesk import Store

    copies = ["I really hate taking taxis to the airport"] * 30
    others = ["Taxis to the station are fine", "The airport bus is slow but cheap",
              "I take the metro to work", "We flew to Chengdu last spring",
              "My sister drives a taxi in Hangzhou", "Trains beat planes under five hours",
              "The airport lounge coffee is terrible", "I hate waiting in long queues"]
    with Store.open(tmp_path / "t.db") as store:
        store.facts.ingest_file(write_turns(tmp_path / "t.jsonl", copies + others))
        r = Recaller(store, embedder=HashEmbedder(), index_dir=tmp_path / "idx")
        hits = r.search("I really hate taking taxis to the airport", over="turns", k=5)
        assert len(hits) == 5
        assert hits[0].text == copies[0] and hits[0].duplicates >= 20
        assert sum(h.text == copies[0] for h in hits) == 1


@pytest.fixture
def cli_store(tmp_path, monkeypatch):
    monkeypatch.setattr("memdesk.recall.service.make_embedder", lambda spec: HashEmbedder())
    monkeypatch.setenv("MEMDESK_CONFIG", str(tmp_path / "none.toml"))
    (tmp_path / "none.toml").write_text("")
    db = str(tmp_path / "cli.db")
    assert main(["--db", db, "demo", "--json"]) == 0
    return db


def test_cli_recall_json_prompt_batch_and_reindex(cli_store, tmp_path, capsys):
    capsys.readouterr()
    assert main(["--db", cli_store, "recall", "where does alice live now", "-k", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out[0]["kind"] == "fact" and out[0]["object"] == "张江"
    for key in ("text", "score", "relevance", "recency", "importance", "kind", "source", "status",
                "conflict"):
        assert key in out[0]
    assert main(["--db", cli_store, "recall", "where does alice live now", "--format", "prompt"]) == 0
    assert "current value" in capsys.readouterr().out
    assert main(["--db", cli_store, "recall", "where does alice live", "--at",
                 "2026-03-10T12:00:00+08:00", "--format", "table"]) == 0
    assert "徐家汇" in capsys.readouterr().out
    batch = tmp_path / "q.jsonl"
    batch.write_text("\n".join(json.dumps(q, ensure_ascii=False) for q in [
        {"id": "a", "query": "where does alice live now", "k": 2},
        {"id": "b", "query": "说过开会的话", "over": "turns", "subject": "user:alice"},
        {"id": "c", "query": "预算", "at": "2026-03-20T00:00:00+08:00",
         "subject": "project:renovation"}]) + "\n")
    assert main(["--db", cli_store, "recall", "--batch", str(batch), "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["id"] for x in lines] == ["a", "b", "c"]
    assert lines[1]["results"][0]["kind"] == "turn"
    assert lines[2]["results"][0]["object"] == "5000 CNY"
    batch.write_text('{"id": "ok", "query": "x"}\n{"id": "bad", "query": "x", "k": 0}\n')
    assert main(["--db", cli_store, "recall", "--batch", str(batch), "--json"]) == 1
    captured = capsys.readouterr()
    assert "q.jsonl:2: k must be" in captured.err and "Traceback" not in captured.err
    assert captured.out == ""
    assert main(["--db", cli_store, "recall", "x", "--at", "yesterday"]) == 1
    assert "--at" in capsys.readouterr().err
    assert main(["--db", cli_store, "reindex", "--json"]) == 0
    reports = json.loads(capsys.readouterr().out)
    assert {r["kind"] for r in reports} == {"memory", "turn"}
    assert all(r["mode"] == "exact" for r in reports)


def test_recall_settings_flag_env_and_config(tmp_path):
    from memdesk.app.config import load_settings
    from memdesk.recall import RecallWeights

    conf = tmp_path / "c.toml"
    conf.write_text('embedder = "e5"\nindex_dir = "/tmp/x"\n[recall]\nrecency = 0.3\nlexical = 0.1\n')
    env = {"MEMDESK_CONFIG": str(conf), "MEMDESK_RECALL_RECENCY": "0.05"}
    s = load_settings(env=env)
    assert (s.embedder, s.index_dir) == ("e5", "/tmp/x")
    assert dict(s.recall_weights) == {"recency": 0.05, "lexical": 0.1}  # env beats the file
    assert load_settings(env={**env, "MEMDESK_EMBEDDER": "use+e5"}).embedder == "use+e5"
    assert load_settings(env=env, embedder="use").embedder == "use"  # the flag wins
    assert RecallWeights(**dict(s.recall_weights)).recency == 0.05
    conf.write_text("[recall]\nrecncy = 1\n")
    with pytest.raises(InvalidInput, match="unknown \\[recall\\] setting 'recncy'"):
        load_settings(env={"MEMDESK_CONFIG": str(conf)})
    with pytest.raises(InvalidInput):
        RecallWeights(stale_factor=2.0)


def test_rejected_options_read_as_rejected_and_come_after_the_chosen(demo):
    """A negative fact (a rejected option, a food not eaten) is pinned with its
    negation in the text, after the positive ones."""
    _, r = demo
    for query, negation in (("what did liwei decide", "not "), ("李伟的决定", "不要 ")):
        pinned = [h for h in r.search(query, subject="user:liwei", k=5) if h.pinned]
        assert [h.object for h in pinned] == ["MacBook Pro 14寸", "32G"]
        assert pinned[0].text.endswith(" MacBook Pro 14寸")
        assert pinned[1].text.endswith(f" {negation}32G")
