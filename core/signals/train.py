"""Train the signal layer's heads from the labelled conversations in the repository.

    pip install -e '.[train]'                       # scikit-learn, for training only
    python -m memdesk.signals.train            # writes data/signals/model.npz
    python -m memdesk.signals.train --report   # per-class P/R: across authors and on the blind set

Data: ``data/signals/train/<author>/*.jsonl`` (labelled turns in the format of
``data/signals/README.md``, one folder per author) and
``data/signals/blind/<author>/*.jsonl`` (written by an author who saw neither the
rules nor the training data; never trained on). Each labelled turn is cut into
clauses by ``core.signals.clauses`` (as at run time) and each clause takes the
labels of the annotated span it overlaps most. Variations: every training
clause whose labelled value occurs in it is repeated with other values of the
same family and language (``--variations`` per clause, a fixed seed).

The fit is multinomial logistic regression (scikit-learn, lbfgs) per head on
the TF-IDF of ``core.signals.features``; the vocabulary is the n-grams seen in
at least two training clauses, the most frequent ``--vocab`` of them. Weights
are written as float16. Same data, same result. Raises SystemExit with one
line when the data folder is missing or a line is malformed.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .features import clause_grams, weigh
from .labelled import cut, placed, turns
from .model import ABOUT, ACTS, FAMILIES, FORMAT, HEADS, SEP, SignalModel

DATA = Path(__file__).resolve().parents[2] / "data" / "signals"
LABELS = {"about": ABOUT, "act": ACTS, "family": FAMILIES}


@dataclass(frozen=True)
class Example:
    """One clause with its context and labels."""

    author: str
    lang: str
    clause: str
    assistant: str
    previous: str
    labels: tuple[str, str, str]  # about, act, family
    value: str | None = None


def _load_turn(author: str, line: dict[str, Any], where: str) -> list[Example]:
    text = line["text"]
    spans = []
    for at, c in placed(line, where):
        for head in HEADS:
            if c.get(head) not in LABELS[head]:
                raise SystemExit(f"{where}: {head} {c.get(head)!r} is not one of {', '.join(LABELS[head])}")
        spans.append((at, at + len(c["span"]), c))
    out = []
    previous = ""
    for clause in cut(text):
        best, overlap = None, 0
        for start, end, c in spans:
            o = min(end, clause.end) - max(start, clause.start)
            if o > overlap:
                best, overlap = c, o
        if best is None:
            continue
        out.append(Example(author, line.get("lang", "zh"), clause.text, line.get("assistant") or "",
                           previous, (best["about"], best["act"], best["family"]), best.get("value")))
        previous = clause.text
    return out


def load(folder: Path) -> list[Example]:
    """Every clause of every labelled turn under ``folder`` (one subfolder per author)."""
    return [e for author, line, where in turns(folder) for e in _load_turn(author, line, where)]


def variations(examples: list[Example], per: int, seed: int = 28) -> list[Example]:
    """Each example whose value is in its clause again with other values of its family and language."""
    rng = random.Random(seed)
    pool: dict[tuple[str, str], list[str]] = defaultdict(list)
    for e in examples:
        if e.value and e.value in e.clause and 1 <= len(e.value) <= 24:
            pool[(e.labels[2], e.lang)].append(e.value)
    out = []
    for e in examples:
        if not (e.value and e.value in e.clause):
            continue
        others = sorted(set(pool[(e.labels[2], e.lang)]) - {e.value})
        for v in rng.sample(others, min(per, len(others))):
            out.append(Example(e.author, e.lang, e.clause.replace(e.value, v), e.assistant,
                               e.previous, e.labels, v))
    return out


def _counts(e: Example) -> dict[str, Counter[str]]:
    return clause_grams(e.clause, e.assistant, e.previous)


def build_vocab(examples: Iterable[Example], size: int) -> tuple[dict[str, int], np.ndarray]:
    """The ``size`` most frequent n-grams seen in at least two clauses, and their idf."""
    df: Counter[str] = Counter()
    n = 0
    for e in examples:
        n += 1
        for counter in _counts(e).values():
            df.update(counter.keys())
    kept = sorted((g for g, d in df.items() if d >= 2), key=lambda g: (-df[g], g))[:size]
    vocab = {g: i for i, g in enumerate(kept)}
    idf = np.array([math.log((1 + n) / (1 + df[g])) + 1.0 for g in kept])
    return vocab, idf


def matrix(examples: list[Example], vocab: dict[str, int], idf: np.ndarray) -> Any:
    """The TF-IDF rows of ``examples`` as a sparse matrix."""
    from scipy.sparse import csr_matrix

    rows, cols, vals = [], [], []
    for i, e in enumerate(examples):
        idx, val = weigh(_counts(e), vocab, idf)
        rows += [i] * len(idx)
        cols += idx.tolist()
        vals += val.tolist()
    return csr_matrix((vals, (rows, cols)), shape=(len(examples), len(vocab)))


def fit(examples: list[Example], vocab_size: int, c: float) -> dict[str, Any]:
    """Train the three heads. Returns the arrays model.npz holds."""
    try:
        from sklearn.linear_model import LogisticRegression
    except ImportError:
        raise SystemExit("training needs scikit-learn: pip install -e '.[train]'") from None
    vocab, idf = build_vocab(examples, vocab_size)
    x = matrix(examples, vocab, idf)
    arrays: dict[str, Any] = {"format": np.array(FORMAT),
                              "vocab": np.frombuffer(SEP.join(vocab).encode("utf-8"), dtype=np.uint8),
                              "idf": idf.astype(np.float32)}
    for k, head in enumerate(HEADS):
        y = [e.labels[k] for e in examples]
        present = [label for label in LABELS[head] if label in set(y)]
        clf = LogisticRegression(C=c, max_iter=3000, tol=1e-6)
        clf.fit(x, y)
        order = [list(clf.classes_).index(label) for label in present]
        arrays[f"w_{head}"] = clf.coef_[order].T.astype(np.float16)
        arrays[f"b_{head}"] = clf.intercept_[order].astype(np.float32)
        arrays[f"labels_{head}"] = np.frombuffer(SEP.join(present).encode("utf-8"), dtype=np.uint8)
    return arrays


def save(arrays: dict[str, Any], path: Path) -> None:
    """Write the model file (compressed numpy archive)."""
    np.savez_compressed(path, **arrays)


def report(model: SignalModel, examples: list[Example], title: str) -> dict[str, Any]:
    """Per head and class: precision, recall and support; macro-F1; prints a table."""
    out: dict[str, Any] = {"set": title, "clauses": len(examples)}
    started = time.perf_counter()
    predicted = [model.probabilities(e.clause, e.assistant, e.previous) for e in examples]
    out["ms_per_clause"] = round(1000 * (time.perf_counter() - started) / max(len(examples), 1), 3)
    print(f"\n{title}: {len(examples)} clauses, {out['ms_per_clause']} ms per clause")
    for k, head in enumerate(HEADS):
        gold = [e.labels[k] for e in examples]
        pred = [max(p[head], key=p[head].__getitem__) for p in predicted]
        rows = {}
        f1s = []
        for label in LABELS[head]:
            tp = sum(g == label == q for g, q in zip(gold, pred, strict=True))
            n_pred = sum(q == label for q in pred)
            n_gold = sum(g == label for g in gold)
            p = tp / n_pred if n_pred else 0.0
            r = tp / n_gold if n_gold else 0.0
            f = 2 * p * r / (p + r) if p + r else 0.0
            if n_gold:
                f1s.append(f)
            rows[label] = {"p": round(p, 2), "r": round(r, 2), "n": n_gold}
        macro = sum(f1s) / len(f1s) if f1s else 0.0
        out[head] = {"macro_f1": round(macro, 3), "classes": rows}
        print(f"  {head}: macro-F1 {macro:.2f}; " + ", ".join(
            f"{label} {v['p']:.2f}/{v['r']:.2f} ({v['n']})" for label, v in rows.items() if v["n"]))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DATA, help="the data/signals folder")
    parser.add_argument("--out", type=Path, help="model file (default: DATA/model.npz)")
    parser.add_argument("--vocab", type=int, default=30000, help="n-grams kept (default 30000)")
    parser.add_argument("--variations", type=int, default=2, help="value swaps per clause (default 2)")
    parser.add_argument("-C", type=float, default=10.0, help="inverse regularisation (default 10)")
    parser.add_argument("--report", action="store_true",
                        help="also train on each author alone and score on the others (dev), "
                             "and score the final model on the blind set")
    parser.add_argument("--json", type=Path, help="write the report figures here")
    args = parser.parse_args(argv)
    train = load(args.data / "train")
    authors = sorted({e.author for e in train})
    print(f"{len(train)} training clauses from {len(authors)} authors ({', '.join(authors)})")
    figures = []
    if args.report and len(authors) > 1:
        import tempfile

        for held in authors:
            rest = [e for e in train if e.author != held]
            arrays = fit(rest + variations(rest, args.variations), args.vocab, args.C)
            with tempfile.TemporaryDirectory() as tmp:
                save(arrays, Path(tmp) / "m.npz")
                figures.append(report(SignalModel(Path(tmp) / "m.npz"),
                                      [e for e in train if e.author == held],
                                      f"dev: trained without {held}, scored on {held}"))
    arrays = fit(train + variations(train, args.variations), args.vocab, args.C)
    out = args.out or args.data / "model.npz"
    save(arrays, out)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB, {len(bytes(arrays['vocab']).split(SEP.encode()))} n-grams)")
    if args.report and (args.data / "blind").is_dir():
        figures.append(report(SignalModel(out), load(args.data / "blind"), "blind"))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
