"""The signal layer's word tables (``data/signals/cues.toml``), compiled once.

Acts the learned heads find are taken at a lower probability when a cue of
the act agrees; relation words, pronouns, reporting verbs and words that are
not names serve ``core.signals.people``. Pure apart from reading the file.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..resources import data_path
from .clauses import Openings


@dataclass(frozen=True)
class Cues:
    """The word tables of ``data/signals/cues.toml``, compiled."""

    acts: dict[str, dict[str, re.Pattern[str]]]
    relations: dict[str, dict[str, str]]
    relation_re: dict[str, re.Pattern[str]]
    pronoun_re: dict[str, re.Pattern[str]]
    canonical: dict[str, dict[str, str]]
    families: dict[str, str]
    not_names: frozenset[str]
    reporting: dict[str, re.Pattern[str]]
    possessed: dict[str, re.Pattern[str]]  # attribute nouns whose possessor is the clause's person
    zh_surnames: str
    zh_name_prefixes: str
    zh_introduced: re.Pattern[str]  # a Chinese name right after a relation word, up to where it ends
    dropped_subject: dict[str, tuple[str, ...]]  # how a clause without a subject of its own begins
    copula_dropped: frozenset[str]  # English predicates said with the copula left out too ("allergic to nuts")
    bare: dict[str, frozenset[str]]  # relation words also used bare, as a name ("mom is…")
    object_marker: dict[str, re.Pattern[str]]  # a coverb right before a relation word: it is an object
    relation_run: re.Pattern[str]  # Chinese relation words ending a text: one phrase with the next (爸妈, 我姐我妈)
    not_places: dict[str, tuple[str, ...]]  # what after 在 / "in" is no place to live in (located)
    not_within_place: tuple[str, ...]  # a verb or a room inside what follows 在: no place alone (located)
    lives_by: re.Pattern[str]  # 在, a Chinese place, and what one does where one lives (located, a known town)
    events: dict[str, re.Pattern[str]]  # an event a dated clause may name (the layer's dated events)
    part_opening: Openings  # a part opening on a subject of its own after a blank (``clauses.split_clauses``)

    @classmethod
    def load(cls, path: Any = None) -> Cues:
        """Read and compile the tables. Raises OSError, tomllib.TOMLDecodeError, KeyError."""
        with open(path or data_path("signals", "cues.toml"), "rb") as f:
            raw = tomllib.load(f)
        acts: dict[str, dict[str, re.Pattern[str]]] = {}
        for act, langs in raw["cues"].items():
            acts[act] = {lang: _words(words, lang) for lang, words in langs.items()}
        relations = {lang: dict(table) for lang, table in raw["relations"].items()}
        return cls(acts=acts, relations=relations,
                   relation_re={lang: _words(sorted(t, key=len, reverse=True), lang, possessive=True,
                                             within=raw["within_words"].get(lang, ()))
                                for lang, t in relations.items()},
                   pronoun_re={lang: _words(words, lang, possessive=True) for lang, words in raw["pronouns"].items()},
                   canonical={act: dict(langs) for act, langs in raw["canonical"].items()},
                   families=dict(raw["families"]), not_names=frozenset(raw["not_names"]["words"]),
                   reporting={lang: re.compile(r"\s*(?:[A-Z][a-z]+\s+)?(?:" + "|".join(map(re.escape, words)) + ")",
                                               re.IGNORECASE) for lang, words in raw["reporting"].items()},
                possessed={lang: _words(sorted(words, key=len, reverse=True), lang)
                           for lang, words in raw["possessed"].items()},
                zh_surnames=str(raw["names"]["zh_surnames"]),
                zh_name_prefixes=str(raw["names"]["zh_prefixes"]),
                zh_introduced=_zh_introduced(raw["names"]["zh_ends"]),
                dropped_subject={lang: tuple(words)
                                 for lang, words in raw["dropped_subject"].items()},
                copula_dropped=frozenset(w.lower() for w in raw["copula_dropped"]["en"]),
                bare={lang: frozenset(w.lower() for w in words)
                      for lang, words in raw["bare"].items()},
                object_marker={lang: re.compile("(?:" + "|".join(map(re.escape, words)) + r")\s*$")
                               for lang, words in raw["object_markers"].items()},
                relation_run=re.compile("(?:" + "|".join(
                    map(re.escape, sorted(relations.get("zh", {}), key=len, reverse=True))) + ")+$"),
                not_places={"zh": tuple(raw["located"]["zh_not_places"]),
                            "en": tuple(w.lower() for w in raw["located"]["en_not_places"])},
                not_within_place=tuple(raw["located"]["zh_not_within"]),
                lives_by=re.compile("在(?P<place>[\u4e00-\u9fff]{2,6}?)(?:" + "|".join(
                    map(re.escape, sorted(raw["located"]["zh_lives_by"], key=len, reverse=True))) + ")"),
                part_opening=_part_opening(raw, relations.get("zh", {})),
                events={lang: _words(sorted(words, key=len, reverse=True), lang)
                        for lang, words in raw["events"].items()})

    def has(self, act: str, text: str, lang: str) -> bool:
        pattern = self.acts.get(act, {}).get(lang)
        return bool(pattern and pattern.search(text))

    def relation_key(self, lang: str, word: str) -> str | None:
        """The relation key of a relation word as ``relation_re`` matched it (any case), or None."""
        table = self.relations.get(lang, {})
        return table.get(word) or table.get(word.lower())

    def without(self, act: str, text: str, lang: str) -> str:
        """``text`` with the cue words of ``act`` taken out (English words closed up around them)."""
        pattern = self.acts.get(act, {}).get(lang)
        if pattern is None:
            return text
        if lang != "en":
            return pattern.sub("", text)
        return " ".join(pattern.sub(" ", text).split())


def _part_opening(raw: dict[str, Any], relations: dict[str, str]) -> Openings:
    """What opens a part of its own after a blank (``[parts]``): in Chinese, the speaker, the assistant, a
    pronoun or a relation word, after an opener; in English, a third person followed by a word, or a
    capitalised name followed by a verb of ``en_name_verbs``, unless the word before the blank goes on into it."""
    parts = raw["parts"]
    subjects = sorted({*parts["zh_self"], *parts["zh_addressee"], *raw["pronouns"]["zh"], *relations},
                      key=len, reverse=True)
    openers = "|".join(map(re.escape, parts["zh_openers"]))
    en = "|".join(map(re.escape, sorted(parts["en_subjects"], key=len, reverse=True)))
    verbs = "|".join(map(re.escape, parts["en_name_verbs"]))
    return Openings(zh=re.compile(f"(?:{openers})?(?:{'|'.join(map(re.escape, subjects))})"),
                    en=re.compile(rf"(?:{en})\s+[a-z]|(?-i:[A-Z][a-z]+)\s+(?:{verbs})\b", re.IGNORECASE),
                    en_goes_on=frozenset(w.casefold() for w in parts["en_goes_on"]),
                    en_determiners=frozenset(w.casefold() for w in parts["en_determiners"]),
                    en_times=frozenset(w.casefold() for w in parts["en_times"]))


def _zh_introduced(ends: Sequence[str]) -> re.Pattern[str]:
    """A Chinese name given right after a relation word (called so, 叫朵朵, or not): the fewest characters, two
    or three, before one of ``ends``, punctuation, a blank, a digit, an age or the end (group 1)."""
    alts = "|".join(map(re.escape, sorted(ends, key=len, reverse=True)))
    return re.compile(r"(?:叫|名叫|名字叫)?([\u4e00-\u9fff]{2,3}?)"
                      rf"(?={alts}|，|,|。|（|\(|\s|\d|[一二三四五六七八九十]+岁|$)")


def _words(words: Sequence[str], lang: str, possessive: bool = False,
           within: Sequence[str] = ()) -> re.Pattern[str]:
    """The words as one pattern; English words whole (``possessive``: also
    before 's and the other clitics, as in "my sister's", "she's", "he'd");
    a Chinese word not where one of ``within`` starts (老公 not in 老公司)."""
    alts = "|".join(re.escape(w) for w in words)
    if lang == "en":
        after = r"(?=(?:['’](?:s|d|ll|re|ve))?(?![\w'’]))" if possessive else r"(?![\w'])"
        return re.compile(rf"(?<![\w'])(?:{alts}){after}", re.IGNORECASE)
    if within:  # each word with what follows it in a longer word it only begins: 老公(?!司|寓|…)
        def guarded(w: str) -> str:
            tails = [x[len(w):] for x in within if x.startswith(w) and len(x) > len(w)]
            return re.escape(w) + ("(?!" + "|".join(map(re.escape, tails)) + ")" if tails else "")
        alts = "|".join(guarded(w) for w in words)
    return re.compile(f"(?:{alts})")


def is_zh(text: str) -> bool:
    """Whether ``text`` holds a Chinese character (the cue tables of a clause are then zh)."""
    return any("\u3400" <= ch <= "\u9fff" for ch in text)
