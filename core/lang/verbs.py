"""English verbs said of someone else, read back as the speaker would say them.

A verb in the third person singular ("lives", "teaches", "studies", "is", "doesn't") cannot have "I" for its
subject, so an English clause that opens on one with its subject left out goes on about the person the clause
before it spoke of ("my sister lives in Boston, works as a nurse at the General"). ``first_person_of`` gives
such a verb's first-person form ("works" -> "work", "is" -> "am"), so the clause can be read with that person
as "I" by the rules that read the speaker's own facts. The regular forms are undone by spelling (-ies, -es,
-s) and kept only when the base is a common English word (``data/lang/english_words.txt.gz``, through
``lang.case``); the few irregular ones are listed. Pure; raises nothing (a missing lexicon raises
FileNotFoundError at first use, as any missing data file).
"""

from __future__ import annotations

from .case import is_english_word

__all__ = ["base_of_gerund", "first_person_of"]

# the irregular third-person forms, and their first-person forms ("was" is both persons' and tells nothing)
_IRREGULAR = {"is": "am", "isn't": "am not", "isnt": "am not", "has": "have", "hasn't": "haven't",
              "hasnt": "haven't", "does": "do", "doesn't": "don't", "doesnt": "don't", "goes": "go"}
_SIBILANT_ENDS = ("ses", "shes", "ches", "xes", "zes", "oes")
_SHORTEST = 4  # letters: shorter words ending in s ("bus", "yes", "its") are no verb's third person


def first_person_of(word: str) -> str | None:
    """The first-person form of ``word`` when it is an English verb in the third person singular present
    ("lives" -> "live", "watches" -> "watch", "studies" -> "study", "is" -> "am", "Doesn't" -> "don't"),
    else None ("news" gives "new", a word but no verb the rules read: the caller decides by what a
    clause read so yields)."""
    w = word.lower().replace("’", "'")
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    if len(w) < _SHORTEST or not w.isalpha() or not w.endswith("s") or w.endswith(("ss", "us", "is")):
        return None
    if is_english_word(w[:-1]):  # "lives", "uses", "manages"
        return w[:-1]
    if w.endswith(_SIBILANT_ENDS) and is_english_word(w[:-2]):  # "fixes", "watches"
        return w[:-2]
    if w.endswith("ies") and is_english_word(w[:-3] + "y"):  # "studies"
        return w[:-3] + "y"
    return None


_GERUND_SHORTEST = 5  # letters: shorter words ending in -ing ("king", "ring", "thing") are no gerund


def base_of_gerund(word: str) -> str | None:
    """The base form of an English -ing form ("renewing" -> "renew", "servicing" -> "service", "fixing" -> "fix",
    "getting" -> "get"), when that base is a common English word; else None. Raises nothing."""
    w = word.lower()
    if len(w) < _GERUND_SHORTEST or not w.isalpha() or not w.endswith("ing"):
        return None
    stem = w[:-3]
    for base in (stem, stem + "e", stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else ""):
        if base and is_english_word(base):
            return base
    return None
