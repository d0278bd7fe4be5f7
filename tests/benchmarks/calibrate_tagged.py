"""How often the value tagger's values are what an author recorded: the data behind
``WRITTEN_AT`` in ``core/signals/layer.py`` (which tagged values are written, not queued).

Every turn of the conversation sets is read by the rules and the signal layer as at
ingest; each value the tagger adds (``SignalLayer._claim_of``) is kept with the
probability of its span, the family head's probability for its predicate's family
and whose it is. A value is *right* when some fact of its set's ``expect.jsonl``
holds it (subject, predicate, value and polarity, as ``eval_conversations``
compares them). Printed per predicate and subject kind: for each span probability
from ``--at``, how many values reach it (with their family at least ``--family``)
and the share that are right.

    python -m tests.benchmarks.calibrate_tagged                    # dev and blind sets
    python -m tests.benchmarks.calibrate_tagged --sets dev --family 0.8

It ends with the predicates and subject kinds that would qualify (``--least`` values at
the least, ``--share`` of them right): candidates only. Each must also leave every gold
set as it was (``eval_extraction --signals``) before it joins ``WRITTEN_AT``; in round
15 the user's name and pet and another person's role qualified here and cost every
gold set one to three false values, so they were left queued.

Every set read here is dev data from then on: calibrate on sets that were scored
once already, never on a set held back to be scored blind.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from memdesk.catalog import Catalog
from memdesk.claims import ClaimInput
from memdesk.ingest import RuleExtractor, SignalledExtractor, turn_from_dict
from memdesk.pipeline import Turn
from memdesk.signals.layer import FAMILY_OF, Reading, SignalLayer
from memdesk.signals.people import PeopleBook
from memdesk.signals.spans import Span

from .eval_conversations import SETS, load


@dataclass(frozen=True)
class Tagged:
    """One value the tagger added, and whether an author recorded it."""

    predicate: str
    subject_kind: str
    probability: float
    family: float
    right: bool


class _Recording(SignalLayer):
    """The layer, keeping each tagged claim with its span's and family's probabilities."""

    def __init__(self, single_valued: frozenset[str], team: frozenset[str]) -> None:
        super().__init__(single_valued=single_valued, team=team)
        self.seen: list[tuple[ClaimInput, float, float]] = []

    def _claim_of(self, turn: Turn, reading: Reading, span: Span, user_subject: str, *,
                  others_in_turn: bool = False) -> ClaimInput | None:
        claim = super()._claim_of(turn, reading, span, user_subject, others_in_turn=others_in_turn)
        if claim is not None:
            family = reading.signal.family.get(FAMILY_OF.get(span.predicate, ""), 0.0)
            self.seen.append((claim, span.probability, family))
        return claim


def tagged_values(folder: Path, catalog: Catalog | None = None) -> list[Tagged]:
    """The tagger's values over one set's turns, each marked right or not (``catalog``: the bundled one)."""
    rows, facts, _ = load(folder)
    catalog = catalog or Catalog.load()
    layer = _Recording(single_valued=frozenset(p.id for p in catalog if p.single_valued),
                       team=frozenset(p.id for p in catalog if p.team))
    extractor = SignalledExtractor(RuleExtractor(), layer, PeopleBook())
    context: dict[str, list[Turn]] = {}
    for row in rows:
        turn = turn_from_dict(row)
        before = context.setdefault(turn.session, [])
        extractor.claims(turn, list(before))
        before.append(turn)
    return [Tagged(c.predicate, c.subject.split(":", 1)[0], p, fam,
                   any(f.holds(c.subject, c.predicate, c.object, c.polarity) for f in facts))
            for c, p, fam in layer.seen]


def table(values: list[Tagged], steps: list[float], family: float) -> list[str]:
    """Per predicate and subject kind: ``n right/n`` at each span probability step."""
    groups: dict[tuple[str, str], list[Tagged]] = defaultdict(list)
    for v in values:
        if v.family >= family:
            groups[(v.predicate, v.subject_kind)].append(v)
    head = "predicate      subject  " + "".join(f"p>={s:<12}" for s in steps)
    out = [head]
    for (predicate, kind), vs in sorted(groups.items()):
        cells = []
        for s in steps:
            at = [v for v in vs if v.probability >= s]
            right = sum(v.right for v in at)
            cells.append(f"{right}/{len(at)} ({right / len(at):.2f})" if at else "-")
        out.append(f"{predicate:<14} {kind:<8} " + "".join(f"{c:<15}" for c in cells))
    return out


def chosen(values: list[Tagged], steps: list[float], share: float, least: int) -> dict[tuple[str, str], float]:
    """Per predicate and subject kind, the least span probability of ``steps`` from which at least
    ``least`` values reach it and at least ``share`` of them are right: where the layer may write a
    tagged value as surely as the extractor's own (``WRITTEN_AT``). A predicate and subject kind that
    never get there are left out (their tagged values wait for a reviewer)."""
    out: dict[tuple[str, str], float] = {}
    for (predicate, kind) in sorted({(v.predicate, v.subject_kind) for v in values}):
        for s in sorted(steps):
            at = [v for v in values if v.predicate == predicate and v.subject_kind == kind and v.probability >= s]
            if len(at) >= least and sum(v.right for v in at) >= share * len(at):
                out[(predicate, kind)] = s
                break
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default="dev,blind", help="dev, blind, or kind/name,… (default: both)")
    parser.add_argument("--at", default="0.6,0.8,0.9,0.95", help="span probabilities to report from")
    parser.add_argument("--family", type=float, default=0.0, help="the least family probability counted")
    parser.add_argument("--share", type=float, default=0.9, help="the share right a written value needs (0.9)")
    parser.add_argument("--least", type=int, default=30, help="the least values a share is taken over (30)")
    args = parser.parse_args(argv)
    folders: list[Path] = []
    for part in args.sets.split(","):
        kind, _, name = part.partition("/")
        if kind not in SETS:
            parser.error(f"unknown set kind {kind!r} (dev or blind)")
        folders += [SETS[kind] / name] if name else sorted(p for p in SETS[kind].iterdir() if p.is_dir())
    catalog = Catalog.load()
    values = [v for folder in folders for v in tagged_values(folder, catalog)]
    print(f"{len(values)} tagged values over {len(folders)} sets; family >= {args.family}")
    steps = [float(s) for s in args.at.split(",")]
    for line in table(values, steps, args.family):
        print(line)
    written = chosen([v for v in values if v.family >= args.family], steps, args.share, args.least)
    print(f"candidates for WRITTEN_AT (at least {args.least} values, {args.share:.0%} of them right):")
    print("WRITTEN_AT = {" + ", ".join(f'("{p}", "{k}"): {s}' for (p, k), s in written.items()) + "}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

