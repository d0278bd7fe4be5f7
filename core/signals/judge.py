"""The value judge: how likely a value the extractor is about to write is one a careful note-taker
records (docs/signal-model.md, "The value judge").

The rules read a value from where their pattern says it sits; said in words nobody wrote a pattern
for, the pattern still matches and yields a fragment: a filler, the end of a hedge, a piece of the
next clause ("plan: be", "decision: 先", "dislikes: commute atm"). The judge reads the value as a
note-taker would see it: its predicate, its length, its first and last words, the words just
before and after it in the turn, whether it was said word for word; not the words inside it, its
polarity or whose it is (a judge that read those learned which values, and whose, its authors
chose to record and how they filed them, not where a value ends). A value it finds unlikely
(below the threshold stored with the weights) waits for a reviewer instead of being written
(``SignalLayer.judge_claims``): nothing is lost.

One logistic regression over binary features, weights in ``data/signals/judge.npz`` (trained by
``python -m memdesk.signals.train_judge`` from the conversation and gold sets' recorded facts),
evaluated with a dictionary lookup per feature: no network, deterministic. Raises FileNotFoundError when the
weights are missing from the install, ValueError when the file is not a judge of this format.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..resources import data_path
from .spans import tokenize

FORMAT = 1
JUDGE_FILE = "judge.npz"
SEP = "\x1f"
MAX_LENGTH = 8  # value lengths (units) above this count as this
CONTEXT = 2  # units before the value read as its left context (one after it)
NEAR = 40  # characters on each side of the value in which they are looked for (a turn's work stays bounded)


@dataclass(frozen=True)
class JudgedValue:
    """A value as the judge reads it: what the claim says, and the turn it was said in."""

    predicate: str
    object: str
    change: str | None
    text: str  # the turn


def _units(text: str) -> list[str]:
    """The units of ``text`` in lower case, a number as ``#`` (its shape, not which amount or day)."""
    return ["#" if u.text[0].isdigit() else u.text for u in tokenize(unicodedata.normalize("NFKC", text).casefold())]


def features(value: JudgedValue) -> list[str]:
    """The judge's features of one value (distinct strings; the same for training and use)."""
    p = value.predicate
    units = _units(value.object)
    said = value.text.casefold().find(value.object.casefold()) if value.object else -1
    out = {f"p:{p}", f"u:{p}:{min(len(units), MAX_LENGTH)}", f"c:{p}:{value.change or '-'}", f"v:{p}:{said >= 0}",
           f"z:{p}:{any(chr(0x3400) <= ch <= chr(0x9fff) for ch in value.text)}"}
    if units:
        out |= {f"f:{units[0]}", f"f:{p}:{units[0]}", f"l:{units[-1]}", f"l:{p}:{units[-1]}"}
    if said >= 0:
        before = _units(value.text[max(0, said - NEAR):said])[-CONTEXT:]
        after = _units(value.text[said + len(value.object):said + len(value.object) + NEAR])[:1]
        if before:
            out |= {f"b:{before[-1]}", f"b:{p}:{before[-1]}", f"bb:{' '.join(before)}"}
        else:
            out.add(f"b:{p}:<start>")
        out |= {f"a:{after[0]}", f"a:{p}:{after[0]}"} if after else {f"a:{p}:<end>"}
    return sorted(out)


class ValueJudge:
    """The trained judge, loaded once; ``likely`` is thread-safe (no state changes)."""

    def __init__(self, path: str | Path | None = None) -> None:
        path = Path(path) if path is not None else data_path("signals", JUDGE_FILE)
        with np.load(path, allow_pickle=False) as z:
            if int(z["format"]) != FORMAT:
                raise ValueError(f"{path}: value judge format {int(z['format'])}, expected {FORMAT}")
            names = bytes(z["vocab"]).decode("utf-8").split(SEP)
            weights = z["weights"].astype(np.float64)
            self.bias = float(z["bias"])
            self.threshold = round(float(z["threshold"]), 4)  # (stored as float32)
        if len(names) != len(weights):
            raise ValueError(f"{path}: {len(names)} features but {len(weights)} weights")
        self.weights = dict(zip(names, weights.tolist(), strict=True))
        self.path = path

    @classmethod
    def of(cls, weights: Mapping[str, float], bias: float, threshold: float) -> ValueJudge:
        """A judge of the given weights (by feature), bias and threshold, not read from a file (one being
        trained). Raises nothing."""
        judge = cls.__new__(cls)
        judge.weights, judge.bias, judge.threshold, judge.path = dict(weights), bias, threshold, Path()
        return judge

    @classmethod
    def keeping_all(cls) -> ValueJudge:
        """A judge that finds every value likely (no weights, threshold 0): the layer as it was
        before the judge, which is how the judge's own training data is read."""
        return cls.of({}, 0.0, 0.0)

    def likely(self, value: JudgedValue) -> float:
        """The probability that ``value`` is one a careful note-taker records."""
        if not self.weights:
            return 1.0
        score = self.bias + sum(self.weights.get(f, 0.0) for f in features(value))
        return 1.0 / (1.0 + math.exp(-score))

    def keeps(self, value: JudgedValue) -> bool:
        """Whether ``value`` is written (likely at least the threshold) rather than queued."""
        return self.likely(value) >= self.threshold
