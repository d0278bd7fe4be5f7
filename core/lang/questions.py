"""What a question asks, in Chinese and English, read from its words alone:
whether it asks for a time (``asks_when``) and where one question of a query
ends and the next begins (``asks``). Recall uses both to weigh dated turns
and to answer a joined question part by part. The words are
``data/lang/questions.toml``.
"""

from __future__ import annotations

import re

from . import tables
from .text import fold_case

__all__ = ["asks", "asks_when"]


# where one question ends and another begins: a sentence end followed by more,
# or a connective that opens a further ask ("…？另外…", "…; also …")
_ASK_BREAK = re.compile(
    r"(?<=[？?！!。；;])\s*"
    rf"|[，,、]?\s*(?:{tables.alternation(tables.words('questions', 'next_ask.zh'))})[，,：:]?\s*"
    rf"|[,;]\s+(?:and\s+)?(?:{tables.alternation(tables.words('questions', 'next_ask.en'))})\s+", re.IGNORECASE)
_ASK_MIN = 4  # characters an ask needs to stand on its own (not "好吗？")


def asks(query: str) -> list[str]:
    """The questions a query joins, in order ("孩子哪天考试？跑鞋穿多大码？" →
    two); the query itself when it asks one thing. A part too short to stand
    on its own stays with the one before it."""
    parts: list[str] = []
    for piece in _ASK_BREAK.split(query):
        piece = piece.strip()
        if not piece:
            continue
        if parts and len(re.sub(r"\W", "", piece)) < _ASK_MIN:
            parts[-1] = f"{parts[-1]} {piece}"
        else:
            parts.append(piece)
    return parts if len(parts) > 1 else [query]


# a question that asks for a time: when something happened, is due, or how long
_WHEN = re.compile(
    rf"\b(?:{tables.alternation(tables.words('questions', 'when.en'))})\b"
    rf"|{tables.alternation(tables.words('questions', 'when.zh'))}", re.IGNORECASE)


def asks_when(query: str) -> bool:
    """Whether the query asks for a time ("when did I move?", "我哪天回来？")."""
    return bool(_WHEN.search(fold_case(query)))
