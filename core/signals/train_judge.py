"""Train the value judge (``core.signals.judge``) from the conversation sets in the repository.

    pip install -e '.[train]'
    python -m memdesk.signals.train_judge            # writes data/signals/judge.npz
    python -m memdesk.signals.train_judge --report   # what it queues, out of fold and on the held-out sets

Data: the conversation sets of ``tests/sets`` that ``data/signals/train/judge.toml`` names
(``conversations``; read from a checkout, ``--sets``, not from the installed wheel). Each set's
turns are read by the rules behind the signal layer, as an ingest reads them, with no judge; every
value the judge would read (``SignalLayer.judged``) is an example, right when it is the value of one
of the facts the set's author recorded about its subject (``core.signals.expected``), else wrong:
under whichever predicate and polarity, for authors differ in those conventions (a dropped option
as a decision negative, or as "not X"; a food avoided as a diet or a dislike), and the judge is to
learn what a value looks like, not one author's filing. Those the file holds out
(``dev``) are scored, never trained on.

The fit is scikit-learn's logistic regression (L-BFGS, L2) over binary features seen in at least
``MIN_COUNT`` examples: the same data gives the same weights. The threshold stored with them is the
highest at which, out of fold (five folds of whole sets, each scored by a judge trained without
it), at most ``MAX_RIGHT_SHARE`` of the values sent to review were right ones. Raises SystemExit
with one line when a set or the list is missing or malformed.
"""

from __future__ import annotations

import argparse
import sys
import time
import tomllib
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .expected import load, set_folder
from .judge import FORMAT, JUDGE_FILE, SEP, JudgedValue, ValueJudge, features

if TYPE_CHECKING:
    from ..ingest import Extractor
    from .layer import SignalLayer

DATA = Path(__file__).resolve().parents[2] / "data" / "signals"
SETS = Path(__file__).resolve().parents[2] / "tests" / "sets"  # the conversation sets (a checkout, not the wheel)
MIN_COUNT = 2  # a feature seen in fewer training examples is left out
C = 1.0  # the inverse L2 penalty
FOLDS = 5
MAX_RIGHT_SHARE = 0.2  # of the values the judge sends to review, at most this share right (out of fold)
THRESHOLDS = [round(0.01 * k, 2) for k in range(1, 51)]


@dataclass(frozen=True)
class Example:
    """One value the extractor would write, in its set, and whether its author recorded it as a value
    of that subject."""

    set: str
    value: JudgedValue
    right: bool


def chosen_sets(train: Path) -> tuple[list[str], list[str], list[str]]:
    """The sets the judge learns from (``conversations`` of ``train/judge.toml``), those held out
    (``dev``), and the single-turn gold sets it learns from too (``gold``). Raises SystemExit with one
    line when the file is missing or malformed, or a set is in both of the first two."""
    path = train / "judge.toml"
    try:
        raw = tomllib.loads(path.read_text("utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise SystemExit(f"{path}: {e}") from None
    names = {k: raw.get(k, []) for k in ("conversations", "dev", "gold")}
    for k, v in names.items():
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise SystemExit(f"{path}: {k} must be a list of set names")
    both = sorted(set(names["conversations"]) & set(names["dev"]))
    if both:
        raise SystemExit(f"{path}: {', '.join(both)} both trained on and held out")
    return names["conversations"], names["dev"], names["gold"]


def _layer_without_judge() -> SignalLayer:
    """The signal layer as an ingest builds it (the catalog's single-valued and team predicates), with a
    judge that keeps every value: what the judge is trained on is what comes before it."""
    from ..catalog import Catalog
    from .layer import SignalLayer

    catalog = Catalog.load()
    return SignalLayer(single_valued=frozenset(p.id for p in catalog if p.single_valued),
                       team=frozenset(p.id for p in catalog if p.team), judge=ValueJudge.keeping_all())


def set_examples(root: Path, names: Sequence[str]) -> list[Example]:
    """Every value the rules behind the signal layer (no judge) would write in each named set, with
    whether it holds a fact its author recorded. Raises SystemExit with one line when a set is
    missing or a line of it is malformed."""
    from ..errors import InvalidInput
    from ..ingest import RuleExtractor, SignalledExtractor, turn_from_dict
    from .layer import judged_value
    from .people import PeopleBook

    layer = _layer_without_judge()
    out: list[Example] = []
    for name in names:
        folder = set_folder(root, name)
        try:
            rows, facts, _ = load(folder)
        except (OSError, ValueError, KeyError) as e:
            raise SystemExit(f"{folder}: {e}") from None
        extractor = SignalledExtractor(cast("Extractor", RuleExtractor()), layer, PeopleBook())
        sessions: dict[str, list[Any]] = defaultdict(list)
        for i, row in enumerate(rows, 1):
            try:
                turn = turn_from_dict(row)
            except InvalidInput as e:
                raise SystemExit(f"{folder}/conversations.jsonl:{i}: {e}") from None
            context = sessions[turn.session]
            if turn.speaker == "user":
                for c in extractor.claims(turn, list(context)):
                    if layer.judged(c):
                        right = any(f.subject_ok(c.subject) and f.object_ok(c.object) for f in facts)
                        out.append(Example(name, judged_value(c, turn), right))
            context.append(turn)
    return out


def gold_examples(root: Path, names: Sequence[str]) -> list[Example]:
    """Every value the rules behind the signal layer (no judge) would write for each line of the named
    single-turn gold sets (``tests/sets/gold/<name>.jsonl``: a turn, its context, its facts), right
    when it is the value of one of the line's facts about its subject (its words, case, spaces and
    punctuation aside, or inside it). Raises SystemExit with one line when a file is missing or a line
    is malformed."""
    import json

    from ..errors import InvalidInput
    from ..ingest import RuleExtractor, SignalledExtractor, turn_from_dict
    from .expected import norm
    from .layer import judged_value

    layer = _layer_without_judge()
    extractor = SignalledExtractor(cast("Extractor", RuleExtractor()), layer)
    out: list[Example] = []
    for name in names:
        path = root / "gold" / f"{name}.jsonl"
        try:
            lines = path.read_text("utf-8").splitlines()
        except OSError as e:
            raise SystemExit(f"{path}: {e}") from None
        for i, raw in enumerate(lines, 1):
            if not raw.strip():
                continue
            try:
                line = json.loads(raw)
                turn = turn_from_dict(line["turn"])
                context = [turn_from_dict(c) for c in line.get("context", [])]
                facts = [(f["subject"], norm(f["object"])) for f in line["facts"]]
            except (ValueError, KeyError, TypeError, InvalidInput) as e:
                raise SystemExit(f"{path}:{i}: {e}") from None
            for c in extractor.claims(turn, context):
                if layer.judged(c):
                    got = norm(c.object)
                    right = any(s == c.subject and got and (got == o or got in o or o in got) for s, o in facts)
                    out.append(Example(f"gold/{name}", judged_value(c, turn), right))
    return out


def _matrix(rows: list[list[str]], vocab: dict[str, int]) -> Any:
    from scipy.sparse import csr_matrix

    indices = [[vocab[f] for f in row if f in vocab] for row in rows]
    indptr = np.cumsum([0, *map(len, indices)])
    flat = np.fromiter((j for row in indices for j in row), dtype=np.int64, count=int(indptr[-1]))
    return csr_matrix((np.ones(len(flat)), flat, indptr), shape=(len(rows), len(vocab)))


def fit(examples: list[Example]) -> tuple[list[str], np.ndarray, float]:
    """The vocabulary, weights and bias of a judge trained on ``examples``."""
    try:
        from sklearn.linear_model import LogisticRegression
    except ImportError:
        raise SystemExit("training needs scikit-learn: pip install -e '.[train]'") from None
    rows = [features(e.value) for e in examples]
    counts = Counter(f for row in rows for f in row)
    names = sorted(f for f, n in counts.items() if n >= MIN_COUNT)
    vocab = {f: i for i, f in enumerate(names)}
    y = np.array([e.right for e in examples])
    clf = LogisticRegression(C=C, max_iter=5000, tol=1e-6).fit(_matrix(rows, vocab), y)
    return names, clf.coef_[0], float(clf.intercept_[0])


def _judge(names: list[str], weights: np.ndarray, bias: float, threshold: float) -> ValueJudge:
    return ValueJudge.of(dict(zip(names, weights.tolist(), strict=True)), bias, threshold)


def out_of_fold(examples: list[Example]) -> np.ndarray:
    """Each example's probability from a judge trained on the other folds (whole sets per fold, in
    the order of their names)."""
    sets = sorted({e.set for e in examples})
    fold_of = {s: i % FOLDS for i, s in enumerate(sets)}
    p = np.zeros(len(examples))
    for k in range(FOLDS):
        judge = _judge(*fit([e for e in examples if fold_of[e.set] != k]), 0.0)
        for i, e in enumerate(examples):
            if fold_of[e.set] == k:
                p[i] = judge.likely(e.value)
    return p


def threshold_for(examples: list[Example], p: np.ndarray) -> float:
    """The highest threshold at which at most ``MAX_RIGHT_SHARE`` of the values sent to review are
    right ones (0 when none qualifies)."""
    right = np.array([e.right for e in examples])
    best = 0.0
    for t in THRESHOLDS:
        sent = p < t
        if sent.any() and right[sent].mean() <= MAX_RIGHT_SHARE:
            best = t
    return best


def report(title: str, examples: list[Example], p: np.ndarray, threshold: float) -> dict[str, Any]:
    """What the judge sends to review at ``threshold``: per predicate and overall, the values, the
    right ones, those of each sent; the share right of what is written, before and after; the
    classes' precision and recall (queued: the wrong values; written: the right ones)."""
    right = np.array([e.right for e in examples])
    sent = p < threshold
    by: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for e, s in zip(examples, sent, strict=True):
        row = by[e.value.predicate]
        row[0] += 1
        row[1] += e.right
        row[2] += bool(s and e.right)
        row[3] += bool(s and not e.right)
    n, r = len(examples), int(right.sum())
    queued_right, queued_wrong = int((sent & right).sum()), int((sent & ~right).sum())
    kept = ~sent
    out = {"set": title, "values": n, "right": r, "threshold": threshold,
           "right_share_before": round(r / max(n, 1), 3),
           "right_share_after": round(float(right[kept].mean()) if kept.any() else 0.0, 3),
           "queued_right": queued_right, "queued_wrong": queued_wrong,
           "queued_precision": round(queued_wrong / max(queued_right + queued_wrong, 1), 3),
           "queued_recall": round(queued_wrong / max(n - r, 1), 3),
           "written_precision": round(float(right[kept].mean()) if kept.any() else 0.0, 3),
           "written_recall": round((r - queued_right) / max(r, 1), 3)}
    print(f"\n{title}: {n} values, {r} right; threshold {threshold}: share right of the written "
          f"{out['right_share_before']} -> {out['right_share_after']}; sent to review {queued_wrong} wrong, "
          f"{queued_right} right")
    print(f"  queued (the wrong ones) P {out['queued_precision']} R {out['queued_recall']};"
          f" written (the right ones) P {out['written_precision']} R {out['written_recall']}")
    print(f"  {'predicate':<14}{'values':>7}{'right':>7}{'sent right':>11}{'sent wrong':>11}")
    for predicate, (k, good, sr, sw) in sorted(by.items()):
        print(f"  {predicate:<14}{k:>7}{good:>7}{sr:>11}{sw:>11}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m memdesk.signals.train_judge",
                                     description="Train the value judge from the conversation sets.")
    parser.add_argument("--sets", type=Path, default=SETS, help="the conversation sets' folder (tests/sets)")
    parser.add_argument("--train", type=Path, default=DATA / "train", help="the folder holding judge.toml")
    parser.add_argument("--out", type=Path, default=DATA / JUDGE_FILE, help="where the weights go")
    parser.add_argument("--report", action="store_true", help="print what it queues, out of fold and held out")
    args = parser.parse_args(argv)
    trained, held, gold = chosen_sets(args.train)
    if not trained:
        raise SystemExit(f"{args.train / 'judge.toml'}: no conversation set to learn from")
    started = time.perf_counter()
    examples = set_examples(args.sets, trained) + gold_examples(args.sets, gold)
    print(f"{len(trained)} conversation sets and {len(gold)} gold sets, {len(examples)} values ({sum(e.right for e in examples)} right), read in "
          f"{time.perf_counter() - started:.0f} s", file=sys.stderr)
    p = out_of_fold(examples)
    threshold = threshold_for(examples, p)
    names, weights, bias = fit(examples)
    arrays: dict[str, Any] = {"format": np.array(FORMAT), "vocab": np.frombuffer(SEP.join(names).encode("utf-8"), dtype=np.uint8),
              "weights": weights.astype(np.float32), "bias": np.array(bias, dtype=np.float32),
              "threshold": np.array(threshold, dtype=np.float32)}
    np.savez_compressed(args.out, **arrays)
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes, {len(names)} features, threshold {threshold})",
          file=sys.stderr)
    if args.report:
        report("out of fold, the sets trained on", examples, p, threshold)
        if held:
            judge = ValueJudge(args.out)
            dev = set_examples(args.sets, held)
            started = time.perf_counter()
            q = np.array([judge.likely(e.value) for e in dev])
            cost = 1e6 * (time.perf_counter() - started) / max(len(dev), 1)
            report("held out (never trained on)", dev, q, judge.threshold)
            print(f"  {cost:.1f} µs a value")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
