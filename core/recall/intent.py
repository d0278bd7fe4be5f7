"""What a recall query names: predicates (in Chinese or English) and subjects.

A query that names a predicate ("预算上限是多少", "where does she live now") is
answered from the structured path first: the store's current value is exact,
where the vector path could only tilt towards it. Predicates are recognised by
the catalog's labels and the optional ``aliases_zh`` / ``aliases_en`` lists of
each catalog entry (``data/predicates.toml``). Overlapping matches keep the
longest ("不喜欢" is dislikes, not likes).

Subjects are recognised by the name part of a subject id (``alice`` in
``user:alice``) and by the current ``name`` fact of a subject (王工 → user:alice).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..catalog import Catalog
from ..lang.text import fold_case, is_chinese


@dataclass(frozen=True, slots=True)
class Mention:
    """A stretch of the query that names something (a predicate id or a subject)."""

    target: str
    start: int
    end: int
    phrase: str


def _pattern(phrase: str) -> re.Pattern[str]:
    phrase = fold_case(phrase).strip()
    if is_chinese(phrase):
        return re.compile(re.escape(phrase))
    words = [re.escape(w) for w in phrase.split()]
    # whole words, allowing simple inflections: live/lives/lived/living
    return re.compile(r"(?<![a-z0-9])" + r"\s+".join(words) + r"(?:s|es|d|ed|ing)?(?![a-z0-9])")


def _longest_first(found: list[Mention]) -> list[Mention]:
    found.sort(key=lambda m: (-(m.end - m.start), m.start))
    taken: list[Mention] = []
    for m in found:
        if all(m.end <= t.start or m.start >= t.end for t in taken):
            taken.append(m)
    return sorted(taken, key=lambda m: m.start)


class PredicateMatcher:
    """Finds catalog predicates named in a query."""

    def __init__(self, phrases: dict[str, list[str]]) -> None:
        self._patterns = [(pid, p, _pattern(p)) for pid, ps in phrases.items()
                          for p in dict.fromkeys(ps) if p.strip()]

    @classmethod
    def from_catalog(cls, catalog: Catalog) -> PredicateMatcher:
        """Labels of every catalogued predicate plus the aliases in its file."""
        aliases: dict = {}
        try:
            doc = tomllib.loads(Path(catalog.path).read_text(encoding="utf-8"))
            aliases = doc.get("predicates", {})
        except (OSError, tomllib.TOMLDecodeError):
            pass
        phrases: dict[str, list[str]] = {}
        for p in catalog:
            entry = aliases.get(p.id, {}) if isinstance(aliases.get(p.id), dict) else {}
            extra = [str(a) for key in ("aliases_zh", "aliases_en")
                     for a in (entry.get(key) or []) if isinstance(a, str)]
            phrases[p.id] = [p.zh, p.en, *extra]
        return cls(phrases)

    def find(self, query: str) -> list[Mention]:
        text = fold_case(query)
        found = [Mention(pid, m.start(), m.end(), phrase)
                 for pid, phrase, pat in self._patterns for m in pat.finditer(text)]
        return _longest_first(found)

    def predicates(self, query: str) -> list[str]:
        """Predicate ids named in the query, in the order they appear, once each."""
        return list(dict.fromkeys(m.target for m in self.find(query)))


class SubjectMatcher:
    """Finds subjects named in a query, by subject id name or by their name fact.

    A store may hold many thousands of subjects, so the name patterns are
    filed by a key the query must contain for them to match (a name's first
    word, or the first two characters of a Chinese name) and only the patterns
    under the query's words and character pairs are tried: the cost follows
    the query's length, not the number of subjects."""

    def __init__(self, names: dict[str, set[str]]) -> None:
        self._by_key: dict[str, list[tuple[str, str, re.Pattern[str]]]] = {}
        self._unkeyed: list[tuple[str, str, re.Pattern[str]]] = []
        for subject, ns in names.items():
            for n in sorted(ns):
                if len(n.strip()) < 2:
                    continue
                entry = (subject, n, _pattern(n))
                key = _name_key(n)
                if key is None:
                    self._unkeyed.append(entry)
                else:
                    self._by_key.setdefault(key, []).append(entry)

    @classmethod
    def build(cls, subjects: list[str], name_facts: list[tuple[str, str]]) -> SubjectMatcher:
        names: dict[str, set[str]] = {}
        for s in subjects:
            names.setdefault(s, set()).add(s.split(":", 1)[-1])
        for s, name in name_facts:
            names.setdefault(s, set()).add(name)
        return cls(names)

    def subjects(self, query: str) -> list[str]:
        """Subjects the query names, each once, longest name first."""
        return list(dict.fromkeys(m.target for m in self.mentions(query)))

    def without_names(self, query: str) -> str:
        """The query (folded) with the names of the subjects it names blanked
        out: what it asks about them ("Does Carol have any animals?" →
        "does       have any animals?"), for ranking within their items,
        where the name itself singles out nothing."""
        text = fold_case(query)
        for m in self.mentions(query):
            text = text[:m.start] + " " * (m.end - m.start) + text[m.end:]
        return text

    def mentions(self, query: str) -> list[Mention]:
        """Where the query names subjects (offsets into the folded query),
        overlapping matches resolved to the longest."""
        text = fold_case(query)
        keys = {text[i:i + 2] for i in range(len(text) - 1)}
        for word in _WORD.findall(text):
            keys.add(word)
            keys.update(word[:-len(end)] for end in _INFLECTIONS if word.endswith(end))
        keyed = sorted({(s, n): pat for k in keys for s, n, pat in self._by_key.get(k, ())}.items())
        candidates = [(s, n, pat) for (s, n), pat in keyed] + self._unkeyed
        found = [Mention(s, m.start(), m.end(), n)
                 for s, n, pat in candidates for m in pat.finditer(text)]
        return list(_longest_first(found))


_WORD = re.compile(r"[a-z0-9]+")
_INFLECTIONS = ("s", "es", "d", "ed", "ing")  # the endings _pattern allows after a name


def _name_key(name: str) -> str | None:
    """The part of the query a name's pattern needs: its first two characters
    (Chinese names, matched anywhere), or its first word (other names, matched
    as whole words). None when the name starts with neither."""
    folded = fold_case(name).strip()
    if is_chinese(folded):
        return folded[:2]
    first = _WORD.match(folded)
    return first.group(0) if first else None
