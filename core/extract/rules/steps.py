"""The rule-step engine: a step of ``data/rules/steps/<lang>.<step>.toml`` as a step function
(``_data_step``: its records run on the clause by ``interpret.run_step``), the commute a clause names by those
records (``_commute``), and the registry of named post-processors (``@post``) and tests (``@test``) that records
use for what a pattern cannot say. The package checks every name a record uses once all are registered."""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import datetime

from ...lang.case import is_english_word
from ...lang.places import town
from ...lang.times import find_times
from ...lang.verbs import base_of_gerund
from .. import interpret
from ..interpret import Clause, post, searched, test
from ..records import Raw as _Raw
from ..ruleset import RULES
from .readers import (
    _antecedent,
    _en_name_ok,
    _en_place,
    _en_strip_time_words,
    _en_timed_plan,
    _gerund,
    _taste_clause,
    _zh_topic_ok,
)
from .text import _P, _TITLE_JOINER, _clean, _match_after, _strip_times

_Step = Callable[[str, str, datetime, bool, list[_Raw]], bool]


def _data_step(name: str) -> _Step:
    """The step of ``data/rules/steps/<name>.toml`` as a step function: its records run by ``interpret``."""
    step = RULES.steps[name]

    def run(c: str, whole: str, when: datetime, project: bool, out: list[_Raw]) -> bool:
        return interpret.run_step(step, Clause(c, whole, when, project, name.startswith("zh."), out))

    run.__name__ = run.__qualname__ = f"_step_{name.replace('.', '_')}"
    return run


def _commute(step: str, clause: str, whole: str, when: datetime) -> _Raw | None:
    """The commute a clause of ``whole`` names, by the records of ``step`` (zh.commute or en.commute), or None."""
    out: list[_Raw] = []
    interpret.run_step(RULES.steps[step], Clause(clause, whole, when, False, step.startswith("zh."), out))
    return out[0] if out else None


@post("clean")
def _post_clean(obj: str, c: Clause) -> str:
    """Punctuation, fillers and particles around an object taken off (``_clean``)."""
    return _clean(obj, c.zh)


@post("surname_once")
def _post_surname_once(obj: str, c: Clause) -> str:
    """A surname said, then the full name after it ("我姓郑，叫郑文华" read as 郑 + 郑文华): the surname once."""
    for n in (2, 1):
        if len(obj) > 2 * n and obj[:n] == obj[n:2 * n]:
            return obj[n:]
    return obj


@post("zh_new_home")
def _post_zh_new_home(obj: str, c: Clause) -> str:
    """A move to 新家 names its place after it in the turn (搬到了新家，在闵行莘庄), else nothing."""
    if obj not in RULES.sets["zh.new_home"]:
        return obj
    m = searched(_P["zh.new_home_place"], c.whole)
    return m.group(1) if m else ""


@post("zh_place_tail")
def _post_zh_place_tail(obj: str, c: Clause) -> str:
    """A Chinese place without the words after it in its clause: "around here/there" and where one goes to
    live (梅溪湖那边 -> 梅溪湖, 思明这边来 -> 思明, 江门住 -> 江门); the whole object when nothing else is left."""
    return _P["zh.place_tail"].sub("", obj) or obj


@test("times")
def _test_times(text: str, c: Clause, arg: str | None) -> bool:
    """The text names a time (``find_times``)."""
    return bool(find_times(text, c.when))


@post("en_place")
def _post_en_place(obj: str, c: Clause) -> str:
    """An English place without its times and trailing words (``_en_place``)."""
    return _en_place(obj, c.when)


@post("verb_of_gerund")
def _post_verb_of_gerund(obj: str, c: Clause) -> str:
    """An -ing form as the verb it is of ("renewing" -> renew, ``lang.verbs.base_of_gerund``); as it is when it
    is of none."""
    return base_of_gerund(obj) or obj


@post("lower")
def _post_lower(obj: str, c: Clause) -> str:
    """Lower case."""
    return obj.lower()


@post("untie_title")
def _post_untie_title(obj: str, c: Clause) -> str:
    """A title's dot joined to its name while clauses are split ("Dr.⁠Patel") made a space again."""
    return obj.replace(_TITLE_JOINER, " ")


@post("last_word")
def _post_last_word(obj: str, c: Clause) -> str:
    """The last word ("rescue greyhound" -> greyhound)."""
    return obj.split()[-1]


@post("title")
def _post_title(obj: str, c: Clause) -> str:
    """Title case ("wellington city council" -> Wellington City Council)."""
    return obj.title()


_NAME_PARTICLES = frozenset({"of", "the", "and", "for", "de", "la", "le", "du", "van", "von", "der", "on", "at"})


@post("name_case")
def _post_name_case(obj: str, c: Clause) -> str:
    """A name as names are written: each word typed all in lower case capitalised, but for particles inside it
    ("Halden logistics" -> Halden Logistics, "bank of ireland" -> Bank of Ireland); words with a capital as they
    are (iCloud, UBS)."""
    words = obj.split(" ")
    return " ".join(w[:1].upper() + w[1:] if w.islower() and (i == 0 or w not in _NAME_PARTICLES) else w
                    for i, w in enumerate(words))


@post("strip_times")
def _post_strip_times(obj: str, c: Clause) -> str:
    """The time expressions taken out (``_strip_times``)."""
    return _strip_times(obj, c.when)


@post("en_strip_time_words")
def _post_en_strip_time_words(obj: str, c: Clause) -> str:
    """The time expressions and the words left around them taken out (``_en_strip_time_words``)."""
    return _en_strip_time_words(obj, c.when)


@post("pronoun_antecedent")
def _post_pronoun_antecedent(obj: str, c: Clause) -> str:
    """A pronoun (en.allergen_pronouns: them, it) as the thing the turn opens with (``_antecedent``)."""
    return _antecedent(c.whole) if obj.lower() in RULES.sets["en.allergen_pronouns"] else obj


@post("whole_antecedent")
def _post_whole_antecedent(obj: str, c: Clause) -> str:
    """The thing the turn opens with when it acts on the user (``_antecedent``), whatever the object was."""
    return _antecedent(c.whole)


@test("antecedent")
def _test_antecedent(text: str, c: Clause, arg: str | None) -> bool:
    """The text opens with a thing that acts on the user (``_antecedent``)."""
    return bool(_antecedent(text))


@test("last_fact")
def _test_last_fact(text: str, c: Clause, arg: str | None) -> bool:
    """The clause's last fact so far has the predicate ``arg``."""
    return bool(c.out) and c.out[-1].predicate == arg


@test("ends_a_fact")
def _test_ends_a_fact(text: str, c: Clause, arg: str | None) -> bool:
    """A fact of the clause with the predicate ``arg`` ends with the text ("无糖豆浆" ends with "豆浆")."""
    return any(r.predicate == arg and r.object.endswith(text) for r in c.out)


@test("topic")
def _test_topic(text: str, c: Clause, arg: str | None) -> bool:
    """A fronted topic that names a thing, not an adverb or a time (``_zh_topic_ok``)."""
    return _zh_topic_ok(text, c.when)


@post("taste_clause")
def _post_taste_clause(text: str, c: Clause) -> str:
    """A clause as the likes/dislikes rules read it (``_taste_clause``)."""
    return _taste_clause(text, c.zh)


@post("gerund")
def _post_gerund(obj: str, c: Clause) -> str:
    """A verb phrase as its -ing form ("work from home" -> working from home)."""
    return _gerund(obj)


@post("plural")
def _post_plural(obj: str, c: Clause) -> str:
    """A noun in the plural, as a taste names a kind ("cat" -> cats)."""
    return obj if obj.endswith("s") else f"{obj}s"


@test("name_fine_here")
def _test_name_fine_here(text: str, c: Clause, arg: str | None) -> bool:
    """The clause says a name is fine, in a turn that names the user (``_en_name_ok``)."""
    return _en_name_ok(text, c.whole) is not None


@post("en_timed_plan")
def _post_en_timed_plan(obj: str, c: Clause) -> str:
    """The plan an intention with a time states, read from the whole clause (``_en_timed_plan``), or nothing."""
    return _en_timed_plan(c.text, c.when) or ""


@test("time_at_start")
def _test_time_at_start(text: str, c: Clause, arg: str | None) -> bool:
    """The text names a time within its first ``arg`` characters."""
    times = find_times(text, c.when)
    return bool(times) and times[0][0] <= int(arg or 0)


@test("at_most_words")
def _test_at_most_words(text: str, c: Clause, arg: str | None) -> bool:
    """The text has at most ``arg`` words."""
    return len(text.split()) <= int(arg or 0)


@test("has_fact")
def _test_has_fact(text: str, c: Clause, arg: str | None) -> bool:
    """The clause already has a fact of one of the predicates ``arg`` names (separated by spaces)."""
    return any(r.predicate in (arg or "").split() for r in c.out)


@test("commute")
def _test_commute(text: str, c: Clause, arg: str | None) -> bool:
    """The text names a commute (the commute step of its language finds one)."""
    return _commute("zh.commute" if c.zh else "en.commute", text, text, c.when) is not None


@post("zh_employer_named")
def _post_zh_employer_named(obj: str, c: Clause) -> str:
    """A company described by its name (一家叫星云科技的公司) as that name; one described without it (一家药企) as
    the name given after it in the turn (…，叫恒瑞), if any."""
    named = _P["zh.employer_called"].match(obj)
    if named:
        return named.group(1)
    later = _P["zh.employer_unnamed"].search(obj) and _match_after(c.text, _P["zh.works_at.named_after"], c.whole)
    return later.group(1) if later else obj


@test("no_facts")
def _test_no_facts(text: str, c: Clause, arg: str | None) -> bool:
    """The clause has yielded no fact yet (``arg``: none but of these predicates, comma-separated)."""
    allowed = set(arg.split(",")) if arg else set()
    return all(r.predicate in allowed for r in c.out)


@test("project")
def _test_project(text: str, c: Clause, arg: str | None) -> bool:
    """The turn is said in a project's conversation (a team's)."""
    return c.project


@test("in_whole")
def _test_in_whole(text: str, c: Clause, arg: str | None) -> bool:
    """The text occurs in the whole turn as said (not only in the clause as rewritten)."""
    return text in c.whole


@test("led_by")
def _test_led_by(text: str, c: Clause, arg: str | None) -> bool:
    """The whole turn, right before the clause, ends on the pattern ``arg`` names (a lead the clause is said
    after: "Decision made:" before "we're selling the flat"); the clause found where it is said."""
    at = c.whole.find(c.text)
    return at > 0 and _P[arg or ""].search(c.whole[:at]) is not None


@test("any_word_within")
def _test_any_word_within(text: str, c: Clause, arg: str | None) -> bool:
    """One of the text's words is in the set ``arg``."""
    words = RULES.sets[arg or ""]
    return any(word in words for word in text.split())


@test("any_word_within_any_case")
def _test_any_word_within_any_case(text: str, c: Clause, arg: str | None) -> bool:
    """One of the text's words is in the set ``arg``, in any case ("same" for "Same")."""
    words = _folded_set(arg or "")
    return any(word.casefold() in words for word in text.split())


@test("town")
def _test_town(text: str, c: Clause, arg: str | None) -> bool:
    """The text names a town whole (``lang.places``: the world's towns of 15,000 people or more)."""
    return town(text.strip()) is not None


@test("common_word")
def _test_common_word(text: str, c: Clause, arg: str | None) -> bool:
    """The text, in lower case, is a word of the English word list (``lang.case``): "home", "work", not a
    place's name typed in lower case ("mislata")."""
    return text.strip().islower() and is_english_word(text.strip())


@test("empty")
def _test_empty(text: str, c: Clause, arg: str | None) -> bool:
    """The text is empty."""
    return not text


@functools.cache
def _folded_set(name: str) -> frozenset[str]:
    """The words of the rule set ``name``, case-folded (once per set)."""
    return frozenset(w.casefold() for w in RULES.sets[name])
