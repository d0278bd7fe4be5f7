"""Extraction speed on the gold set: the baseline rules (from git history) against the current ones, in one run.

Run: ``.venv/bin/python -m tests.benchmarks.bench_extract [--baseline REV] [--repeat N] [--gold PATH]``

The baseline is ``core/extract/rules.py`` at ``REV`` (default: the last revision before the rules moved to
``data/rules/``, when about 560 patterns were built and compiled per call, more than ``re``'s cache holds),
written to a temporary file and loaded as ``memdesk.extract._baseline_rules`` so that its relative imports
resolve (``.amounts`` and ``.times``, since moved to ``memdesk.lang``, are served from there). Passes over
the 538 turns of ``tests/sets/gold/extraction.jsonl`` alternate between the two implementations; the medians of the
seconds per pass and their ratio are printed. Both must also agree on every turn's facts (checked once, before
timing). The target is a ratio of at least 1.8.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType

from memdesk.extract import rules as current
from memdesk.pipeline import ExtractedFact, Turn

from .eval_extraction import GOLD, _turn

ROOT = Path(__file__).resolve().parents[2]
BASELINE_REV = "98947bd85d4e94f1a077ff6e331c09edf91807f1"  # rules.py before the rules became data
Extract = Callable[[Turn, Sequence[Turn]], list[ExtractedFact]]


def load_baseline(rev: str) -> ModuleType:
    """``core/extract/rules.py`` as it was at ``rev``, imported under ``memdesk.extract._baseline_rules``."""
    source = subprocess.run(["git", "show", f"{rev}:core/extract/rules.py"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout
    # its ``from .amounts import`` / ``from .times import``: those modules are now the language layer's
    for moved in ("amounts", "times"):
        sys.modules.setdefault(f"memdesk.extract.{moved}", importlib.import_module(f"memdesk.lang.{moved}"))
    folder = Path(tempfile.mkdtemp(prefix="memdesk-baseline-"))
    path = folder / "_baseline_rules.py"
    path.write_text(source, encoding="utf-8")
    name = "memdesk.extract._baseline_rules"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def gold_turns(path: Path) -> list[tuple[Turn, list[Turn]]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            d = json.loads(line)
            out.append((_turn(d["turn"]), [_turn(c) for c in d.get("context", [])]))
    return out


def one_pass(extract: Extract, turns: list[tuple[Turn, list[Turn]]]) -> float:
    start = time.perf_counter()
    for turn, context in turns:
        extract(turn, context)
    return time.perf_counter() - start


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default=BASELINE_REV, help="git revision of the baseline rules.py")
    parser.add_argument("--repeat", type=int, default=7, help="passes per implementation (interleaved)")
    parser.add_argument("--gold", type=Path, default=GOLD, help="gold file whose turns are extracted")
    args = parser.parse_args(argv)

    baseline = load_baseline(args.baseline)
    turns = gold_turns(args.gold)
    impls: dict[str, Extract] = {"baseline": baseline.extract, "current": current.extract}
    differ = sum(baseline.extract(t, c) != current.extract(t, c) for t, c in turns)
    times: dict[str, list[float]] = {name: [] for name in impls}
    for extract in impls.values():  # warm-up (the current rules were compiled once, at import)
        one_pass(extract, turns)
    for i in range(args.repeat):
        order = list(impls) if i % 2 == 0 else list(reversed(impls))
        for name in order:
            times[name].append(one_pass(impls[name], turns))
    med = {name: statistics.median(ts) for name, ts in times.items()}
    print(f"gold set: {args.gold.relative_to(ROOT) if args.gold.is_relative_to(ROOT) else args.gold} "
          f"({len(turns)} turns), {args.repeat} interleaved passes each")
    print(f"baseline rules.py @ {args.baseline[:12]}: median {med['baseline']:.3f} s/pass "
          f"(min {min(times['baseline']):.3f}, max {max(times['baseline']):.3f})")
    print(f"current rules (data/rules): median {med['current']:.3f} s/pass "
          f"(min {min(times['current']):.3f}, max {max(times['current']):.3f})")
    print(f"speed-up: {med['baseline'] / med['current']:.2f}x (target >= 1.8x)")
    print(f"turns whose facts differ: {differ}")
    return 0 if differ == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
