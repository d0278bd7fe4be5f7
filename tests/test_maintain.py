"""Scheduled maintenance (issue 14, part 7; core.maintain, store.admin.maintain,
``memdesk maintain``): near-duplicate memories fold into one, stale memories
are archived (and out of recall unless asked for), facts whose TTL ran out
expire; one audit entry per run that changed something, none otherwise;
``verify`` passes; a dry run changes nothing; runs are safe beside writers."""

from __future__ import annotations

import json
import multiprocessing
from datetime import datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from memdesk import InvalidInput, ManualClock, Store
from memdesk.db.tables import AUDIT, FACT, MEMORY
from memdesk.lang.text import grams
from memdesk.maintain import (
    ACTION,
    ClaimLink,
    LineageFact,
    MemoryItem,
    StoredMemory,
    age_text,
    cluster,
    jaccard,
    lineage_end,
    link_lineages,
    near_key,
    parse_age,
    plan_maintenance,
)
from sqlalchemy import func, select

from .helpers import CST, claim, day
from .recall_fixtures import HashEmbedder

DAY = 86_400_000_000


def at_day(n: float) -> datetime:
    return datetime(2026, 3, 1, 10, 0, tzinfo=CST) + timedelta(days=n - 1)


def remember(store: Store, claims) -> None:
    """Write claims the way conversation ingest does, so those that take
    effect leave memory texts (their source text)."""
    claims = list(claims)
    with store._core.write() as batch:
        batch.route_memories = True
        batch.prefetch(claims)
        for c in claims:
            batch.submit(c)
        batch.record_operation("test", "ingest", detail={}, skip_if_unchanged=True)


def memories(store: Store) -> dict[int, dict]:
    with store.engine.connect() as conn:
        return {r.id: dict(r._mapping) for r in conn.execute(select(*MEMORY.c))}


def entries(store: Store, action: str = ACTION) -> list[dict]:
    with store.engine.connect() as conn:
        return [dict(r._mapping) for r in conn.execute(
            select(*AUDIT.c).where(AUDIT.c.action == action).order_by(AUDIT.c.id))]


def snapshot(store: Store) -> tuple:
    with store.engine.connect() as conn:
        return tuple(tuple(map(tuple, conn.execute(select(*t.c).order_by(t.c.id))))
                     for t in (MEMORY, FACT, AUDIT))


def _cilantro(store: Store) -> None:
    remember(store, [
        claim("user:ann", "likes", "cilantro", at=day(1), turn=1, text="I love cilantro!"),
        claim("user:ann", "likes", "cilantro", at=day(3), turn=3, text="i love cilantro."),
        claim("user:ann", "likes", "cilantro", at=day(4), turn=4, text="I love cilantro!"),
        claim("user:ann", "likes", "cilantro", at=day(5), turn=5,
              text="I love cilantro, really"),
        claim("user:bob", "likes", "cilantro", at=day(2), turn=2, session="s2",
              text="I love cilantro!"),
    ])


# -------------------------------------------------------------------- merge
def test_near_duplicates_of_one_subject_fold_into_one_keeping_sources(store):
    _cilantro(store)
    before = memories(store)
    assert len(before) == 4  # the exact repeat of turn 1 only counted a mention
    ann = sorted(i for i, m in before.items() if m["subject"] == "user:ann")
    first, second, third = ann
    assert before[first]["mentions"] == 2

    report = store.admin.maintain()
    assert [m.detail() for m in report.plan.merges] == [
        {"into": first, "folded": [second], "mentions": [2, 3]}]
    after = memories(store)
    assert after[first]["mentions"] == 3 and after[first]["archived_at"] is None
    folded = after[second]
    assert folded["merged_into"] == first and folded["archive_reason"] == f"merged into {first}"
    assert folded["archived_at"] == report.at and folded["text"] == "i love cilantro."
    assert folded["turn_id"] == before[second]["turn_id"]  # its source turn stays reachable
    # "I love cilantro, really" shares too few n-grams; bob's never meets ann's
    assert after[third]["archived_at"] is None
    bob = next(m for m in after.values() if m["subject"] == "user:bob")
    assert bob["archived_at"] is None and bob["mentions"] == 1
    # total mentions over the memories not folded away are unchanged
    live = sum(m["mentions"] for m in after.values() if m["merged_into"] is None)
    assert live == sum(m["mentions"] for m in before.values())
    assert store.audit.verify().ok


def test_a_restatement_after_the_merge_counts_on_the_survivor(store, clock):
    _cilantro(store)
    report = store.admin.maintain()
    into = report.plan.merges[0].into
    remember(store, [claim("user:ann", "likes", "cilantro", at=day(9), turn=9,
                           text="I  LOVE cilantro.")])  # the folded text's key again
    after = memories(store)
    assert len(after) == 4 and after[into]["mentions"] == 4
    assert store.audit.verify().ok


def test_similar_words_for_different_values_never_merge(store):
    white = ("We picked the white marble worktop from the supplier in Pudong, delivered "
             "next month by truck to the flat")
    black = white.replace("white", "black")
    assert jaccard(set(grams(white, drop_stopwords=False)),
                   set(grams(black, drop_stopwords=False))) >= 0.8  # words alike: not enough
    remember(store, [
        claim("user:ann", "likes", "white marble", at=day(1), turn=1, text=white),
        claim("user:ann", "likes", "black marble", at=day(2), turn=2, text=black),
    ])
    assert store.admin.maintain(dry_run=True).plan.merges == ()


def test_near_key_and_chinese_duplicates():
    assert near_key("我对花生过敏。") == near_key("我对 花生过敏！") == "我对花生过敏"
    assert near_key("I'm allergic to PEANUTS!!") == near_key("im allergic to peanuts")
    items = [MemoryItem(1, "user:a", "我对花生过敏，千万别放花生。", 1, 10, lineages=(5,)),
             MemoryItem(2, "user:a", "我对花生过敏，千万别放花生", 2, 20, lineages=(5,)),
             MemoryItem(3, "user:a", "我对花生过敏，千万别放花生啊，记住", 1, 30, lineages=(5,)),
             MemoryItem(4, "user:a", "周末去杭州", 1, 40, lineages=(5,))]
    groups = {s.id: sorted(f.id for f in folded) for s, folded in cluster(items, 0.8)}
    assert groups == {2: [1, 3], 4: []}  # the most mentioned survives


# ------------------------------------------------------------------ archive
def _moved(store: Store) -> None:
    remember(store, [
        claim("user:ann", "lives_in", "徐家汇", at=day(1), turn=1, session="home",
              text="我住在徐家汇，离地铁很近。"),
        claim("user:ann", "lives_in", "张江", at=day(18), turn=18, session="home",
              text="我上周搬到张江了。", change="evolution"),
    ])


def test_stale_memories_are_archived_after_the_age_and_leave_recall(store, clock, tmp_path):
    from memdesk.recall import Recaller

    _moved(store)
    clock.set(at_day(18 + 30))
    assert store.admin.maintain(older_than="90d").plan.empty  # superseded, but not for long enough
    assert entries(store) == []
    clock.set(at_day(18 + 100))
    recaller = Recaller(store, embedder=HashEmbedder(), index_dir=tmp_path / "idx")
    assert any("徐家汇" in h.text for h in recaller.search("徐家汇 地铁", subject="user:ann"))

    report = store.admin.maintain(older_than="90d", by="nightly")
    (archive,) = report.plan.archives
    old = next(i for i, m in memories(store).items() if "徐家汇" in m["text"])
    assert archive.memory == old and archive.reason.startswith("stale: superseded since 2026-03-18")
    mem = memories(store)[old]
    assert mem["archived_at"] == report.at and mem["merged_into"] is None
    (entry,) = entries(store)
    assert entry["actor"] == "nightly" and entry["id"] == report.audit_entry
    assert json.loads(entry["detail"])["archived"] == [{"memory": old, "reason": archive.reason}]

    hits = recaller.search("徐家汇 地铁", subject="user:ann")
    assert all(h.memory_id != old for h in hits) and any("张江" in h.text for h in hits)
    assert all(h.memory_id != old for h in recaller.search("徐家汇 地铁", subject="user:ann",
                                                           exact=True))
    back = recaller.search("徐家汇 地铁", subject="user:ann", include_archived=True)
    hit = next(h for h in back if h.memory_id == old)
    assert hit.status == "superseded" and hit.archived["reason"] == archive.reason
    assert hit.to_json()["archived"]["merged_into"] is None
    # as of a day before the run, it was not archived yet
    before = recaller.search("徐家汇 地铁", subject="user:ann", at=report.at - DAY)
    assert any(h.memory_id == old for h in before)
    # the audit of the old value shows what maintenance did to its memory
    chain = store.audit.of("user:ann", "lives_in", "徐家汇").chain
    step = next(s for s in chain if s.step == "maintenance")
    assert step.actor == "nightly" and f"memory {old} archived" in step.summary
    assert step.detail["operation"] == report.audit_entry
    assert store.admin.maintain(older_than="90d").plan.empty and len(entries(store)) == 1
    assert store.audit.verify().ok


def test_a_memory_standing_for_a_fact_that_still_holds_is_not_stale(store, clock):
    text = "我住在徐家汇，对花生过敏。"  # one memory for both claims of the turn
    remember(store, [
        claim("user:ann", "lives_in", "徐家汇", at=day(1), turn=1, text=text),
        claim("user:ann", "allergy", "花生", at=day(1), turn=1, text=text),
        claim("user:ann", "lives_in", "张江", at=day(18), turn=18, text="我搬到张江了。",
              change="evolution"),
    ])
    clock.set(at_day(400))
    assert store.admin.maintain(older_than="90d", dry_run=True).plan.archives == ()


def test_archive_age_forms_and_errors():
    assert parse_age("90d") == 90 * DAY and parse_age("12h") == DAY // 2
    assert parse_age("2w") == 14 * DAY and parse_age("0") == 0 and parse_age("1.5d") == 36 * 3600 * 10**6
    assert parse_age(timedelta(hours=1)) == 3600 * 10**6
    assert age_text(parse_age("90d")) == "90d" and age_text(parse_age("2w")) == "2w"
    for bad in ("90", "ninety days", "-3d", "3y", ""):
        with pytest.raises(InvalidInput):
            parse_age(bad)


def test_an_archived_memory_whose_facts_hold_again_is_restored(store, clock):
    remember(store, [claim("user:ann", "lives_in", "徐家汇", at=day(1), turn=1,
                           text="我住在徐家汇。")])
    store.facts.add([claim("user:ann", "lives_in", "张江", at=day(10), turn=10, text="可能搬张江了",
                     change="evolution", confidence=0.5)])
    (cand,) = store.review.list()
    clock.set(at_day(11))
    store.review.approve(cand.id, by="lin")
    clock.set(at_day(200))
    (archive,) = store.admin.maintain().plan.archives
    store.review.undo(cand.id, by="lin", reason="wrong person")
    report = store.admin.maintain()
    assert [(r.memory, r.why) for r in report.plan.restores] == [
        (archive.memory, "its facts hold again")]
    mem = memories(store)[archive.memory]
    assert mem["archived_at"] is None and mem["archive_reason"] is None
    kinds = [s.detail.get("action") for s in store.audit.of("user:ann", "lives_in", "徐家汇").chain
             if s.step == "maintenance"]
    assert kinds == ["archived", "restored"]
    assert store.admin.maintain().plan.empty and store.audit.verify().ok


def test_the_same_words_after_an_archive_make_a_new_live_memory(store, clock):
    remember(store, [
        claim("user:ann", "likes", "jazz", at=day(1), turn=1, text="I like jazz."),
    ])
    clock.set(at_day(1 + 365 + 100))  # likes last a year; then 100 days stale
    report = store.admin.maintain()
    assert len(report.plan.expiries) == 1 and len(report.plan.archives) == 1
    remember(store, [claim("user:ann", "likes", "jazz", at=day(470), turn=470, session="s9",
                           text="I like jazz.")])
    mems = sorted(memories(store).values(), key=lambda m: m["id"])
    assert [m["archived_at"] is None for m in mems] == [False, True]
    assert store.admin.maintain().plan.empty  # the old one stays archived, the new one is live


# ------------------------------------------------------------------- expire
def test_expired_facts_are_closed_at_their_expiry_not_lost(store, clock):
    remember(store, [claim("user:ann", "commute", "walks", at=day(1), turn=1,
                           text="I walk to work.")])
    (fact,) = store.facts.current("user:ann", "commute")
    assert fact.expires_at is not None
    clock.set(at_day(1 + 400))
    report = store.admin.maintain(older_than="1000d")
    assert [e.fact.id for e in report.plan.expiries] == [fact.id]
    retired = store.facts.get(fact.id)
    assert retired.retire_reason == "expired" and retired.retired_at == report.at
    assert retired.status(store.now()) == "expired"
    (copy,) = store.facts.current("user:ann", "commute")
    assert copy.id == report.copies[fact.id] and copy.copy_of == fact.id
    assert (copy.valid_from, copy.valid_to, copy.claim_id) == (fact.valid_from, fact.expires_at,
                                                               fact.claim_id)
    # what held before the expiry is still answered, as known now and as known before
    assert [f.object for f in store.facts.as_of("user:ann", "commute", valid_at=day(30))] == ["walks"]
    assert [f.id for f in store.facts.as_of("user:ann", "commute", valid_at=day(30),
                                      known_at=report.at - 1)] == [fact.id]
    assert store.facts.as_of("user:ann", "commute") == []
    chain = store.audit.of("user:ann", "commute", "walks").chain
    assert any(s.step == "maintenance" and s.detail.get("action") == "expired" for s in chain)
    (expired,) = json.loads(entries(store)[0]["detail"])["expired"]
    assert (expired["fact"], expired["copy"]) == (fact.id, copy.id)
    assert json.loads(entries(store)[0]["detail"])["retired"] == [fact.id]
    # the conflict gate no longer sees the expired value
    summary = store.facts.add([claim("user:ann", "commute", "bus", at=day(402), turn=402,
                               text="I take the bus.")])
    assert summary.conflicts == 0 and summary.asserted == 1
    assert store.admin.maintain(older_than="1000d").plan.empty and store.audit.verify().ok


def test_a_fact_an_open_conflict_holds_is_left_for_the_reviewer(store, clock):
    store.facts.add([claim("user:ann", "commute", "walks", at=day(1), turn=1),
               claim("user:ann", "commute", "bus", at=day(2), turn=2)])
    (conflict,) = store.conflicts.list()
    clock.set(at_day(500))
    report = store.admin.maintain()
    assert report.plan.empty and [h.conflict for h in report.plan.held] == [conflict.id]
    assert entries(store) == []


# ------------------------------------------------------- dry run, idempotent
def test_dry_run_writes_nothing_and_plans_what_the_run_does(store, clock):
    _cilantro(store)
    _moved(store)
    remember(store, [claim("user:ann", "todo", "call the plumber", at=day(2), turn=2,
                           session="s3", text="remind me to call the plumber")])
    clock.set(at_day(200))
    before = snapshot(store)
    dry = store.admin.maintain(dry_run=True)
    assert snapshot(store) == before and dry.audit_entry is None and not dry.changed
    assert dry.to_dict()["dry_run"] is True
    real = store.admin.maintain()
    for name in ("merges", "archives", "restores", "expiries"):
        assert getattr(real.plan, name) == getattr(dry.plan, name), name
    assert real.changed and not real.plan.empty
    audit_count = len(entries(store))
    again = store.admin.maintain()
    assert again.plan.empty and again.audit_entry is None
    assert len(entries(store)) == audit_count == 1
    assert store.audit.verify().ok


def test_subject_limits_the_run(store, clock):
    _cilantro(store)
    bob = store.admin.maintain(subject="user:bob")
    assert bob.plan.empty
    ann = store.admin.maintain(subject="user:ann")
    assert len(ann.plan.merges) == 1 and entries(store)[0]["subject"] == "user:ann"


# --------------------------------------------------------------- concurrency
def _writer(url: str, start, done) -> None:
    with Store.open(url, clock=ManualClock(at_day(300))) as store:
        start.wait(timeout=60)
        for i in range(30):
            remember(store, [claim(f"user:w{i % 3}", "likes", f"thing {i % 5}",
                                   at=day(300) + i, turn=i + 1, session="race",
                                   text=f"I like thing {i % 5}{'!' if i % 2 else '.'}")])
    done.set()


def test_maintenance_beside_a_concurrent_writer(store_url):
    with Store.open(store_url, clock=ManualClock(at_day(1))) as store:
        _cilantro(store)
    ctx = multiprocessing.get_context("fork")
    start, done = ctx.Event(), ctx.Event()
    proc = ctx.Process(target=_writer, args=(store_url, start, done))
    proc.start()
    runs = 0
    with Store.open(store_url, clock=ManualClock(at_day(300))) as store:
        start.set()
        while not done.is_set() or runs < 2:
            store.admin.maintain()
            runs += 1
        proc.join(timeout=120)
        assert proc.exitcode == 0
        store.admin.maintain()
        assert store.admin.maintain().plan.empty
        assert store.audit.verify().ok
        mems = memories(store)
        with store.engine.connect() as conn:
            said = conn.execute(select(func.count()).select_from(MEMORY)).scalar_one()
        assert said == len(mems)
        # every mention of the race's 30 turns is counted on a memory not folded away
        race = sum(m["mentions"] for m in mems.values()
                   if m["subject"].startswith("user:w") and m["merged_into"] is None)
        assert race == 30


# ------------------------------------------------------------------------ CLI
def test_cli_maintain(tmp_path, capsys, monkeypatch):
    from memdesk.app.cli import main

    db = tmp_path / "m.db"
    with Store.open(db, clock=ManualClock(at_day(1))) as store:
        _cilantro(store)
    assert main(["--db", str(db), "maintain", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "merge    user:ann" in out and "dry run (nothing written)" in out
    assert main(["--db", str(db), "maintain", "--json", "--by", "cron"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["changed"] and report["actor"] == "cron" and report["counts"]["merged"] == 1
    assert main(["--db", str(db), "maintain"]) == 0
    assert "nothing to do" in capsys.readouterr().out
    assert main(["--db", str(db), "maintain", "--older-than", "soon"]) == 1
    assert "not an age" in capsys.readouterr().err
    assert main(["--db", str(db), "verify"]) == 0


# ------------------------------------------------------------------ the plan
def test_lineage_end():
    lf = LineageFact
    assert lineage_end([]) is None
    assert lineage_end([lf(1, 1, None, None, None, None)]) is None  # open, no TTL: holds
    assert lineage_end([lf(1, 1, 50, "superseded", None, None),
                        lf(1, 2, None, None, 40, None)]) == (50, "superseded")
    assert lineage_end([lf(1, 1, 90, "expired", None, 30),
                        lf(1, 2, None, None, 30, 30)]) == (30, "expired")
    assert lineage_end([lf(1, 1, None, None, 70, 60)]) == (60, "expired")
    assert lineage_end([lf(1, 1, 20, "retracted", None, None)]) == (20, "retracted")


def test_link_lineages_follow_the_words_and_the_archive_time():
    rows = [StoredMemory(1, "user:a", "t", 2, 10, 100, "stale: x", None, 7, "Same words"),
            StoredMemory(2, "user:a", "t", 1, 200, None, None, None, 9, "same  words"),
            StoredMemory(3, "user:a", "u", 1, 20, 150, "merged into 4", 4, 8, "Other"),
            StoredMemory(4, "user:a", "v", 1, 15, None, None, None, 6, "More")]
    links = [ClaimLink("user:a", 11, 50, "same words", 50),    # before the archive: memory 1
             ClaimLink("user:a", 12, 250, "SAME WORDS", 250),  # after: the new memory 2
             ClaimLink("user:b", 13, 250, "same words", 250),  # another subject: none
             ClaimLink("user:a", 14, 30, "other", 30)]         # memory 3 was folded into 4: counts on 4
    got = {m.id: m.lineages for m in link_lineages(rows, links)}
    assert got == {1: (7, 11), 2: (9, 12), 3: (8,), 4: (6, 8, 14)}


_texts = st.sampled_from(["I love cilantro", "i love cilantro!", "I LOVE  cilantro.",
                          "我对花生过敏", "我对花生过敏。", "周末去杭州", "I love cilantro, really",
                          "jazz", "Jazz!"])


@st.composite
def _memories(draw):
    n = draw(st.integers(1, 30))
    return [MemoryItem(i + 1, draw(st.sampled_from(["user:a", "user:b"])), draw(_texts),
                       draw(st.integers(1, 5)), draw(st.integers(0, 50)),
                       lineages=(draw(st.sampled_from([1, 2])),)) for i in range(n)]


def _applied(items: list[MemoryItem], plan) -> list[MemoryItem]:
    out = {m.id: m for m in items}
    for m in plan.merges:
        out[m.into] = out[m.into]._replace(mentions=m.mentions[1])
        for f in m.folded:
            out[f] = out[f]._replace(archived_at=plan.now, merged_into=m.into,
                                     archive_reason=f"merged into {m.into}")
    return list(out.values())


@settings(max_examples=150, deadline=None)
@given(_memories(), st.floats(0.5, 1.0))
def test_merging_preserves_mentions_loses_no_memory_and_is_idempotent(items, threshold):
    plan = plan_maintenance(items, [], [], {}, now=1000, older_than=0, similarity=threshold)
    by_id = {m.id: m for m in items}
    folded = [f for m in plan.merges for f in m.folded]
    assert len(folded) == len(set(folded)) and not set(folded) & {m.into for m in plan.merges}
    for m in plan.merges:
        for f in m.folded:  # same subject, same facts, and nearly the same words
            a, b = by_id[m.into], by_id[f]
            assert (a.subject, a.lineages) == (b.subject, b.lineages)
            assert near_key(a.text) == near_key(b.text) or jaccard(
                set(grams(a.text, drop_stopwords=False)),
                set(grams(b.text, drop_stopwords=False))) >= threshold
        assert m.mentions[1] == by_id[m.into].mentions + sum(by_id[f].mentions for f in m.folded)
    after = _applied(items, plan)
    assert len(after) == len(items)  # no memory lost
    assert sum(m.mentions for m in after if m.merged_into is None) == sum(
        m.mentions for m in items)
    again = plan_maintenance(after, [], [], {}, now=2000, older_than=0, similarity=threshold)
    assert again.empty


def test_the_plan_rejects_bad_settings():
    with pytest.raises(InvalidInput):
        plan_maintenance([], [], [], {}, now=0, older_than=0, similarity=0)
    with pytest.raises(InvalidInput):
        plan_maintenance([], [], [], {}, now=0, older_than=-1)
