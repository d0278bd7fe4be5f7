"""Focused tests of the rule-based extractor (core.extract.rules)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from memdesk.claims import ClaimInput, to_claims
from memdesk.extract.rules import extract
from memdesk.pipeline import Turn
from memdesk.timeutil import to_us

CST = timezone(timedelta(hours=8))
BST = timezone(timedelta(hours=1))


def _zh(text: str, *, speaker: str = "user", project: str | None = None, n: int = 1) -> Turn:
    return Turn("s-zh", n, speaker, datetime(2026, 4, 8, 20, 0, tzinfo=CST), text, "chen", project)


def _en(text: str, *, speaker: str = "user", project: str | None = None, n: int = 1) -> Turn:
    return Turn("s-en", n, speaker, datetime(2026, 4, 8, 9, 0, tzinfo=BST), text, "nina", project)


def _triples(facts):
    return {(f.predicate, f.object, f.polarity) for f in facts}


def test_zh_preferences_and_atomisation():
    facts = extract(_zh("我喜欢徒步，但是不能吃太辣；另外，我对虾过敏。"))
    assert _triples(facts) == {("likes", "徒步", "positive"), ("diet", "太辣", "negative"),
                               ("allergy", "虾", "positive")}
    assert all(f.subject == "user:chen" and f.scope == "global" for f in facts)
    assert _triples(extract(_zh("我讨厌堵车。"))) == {("dislikes", "堵车", "positive")}


def test_en_preferences_diet_and_condition():
    assert _triples(extract(_en("I hate crowded trains, but I love cycling."))) == {
        ("dislikes", "crowded trains", "positive"), ("likes", "cycling", "positive")}
    assert _triples(extract(_en("I never eat pork."))) == {("diet", "pork", "negative")}
    facts = extract(_en("Coffee is fine as long as it's decaf."))
    assert [(f.predicate, f.object, f.condition) for f in facts] == [("likes", "Coffee", "it's decaf")]


def test_decisions_project_subject_and_rejection():
    facts = extract(_zh("后端用Rust，不用Java。", project="apollo"))
    assert _triples(facts) == {("decision", "Rust", "positive"), ("decision", "Java", "negative")}
    assert {f.subject for f in facts} == {"project:apollo"}
    assert {f.scope for f in facts} == {"project"}
    facts = extract(_en("We're going with Postgres.", project="orion"))
    assert _triples(facts) == {("decision", "Postgres", "positive")}


def test_a_team_to_do_is_the_projects_and_a_personal_one_the_users():
    # the catalog's team predicates (budget, decisions, plans, deadlines, to-dos)
    # said in a project's turn are the project's
    [f] = extract(_en("pls remind me to renew the venue insurance before the 14th", project="orion"))
    assert (f.predicate, f.subject, f.scope) == ("todo", "project:orion", "project")
    [f] = extract(_en("pls remind me to renew the venue insurance before the 14th"))
    assert (f.predicate, f.subject, f.scope) == ("todo", "user:nina", "global")
    # a fact about the speaker stays the speaker's in a project's turn
    facts = extract(_en("I live in Leeds now.", project="orion"))
    assert [(f.predicate, f.subject) for f in facts] == [("lives_in", "user:nina")]


def test_budget_values_and_evolution():
    [f] = extract(_zh("预算砍到一万二了。", project="apollo"))
    assert (f.predicate, f.value, f.change, f.subject) == (
        "budget_limit", {"amount": 12000, "currency": "CNY"}, "evolution", "project:apollo")
    [f] = extract(_en("My budget for the trip is $3,500."))
    assert f.value == {"amount": 3500, "currency": "USD"} and f.change is None
    assert extract(_zh("这双鞋花了我一千五。")) == []


def test_evolution_with_event_time_and_valid_from():
    turn = _zh("上个月我从海淀搬到了朝阳。")
    [f] = extract(turn)
    assert (f.predicate, f.object, f.change) == ("lives_in", "朝阳", "evolution")
    assert f.event_start == datetime(2026, 3, 1, tzinfo=CST)
    [claim] = to_claims(turn, [f])
    assert isinstance(claim, ClaimInput)
    assert claim.valid_from == int(f.event_start.timestamp() * 1_000_000)
    assert claim.source.kind == "user_explicit" and claim.extractor == "rules@1"


def test_corrections():
    ctx = [_en("I live in Leeds.", n=1), _en("Leeds has nice parks.", speaker="assistant", n=2)]
    [f] = extract(_en("Sorry, I meant I live in York.", n=3), ctx)
    assert (f.predicate, f.object, f.change) == ("lives_in", "York", "correction")
    ctx = [_zh("装修预算五万。", n=1), _zh("好的，五万元。", speaker="assistant", n=2)]
    [f] = extract(_zh("不对，是六万不是五万。", n=3), ctx)
    assert (f.predicate, f.value, f.change) == ("budget_limit", {"amount": 60000, "currency": "CNY"},
                                                "correction")


def test_todos_and_commitments():
    assert _triples(extract(_zh("明天提醒我给房东打电话。"))) == {("todo", "给房东打电话", "positive")}
    assert _triples(extract(_zh("我今晚会把周报写完。"))) == {("todo", "写完周报", "positive")}
    facts = extract(_en("Remind me next Monday to renew my passport."))
    assert _triples(facts) == {("todo", "renew my passport", "positive")}
    assert facts[0].event_start == datetime(2026, 4, 13, tzinfo=BST)


def test_personal_facts_pets_commute():
    facts = extract(_zh("我叫阿明，在字节上班，养了一只柴犬，叫团子。"))
    assert _triples(facts) == {("name", "阿明", "positive"), ("works_at", "字节", "positive"),
                               ("pet", "柴犬（团子）", "positive")}
    assert _triples(extract(_en("I cycle to work most days."))) == {("commute", "cycling", "positive")}


def test_skips_questions_small_talk_temporary_and_others():
    for text in ("你喜欢什么电影？", "谢谢，辛苦了！", "我现在在高铁上。", "我妹妹对花生过敏。"):
        assert extract(_zh(text)) == [], text
    for text in ("Do you like opera?", "Thanks, sounds good.", "In a meeting right now.",
                 "My brother lives in Oslo.", "I used to live in Rome."):
        assert extract(_en(text)) == [], text


def test_assistant_turns_and_confirmation():
    assert extract(_en("I've booked a table for four.", speaker="assistant")) == []
    [f] = extract(_en("You seem to be vegan, so I skipped the cheese board.", speaker="assistant"))
    assert (f.predicate, f.object, f.source_kind) == ("diet", "vegan", "agent_inferred")
    ctx = [_zh("您是对芒果过敏吧？", speaker="assistant", n=1)]
    [f] = extract(_zh("对，是的。", n=2), ctx)
    assert (f.predicate, f.object, f.source_kind) == ("allergy", "芒果", "user_confirmed")
    ctx = [_en("Shall I remind you to call the vet tomorrow?", speaker="assistant", n=1)]
    [f] = extract(_en("Yes please.", n=2), ctx)
    assert (f.predicate, f.object, f.source_kind) == ("todo", "call the vet", "user_confirmed")
    assert extract(_en("Not really.", n=2), ctx) == []


def test_eval_runs():
    from tests.benchmarks.eval_extraction import evaluate

    rep = evaluate()
    assert rep.overall.tp + rep.overall.fn > 0


def test_value_only_and_in_turn_corrections():
    ctx = [_zh("我住在浦东花木。", n=1), _zh("好的。", speaker="assistant", n=2)]
    [f] = extract(_zh("不对，我说错了，是北蔡，不是花木。", n=3), ctx)
    assert (f.predicate, f.object, f.change) == ("lives_in", "北蔡", "correction")
    [f] = extract(_zh("我对桃子过敏……哦不对，是对李子过敏。"))
    assert (f.predicate, f.object, f.change) == ("allergy", "李子", "correction")
    ctx = [_en("We'll use Celery for jobs.", project="orion", n=1)]
    f, wrong = extract(_en("Sorry, I meant Dramatiq, not Celery.", project="orion", n=2), ctx)
    assert (f.subject, f.predicate, f.object, f.change) == ("project:orion", "decision", "Dramatiq", "correction")
    # the wrong value, as the earlier turn stored it, retired by a negative correction in its own slot
    assert (wrong.subject, wrong.predicate, wrong.object, wrong.polarity, wrong.change) == (
        "project:orion", "decision", "Celery for jobs", "negative", "correction")


def test_a_fronted_food_only_when_its_verb_has_no_object():
    """The eater put first (妈…不吃牛肉, 西安人不吃羊肉) is no food: the verb's own object is."""
    assert _triples(extract(_zh("就那一次破例，妈还是不吃牛肉的"))) == {("diet", "牛肉", "negative")}
    assert _triples(extract(_zh("做奶茶的自己不能喝奶"))) == {("diet", "奶", "negative")}
    assert _triples(extract(_zh("香菜我是真不吃"))) == {("diet", "香菜", "negative")}


def test_zh_pets_with_names_and_breeds():
    assert _triples(extract(_zh("我家里养了一只英短叫团子，还有一条泰迪叫球球。"))) == {
        ("pet", "英短（团子）", "positive"), ("pet", "泰迪（球球）", "positive")}
    assert _triples(extract(_zh("上个月收养了一只狸花猫。"))) == {("pet", "狸花猫", "positive")}
    assert extract(_zh("楼下看到一只很胖的猫。")) == []
    assert extract(_zh("我同事养了一只柯基。")) == []


def test_zh_commute_plan_and_fronted_preferences():
    assert _triples(extract(_zh("我平时坐地铁上下班。"))) == {("commute", "地铁", "positive")}
    assert _triples(extract(_zh("下周五我们要做季度复盘。"))) == {("plan", "季度复盘", "positive")}
    assert _triples(extract(_zh("火锅倒是挺喜欢的。"))) == {("likes", "火锅", "positive")}
    assert extract(_zh("明天要下雨。")) == []
    assert extract(_zh("这只小狗好可爱啊！")) == []


def test_zh_rejections_are_options_not_verbs():
    facts = extract(_zh("买车的事我想好了：不买油车，就买电车。"))
    assert ("decision", "油车", "negative") in _triples(facts)
    assert extract(_zh("不用再看了，谢谢。")) == []


def test_en_plans_pets_commute_and_number_words():
    assert _triples(extract(_en("On Saturday we're driving to York for a wedding."))) == {
        ("plan", "drive to York for a wedding", "positive")}
    assert _triples(extract(_en("Our terrier Biscuit hates the vacuum."))) >= {("pet", "terrier (Biscuit)", "positive")}
    assert _triples(extract(_en("I usually walk into work."))) == {("commute", "walking", "positive")}
    facts = extract(_en("I can spend about nine hundred euros on the bike."))
    assert [(f.predicate, f.value) for f in facts] == [("budget_limit", {"amount": 900, "currency": "EUR"})]
    assert extract(_en("I spent two hundred dollars on shoes.")) == []
    assert extract(_en("My manager loves stand-ups.")) == []


def test_zh_colloquial_preferences_and_fronted_topics():
    assert _triples(extract(_zh("开会我不怎么喜欢。"))) == {("dislikes", "开会", "positive")}
    assert _triples(extract(_zh("爬山我可不行。"))) == {("dislikes", "爬山", "positive")}
    assert _triples(extract(_zh("我不吃辣，一点都不行。"))) == {("diet", "辣", "negative")}
    assert _triples(extract(_zh("内脏我也不吃。"))) == {("diet", "内脏", "negative")}
    assert _triples(extract(_zh("假期我从来不看邮件。"))) == {("dislikes", "假期看邮件", "positive")}


def test_zh_budget_limits_and_from_to_changes():
    [f] = extract(_zh("装修费用上限，二十万。"))
    assert f.value == {"amount": 200000, "currency": "CNY"}
    [f] = extract(_zh("房子预算从三百万涨到三百五十万。"))
    assert (f.value, f.change) == ({"amount": 3500000, "currency": "CNY"}, "evolution")
    [f] = extract(_zh("这顿饭帮我控制在五百以内。"))
    assert f.value == {"amount": 500, "currency": "CNY"}
    assert extract(_zh("这套房子价格最多三百万。")) == []


def test_zh_commute_and_pets_without_fixed_wording():
    assert _triples(extract(_zh("上班我都是坐轻轨。"))) == {("commute", "轻轨", "positive")}
    [f] = extract(_zh("搬家后改骑摩托车上班了。"))
    assert (f.object, f.change) == ("骑摩托车", "evolution")
    assert extract(_zh("上班打车太贵了。")) == []
    assert _triples(extract(_zh("家里三只猫，英短叫团子，暹罗叫可乐，布偶叫奶盖。"))) == {
        ("pet", "英短（团子）", "positive"), ("pet", "暹罗（可乐）", "positive"), ("pet", "布偶（奶盖）", "positive")}
    assert _triples(extract(_zh("去年冬天领了只小黑狗。"))) == {("pet", "黑狗", "positive")}


def test_confirmations_take_the_assistants_guess_not_its_actions():
    guess = _zh("您应该对海鲜过敏吧？我先把日料店去掉了。", speaker="assistant")
    [f] = extract(_zh("对的对的。", n=2), [guess])
    assert (f.predicate, f.object, f.source_kind) == ("allergy", "海鲜", "user_confirmed")
    ask = _en("Shall I call you Captain Reyes in the summaries?", speaker="assistant")
    [f] = extract(_en("Sure, go ahead.", n=2), [ask])
    assert (f.predicate, f.object, f.source_kind) == ("name", "Captain Reyes", "user_confirmed")
    stated = _en("Noted, you work at Monzo.", speaker="assistant")
    [f] = extract(_en("You got it wrong, it's Revolut, not Monzo.", n=2), [stated])
    assert (f.predicate, f.object, f.change, f.source_kind) == ("works_at", "Revolut", "correction", "user_explicit")


def test_en_preference_and_diet_lexicons():
    assert _triples(extract(_en("I'm a massive sucker for old westerns."))) == {("likes", "old westerns", "positive")}
    assert _triples(extract(_en("I'm obsessed with bouldering."))) == {("likes", "bouldering", "positive")}
    assert _triples(extract(_en("Karaoke isn't my thing."))) == {("dislikes", "Karaoke", "positive")}
    assert _triples(extract(_en("I gave up caffeine in January."))) == {("diet", "caffeine", "negative")}
    assert _triples(extract(_en("Shellfish is a hard no for me."))) == {("diet", "Shellfish", "negative")}
    assert _triples(extract(_en("I'm on a keto diet."))) == {("diet", "keto", "positive")}
    assert extract(_en("I gave up smoking years ago.")) == []
    assert _triples(extract(_en("Planning to visit my sister in Leeds on Friday."))) == {
        ("plan", "visit my sister in Leeds", "positive")}
    assert extract(_en("My sister is vegan.")) == []
    assert _triples(extract(_en("Please don't call me Dr. Shaw, Tom is fine."))) == {("name", "Tom", "positive")}


def test_predicate_carried_across_an_elliptical_clause():
    assert _triples(extract(_zh("我对芒果过敏，菠萝也是。"))) == {
        ("allergy", "芒果", "positive"), ("allergy", "菠萝", "positive")}
    assert _triples(extract(_zh("我不喝酒，可乐也不行。"))) == {
        ("diet", "酒", "negative"), ("diet", "可乐", "negative")}
    assert _triples(extract(_en("I'm allergic to latex, and plasters too."))) == {
        ("allergy", "latex", "positive"), ("allergy", "plasters", "positive")}
    assert _triples(extract(_zh("我不吃辣，一点都不行。"))) == {("diet", "辣", "negative")}


def test_en_subjectless_clauses_and_leading_conditions():
    assert _triples(extract(_en("Adore jazz, can't stand opera though."))) == {
        ("likes", "jazz", "positive"), ("dislikes", "opera", "positive")}
    [f] = extract(_en("If the drive is over two hours, I want a proper lunch stop."))
    assert (f.predicate, f.object, f.condition) == ("likes", "proper lunch stop", "the drive is over two hours")
    assert _triples(extract(_zh("上班我一般骑电动车 二十分钟就到"))) == {("commute", "骑电动车", "positive")}


def test_negative_decisions_phrased_many_ways():
    facts = extract(_zh("前端就用Vue，React不用了。", project="apollo"))
    assert _triples(facts) == {("decision", "Vue", "positive"), ("decision", "React", "negative")}
    facts = extract(_zh("团建就定在千岛湖，露营那个方案算了。", project="apollo"))
    assert ("decision", "露营", "negative") in _triples(facts)
    facts = extract(_en("We'll use Linear. Jira is off the table.", project="orion"))
    assert _triples(facts) == {("decision", "Linear", "positive"), ("decision", "Jira", "negative")}
    facts = extract(_en("Going with the Dell, not the MacBook.", project="orion"))
    assert _triples(facts) == {("decision", "Dell", "positive"), ("decision", "MacBook", "negative")}


def test_en_commute_plans_pets_and_reminders_in_new_wordings():
    [f] = extract(_en("From next week I'm switching to the tram, parking takes ages."))
    assert (f.predicate, f.object, f.change) == ("commute", "tram", "evolution")
    assert _triples(extract(_en("I take Metrolink in most days."))) == {("commute", "Metrolink", "positive")}
    assert _triples(extract(_en("We've got the quarterly review on Thursday."))) == {
        ("plan", "quarterly review", "positive")}
    assert _triples(extract(_en("Going to learn Portuguese sometime next year."))) == {
        ("plan", "learn Portuguese", "positive")}
    assert _triples(extract(_en("We rescued a greyhound called Pixel last month."))) == {
        ("pet", "greyhound (Pixel)", "positive")}
    assert _triples(extract(_en("My gecko Noodle keeps escaping, any tips?"))) == {("pet", "gecko (Noodle)", "positive")}
    assert _triples(extract(_en("Can you give me a nudge to book the MOT on Friday?"))) == {
        ("todo", "book the MOT", "positive")}
    assert extract(_en("If I switched jobs, would I earn more?")) == []


def test_enumerations_split_into_one_fact_per_item():
    assert _triples(extract(_en("I'm allergic to peanuts, shellfish and sesame."))) == {
        ("allergy", "peanuts", "positive"), ("allergy", "shellfish", "positive"), ("allergy", "sesame", "positive")}
    assert _triples(extract(_zh("我不吃牛肉和羊肉。"))) == {("diet", "牛肉", "negative"), ("diet", "羊肉", "negative")}
    assert _triples(extract(_en("I love fish and chips."))) == {("likes", "fish and chips", "positive")}
    assert _triples(extract(_en("I'm off dairy, doctor's orders."))) == {("diet", "dairy", "negative")}
    assert _triples(extract(_zh("我不喜欢坐飞机，高铁还行。"))) == {
        ("dislikes", "坐飞机", "positive"), ("likes", "高铁", "positive")}
    assert _triples(extract(_zh("我家两只狗 一只叫豆豆一只叫球球"))) == {
        ("pet", "狗（豆豆）", "positive"), ("pet", "狗（球球）", "positive")}
    assert extract(_zh("我猫毛过敏，所以不养猫。")) == extract(_zh("我猫毛过敏。"))


def test_confirming_an_offer_to_act_yields_nothing_and_hedges_are_removed():
    offer = _en("Would you like me to book the aisle seat?", speaker="assistant")
    assert extract(_en("sure", n=2), [offer]) == []
    remind = _zh("需要我明天提醒您去取快递吗？", speaker="assistant")
    [f] = extract(_zh("要的，谢谢", n=2), [remind])
    assert (f.predicate, f.object, f.source_kind) == ("todo", "取快递", "user_confirmed")
    [f] = extract(_zh("您大概住在海淀吧", speaker="assistant"))
    assert (f.predicate, f.object, f.source_kind) == ("lives_in", "海淀", "agent_inferred")
    guess = _en("I'll call you Mr Smith then.", speaker="assistant")
    [f] = extract(_en("Actually it's Dr Smith", n=2), [guess])
    assert (f.predicate, f.object, f.change) == ("name", "Dr Smith", "correction")


def test_zh_unpunctuated_connectors():
    assert _triples(extract(_zh("我不吃辣然后对花生过敏"))) == {("diet", "辣", "negative"), ("allergy", "花生", "positive")}
    assert _triples(extract(_zh("我喜欢爬山不喜欢游泳"))) == {("likes", "爬山", "positive"), ("dislikes", "游泳", "positive")}
    assert _triples(extract(_zh("羊肉我吃不惯"))) == {("dislikes", "羊肉", "positive")}


def test_a_plain_assistant_statement_puts_nothing_forward_to_confirm():
    plan = _zh("没问题，按计划4月11日就能完工。", speaker="assistant")
    assert extract(_zh("好的好的。", n=2), [plan]) == []
    booking = _en("Got it. There's a quiet Thai place nearby. Booking for Friday?", speaker="assistant")
    assert extract(_en("Yes, for six people.", n=2), [booking]) == []
    cap = _en("Shall I cap the florist at $800?", speaker="assistant")
    [f] = extract(_en("Yes please.", n=2), [cap])
    assert (f.predicate, f.value, f.source_kind) == ("budget_limit", {"amount": 800, "currency": "USD"}, "user_confirmed")


def test_switching_a_project_decision():
    facts = extract(_en("Heads up: we're dropping Heroku and moving the API to Fly.io.", project="orion"))
    assert {(f.object, f.polarity, f.change) for f in facts} == {
        ("Heroku", "negative", "evolution"), ("Fly.io", "positive", "evolution")}


def test_other_people_and_idle_talk_yield_nothing():
    for text in ("Tom is allergic to cats.", "Priya hates Mondays.", "traffic is terrible today",
                 "Running late, sorry!", "Off to the shops", "There were 200 people, max."):
        assert extract(_en(text)) == [], text
    for text in ("孩子每周都去上游泳课", "我今天累得不行", "今天不行，改天吧", "这个月工资八千"):
        assert extract(_zh(text)) == [], text
    [f] = extract(_zh("老公同意把预算提到三万了。"))
    assert f.value == {"amount": 30000, "currency": "CNY"}


def test_value_only_corrections_and_change_signals():
    [f] = extract(_zh("说错了 是闵行", n=2), [_zh("我住在徐汇")])
    assert (f.predicate, f.object, f.change) == ("lives_in", "闵行", "correction")
    [f] = extract(_en("wait no, Hove", n=2), [_en("I live in Brighton")])
    assert (f.predicate, f.object, f.change) == ("lives_in", "Hove", "correction")
    [left, f] = extract(_en("I quit Deloitte, now at Monzo"))
    assert (left.predicate, left.object, left.change) == ("works_at", "Deloitte", "ending")
    assert (f.predicate, f.object, f.change) == ("works_at", "Monzo", "evolution")
    [f] = extract(_zh("上个月换了工作，现在在快手"))
    assert (f.predicate, f.object, f.change) == ("works_at", "快手", "evolution")
    [f] = extract(_en("Starting next month the food budget goes up to $900."))
    assert (f.value, f.change) == ({"amount": 900, "currency": "USD"}, "evolution")
    # a diet no longer kept ends, and is never read as kept
    [ended] = extract(_zh("我已经不吃素了。"))
    assert (ended.predicate, ended.object, ended.polarity, ended.change) == ("diet", "素食", "positive", "ending")


def test_terse_fragments():
    assert _triples(extract(_en("pescatarian btw"))) == {("diet", "pescatarian", "positive")}
    assert _triples(extract(_en("no dairy please"))) == {("diet", "dairy", "negative")}
    assert extract(_en("no worries")) == []
    assert _triples(extract(_en("sesame - allergic"))) == {("allergy", "sesame", "positive")}
    assert _triples(extract(_en("name's Kit"))) == {("name", "Kit", "positive")}
    assert _triples(extract(_zh("住顺义"))) == {("lives_in", "顺义", "positive")}
    assert extract(_zh("出差住酒店")) == []
    assert _triples(extract(_zh("喜欢钓鱼"))) == {("likes", "钓鱼", "positive")}


def test_assistant_guesses_in_more_wordings():
    [f] = extract(_en("Sounds like you work at Arup?", speaker="assistant"))
    assert (f.predicate, f.object, f.source_kind) == ("works_at", "Arup", "agent_inferred")
    [f] = extract(_en("You seem to be a big tea drinker.", speaker="assistant"))
    assert (f.predicate, f.object) == ("likes", "tea")
    assert extract(_zh("估计您住得离公司挺远的", speaker="assistant")) == []
    facts = extract(_zh("不要银色的，换香槟金的。", project="reno"))
    assert _triples(facts) == {("decision", "银色", "negative"), ("decision", "香槟金", "positive")}


def test_titles_favourites_symptoms_and_named_pets():
    assert _triples(extract(_en("Please call me Dr. Okoye."))) == {("name", "Dr. Okoye", "positive")}
    assert _triples(extract(_en("Prefer Ms. Chen, please"))) == {("name", "Ms. Chen", "positive")}
    assert _triples(extract(_en("My favourite band is Wet Leg"))) == {("likes", "Wet Leg", "positive")}
    assert _triples(extract(_en("Ramen is my absolute favourite"))) == {("likes", "Ramen", "positive")}
    assert _triples(extract(_en("Latex makes me break out in a rash"))) == {("allergy", "latex", "positive")}
    assert _triples(extract(_en("I tend to avoid crowded bars"))) == {("dislikes", "crowded bars", "positive")}
    assert _triples(extract(_en("I try to avoid sugar"))) == {("diet", "sugar", "negative")}
    assert _triples(extract(_en("I'm teetotal"))) == {("diet", "alcohol", "negative")}
    assert _triples(extract(_en("Our two rabbits are called Fig and Plum"))) == {
        ("pet", "rabbit (Fig)", "positive"), ("pet", "rabbit (Plum)", "positive")}
    assert _triples(extract(_en("Our border collie is called Skye"))) == {("pet", "border collie (Skye)", "positive")}
    assert _triples(extract(_en("Home is Glasgow these days"))) == {("lives_in", "Glasgow", "positive")}


def test_zh_fan_words_topics_and_later_pet_names():
    assert _triples(extract(_zh("我是个奶茶控"))) == {("likes", "奶茶", "positive")}
    assert _triples(extract(_zh("我对香水无感"))) == {("dislikes", "香水", "positive")}
    assert _triples(extract(_zh("我吃不了芒果，一吃就过敏"))) == {("allergy", "芒果", "positive")}
    assert _triples(extract(_zh("我养了两只兔子，一只叫雪球，一只叫可可"))) == {
        ("pet", "兔子（雪球）", "positive"), ("pet", "兔子（可可）", "positive")}
    facts = extract(_zh("我们不用Slack，用飞书"))
    assert _triples(facts) == {("decision", "Slack", "negative"), ("decision", "飞书", "positive")}


def test_broad_rules_stay_quiet_on_idle_talk():
    for text in ("喜欢就买吧", "吃不了那么多", "周末去哪玩好呢", "住哪里比较方便？", "不用了，谢谢"):
        assert extract(_zh(text)) == [], text
    for text in ("OK吧", "好吧", "那就这样吧"):
        assert extract(_zh(text, project="apollo")) == [], text
    assert extract(_en("Sounds good, go with whatever you think", project="orion")) == []


def test_more_budget_phrasings():
    [f] = extract(_en("We can stretch to 90k but no further.", project="orion"))
    assert f.value == {"amount": 90000, "currency": None}
    [f] = extract(_zh("活动经费八万。", project="apollo"))
    assert f.value == {"amount": 80000, "currency": "CNY"}
    assert extract(_en("My salary is 60k")) == []


def test_obligations_and_promises_as_todos():
    assert _triples(extract(_en("need to renew my visa before June, remind me"))) == {
        ("todo", "renew my visa", "positive")}
    assert _triples(extract(_en("I have to call the plumber tomorrow"))) == {("todo", "call the plumber", "positive")}
    assert _triples(extract(_en("ping me on Friday so I book the table"))) == {("todo", "book the table", "positive")}
    assert _triples(extract(_zh("我回头把照片发你"))) == {("todo", "发照片", "positive")}
    assert _triples(extract(_zh("我明天得去趟邮局"))) == {("plan", "去邮局", "positive")}


def test_bare_answers_to_the_assistants_question():
    ask = _en("What's the budget for the sofa?", speaker="assistant")
    [f] = extract(_en("around 1.2k", n=2), [ask])
    assert (f.predicate, f.value, f.source_kind) == ("budget_limit", {"amount": 1200, "currency": None}, "user_explicit")
    [f] = extract(_en("Jo is fine", n=2), [_en("What should I call you?", speaker="assistant")])
    assert (f.predicate, f.object) == ("name", "Jo")
    [f] = extract(_en("sesame", n=2), [_en("Any allergies I should know about?", speaker="assistant")])
    assert (f.predicate, f.object) == ("allergy", "sesame")
    [f] = extract(_zh("八千左右", n=2), [_zh("这次预算大概多少？", speaker="assistant")])
    assert f.value == {"amount": 8000, "currency": "CNY"}
    assert extract(_zh("不是，就今天不想吃", n=2), [_zh("您是不是不吃牛肉？", speaker="assistant")]) == []
    assert extract(_en("no, none", n=2), [_en("Any allergies?", speaker="assistant")]) == []


def test_en_decision_past_tense_and_comparatives():
    def d(text):
        return _triples(extract(_en(text, project="web")))
    assert d("We opted for a monorepo.") == {("decision", "monorepo", "positive")}
    assert d("In the end we went with Stripe for payments.") == {("decision", "Stripe", "positive")}
    assert d("Final answer is Next.js.") == {("decision", "Next.js", "positive")}
    assert d("We'll use Svelte instead of React.") == {("decision", "Svelte", "positive"),
                                                      ("decision", "React", "negative")}
    assert d("Postgres over MySQL.") == {("decision", "Postgres", "positive"), ("decision", "MySQL", "negative")}
    assert d("We ditched Jira for Linear.") == {("decision", "Jira", "negative"), ("decision", "Linear", "positive")}
    assert d("We scrapped the mobile app.") == {("decision", "mobile app", "negative")}
    assert d("Azure is out.") == {("decision", "Azure", "negative")}
    for text in ("I picked up the kids from school.", "We dropped by the office yesterday.",
                 "We went with my parents to the beach.", "Should we go with Postgres?", "My team picked Jira.",
                 "The meeting is out of the way."):
        assert d(text) == set(), text


def test_zh_decision_lexicon_and_comparatives():
    def d(text, project="app"):
        return _triples(extract(_zh(text, project=project)))
    assert d("我们最后选了阿里云。") == {("decision", "阿里云", "positive")}
    assert d("改用腾讯会议吧。") == {("decision", "腾讯会议", "positive")}
    assert d("方案B否了。") == {("decision", "方案B", "negative")}
    assert d("用Vue不用React。") == {("decision", "Vue", "positive"), ("decision", "React", "negative")}
    assert d("定下来了，酒店选希尔顿。") == {("decision", "希尔顿", "positive")}
    for text in ("你们最后选了哪个？", "他们组最后选了阿里云。", "老板把方案A否了。", "那就选方案二吧，不用再比了。"):
        assert ("decision", "再比", "positive") not in d(text) and len(d(text)) <= 1, text
    assert d("老板把方案A否了。") == set()


def test_lives_in_variants_and_trips():
    assert _triples(extract(_zh("我住的地方在徐汇。"))) == {("lives_in", "徐汇", "positive")}
    assert _triples(extract(_zh("我目前定居在厦门。"))) == {("lives_in", "厦门", "positive")}
    assert _triples(extract(_en("We're in Islington."))) == {("lives_in", "Islington", "positive")}
    assert _triples(extract(_en("I reside in Oxford."))) == {("lives_in", "Oxford", "positive")}
    for text in ("We're in Rome on holiday.", "I'm up in Edinburgh this weekend.", "We live near each other."):
        assert extract(_en(text)) == [], text
    for text in ("我们住了三天。", "我也住过广州。", "大学那几年我一直住在五道口"):
        assert extract(_zh(text)) == [], text


def test_dislike_lexicon_and_fronted_complaints():
    assert _triples(extract(_zh("挤地铁真的让我崩溃。"))) == {("dislikes", "挤地铁", "positive")}
    assert _triples(extract(_zh("排队这种事我最受不了。"))) == {("dislikes", "排队", "positive")}
    assert _triples(extract(_zh("我不太能接受太吵的餐厅。"))) == {("dislikes", "太吵的餐厅", "positive")}
    assert _triples(extract(_en("I don't much like spicy curries."))) == {("dislikes", "spicy curries", "positive")}
    assert _triples(extract(_en("I find small talk exhausting."))) == {("dislikes", "small talk", "positive")}
    for text in ("I find the new app annoying today.", "My wife can't be doing with musicals.", "I'm no expert."):
        assert extract(_en(text)) == [], text
    for text in ("我今天头疼。", "这件事让我很无语。", "他最讨厌下雨。"):
        assert extract(_zh(text)) == [], text


def test_commute_employer_pet_and_todo_variants():
    assert _triples(extract(_zh("我通勤靠公交。"))) == {("commute", "公交", "positive")}
    assert _triples(extract(_zh("我在一家叫星云科技的公司上班。"))) == {("works_at", "星云科技", "positive")}
    assert _triples(extract(_zh("我有两只猫。"))) == {("pet", "猫", "positive")}
    assert _triples(extract(_en("My employer is Unilever."))) == {("works_at", "Unilever", "positive")}
    assert _triples(extract(_en("I've been at Monzo for three years."))) == {("works_at", "Monzo", "positive")}
    assert _triples(extract(_en("My cat's name is Pepper."))) == {("pet", "cat (Pepper)", "positive")}
    assert _triples(extract(_en("I must remember to buy milk."))) == {("todo", "buy milk", "positive")}
    assert _triples(extract(_en("Note to self: cancel the gym membership."))) == {
        ("todo", "cancel the gym membership", "positive")}
    for text in ("I've been at the airport for three hours.", "My company's name is long."):
        assert extract(_en(text)) == [], text
    for text in ("我有两只手。", "我朋友有两只猫。"):
        assert extract(_zh(text)) == [], text


def test_decision_one_liners_and_user_comparatives():
    def d(text, project="app"):
        return _triples(extract(_en(text, project=project)))
    assert d("Cloudflare it is.") == {("decision", "Cloudflare", "positive")}
    assert d("Decided: no mobile app this quarter.") == {("decision", "mobile app", "negative")}
    assert d("Swap Mailchimp for Brevo.") == {("decision", "Mailchimp", "negative"), ("decision", "Brevo", "positive")}
    assert d("We'll stick to Python.") == {("decision", "Python", "positive")}
    assert _triples(extract(_en("I booked the Hilton instead of the Airbnb."))) == {
        ("decision", "Hilton", "positive"), ("decision", "Airbnb", "negative")}
    for text in ("Decision: not yet.", "Let's stick with it.", "Kubernetes is overkill, we'll skip it.", "Forget it."):
        assert ("decision", "it", "positive") not in d(text) and ("decision", "yet", "negative") not in d(text), text
    assert _triples(extract(_en("Starting Monday I'm switching to the Tube."))) == {("commute", "Tube", "positive")}
    assert _triples(extract(_zh("我们还是用回MySQL吧。", project="app"))) == {("decision", "MySQL", "positive")}
    assert _triples(extract(_zh("还是买iPhone吧，安卓不考虑。"))) == {("decision", "iPhone", "positive"),
                                                                 ("decision", "安卓", "negative")}


def test_en_todo_cues():
    assert _triples(extract(_en("I've got to pick up my prescription on Thursday."))) == {
        ("todo", "pick up my prescription", "positive")}
    assert _triples(extract(_en("Make sure I call the bank tomorrow."))) == {("todo", "call the bank", "positive")}
    assert _triples(extract(_en("Don't forget I need to pay the council tax by the 1st."))) == {
        ("todo", "pay the council tax", "positive")}
    assert _triples(extract(_en("I must remember to buy milk."))) == {("todo", "buy milk", "positive")}


def test_no_decision_or_home_from_idioms_past_choices_and_trips():
    for text in ("We picked apples at the farm last weekend.", "I went with the flow.",
                 "Honestly I chose wrong last time.", "I'm in London for a conference."):
        assert extract(_en(text)) == [], text
    assert extract(_en("Forget about the budget for now.", project="app")) == []


def test_zh_todo_drops_mingzao():
    assert _triples(extract(_zh("别忘了提醒我明早给客户回电话。"))) == {("todo", "给客户回电话", "positive")}


def _ctx(turn_fn, *pairs: tuple[str, str]) -> list[Turn]:
    """Context turns ("u"/"a", text) numbered before the annotated turn."""
    return [turn_fn(text, speaker="user" if who == "u" else "assistant", n=i + 1) for i, (who, text) in enumerate(pairs)]


def _answer(turn_fn, pairs: list[tuple[str, str]], text: str, project: str | None = None):
    return extract(turn_fn(text, n=len(pairs) + 1, project=project), _ctx(turn_fn, *pairs))


def test_confirmed_proposals_and_offered_reminders():
    facts = _answer(_zh, [("a", "这次要不要直接用Vite打包？")], "行，就这么办。")
    assert _triples(facts) == {("decision", "Vite", "positive")} and facts[0].source_kind == "user_confirmed"
    assert _triples(_answer(_en, [("a", "Just to confirm: we'll deploy on Fly.io and not Heroku?")], "correct")) == {
        ("decision", "Fly.io", "positive"), ("decision", "Heroku", "negative")}
    assert _triples(_answer(_en, [("a", "For the blog, shall we just host it on Netlify?")], "yeah let's do that")) == {
        ("decision", "Netlify", "positive")}
    assert _triples(_answer(_en, [("a", "I'll remind you on Friday to return the library books.")], "yes please")) == {
        ("todo", "return the library books", "positive")}
    assert _triples(_answer(_zh, [("a", "那我记下了：周三上午提醒您去取快递。")], "可以。")) == {("todo", "取快递", "positive")}
    assert _triples(_answer(_en, [("a", "Shall I note that you're going with the oak table, not the walnut one?")],
                            "yes, go ahead")) == {("decision", "oak table", "positive"),
                                                  ("decision", "walnut table", "negative")}
    assert _triples(_answer(_zh, [("a", "我理解您是要把例会改到周四下午，对吗？")], "对", project="crm")) == {
        ("decision", "例会改到周四下午", "positive")}


def test_answers_that_correct_a_guess_or_a_stated_value():
    def one(turn_fn, pairs, text):
        facts = _answer(turn_fn, pairs, text)
        assert all(f.change == "correction" for f in facts), text
        return _triples(facts)

    assert one(_zh, [("a", "好的，您住在杭州西湖区，我帮您找了附近的健身房。")], "不是西湖区啦，是拱墅") == {
        ("lives_in", "拱墅", "positive")}
    assert one(_en, [("a", "You're in Hackney, I assume?")], "Nope, Walthamstow actually") == {
        ("lives_in", "Walthamstow", "positive")}
    assert one(_en, [("a", "I'm guessing you drive in to work?")], "No, I cycle.") == {("commute", "cycling", "positive")}
    assert one(_en, [("u", "keep the catering under $1,200")], "oops, typo: $1,800") == {
        ("budget_limit", "1800 USD", "positive")}
    assert one(_en, [("a", "Draft bio: 'Product designer at Canva, based in Sydney.'")],
               "you got it wrong, it's Atlassian not Canva") == {("works_at", "Atlassian", "positive")}
    assert one(_en, [("a", "Since you work at Amazon, try the cafe on 7th.")], "That's wrong, I'm at Microsoft, not Amazon.") \
        == {("works_at", "Microsoft", "positive")}
    assert one(_en, [("u", "I'm an engineer at Arup."), ("a", "Noted - you work at Atkins.")], "no, I said Arup") == {
        ("works_at", "Arup", "positive")}
    assert one(_en, [("u", "I live in Hove."), ("a", "Got it, Hove.")], "sorry, I meant Lewes - Hove's where my gym is") \
        == {("lives_in", "Lewes", "positive")}
    assert one(_zh, [("u", "我住在江北区"), ("a", "好的，您住在江北区。")], "哦不对，说错了，是渝中区，江北是公司那边。") == {
        ("lives_in", "渝中区", "positive")}
    assert one(_zh, [("a", "已为您填写：工作单位是华为。")], "你搞错了，我在荣耀，不是华为。") == {
        ("works_at", "荣耀", "positive")}


def test_bare_answers_about_the_way_to_work():
    for turn_fn, question, answer, expected in (
            (_zh, "顺便问下，您平时怎么去公司？", "骑电驴", "骑电驴"), (_zh, "您一般怎么去单位？", "挤地铁呗", "地铁"),
            (_en, "How do you get to work?", "walk, it's 15 mins", "walking"),
            (_en, "How do you usually get to the office?", "train, mostly", "train")):
        assert _triples(_answer(turn_fn, [("a", question)], answer)) == {("commute", expected, "positive")}, answer


def test_zh_choices_kept_and_dropped_side_by_side():
    assert _triples(extract(_zh("云南线定了，新疆线不去了。"))) == {("decision", "云南线", "positive"),
                                                             ("decision", "新疆线", "negative")}
    assert _triples(extract(_zh("婚礼定了去大理办，三亚不去了。"))) == {("decision", "大理办", "positive"),
                                                               ("decision", "三亚", "negative")}
    assert _triples(extract(_zh("缓存选Redis，Memcached就不用了。", project="api"))) == {
        ("decision", "Redis", "positive"), ("decision", "Memcached", "negative")}
    assert _triples(extract(_zh("登录先接微信，QQ这期不接。", project="app"))) == {
        ("decision", "微信", "positive"), ("decision", "QQ", "negative")}
    assert _triples(extract(_zh("前端就用Svelte吧，Angular这次不考虑了。", project="app"))) == {
        ("decision", "Svelte", "positive"), ("decision", "Angular", "negative")}
    assert _triples(extract(_zh("短信渠道从下月起改成阿里云。", project="app"))) == {("decision", "阿里云", "positive")}
    assert _triples(extract(_zh("别用Jenkins了，太老，直接上GitHub Actions。", project="ci"))) == {
        ("decision", "Jenkins", "negative"), ("decision", "GitHub Actions", "positive")}
    for text in ("用Kotlin还是Java，下周再讨论吧。", "上周末搬到了闵行，终于不用挤地铁了。", "预算改成五万。", "时间定了。"):
        assert not any(f.predicate == "decision" for f in extract(_zh(text, project="app"))), text


def test_en_choices_without_a_subject_and_with_a_purpose():
    assert _triples(extract(_en("went with the Kia Niro in the end, not the Corolla"))) == {
        ("decision", "Kia Niro", "positive"), ("decision", "Corolla", "negative")}
    assert _triples(extract(_en("let's not use Trello for sprints — Linear it is", project="web"))) == {
        ("decision", "Trello", "negative"), ("decision", "Linear", "positive")}
    assert _triples(extract(_en("we switched the mobile app from Ionic to Flutter last month", project="m"))) == {
        ("decision", "Flutter", "positive")}
    assert _triples(extract(_en("Let's go with Adyen for payments. Braintree's out.", project="shop"))) == {
        ("decision", "Adyen", "positive"), ("decision", "Braintree", "negative")}
    assert _triples(extract(_en("I picked the garden venue for the party, not the pub."))) == {
        ("decision", "garden venue", "positive"), ("decision", "pub", "negative")}
    assert extract(_en("The committee decided to postpone the gala.")) == []


def test_former_states_and_other_peoples_facts():
    for text in ("读研那几年我住在南京仙林。", "我初中的时候养过一只兔子。", "我姐在京东上班，住在亦庄那边。",
                 "Back when I was at uni I lived in Leeds.", "The board decided to close the Leeds office."):
        assert extract(_zh(text) if _is_cjk(text) else _en(text)) == [], text
    assert _triples(extract(_zh("我妹妹住在成都，不过我住重庆。"))) == {("lives_in", "重庆", "positive")}
    assert _triples(extract(_zh("给我爸买个按摩椅，预算五千以内。"))) == {("budget_limit", "5000 CNY", "positive")}


def _is_cjk(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def _said(text: str, **kw):
    """The triples extracted from one user turn, in Chinese or English by its script."""
    return _triples(extract(_zh(text, **kw) if _is_cjk(text) else _en(text, **kw)))


def test_tastes_with_fronted_topics_and_other_shapes():
    assert _said("Big fan of ramen, but mushrooms? can't stand them") == {("likes", "ramen", "positive"),
                                                                      ("dislikes", "mushrooms", "positive")}
    assert _said("Love hiking, but karaoke I can't stand.") == {("likes", "hiking", "positive"),
                                                             ("dislikes", "karaoke", "positive")}
    assert _said("no early meetings for me, ever") == {("dislikes", "early meetings", "positive")}
    assert _said("no pork for me") == {("diet", "pork", "negative")}
    assert _said("Totally into pottery at the moment.") == {("likes", "pottery", "positive")}
    assert _said("Email me rather than calling, and please no group chats.") == {("likes", "email", "positive"),
                                                                           ("dislikes", "group chats", "positive")}
    assert _said("If the drive is over three hours I want a hotel stop.") == {("likes", "hotel stop", "positive")}
    assert _said("早起跑步是我坚持了好几年的习惯") == {("likes", "早起跑步", "positive")}
    assert _said("有事发邮件就好，别打电话。") >= {("likes", "邮件沟通", "positive")}
    assert _said("咖啡嘛，只要是手冲我都OK") == {("likes", "手冲", "positive")}
    assert _said("要是航班超过六个小时，我宁可坐高铁") == {("likes", "坐高铁", "positive")}
    assert _said("我最爱喝的是乌龙茶") == {("likes", "乌龙茶", "positive")}
    assert _said("周末我一般在家看电影") == {("likes", "看电影", "positive")}
    assert _said("I drink my tea black") == {("likes", "black tea", "positive")}
    assert _said("I'd prefer aisle seats on short flights") == {("likes", "aisle seats", "positive")}
    assert _said("if it snows, I'd rather work from home") == {("likes", "working from home", "positive")}
    assert _said("I can't stand queues. Also not a fan of voice messages.") == {("dislikes", "queues", "positive"),
                                                                            ("dislikes", "voice messages", "positive")}
    assert ("dislikes", "再贵", "positive") not in _said("预算最多八千，再贵真扛不住了")
    assert not any(f.predicate == "dislikes" for f in extract(_zh("预算提到五千，别给我推荐更贵的了")))
    assert _said("I love a Sunday roast, gravy and all") == {("likes", "Sunday roast", "positive")}


def test_pets_names_homes_and_employers_in_more_shapes():
    assert _said("two rabbits at home, Bun and Clover") == {
        ("pet", "rabbit (Bun)", "positive"), ("pet", "rabbit (Clover)", "positive")}
    assert _said("I'd rather be addressed as Prof. Ng.") == {("name", "Prof. Ng", "positive")}
    assert _said("please just call me Bea, nobody calls me Beatrice except my nan") == {("name", "Bea", "positive")}
    assert _said("别叫我李总，叫我老李就成") == {("name", "老李", "positive")}
    assert _said("明早六点叫我起床") == {("todo", "起床", "positive")}
    assert _said("we moved house to Frome last weekend") == {("lives_in", "Frome", "positive")}
    assert _said("I live just outside Bath") == {("lives_in", "Bath", "positive")}
    assert _said("我老家河南的，现在在郑州金水住") == {("lives_in", "郑州金水", "positive")}
    assert _said("我在西安住了八年了") == {("lives_in", "西安", "positive")}
    assert _said("I work at leeds city council and I train in every day") == {
        ("works_at", "Leeds City Council", "positive"), ("commute", "train", "positive")}
    assert _said("I'm working for Monzo now") == {("works_at", "Monzo", "positive")}
    assert _said("I'm a porter at the Royal Free Hospital, long shifts") == {
        ("works_at", "Royal Free Hospital", "positive"), ("role", "porter", "positive")}
    assert _said("我在一家药企上班，叫恒瑞") == {("works_at", "恒瑞", "positive")}
    assert _said("我家猫咪叫团子，是只英短") == {("pet", "英短（团子）", "positive")}


def test_diets_commutes_plans_and_todos_in_more_shapes():
    assert _said("Been vegetarian for about ten years now.") == {("diet", "vegetarian", "positive")}
    assert _said("I'm doing keto at the moment") == {("diet", "keto", "positive")}
    assert _said("I follow a low-carb diet") == {("diet", "low-carb", "positive")}
    assert _said("我是地中海饮食，油炸的基本不碰") == {("diet", "地中海饮食", "positive"), ("diet", "油炸", "negative")}
    assert _said("最近在戒酒，啤酒一口都不喝了。") == {("diet", "戒酒", "positive"), ("diet", "啤酒", "negative")}
    assert _said("我肠胃不好，冰的也不喝") == {("diet", "冰饮", "negative")}
    assert _said("我对青霉素过敏，另外阿莫西林也不能用。") == {("allergy", "青霉素", "positive"),
                                                    ("allergy", "阿莫西林", "positive")}
    assert _said("下周起我改坐公司班车了") == {("commute", "公司班车", "positive")}
    assert _said("住在杭州未来科技城，公司骑车十分钟") == {("lives_in", "杭州未来科技城", "positive"),
                                                 ("commute", "骑车", "positive")}
    assert _said("I switched from cycling to the bus for work") == {("commute", "bus", "positive")}
    assert _said("6月2日安排压测") == {("plan", "压测", "positive")}
    assert _said("下周四发正式版，大家准备一下。") == {("plan", "发正式版", "positive")}
    assert _said("周末我一般要值班") == set() and _said("以后开会尽量别约在周五下午") == set()
    assert _said("测试报告我明天补齐") == {("todo", "补齐测试报告", "positive")}
    assert _said("周二晚上提醒我把发票打印出来") == {("todo", "打印发票", "positive")}
    assert _said("帮我记着月底前把报销单交上去") == {("todo", "交报销单", "positive")}
    assert _said("帮我记一下，周四前交物业费") == {("todo", "交物业费", "positive")}
    assert _said("I have to renew my passport before June") == {("todo", "renew my passport", "positive")}
    assert _said("Planning to run a marathon in October") == {("plan", "run a marathon", "positive")}
    assert _said("for the new bike I can go up to one and a half thousand pounds") == {
        ("budget_limit", "1500 GBP", "positive")}
    assert _said("I'm allergic to cashews... oh wait, no, it's pistachios") == {("allergy", "pistachios", "positive")}


def test_answers_to_choice_and_when_questions():
    facts = _answer(_zh, [("a", "活动场地您倾向于体育馆还是会展中心？")], "会展吧，体育馆就不考虑了。", project="expo")
    assert _triples(facts) == {("decision", "会展中心", "positive"), ("decision", "体育馆", "negative")}
    assert all(f.subject == "project:expo" for f in facts)
    assert _triples(_answer(_en, [("a", "For the queue, RabbitMQ or Kafka?")], "Kafka. RabbitMQ's off the table.",
                            project="p")) == {("decision", "Kafka", "positive"), ("decision", "RabbitMQ", "negative")}
    assert _answer(_en, [("a", "Tea or coffee?")], "Coffee please") == []  # a choice of the moment
    habit = _answer(_zh, [("a", "你平时用安卓还是苹果？")], "我习惯用安卓，苹果用不惯。")  # a habit, not a decision
    assert not any(f.predicate == "decision" for f in habit)
    assert _triples(_answer(_zh, [("a", "小程序计划什么时候上线？")], "下个月初吧。", project="mini")) == {
        ("plan", "上线小程序", "positive")}
    assert _triples(_answer(_zh, [("a", "周报什么时候能给我一份？")], "明天发你。", project="ops")) == {
        ("todo", "发周报", "positive")}
    assert _triples(_answer(_en, [("a", "When is the electrician booked for?")], "Friday, to fix the lights.",
                            project="home")) == {("plan", "fix the lights", "positive")}
    assert _triples(_answer(_en, [("a", "When do you want to do the data migration?")], "Next week.", project="p")) == {
        ("plan", "data migration", "positive")}
    assert _answer(_zh, [("a", "你什么时候有空？")], "明天吧") == []


def test_budgets_confirmed_answered_changed_and_corrected():
    assert _triples(_answer(_zh, [("a", "场地加布置，建议预算定在六万元，可以吗？")], "行，就按这个来。", project="gala")) == {
        ("budget_limit", "60000 CNY", "positive")}
    assert _triples(_answer(_en, [("a", "I'd suggest capping ad spend at $5,000. Okay?")], "Yes please.", project="ads")) \
        == {("budget_limit", "5000 USD", "positive")}
    assert _triples(_answer(_en, [("a", "What's the cap for the caterer?")], "Two grand.", project="party")) == {
        ("budget_limit", "2000", "positive")}
    facts = _answer(_zh, [("u", "我每月的健身预算是八百。"), ("a", "好的，八百元。")], "从下个月起降到五百。")
    assert _triples(facts) == {("budget_limit", "500 CNY", "positive")} and facts[0].change == "evolution"
    assert _triples(_answer(_en, [("u", "The garden budget is $9k."), ("a", "Got it.")], "We had to cut it to $6k.")) == {
        ("budget_limit", "6000 USD", "positive")}
    facts = _answer(_en, [("u", "Keep the flights under 2k euros."), ("a", "Sure, set to €20,000.")],
                    "No, I said 2,000, not 20,000.")
    assert _triples(facts) == {("budget_limit", "2000 EUR", "positive")} and facts[0].change == "correction"


def test_confirming_what_the_assistant_remembers():
    facts = _answer(_zh, [("a", "我记得您不吃羊肉，这次聚餐我帮您换成了牛肉。")], "对。")
    assert _triples(facts) == {("diet", "羊肉", "negative")} and facts[0].source_kind == "user_confirmed"
    assert _triples(_answer(_en, [("a", "You don't eat gluten, so I'll ask for the GF menu.")], "Right.")) == {
        ("diet", "gluten", "negative")}
    assert _triples(_answer(_en, [("a", "Since you work at Stripe, I'll use their template.")], "No, I'm at Plaid.")) == {
        ("works_at", "Plaid", "positive")}
    assert _answer(_zh, [("a", "按计划周五就能完工。")], "好的好的") == []


def test_more_taste_shapes_from_unseen_text():
    assert _said("I'm in the habit of stretching every morning.") >= {("likes", "stretching every morning", "positive")}
    assert _said("Quiz nights on a Thursday, that's my favourite thing.") == {("likes", "Quiz nights", "positive")}
    assert _said("Cycling, swimming and a bit of yoga, that's my weekend sorted.") == {
        ("likes", "Cycling", "positive"), ("likes", "swimming", "positive"), ("likes", "yoga", "positive")}
    assert _said("Love Greek food, though anything with olives is a no from me.") == {
        ("likes", "Greek food", "positive"), ("dislikes", "olives", "positive")}
    assert _said("Jazz I could listen to all day.") == {("likes", "Jazz", "positive")}
    assert _said("If the train's over three hours, first class.") == {("likes", "first class", "positive")}
    assert _said("If it's mint ice cream, I'll happily eat it.") == {("likes", "mint ice cream", "positive")}
    assert _said("Dark mode, we're skipping it for v1.", project="app") == {("decision", "Dark mode", "negative")}
    assert _said("湘菜我特别爱吃，不过太油的受不了。") >= {("likes", "湘菜", "positive")}
    assert _said("最近改喝无糖豆浆了。") == {("likes", "无糖豆浆", "positive")}
    assert _said("最讨厌别人开会迟到。") == {("dislikes", "别人开会迟到", "positive")}
    assert _said("平时我喜欢爬山、骑车，还有看展。") == {("likes", "爬山", "positive"), ("likes", "骑车", "positive"),
                                           ("likes", "看展", "positive")}
    assert _said("我对芒果、菠萝过敏") == {("allergy", "芒果", "positive"), ("allergy", "菠萝", "positive")}
    assert _said("到时候可别给我点香菜牛肉") == set()
    assert _said("We've got a collie called Bramble and a cat, Juniper.") == {
        ("pet", "collie (Bramble)", "positive"), ("pet", "cat (Juniper)", "positive")}
    assert _said("The design team decided to drop Sketch.") == set()
    assert _said("运营组那边决定用飞书了，我们这边无所谓。") == set()
    assert _said("我在OPPO上班，每天忙得脚不沾地。") == {("works_at", "OPPO", "positive")}
    assert _said("Right, so: Svelte rather than Vue, and the demo is on Friday.", project="web") >= {
        ("decision", "Svelte", "positive"), ("decision", "Vue", "negative")}


def test_english_shapes_from_a_self_review():
    assert _said("I promised Dan I'd send the photos tonight") == {("todo", "send the photos", "positive")}
    assert _said("I'll book the dentist for Monday") == {("todo", "book the dentist", "positive")}
    assert _said("I moved from Bath to Bristol in March") == {("lives_in", "Bristol", "positive")}
    assert _said("I can't have sesame, I'm allergic") == {("allergy", "sesame", "positive")}
    assert _said("I've cut out caffeine completely") == {("diet", "caffeine", "negative")}
    assert _said("Traffic jams stress me out") == {("dislikes", "Traffic jams", "positive")}
    assert _said("We're not hiring a DJ, too pricey", project="party") == {("decision", "DJ", "negative")}
    assert _said("Our beagle, Toast, turns five next week") == {("pet", "beagle (Toast)", "positive")}
    assert _said("I drop the kids at school then cycle to the office") == {("commute", "cycling", "positive")}


def test_bare_answers_read_with_their_question():
    def answer(turn_fn, question, text, project=None):
        return _triples(_answer(turn_fn, [("a", question)], text, project=project))

    assert answer(_en, "Where are you based these days?", "Leeds, near Headingley") == {("lives_in", "Leeds", "positive")}
    assert answer(_en, "Do you have any pets?", "Yep, a spaniel called Ruby") == {("pet", "spaniel (Ruby)", "positive")}
    assert answer(_en, "What kind of films do you like?", "mostly thrillers and a bit of anime") == {
        ("likes", "thrillers", "positive"), ("likes", "anime", "positive")}
    assert answer(_zh, "你周末喜欢干什么？", "钓鱼，还有下棋") == {("likes", "钓鱼", "positive"), ("likes", "下棋", "positive")}
    assert answer(_en, "Do you have any pets?", "No, none") == set()
    assert answer(_zh, "发布日期定了吗？", "定了，7月8号", project="app") == {("plan", "发布", "positive")}
    facts = _answer(_zh, [("u", "我在美团上班"), ("a", "好的")], "现在在快手了，上个月跳的槽")
    assert _triples(facts) == {("works_at", "快手", "positive")} and facts[0].change == "evolution"
    facts = _answer(_en, [("u", "I work at KPMG."), ("a", "Noted.")], "Actually I left, I'm at PwC now")
    assert _triples(facts) == {("works_at", "PwC", "positive")} and facts[0].change == "evolution"


def test_negated_tastes_and_more_choice_shapes():
    assert not any(t[0] in ("likes", "dislikes") for t in _said("我不是不喜欢吃甜的，只是最近在控糖"))
    assert _said("我倒不讨厌出差，就是不喜欢红眼航班") == {("dislikes", "红眼航班", "positive")}
    assert _said("奶茶我是一天都离不开") == {("likes", "奶茶", "positive")}
    assert _said("烧烤是我的最爱") == {("likes", "烧烤", "positive")}
    assert _said("我喜欢得不得了的是榴莲") == {("likes", "榴莲", "positive")}
    assert _said("这事我们就拍板了，用方案C", project="p") == {("decision", "方案C", "positive")}
    assert _said("快递定了，就京东", project="p") == {("decision", "京东", "positive")}
    assert _said("最后敲定了德邦做物流", project="p") == {("decision", "德邦", "positive")}
    assert _said("记一下：周四交网费") == {("todo", "交网费", "positive")}
    assert _said("I'm not a big tea drinker") == {("dislikes", "tea", "positive")}
    assert _said("My go-to is an oat latte") == {("likes", "oat latte", "positive")}
    assert _said("I've never been a fan of escape rooms") == {("dislikes", "escape rooms", "positive")}
    assert _said("Honestly I'd rather not drive") == {("dislikes", "driving", "positive")}
    assert _said("The caterer is confirmed: Green Fork", project="p") == {("decision", "Green Fork", "positive")}


def test_days_of_the_month_and_metro_lines():
    facts = extract(_en("I'm off to Porto on the 20th"))
    assert _triples(facts) == {("plan", "trip to Porto", "positive")}
    assert facts[0].event_start == datetime(2026, 4, 20, tzinfo=BST)  # the coming 20th after 8 April
    assert _said("我每天坐地铁4号线上班") == {("commute", "地铁4号线", "positive")}


def test_shapes_found_on_the_seventh_blind_set():
    assert _triples(_answer(_zh, [("a", "您现在是在网易工作吧？")], "不是，我在米哈游。")) == {("works_at", "米哈游", "positive")}
    assert _triples(_answer(_en, [("a", "Sure. You're at Accenture, right?")], "No, Arup.")) == {("works_at", "Arup", "positive")}
    assert _triples(_answer(_zh, [("a", "方便说一下您在哪家公司吗？")], "平安银行，做风控的。")) == {("works_at", "平安银行", "positive"), ("role", "风控", "positive")}
    assert _triples(_answer(_en, [("a", "Who do you work for?")], "Ocado. Been on the platform team for a year.")) == {
        ("works_at", "Ocado", "positive")}
    assert _triples(_answer(_en, [("a", "Which city are you in?")], "Glasgow, Finnieston to be exact.")) == {
        ("lives_in", "Finnieston", "positive")}
    assert _triples(_answer(_en, [("a", "Any allergies I should know about?")], "Sesame, mainly. Almonds are fine though.")) \
        == {("allergy", "Sesame", "positive")}
    assert _triples(_answer(_zh, [("a", "您有什么过敏的吗？")], "水果里面主要是芒果和菠萝。")) == {
        ("allergy", "芒果", "positive"), ("allergy", "菠萝", "positive")}
    assert _triples(_answer(_en, [("a", "How do you usually get to work?")], "Mostly the tram, unless it rains.")) == {
        ("commute", "tram", "positive")}
    assert _triples(_answer(_zh, [("a", "建议用飞书做协作，成本更低。要定下来吗？")], "可以，就这么办。", project="p")) == {
        ("decision", "飞书", "positive")}
    assert _triples(_answer(_en, [("a", "I'd suggest quarterly reviews. Shall I record that as the decision?")],
                            "Yes, go ahead.", project="p")) == {("decision", "quarterly reviews", "positive")}
    assert _said("Just Tom is fine, nobody calls me Thomas.") == {("name", "Tom", "positive")}
    assert _said("I'm allergic to plums, sorry, no, I mean apricots.") == {("allergy", "apricots", "positive")}
    assert _said("我不碰酒精，晚上会睡不着。") == {("diet", "酒精", "negative")}
    assert _said("I love sushi, but anchovies on pizza are a hard no.") == {("likes", "sushi", "positive"),
                                                                          ("dislikes", "anchovies on pizza", "positive")}
    assert _said("On long trains I'll always pay for a quiet carriage.") == {("likes", "quiet carriage", "positive")}
    assert _said("We've got a poodle called Fig and two cats, Salt and Pepper.") == {
        ("pet", "poodle (Fig)", "positive"), ("pet", "cat (Salt)", "positive"), ("pet", "cat (Pepper)", "positive")}
    assert _said("It's not that I can't drive, I just prefer taking the train to work.") == {("commute", "train", "positive")}
    assert _said("Spreadsheets bore me to tears.") == {("dislikes", "Spreadsheets", "positive")}
    assert _said("本人对加班深恶痛绝。") == {("dislikes", "加班", "positive")}
    assert _said("我对钓鱼喜欢得不得了，高尔夫倒是兴趣不大。") == {("likes", "钓鱼", "positive"),
                                                         ("dislikes", "高尔夫", "positive")}
    assert _said("我是素食饮食，蛋类相关的都不能吃。") >= {("diet", "蛋类", "negative")}
    assert _said("经讨论，本期采用方案二，方案一和方案三均不予采纳。", project="p") == {
        ("decision", "方案二", "positive"), ("decision", "方案一", "negative"), ("decision", "方案三", "negative")}
    assert _said("We've settled on Plan B; Plans A and C are rejected.", project="p") == {
        ("decision", "Plan B", "positive"), ("decision", "Plan A", "negative"), ("decision", "Plan C", "negative")}
    assert _said("我今晚把会议纪要发给你。") == {("todo", "发会议纪要", "positive")}
    assert _said("前端别用Angular了，统一上React；我明天把路由搭好。", project="p") == {
        ("decision", "Angular", "negative"), ("decision", "React", "positive"), ("todo", "搭路由", "positive")}
    assert _said("我们月底开一次总结会。", project="p") >= {("plan", "开一次总结会", "positive")}
    assert _said("I'm on a paleo diet, so no rice or bread for me.") >= {("diet", "rice", "negative"),
                                                                        ("diet", "bread", "negative")}
    assert _said("酒店那边如家就否了，还是订亚朵。", project="p") == {("decision", "如家", "negative"),
                                                             ("decision", "亚朵", "positive")}
    assert _said("提醒我周四交作业，还有周末给外婆打个电话。") == {("todo", "交作业", "positive"),
                                                         ("todo", "给外婆打电话", "positive")}
    assert _said("Remind me to call the bank and, on Friday, to pay the nursery.") == {
        ("todo", "call the bank", "positive"), ("todo", "pay the nursery", "positive")}
    assert _said("我不是不会开车，只是上班更习惯坐地铁。") == {("commute", "地铁", "positive")}


def test_shapes_found_on_the_eighth_blind_set():
    assert _said("我一碰花生嗓子就痒，医生说是过敏。") == {("allergy", "花生", "positive")}
    assert _said("周末我最喜欢去湖边钓鱼，还有就是逛书店。") == {("likes", "湖边钓鱼", "positive"), ("likes", "逛书店", "positive")}
    assert _said("俺就住望京那片儿。") == {("lives_in", "望京", "positive")}
    assert _said("本人现居杭州市西湖区。") == {("lives_in", "杭州市西湖区", "positive")}
    assert _said("最近开始控糖了，可乐全戒了。") == {("diet", "控糖", "positive"), ("diet", "可乐", "negative")}
    assert _said("我也没有不吃牛肉，只是牛杂一口都不碰。") == {("diet", "牛杂", "negative")}
    assert _said("It's not that I don't drink coffee, I just avoid espresso.") == {("diet", "espresso", "negative")}
    assert _said("Nothing ruins my morning quite like a delayed train.") == {("dislikes", "delayed train", "positive")}
    assert _said("I'll happily eat curry, but tripe weirds me out.") == {("likes", "curry", "positive"),
                                                                     ("dislikes", "tripe", "positive")}
    assert _said("Sesame and I don't get along, I'm allergic.") == {("allergy", "Sesame", "positive")}
    assert _said("I'm off the booze for good.") == {("diet", "alcohol", "negative")}
    assert _said("Last year I switched to a strictly vegetarian diet.") == {("diet", "vegetarian", "positive")}
    assert _triples(_answer(_zh, [("a", "您平时上班是开车还是坐公交？")], "公交，一趟直达。")) == {("commute", "公交", "positive")}
    assert _triples(_answer(_zh, [("a", "好的，已记下您住在朝阳区。")], "不对，说错了，是东城区。朝阳那边是公司。")) == {
        ("lives_in", "东城区", "positive")}
    assert _triples(_answer(_en, [("a", "Got it, you're in Salford.")], "Sorry, I meant Stockport, autocorrect again.")) == {
        ("lives_in", "Stockport", "positive")}
    assert _triples(_answer(_zh, [("a", "国庆您想去大理还是厦门？")], "大理吧，厦门去年去过了。")) == {("decision", "大理", "positive")}
    assert _triples(_answer(_en, [("a", "Did you decide between the Pixel and the iPhone?")], "The Pixel. Not buying the iPhone.")) \
        == {("decision", "Pixel", "positive"), ("decision", "iPhone", "negative")}
    assert _triples(_answer(_zh, [("a", "建议住度假村，农家乐就不考虑了。您看行吗？")], "可以，就这么办。", project="trip")) == {
        ("decision", "度假村", "positive"), ("decision", "农家乐", "negative")}
    assert _triples(_answer(_en, [("a", "I'd suggest Render and skipping AWS given the setup time. Shall I note that down?")],
                            "Yes, go ahead.", project="p")) == {("decision", "Render", "positive"), ("decision", "AWS", "negative")}
    assert _triples(_answer(_en, [("a", "Redis or Memcached for the session cache?")], "Redis. Memcached's a no for this one.",
                            project="p")) == {("decision", "Redis", "positive"), ("decision", "Memcached", "negative")}


@pytest.mark.parametrize("offer, reply, due", [
    ("需要我周四上午提醒你去银行续签合同吗？", "可以", "2026-04-02"),
    ("Should I remind you on the 14th to book the MOT?", "yes", "2026-04-14"),
    # however the offer is put: a reminder as a noun, set, wanted
    ("I can't call them myself - want a reminder on Thursday to ring the garage?", "yes pls", "2026-04-02"),
    ("Got it. Should I set a reminder for the 6th to renew the parking permit?", "sure", "2026-04-06"),
])
def test_an_offered_reminder_taken_is_due_when_the_offer_said(offer, reply, due):
    """The reminder the user accepts takes its day from the assistant's offer, and is a to-do, not a decision."""
    t0 = datetime.fromisoformat("2026-03-31T10:00:00+08:00")
    facts = extract(Turn("s", 2, "user", t0, reply, "u"), [Turn("s", 1, "assistant", t0, offer, "u")])
    assert [(f.predicate, f.event_start.date().isoformat() if f.event_start else None) for f in facts] == [
        ("todo", due)]


@pytest.mark.parametrize("before, offer, reply, todo, due", [
    # the offer names no action: the one its message states before it
    ([], "Noted: the grant report is due Friday 10 April. Reminder on the 8th?", "yes please", "grant report",
     "2026-04-08"),
    # else the one the user's turn before it states
    (["我周五得去物业交停车费"], "好的。要不要我周五早上提醒你一下？", "好", "去物业交停车费", "2026-04-03"),
])
def test_an_offered_reminder_that_names_no_action_reminds_of_the_item_said_before_it(before, offer, reply, todo, due):
    t0 = datetime.fromisoformat("2026-03-31T10:00:00+08:00")
    ctx = [Turn("s", 1, "user", t0, text, "u") for text in before] + [Turn("s", 2, "assistant", t0, offer, "u")]
    facts = extract(Turn("s", 3, "user", t0, reply, "u"), ctx)
    said = [(f.predicate, f.object, f.event_start.date().isoformat() if f.event_start else None) for f in facts]
    assert said[0] == ("todo", todo, due)
    # and the item on its own day, when that is after the reminder's (the grant report on the 10th)
    assert [(o, d > due) for _, o, d in said[1:]] == ([(todo, True)] if "grant" in todo else [])
    # with nothing said before it, the reminder is no fact, and never a decision
    bare = offer.split("。" if "。" in offer else ". ")[-1]
    assert extract(Turn("s", 3, "user", t0, reply, "u"), [Turn("s", 2, "assistant", t0, bare, "u")]) == []


@pytest.mark.parametrize("text, fact, due", [
    ("宣传册周四之前发给印刷厂", ("todo", "宣传册发给印刷厂"), "2026-04-02"),
    ("报名表4月20号前交齐就行", ("todo", "报名表交齐"), "2026-04-20"),
    ("奖学金申请今年4月15号截止", ("deadline", "奖学金申请"), "2026-04-15"),
    ("the venue needs the final numbers by April 17", ("deadline", "final numbers"), "2026-04-17"),
])
def test_a_thing_due_by_a_day_said_topic_first_or_as_needed_by(text, fact, due):
    t0 = datetime.fromisoformat("2026-03-31T10:00:00+08:00")
    [f] = extract(Turn("s", 1, "user", t0, text, "u", "expo"))
    assert (f.predicate, f.object, f.subject) == (*fact, "project:expo")
    assert f.event_start is not None and f.event_start.date().isoformat() == due


@pytest.mark.parametrize("offer, todo, due", [
    ("Good luck! Dentist on Friday 10 April. Want a reminder the day before to floss properly?", "floss properly",
     "2026-04-09"),
    ("收到，4月20日前交期中卷。要不要提前一周提醒你？", "交期中卷", "2026-04-13"),
    ("Noted: the permit application closes on 15 April. Reminder two days before?", "permit application", "2026-04-13"),
    # a day of its own wins
    ("Noted: renewal closes 15 April. Want me to remind you the day before, on Monday 13 April?", None, "2026-04-13"),
])
def test_a_reminder_offered_days_before_the_item_is_due_that_many_days_before_it(offer, todo, due):
    t0 = datetime.fromisoformat("2026-03-31T10:00:00+08:00")
    [f] = [f for f in extract(Turn("s", 2, "user", t0, "yes please", "u"), [Turn("s", 1, "assistant", t0, offer, "u")])
           if f.predicate == "todo"]
    assert todo is None or f.object == todo
    assert f.event_start is not None and f.event_start.date().isoformat() == due


@pytest.mark.parametrize("text, todo, due", [
    ("my lease ends in june and the car is due a service in may, so remind me on the 14th to call the garage",
     "call the garage", "2026-04-14"),
    ("下周六是我妈生日，提醒我9号去取蛋糕", "取蛋糕", "2026-04-09"),
])
def test_a_to_do_is_due_on_the_time_said_nearest_it_not_the_turns_first(text, todo, due):
    t0 = datetime.fromisoformat("2026-03-31T10:00:00+08:00")
    facts = [f for f in extract(Turn("s", 1, "user", t0, text, "u")) if f.predicate == "todo"]
    assert [(f.object, f.event_start.date().isoformat() if f.event_start else None) for f in facts] == [(todo, due)]


@pytest.mark.parametrize("text, obj, start", [
    ("我从二月份开始不喝酒了", "酒", "2026-02-01"),
    ("been vegetarian since february, feels great", "vegetarian", "2026-02-01"),
])
def test_a_value_said_with_its_start_starts_then(text, obj, start):
    """"since February", 从二月份开始: the value's stated start, not the turn's time (and no change)."""
    t0 = datetime.fromisoformat("2026-03-31T10:00:00+08:00")
    facts = [f for f in extract(Turn("s", 1, "user", t0, text, "u")) if f.predicate in ("diet", "likes")]
    [f] = [f for f in facts if obj in f.object]
    assert f.start_said and f.change is None and f.event_start is not None
    assert f.event_start.date().isoformat() == start
    [claim] = to_claims(Turn("s", 1, "user", t0, text, "u"), [f])
    assert claim.start_stated and claim.valid_from == to_us(f.event_start)


@pytest.mark.parametrize("text, obj, start", [
    # the turn tells of what is to come elsewhere ("im doing days"): the change its own clause tells is past
    ("yep started at Harlow Clinic on the 13th, no way im doing nights again", "Harlow Clinic", "2026-03-13"),
    ("got a new job at Harlow Clinic, im starting on the 13th", "Harlow Clinic", "2026-04-13"),  # to come
])
def test_a_change_told_as_past_in_its_own_clause_starts_on_the_past_day(text, obj, start):
    t0 = datetime.fromisoformat("2026-03-31T10:00:00+01:00")
    [f] = [f for f in extract(Turn("s", 1, "user", t0, text, "u")) if f.predicate == "works_at"]
    assert f.object == obj and f.event_start is not None and f.event_start.date().isoformat() == start


@pytest.mark.parametrize("reply, decision", [
    ("Marlow then, probably.", "Marlow"),  # an option the message before named, taken with "then"
    ("the later train then", "later train"),
    ("go on then", None),  # a filler
    ("Henley then", None),  # an option the message before never named
])
def test_an_option_the_message_before_named_taken_with_then_is_a_decision(reply, decision):
    t0 = datetime.fromisoformat("2026-03-31T10:00:00+01:00")
    offer = Turn("s", 1, "assistant", t0, "Both are near a station: Marlow or Bourne End, or the later train. Which?", "u")
    got = [f.object for f in extract(Turn("s", 2, "user", t0, reply, "u"), [offer]) if f.predicate == "decision"]
    assert got == ([decision] if decision else [])


@pytest.mark.parametrize("text, facts", [
    # what someone said is theirs; what the user goes on with after it is the user's again
    ("车的话 朋友阿强说二手车更划算 就买二手车吧", {("decision", "二手车")}),
    # a person named after what they do ("灯光设计小林") is the subject: nothing of theirs is the user's
    ("灯光设计小林对芒果过敏 我明天跟剧场说一下", set()),
    ("我叫徐彤，在杭州阿里做前端，住西溪那边", {("name", "徐彤"), ("role", "前端"), ("works_at", "杭州阿里"),
                                          ("lives_in", "西溪")}),  # 在杭州 before 阿里 is no description of a person
])
def test_a_named_person_and_what_they_said_are_theirs_not_what_follows(text, facts):
    t0 = datetime.fromisoformat("2026-03-31T10:00:00+08:00")
    assert {(f.predicate, f.object) for f in extract(Turn("s", 1, "user", t0, text, "u"))} == facts


def test_a_start_still_to_come_is_no_stated_start():
    t0 = datetime.fromisoformat("2026-03-31T10:00:00+08:00")
    facts = extract(Turn("s", 1, "user", t0, "我下个月开始吃素", "u"))
    assert not any(f.start_said for f in facts)


@pytest.mark.parametrize("text", ["我们周五之前聊聊吧", "三天前我去了趟医院", "I need a break before Friday"])
def test_a_day_with_before_is_not_always_a_thing_due(text):
    t0 = datetime.fromisoformat("2026-03-31T10:00:00+08:00")
    facts = extract(Turn("s", 1, "user", t0, text, "u", "expo"))
    assert not [f for f in facts if f.predicate in ("todo", "deadline")], facts


def test_a_budget_said_without_its_currency_takes_the_earlier_budgets():
    t0 = datetime.fromisoformat("2026-05-01T10:00:00+01:00")
    before = [Turn("s", 1, "user", t0, "The offsite budget is €3,000", "u")]
    facts = extract(Turn("s", 2, "user", t0, "we're cutting the budget to 2.5k", "u"), before)
    assert [(f.object, f.value, f.change) for f in facts] == [
        ("2500 EUR", {"amount": 2500, "currency": "EUR"}, "evolution")]
    alone = extract(Turn("s", 2, "user", t0, "we're cutting the budget to 2.5k", "u"))
    assert [f.value for f in alone] == [{"amount": 2500, "currency": None}]


@pytest.mark.parametrize("text", ["不用了，我自己记得住", "不用啦我自己记着～", "不用啦，我会记着的"])
def test_declining_an_offered_reminder_is_neither_a_todo_nor_a_decision(text):
    prev = _zh("要不要我到时候提醒你？", speaker="assistant", n=1)
    got = extract(_zh(text, n=2), [prev])
    assert not [f for f in got if f.predicate in ("todo", "decision")], got


def test_a_number_in_a_date_is_no_corrected_budget():
    ctx = [_en("car budget is R250k max", n=1), _en("Noted.", speaker="assistant", n=2)]
    facts = extract(_en("wait no, the UCT one is 31 july, 30 june is wits", n=3), ctx)
    assert not any(f.predicate == "budget_limit" for f in facts)
    [f] = extract(_en("no, I said 200k", n=3), ctx)
    assert (f.predicate, f.object) == ("budget_limit", "200000 ZAR")



def test_a_state_said_as_holding_now_is_a_change_but_not_one_held_for_now():
    """"now", 现在, "these days" say the value holds in place of an earlier one: a change (a role
    too); "for now", "right now" say it holds for a while, which changes nothing."""
    [role] = extract(_en("I'm now the team lead on payments"))
    assert (role.predicate, role.change) == ("role", "evolution")
    [budget] = extract(_zh("装修预算现在是八万"))
    assert (budget.predicate, budget.object, budget.change) == ("budget_limit", "80000 CNY", "evolution")
    held = extract(_en("our budget is 3000 dollars for now"))
    assert [(f.predicate, f.change) for f in held] == [("budget_limit", None)]


@pytest.mark.parametrize(("text", "context"), [
    # thanks or praise with a statement after it is no acceptance of the offer
    ("cool, I'll think about it", [("assistant", "Would you like me to remind you next week to book the flights?")]),
    # 想 as "think of", "remember": no intention
    ("下个月想起来再说", []),
    ("thinking of you all today", []),
])
def test_what_reads_as_no_plan_or_acceptance(text: str, context: list[tuple[str, str]]) -> None:
    tz = timezone(timedelta(hours=8))
    turns = [Turn("s", i + 1, who, datetime(2026, 3, 3, 9, i, tzinfo=tz), said, "u", None)
             for i, (who, said) in enumerate(context)]
    turn = Turn("s", len(turns) + 1, "user", datetime(2026, 3, 3, 9, 30, tzinfo=tz), text, "u", None)
    assert [(f.predicate, f.object) for f in extract(turn, turns)] == []


@pytest.mark.parametrize(("text", "plan"), [
    ("婚礼打算10月办", "办婚礼"),  # the thing said before 打算, the verb after it
    ("搬家打算下个月搬", "搬家"),  # the verb already in the thing
])
def test_a_plan_with_its_thing_said_first(text: str, plan: str) -> None:
    turn = Turn("s", 1, "user", datetime(2026, 3, 3, 9, 0, tzinfo=timezone(timedelta(hours=8))), text, "u", None)
    assert [(f.predicate, f.object) for f in extract(turn, [])] == [("plan", plan)]


@pytest.mark.parametrize(("text", "context", "project"), [
    # a number agreed to with more than "each" or "total" beside it is no budget
    ("yeah lets do that, 12 weeks sounds right",
     [("user", "u", "my shoe budget is $150"), ("assistant", "u", "Want me to sketch a 12-week plan?")], None),
    # a day agreed to is no decision
    ("8月1号可以，设备我来搞", [("user", "u", "预算20万"), ("user", "lina", "开业我想赶在8月1号之前，大家ok不")], "cafe"),
    # a price agreed to is no budget: no budget was being talked of
    ("yep 14.99", [("user", "u", "budget is £5k"), ("user", "ana", "art is done"),
                   ("user", "jules", "price we said £14.99 right")], "game"),
    # agreeing with a teammate about something the reply does not name is no decision
    ("fine by me, gotta run", [("user", "rosa", "countertops: I want quartz")], "kitchen"),
])
def test_what_agrees_to_no_value(text: str, context: list[tuple[str, str, str]], project: str | None) -> None:
    tz = timezone(timedelta(hours=8))
    turns = [Turn("s", i + 1, who, datetime(2026, 3, 3, 9, i, tzinfo=tz), said, user, project)
             for i, (who, user, said) in enumerate(context)]
    turn = Turn("s", len(turns) + 1, "user", datetime(2026, 3, 3, 9, 30, tzinfo=tz), text, "u", project)
    assert [(f.predicate, f.object) for f in extract(turn, turns)
            if f.predicate in ("decision", "budget_limit")] == []


@pytest.mark.parametrize(("text", "homes"), [
    # a move told with a place and a place in it: one home, the finer place first
    ("hello from manchester!! landed on the 9th. we're in chorlton now", ["Chorlton, Manchester"]),
    # a home now and a move to come are two homes
    ("我现在还住天津，每周坐高铁来北京上班，下个月打算搬来北京", ["天津", "北京"]),
    # a place near the home is not part of it
    ("上周六终于搬完家了，现在住徐汇，就在徐家汇旁边", ["徐汇", "徐家汇旁边"]),
])
def test_a_move_naming_a_place_and_a_place_in_it_is_one_home(text: str, homes: list[str]) -> None:
    turn = Turn("s", 1, "user", datetime(2026, 4, 20, 9, 0, tzinfo=timezone(timedelta(hours=1))), text, "u", None)
    assert [f.object for f in extract(turn, []) if f.predicate == "lives_in"] == homes



@pytest.mark.parametrize("text", ["明天可能要下雨", "I might be late tomorrow", "I'll probably need a hand with it",
                                  "大概率会去吧"])
def test_an_unsure_state_or_guess_is_no_plan(text: str) -> None:
    turn = Turn("s", 1, "user", datetime(2026, 3, 3, 9, 0, tzinfo=timezone(timedelta(hours=8))), text, "u", None)
    assert [(f.predicate, f.object) for f in extract(turn, []) if f.predicate == "plan"] == []



@pytest.mark.parametrize(("text", "whose"), [
    ("另外说个私事 我下个月搬家 搬到梅溪湖那边", "user:u"),  # said as personal
    ("我下周三要请假，去医院复查", "user:u"),  # leave of the speaker's
    ("btw I'm moving to Pune end of May, nothing changes for work", "user:u"),  # a move of home
    ("I'm flying in the thursday before", "user:u"),  # a flight of the speaker's
    ("我们下个月要把店搬到新街口", "project:bakery"),  # the project's shop moving
    ("我们下周三开个复盘会", "project:bakery"),  # the project's own plan
    ("I'm going to move the sink next Tuesday", "project:bakery"),  # moving a thing is no move of home
])
def test_a_plan_of_the_speakers_own_life_in_a_project_is_theirs(text: str, whose: str) -> None:
    turn = Turn("s", 1, "user", datetime(2026, 3, 3, 9, 0, tzinfo=timezone(timedelta(hours=8))), text, "u", "bakery")
    assert {f.subject for f in extract(turn, []) if f.predicate == "plan"} == {whose}


def test_a_role_told_with_a_new_employer_is_a_change_from_when_the_job_begins():
    """The employer changes, so the role said with it is the new job's: an evolution from the job's start,
    not a second role beside the old one (which would open a conflict); a role told alone stays as told."""
    facts = extract(_en("accepted an offer at Fernwood Labs, a climate startup downtown. senior data engineer. "
                        "start april 20"))
    by = {f.predicate: f for f in facts}
    assert by["works_at"].change == by["role"].change == "evolution"
    assert by["role"].event_start == by["works_at"].event_start is not None
    [role] = [f for f in extract(_en("I'm a senior data engineer")) if f.predicate == "role"]
    assert role.change is None


def test_a_town_worked_in_is_where_they_live_not_an_employer():
    """在深圳上班 names no employer: the town is read as the home; a company stays an employer, and an
    acronym or a short word that happens to be a town's name elsewhere (BRI, UBC) is not taken for one."""
    assert _triples(extract(_zh("我在深圳上班"))) == {("lives_in", "深圳", "positive")}
    assert ("works_at", "腾讯", "positive") in _triples(extract(_zh("我在腾讯上班")))
    assert ("works_at", "Boots", "positive") in _triples(extract(_en("I work at Boots")))
    assert ("works_at", "UBC", "positive") in _triples(extract(_en("I work at UBC")))


def test_a_number_an_accepted_proposal_names_without_money_is_no_budget():
    """"want a plan that builds you up to around 60k a week?" "go on then": a distance, no budget; "So you'd spend
    up to 900 on the bike?" "go on then": the budget."""
    run = _en("want a plan that builds you up to around 60k a week by september?", speaker="assistant", n=1)
    assert not [f for f in extract(_en("go on then", n=2), [run]) if f.predicate == "budget_limit"]
    spend = _en("So you'd spend up to 900 on the bike?", speaker="assistant", n=1)
    assert [f.object for f in extract(_en("go on then", n=2), [spend]) if f.predicate == "budget_limit"] == ["900"]


def test_a_deadline_moved_by_someone_or_said_as_the_deadline_is_the_one_said_last():
    said = _en("deadline for the audit pack is 30 april", n=1)
    for text in ("update: the partners just pushed it to 8 may, thank god", "the deadline moved to 8 may"):
        moved = [f for f in extract(_en(text, n=2), [said]) if f.predicate == "deadline"]
        assert [(f.object, f.change) for f in moved] == [("audit pack", "evolution")], text


def test_an_offer_accepted_for_another_day_is_due_that_day():
    """"要不要这周末约个试驾？" "好啊 这周六 帮我记下": accepted (an A-not-A question proposes, it does not
    negate), due the Saturday the reply names; "要提前提醒你打包吗？" "要 提前三天吧": three days before the move."""
    offer = _zh("好，预算提到二十万。要不要这周末约个宋PLUS试驾？", speaker="assistant", n=1)
    facts = extract(_zh("好啊 这周六 帮我记下", n=2), [offer])
    assert [(f.predicate, f.polarity) for f in facts] == [("plan", "positive")]
    assert facts[0].event_start is not None and facts[0].event_start.astimezone(CST).date().isoformat() == "2026-04-11"
    move = [_zh("房子定了 6月6号搬", n=1), _zh("太棒了！6月6日搬家。要提前提醒你打包吗？", speaker="assistant", n=2)]
    todo = [f for f in extract(_zh("要 提前三天吧", n=3), move) if f.predicate == "todo"]
    assert [f.object for f in todo] == ["打包"] and todo[0].event_start is not None
    assert todo[0].event_start.astimezone(CST).date().isoformat() == "2026-06-03"


def test_an_accepting_reply_that_states_its_own_item_keeps_it():
    offer = _en("rest up. want me to nudge you to book a physio?", speaker="assistant", n=1)
    facts = extract(_en("yes, remind me tomorrow to call the physio", n=2), [offer])
    assert [f.object for f in facts if f.predicate == "todo"] == ["call the physio"]


@pytest.mark.parametrize("text, amount", [
    ("好消息是厨房定制谈下来了，比预想便宜一万，预算收回到27万", "270000 CNY"),
    ("对 工资涨了不少 所以旅行预算放宽一点 两万吧", "20000 CNY"),
    ("emeka says we need 3 bed so his mum can visit, so rent budget up to £1,500", "1500 GBP"),
])
def test_a_budget_set_anew_is_a_change(text, amount):
    facts = [f for f in extract(_zh(text) if any("\u4e00" <= ch <= "\u9fff" for ch in text) else _en(text))
             if f.predicate == "budget_limit"]
    assert [(f.object, f.change) for f in facts] == [(amount, "evolution")]


def test_an_amount_said_against_the_budget_is_no_budget():
    assert not [f for f in extract(_zh("一室一厅 八千八 比预算还少两百哈哈")) if f.predicate == "budget_limit"]
    assert not [f for f in extract(_en("kitchen is done. came in at 23.5k so over budget")) if f.predicate == "budget_limit"]
