"""The signal layer's classifier: per clause, whom it is about, what it does
(its dialogue act) and what kind of fact it carries (docs/signal-model.md).

Three linear heads over the character n-gram features of
``core.signals.features``, weights in ``data/signals/model.npz`` (trained by
``python -m memdesk.signals.train``), evaluated with numpy: no network,
no GPU, deterministic. Raises FileNotFoundError when the weights are missing
from the install, ValueError when the file is not a model of this format.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import numpy as np

from ..resources import data_path
from .clauses import Clause, Openings, split_clauses
from .features import CLAUSE_N, CONTEXT_CHARS, CONTEXT_N, WEIGHTS, grams, normal, scaled

HEADS = ("about", "act", "family")
ABOUT = ("user", "third", "project", "none")
ACTS = ("statement", "change", "correction", "return", "confirm", "reject", "hedge", "question",
        "smalltalk")
FAMILIES = ("residence", "name", "work", "commute", "health", "diet", "taste", "pet", "money",
            "decision", "plan", "relation", "other", "none")
FORMAT = 1
SEP = "\x1f"


@dataclass(frozen=True)
class ClauseSignal:
    """What the layer reads in one clause: per head, each label's probability."""

    clause: Clause
    about: Mapping[str, float]
    act: Mapping[str, float]
    family: Mapping[str, float]

    def top(self, head: str) -> tuple[str, float]:
        """The most probable label of ``head`` and its probability."""
        probs: Mapping[str, float] = getattr(self, head)
        label = max(probs, key=lambda k: probs[k])
        return label, probs[label]

    @property
    def fact_bearing(self) -> float:
        """The probability that the clause carries a lasting fact about someone."""
        return (1.0 - self.family["none"]) * (1.0 - self.about["none"])


class SignalModel:
    """The trained heads, loaded once; ``read`` is thread-safe (no state changes).

    The heads are linear, so a clause's scores are the sum of what each
    namespace contributes: the assistant's message contributes once per turn,
    and a clause's 2–3-grams are read once for it and once as the next
    clause's ``previous``."""

    def __init__(self, path: str | Path | None = None) -> None:
        path = Path(path) if path is not None else data_path("signals", "model.npz")
        with np.load(path, allow_pickle=False) as z:
            if int(z["format"]) != FORMAT:
                raise ValueError(f"{path}: signal model format {int(z['format'])}, expected {FORMAT}")
            words = bytes(z["vocab"]).decode("utf-8").split(SEP)
            idf = z["idf"].astype(np.float64)
            self.labels = {h: tuple(bytes(z[f"labels_{h}"]).decode("utf-8").split(SEP)) for h in HEADS}
            # every head side by side: one gather and one product per namespace and clause
            self.weights = np.concatenate([z[f"w_{h}"].astype(np.float32) for h in HEADS], axis=1)
            self.bias = np.concatenate([z[f"b_{h}"].astype(np.float32) for h in HEADS])
        self.vocab: dict[str, dict[str, int]] = {ns: {} for ns in WEIGHTS}
        for i, w in enumerate(words):
            ns, _, gram = w.partition("|")
            self.vocab[ns][gram] = i
        self.idf = idf
        bounds = np.cumsum([0, *(len(self.labels[h]) for h in HEADS)])
        self.slices = {h: slice(int(bounds[k]), int(bounds[k + 1])) for k, h in enumerate(HEADS)}
        self.path = path

    def _score(self, counter: Counter[str], ns: str) -> np.ndarray | float:
        idx, val = scaled(counter, self.vocab[ns], self.idf, WEIGHTS[ns])
        if not len(idx):
            return 0.0
        return val.astype(np.float32) @ self.weights[idx]

    def _heads(self, scores: np.ndarray) -> list[Mapping[str, float]]:
        out: list[Mapping[str, float]] = []
        for h in HEADS:
            part = scores[self.slices[h]]
            e = np.exp(part - part.max())
            out.append(MappingProxyType(dict(zip(self.labels[h], (e / e.sum()).tolist(), strict=True))))
        return out

    def _context(self, assistant: str) -> np.ndarray | float:
        if not assistant:
            return 0.0
        return self._score(grams(normal(assistant)[-CONTEXT_CHARS:], CONTEXT_N), "a")

    def probabilities(self, clause: str, assistant: str = "", previous: str = "") -> dict[str, dict[str, float]]:
        """Per head, each label's probability for one clause in its context."""
        scores = (self.bias + self._score(grams(normal(clause), CLAUSE_N), "c") + self._context(assistant)
                  + (self._score(grams(normal(previous), CONTEXT_N), "p") if previous else 0.0))
        return {h: dict(m) for h, m in zip(HEADS, self._heads(scores), strict=True)}

    def read(self, text: str, assistant: str = "", opening: Openings | None = None) -> list[ClauseSignal]:
        """The clauses of a user turn, each with its signals; ``opening`` as for
        ``clauses.split_clauses``."""
        out = []
        context = self.bias + self._context(assistant)
        previous: np.ndarray | float = 0.0
        for clause in split_clauses(text, opening):
            g = grams(normal(clause.text), CLAUSE_N)
            about, act, family = self._heads(context + self._score(g, "c") + previous)
            out.append(ClauseSignal(clause, about, act, family))
            previous = self._score(Counter({k: n for k, n in g.items() if len(k) in CONTEXT_N}), "p")
        return out
