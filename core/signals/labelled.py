"""The labelled turns of ``data/signals`` as the trainers read them (format:
``data/signals/README.md``): each turn with its author and where it stands,
and each of its clauses with where its span starts in the text. Shared by
``core.signals.train`` (the heads) and ``core.signals.train_spans`` (the
value tagger). Raises SystemExit with one line naming the file and line when
the folder is missing, a line is not JSON or a span is not in its text.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from .clauses import Clause, Openings, split_clauses
from .cues import Cues

PREDICATES = ("name", "lives_in", "works_at", "role", "commute", "allergy", "diet", "likes", "dislikes",
              "pet", "budget_limit", "decision", "plan", "todo", "deadline", "relation")
MAX_VALUE = 40  # characters: a longer "value" is a paraphrase, not a span


@dataclass(frozen=True)
class Value:
    """One labelled value: its label (predicate, ``~neg`` when negated) and place in the clause."""

    label: str
    start: int
    end: int


@dataclass(frozen=True)
class Sequence_:
    """One clause with its labelled values: what the value tagger is trained and scored on."""

    author: str
    lang: str
    text: str
    values: tuple[Value, ...]
    assistant: str = ""  # the assistant's message the turn answers


def no_overlap(values: tuple[Value, ...]) -> tuple[Value, ...]:
    """The values in order, a value overlapping an earlier (longer first) one left out."""
    kept: list[Value] = []
    for v in sorted(values, key=lambda v: (v.start, -(v.end - v.start))):
        if all(v.start >= k.end or v.end <= k.start for k in kept):
            kept.append(v)
    return tuple(kept)


def lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for every non-blank line of a JSONL file."""
    for number, raw in enumerate(path.read_text("utf-8").splitlines(), 1):
        if raw.strip():
            try:
                yield number, json.loads(raw)
            except json.JSONDecodeError as exc:
                raise SystemExit(f"{path}:{number}: not JSON ({exc.msg})") from None


def turns(folder: Path) -> Iterator[tuple[str, dict[str, Any], str]]:
    """``(author, turn, "file:line")`` for every labelled turn under ``folder``
    (one subfolder per author), in file and line order."""
    if not folder.is_dir():
        raise SystemExit(f"no labelled data at {folder}")
    for path in sorted(folder.glob("*/*.jsonl")):
        for number, line in lines(path):
            yield path.parent.name, line, f"{path}:{number}"


def placed(line: dict[str, Any], where: str) -> list[tuple[int, dict[str, Any]]]:
    """Each clause of a labelled turn with where its span starts in the turn's
    text (the first place at or after the clause before it, else anywhere)."""
    text = line["text"]
    out = []
    cursor = 0
    for c in line["clauses"]:
        at = text.find(c["span"], cursor)
        if at < 0:
            at = text.find(c["span"])
        if at < 0:
            raise SystemExit(f"{where}: span {c['span']!r} is not in the text")
        out.append((at, c))
        cursor = at + len(c["span"])
    return out


def cut(text: str) -> list[Clause]:
    """A labelled turn's clauses, cut as the layer cuts a turn at run time (a blank before a Chinese part
    with a subject of its own ends a clause: ``Cues.part_opening``)."""
    return split_clauses(text, _opening())


@cache
def _opening() -> Openings:
    return Cues.load().part_opening
