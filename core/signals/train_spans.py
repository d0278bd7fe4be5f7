"""Train the value tagger (``core.signals.spans``) from the labelled turns in the repository.

    pip install -e '.[train]'
    python -m memdesk.signals.train_spans            # writes data/signals/spans.crfsuite
    python -m memdesk.signals.train_spans --report   # span P/R: across authors and on the blind set

Data: the labelled turns of ``data/signals/train/<author>/*.jsonl`` (format:
``data/signals/README.md``); a clause's ``facts`` give each value as an exact
substring of its span, with its predicate and polarity. Each turn is cut into
clauses as at run time (``core.signals.clauses``) and each unit takes the tag
of the value it lies in. A turn without ``facts`` labels is left out.
Variations: every value is swapped ``--variations`` times for another value
of the same predicate and language (a fixed seed), so the tagger learns the
frame around a value, not the values it saw.

Authors: ``--authors`` (comma-separated folder names), else those
``data/signals/train/tagger.toml`` lists (``authors = [...]``), else every
folder. The shipped tagger reads the authors that file names (why: in it).

Conversation sets: the sets of ``tests/sets`` that ``tagger.toml`` names
(``conversations = [...]``) are more authors, their expected facts placed
in their turns (``core.signals.conversation_labels``); those it holds out
(``conversation_dev``) are what ``--report`` scores the tagger on. They are
read from a checkout (``--sets``), not from the installed wheel.

The fit is CRFsuite's L-BFGS with L1 and L2 penalties (``-c1``, ``-c2``): the
same data gives the same weights. Raises SystemExit with one line when the data
folder is missing or a line is malformed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
import tomllib
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from .conversation_labels import conversation_labels
from .cues import is_zh
from .labelled import MAX_VALUE, PREDICATES, Sequence_, Value, cut, no_overlap, placed, turns
from .spans import MODEL_FILE, NEGATED, SpanTagger, Unit, asked, features, tokenize

DATA = Path(__file__).resolve().parents[2] / "data" / "signals"
SETS = Path(__file__).resolve().parents[2] / "tests" / "sets"  # the conversation sets (a checkout, not the wheel)
def _label(fact: dict[str, Any], where: str) -> str:
    predicate = fact.get("predicate")
    if predicate not in PREDICATES:
        raise SystemExit(f"{where}: predicate {predicate!r} is not one of {', '.join(PREDICATES)}")
    return predicate + (NEGATED if fact.get("polarity") == "negative" else "")


def _load_turn(author: str, line: dict[str, Any], where: str) -> list[Sequence_]:
    text = line["text"]
    if not all("facts" in c for c in line["clauses"]):
        return []
    found: list[Value] = []
    for at, c in placed(line, where):
        for fact in c["facts"]:
            value = fact.get("value") or ""
            inside = c["span"].find(value) if value else -1
            if inside < 0:
                raise SystemExit(f"{where}: value {value!r} is not in its span {c['span']!r}")
            if len(value) <= MAX_VALUE:
                found.append(Value(_label(fact, where), at + inside, at + inside + len(value)))
    out = []
    for clause in cut(text):
        mine = tuple(Value(v.label, v.start - clause.start, v.end - clause.start)
                     for v in found if v.start >= clause.start and v.end <= clause.end)
        lang = "zh" if is_zh(clause.text) else "en"
        out.append(Sequence_(author, lang, clause.text, no_overlap(mine), line.get("assistant") or ""))
    return out


def load(folder: Path) -> list[Sequence_]:
    """Every clause of every labelled turn under ``folder`` (one subfolder per author)."""
    return [s for author, line, where in turns(folder) for s in _load_turn(author, line, where)]


def _tagger_toml(train: Path) -> dict[str, Any]:
    path = train / "tagger.toml"
    if not path.is_file():
        return {}
    try:
        return tomllib.loads(path.read_text("utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise SystemExit(f"{path}: not TOML ({exc})") from None


def _names(train: Path, key: str) -> list[str] | None:
    names = _tagger_toml(train).get(key)
    if names is not None and (not isinstance(names, list) or not all(isinstance(a, str) for a in names)):
        raise SystemExit(f"{train / 'tagger.toml'}: '{key}' must be a list of names")
    return names


def chosen_authors(train: Path, given: str | None) -> frozenset[str] | None:
    """The authors to train on: ``given`` (comma-separated), else the ``authors`` of
    ``train/tagger.toml`` when there is one; None: every author. Raises SystemExit
    with one line when the file is malformed."""
    if given:
        return frozenset(a.strip() for a in given.split(",") if a.strip())
    authors = _names(train, "authors")
    return None if authors is None else frozenset(authors)


def chosen_conversations(train: Path) -> tuple[list[str], list[str]]:
    """The conversation sets whose facts label values too (``conversations`` of ``train/tagger.toml``), and
    those held out to score the tagger on (``conversation_dev``). Raises SystemExit with one line when the
    file is malformed or a set is in both."""
    trained, held = _names(train, "conversations") or [], _names(train, "conversation_dev") or []
    both = sorted(set(trained) & set(held))
    if both:
        raise SystemExit(f"{train / 'tagger.toml'}: {', '.join(both)} both trained on and held out")
    return trained, held


def tags_of(seq: Sequence_, units: list[Unit]) -> list[str]:
    """The gold tag of each unit."""
    tags = ["O"] * len(units)
    for v in seq.values:
        inside = [i for i, u in enumerate(units) if u.start >= v.start and u.end <= v.end]
        for k, i in enumerate(inside):
            tags[i] = ("B-" if k == 0 else "I-") + v.label
    return tags


def variations(seqs: list[Sequence_], per: int, seed: int = 28) -> list[Sequence_]:
    """Each clause with one value again with other values of its label and language."""
    rng = random.Random(seed)
    pool: dict[tuple[str, str], set[str]] = defaultdict(set)
    for s in seqs:
        for v in s.values:
            pool[(v.label, s.lang)].add(s.text[v.start:v.end])
    out = []
    for s in seqs:
        if len(s.values) != 1:
            continue
        v = s.values[0]
        said = s.text[v.start:v.end]
        others = sorted(pool[(v.label, s.lang)] - {said})
        for other in rng.sample(others, min(per, len(others))):
            text = s.text[:v.start] + other + s.text[v.end:]
            out.append(Sequence_(s.author, s.lang, text, (Value(v.label, v.start, v.start + len(other)),),
                                 s.assistant))
    return out


def fit(seqs: list[Sequence_], path: Path, c1: float, c2: float, iterations: int) -> None:
    """Train the CRF on ``seqs`` and write it to ``path``."""
    import pycrfsuite

    trainer = pycrfsuite.Trainer(verbose=False)
    for s in seqs:
        units = tokenize(s.text)
        if units:
            trainer.append(features(units, s.lang, asked(s.assistant)), tags_of(s, units))
    trainer.set_params({"c1": c1, "c2": c2, "max_iterations": iterations,
                        "feature.possible_transitions": True})
    trainer.train(str(path))


SURE_AT = (0.5, 0.7, 0.9)  # the probabilities the report gives precision and recall at


def report(tagger: SpanTagger, seqs: list[Sequence_], title: str) -> dict[str, Any]:
    """Span precision and recall (exact span and label) per predicate, and over
    all values at each probability of ``SURE_AT``; printed and returned."""
    tp: Counter[str] = Counter()
    n_pred: Counter[str] = Counter()
    n_gold: Counter[str] = Counter()
    at: Counter[tuple[float, str]] = Counter()  # (threshold, "tp"|"pred")
    started = time.perf_counter()
    for s in seqs:
        found = tagger.tag(s.text, s.lang, s.assistant)
        want = {(v.label, v.start, v.end) for v in s.values}
        for label, _, _ in want:
            n_gold[label.removesuffix(NEGATED)] += 1
        for x in found:
            key = (x.predicate + (NEGATED if x.polarity == "negative" else ""), x.start, x.end)
            n_pred[x.predicate] += 1
            tp[x.predicate] += key in want
            for t in SURE_AT:
                if x.probability >= t:
                    at[(t, "pred")] += 1
                    at[(t, "tp")] += key in want
    ms = 1000 * (time.perf_counter() - started) / max(len(seqs), 1)
    gold = sum(n_gold.values())
    rows = {}
    for p in PREDICATES:
        if n_gold[p] or n_pred[p]:
            rows[p] = {"p": round(tp[p] / n_pred[p], 2) if n_pred[p] else 0.0,
                       "r": round(tp[p] / n_gold[p], 2) if n_gold[p] else 0.0, "n": n_gold[p]}
    total = {"p": round(sum(tp.values()) / max(sum(n_pred.values()), 1), 3),
             "r": round(sum(tp.values()) / max(gold, 1), 3), "n": gold}
    sure = {str(t): {"p": round(at[(t, "tp")] / max(at[(t, "pred")], 1), 3),
                     "r": round(at[(t, "tp")] / max(gold, 1), 3)} for t in SURE_AT}
    print(f"\n{title}: {len(seqs)} clauses, {ms:.3f} ms per clause; all values P {total['p']:.2f} "
          f"R {total['r']:.2f} ({gold}); " + ", ".join(
              f"at p>={t}: P {v['p']:.2f} R {v['r']:.2f}" for t, v in sure.items()))
    print("  " + ", ".join(f"{p} {v['p']:.2f}/{v['r']:.2f} ({v['n']})" for p, v in rows.items()))
    return {"set": title, "clauses": len(seqs), "ms_per_clause": round(ms, 3), "all": total,
            "at_probability": sure, "predicates": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DATA, help="the data/signals folder")
    parser.add_argument("--out", type=Path, help=f"model file (default: DATA/{MODEL_FILE})")
    parser.add_argument("--variations", type=int, default=2, help="value swaps per clause (default 2)")
    parser.add_argument("-c1", type=float, default=0.05, help="L1 penalty (default 0.05)")
    parser.add_argument("-c2", type=float, default=0.01, help="L2 penalty (default 0.01)")
    parser.add_argument("--iterations", type=int, default=150, help="L-BFGS iterations (default 150)")
    parser.add_argument("--report", action="store_true",
                        help="also train without each author and score on them (dev), "
                             "and score the final model on the blind set")
    parser.add_argument("--json", type=Path, help="write the report figures here")
    parser.add_argument("--sets", type=Path, default=SETS if SETS.is_dir() else None,
                        help="the conversation sets' folder (default: tests/sets of the checkout; "
                             "train/tagger.toml names the sets read)")
    parser.add_argument("--authors", help="author folders to train on, comma-separated "
                                          "(default: those of train/tagger.toml, else all)")
    args = parser.parse_args(argv)
    train = load(args.data / "train")
    wanted = chosen_authors(args.data / "train", args.authors)
    if wanted is not None:
        missing = wanted - {s.author for s in train}
        if missing:
            raise SystemExit(f"no labelled turns with facts by {', '.join(sorted(missing))} under {args.data / 'train'}")
        train = [s for s in train if s.author in wanted]
    authors = sorted({s.author for s in train})
    if not train:
        raise SystemExit(f"no turns with facts labels under {args.data / 'train'}")
    print(f"{len(train)} training clauses, {sum(len(s.values) for s in train)} values, "
          f"from {len(authors)} authors ({', '.join(authors)})")
    named, held_sets = chosen_conversations(args.data / "train") if args.sets else ([], [])
    sets, counts = conversation_labels(args.sets, named) if named else ([], Counter[str]())
    if named:
        print(f"{len(sets)} clauses, {counts['values']} values from {len(named)} conversation sets "
              f"({counts['kept']} of {counts['turns']} user turns: the others say a fact in words of their own)")
    figures = []
    if args.report and len(authors) > 1:
        for held in authors:
            rest = [s for s in train if s.author != held] + sets
            with tempfile.TemporaryDirectory() as tmp:
                fit(rest + variations(rest, args.variations), Path(tmp) / "m", args.c1, args.c2, args.iterations)
                figures.append(report(SpanTagger(Path(tmp) / "m"), [s for s in train if s.author == held],
                                      f"dev: trained without {held}, scored on {held}"))
    out = args.out or args.data / MODEL_FILE
    train += sets
    fit(train + variations(train, args.variations), out, args.c1, args.c2, args.iterations)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB)")
    if args.report and (args.data / "blind").is_dir():
        blind = load(args.data / "blind")
        if blind:
            figures.append(report(SpanTagger(out), blind, "blind"))
    if args.report and held_sets:
        dev, _ = conversation_labels(args.sets, held_sets)
        figures.append(report(SpanTagger(out), dev, f"dev: the held-out conversation sets ({', '.join(held_sets)})"))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
