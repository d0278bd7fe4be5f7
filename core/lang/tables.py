"""The language layer's word tables: ``data/lang/*.toml`` (shipped in the
wheel like ``data/rules``, found through ``memdesk.resources``).

Each module of the layer reads its tables once, at import: ``numerals.toml``
(Chinese and English numerals), ``currencies.toml`` (amounts of money),
``times.toml`` (weekdays, months, relative days, weeks and years),
``sensitive.toml`` (what makes a number an amount rather than a phone or card
number), ``stopwords.toml`` and ``questions.toml`` (what a question asks). A
table that is missing or of the wrong type fails at load, with the file and
the key named.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from functools import cache
from typing import Any

from ..resources import data_path

__all__ = ["alternation", "chars", "int_lists", "ints", "load", "mapping", "string_lists", "words"]


@cache
def load(name: str) -> dict[str, Any]:
    """The whole of ``data/lang/<name>.toml``."""
    with data_path("lang", f"{name}.toml").open("rb") as fh:
        return tomllib.load(fh)


def _at(name: str, key: str) -> Any:
    node: Any = load(name)
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            raise ValueError(f"data/lang/{name}.toml: no table or value {key!r}")
        node = node[part]
    return node


def _fail(name: str, key: str, wanted: str) -> ValueError:
    return ValueError(f"data/lang/{name}.toml: {key!r} must be {wanted}")


def ints(name: str, key: str) -> dict[str, int]:
    """A table of words and their whole-number values (一 = 1, "dozen" = 12)."""
    table = _at(name, key)
    if not isinstance(table, dict) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in table.values()):
        raise _fail(name, key, "a table of whole numbers")
    return dict(table)


def mapping(name: str, key: str) -> dict[str, str]:
    """A table of words and the strings they stand for (美元 = "USD")."""
    table = _at(name, key)
    if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
        raise _fail(name, key, "a table of strings")
    return dict(table)


def int_lists(name: str, key: str, size: int) -> dict[str, tuple[int, ...]]:
    """A table of words and ``size`` whole numbers each (a period's months and days)."""
    table = _at(name, key)
    if not isinstance(table, dict) or not all(
            isinstance(v, list) and len(v) == size and all(isinstance(n, int) and not isinstance(n, bool) for n in v)
            for v in table.values()):
        raise _fail(name, key, f"a table of lists of {size} whole numbers")
    return {k: tuple(v) for k, v in table.items()}


def string_lists(name: str, key: str) -> dict[str, tuple[str, ...]]:
    """A table of words and a list of strings each (a holiday's country and name)."""
    table = _at(name, key)
    if not isinstance(table, dict) or not all(
            isinstance(v, list) and v and all(isinstance(x, str) and x for x in v) for v in table.values()):
        raise _fail(name, key, "a table of lists of non-empty strings")
    return {k: tuple(v) for k, v in table.items()}


def words(name: str, key: str) -> list[str]:
    """A list of words or phrases, in the file's order."""
    value = _at(name, key)
    if not isinstance(value, list) or not all(isinstance(w, str) and w for w in value):
        raise _fail(name, key, "a list of non-empty strings")
    return list(value)


def chars(name: str, key: str) -> str:
    """A string of single characters (a character class, 的了吧…)."""
    value = _at(name, key)
    if not isinstance(value, str):
        raise _fail(name, key, "a string")
    return value


def alternation(phrases: Iterable[str]) -> str:
    """A regex alternation of literal phrases, longest first (so that 元人民币
    wins over 元)."""
    return "|".join(re.escape(w) for w in sorted(phrases, key=len, reverse=True))
