"""Extraction misses a user would not forgive (issue 14, part 6), each fixed as a mechanism of the rule extractor
and tested here in wordings of its own (neither the issue's sentences nor the rule examples of data/rules):

1. a bare self-introduction gives the form of address;
2. a move with no time named gives where the user lives now, as an evolution from the utterance;
3. a budget that goes up or down is an evolution, with the new value;
4. an abstention next to an allergic reaction is an allergy, not a diet;
5. accepting the assistant's offer of the user's usual choice is a confirmed like (the extractor reads the
   preceding assistant turn of the session, also across ingested files);
6. a way of getting around is a commute;
7. a correction that names the wrong value retires it, also in a multi-valued slot (the demo's project:atlas).
"""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from memdesk import Store
from memdesk.extract.rules import extract
from memdesk.pipeline import Turn

CST = timezone(timedelta(hours=8))
BST = timezone(timedelta(hours=1))
WHEN_ZH = datetime(2026, 5, 12, 19, 30, tzinfo=CST)
WHEN_EN = datetime(2026, 5, 12, 10, 15, tzinfo=BST)


def _turns(*texts: str, project: str | None = None) -> tuple[Turn, list[Turn]]:
    """The last text as a user turn, the ones before it as the turns before it; "A: " marks the assistant."""
    zh = any("\u4e00" <= ch <= "\u9fff" for ch in texts[-1])
    when = WHEN_ZH if zh else WHEN_EN
    turns = []
    for n, text in enumerate(texts, start=1):
        speaker = "assistant" if text.startswith("A: ") else "user"
        turns.append(Turn("miss", n, speaker, when + timedelta(minutes=n), text.removeprefix("A: "), "yu",
                          project))
    return turns[-1], turns[:-1]


def facts(*texts: str, project: str | None = None):
    return extract(*_turns(*texts, project=project))


def triples(*texts: str, project: str | None = None) -> set[tuple[str, str, str]]:
    return {(f.predicate, f.object, f.polarity) for f in facts(*texts, project=project)}


def _one_turn_sessions(path: Path, lines: list[tuple[str, str]]) -> None:
    """A conversation file of ``(time, text)`` lines, each the user "yu"'s one turn of a session of its own."""
    path.write_text("".join(json.dumps({"session": f"s{i}", "turn": 1, "speaker": "user", "text": t, "user": "yu",
                                        "time": when}) + "\n" for i, (when, t) in enumerate(lines)), encoding="utf-8")


# ------------------------------------------------------------------ 1. introductions

@pytest.mark.parametrize(("text", "name"), [
    ("Hey, I'm Marcus.", "Marcus"),
    ("I'm Ingrid", "Ingrid"),
    ("Good morning! I'm Aoife Byrne, I need help with a booking.", "Aoife Byrne"),
    ("This is Rahul, following up on yesterday.", "Rahul"),
    ("Morning all, I am Fiona.", "Fiona"),
    ("嗨，我是小雨。", "小雨"),
    ("我是李娜，想订个周末的房间", "李娜"),
    ("大家好，我是老周", "老周"),
    ("您好，我是Emily，刚搬来", "Emily"),
])
def test_a_bare_introduction_gives_the_name(text, name):
    [f] = [f for f in facts(text) if f.predicate == "name"]
    assert (f.object, f.polarity, f.source_kind) == (name, "positive", "user_explicit")


@pytest.mark.parametrize("text", [
    "I'm exhausted today.", "I'm in Norwich.", "I'm pescatarian.", "I'm Welsh.", "I'm Catholic, by the way.",
    "I'm Sorry about earlier.", "Same here.", "This is Amazing!", "I'm Bored.",
    "我是设计师", "我是说下周再定", "我是广东人", "我是双鱼座", "我是新手", "我是老师", "我是周末才有空",
])
def test_states_roles_and_origins_are_no_name(text):
    assert not [f for f in facts(text) if f.predicate == "name"]


def test_a_form_of_address_asked_for_wins_over_the_introduction():
    assert {f.object for f in facts("I'm Katherine, but please call me Kit.") if f.predicate == "name"} == {"Kit"}
    assert {f.object for f in facts("我是王建国，叫我老王就好") if f.predicate == "name"} == {"老王"}


# ------------------------------------------------------------------ 2. a move with no time named

@pytest.mark.parametrize(("text", "place"), [
    ("我们家搬完了，现在在望京。", "望京"),
    ("刚搬了新家，新家在大兴。", "大兴"),
    ("我已经搬过去了，现在住在闵行。", "闵行"),
    ("We moved house! We're in Didsbury now.", "Didsbury"),
    ("Finally relocated, now in Glasgow.", "Glasgow"),
    ("We've moved, our new flat is in Hackney.", "Hackney"),
])
def test_a_move_with_no_time_named_is_an_evolution_from_the_utterance(text, place):
    [f] = facts(text)
    assert (f.predicate, f.object, f.change) == ("lives_in", place, "evolution")
    assert f.event_start is None  # valid from the utterance


@pytest.mark.parametrize("text", ["我搬家了，累死了", "刚搬完家，现在在收拾行李", "下个月我们要搬家",
                                  "We moved the meeting, now in room 4.", "We're moving soon."])
def test_a_move_without_a_home_named_yields_no_place(text):
    assert not [f for f in facts(text) if f.predicate == "lives_in"]


# ------------------------------------------------------------------ 3. a budget that changes

@pytest.mark.parametrize(("text", "amount", "currency"), [
    ("Good news: the budget has gone up to £6,500.", 6500, "GBP"),
    ("The trip budget rose to $2,400.", 2400, "USD"),
    ("Our budget went up by £300 to £1,800.", 1800, "GBP"),
    ("The budget's been trimmed to €900.", 900, "EUR"),
    ("Budget is £7k now, down from £8k.", 7000, "GBP"),
    ("预算涨到八千了", 8000, "CNY"),
    ("婚礼预算调整为十二万", 120000, "CNY"),
    ("装修预算压缩到六万", 60000, "CNY"),
    ("预算又追加了五千，现在一共三万", 30000, "CNY"),
])
def test_a_budget_that_changes_is_an_evolution_with_the_new_value(text, amount, currency):
    [f] = facts(text)
    assert (f.predicate, f.value, f.change) == ("budget_limit", {"amount": amount, "currency": currency},
                                                "evolution")


@pytest.mark.parametrize(("context", "text", "amount", "currency"), [
    ("Our holiday budget is £2,000.", "It just went up by £250.", 2250, "GBP"),
    ("The budget for the kitchen is $9,000.", "That came down by $1,500.", 7500, "USD"),
    ("旅游预算是五千。", "又加了一千", 6000, "CNY"),
])
def test_a_change_by_an_amount_applies_to_the_budget_before_it(context, text, amount, currency):
    [f] = facts(context, "A: Noted.", text)
    assert (f.predicate, f.value, f.change) == ("budget_limit", {"amount": amount, "currency": currency},
                                                "evolution")


def test_a_change_by_an_amount_alone_is_no_limit():
    assert not facts("The budget went up by £400.")
    assert not facts("预算多了两千")


def test_a_budget_raise_supersedes_instead_of_conflicting(tmp_path):
    path = _conversation(tmp_path / "b.jsonl", [
        ("user", "The budget for the garden is £3,000."),
        ("assistant", "Got it, £3,000."),
        ("user", "Update: the budget has gone up to £4,200."),
    ], time="2026-05-12T10:00:00+01:00")
    with Store.open(tmp_path / "m.db") as store:
        summary = store.facts.ingest_file(path)
        assert summary.conflicts == 0
        [row] = store.facts.as_of("user:yu", "budget_limit")
        assert json.loads(row.value_json) == {"amount": 4200, "currency": "GBP"}


# ------------------------------------------------------------------ 4. allergy or diet

@pytest.mark.parametrize(("text", "allergen"), [
    ("腰果不能吃，吃了会过敏", "腰果"),
    ("我不能碰猕猴桃，碰了嘴就肿", "猕猴桃"),
    ("我不吃芒果，会起疹子的", "芒果"),
    ("I can't eat hazelnuts, they give me hives.", "hazelnuts"),
    ("I stay away from strawberries because I break out in a rash.", "strawberries"),
    ("I don't eat crab, my throat swells up.", "crab"),
])
def test_an_abstention_next_to_an_allergic_reaction_is_an_allergy(text, allergen):
    assert triples(text) == {("allergy", allergen, "positive")}


@pytest.mark.parametrize(("text", "expected"), [
    ("我不喝酸奶，喝了肚子疼", {("diet", "酸奶", "negative")}),
    ("I don't drink milk, I'm lactose intolerant.", {("diet", "milk", "negative")}),
    ("我不吃羊肉，另外对虾过敏", {("diet", "羊肉", "negative"), ("allergy", "虾", "positive")}),
    ("I don't eat beef, and I'm allergic to kiwi.", {("diet", "beef", "negative"), ("allergy", "kiwi", "positive")}),
])
def test_an_intolerance_or_another_named_allergen_leaves_the_diet(text, expected):
    assert triples(text) == expected


# ------------------------------------------------------------------ 5. an offer of the usual choice accepted

@pytest.mark.parametrize(("offer", "answer", "liked"), [
    ("Shall I book you a window seat again?", "Yes please, window.", "window seat"),
    ("Do you want the lactose-free latte like last time?", "Yep!", "lactose-free latte"),
    ("Morning! Would you like your usual quiet room?", "Yes, thanks.", "quiet room"),
    ("还是给您订靠过道的吗？", "对，靠过道", "靠过道"),
    ("这次也要无糖的吗？", "要的，谢谢", "无糖"),
    ("要不要照旧订大床房？", "好的", "大床房"),
])
def test_accepting_an_offer_of_the_usual_choice_is_a_confirmed_like(offer, answer, liked):
    [f] = facts(f"A: {offer}", answer)
    assert (f.predicate, f.object, f.polarity, f.source_kind) == ("likes", liked, "positive", "user_confirmed")


@pytest.mark.parametrize(("offer", "answer"), [
    ("Would you like me to book the front row?", "Sure."),  # a one-off booking: no lasting preference
    ("Shall I book you a window seat again?", "Yes, but aisle this time."),  # accepts something else
    ("Want me to email you the receipt again?", "Yes please."),  # an offer to act
    ("要不要我订明天的票？", "好的"),
])
def test_other_acceptances_state_no_like(offer, answer):
    assert not [f for f in facts(f"A: {offer}", answer) if f.predicate == "likes"]


def _conversation(path: Path, turns: list[tuple[str, str]], *, start: int = 1, session: str = "trip",
                  time: str = "2026-05-12T09:00:00+01:00") -> Path:
    lines = [{"session": session, "turn": start + i, "speaker": speaker, "time": time, "text": text, "user": "yu"}
             for i, (speaker, text) in enumerate(turns)]
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    return path


def test_ingest_reads_the_offer_in_the_assistant_turn_before(tmp_path):
    path = _conversation(tmp_path / "c.jsonl", [("assistant", "Shall I book you a window seat again?"),
                                                ("user", "Yes please, window.")])
    with Store.open(tmp_path / "m.db") as store:
        store.facts.ingest_file(path)
        [row] = store.facts.as_of("user:yu", "likes")
        assert (row.object, row.source_kind) == ("window seat", "user_confirmed")


def test_ingest_reads_the_offer_stored_by_an_earlier_file(tmp_path):
    """A conversation ingested turn by turn: the answer's context is the session's stored turns."""
    first = _conversation(tmp_path / "1.jsonl", [("user", "Can you book my train to York?"),
                                                 ("assistant", "Sure. Shall I book you a window seat again?")])
    second = _conversation(tmp_path / "2.jsonl", [("user", "Yes please, window.")], start=3)
    with Store.open(tmp_path / "m.db") as store:
        store.facts.ingest_file(first)
        store.facts.ingest_file(second)
        [row] = store.facts.as_of("user:yu", "likes")
        assert (row.object, row.source_kind) == ("window seat", "user_confirmed")
        assert store.facts.ingest_file(second).fact_rows == 0  # a rerun adds nothing


# ------------------------------------------------------------------ 6. a way of getting around

@pytest.mark.parametrize(("text", "way"), [
    ("I cycle everywhere, I don't own a car.", "cycling"),
    ("We take the tram everywhere.", "tram"),
    ("Mostly I get around on foot.", "walking"),
    ("I run errands by bike, I go everywhere by bike really.", "cycling"),
    ("我出门一般坐地铁", "地铁"),
    ("平时出行都靠电动车", "电动车"),
    ("我去哪儿都是骑自行车", "骑自行车"),
])
def test_a_way_of_getting_around_is_a_commute(text, way):
    assert ("commute", way, "positive") in triples(text)


@pytest.mark.parametrize("text", ["We walked everywhere on holiday in Rome.", "I walk everywhere on the trip.",
                                  "今天出门打车", "明天出门坐高铁"])
def test_one_trip_or_one_day_is_no_way_of_getting_around(text):
    assert not [f for f in facts(text) if f.predicate == "commute"]


# ------------------------------------------------------------------ 7. a correction naming the wrong value

@pytest.mark.parametrize(("before", "text", "right", "wrong"), [
    ("We'll use Sentry for error tracking.", "Sorry, I meant Rollbar, not Sentry.", "Rollbar", "Sentry for error tracking"),
    ("Let's go with Figma.", "Oops, typo: Penpot, not Figma.", "Penpot", "Figma"),
    ("前端框架定了，用Vue。", "说错了，是React，不是Vue。", "React", "Vue"),
    ("云服务就用阿里云吧。", "不是阿里云，是腾讯云，我记混了", "腾讯云", "阿里云"),
])
def test_a_correction_naming_the_wrong_value_retires_it(before, text, right, wrong):
    got = {(f.object, f.polarity, f.change) for f in facts(before, "A: OK.", text, project="site")
           if f.predicate == "decision"}
    assert got == {(right, "positive", "correction"), (wrong, "negative", "correction")}


def test_a_correction_of_a_single_valued_fact_needs_no_retirement_claim():
    [f] = facts("I live in Bath.", "A: Bath, lovely.", "Sorry, I meant Wells, not Bath.")
    assert (f.predicate, f.object, f.change) == ("lives_in", "Wells", "correction")


def test_the_wrong_decision_is_no_longer_current_in_the_store(tmp_path):
    path = tmp_path / "p.jsonl"
    lines = [("user", "For search we'll use Algolia."), ("assistant", "Algolia noted."),
             ("user", "Sorry, I meant Meilisearch, not Algolia.")]
    path.write_text("".join(json.dumps({"session": "p", "turn": i, "speaker": s, "text": t, "user": "yu",
                                        "project": "shop", "time": f"2026-05-12T09:0{i}:00+01:00"}) + "\n"
                            for i, (s, t) in enumerate(lines, start=1)), encoding="utf-8")
    with Store.open(tmp_path / "m.db") as store:
        store.facts.ingest_file(path)
        current = {(f.object, f.polarity) for f in store.facts.as_of("project:shop", "decision")}
        assert current == {("Meilisearch", "positive"), ("Algolia", "negative")}
        [wrong] = [f for f in store.facts.history("project:shop", "decision")
                   if f.object == "Algolia" and f.polarity == "positive"]
        assert wrong.retire_reason == "corrected"


def test_the_demo_atlas_queue_is_redis_streams_after_the_correction(tmp_path):
    from memdesk.app.demo import build_demo

    with Store.open(tmp_path / "demo.db") as store:
        build_demo(store)
        after_fix = datetime(2026, 2, 10, tzinfo=UTC)  # before the move to SQS on 9 March
        decided = {(f.object, f.polarity) for f in store.facts.as_of("project:atlas", "decision", valid_at=after_fix)}
        assert ("Redis Streams", "positive") in decided and ("RabbitMQ", "positive") not in decided
        now = {(f.object, f.polarity) for f in store.facts.as_of("project:atlas", "decision")}
        assert ("RabbitMQ", "positive") not in now and ("SQS", "positive") in now


# ------------------------------------------- a value that is only a time (issue 28)

def test_a_day_is_the_due_day_of_the_thing_moved_not_a_decision_of_its_own():
    """A clause that moves a thing to a day gives the thing due that day; the day alone is no value."""
    found = triples("ok so we'll shift the tasting to next Thursday")
    assert ("deadline", "tasting", "positive") in found
    assert not any(obj.lower().startswith("next thursday") for _, obj, _ in found), found


def test_a_day_chosen_on_its_own_stays_a_decision():
    """With nothing due that day in the clause, the day a team picks is what it decided."""
    assert ("decision", "周四", "positive") in triples("A: 周三还是周四？", "那就定周四吧", project="atlas")


@pytest.mark.parametrize("text", [
    "we'll have to postpone the launch party to June 20",
    "I'd bring the review forward to Monday",
    "let's delay the soft opening until 4 July",
])
def test_every_form_of_a_verb_that_moves_a_date_moves_it(text):
    assert any(p == "deadline" for p, _, _ in triples(text)), triples(text)


# ------------------------------------------------------------------ told as done, not asked for

@pytest.mark.parametrize("text", ["朋友五一过来帮我搬的", "同事上周三帮我修好了"])
def test_help_told_as_done_is_no_request(text):
    """是…的 and 了 tell of help already given: no to-do, though 帮我 and a time are there."""
    assert not [f for f in facts(text) if f.predicate in ("todo", "plan")]


@pytest.mark.parametrize(("text", "budget"), [
    ("暑假预算我又算了下，加到一万二吧", "12000 CNY"),
])
def test_a_period_naming_a_matter_is_no_stated_start(text, budget):
    """暑假预算 is the summer trip's budget, changed now: not a change that started last summer."""
    [f] = [f for f in facts(text) if f.predicate == "budget_limit"]
    assert f.object == budget and f.event_start is None


def test_not_living_somewhere_is_no_taste():
    """不住在 a place tells where one lives (or no longer does), not a dislike of the place."""
    assert not [f for f in facts("我不住在浦东了") if f.predicate == "dislikes"]


# ------------------------------------------- a state said to have ended (issue 28, tenth round)
def _ended(*texts: str) -> set[tuple[str, str]]:
    return {(f.predicate, f.object) for f in facts(*texts) if f.change == "ending"}


@pytest.mark.parametrize(("text", "ended"), [
    ("I resigned from Ocado last month", {("works_at", "Ocado")}),
    ("finally walked out of Greggs lol", {("works_at", "Greggs")}),
    ("got made redundant from Arup on tuesday", {("works_at", "Arup")}),
    ("well I lost my job", {("works_at", "")}),
    ("we moved out at the weekend", {("lives_in", "")}),
    ("I don't cycle to work anymore", {("commute", "cycling")}),
    ("gave up being vegetarian", {("diet", "vegetarian")}),
    ("我上个月从顺丰辞职了", {("works_at", "顺丰")}),
    ("被裁了，唉", {("works_at", "")}),
    ("我们上周从合租房搬出来了", {("lives_in", "")}),
    ("我已经不开车上班了", {("commute", "开车")}),
])
def test_a_state_said_to_have_ended_is_an_ending_of_it(text, ended):
    assert _ended(text) == ended
    # and never the value said as held
    assert not {(f.predicate, f.object) for f in facts(text) if f.change != "ending"} & ended


@pytest.mark.parametrize("text", [
    "thinking of quitting Ocado", "if I resigned I'd have no visa", "I can't drive to work anymore",
    "我打算下个月辞职", "可能年底从公司离职", "我妹搬出去了", "周五要提离职",
])
def test_an_ending_thought_of_planned_or_someone_elses_is_none(text):
    assert _ended(text) == set()


def test_an_ending_happens_after_the_time_it_names_and_a_new_value_begins_where_it_happened():
    [left] = facts("I resigned from Ocado in April")
    assert left.ended_at(WHEN_EN) == datetime(2026, 5, 1, tzinfo=BST)  # by the end of April
    [last] = [f for f in facts("handed in my notice today. my last day is 29 May") if f.change == "ending"]
    assert last.ended_at(WHEN_EN) == datetime(2026, 5, 30, tzinfo=BST)  # the coming 29 May, after it
    moved = facts("we moved out of Hackney, we're in Leyton since the 2nd")
    [ending] = [f for f in moved if f.change == "ending"]
    [home] = [f for f in moved if f.change != "ending"]
    assert home.change == "evolution" and ending.ended_at(WHEN_EN) == home.event_start


def test_an_ending_that_names_nothing_ends_the_value_the_turn_said_before_it(tmp_path):
    """"我在城关二小教了二十年数学 前年退休了": the job said first is the one that ended; it is no new job, and
    the store keeps it in history, not as held now."""
    said = facts("我在城关二小教了二十年数学 前年退休了")
    assert _ended("我在城关二小教了二十年数学 前年退休了") == {("works_at", "城关二小")}
    assert not [f for f in said if f.predicate == "works_at" and f.change == "evolution"]
    assert _ended("我快退休了") == set()
    path = tmp_path / "retired.jsonl"
    path.write_text(json.dumps({"session": "s", "turn": 1, "speaker": "user", "user": "gu",
                                "time": "2026-05-04T09:00:00+08:00",
                                "text": "我在城关二小教了二十年数学 前年退休了"}, ensure_ascii=False) + "\n", encoding="utf-8")
    with Store.open(tmp_path / "m.db") as store:
        store.facts.ingest_file(path)
        assert store.facts.as_of("user:gu", "works_at") == []
        assert [f.object for f in store.facts.history("user:gu") if f.predicate == "works_at"] == ["城关二小"]


def test_the_store_closes_the_job_and_the_home_that_ended(tmp_path):
    path = tmp_path / "life.jsonl"
    lines = [("2026-03-02T09:00:00+00:00", "I work at Ocado and I live in Leeds"),
             ("2026-05-04T09:00:00+00:00", "big news, I resigned from Ocado on friday"),
             ("2026-05-04T09:01:00+00:00", "and we moved out, staying with friends for now")]
    _one_turn_sessions(path, lines)
    with Store.open(tmp_path / "m.db") as store:
        store.facts.ingest_file(path)
        assert store.facts.as_of("user:yu", "works_at") == []
        assert store.facts.as_of("user:yu", "lives_in") == []
        [job] = [f for f in store.facts.as_of("user:yu", "works_at", valid_at=datetime(2026, 4, 1, tzinfo=UTC))]
        assert job.object == "Ocado" and job.valid_to is not None  # kept as history, closed where it ended
        [home] = store.facts.as_of("user:yu", "lives_in", valid_at=datetime(2026, 4, 1, tzinfo=UTC))
        assert home.object == "Leeds"


@pytest.mark.parametrize(("text", "liked"), [
    ("周末就爱去钓钓鱼", "钓鱼"),  # a verb said twice for ease is said once
    ("我最爱画画了", "画画"),  # a word whose characters repeat is no verb said twice
])
def test_a_chinese_verb_said_twice_is_liked_once(text, liked):
    assert [(f.predicate, f.object) for f in facts(text)] == [("likes", liked)]


@pytest.mark.parametrize(("text", "items"), [
    ("我对芒果过敏 菠萝 猕猴桃", {("allergy", "芒果"), ("allergy", "菠萝"), ("allergy", "猕猴桃")}),
    ("周末喜欢骑车 爬爬山 然后回家睡觉", {("likes", "骑车"), ("likes", "爬山")}),
    ("我喜欢喝茶 哈哈", {("likes", "喝茶")}),  # a laugh is no item
])
def test_chinese_items_listed_with_a_blank_for_the_enumeration_comma(text, items):
    assert {(f.predicate, f.object) for f in facts(text)} == items


@pytest.mark.parametrize(("text", "plan"), [
    ("月底搬去滨江，合同都签好了", "搬去滨江"),  # a move told ahead with its day: the plan names where to
    ("下礼拜六搬家 搬到九龙坡那边", "搬到九龙坡"),  # a plan naming only the move is that plan, named
])
def test_a_move_told_ahead_is_a_plan_named_by_where_it_goes(text, plan):
    said = {(f.predicate, f.object) for f in facts(text)}
    assert ("plan", plan) in said
    assert not {p for p, o in said if p == "plan" and o in ("搬家", "搬")}
    [home] = [f for f in facts(text) if f.predicate == "lives_in"]
    assert home.event_start is not None and home.event_start.date() > WHEN_ZH.date()


def test_a_home_named_beside_a_move_ahead_is_not_where_it_goes():
    said = {(f.predicate, f.object) for f in facts("我现在还住嘉定，每天坐地铁进城，下个月打算搬来静安")}
    assert ("plan", "搬来静安") in said
    assert not any(p == "plan" and "嘉定" in o for p, o in said)


def test_a_move_ahead_in_english_names_where_it_goes():
    from memdesk.extract.rules.moves import moves_ahead
    from memdesk.pipeline import ExtractedFact

    text = "we finally move to Galway on the 3rd, the move is booked"
    home = ExtractedFact(subject="user:yu", predicate="lives_in", object="Galway", change="evolution",
                         event_start=WHEN_EN + timedelta(days=3))
    bare = ExtractedFact(subject="user:yu", predicate="plan", object="the move")
    out = moves_ahead([home, bare], text, WHEN_EN)
    assert [(f.predicate, f.object) for f in out] == [("lives_in", "Galway"), ("plan", "move to Galway")]
    assert out[1].event_start == home.event_start
    # told as past (the home began already), or with no move verb before the place: no plan
    assert moves_ahead([dataclasses.replace(home, event_start=WHEN_EN - timedelta(days=3))], text, WHEN_EN) \
        == [dataclasses.replace(home, event_start=WHEN_EN - timedelta(days=3))]
    assert moves_ahead([home], "Galway from the 3rd, finally", WHEN_EN) == [home]


@pytest.mark.parametrize(("text", "home"), [
    ("上周搬去江北那边住了", "江北"),
    ("前天搬来洪山这边了", "洪山"),
    ("去年搬到公司附近了", "公司附近"),  # near a place is not the place
])
def test_a_chinese_move_ends_its_place_before_around_there_and_living_there(text, home):
    assert [f.object for f in facts(text) if f.predicate == "lives_in"] == [home]


def test_a_count_of_days_or_weeks_is_no_change_of_the_budget():
    said = facts("预算三千五。", "A: 好的", "比赛延期了 又多了一周可以练")
    assert not [f for f in said if f.predicate == "budget_limit"]
    raised = facts("预算三千五。", "A: 好的", "预算又加了八百")
    assert [(f.predicate, f.object) for f in raised] == [("budget_limit", "4300 CNY")]


@pytest.mark.parametrize(("text", "thing", "day"), [
    ("年会的场地预订推了一周，改成6月12号了", "年会的场地预订", "2026-06-12"),  # said to move, then its new day
    ("唉 房东那边把交房提前了 改到5月20号", "交房", "2026-05-20"),
])
def test_a_deadline_said_to_move_then_dated_is_due_the_new_day(text, thing, day):
    [moved] = [f for f in facts(text) if f.predicate == "deadline"]
    assert (moved.object, moved.value, moved.change) == (thing, {"due": day}, "evolution")


@pytest.mark.parametrize(("text", "day"), [
    ("周报下周一之前要交 诶等下 领导说提前到周五了", "2026-05-15"),
    ("the invoice is due friday, hang on, they moved it to the 20th", "2026-05-20"),
])
def test_a_date_moved_after_an_item_of_the_same_turn_moves_that_item(text, day):
    [item] = [f for f in facts(text) if f.predicate in ("todo", "deadline", "plan")]
    assert item.event_start is not None and item.event_start.date().isoformat() == day


@pytest.mark.parametrize(("offer", "reply", "item", "day"), [
    # the offer restates the item as a dated phrase no rule reads; the reminder is the weekday said before it
    ("A: Deposit for the caterer by Friday 29 May. Want a reminder the tuesday before?", "yes pls",
     "Deposit for the caterer", "2026-05-26"),
    ("A: 收到，6月20号 社保材料交到街道。要不要前一个周三提醒您？", "好的", "社保材料交到街道", "2026-06-17"),
])
def test_an_offered_reminder_of_a_dated_phrase_is_that_item_on_the_weekday_before(offer, reply, item, day):
    todo, own = facts(offer, reply)  # the reminder, and the item on its own day (after the reminder's)
    assert (todo.predicate, todo.object) == ("todo", item) and own.object == item
    assert todo.event_start is not None and todo.event_start.date().isoformat() == day
    assert own.event_start is not None and own.event_start > todo.event_start


@pytest.mark.parametrize("offer", [
    "A: Thursday 14 May at the Riverside clinic. Want a reminder the day before?",  # only where
    "A: You said Friday 15 May, right? Want a reminder the day before?",  # a question
])
def test_an_offer_restating_no_thing_gives_no_reminder_item(offer):
    assert [f for f in facts(offer, "yes") if f.predicate == "todo"] == []


@pytest.mark.parametrize("text", [
    "the kitchen's not happening this year, forget the reno budget",
    "装修先不搞了 这个预算不要了",
])
def test_a_budget_given_up_ends_whatever_budget_holds(text):
    assert [(f.predicate, f.object, f.change) for f in facts(text) if f.predicate == "budget_limit"] \
        == [("budget_limit", "", "ending")]


def test_a_budget_cut_to_an_amount_is_no_budget_given_up():
    assert [(f.object, f.change) for f in facts("we're dropping the trip budget to 900") if f.predicate == "budget_limit"] \
        == [("900", "evolution")]


def test_the_store_closes_a_budget_given_up(tmp_path):
    path = tmp_path / "b.jsonl"
    lines = [("2026-03-02T09:00:00+00:00", "budget for the van is 15k max"),
             ("2026-04-04T09:00:00+00:00", "no van after all, we can borrow one. so forget the van budget")]
    _one_turn_sessions(path, lines)
    with Store.open(tmp_path / "b.db") as store:
        store.facts.ingest_file(path)
        assert store.facts.as_of("user:yu", "budget_limit") == []
        [kept] = store.facts.as_of("user:yu", "budget_limit", valid_at=datetime(2026, 3, 20, tzinfo=UTC))
        assert kept.object.startswith("15000") and kept.valid_to is not None  # history, closed where it ended


@pytest.mark.parametrize("text", ["let's forget the budget for the time being", "预算先不管了 下个月再说"])
def test_a_budget_put_aside_for_a_while_has_not_ended(text):
    assert [f for f in facts(text) if f.predicate == "budget_limit"] == []


@pytest.mark.parametrize(("offer", "reply", "item", "day", "own_day"), [
    # accepted for a day with "remind me" and nothing else: the item is the offer's, not "提醒我"
    ("A: 6月2号下午去社区医院打疫苗，记好了。需要提醒吗？", "要的 1号下午提醒我吧", "去社区医院打疫苗", "2026-06-01", "2026-06-02"),
    ("A: 周五交物业费。要不要我提前一天提醒你？", "要的 周四提醒我 顺便把水电也交了", "交物业费", "2026-05-14", "2026-05-15"),
])
def test_a_reply_asking_to_be_reminded_on_a_day_accepts_the_offered_item(offer, reply, item, day, own_day):
    """The reminder on the day asked, and the item the offer restates on its own day."""
    said = facts(offer, reply)
    assert [(f.predicate, f.object) for f in said] == [("todo", item), ("plan", item)]
    assert [f.event_start.date().isoformat() for f in said if f.event_start] == [day, own_day]


@pytest.mark.parametrize(("home", "budget", "stored"), [
    ("we live in Dunedin", "trip budget is 2500 dollars tops", "2500 NZD"),  # bare dollars where the money is NZD
    ("we live in Dunedin", "trip budget is 2500 US dollars tops", "2500 USD"),  # said as US dollars
    ("we live in Leeds", "trip budget is 2500 dollars tops", "2500 USD"),  # no dollar at home: as said
])
def test_bare_dollars_are_the_dollars_of_where_the_user_lives(tmp_path, home, budget, stored):
    path = tmp_path / "d.jsonl"
    zone = "+13:00" if "Dunedin" in home else "+00:00"
    lines = [(f"2026-02-02T09:00:00{zone}", home), (f"2026-02-03T09:00:00{zone}", budget)]
    _one_turn_sessions(path, lines)
    with Store.open(tmp_path / "d.db") as store:
        store.facts.ingest_file(path)
        assert [f.object for f in store.facts.as_of("user:yu", "budget_limit")] == [stored]


@pytest.mark.parametrize(("text", "stored"), [
    # a bare amount beside money said in one currency: that currency
    ("then the boiler went, 900 quid. so dropping the kitchen budget to 9k", "9000 GBP"),
    # money in two currencies, or none: the amount as said
    ("rent was 900 quid, now 1000 euros. so dropping the kitchen budget to 9k", "9000"),
    ("so dropping the kitchen budget to 9k", "9000"),
])
def test_a_bare_budget_is_in_the_money_its_turn_speaks_in(tmp_path, text, stored):
    path = tmp_path / "m.jsonl"
    _one_turn_sessions(path, [("2026-02-03T09:00:00+00:00", "my kitchen budget is 10k"), ("2026-02-04T09:00:00+00:00", text)])
    with Store.open(tmp_path / "m.db") as store:
        store.facts.ingest_file(path)
        assert [f.object for f in store.facts.as_of("user:yu", "budget_limit")] == [stored]


@pytest.mark.parametrize(("text", "said"), [
    ("so I got the job!! ST3 at Ninewells, from september", {("works_at", "Ninewells"), ("role", "ST3")}),
    ("I started at the bakery at Harrods last week", {("works_at", "Harrods")}),  # a department: the place
    ("I work at the bbc at mediacity", {("works_at", "Bbc at Mediacity")}),  # a name before "at": left as said
])
def test_an_employer_said_as_a_post_at_a_place_is_that_place(text, said):
    assert {(f.predicate, f.object) for f in facts(text) if f.predicate in ("works_at", "role")} == said


def test_a_new_job_starting_in_a_month_starts_in_the_coming_one():
    [job] = [f for f in facts("I got the job!! ST3 at Ninewells, starting in august") if f.predicate == "works_at"]
    assert job.event_start is not None and (job.event_start.year, job.event_start.month) == (2026, 8)


@pytest.mark.parametrize(("text", "kept"), [
    ("那开业就往后推八天", []),  # only a count
    ("那就定周五吧", ["周五"]),  # a day is chosen
    ("ok let's go with that one", []),  # a pronoun
    ("we're bumping the van budget to 12k", []),  # a budget set anew is the budget's
    ("let's go with 19.99 for the early birds", ["19.99"]),  # a price is something chosen
])
def test_a_decision_names_something_chosen(text, kept):
    assert [f.object for f in facts(text, project="shop") if f.predicate == "decision"] == kept


@pytest.mark.parametrize(("text", "role"), [
    ("hiya, I'm the sound engineer on the EP", "sound engineer"),
    ("im the secretary for the bowls club these days", "secretary"),
    ("I'm the one who booked it", None),  # a person picked out, no role
])
def test_i_am_the_role_of_a_team_is_the_role(text, role):
    assert [f.object for f in facts(text) if f.predicate == "role"] == ([role] if role else [])


def test_a_request_to_the_assistant_after_a_clause_about_someone_else_is_the_speakers():
    said = facts("my uncle is lending us his van. so cancel the van budget")
    assert [(f.predicate, f.change) for f in said] == [("budget_limit", "ending")]
    assert facts("my uncle is lending us his van. works at the garage") == []  # still about the uncle


def test_an_amount_said_to_be_the_max_is_the_budget():
    assert [(f.predicate, f.object) for f in facts("ok fine, 2400 is our hard limit for the car")] \
        == [("budget_limit", "2400")]


def test_a_decision_on_a_budget_option_is_one():
    assert [f.object for f in facts("ok we're going with the budget hotel", project="trip")
            if f.predicate == "decision"] == ["budget hotel"]


@pytest.mark.parametrize(("text", "thing"), [
    ("对了 院里说体检能推迟到6月20号", "体检"),  # said by someone, as what may be
    ("验房可以延到6月20号", "验房"),
])
def test_a_deadline_that_may_move_as_someone_said_is_due_the_new_day(text, thing):
    [moved] = [f for f in facts(text) if f.predicate == "deadline"]
    assert (moved.object, moved.value) == (thing, {"due": "2026-06-20"})


@pytest.mark.parametrize(("question", "answer", "plan"), [
    ("那你打算哪天去苏州面试？", "下周四上午", "去苏州面试"),  # the event after the when-word
    ("哦对，回老家大概几号？", "15号的高铁", "回老家"),  # the event before it
    ("房子打算什么时候装？", "五一以后吧", "装房子"),
    ("你什么时候有空？", "周六吧", None),  # a question of being free asks no event
    ("恭喜！什么时候报到的？", "上周三", None),  # when it was, not what is to come
    ("你妈什么时候过来？", "下个月初", None),  # someone else's coming
    ("啊？那推迟到什么时候了？", "6月1号", None),  # a moved item the question does not name
])
def test_a_time_answering_the_assistants_when_question_dates_the_event_asked_about(question, answer, plan):
    said = [f for f in facts(f"A: {question}", answer) if f.predicate == "plan" and f.confidence >= 0.9]
    assert [f.object for f in said] == ([plan] if plan else [])


@pytest.mark.parametrize(("text", "amount"), [
    ("房租预算五千五，再贵就不看了", 5500),  # a rent with a budget set for it
    ("工资这块的预算三万", 30000),
    ("房租四千五 有点贵", None),  # a rent paid is no budget
    ("房租预算放到6500吧", 6500),  # set to a new amount
    ("装修预算8万 吊顶另算", 80000),  # a bare amount before a blank ends its clause
    ("咱俩预算一万二 这样应该够吧？", 12000),  # the budget said before a question of whether it is enough
])
def test_a_budget_said_in_chat_is_read(text, amount):
    assert [f.value["amount"] for f in facts(text) if f.predicate == "budget_limit"] == ([amount] if amount else [])


def test_a_bare_change_of_amount_in_a_turn_about_a_budget_is_the_budget():
    assert [f.value["amount"] for f in facts("预算不太够 城东那片贵 加到7000吧") if f.predicate == "budget_limit"] \
        == [7000]
    assert [f for f in facts("房子看了三套 涨到7000了") if f.predicate == "budget_limit"] == []  # no budget named


@pytest.mark.parametrize(("text", "amount"), [
    ("talked it over, we'll stretch up to 1350 on rent", 1350),  # a limit set on the rent
    ("max 900 for rent, anything more and I'm eating beans", 900),
    ("rent here is under 900 for a studio", None),  # a rent asked, no limit of the user's
])
def test_a_limit_set_on_the_rent_is_a_budget(text, amount):
    assert [f.value["amount"] for f in facts(text) if f.predicate == "budget_limit"] == ([amount] if amount else [])


def test_a_reflexive_said_for_weight_reads_as_the_plain_clause():
    assert [(f.predicate, f.object) for f in facts("其实我自己是护士")] == [("role", "护士")]
    assert [(f.predicate, f.object) for f in facts("他本人在成都")] == []  # someone else's, never the user's
    assert [(f.predicate, f.object) for f in facts("我本人就住在江北")] == [("lives_in", "江北")]


def test_an_allergy_said_against_what_one_is_names_no_allergen():
    assert triples("我对虾过敏 说出来都丢人 我是开海鲜排档的还过敏") == {("allergy", "虾", "positive")}


@pytest.mark.parametrize(("text", "wanted"), [
    ("我对芒果过敏…不对，是对菠萝过敏", {("allergy", "菠萝")}),  # the slip goes when the new value is read itself
    ("我是护士…不对，是护士长", {("role", "护士长")}),
    ("其实我也在想要不要辞职…我是店长", {("plan", "辞职"), ("role", "店长")}),  # an ellipsis ends the undecided
])
def test_a_value_taken_back_in_the_same_turn_leaves_only_the_one_meant(text, wanted):
    assert {(f.predicate, f.object) for f in facts(text) if f.predicate in ("role", "plan", "allergy")} == wanted


@pytest.mark.parametrize(("text", "plan"), [
    ("we might sell the campervan before winter, havent decided", "sell the campervan"),
    ("我在想要不要考个驾照", "考驾照"),  # considering whether to
    ("我估计年后会考虑去深圳发展", "去深圳发展"),  # unsure, a time and 考虑 between
    ("我在想要不要搬去滨江那边", "搬去滨江"),  # a move considered is a plan, never a home
    ("if the job comes through I might move to Cork", None),  # hangs on a condition
    ("I might be a bit late tonight", None),  # a state, not an intention
])
def test_an_intention_said_undecided_is_a_plan_for_a_reviewer(text, plan):
    said = facts(text)
    assert [(f.predicate, f.object) for f in said] == ([("plan", plan)] if plan else [])
    assert all(f.confidence < 0.75 for f in said)  # below the default review threshold: never written


def test_a_move_said_unsure_is_a_plan_and_a_doubted_allergy_names_nothing():
    said = facts("我可能得搬去佛山 看我老公那边")
    assert [(f.predicate, f.object) for f in said] == [("plan", "搬去佛山")] and said[0].confidence < 0.75
    assert [f for f in facts("吃完桃子嘴巴痒 也搞不清是不是过敏") if f.predicate == "allergy"] == []


@pytest.mark.parametrize(("text", "wanted"), [
    ("阿杰在宁波的港务局做调度", set()),  # someone named: theirs, never the user's
    ("晶晶上周去了深圳 跳槽去了一家律所", set()),  # and the clause after it goes on about them
    ("老周在万科做项目经理 我在链家上班", {("works_at", "链家")}),
    ("天天在家办公 我住江北", {("lives_in", "江北")}),  # a doubled adverb is no name
])
def test_a_clause_opening_on_someone_named_is_not_the_users(text, wanted):
    assert {(f.predicate, f.object) for f in facts(text)} == wanted


@pytest.mark.parametrize(("text", "liked"), [
    ("ive properly got into kayaking this summer", "kayaking"),
    ("took up watercolours after I retired", "watercolours"),
    ("we both love birdwatching, any reserves nearby?", "birdwatching"),
    ("I'm a lifelong Spurs fan, sadly", "Spurs"),
    ("I got into the nursing programme!!", None),  # admitted, no pastime
    ("we love the new house", None),  # a thing of theirs, no taste
])
def test_a_pastime_taken_up_or_followed_is_a_like(text, liked):
    assert [f.object for f in facts(text) if f.predicate == "likes"] == ([liked] if liked else [])


@pytest.mark.parametrize(("text", "wanted"), [
    ("my day job is payroll at Fenwick Logistics", {("role", "payroll"), ("works_at", "Fenwick Logistics")}),
    ("day job is QA engineer at a medical device company", set()),  # no employer named
    ("starting june 2 w harrow roofing as a trainee estimator",
     {("works_at", "Harrow Roofing"), ("role", "trainee estimator")}),
    ("I teach at Hillside Primary", {("role", "teacher"), ("works_at", "Hillside Primary")}),
])
def test_a_job_said_with_its_place_gives_the_employer_and_the_role(text, wanted):
    assert {(f.predicate, f.object) for f in facts(text)} == wanted


def test_a_bare_amount_is_in_the_money_the_users_own_budgets_were_in(tmp_path):
    first, later = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    _one_turn_sessions(first, [("2026-02-02T09:00:00+02:00", "rent budget is R9000 a month max")])
    later.write_text(json.dumps({"session": "s9", "turn": 1, "speaker": "user", "user": "yu",
                                 "time": "2026-03-02T09:00:00+02:00", "text": "ok new plan, rent budget is 9500 max"})
                     + "\n", encoding="utf-8")
    with Store.open(tmp_path / "m.db") as store:
        store.facts.ingest_file(first)
        store.facts.ingest_file(later)  # another ingest: the currency is read back from the store
        assert [f.object for f in store.facts.as_of("user:yu", "budget_limit")] == ["9500 ZAR"]
    alone = tmp_path / "c.jsonl"
    _one_turn_sessions(alone, [("2026-03-02T09:00:00+02:00", "ok new plan, rent budget is 9500 max")])
    with Store.open(tmp_path / "n.db") as store:
        store.facts.ingest_file(alone)  # no money said before, no home: as said
        assert [f.object for f in store.facts.as_of("user:yu", "budget_limit")] == ["9500"]


def test_an_obligation_of_ours_with_a_day_is_a_todo():
    assert [(f.predicate, f.object) for f in facts("we need to pay the roofer by the 12th")] \
        == [("todo", "pay the roofer")]


@pytest.mark.parametrize(("text", "amount"), [
    ("rent wise we're thinking max 1900/month", 1900),  # a limit the user sets on the rent
    ("rent out there i want to keep at 1600 a month max", 1600),
    ("the rent there is under 2000", None),  # the rent asked, no limit of theirs
    ("房租本来预算3800一个月 太破了 咬咬牙提到4500吧", 4500),  # the last said is the budget now
])
def test_a_limit_the_user_sets_on_what_they_pay_is_a_budget(text, amount):
    got = [f.value["amount"] for f in facts(text) if f.predicate == "budget_limit"]
    assert (got[-1:] if got else []) == ([amount] if amount else [])


@pytest.mark.parametrize(("text", "role"), [
    ("got named science head, starts in april", "science head"),
    ("so I was made deputy manager last week", "deputy manager"),
    ("我升了主管", "主管"),
    ("我当上了组长", "组长"),
])
def test_a_role_given_or_risen_to_is_the_role(text, role):
    assert [f.object for f in facts(text) if f.predicate == "role"] == ([role] if role else [])


def test_a_start_named_ahead_in_a_turn_of_what_is_to_come_is_the_coming_one():
    [job] = [f for f in facts("oh and i got a new job!! payroll clerk at Fenwick, starting july 6")
             if f.predicate == "works_at"]
    assert job.event_start is not None and job.event_start.date().isoformat() == "2026-07-06"
    [diet] = facts("I've been vegetarian since January")  # since: the past one
    assert diet.event_start is not None and diet.event_start.date().isoformat() == "2026-01-01"


@pytest.mark.parametrize(("text", "place"), [
    ("right, we've moved, been in Leith since the 5th", "Leith"),
    ("ok news, ive moved! in portobello now with my girlfriend", "Portobello"),
    ("been in a meeting since 9", None),  # no move told
])
def test_where_the_user_is_now_after_a_move(text, place):
    assert [f.object for f in facts(text) if f.predicate == "lives_in"] == ([place] if place else [])


def test_a_day_before_kai_shi_is_when_a_value_began():
    [job] = [f for f in facts("说几个事 我3月2号开始在盒马上班了") if f.predicate == "works_at"]
    assert job.object == "盒马" and job.event_start is not None and job.event_start.date().isoformat() == "2026-03-02"


@pytest.mark.parametrize("text", [
    "news: Zoë got a job there, receptionist at Hotel Miramar",  # a name (accented) as the subject, after a label
    "悦悦换工作了 上礼拜去新公司上班了 现在是财务主管",  # a doubled name changing jobs, and what follows
    "女儿家养了只橘猫叫胖虎",  # a pet at someone else's home
])
def test_someone_elses_news_in_the_users_turn_is_never_the_users(text):
    assert [f for f in facts(text) if f.predicate in ("role", "works_at", "pet")] == []


def test_what_follows_a_clause_about_her_stays_hers_until_the_speakers_budget():
    assert facts("然后她面试过了！！6月1号去协和报到") == []  # her start, not the user's plan
    assert [f.value["amount"] for f in facts("她出一部分钱 预算提到一万吧")] == [10000]  # the speaker's budget
    assert [f.object for f in facts("我对乳胶过敏，吃的没啥过敏") if f.predicate == "allergy"] == ["乳胶"]


def test_a_hedged_plan_naming_a_title_stays_hedged():
    [plan] = facts("I might see Dr. Patel about my knee, not sure")
    assert (plan.predicate, plan.object) == ("plan", "see Dr. Patel about my knee") and plan.confidence < 0.75


# ------------------------------------------------------------------ round 18: job changes, blanks, past dates

def _changes(*texts: str) -> dict[tuple[str, str], str | None]:
    return {(f.predicate, f.object): f.change for f in facts(*texts)}


@pytest.mark.parametrize("text", [
    "工作又换了 在万家福超市当理货员",
    "单位早就辞了 在万家福超市当理货员 累是累点",
])
def test_a_chinese_job_change_said_topic_first_makes_the_employer_and_role_new(text):
    """工作又换了 / 单位辞了 tell of a new job as 换工作了 does: the employer and the role said in the turn are
    evolutions, so they replace the old ones instead of contradicting them."""
    said = _changes(text)
    assert said[("works_at", "万家福超市")] == "evolution"
    assert said[("role", "理货员")] == "evolution"


def test_a_job_left_named_by_its_kind_ends_the_job_held_and_a_date_after_a_blank_starts_the_new_one():
    """学校辞了 names no employer, only what kind of place it was: the job held ends. A blank after the clause's
    closing 了 breaks it, so the new job said after it with its day is read too."""
    said = {(f.predicate, f.object, f.change) for f in facts("学校辞了 8月20号起在青禾书店上班")}
    assert ("works_at", "", "ending") in said
    assert ("works_at", "青禾书店", "evolution") in said


def test_an_english_role_said_as_what_the_user_is_now_keeps_its_employer():
    """"I am now X at Y": the role is new and the employer said with it is read as well."""
    said = _changes("quit the bakery in march, I am now head baker at Millstone Kitchen")
    assert said[("role", "head baker")] == "evolution"
    assert ("works_at", "Millstone Kitchen") in said


def test_a_dated_clause_closed_by_de_tells_when_it_was_done():
    """25号交的: 的 closing a dated clause tells when something happened; no plan for that day."""
    assert not [f for f in facts("报告早就交了 25号交的") if f.predicate == "plan"]
    assert ("plan", "交报告", "positive") in triples("25号交报告")


def test_gai_before_a_verb_of_taking_an_option_is_a_switch_to_another():
    """改租 / 改报 switch to another option: a decision, an evolution; 改坐 is still a way of getting to work."""
    said = {(f.predicate, f.object, f.change) for f in facts("那套两居不租了 房东不靠谱 改租单间")}
    assert ("decision", "租单间", "evolution") in said
    assert ("commute", "公交", "positive") in triples("最近改坐公交上班了")


def test_a_change_to_an_amount_after_the_assistant_spoke_of_a_budget_is_the_budgets_new_amount():
    """Said only as a change to an amount ("knock it down to £700", 那就降到三千吧), after a message about the
    budget: its new amount, an evolution. Not when the message named no budget, nor an amount only asked about."""
    said = {(f.predicate, f.object, f.change) for f in facts("A: Shall I keep the budget at £850?",
                                                               "hmm knock it down to £700 actually")}
    assert said == {("budget_limit", "700 GBP", "evolution")}
    assert ("budget_limit", "3000 CNY", "evolution") in {
        (f.predicate, f.object, f.change) for f in facts("A: 预算四千的话够用吗？", "不用那么多 那就降到三千吧")}
    assert not [f for f in facts("A: How did the truck run today?", "hmm knock it down to £700 actually")
                if f.predicate == "budget_limit"]


def test_an_offered_reminder_moved_to_another_day_is_taken_for_that_day():
    """"can you do the 20th instead, …" / "…换到周五吧" to an offered reminder: the reminder is accepted, due on the
    day the reply names; the reason said beside it is no part of it. Without an offered reminder, nothing."""
    [todo] = [f for f in facts("A: Shall I remind you on the 22nd to pay the gas bill?",
                               "can you do the 20th instead, I'm travelling that week") if f.predicate == "todo"]
    assert "gas bill" in todo.object and todo.event_start.date().isoformat() == "2026-05-20"
    [todo] = [f for f in facts("A: 要不要我下周一提醒你去取体检报告？", "周一要开会 换到周五吧") if f.predicate == "todo"]
    assert "体检报告" in todo.object and todo.event_start.date().isoformat() == "2026-05-15"
    assert not facts("A: The quote came back at 2,400.", "can you do the 20th instead, I'm travelling that week")


def test_a_chinese_job_said_from_a_day_and_a_last_day_said_as_working_until_then():
    """从X起在Y做Z / 从这个月三号开始在镇上Y上班 give the employer (the town before it left off) and the role;
    我干到月底就不干了 ends the job held after that day."""
    said = triples("从下个月起不去了 从四月二号起在青山养老院做厨师")
    assert {("works_at", "青山养老院", "positive"), ("role", "厨师", "positive")} <= said
    assert ("works_at", "石桥砖厂", "positive") in triples("我从这个月二号开始在镇上石桥砖厂上班了")
    [end] = [f for f in facts("砖厂那边 我干到下个月底就不干了") if f.predicate == "works_at"]
    assert (end.object, end.change) == ("", "ending")


def test_a_trade_plied_for_an_employer_and_a_job_said_done_after_a_notice():
    """"i pick for Greenvale Farms most mornings": the employer, its schedule left off; "handed my notice in at
    Greenvale, finished there": the job held ends; "finished there" with no job left said is nothing."""
    assert ("works_at", "Greenvale Farms", "positive") in triples("i pick for Greenvale Farms most mornings")
    [end] = [f for f in facts("handed my notice in at Greenvale, finished there") if f.predicate == "works_at"]
    assert (end.object, end.change) == ("", "ending")
    assert not facts("walked the dog round the park, finished there at 8")


def test_a_home_named_by_whose_it_is_is_its_place():
    """"moved to my aunt Rosa's flat in Galway": the home is Galway, not the aunt's flat."""
    assert ("lives_in", "Galway", "positive") in triples("we moved to my aunt Rosa's flat in Galway last week")


def test_a_reminder_asked_for_us_or_told_to_the_assistant_makes_the_dated_thing_a_to_do():
    """"remind us all …" asks for a reminder as "remind me" does; "…得去X 你到时候提醒我一下" makes the dated
    thing beside it a to-do, its modal left off."""
    assert ("todo", "book the minibus", "positive") in triples("remind us all on the 12th to book the minibus")
    [todo] = [f for f in facts("周六得去驾校交学费 你到时候提醒我一下") if f.predicate == "todo"]
    assert todo.object == "驾校交学费" and todo.event_start is not None


def test_an_english_clause_with_its_own_subject_after_one_about_someone_else_is_read():
    """After "they can't …" or "she wants …", a clause opening on a subject of its own and its verb (the budget
    is …, the party moves to …) is read; one with no subject of its own (allergic to cats, a nurse at X) stays
    theirs."""
    said = {(f.predicate, f.object) for f in facts("they can't host on the 4th but the 11th is free, so the party moves to the 11th")}
    assert ("deadline", "party") in said
    said = triples("she wants a bigger van. budget is around 9 grand, used obviously")
    assert ("budget_limit", "9000", "positive") in said
    assert not [f for f in facts("my flatmate got a cat last week, allergic to dust too, works at Harlow Fabrics")
                if f.subject == "user:yu" and f.predicate in ("allergy", "works_at")]


def test_commutes_of_trades_and_care_work():
    """A vehicle to one's clients or shifts, a drive to a town for work, a lift and a carpool are commutes; a taxi
    to the airport is a trip."""
    assert ("commute", "minibus", "positive") in triples("I take the minibus to my patients every morning")
    assert ("commute", "driving", "positive") in triples("I'll drive to Tregaron for work, about 20 mins")
    assert ("commute", "lift", "positive") in triples("Maud from the farm gives me a lift to work now")
    assert ("commute", "carpool", "positive") in triples("we carpool with the Jensens on weekdays")
    assert not [f for f in facts("we took a taxi to the airport at 5am") if f.predicate == "commute"]


def test_remembering_well_and_a_lifetime_in_a_job_are_no_facts_of_their_own():
    """记得牢 (remembering well) asks for no reminder; 当了一辈子X is X, the lifetime no part of the role."""
    assert not [f for f in facts("这个不用记 我记得牢") if f.predicate == "todo"]
    assert ("role", "护士", "positive") in triples("我当了一辈子护士")


def test_an_offered_reminder_taken_for_a_day_with_a_reason_beside_it():
    """"yes please, thursday is better, I'm on earlies friday" / "周五不在家 你周六提醒我吧": the reminder is taken
    for the day said, the reason beside it left out."""
    [todo] = [f for f in facts("A: Want me to remind you on Friday 15 May to post the forms?",
                               "yes please, thursday is better, I'm on earlies friday") if f.predicate == "todo"]
    assert todo.event_start.date().isoformat() == "2026-05-14"
    [todo] = [f for f in facts("A: 要不要我周五提醒你去取快递？", "周五不在家 你周六提醒我吧") if f.predicate == "todo"]
    assert todo.event_start.date().isoformat() == "2026-05-16"


@pytest.mark.parametrize(("text", "own"), [
    # a noun for a person after 我/我们, listed or not: theirs, never the user's
    ("我们组师弟小吴对 latex 过敏", False),
    ("我师弟对花生过敏", False),
    ("我学姐在腾讯上班", False),
    # the user: an adverb, a word for oneself, a time
    ("我自己对花生过敏", True),
    ("我最近对花生过敏", True),
])
def test_a_chinese_noun_for_a_person_after_my_is_somebody_else(text, own):
    mine = [f for f in facts(text) if f.subject.startswith("user:")]
    assert bool(mine) == own


# ------------------------------------------------------------------ homes a dated move goes to

@pytest.mark.parametrize(("text", "home", "plan", "day"), [
    ("good news, we got a two-bed in Frampton, we're moving on the 23rd", "Frampton", "move to Frampton",
     "2026-05-23"),
    ("在城西租了个小套间 6月2号搬", "城西", "搬到城西", "2026-06-02"),
])
def test_a_move_dated_ahead_goes_to_the_home_taken_beside_it(text, home, plan, day):
    said = {(f.predicate, f.object): f for f in facts(text)}
    assert said[("lives_in", home)].event_start.date().isoformat() == day
    assert said[("lives_in", home)].change == "evolution"
    assert said[("plan", plan)].event_start.date().isoformat() == day


def test_an_english_move_to_a_place_on_a_day_ahead_begins_the_home_that_day():
    said = {(f.predicate, f.object): f for f in facts("we're relocating to Truro on 14 June, the van is booked")}
    assert said[("lives_in", "Truro")].event_start.date().isoformat() == "2026-06-14"


@pytest.mark.parametrize("text", [
    "we're moving to Truro at the end of the month",  # when in the month is not said
    "might move to Truro on 14 June, no idea yet",  # hedged
    "my brother is moving to Truro on 14 June",  # his move
])
def test_no_home_begins_on_a_move_not_dated_to_a_day_or_not_the_users_own(text):
    assert not [f for f in facts(text) if f.predicate == "lives_in" and f.subject == "user:yu"
                and f.object == "Truro" and f.confidence >= 0.9]


def test_a_passing_state_holds_nothing_in_its_own_sentence_only():
    assert ("lives_in", "Leyton", "positive") in triples("on the bus right now. but yes we live in Leyton")
    assert ("lives_in", "Whitby", "positive") in triples("we live in Whitby at the moment")
    assert triples("我现在在高铁上") == set()


@pytest.mark.parametrize("text, name", [("Morning, I'm Major.", "Major"), ("hi, I'm Dean", "Dean")])
def test_one_capitalised_word_after_im_is_a_name_though_a_title_is_spelt_so(text, name):
    assert triples(text) == {("name", name, "positive")}



@pytest.mark.parametrize(("text", "todo"), [
    ("the car tax needs renewing before the 20th", "renew the car tax"),
    ("ugh the gate needs painting, remind me on saturday", "paint the gate"),
])
def test_a_thing_said_to_need_doing_with_a_time_is_the_to_do_of_that_doing(text, todo):
    assert [o for p, o, _ in triples(text) if p in ("todo", "deadline")] == [todo]


def test_a_person_needing_something_done_is_no_to_do():
    assert not [o for p, o, _ in triples("she needs cheering up before the 20th") if p == "todo"]


@pytest.mark.parametrize(("text", "way"), [
    ("for the record I live in Ardara, 15 min drive to the harbour", "driving"),
    ("van got sold. tram for me now, 25 min", "tram"),
    ("Tuesdays I go there with tram, it is quick", "tram"),
    ("gave up on the bus. ive started cycling, 20 min each way", "cycling"),
])
def test_a_way_of_getting_about_said_with_its_journey_is_the_commute(text, way):
    assert ("commute", way, "positive") in triples(text)


def test_a_walk_said_with_its_length_is_where_a_place_is_not_a_commute():
    assert not [o for p, o, _ in triples("the flat is a 10 min walk from the station") if p == "commute"]
