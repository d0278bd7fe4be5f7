"""The value tagger: which words of a clause are a fact's value, and of which
predicate (docs/signal-model.md, "The value tagger").

A linear-chain CRF (CRFsuite, through ``python-crfsuite``) over the units of
a clause: each CJK character, each run of letters, each number, each other
visible character. Tags are ``B-<label>`` / ``I-<label>`` / ``O``, a label
being a catalog predicate, with ``~neg`` for a negated value ("不吃猪肉": diet
"猪肉" negative). Features are the unit, its neighbours two to each side,
the bigrams around it, its shape and the clause's language: what a value
looks like and what stands before and after it ("住" … , "called" …).

Trained by ``python -m memdesk.signals.train_spans`` from the labelled
turns of ``data/signals/train`` (their ``facts``); the weights are
``data/signals/spans.crfsuite``, shipped in the wheel. Tagging is plain
arithmetic, deterministic, on the CPU. Raises FileNotFoundError when the
weights are missing from the install.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..resources import data_path

NEGATED = "~neg"
MODEL_FILE = "spans.crfsuite"
ASKED = 8  # units of the end of the assistant's previous message the tagger reads

# a unit: a CJK character, a run of other letters, a number (with its separators), any other visible character
_UNIT = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]|[^\W\d_\u3400-\u9fff\uf900-\ufaff]+|\d+(?:[.,]\d+)*|\S")


@dataclass(frozen=True)
class Unit:
    """One unit of a clause and where it sits (``text == clause[start:end]``)."""

    text: str
    start: int
    end: int


@dataclass(frozen=True)
class Span:
    """A value the tagger found: its predicate, polarity, place in the clause
    and probability (the mean marginal of its tags)."""

    predicate: str
    polarity: str
    start: int
    end: int
    text: str
    probability: float


@dataclass(frozen=True)
class ClauseTags:
    """A clause as the tagger read it: its units, the values it found, and per
    unit the probability that the unit is inside some value."""

    text: str
    units: tuple[Unit, ...]
    spans: tuple[Span, ...]
    inside: tuple[float, ...]

    def plausibility(self, value: str) -> float | None:
        """How likely the tagger finds the words of ``value`` to be some fact's
        value: the mean over its units of ``inside``. None when ``value`` is
        not said as such in the clause."""
        at = self.text.find(value) if value else -1
        if at < 0:
            return None
        mine = [p for u, p in zip(self.units, self.inside, strict=True) if u.start >= at and u.end <= at + len(value)]
        return sum(mine) / len(mine) if mine else None


def tokenize(text: str) -> list[Unit]:
    """The units of ``text`` in order."""
    return [Unit(m.group(0), m.start(), m.end()) for m in _UNIT.finditer(text)]


def _shape(unit: str) -> str:
    ch = unit[0]
    if "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff":
        return "cjk"
    if ch.isdigit():
        return "num"
    if ch.isalpha():
        if unit.isupper() and len(unit) > 1:
            return "UP"
        return "Cap" if ch.isupper() else "low"
    return "punct"


def _norm(unit: str) -> str:
    return unicodedata.normalize("NFKC", unit).casefold()


def asked(assistant: str) -> list[str]:
    """What the assistant's previous message ends on (its last ``ASKED`` units,
    lower case, in order, duplicates dropped): an answer's value is read
    against the question ("how do you get to work?" "tram, 25 min")."""
    seen = dict.fromkeys(_norm(u.text) for u in tokenize(assistant)[-ASKED:] if _shape(u.text) != "punct")
    return list(seen)


def features(units: Sequence[Unit], lang: str, context: Sequence[str] = ()) -> list[list[str]]:
    """The features of each unit (CRFsuite item attributes); ``context`` is
    ``asked`` of the assistant's previous message."""
    words = [_norm(u.text) for u in units]
    told = [f"a={c}" for c in context]
    shapes = [_shape(u.text) for u in units]
    n = len(units)

    def w(i: int) -> str:
        return words[i] if 0 <= i < n else ("<s>" if i < 0 else "</s>")

    def s(i: int) -> str:
        return shapes[i] if 0 <= i < n else "edge"

    out = []
    for i in range(n):
        f = [f"l={lang}", f"w={w(i)}", f"s={s(i)}", f"w-1={w(i - 1)}", f"w+1={w(i + 1)}",
             f"w-2={w(i - 2)}", f"w+2={w(i + 2)}", f"w-2|w-1={w(i - 2)}|{w(i - 1)}",
             f"w-1|w={w(i - 1)}|{w(i)}", f"w|w+1={w(i)}|{w(i + 1)}", f"w+1|w+2={w(i + 1)}|{w(i + 2)}",
             f"w-3|w-2|w-1={w(i - 3)}|{w(i - 2)}|{w(i - 1)}", f"s-1|s|s+1={s(i - 1)}|{s(i)}|{s(i + 1)}"]
        if shapes[i] in ("low", "Cap", "UP"):
            word = words[i]
            f += [f"suf3={word[-3:]}", f"pre3={word[:3]}", f"len={min(len(word), 8)}"]
        f += told
        if i == 0:
            f.append("first")
        if i == n - 1:
            f.append("last")
        out.append(f)
    return out


def spans_of(units: Sequence[Unit], tags: Sequence[str], probabilities: Sequence[float],
             text: str) -> list[Span]:
    """The labelled spans of a tag sequence (an ``I-`` without its ``B-`` opens a span)."""
    out: list[Span] = []
    label: str | None = None
    first = 0
    for i, tag in enumerate([*tags, "O"]):
        inside = label is not None and tag == f"I-{label}"
        if label is not None and not inside:
            start, end = units[first].start, units[i - 1].end
            probs = probabilities[first:i]
            out.append(Span(label.removesuffix(NEGATED), "negative" if label.endswith(NEGATED) else "positive",
                            start, end, text[start:end], sum(probs) / len(probs)))
            label = None
        if tag != "O" and not inside:
            label, first = tag[2:], i
    return out


class SpanTagger:
    """The trained CRF, loaded once per store; ``tag`` is thread-safe (a lock
    around CRFsuite's tagger, which holds the sequence it tagged)."""

    def __init__(self, path: Path | None = None) -> None:
        import pycrfsuite  # a dependency of the engine; imported here so a bare `import memdesk` stays cheap

        path = path or Path(data_path("signals", MODEL_FILE))
        if not path.is_file():
            raise FileNotFoundError(f"the value tagger's weights are missing: {path}")
        self._lock = threading.Lock()  # CRFsuite's tagger keeps the sequence it tagged
        self._tagger = pycrfsuite.Tagger()
        self._tagger.open(str(path))

    def read(self, clause: str, lang: str, assistant: str = "") -> ClauseTags:
        """The clause tagged once (``lang`` ``zh`` or ``en``; ``assistant`` the
        assistant's message it answers, if any): its values and, per unit, the
        probability of being inside some value."""
        units = tokenize(clause)
        if not units:
            return ClauseTags(clause, (), (), ())
        with self._lock:
            tags = self._tagger.tag(features(units, lang, asked(assistant)))
            inside = tuple(1.0 - self._tagger.marginal("O", i) for i in range(len(units)))
            # a span's probability: the marginals of its units' tags
            probs = [self._tagger.marginal(t, i) if t != "O" else 1.0 for i, t in enumerate(tags)]
        return ClauseTags(clause, tuple(units), tuple(spans_of(units, tags, probs, clause)), inside)

    def tag(self, clause: str, lang: str, assistant: str = "") -> list[Span]:
        """The values in ``clause``, in order (``read`` for the arguments)."""
        return list(self.read(clause, lang, assistant).spans)
