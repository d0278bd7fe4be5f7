"""Rules as declarative records: the format of ``data/rules/steps/<lang>.<step>.toml``.

A *step* is one family of predicates for one language (``zh.lives_in``, ``en.pet``); its file holds the
records the interpreter (``core/extract/interpret.py``) tries on a clause, in order. A record says what it
recognises and what that yields, not how::

    step = "lives_in"
    description = "Where the user lives."

    [[rule]]
    id = "moved_to"                      # a name for what it recognises: zh.lives_in.moved_to
    description = "a move to a place: 搬到了朝阳"
    pattern = '搬(?:到|去)了?({{zh.stop}}+)'   # a string or a list of strings joined; {{lang.cue}} substituted
    veto = [{on = "upto", pattern = '(?:如果|要是|假如)[^，,。]{0,6}搬|(?:公司|爸妈|朋友)(?:也|都)*搬(?:到|去)'}]
    yields = {predicate = "lives_in", object = "{1}", change = "evolution"}
    post = ["zh_new_home", "clean"]
    group = "where"
    examples = [{text = "上个月我从海淀搬到了朝阳。", yields = [["lives_in", "朝阳", "positive"]]}]

Keys of a record:

``pattern`` / ``first_of``
    the regex (with ``flags``), or alternatives tried in order, the first that matches being the match:
    ``first_of = [{pattern = ..., how = "match", on = "whole", read = [...], requires = [...]}, ...]`` (an
    alternative may ``use`` a named ``[pattern]`` of the language files instead).
``how``, ``on``, ``read``, ``each``
    ``search`` (default), ``match`` or ``fullmatch``; the text read (``clause``, default, or ``whole``, the
    turn); the text transformations applied first (post-processing steps, below); ``each = true`` yields one
    fact per match (``finditer``).
``requires`` / ``unless``
    conditions that must / must not hold for the record to *fire*; when it does not, the next record of its
    ``group`` is tried.
``veto``
    conditions under which the record fires but yields nothing (the rest of its group is skipped).
``group``
    records sharing a group are alternatives (an if/elif chain): after one fires, the others are skipped.
``yields``
    a fact, or a list of facts: ``predicate``, ``object`` (a template: ``"{1}"``, ``"{animal}（{name}）"``,
    ``"{1|lower} ({2})"`` with a post-processor applied to a group, a literal; or a list of templates, the
    first that is not empty), ``polarity`` (default positive), ``change`` (``evolution`` …) with
    ``change_when`` (conditions; without them the change always holds), ``when`` (conditions under which
    this fact is yielded; ``object`` in them is this fact's); ``introduced = true`` marks a name from a bare
    self-introduction, which yields to a form of address asked for.
``post``
    the steps that turn the template's text into the object: a registered post-processor's name
    (``"clean"``, ``"lower"``; see ``interpret.POST``), ``{drop = regex}``, ``{sub = regex, with = text}``,
    ``{keep = regex}`` (what the regex matches at the start, when it does),
    ``{strip = chars}`` or ``{map = "lang.map"}`` (the text looked up, kept when it is not there; with
    ``key = "lower"`` looked up in lower case; with ``key = "strict"``, empty when it is not there; with
    ``otherwise = [...]``, those steps applied when it is not there). An empty object is yielded too (the extractor drops it in
    the end, but later records see it) unless a veto ``{on = "object", test = "empty"}`` prevents it.
``stop``
    ``true``: a fact from this record ends the clause's later steps.
``supersedes``
    predicates whose facts found earlier in the clause, holding this record's object, it replaces (a new
    employer said as 下周一去小红书报到 is no plan).

A step file may also say how every record reads the clause: ``read = [...]`` at its top level (the clause
with those edits is then ``clause`` for its records).

A condition is a table: ``{on = ..., pattern = regex}`` (or ``use = "lang.pattern"``, a named
``[pattern]`` of the language files; with ``how``), ``{on = ..., test = name}`` (a registered test, with an
optional ``arg``), ``{on = ..., within = "lang.set"}`` (the text is a word of that set), ``{fired = id}`` (a
record of the same step fired on this clause), ``{all = [...]}`` or ``{any = [...]}``; ``negate = true`` turns
any of them round. ``on`` names the text tested: ``clause`` (default), ``whole``, ``text`` (what the record
read), ``before`` the match (``before+2``: and its first two characters), ``upto`` or ``after`` it, a group
(``"1"``, ``"name"``), ``raw`` (the template's text) or ``object`` (after ``post``).

Examples are those of the other rules (``ruleset.py``): each is run through ``extract()`` and the record's
pattern must match while it is read.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Alternative", "Condition", "Edit", "Raw", "Reader", "Record", "Step", "Yield", "conditions_of", "parse_step"]

HOW = ("search", "match", "fullmatch")
CHANGES = ("evolution", "correction")
POLARITIES = ("positive", "negative")
_RECORD_KEYS = {"id", "description", "pattern", "flags", "first_of", "how", "on", "read", "each", "requires",
                "unless", "veto", "group", "yields", "post", "stop", "supersedes", "examples"}
_YIELD_KEYS = {"predicate", "object", "polarity", "change", "change_when", "when", "introduced", "due"}
_CONDITION_KEYS = {"on", "pattern", "use", "flags", "how", "test", "arg", "within", "fired", "all", "any", "negate"}
_ALTERNATIVE_KEYS = {"pattern", "use", "flags", "how", "on", "requires", "read"}
_REF = re.compile(r"\{\{([a-z]+\.[a-z0-9_.]+)\}\}")
_ID = re.compile(r"[a-z][a-z0-9_]*")


@dataclass(frozen=True)
class Raw:
    """A fact as a rule reads it, before it becomes an ``ExtractedFact``."""

    predicate: str
    object: str
    polarity: str = "positive"
    change: str | None = None
    value: dict | None = None
    condition: str | None = None
    introduced: bool = False  # a name from a bare self-introduction: yields to a form of address asked for
    due: str | None = None  # the text naming when it is due, when the rule found it (a deadline's date)
    hedged: bool = False  # said unsure (可能会换工作, "might sell the boat"): below the review threshold


@dataclass(frozen=True)
class Condition:
    """One test on a text of the clause (see the module docstring); exactly one of its kinds is set."""

    on: str = "clause"
    regex: re.Pattern[str] | None = None
    how: str = "search"
    use: str | None = None  # the named pattern's name (regex is then that pattern)
    test: str | None = None
    arg: str | None = None
    within: str | None = None
    fired: str | None = None
    all: tuple[Condition, ...] = ()
    any: tuple[Condition, ...] = ()
    negate: bool = False  # the condition holds when its test does not


@dataclass(frozen=True)
class Edit:
    """One post-processing step: a registered name, or a drop / sub / strip / map."""

    kind: str  # "name", "drop", "sub", "keep", "strip", "map"
    name: str = ""  # the post-processor's or the map's name
    regex: re.Pattern[str] | None = None
    text: str = ""  # the replacement (sub), the characters (strip) or how a map is looked up ("lower", "strict")
    otherwise: tuple[Edit, ...] = ()  # a map's edits for a text it does not hold


@dataclass(frozen=True)
class Alternative:
    """A pattern a record tries, on a text (after ``read``), with conditions of its own."""

    regex: re.Pattern[str]
    how: str = "search"
    on: str = "clause"
    requires: tuple[Condition, ...] = ()
    read: tuple[Edit, ...] = ()
    use: str | None = None  # the named pattern's name, when it is one

    find: Callable[[str], re.Match[str] | None] = field(init=False, repr=False, compare=False)  # search/match/…
    before: tuple[Condition, ...] = field(init=False, repr=False, compare=False)  # requires tested before matching
    after: tuple[Condition, ...] = field(init=False, repr=False, compare=False)  # requires that need the match

    def __post_init__(self) -> None:
        object.__setattr__(self, "find", getattr(self.regex, self.how))
        object.__setattr__(self, "before", tuple(c for c in self.requires if _without_match(c)))
        object.__setattr__(self, "after", tuple(c for c in self.requires if not _without_match(c)))


def _without_match(c: Condition) -> bool:
    """Whether a condition can be tested before the record's pattern is matched (it reads no match, group
    or object)."""
    return c.on in ("clause", "whole", "text") and all(_without_match(x) for x in (*c.all, *c.any))


@dataclass(frozen=True)
class Yield:
    """One fact a record yields: its predicate, object templates (the first non-empty one is the object),
    polarity, change (kept when ``change_when`` holds), and the conditions under which it is yielded."""

    predicate: str
    objects: tuple[str, ...]
    polarity: str = "positive"
    change: str | None = None
    change_when: tuple[Condition, ...] = ()
    when: tuple[Condition, ...] = ()
    introduced: bool = False  # a name from a bare self-introduction (Raw.introduced)
    due: str | None = None  # a template of the text naming when it is due (Raw.due)


@dataclass(frozen=True)
class Record:
    """One rule: what it reads, under which conditions, and the fact it yields."""

    name: str  # qualified: "zh.lives_in.moved_to"
    id: str  # within its step: "moved_to"
    description: str
    alternatives: tuple[Alternative, ...]
    yields: tuple[Yield, ...]
    read: tuple[Edit, ...] = ()
    each: bool = False
    requires: tuple[Condition, ...] = ()
    unless: tuple[Condition, ...] = ()
    veto: tuple[Condition, ...] = ()
    group: str | None = None
    post: tuple[Edit, ...] = ()
    stop: bool = False
    supersedes: tuple[str, ...] = ()  # predicates whose facts in the clause holding this object it replaces
    examples: tuple[Any, ...] = ()  # ruleset.Example
    file: str = ""
    kind: str = "record"
    uses: tuple[str, ...] = ()  # the cues its patterns name ({{lang.name}})
    # the one pattern's search/match/fullmatch on the clause as is, when that is all the record reads
    quick: Callable[[str], re.Match[str] | None] | None = field(default=None, init=False, repr=False,
                                                                  compare=False)

    def __post_init__(self) -> None:
        [alt, *more] = self.alternatives
        if not more and not self.each and not self.read and not alt.read and alt.on == "clause" \
                and not alt.requires:
            object.__setattr__(self, "quick", alt.find)


@dataclass(frozen=True)
class Step:
    """The records of one step of one language, in the order they are tried."""

    name: str  # "zh.lives_in"
    description: str
    records: tuple[Record, ...]
    file: str
    read: tuple[Edit, ...] = ()  # edits that make the clause every record reads


class Reader:
    """Parses one step file; ``compile_`` expands cues and compiles, ``named`` finds a ``[pattern]``,
    ``fail`` builds the error naming the file and the record."""

    def __init__(self, lang: str, file: str, compile_: Callable[[str, int, str], re.Pattern[str]],
                 named: Mapping[str, re.Pattern[str]], flag_names: Mapping[str, int],
                 examples: Callable[[Any, str], tuple[Any, ...]], fail: Callable[[str, str], Exception]) -> None:
        self.lang, self.file, self.compile, self.named = lang, file, compile_, named
        self.flag_names, self.examples, self.fail = flag_names, examples, fail
        self.uses: dict[str, None] = {}  # the cues named by the record being read

    def flags(self, raw: Any, where: str) -> int:
        if not isinstance(raw, list) or not all(f in self.flag_names for f in raw):
            raise self.fail(where, f"flags must be a list of {', '.join(self.flag_names)}")
        out = 0
        for f in raw:
            out |= self.flag_names[f]
        return out

    def pattern(self, raw: Any, flags: Any, where: str) -> re.Pattern[str]:
        if isinstance(raw, list) and raw and all(isinstance(p, str) for p in raw):
            raw = "".join(raw)
        if not isinstance(raw, str):
            raise self.fail(where, "a pattern is a string or a list of strings")
        self.uses.update(dict.fromkeys(_REF.findall(raw)))
        return self.compile(raw, self.flags(flags or [], where), where)

    def how(self, raw: Any, where: str) -> str:
        if raw not in HOW:
            raise self.fail(where, f"how must be one of {', '.join(HOW)}")
        return str(raw)

    def text(self, raw: Any, where: str, key: str) -> str:
        if not isinstance(raw, str) or not raw:
            raise self.fail(where, f"{key} must be a non-empty string")
        return raw

    def conditions(self, raw: Any, where: str) -> tuple[Condition, ...]:
        if not isinstance(raw, list):
            raise self.fail(where, "conditions are a list of tables")
        return tuple(self.condition(c, where) for c in raw)

    def condition(self, raw: Any, where: str) -> Condition:
        if isinstance(raw, dict) and raw.get("negate") is True:
            return dataclasses.replace(self.condition({k: v for k, v in raw.items() if k != "negate"}, where),
                                       negate=True)
        if not isinstance(raw, dict) or set(raw) - _CONDITION_KEYS:
            raise self.fail(where, f"a condition is a table of {sorted(_CONDITION_KEYS)}")
        kinds = [k for k in ("pattern", "use", "test", "within", "fired", "all", "any") if k in raw]
        if len(kinds) != 1:
            raise self.fail(where, "a condition has exactly one of pattern, use, test, within, fired, all, any")
        on = self.text(raw.get("on", "clause"), where, "on")
        how = self.how(raw.get("how", "search"), where)
        kind = kinds[0]
        if kind == "pattern":
            return Condition(on, self.pattern(raw["pattern"], raw.get("flags"), where), how)
        if kind == "use":
            name = self.text(raw["use"], where, "use")
            if name not in self.named:
                raise self.fail(where, f"uses unknown pattern {name!r}")
            return Condition(on, self.named[name], how, use=name)
        if kind == "all":
            return Condition(on, all=self.conditions(raw[kind], where))
        if kind == "any":
            return Condition(on, any=self.conditions(raw[kind], where))
        value = self.text(raw[kind], where, kind)
        arg = raw.get("arg")
        if arg is not None and not isinstance(arg, str):
            raise self.fail(where, "arg must be a string")
        if kind == "test":
            return Condition(on, how=how, test=value, arg=arg)
        if kind == "within":
            return Condition(on, how=how, within=value)
        return Condition(on, how=how, fired=value)

    def names(self, raw: Any, where: str) -> tuple[str, ...]:
        if not isinstance(raw, list) or not all(isinstance(n, str) and n for n in raw):
            raise self.fail(where, "supersedes is a list of predicates")
        return tuple(raw)

    def edits(self, raw: Any, where: str) -> tuple[Edit, ...]:
        if not isinstance(raw, list):
            raise self.fail(where, "post and read are lists")
        out = []
        for e in raw:
            if isinstance(e, str):
                out.append(Edit("name", e))
            elif isinstance(e, dict) and set(e) in ({"drop"}, {"drop", "flags"}):
                out.append(Edit("drop", regex=self.pattern(e["drop"], e.get("flags"), where)))
            elif isinstance(e, dict) and set(e) in ({"sub", "with"}, {"sub", "with", "flags"}):
                out.append(Edit("sub", regex=self.pattern(e["sub"], e.get("flags"), where),
                                text=str(e["with"])))
            elif isinstance(e, dict) and set(e) in ({"keep"}, {"keep", "flags"}):
                out.append(Edit("keep", regex=self.pattern(e["keep"], e.get("flags"), where)))
            elif isinstance(e, dict) and set(e) == {"strip"}:
                out.append(Edit("strip", text=self.text(e["strip"], where, "strip")))
            elif isinstance(e, dict) and "map" in e and set(e) <= {"map", "key", "otherwise"} \
                    and e.get("key", "lower") in ("lower", "strict") and not ("key" in e and "otherwise" in e):
                out.append(Edit("map", name=self.text(e["map"], where, "map"), text=e.get("key", ""),
                                otherwise=self.edits(e.get("otherwise", []), where)))
            else:
                raise self.fail(where, "a post/read step is a name, {drop}, {sub, with}, {keep}, {strip} or {map}")
        return tuple(out)

    def alternatives(self, raw: Mapping[str, Any], where: str) -> tuple[Alternative, ...]:
        how, on = self.how(raw.get("how", "search"), where), self.text(raw.get("on", "clause"), where, "on")
        if ("pattern" in raw) == ("first_of" in raw):
            raise self.fail(where, "needs exactly one of pattern and first_of")
        if "pattern" in raw:
            return (Alternative(self.pattern(raw["pattern"], raw.get("flags"), where), how, on),)
        if not isinstance(raw["first_of"], list) or not raw["first_of"]:
            raise self.fail(where, "first_of is a non-empty list")
        out = []
        for alt in raw["first_of"]:
            if isinstance(alt, str | list):
                alt = {"pattern": alt}
            if not isinstance(alt, dict) or set(alt) - _ALTERNATIVE_KEYS or ("pattern" in alt) == ("use" in alt):
                raise self.fail(where, f"an alternative is a pattern or a table of {sorted(_ALTERNATIVE_KEYS)} "
                                       "with one of pattern and use")
            if "use" in alt and alt["use"] not in self.named:
                raise self.fail(where, f"uses unknown pattern {alt['use']!r}")
            regex = self.named[alt["use"]] if "use" in alt else self.pattern(alt["pattern"], alt.get("flags"), where)
            out.append(Alternative(regex, self.how(alt.get("how", how), where), self.text(alt.get("on", on), where, "on"),
                                   self.conditions(alt.get("requires", []), where),
                                   self.edits(alt.get("read", []), where), alt.get("use")))
        return tuple(out)

    def yielded(self, raw: Any, where: str) -> Yield:
        if not isinstance(raw, dict) or set(raw) - _YIELD_KEYS or "predicate" not in raw:
            raise self.fail(where, f"yields must be a table of {sorted(_YIELD_KEYS)} with a predicate")
        objects = raw.get("object", "{1}")
        objects = [objects] if isinstance(objects, str) else objects
        if not isinstance(objects, list) or not all(isinstance(o, str) for o in objects):
            raise self.fail(where, "object is a template or a list of templates")
        polarity, change = raw.get("polarity", "positive"), raw.get("change")
        if polarity not in POLARITIES or change not in (None, *CHANGES):
            raise self.fail(where, f"polarity is one of {POLARITIES}, change one of {CHANGES}")
        return Yield(self.text(raw["predicate"], where, "predicate"), tuple(objects), polarity, change,
                     self.conditions(raw.get("change_when", []), where), self.conditions(raw.get("when", []), where),
                     raw.get("introduced", False) is True,
                     self.text(raw["due"], where, "due") if "due" in raw else None)

    def record(self, step: str, raw: Any, ids: set[str]) -> Record:
        where = f"rule {raw.get('id')!r}" if isinstance(raw, dict) else "rule"
        if not isinstance(raw, dict):
            raise self.fail(where, "a rule is a table")
        unknown = set(raw) - _RECORD_KEYS
        if unknown:
            raise self.fail(where, f"unknown key(s) {sorted(unknown)}")
        rid = raw.get("id")
        if not isinstance(rid, str) or not _ID.fullmatch(rid):
            raise self.fail(where, "id must be a lower-case name (what the rule recognises)")
        if rid in ids:
            raise self.fail(where, "defined twice")
        ids.add(rid)
        self.uses = {}
        description = raw.get("description")
        if not isinstance(description, str) or not description.strip():
            raise self.fail(where, "needs a description")
        yields = raw.get("yields")
        yields = [yields] if isinstance(yields, dict) else yields
        if not isinstance(yields, list) or not yields:
            raise self.fail(where, "yields must be a table or a list of tables")
        group = raw.get("group")
        if group is not None and not isinstance(group, str):
            raise self.fail(where, "group must be a string")
        if not isinstance(raw.get("each", False), bool) or not isinstance(raw.get("stop", False), bool):
            raise self.fail(where, "each and stop are true or false")
        return Record(
            name=f"{self.lang}.{step}.{rid}", id=rid, description=description.strip(),
            alternatives=self.alternatives(raw, where), yields=tuple(self.yielded(y, where) for y in yields),
            read=self.edits(raw.get("read", []), where), each=raw.get("each", False),
            requires=self.conditions(raw.get("requires", []), where),
            unless=self.conditions(raw.get("unless", []), where), veto=self.conditions(raw.get("veto", []), where),
            group=group, post=self.edits(raw.get("post", []), where), stop=raw.get("stop", False),
            supersedes=self.names(raw.get("supersedes", []), where),
            examples=self.examples(raw.get("examples", []), where), file=self.file, uses=tuple(self.uses))


def parse_step(lang: str, step: str, data: Mapping[str, Any], reader: Reader) -> Step:
    """The step of one parsed file (``data`` from TOML), every record validated and compiled."""
    unknown = set(data) - {"step", "description", "read", "rule"}
    if unknown:
        raise reader.fail("top level", f"unknown key(s) {sorted(unknown)}; expected step, description, read, [[rule]]")
    if data.get("step") != step:
        raise reader.fail("top level", f"step must be {step!r}, as the file is named")
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        raise reader.fail("top level", "needs a description")
    rules = data.get("rule", [])
    if not isinstance(rules, list):
        raise reader.fail("top level", "rules are [[rule]] tables")
    ids: set[str] = set()
    records = tuple(reader.record(step, r, ids) for r in rules)
    for r in records:
        for c in conditions_of(r):
            if c.fired is not None and c.fired not in ids:
                raise reader.fail(f"rule {r.id!r}", f"names unknown rule {c.fired!r} as fired")
    return Step(f"{lang}.{step}", description.strip(), records, reader.file, reader.edits(data.get("read", []), "read"))


def conditions_of(r: Record) -> list[Condition]:
    """Every condition of a record, nested ones included (for checking registered names)."""
    todo = [*r.requires, *r.unless, *r.veto, *(c for y in r.yields for c in (*y.change_when, *y.when)),
            *(c for a in r.alternatives for c in a.requires)]
    out = []
    while todo:
        c = todo.pop()
        out.append(c)
        todo.extend((*c.all, *c.any))
    return out
