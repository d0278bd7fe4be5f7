"""English as people type it in chat apps, read back into its written form.

``written(text)`` restores the apostrophe of a contraction typed without it
("im moving", "shes a nurse", "dont eat pork" → "I'm moving", "she's a nurse",
"don't eat pork") and of a person's "'s" after a possessive ("my moms bday" →
"my mom's bday"), and spells out "gonna"/"wanna", so the extraction rules,
written for "I'm" and "going to", read chat typing the same way. The words
are those of ``data/lang/chat.toml``: only forms that are no word of their own
("its", "were", "ill" stay as typed), or, for a few ("names"), only where they
open a sentence or a clause; a word inside a longer one is left as it is. In a
turn holding Chinese, the English words of a fact's frame typed in it
(``[mixed]``: "budget 提到 3500 吧", "报名 deadline 5月15号") are read as the
Chinese words the rules know. Pure; raises nothing.
"""

from __future__ import annotations

import re
from functools import lru_cache

from . import tables
from .text import STOP_EN, is_chinese

__all__ = ["written"]

_FORMS = {**tables.mapping("chat", "apostrophes"), **tables.mapping("chat", "spoken")}
_TYPED = re.compile(r"(?<![\w'’])(" + tables.alternation(_FORMS) + r")(?![\w'’])", re.IGNORECASE)
# "my moms bday", "my dads in tucson": a person's "'s" typed without the apostrophe
# "names darren, daz to everyone": a form restored only where it opens a sentence or a clause
_OPENING_FORMS = tables.mapping("chat", "opening")
_OPENING = re.compile(r"(?:^|(?<=[.!?,;:]))\s*(" + tables.alternation(_OPENING_FORMS)
                      + r")(?=\s+(?!(?:" + tables.alternation(STOP_EN) + r")\b)[^\W\d_])", re.IGNORECASE)
_POSSESSED = re.compile(r"(?<![\w'’])((?:my|our|his|her|their)\s+(?:" + tables.alternation(tables.words("chat", "possessed.words"))
                        + r"))s(?![\w'’])", re.IGNORECASE)


def _restore(m: re.Match[str]) -> str:
    typed = m.group(0)
    form = _FORMS[typed.lower()]
    if typed[0].isupper() and not form.startswith("I'"):
        form = form[0].upper() + form[1:]
    return form


def _opened(m: re.Match[str]) -> str:
    typed = m.group(1)
    form = _OPENING_FORMS[typed.lower()]
    return m.group(0)[:m.start(1) - m.start(0)] + (form[0].upper() + form[1:] if typed[0].isupper() else form)


_MIXED = tables.mapping("chat", "mixed")
# (with the blanks around it: they only set the English word apart from the Chinese)
_MIXED_WORD = re.compile(r"[ \t]*(?<![A-Za-z'’])(" + tables.alternation(_MIXED) + r")(?![A-Za-z'’])[ \t]*", re.IGNORECASE)


def _in_chinese(text: str) -> str:
    """A turn holding Chinese with the English words of ``[mixed]`` read as the Chinese ones, where one is
    typed beside Chinese ("报名 deadline 5月15号"; not inside an English clause: "so the budget is 3k 然后…")."""
    def chinese(m: re.Match[str]) -> str:
        before, after = text[m.start() - 1:m.start()], text[m.end():m.end() + 1]
        return _MIXED[m.group(1).lower()] if is_chinese(before) or is_chinese(after) or after.isdigit() \
            else m.group(0)
    return _MIXED_WORD.sub(chinese, text)


@lru_cache(maxsize=8192)
def written(text: str) -> str:
    """``text`` with chat-typed contractions and spoken forms written out (kept for the texts asked last: a
    clause is read as written by the rules and the signal layer alike, and again as the context of turns
    after it)."""
    out = _POSSESSED.sub(r"\1's", _TYPED.sub(_restore, text))
    out = _OPENING.sub(_opened, out)
    return _in_chinese(out) if is_chinese(out) else out
