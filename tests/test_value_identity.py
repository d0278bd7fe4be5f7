"""Value identity (issue 28, "value identity"): tastes compare by their head,
so opposites at two granularities meet at the gate; places compare as paths,
so a finer place refines a coarser one and a coarser one is a mention of the
finer. The relation itself (``core.lang.values``), the gates' decisions, and
the store end to end on SQLite and PostgreSQL. The property tests in
``test_properties.py`` check the same rules against the reference model."""

from __future__ import annotations

import pytest
from memdesk import gates
from memdesk.gates import Outcome, Statement
from memdesk.lang.values import Relation, item_head_said, relate

from .helpers import claim, day


@pytest.mark.parametrize("kind, a, b, expected", [
    ("taste", "面条", "牛肉面条", Relation.WITHIN),
    ("taste", "四川火锅", "火锅", Relation.CONTAINS),
    ("taste", "蛋糕", "蛋糕店", Relation.OTHER),  # a shop is not a cake: the head is last
    ("taste", "cheese", "blue cheese", Relation.WITHIN),
    ("taste", "Spicy Noodles", "noodle", Relation.CONTAINS),  # plural folded
    ("taste", "cheese", "cheese cake", Relation.OTHER),
    ("taste", "Tea", " tea ", Relation.SAME),
    ("taste", "tea", "茶", Relation.OTHER),  # never across scripts
    ("place", "成都", "成都市武侯区", Relation.WITHIN),
    ("place", "广州市", "广州天河区", Relation.WITHIN),  # 市 left out when the name goes on
    ("place", "南山区", "深圳南山区", Relation.WITHIN),  # qualified before
    ("place", "深圳", "深圳市", Relation.SAME),
    ("place", "深圳", "南山", Relation.OTHER),  # no gazetteer: not said, not known
    ("place", "Austin", "Austin, Texas", Relation.WITHIN),
    ("place", "Queens, New York City", "New York", Relation.CONTAINS),
    ("place", "York", "New York", Relation.OTHER),
    ("place", "Paris", "巴黎", Relation.OTHER),
    ("organisation", "橙桔", "橙桔网络", Relation.WITHIN),  # named short by its start
    ("organisation", "蓝鲸科技有限公司", "蓝鲸科技", Relation.SAME),  # a legal form is no part of the name
    ("organisation", "Harbourline Logistics", "Harbourline", Relation.CONTAINS),
    ("organisation", "Harbourline Ltd", "harbourline", Relation.SAME),
    ("organisation", "Line", "Harbourline", Relation.OTHER),  # whole words only
    ("organisation", "网", "网易", Relation.OTHER),  # one character names nothing
    ("means", "cycling", "bike", Relation.SAME),  # one way of getting about, said two ways
    ("means", "cycling", "骑车", Relation.SAME),  # in either language
    ("means", "地铁", "地铁2号线", Relation.WITHIN),  # the line is the finer
    ("means", "the 57 bus", "bus", Relation.CONTAINS),
    ("means", "开车", "骑电动车", Relation.OTHER),  # another way
    ("means", "Blue Line", "bus", Relation.OTHER),  # a value naming no way is no way's
    ("item", "拔智齿", "去牙科诊所拔智齿", Relation.WITHIN),  # a dated item named by its head
    ("item", "诊所", "去牙科诊所拔智齿", Relation.OTHER),  # a word inside it is no head
    ("item", "the boat licence", "renew the boat licence before the season", Relation.WITHIN),
    ("item", "season", "renew the boat licence before the season", Relation.OTHER),  # said after its first part
    ("item", "renew the boat licence for the season", "boat licence", Relation.CONTAINS),
])
def test_relation_of_two_values(kind, a, b, expected):
    assert relate(kind, a, b) == expected


def test_an_items_head_said_in_a_text():
    assert item_head_said("去牙科诊所拔智齿", "那下周的拔智齿还去吗？")
    assert not item_head_said("去牙科诊所拔智齿", "诊所那边说什么了？")
    assert item_head_said("renew the boat licence before the season", "did the licence come through?")
    assert not item_head_said("renew the boat licence before the season", "how was the season?")


class Row:
    def __init__(self, id: int, obj: str, polarity: str = "positive", predicate: str = "p",
                 start: int = 0, single: bool = True) -> None:
        self.id, self.object, self.polarity, self.predicate = id, obj, polarity, predicate
        self.scope, self.valid_from, self.valid_to, self.value_json = "global", start, None, None
        self.single_valued, self.start_stated, self.claim_id = single, False, id
        self.start_kind, self.start_latest = "heard", None


def stmt(obj: str, values: str, *, polarity: str = "positive", single: bool = True,
         change: str | None = None, opposite: str | None = None) -> Statement:
    return Statement(obj, None, polarity, "global", single, 100, None, change, 0.9,
                     "user_explicit", False, 100, opposite, None, values)


def test_a_finer_place_refines_the_coarser_one_over_its_whole_interval():
    d = gates.admit(stmt("成都武侯区", "place"), [Row(1, "成都")], turn_id=1, threshold=0.75)
    assert d.outcome == Outcome.APPLIED and d.plan.kind == "refinement"
    assert [r.id for r in d.plan.retire] == [1]
    assert [(p.start, p.source) for p in d.plan.insert] == [(0, None)]  # from the coarser one's start


def test_a_coarser_place_is_a_mention_of_the_finer_one():
    d = gates.admit(stmt("Texas", "place"), [Row(1, "Austin, Texas")], turn_id=1, threshold=0.75)
    assert d.outcome == Outcome.MERGED and d.plan.merge_into.id == 1


def test_an_unrelated_place_still_conflicts_and_a_move_is_still_a_change():
    assert gates.admit(stmt("Lyon", "place"), [Row(1, "Austin, Texas")], turn_id=1,
                       threshold=0.75).outcome == Outcome.CONFLICT
    moved = gates.admit(stmt("Texas", "place", change="evolution"), [Row(1, "Austin, Texas")],
                        turn_id=1, threshold=0.75)
    assert moved.plan.kind == "evolution"  # a change said is a change, not a mention


def test_an_employer_named_short_is_a_mention_and_its_ending_ends_the_full_name():
    full = [Row(1, "橙桔网络")]
    said = gates.admit(stmt("橙桔", "organisation"), full, turn_id=1, threshold=0.75)
    assert said.outcome == Outcome.MERGED and said.plan.merge_into.id == 1
    left = gates.admit(stmt("橙桔", "organisation", change="ending"), full, turn_id=1, threshold=0.75)
    assert left.plan.kind == "ending" and [r.id for r in left.plan.retire] == [1]
    assert [(p.start, p.end) for p in left.plan.insert] == [(0, 100)]
    other = gates.admit(stmt("网易", "organisation", change="ending"), full, turn_id=1, threshold=0.75)
    assert other.plan.retire == ()


def test_a_commute_said_another_way_is_a_mention_and_another_mode_still_conflicts():
    """"I cycle" while "cycling" holds: the same commute, no contradiction; driving instead is one."""
    said = gates.admit(stmt("cycle", "means"), [Row(1, "cycling")], turn_id=1, threshold=0.75)
    assert said.outcome == Outcome.MERGED and said.plan.merge_into.id == 1
    assert gates.admit(stmt("driving", "means"), [Row(1, "cycling")], turn_id=1,
                       threshold=0.75).outcome == Outcome.CONFLICT


def test_without_the_catalog_kind_places_compare_as_before():
    d = gates.admit(stmt("成都武侯区", None), [Row(1, "成都")], turn_id=1, threshold=0.75)
    assert d.outcome == Outcome.CONFLICT


def test_opposite_tastes_at_two_granularities_meet_as_a_polarity_conflict():
    rows = [Row(1, "blue cheese", predicate="likes", single=False)]
    d = gates.admit(stmt("cheese", "taste", polarity="negative", single=False),
                    rows, turn_id=1, threshold=0.75)
    assert d.outcome == Outcome.CONFLICT and d.conflict_kind == gates.ConflictKind.POLARITY
    # the same polarity at two granularities: both hold (likes cheese, likes blue cheese)
    same = gates.admit(stmt("cheese", "taste", single=False), rows, turn_id=1, threshold=0.75)
    assert same.outcome == Outcome.APPLIED and same.plan.kind == "insert"
    # told as a change, the finer taste of the other polarity is closed
    changed = gates.admit(stmt("cheese", "taste", polarity="negative", single=False,
                               change="evolution"), rows, turn_id=1, threshold=0.75)
    assert [r.id for r in changed.plan.retire] == [1]


def test_the_opposite_predicate_meets_at_the_head_too():
    # "dislikes 火锅" is "likes 火锅" negative: it meets "likes 四川火锅"
    rows = [Row(1, "四川火锅", predicate="likes", single=False)]
    d = gates.admit(stmt("火锅", "taste", single=False, opposite="likes"), rows, turn_id=1,
                    threshold=0.75)
    assert d.outcome == Outcome.CONFLICT


def test_store_refines_places_and_meets_tastes(store):
    u = "user:vi"
    store.facts.add(claim(u, "lives_in", "成都", at=day(1), turn=1))
    store.facts.add(claim(u, "lives_in", "成都市武侯区", at=day(2), turn=2))
    store.facts.add(claim(u, "lives_in", "成都", at=day(3), turn=3))  # a mention, not a conflict
    (now,) = store.facts.current(u, "lives_in")
    assert now.object == "成都市武侯区" and now.valid_from == day(1)
    (old,) = [f for f in store.facts.history(u, "lives_in") if f.object == "成都"]
    assert old.retire_reason == "superseded"  # refined: kept as history, not "never true"
    assert store.conflicts.count() == 0

    store.facts.add(claim(u, "likes", "牛肉面条", at=day(4), turn=4))
    summary = store.facts.add(claim(u, "dislikes", "面条", at=day(5), turn=5))
    assert summary.conflicts == 1
    (conflict,) = store.conflicts.list()
    assert sorted(f["object"] for f in conflict.facts) == ["牛肉面条", "面条"]  # held, incoming
