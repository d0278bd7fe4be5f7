"""The interpreter of rule records (``records.py``): one step's records tried on one clause.

``run_step(step, clause)`` goes through the step's records in order. A record *matches* when one of its
patterns does, *fires* when, moreover, its ``requires`` hold and its ``unless`` do not (then the later records
of its ``group`` are skipped), and *yields* a fact unless a ``veto`` holds (a fact with an empty object still counts for the later records and
steps of the clause, as ``{on = "object", test = "empty"}`` in a veto can prevent; the extractor drops it in
the end).

What a record cannot say in a pattern it names: a post-processor (``POST``, a function of the object text)
or a test (``TESTS``, a predicate of a text). Both are registered by ``rules/steps.py`` with ``@post(name)``
and ``@test(name)``; ``check_names`` verifies, once the registry is complete, that every name a record uses exists.

A step reads a clause and, for some of its rules, the whole turn (``Clause.whole``). The whole turn is a
``Whole``: what a rule asks of it (a pattern searched, a text looked for) is worked out once per turn and
remembered, not once per clause; asked per clause, the turn was read once for every clause of it, and
reading a turn took time growing with the square of its length.

``tracing()`` collects the names of the records (and the named patterns of their conditions) that match while
it is active, for ``tests/test_rule_examples.py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any, TypeVar, cast

from .records import Alternative, Condition, Edit, Raw, Record, Step, Yield, conditions_of

__all__ = ["POST", "TESTS", "Clause", "Whole", "check_names", "post", "run_step", "searched", "test", "tracing"]

_T = TypeVar("_T")


class Whole(str):
    """The text of a whole turn (as the rules read it), shared by its clauses, with the answers to what the
    rules asked of it: ``once(key, work)`` does ``work()`` the first time ``key`` is asked and gives the same
    answer after that. ``worked`` counts the answers worked out (each a pass over the text at most), so a
    test can check that it does not grow with the number of clauses. A plain ``str`` everywhere else."""

    asked: dict[Hashable, Any]
    worked: int

    def __new__(cls, text: str) -> Whole:
        self = super().__new__(cls, text)
        self.asked = {}
        self.worked = 0
        return self

    def once(self, key: Hashable, work: Callable[[], _T]) -> _T:
        try:
            return cast(_T, self.asked[key])
        except KeyError:
            self.worked += 1
            answer = self.asked[key] = work()
            return answer


def searched(pattern: re.Pattern[str], text: str, how: str = "search") -> re.Match[str] | None:
    """``pattern.search(text)`` (or ``match``, ``fullmatch``): for a ``Whole`` text, worked out once."""
    find = getattr(pattern, how)
    if isinstance(text, Whole):
        return text.once((how, pattern), lambda: find(text))
    return cast("re.Match[str] | None", find(text))


@dataclass
class Clause:
    """What a step reads: the clause, the whole turn, when it was said, whether it is a project's turn, its
    language, and the facts found so far in the clause (the step appends to them)."""

    text: str
    whole: str
    when: datetime
    project: bool
    zh: bool
    out: list[Raw]


PostFn = Callable[[str, Clause], str]
TestFn = Callable[[str, Clause, str | None], bool]
POST: dict[str, PostFn] = {}
TESTS: dict[str, TestFn] = {}
_MAPS: dict[str, Mapping[str, str]] = {}
_trace: set[str] | None = None


def post(name: str) -> Callable[[PostFn], PostFn]:
    """Register a post-processor under ``name``: ``(object, clause) -> object``."""
    def register(fn: PostFn) -> PostFn:
        POST[name] = fn
        return fn
    return register


def test(name: str) -> Callable[[TestFn], TestFn]:
    """Register a test under ``name``: ``(text, clause, arg) -> bool``."""
    def register(fn: TestFn) -> TestFn:
        TESTS[name] = fn
        return fn
    return register


def check_names(steps: Mapping[str, Step], maps: Mapping[str, Mapping[str, str]],
                sets: Mapping[str, frozenset[str]]) -> None:
    """Raise ValueError naming the record when one uses a post-processor, test, map or set that is not there."""
    _MAPS.update(maps)
    for step in steps.values():
        for r in step.records:
            edits = [*step.read, *r.read, *r.post, *(e for a in r.alternatives for e in a.read)]
            while edits:
                e = edits.pop()
                edits.extend(e.otherwise)
                if e.kind == "name" and e.name not in POST or e.kind == "map" and e.name not in maps:
                    raise ValueError(f"{r.file}: rule {r.name!r}: unknown post-processor or map {e.name!r}")
            for fact in r.yields:
                for template in fact.objects:
                    for _, name in _TEMPLATE.findall(template):
                        if name and name not in POST:
                            raise ValueError(f"{r.file}: rule {r.name!r}: unknown post-processor {name!r}")
            for c in conditions_of(r):
                if c.test is not None and c.test not in TESTS \
                        or c.within is not None and c.within not in sets and c.within not in maps:
                    raise ValueError(f"{r.file}: rule {r.name!r}: unknown test or set {c.test or c.within!r}")
    _SETS.update(sets)


_SETS: dict[str, frozenset[str]] = {}


@contextmanager
def tracing() -> Iterator[set[str]]:
    """The names of the records and named patterns that match while the block runs."""
    global _trace
    saved, _trace = _trace, set()
    try:
        yield _trace
    finally:
        _trace = saved


def _edit(text: str, e: Edit, c: Clause) -> str:
    if e.kind == "name":
        return POST[e.name](text, c)
    if e.kind == "drop":
        assert e.regex is not None
        return e.regex.sub("", text)
    if e.kind == "sub":
        assert e.regex is not None
        return e.regex.sub(e.text, text)
    if e.kind == "keep":
        assert e.regex is not None
        kept = e.regex.match(text)
        return kept.group(0) if kept else text
    if e.kind == "strip":
        return text.strip(e.text)
    if e.text == "strict":
        return _MAPS[e.name].get(text, "")
    if e.otherwise:
        table = _MAPS[e.name]
        return table[text] if text in table else _apply(text, e.otherwise, c)
    return _MAPS[e.name].get(text.lower() if e.text else text, text)


def _apply(text: str, edits: tuple[Edit, ...], c: Clause) -> str:
    for e in edits:
        text = _edit(text, e, c)
    return text


class _Reading:
    """One record's match on a clause, and the texts its conditions name (a fact's object computed when
    asked: ``raw`` is its template filled in, ``object`` that after ``post``)."""

    def __init__(self, record: Record, c: Clause, text: str, m: re.Match[str] | None, fired: set[str]) -> None:
        self.record, self.c, self.text, self.m, self.fired = record, c, text, m, fired
        self.fact: Yield = record.yields[0]
        self._raw: dict[int, str] = {}
        self._object: dict[int, str] = {}

    def raw(self) -> str:
        key = id(self.fact)
        if key not in self._raw:
            assert self.m is not None
            self._raw[key] = next((t for t in (_fill(o, self.m, self.c) for o in self.fact.objects) if t), "")
        return self._raw[key]

    def object(self) -> str:
        key = id(self.fact)
        if key not in self._object:
            self._object[key] = _apply(self.raw(), self.record.post, self.c)
        return self._object[key]

    def span(self, on: str) -> str:
        m, c = self.m, self.c
        if on == "clause":
            return c.text
        if on == "whole":
            return c.whole
        if on == "text":
            return self.text
        assert m is not None, "a condition tested before matching reads no match"
        if on == "before":
            return self.text[:m.start()]
        if on.startswith("before+"):
            return self.text[:m.start() + int(on[7:])]
        if on == "upto":
            return self.text[:m.end()]
        if on == "after":
            return self.text[m.end():]
        if on == "raw":
            return self.raw()
        if on == "object":
            return self.object()
        return m.group(int(on) if on.isdigit() else on) or ""

    def holds(self, cond: Condition) -> bool:
        return self._holds(cond) != cond.negate

    def _holds(self, cond: Condition) -> bool:
        if cond.fired is not None:
            return cond.fired in self.fired
        if cond.all:
            return all(self.holds(x) for x in cond.all)
        if cond.any:
            return any(self.holds(x) for x in cond.any)
        text = self.span(cond.on)
        if cond.regex is not None:
            found = searched(cond.regex, text, cond.how) is not None
            if found and cond.use is not None and _trace is not None:
                _trace.add(cond.use)
            return found
        if cond.within is not None:
            return text in (_SETS[cond.within] if cond.within in _SETS else _MAPS[cond.within])
        assert cond.test is not None
        return TESTS[cond.test](text, self.c, cond.arg)


def _fill(template: str, m: re.Match[str], c: Clause) -> str:
    """A template with its groups filled in: ``{1}``, ``{name}``, ``{1|lower}`` (a post-processor applied)."""
    if "{" not in template:
        return template

    def group(g: re.Match[str]) -> str:
        text = m.group(int(g.group(1)) if g.group(1).isdigit() else g.group(1)) or ""
        return POST[g.group(2)](text, c) if g.group(2) else text

    return _TEMPLATE.sub(group, template)


_TEMPLATE = re.compile(r"\{(\w+)(?:\|(\w+))?\}")


def _text(record: Record, alt: Alternative, c: Clause) -> str:
    """The text an alternative reads: the clause or the turn, with the record's and its own edits."""
    text = c.whole if alt.on == "whole" else c.text
    if record.read:
        text = _apply(text, record.read, c)
    return _apply(text, alt.read, c) if alt.read else text


def _first_match(record: Record, c: Clause, fired: set[str]) -> tuple[str, re.Match[str], Alternative] | None:
    """The match of the first alternative that matches (and whose own conditions hold)."""
    for alt in record.alternatives:
        text = _text(record, alt, c) if record.read or alt.read or alt.on != "clause" else c.text
        if alt.before and not all(_Reading(record, c, text, None, fired).holds(x) for x in alt.before):
            continue
        m = text.once(("find", id(alt)), partial(alt.find, text)) if isinstance(text, Whole) else alt.find(text)
        if m is not None and (not alt.after or all(_Reading(record, c, text, m, fired).holds(x) for x in alt.after)):
            return text, m, alt
    return None


def _every_match(record: Record, c: Clause) -> list[tuple[str, re.Match[str], Alternative]]:
    """With ``each``: every match of the first alternative that matches."""
    for alt in record.alternatives:
        text = _text(record, alt, c)
        every = [(text, m, alt) for m in alt.regex.finditer(text)]
        if every:
            return every
    return []


def run_step(step: Step, c: Clause) -> bool:
    """Try the step's records on the clause, appending what they yield to ``c.out``; True when a record that
    ``stop``s yielded a fact (the clause's later steps are then skipped)."""
    if step.read:
        c = Clause(_apply(c.text, step.read, c), c.whole, c.when, c.project, c.zh, c.out)
    fired: set[str] = set()
    done_groups: set[str] = set()
    for record in step.records:
        if record.group is not None and record.group in done_groups:
            continue
        if record.quick is not None:
            m = record.quick(c.text)
            if m is None:
                continue
            found = [(c.text, m, record.alternatives[0])]
        elif record.each:
            found = _every_match(record, c)
        else:
            first = _first_match(record, c, fired)
            if first is None:
                continue
            found = [first]
        for text, m, alt in found:
            if _trace is not None:
                _trace.add(record.name)
                if alt.use is not None:
                    _trace.add(alt.use)
            reading = _Reading(record, c, text, m, fired)
            if record.requires and not all(reading.holds(x) for x in record.requires) \
                    or record.unless and any(reading.holds(x) for x in record.unless):
                continue
            fired.add(record.id)
            if record.group is not None:
                done_groups.add(record.group)
            if record.veto and any(reading.holds(x) for x in record.veto):
                continue
            for fact in record.yields:
                reading.fact = fact
                if fact.when and not all(reading.holds(x) for x in fact.when):
                    continue
                change = fact.change if not fact.change_when or all(reading.holds(x) for x in fact.change_when) \
                    else None
                obj = reading.object()
                if record.supersedes:
                    c.out[:] = [r for r in c.out if not (r.predicate in record.supersedes and obj in r.object)]
                due = _fill(fact.due, m, c) if fact.due is not None and m is not None else None
                c.out.append(Raw(fact.predicate, obj, fact.polarity, change, introduced=fact.introduced,
                                 due=due or None))
            if record.stop:
                return True
    return False
