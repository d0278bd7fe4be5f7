"""Every example of every rule in data/rules/*.toml and data/rules/steps/*.toml, one test case each (id
``<lang>/<rule>/<n>``, cues as ``<lang>/cue.<name>/<n>``, records as ``<lang>/<step>.<id>/<n>``): the example,
read as one user turn, yields exactly its facts, and its rule matches while it is read (a record's example
that yields none of the record's predicates may show a text the record must leave alone, without matching).
Plus: a malformed rules file fails with a message naming the file and the rule, and
the rule extractor (core/extract/rules/) builds no pattern at run time."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from memdesk.extract import interpret, rules
from memdesk.extract.records import Record
from memdesk.extract.ruleset import (
    RULES,
    Example,
    Rule,
    RulesError,
    RuleSet,
    load_rules,
    parse_rules,
)
from memdesk.pipeline import Turn

from .helpers import rule_modules

CST = timezone(timedelta(hours=8))
BST = timezone(timedelta(hours=1))


def example_turns(ex: Example) -> tuple[Turn, list[Turn]]:
    """The example as a turn (with the turns before it), at the times and users of tests/test_rules.py."""
    zh = ex.lang == "zh" or (ex.lang is None and rules._is_zh(ex.text))
    when = datetime(2026, 4, 8, 20, 0, tzinfo=CST) if zh else datetime(2026, 4, 8, 9, 0, tzinfo=BST)
    user = "chen" if zh else "nina"
    context = [Turn("rule-example", n, speaker, when, text, other or user, project)
               for n, (speaker, text, project, other) in enumerate(ex.context, start=1)]
    return Turn("rule-example", len(context) + 1, ex.speaker, when, ex.text, user, ex.project), context


def run_example(ex: Example) -> list[tuple[str, str, str]]:
    return [(f.predicate, f.object, "ended" if f.change == "ending" else f.polarity)
            for f in rules.extract(*example_turns(ex))]


class _Traced:
    """A compiled pattern that notes its names in ``hits`` whenever it matches."""

    def __init__(self, names: tuple[str, ...], regex: re.Pattern[str], hits: set[str]) -> None:
        self._names, self._regex, self._hits = names, regex, hits

    def _hit(self, found: Any) -> Any:
        if found:
            self._hits.update(self._names)
        return found

    def search(self, *a: Any, **k: Any) -> Any:
        return self._hit(self._regex.search(*a, **k))

    def match(self, *a: Any, **k: Any) -> Any:
        return self._hit(self._regex.match(*a, **k))

    def fullmatch(self, *a: Any, **k: Any) -> Any:
        return self._hit(self._regex.fullmatch(*a, **k))

    def findall(self, *a: Any, **k: Any) -> Any:
        return self._hit(self._regex.findall(*a, **k))

    def finditer(self, *a: Any, **k: Any) -> Iterator[re.Match[str]]:
        for m in self._regex.finditer(*a, **k):
            self._hits.update(self._names)
            yield m

    def sub(self, *a: Any, **k: Any) -> Any:
        out, n = self._regex.subn(*a, **k)
        self._hit(n)
        return out

    def subn(self, *a: Any, **k: Any) -> Any:
        out = self._regex.subn(*a, **k)
        self._hit(out[1])
        return out

    def split(self, *a: Any, **k: Any) -> Any:
        out = self._regex.split(*a, **k)
        self._hit(len(out) > 1)
        return out

    def __getattr__(self, name: str) -> Any:
        return getattr(self._regex, name)


class Tracer:
    """While active, every pattern the rule extractor's modules use records the names of the rules that
    matched."""

    def __init__(self, modules: list[ModuleType], ruleset: RuleSet) -> None:
        self.modules, self.ruleset = modules, ruleset
        self.hits: set[str] = set()
        self._saved: dict[tuple[ModuleType, str], Any] = {}

    def _wrap(self, value: Any, names_of: dict[int, tuple[str, ...]]) -> Any:
        if isinstance(value, re.Pattern) and id(value) in names_of:
            return _Traced(names_of[id(value)], value, self.hits)
        if isinstance(value, tuple | list):
            wrapped = [self._wrap(v, names_of) for v in value]
            if any(w is not v for w, v in zip(wrapped, value, strict=True)):
                return type(value)(wrapped)
        return value

    def __enter__(self) -> set[str]:
        self.hits.clear()
        names_of: dict[int, tuple[str, ...]] = {}
        for name, regex in self.ruleset.patterns.items():
            names_of[id(regex)] = (*names_of.get(id(regex), ()), name)
        for module in self.modules:
            for attr, value in vars(module).items():
                if attr == "_P":
                    self._saved[module, attr] = value
                    continue
                wrapped = self._wrap(value, names_of)
                if wrapped is not value:
                    self._saved[module, attr] = value
        for (module, attr), value in self._saved.items():
            if attr == "_P":
                setattr(module, attr, {n: _Traced(names_of[id(r)], r, self.hits) for n, r in value.items()})
            else:
                setattr(module, attr, self._wrap(value, names_of))
        return self.hits

    def __exit__(self, *exc: object) -> None:
        for (module, attr), value in self._saved.items():
            setattr(module, attr, value)
        self._saved.clear()


def cue_users(ruleset: RuleSet) -> dict[str, set[str]]:
    """For each cue ("cue:zh.like"), the patterns and records whose text names it, directly or through other
    cues."""
    direct: dict[str, set[str]] = {}
    for rule in ruleset.rules.values():
        for cue in rule.uses:
            direct.setdefault(cue, set()).add(rule.name if rule.kind == "pattern" else f"cue:{rule.name}")
    for step in ruleset.steps.values():
        for record in step.records:
            for cue in record.uses:
                direct.setdefault(cue, set()).add(record.name)
    out: dict[str, set[str]] = {}
    for cue in (r.name for r in ruleset.rules.values() if r.kind == "cue"):
        pats: set[str] = set()
        todo, seen = [cue], set()
        while todo:
            for user in direct.get(todo.pop(), ()):
                if user.startswith("cue:"):
                    if user not in seen:
                        seen.add(user)
                        todo.append(user[4:])
                else:
                    pats.add(user)
        out[f"cue:{cue}"] = pats
    return out


def _rule_id(rule: Rule | Record) -> str:
    lang, name = rule.name.split(".", 1)
    return f"{lang}/{'cue.' if rule.kind == 'cue' else ''}{name}"


CASES = [pytest.param(rule, ex, id=f"{_rule_id(rule)}/{i}") for rule, i, ex in RULES.examples()]
USERS = cue_users(RULES)


@pytest.mark.parametrize(("rule", "example"), CASES)
def test_rule_example(rule: Rule | Record, example: Example) -> None:
    with Tracer(rule_modules(), RULES) as hits, interpret.tracing() as record_hits:
        got = run_example(example)
    hits |= record_hits
    assert got == list(example.yields), f"{rule.file}: {rule.name}: {example.text!r}"
    if isinstance(rule, Record) and not {p for p, _, _ in example.yields} & {y.predicate for y in rule.yields}:
        return  # a text the record must leave alone
    fired = rule.name in hits if rule.kind in ("pattern", "record") else bool(USERS[f"cue:{rule.name}"] & hits)
    assert fired, f"{rule.file}: {rule.name} does not match while {example.text!r} is read"


def test_every_pattern_compiled_once_at_load() -> None:
    patterns = [r for r in RULES.rules.values() if r.kind == "pattern"]
    records = [r for step in RULES.steps.values() for r in step.records]
    alternatives = [a for r in records for a in r.alternatives]
    assert len(patterns) == len(RULES.patterns) and len(patterns) + len(alternatives) > 600
    assert all(isinstance(a.regex, re.Pattern) for r in records for a in r.alternatives)
    assert all(RULES.patterns[r.name] is r.regex for r in patterns)
    assert all(isinstance(r.regex, re.Pattern) for r in patterns)


def test_the_rule_extractor_builds_no_pattern_at_run_time() -> None:
    sources = [Path(module.__file__ or "").read_text(encoding="utf-8") for module in rule_modules()]
    for source in sources:
        calls = re.findall(r"\bre\.(?:search|match|fullmatch|sub|subn|findall|finditer|split|compile|escape)\(",
                           source)
        assert calls == []
    assert any("RULES.patterns" in source for source in sources)


def test_bundled_files_load_the_same() -> None:
    again = load_rules()
    assert again.patterns.keys() == RULES.patterns.keys()
    assert again.maps == RULES.maps and again.sets == RULES.sets
    assert RULES.maps["en.commute_by"]["bike"] == "cycling" and "vegan" in RULES.sets["shared.meatless_diets"]
    assert all(again.patterns[n].pattern == p.pattern for n, p in RULES.patterns.items())


GOOD = """
[cue.greet]
description = "greeting words"
words = ["hi", "hello"]

[pattern.greeting]
description = "a greeting"
pattern = ["^(?:{{en.greet}})", "\\\\b"]
flags = ["IGNORECASE"]
examples = [{text = "Hello there", yields = "nothing"}]
"""


def test_a_good_file_parses() -> None:
    rs = parse_rules({"en": GOOD})
    assert rs.patterns["en.greeting"].pattern == r"^(?:hi|hello)\b"
    assert rs.patterns["en.greeting"].flags & re.I
    assert rs.cues["en.greet"] == "hi|hello"
    [(rule, _, ex)] = list(rs.examples())
    assert (rule.name, ex.text, ex.yields) == ("en.greeting", "Hello there", ())


@pytest.mark.parametrize(("text", "message"), [
    ("[pattern.x\ndescription = 1", r"en\.toml: not valid TOML"),
    ('[pattern.bad]\ndescription = "d"\npattern = "(unclosed"', r"en\.toml: pattern 'en\.bad': does not compile"),
    ('[pattern.bad]\npattern = "a"', r"en\.toml: pattern 'bad': needs a description"),
    ('[pattern.bad]\ndescription = "d"\npattern = "a"\ncolour = "red"', r"pattern 'bad': unknown key\(s\) \['colour'\]"),
    ('[pattern.bad]\ndescription = "d"\npattern = "{{en.nope}}"', r"pattern 'en\.bad': refers to unknown cue \{\{en\.nope\}\}"),
    ('[pattern.bad]\ndescription = "d"\npattern = "a"\nflags = ["LOUD"]', r"pattern 'bad': unknown flag 'LOUD'"),
    ('[pattern.bad]\ndescription = "d"\npattern = "a"\nexamples = [{text = "a", yields = [["likes", "a"]]}]',
     r"pattern 'bad', example 0: yields must be"),
    ('[pattern.bad]\ndescription = "d"\npattern = "a"\nwords = ["a"]',
     r"pattern 'bad': needs exactly one of words, words_from and pattern"),
    # a cue's words taken from the language layer must name a table and a list there
    ('[cue.bad]\ndescription = "d"\nwords_from = "values"', r"cue 'bad': words_from must name a language table and list"),
    ('[cue.bad]\ndescription = "d"\nwords_from = "values:decision.nope"', r"cue 'bad': words_from 'values:decision\.nope'"),
    ('[cue.loop]\ndescription = "d"\npattern = "{{en.loop}}"\n[pattern.p]\ndescription = "d"\npattern = "{{en.loop}}"',
     r"cue 'en\.loop' refers to itself"),
    # a cue of alternatives joined to text around it would join only its first or last alternative
    ('[cue.kind]\ndescription = "d"\nwords = ["shop", "office"]\n[pattern.p]\ndescription = "d"\npattern = "{{en.kind}} left"',
     r"pattern 'en\.p': cue \{\{en\.kind\}\} is a list of alternatives: write it in a group of its own"),
    ('[cue.kind]\ndescription = "d"\npattern = "shop|office"\n[pattern.p]\ndescription = "d"\npattern = "my (?i:{{en.kind}}s)"',
     r"pattern 'en\.p': cue \{\{en\.kind\}\} is a list of alternatives"),
    ('[rule.bad]\ndescription = "d"', r"en\.toml: top level: unknown table\(s\) \['rule'\]"),
    ('[map.bad]\ndescription = "d"\nentries = {a = 1}', r"en\.toml: map 'bad': entries must be a table of strings"),
    ('[set.bad]\nwords = ["a"]', r"en\.toml: set 'bad': needs a description"),
])
def test_a_malformed_file_names_the_file_and_the_rule(text: str, message: str) -> None:
    with pytest.raises(RulesError, match=message):
        parse_rules({"en": text})


def test_a_cue_of_alternatives_may_stand_as_a_whole_alternative_or_group() -> None:
    """A cue of alternatives referred to alone, as one alternative among others or as a group's whole
    content reads as a list of alternatives; a cue of one alternative may be written anywhere."""
    rs = parse_rules({"en": '[cue.kind]\ndescription = "d"\nwords = ["shop", "office"]\n'
                            '[cue.one]\ndescription = "d"\npattern = "(?:a|b)c"\n'
                            '[pattern.p]\ndescription = "d"\npattern = "{{en.kind}}|(?:{{en.kind}}) left|x{{en.one}}"\n'
                            '[pattern.q]\ndescription = "d"\npattern = "(?i:{{en.kind}})|(?P<k>{{en.kind}})"\n'})
    assert rs.patterns["en.p"].fullmatch("office left") and rs.patterns["en.p"].fullmatch("xbc")
    assert rs.patterns["en.q"].fullmatch("SHOP")


def test_a_malformed_file_on_disk(tmp_path: Path) -> None:
    for lang in ("shared", "zh"):
        (tmp_path / f"{lang}.toml").write_text("", encoding="utf-8")
    (tmp_path / "en.toml").write_text('[pattern.broken]\ndescription = "d"\npattern = "[a-"\n', encoding="utf-8")
    with pytest.raises(RulesError, match=re.escape(str(tmp_path / "en.toml")) + r": pattern 'en\.broken'"):
        load_rules(tmp_path)


GOOD_STEP = """
step = "greeting"
description = "greetings"

[[rule]]
id = "hello_name"
description = "a greeting with a name"
pattern = ['^(?:{{en.greet}}),? (\\w+)']
flags = ["IGNORECASE"]
unless = [{on = "1", pattern = "^there$"}]
yields = {predicate = "name", object = "{1}"}
post = ["clean"]
examples = [{text = "Hello Ann", yields = [["name", "Ann", "positive"]]}]
"""


def test_a_good_step_file_parses() -> None:
    rs = parse_rules({"en": GOOD}, steps={"en.greeting": GOOD_STEP})
    [record] = rs.steps["en.greeting"].records
    assert record.name == "en.greeting.hello_name" and record.uses == ("en.greet",)
    assert record.alternatives[0].regex.pattern == r"^(?:hi|hello),? (\w+)" and record.post[0].name == "clean"
    assert [r.name for r, _, _ in rs.examples()] == ["en.greeting", "en.greeting.hello_name"]


@pytest.mark.parametrize(("text", "message"), [
    (GOOD_STEP.replace('step = "greeting"', 'step = "other"'), r"steps/en\.greeting\.toml: top level: step must be"),
    (GOOD_STEP.replace('id = "hello_name"', 'id = "Hello"'), r"rule 'Hello': id must be a lower-case name"),
    (GOOD_STEP.replace("post =", "colour = 1\npost ="), r"rule 'hello_name': unknown key\(s\) \['colour'\]"),
    (GOOD_STEP.replace('"^there$"', '"(unclosed"'), r"rule 'hello_name': does not compile"),
    (GOOD_STEP.replace("{{en.greet}}", "{{en.nope}}"), r"rule 'hello_name': refers to unknown cue"),
    (GOOD_STEP.replace('pattern = "^there$"', 'fired = "nope"'), r"rule 'hello_name': names unknown rule 'nope'"),
    (GOOD_STEP.replace('predicate = "name", ', ""), r"rule 'hello_name': yields must be a table"),
], ids=["step", "id", "key", "compile", "cue", "fired", "yields"])
def test_a_malformed_step_file_names_the_file_and_the_rule(text: str, message: str) -> None:
    with pytest.raises(RulesError, match=message):
        parse_rules({"en": GOOD}, steps={"en.greeting": text})


def test_every_record_names_registered_post_processors_and_tests() -> None:
    interpret.check_names(RULES.steps, RULES.maps, RULES.sets)  # raises when one is missing
    step = parse_rules({"en": GOOD}, steps={"en.greeting": GOOD_STEP.replace('"clean"', '"nope"')}).steps
    with pytest.raises(ValueError, match=r"rule 'en\.greeting\.hello_name': unknown post-processor or map 'nope'"):
        interpret.check_names(step, RULES.maps, RULES.sets)
