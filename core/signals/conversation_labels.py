"""Value labels from the conversation sets (``tests/sets/convo_*/<set>``): more
authors for the value tagger (``core.signals.train_spans``).

Each set's ``expect.jsonl`` lists the facts a careful note-taker kept, each
with the turn that says it. Every user turn is cut into clauses as at run
time; each fact of the turn is placed where its value is said: the longest of
its object and its ``accept`` forms found in the turn (case aside), or, for a
budget, the amount said with the same value ("八万" for ``80000 CNY``). A fact
given only by ``keywords`` or as a paraphrase the turn never says cannot be
placed, and its whole turn is left out, so no clause teaches the tagger that a
value it holds is none (leaving out only the clause holding its keywords gave
the tagger 1,800 more turns and no better figures, round 26). A turn with no
fact is kept: its clauses hold no value. A fact of a predicate the tagger does
not tag (``status``, ``note``) is ignored; one that may be any of several
predicates (``predicate_any``) has no label, and its turn is left out too.
Raises SystemExit with one line naming the file and line when a line is not
JSON or a set lacks one of its two files.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..lang.amounts import find_amounts, parse_amount
from .cues import is_zh
from .expected import set_folder
from .labelled import MAX_VALUE, PREDICATES, Sequence_, Value, cut, lines, no_overlap
from .spans import NEGATED


@dataclass(frozen=True)
class SetLabels:
    """The labelled clauses of one conversation set and how many of its user turns were kept."""

    name: str
    clauses: tuple[Sequence_, ...]
    turns: int
    kept: int
    values: int


def _forms(fact: dict[str, Any]) -> list[str]:
    forms = (f.strip() for f in [fact.get("object") or "", *(fact.get("accept") or [])] if isinstance(f, str))
    return [f for f in forms if f and len(f) <= MAX_VALUE]


def placed_value(text: str, fact: dict[str, Any]) -> Value | None:
    """Where in ``text`` a fact's value is said, as a labelled value; None when it is not said there."""
    predicate = fact.get("predicate")
    if predicate not in PREDICATES:
        return None
    folded = text.casefold()
    best: tuple[int, int] | None = None
    for form in _forms(fact):
        # case aside only where folding keeps every offset (not "ß", "İ")
        at = folded.find(form.casefold()) if len(folded) == len(text) and len(form.casefold()) == len(form) \
            else text.find(form)
        if at >= 0 and (best is None or len(form) > best[1] - best[0]):
            best = (at, at + len(form))
    if best is None and predicate == "budget_limit":
        amount = parse_amount(fact.get("object") or "")
        if amount is not None:
            best = next(((s, e) for s, e, a in find_amounts(text) if a.value == amount.value), None)
    if best is None:
        return None
    return Value(f"{predicate}{NEGATED if fact.get('polarity') == 'negative' else ''}", *best)


def set_labels(folder: Path) -> SetLabels:
    """The labelled clauses of the conversation set in ``folder`` (its name is their author)."""
    files = [folder / "conversations.jsonl", folder / "expect.jsonl"]
    for path in files:
        if not path.is_file():
            raise SystemExit(f"{folder}: no {path.name}")
    said: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for _, line in lines(files[1]):
        turn = line.get("turn")
        if line.get("kind", "fact") == "fact" and "type" not in line and isinstance(turn, list) and len(turn) == 2:
            said[(turn[0], turn[1])].append(line)
    asked: dict[str, str] = {}
    out: list[Sequence_] = []
    turns = kept = values = 0
    for _, line in lines(files[0]):
        session, text = line.get("session", ""), line.get("text", "")
        if line.get("speaker") != "user":
            asked[session] = text
            continue
        turns += 1
        # a fact of a predicate the tagger does not tag is no value of its; one that may be any of several
        # (``predicate_any``) has no label, so its turn cannot be placed
        facts = [f for f in said.get((session, line.get("turn", -1)), [])
                 if f.get("predicate") in PREDICATES or f.get("predicate") is None]
        found = [placed_value(text, f) for f in facts]
        if any(v is None for v in found):
            continue
        kept += 1
        values += len(found)
        for clause in cut(text):
            mine = tuple(Value(v.label, v.start - clause.start, v.end - clause.start)
                         for v in found if v is not None and v.start >= clause.start and v.end <= clause.end)
            lang = "zh" if is_zh(clause.text) else "en"
            out.append(Sequence_(folder.name, lang, clause.text, no_overlap(mine), asked.get(session, "")))
    return SetLabels(folder.name, tuple(out), turns, kept, values)


def conversation_labels(root: Path, names: list[str]) -> tuple[list[Sequence_], Counter[str]]:
    """The labelled clauses of the named sets under ``root`` (``tests/sets``: each name found in one of its
    ``convo_*`` folders), and counts of user turns seen and kept and of values placed. Raises SystemExit
    with one line when a set is not found."""
    out: list[Sequence_] = []
    counts: Counter[str] = Counter()
    for name in names:
        labels = set_labels(set_folder(root, name))
        out.extend(labels.clauses)
        counts.update(turns=labels.turns, kept=labels.kept, values=labels.values)
    return out, counts
