"""The phrasings of the rule-based extractor, loaded from ``data/rules/``.

``core/extract/rules/`` holds the mechanism (clauses, atomisation, dialogue context, corrections); what it
recognises lives in data. Step files ``data/rules/steps/<lang>.<step>.toml`` hold the rules as records (one
family of predicates per file; format and loading in ``records.py``, run by ``interpret.py``); they become
``RuleSet.steps``. The language files ``zh.toml``, ``en.toml`` and ``shared.toml`` (patterns that mix both
languages or name neither) hold what records and code share. Each language file has these tables:

``[cue.NAME]``
    a regex fragment, mostly a word list (``words = [...]``, joined with
    ``|``; or ``words_from = "TABLE:KEY"``, a list of the language layer's
    ``data/lang/TABLE.toml`` that code below the extractor reads too) or a
    ``pattern``; patterns and records use it as ``{{lang.NAME}}``.
``[map.NAME]`` / ``[set.NAME]``
    a word table looked up whole: ``entries = {word = "canonical", ...}`` or
    ``words = [...]``.
``[pattern.NAME]``
    a pattern (a string, or a list of strings that are concatenated, cues
    substituted), with optional ``flags`` (``IGNORECASE``, ``MULTILINE``,
    ``DOTALL``, ``VERBOSE``, ``ASCII``). Every pattern, and every pattern of a record, is compiled once,
    here, when the rules load; the rule extractor never builds a pattern at run time.

Every entry has a ``description`` and may have ``examples``: inline tables
``{text = "...", yields = [[predicate, object, polarity], ...]}`` (or
``yields = "nothing"``; ``"ended"`` in place of the polarity: an ending of the value, change ``ending``), optionally with ``project`` (the turn's project),
``lang``, ``speaker`` (``"assistant"`` for a guess the agent makes) and
``context`` (the turns before it: ``[{speaker = "assistant", text = "..."}]``; ``user = "teammate"`` for a
user turn said by another member of the project).
An example is one turn run through ``extract()``: it must yield exactly those
facts, and the rule it belongs to must match while it is read
(``tests/test_rule_examples.py``). Records have examples of the same form.

A malformed file raises :class:`RulesError`, naming the file and the entry.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..lang import tables
from ..resources import data_path
from .records import Reader, Record, Step, parse_step

__all__ = ["RULES", "Example", "Rule", "RuleSet", "RulesError", "load_rules", "parse_rules"]

LANGUAGES = ("shared", "zh", "en")
_FLAGS = {"IGNORECASE": re.IGNORECASE, "MULTILINE": re.MULTILINE, "DOTALL": re.DOTALL, "VERBOSE": re.VERBOSE,
          "ASCII": re.ASCII}
_KINDS = ("cue", "pattern")
_TABLE_KINDS = ("map", "set")
_ENTRY_KEYS = {"description", "words", "words_from", "pattern", "flags", "examples"}
_EXAMPLE_KEYS = {"text", "yields", "project", "lang", "speaker", "context"}
_CONTEXT_KEYS = {"speaker", "text", "project", "user"}
_POLARITIES = ("positive", "negative", "ended")  # "ended": an ending (change "ending") of the value
_REF = re.compile(r"\{\{([a-z]+)\.([a-z0-9_.]+)\}\}")
_NAME = re.compile(r"[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*")


class RulesError(ValueError):
    """A rules file that cannot be loaded: the message names the file and the entry."""


@dataclass(frozen=True)
class Example:
    """A text a rule must read, and the facts (predicate, object, polarity) the turn must yield (none: a filter)."""

    text: str
    yields: tuple[tuple[str, str, str], ...]
    project: str | None = None
    lang: str | None = None
    speaker: str = "user"
    # earlier turns: (speaker, text, project, user: None for the example's own user)
    context: tuple[tuple[str, str, str | None, str | None], ...] = ()


@dataclass(frozen=True)
class Rule:
    """One cue or pattern. ``source`` is the regex with every cue substituted; ``regex`` is compiled for a
    pattern (a cue is a fragment: None)."""

    name: str  # "zh.decided", qualified by the file's language
    kind: str  # "cue" or "pattern"
    description: str
    source: str
    flags: int
    regex: re.Pattern[str] | None
    examples: tuple[Example, ...]
    file: str
    uses: tuple[str, ...] = ()  # the cues its text names ({{lang.name}})


@dataclass(frozen=True)
class RuleSet:
    """All rules, by qualified name: ``patterns`` (compiled) and ``cues`` (fragments, substituted)."""

    rules: Mapping[str, Rule]
    patterns: Mapping[str, re.Pattern[str]]
    cues: Mapping[str, str]
    maps: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # word -> canonical word
    sets: Mapping[str, frozenset[str]] = field(default_factory=dict)  # word lists looked up whole
    steps: Mapping[str, Step] = field(default_factory=dict)  # rule records by step ("zh.lives_in")

    def examples(self) -> Iterable[tuple[Rule | Record, int, Example]]:
        for rule in self.rules.values():
            for i, ex in enumerate(rule.examples):
                yield rule, i, ex
        for step in self.steps.values():
            for record in step.records:
                for i, ex in enumerate(record.examples):
                    yield record, i, ex


@dataclass(frozen=True)
class _Entry:
    name: str
    kind: str
    description: str
    template: str
    flags: int
    examples: tuple[Example, ...]
    file: str


def _fail(file: str, where: str, message: str) -> RulesError:
    return RulesError(f"{file}: {where}: {message}")


def _text_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _examples(raw: Any, file: str, where: str) -> tuple[Example, ...]:
    if not isinstance(raw, list):
        raise _fail(file, where, "examples must be a list of tables")
    out = []
    for i, ex in enumerate(raw):
        at = f"{where}, example {i}"
        if not isinstance(ex, dict):
            raise _fail(file, at, "an example must be a table {text = ..., yields = ...}")
        unknown = set(ex) - _EXAMPLE_KEYS
        if unknown:
            raise _fail(file, at, f"unknown key(s) {sorted(unknown)}")
        text, yields = ex.get("text"), ex.get("yields")
        if not isinstance(text, str) or not text.strip():
            raise _fail(file, at, "text must be a non-empty string")
        if yields == "nothing":
            facts: tuple[tuple[str, str, str], ...] = ()
        elif isinstance(yields, list) and all(_text_list(y) and len(y) == 3 and y[2] in _POLARITIES for y in yields):
            facts = tuple((y[0], y[1], y[2]) for y in yields)
        else:
            raise _fail(file, at, 'yields must be "nothing" or a list of [predicate, object, '
                              '"positive"|"negative"|"ended"]')
        project, lang = ex.get("project"), ex.get("lang")
        if project is not None and not isinstance(project, str):
            raise _fail(file, at, "project must be a string")
        if lang is not None and lang not in ("zh", "en"):
            raise _fail(file, at, 'lang must be "zh" or "en"')
        speaker = ex.get("speaker", "user")
        if speaker not in ("user", "assistant"):
            raise _fail(file, at, 'speaker must be "user" or "assistant"')
        context = []
        for turn in ex.get("context", []):
            if not isinstance(turn, dict) or set(turn) - _CONTEXT_KEYS or not isinstance(turn.get("text"), str) \
                    or turn.get("speaker", "user") not in ("user", "assistant") \
                    or not isinstance(turn.get("project", ""), str) or not isinstance(turn.get("user", ""), str):
                raise _fail(file, at, 'context must be a list of {speaker = "user"|"assistant", text = ..., '
                                      'project = ..., user = ...}')
            context.append((turn.get("speaker", "user"), turn["text"], turn.get("project"), turn.get("user")))
        out.append(Example(text, facts, project, lang, speaker, tuple(context)))
    return tuple(out)


def _tables(lang: str, data: Mapping[str, Any], file: str) -> tuple[dict[str, Mapping[str, str]], dict[str, frozenset[str]]]:
    maps: dict[str, Mapping[str, str]] = {}
    sets: dict[str, frozenset[str]] = {}
    for kind in _TABLE_KINDS:
        table = data.get(kind, {})
        if not isinstance(table, dict):
            raise _fail(file, kind, "must be a table of entries")
        for key, entry in table.items():
            where = f"{kind} {key!r}"
            content = "entries" if kind == "map" else "words"
            if not _NAME.fullmatch(key) or not isinstance(entry, dict):
                raise _fail(file, where, "must be a table with a lower-case name")
            unknown = set(entry) - {"description", content}
            if unknown:
                raise _fail(file, where, f"unknown key(s) {sorted(unknown)}")
            if not isinstance(entry.get("description"), str) or not entry["description"].strip():
                raise _fail(file, where, "needs a description")
            value = entry.get(content)
            if kind == "map":
                if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
                    raise _fail(file, where, "entries must be a table of strings")
                maps[f"{lang}.{key}"] = MappingProxyType(dict(value))
            else:
                if not isinstance(value, list) or not _text_list(value):
                    raise _fail(file, where, "words must be a list of strings")
                sets[f"{lang}.{key}"] = frozenset(value)
    return maps, sets


def _entries(lang: str, data: Mapping[str, Any], file: str) -> list[_Entry]:
    unknown = set(data) - set(_KINDS) - set(_TABLE_KINDS)
    if unknown:
        raise _fail(file, "top level", f"unknown table(s) {sorted(unknown)}; expected [cue.NAME], [pattern.NAME], "
                                       "[map.NAME] and [set.NAME]")
    out = []
    for kind in _KINDS:
        table = data.get(kind, {})
        if not isinstance(table, dict):
            raise _fail(file, kind, "must be a table of entries")
        for key, entry in table.items():
            where = f"{kind} {key!r}"
            if not _NAME.fullmatch(key):
                raise _fail(file, where, "a name is lower-case words joined with dots")
            if not isinstance(entry, dict):
                raise _fail(file, where, "must be a table")
            unknown = set(entry) - _ENTRY_KEYS
            if unknown:
                raise _fail(file, where, f"unknown key(s) {sorted(unknown)}")
            description = entry.get("description")
            if not isinstance(description, str) or not description.strip():
                raise _fail(file, where, "needs a description")
            if sum(k in entry for k in ("words", "words_from", "pattern")) != 1:
                raise _fail(file, where, "needs exactly one of words, words_from and pattern")
            if "words_from" in entry:  # a word list of the language layer ("values:decision.zh_taking")
                source = entry["words_from"]
                table, _, listed = source.partition(":") if isinstance(source, str) else ("", "", "")
                if kind != "cue" or not table or not listed:
                    raise _fail(file, where, "words_from must name a language table and list, as \"values:a.b\" "
                                "(in a cue)")
                try:
                    template = "|".join(re.escape(w) for w in tables.words(table, listed))
                except (OSError, ValueError) as exc:
                    raise _fail(file, where, f"words_from {source!r}: {exc}") from None
            elif "words" in entry:
                if kind != "cue" or not _text_list(entry["words"]) or not entry["words"]:
                    raise _fail(file, where, "words must be a non-empty list of strings (in a cue)")
                template = "|".join(entry["words"])
            else:
                pattern = entry["pattern"]
                if isinstance(pattern, str):
                    template = pattern
                elif _text_list(pattern) and pattern:
                    template = "".join(pattern)
                else:
                    raise _fail(file, where, "pattern must be a string or a list of strings")
            flags = 0
            names = entry.get("flags", [])
            if not _text_list(names) or kind == "cue" and names:
                raise _fail(file, where, "flags must be a list of flag names (patterns only)")
            for flag in names:
                if flag not in _FLAGS:
                    raise _fail(file, where, f"unknown flag {flag!r} (known: {', '.join(_FLAGS)})")
                flags |= _FLAGS[flag]
            examples = _examples(entry.get("examples", []), file, where)
            out.append(_Entry(f"{lang}.{key}", kind, description.strip(), template, flags, examples, file))
    return out


def _alternatives(source: str) -> bool:
    """Whether a regex's source is a list of alternatives at its top level (a ``|`` outside any group,
    class or escape)."""
    depth, i, in_class = 0, 0, False
    while i < len(source):
        c = source[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if source[i + 1:i + 2] == "]":  # "[]…]": a ] first in a class is one of its characters
                i += 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            return True
        i += 1
    return False


def _stands_alone(template: str, start: int, end: int) -> bool:
    """Whether the reference at ``template[start:end]`` is a whole alternative: nothing but a group's opening
    or a ``|`` before it, nothing but a group's end or a ``|`` after it."""
    before, after = template[:start], template[end:]
    return (before == "" or before.endswith(("|", "(")) or _GROUP_OPENING.search(before) is not None) \
        and (after == "" or after.startswith((")", "|")))


_GROUP_OPENING = re.compile(r"\(\?(?::|P<\w+>|[=!]|<[=!]|[aiLmsux-]+:)$")


def _uses(e: _Entry) -> tuple[str, ...]:
    return tuple(dict.fromkeys(f"{m.group(1)}.{m.group(2)}" for m in _REF.finditer(e.template)))


def parse_rules(sources: Mapping[str, str], names: Mapping[str, str] | None = None,
                steps: Mapping[str, str] | None = None) -> RuleSet:
    """The rule set of TOML texts by language (``{"zh": "...", ...}``) and of step files by step
    (``{"zh.lives_in": "...", ...}``, see ``records.py``); ``names`` gives each its file name for messages."""
    entries: list[_Entry] = []
    maps: dict[str, Mapping[str, str]] = {}
    sets: dict[str, frozenset[str]] = {}
    for lang, text in sources.items():
        file = (names or {}).get(lang, f"{lang}.toml")
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise RulesError(f"{file}: not valid TOML: {exc}") from exc
        entries.extend(_entries(lang, data, file))
        more_maps, more_sets = _tables(lang, data, file)
        maps.update(more_maps)
        sets.update(more_sets)
    cues = {e.name: e for e in entries if e.kind == "cue"}
    patterns: dict[str, _Entry] = {}
    for e in entries:
        if e.kind == "pattern":
            if e.name in patterns:
                raise _fail(e.file, f"pattern {e.name!r}", "defined twice")
            patterns[e.name] = e
    expanded: dict[str, str] = {}

    def expand(e: _Entry, stack: tuple[str, ...]) -> str:
        def ref(m: re.Match[str]) -> str:
            name = f"{m.group(1)}.{m.group(2)}"
            if name not in cues:
                raise _fail(e.file, f"{e.kind} {e.name!r}", f"refers to unknown cue {{{{{name}}}}}")
            if name in stack:
                raise _fail(e.file, f"{e.kind} {e.name!r}", f"cue {name!r} refers to itself: {' -> '.join(stack)}")
            if name not in expanded:
                expanded[name] = expand(cues[name], (*stack, name))
            if _alternatives(expanded[name]) and not _stands_alone(m.string, m.start(), m.end()):
                raise _fail(e.file, f"{e.kind} {e.name!r}",
                            f"cue {{{{{name}}}}} is a list of alternatives: write it in a group of its own, "
                            f"(?:{{{{{name}}}}}), or the text around it joins only its first or last one")
            return expanded[name]

        return _REF.sub(ref, e.template)

    rules: dict[str, Rule] = {}
    compiled: dict[str, re.Pattern[str]] = {}
    for e in cues.values():
        source = expand(e, (e.name,))
        rules[f"cue:{e.name}"] = Rule(e.name, "cue", e.description, source, 0, None, e.examples, e.file, _uses(e))
    for e in patterns.values():
        source = expand(e, ())
        try:
            regex = re.compile(source, e.flags)
        except re.error as exc:
            raise _fail(e.file, f"pattern {e.name!r}", f"does not compile: {exc}") from exc
        compiled[e.name] = regex
        rules[e.name] = Rule(e.name, "pattern", e.description, source, e.flags, regex, e.examples, e.file, _uses(e))
    parsed = {name: _step(name, text, (names or {}).get(name, f"steps/{name}.toml"), compiled,
                          lambda t, f: expand(_Entry("", "pattern", "", t, 0, (), f), ()))
              for name, text in (steps or {}).items()}
    for step in parsed.values():
        for record in step.records:
            if record.name in compiled:
                raise _fail(step.file, f"rule {record.id!r}", f"{record.name!r} is also a [pattern]")
    return RuleSet(MappingProxyType(rules), MappingProxyType(compiled),
                   MappingProxyType({name: expanded.get(name) or expand(e, (name,)) for name, e in cues.items()}),
                   MappingProxyType(maps), MappingProxyType(sets), MappingProxyType(parsed))


def _step(name: str, text: str, file: str, named: Mapping[str, re.Pattern[str]],
          expand: Callable[[str, str], str]) -> Step:
    """One step file, parsed: ``name`` is ``<lang>.<step>``, as the file is named."""
    lang, _, step = name.partition(".")
    if lang not in LANGUAGES or not _NAME.fullmatch(step):
        raise RulesError(f"{file}: a step file is named <lang>.<step>.toml")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesError(f"{file}: not valid TOML: {exc}") from exc

    def fail(where: str, message: str) -> RulesError:
        return _fail(file, where, message)

    def compile_(template: str, flags: int, where: str) -> re.Pattern[str]:
        try:
            return re.compile(expand(template, file), flags)
        except re.error as exc:
            raise fail(where, f"does not compile: {exc}") from exc
        except RulesError as exc:
            raise fail(where, str(exc).split(": ")[-1]) from exc

    reader = Reader(lang, file, compile_, named, _FLAGS, lambda raw, where: _examples(raw, file, where), fail)
    return parse_step(lang, step, data, reader)


def load_rules(folder: Path | None = None) -> RuleSet:
    """The rule set of ``data/rules`` (or of ``folder``): every file read, validated and compiled."""
    base = folder if folder is not None else data_path("rules")
    paths = {lang: base / f"{lang}.toml" for lang in LANGUAGES}
    steps = {p.stem: p for p in sorted((base / "steps").glob("*.toml"))}
    return parse_rules({lang: p.read_text(encoding="utf-8") for lang, p in paths.items()},
                       {name: str(p) for name, p in (*paths.items(), *steps.items())},
                       {name: p.read_text(encoding="utf-8") for name, p in steps.items()})


@cache
def _bundled() -> RuleSet:
    return load_rules()


RULES = _bundled()
