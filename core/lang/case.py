"""English typed without capitals, given its names' capitals back.

People type chat in lower case ("im a shift supervisor at halden logistics, we live in glenwood"), and the
extraction rules find names by their capitals. ``recased(text)`` gives a turn typed so the capitals of its names
back: a word that is no common English word (``data/lang/english_words.txt.gz``: the lower-case entries of the
SCOWL lists Debian ships as ``wamerican`` and ``wbritish``, built by ``python -m memdesk.lang.build_words``) and no
chat abbreviation (``data/lang/chat.toml`` ``[lower_case]``) nor a word of money (``currencies.toml``: "usd", "quid") is taken for a name ("halden" -> "Halden",
"glenwood" -> "Glenwood"; "june" -> "June", which the lists hold only capitalised), and "i" is "I".

A turn is typed without capitals when no word but its sentences' first ones, "I" and words all in capitals
("ER", "GOT THE JOB") has a capital: a turn that capitalises any other word is typed with case, and is left as
it is, as is a turn holding Chinese. Words with digits ("20th"), inside an address ("a@b.com", "x.io"), of one
letter, or stretched ("sooo", "hiii") stay as typed. Pure; raises nothing (a missing lexicon raises
FileNotFoundError at first use, as any missing data file).
"""

from __future__ import annotations

import gzip
import re
from functools import cache, lru_cache

from ..resources import data_path
from . import tables

__all__ = ["is_chat_word", "is_lower_case_name", "recased", "typed_without_capitals"]

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
# a word: letters, with an apostrophe inside ("cian's", "don't"); not part of a number, an address or a path
_WORD = re.compile(r"(?<![\w@./'’-])[A-Za-z]+(?:['’][A-Za-z]+)*(?![\w@/'’-]|\.\w)")
# where a sentence starts: the text's start, after a full stop, question or exclamation mark, or a line break
_SENTENCE_START = re.compile(r"(?:^|[.!?…]+[\s\"'“”)]*|\n)\s*[\"'“(]*$")
_STRETCHED = re.compile(r"([a-z])\1\1")
_I_FORMS = re.compile(r"I(?:['’](?:m|ll|ve|d))?$")
_APOSTROPHE = re.compile(r"['’]")


@cache
def _chat_words() -> frozenset[str]:
    return frozenset(w.lower() for w in tables.words("chat", "lower_case.words"))


@cache
def _lexicon() -> frozenset[str]:
    """The common words (lower case) and the chat words that are no name."""
    with gzip.open(data_path("lang", "english_words.txt.gz"), "rt", encoding="utf-8") as fh:
        words = {line.strip() for line in fh if line.strip()}
    money = {w.lower() for key in ("prefix.codes", "suffix.words", "suffix.after_number_words")
             for w in tables.mapping("currencies", key) if w.isalpha()}
    return frozenset(words | _chat_words() | money
                     | {w.lower() for w in tables.ints("currencies", "magnitudes") if w.isalpha()})


def _sentence_start(text: str, at: int) -> bool:
    return bool(_SENTENCE_START.search(text[max(0, at - 12):at]))


def typed_without_capitals(text: str) -> bool:
    """Whether ``text`` is English typed without the capitals of its words (see the module doc)."""
    if _CJK.search(text):
        return False
    for m in _WORD.finditer(text):
        word = m.group(0)
        if not word[0].isupper() or word.isupper() and len(word) > 1 or _I_FORMS.match(word):
            continue
        if not _sentence_start(text, m.start()):
            return False
    return True


def _recased(word: str, lexicon: frozenset[str]) -> str:
    if _I_FORMS.match(word.capitalize()):
        return "I" + word[1:]  # "i", "i'll": the pronoun
    return word[0].upper() + word[1:] if _is_name(word, lexicon) else word


def _is_name(word: str, lexicon: frozenset[str]) -> bool:
    if len(word) < 2 or not word.islower() or _STRETCHED.search(word):
        return False
    if word in lexicon:
        return False
    stem = _APOSTROPHE.split(word, maxsplit=1)[0]
    return len(stem) > 1 and stem not in lexicon


def is_english_word(word: str) -> bool:
    """Whether ``word`` (any case) is a common English word, a chat word or a word of money (the lexicon
    names are told from)."""
    return word.lower() in _lexicon()


def is_chat_word(word: str) -> bool:
    """Whether a word is chat's shorthand ("lol", "lmao", "tbh": ``data/lang/chat.toml`` ``[lower_case]``), never a
    name in any case."""
    return word.lower() in _chat_words()


def is_lower_case_name(word: str) -> bool:
    """Whether a word typed in lower case is taken for a name: no common English word, chat word or word of
    money ("marco", "jono"; not "yesterday", "lol")."""
    return _is_name(word, _lexicon())


@cache
def _name_slot() -> tuple[re.Pattern[str], frozenset[str]]:
    """The leads after which a name stands (``data/lang/chat.toml`` ``[name_slot]``), as one pattern ending
    where the name begins (after "the", kept in lower case), and the words a name stops before."""
    leads = "|".join(re.escape(w) for w in sorted(tables.words("chat", "name_slot.leads"), key=len, reverse=True))
    return (re.compile(rf"(?<![\w'’-])(?:{leads})\s+(?:the\s+)?"),
            frozenset(w.lower() for w in tables.words("chat", "name_slot.ends")))


_SLOT_WORD = re.compile(r"[^\W\d_A-Z][^\W\d_]*(?:['’-][^\W\d_]+)*|&")
_SLOT_MOST = 4  # words of a name read after a lead ("&" and "of" not counted)
_JOINERS = ("&", "of")  # inside a name, never its first or last word


def _slot_recased(text: str) -> str:
    """``text`` with the words after a lead of ``[name_slot]`` (a turn typed without capitals) capitalised as
    a name: up to an end word, punctuation, a number or four words; "&" and "of" inside it stay as typed,
    and a name may not end on them; one common word after "the" is no name ("started at the school")."""
    lead, ends = _name_slot()
    out: list[str] = []
    last = 0
    for m in lead.finditer(text):
        at = m.end()
        words: list[re.Match[str]] = []
        while sum(w.group(0) not in _JOINERS for w in words) < _SLOT_MOST:
            w = _SLOT_WORD.match(text, at)
            if w is None or w.group(0).lower() in ends:
                break
            words.append(w)
            at = w.end()
            if not text.startswith(" ", at):  # punctuation (or the text's end) closes the name
                break
            at += 1
        while words and words[-1].group(0) in _JOINERS:
            words.pop()
        if not words or words[0].group(0) in _JOINERS or words[0].start() < last:
            continue
        if len(words) == 1 and m.group(0).rstrip().endswith("the") and words[0].group(0) in _lexicon():
            continue  # "started at the school": a common noun with its article, no name
        for w in words:
            out.append(text[last:w.start()])
            word = w.group(0)
            out.append(word if word in _JOINERS else word[0].upper() + word[1:])
            last = w.end()
    out.append(text[last:])
    return "".join(out)


@lru_cache(maxsize=1024)
def recased(text: str) -> str:
    """``text`` with the names of a turn typed without capitals capitalised; any other text as it is. Kept for
    the last texts asked: a turn is read again as the context of the turns after it, and by the signal layer.
    A word is a name when the lexicon holds no such word, or when it stands where a frame calls for a name
    (``_slot_recased``: "a job at admiral")."""
    if not typed_without_capitals(text):
        return text
    lexicon = _lexicon()
    return _WORD.sub(lambda m: _recased(m.group(0), lexicon), _slot_recased(text))
