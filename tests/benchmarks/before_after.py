"""One benchmark, run on this checkout and on an earlier revision in the same
run, in alternation; prints every figure both runs print, with the ratio
after/before (2 shared cores: absolute times are noise, a ratio taken under
the same load is not).

    python -m tests.benchmarks.before_after --rev f71c3dc -- bench_store --subjects 20000
    python -m tests.benchmarks.before_after --rev HEAD~5 --rounds 3 -- bench_app --subjects 5000
    python -m tests.benchmarks.before_after --rev f71c3dc --renamed Store.as_of=store.facts.as_of -- bench_store

The earlier revision is checked out in a temporary git worktree (removed at
the end) and run from its own tree, with its own benchmark script (a
benchmark measures the same work in both; its code may call an older API).
It is imported from a folder of links that lays the old tree out as the
installed package (``core/`` as ``memdesk``, ``app/`` as ``memdesk.app``,
``data/`` as ``memdesk.data``), so nothing is installed. Each side gets its
own temporary folder (``TMPDIR``), so caches a benchmark keeps there are
never shared between the two.

A figure is a number on a line whose other words are the same in both runs
(the nth line of a shape meets the nth); the table shows each such line once (its first 70 characters, numbers as
``#``), then, per number, the median over the rounds before and after and
their ratio. Lines printed by one side only are listed apart.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# a number not glued to a word before it (p50, sqlite3 and 0007 in a name are words)
NUMBER = re.compile(r"(?<![A-Za-z_\d.])-?\d[\d,]*(?:\.\d+)?")


def figures(output: str, renamed: dict[str, str] | None = None) -> dict[str, list[float]]:
    """Each line's shape (numbers as '#') -> its numbers; a shape seen again
    is keyed with its count (``shape [#2]``). ``renamed``: words the earlier revision printed for the same
    figure (old -> new), so that its line meets the new one."""
    out: dict[str, list[float]] = {}
    for line in output.splitlines():
        for old, new in (renamed or {}).items():
            line = line.replace(old, new)
        numbers = NUMBER.findall(line)
        if not numbers:
            continue
        shape = " ".join(NUMBER.sub("#", line).split())  # column padding may differ
        seen = sum(1 for key in out if key == shape or key.startswith(shape + " [#"))
        key = shape if not seen else f"{shape} [#{seen + 1}]"  # the same line again: its nth time
        out[key] = [float(n.replace(",", "")) for n in numbers]
    return out


def package_view(tree: Path, folder: Path) -> Path:
    """A folder in which ``memdesk`` is ``tree``'s core/ with its app/ and data/ inside."""
    package = folder / "memdesk"
    package.mkdir(parents=True)
    for entry in (tree / "core").iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    (package / "app").symlink_to(tree / "app")
    (package / "data").symlink_to(tree / "data")
    return folder


def run(tree: Path, python_path: str | None, tmp: Path, bench: list[str]) -> str:
    """One run of ``python -m tests.benchmarks.<bench[0]> <bench[1:]>`` from ``tree``; its output.

    Raises SystemExit naming the revision when the benchmark fails."""
    env = dict(os.environ, TMPDIR=str(tmp), PYTHONHASHSEED="0")
    if python_path:
        env["PYTHONPATH"] = python_path
    done = subprocess.run([sys.executable, "-m", f"tests.benchmarks.{bench[0]}", *bench[1:]],
                          cwd=tree, env=env, capture_output=True, text=True)
    if done.returncode:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["(no output)"]
        raise SystemExit(f"{bench[0]} failed in {tree} (exit {done.returncode}): {tail[0]}")
    return done.stdout


def table(before: list[dict[str, list[float]]], after: list[dict[str, list[float]]]) -> list[str]:
    """The lines of the comparison: shape, median before, median after, ratio."""
    lines = []
    shapes_before, shapes_after = before[0].keys(), after[0].keys()
    for shape in [s for s in shapes_after if s in shapes_before]:
        width = len(before[0][shape])
        if any(len(r.get(shape, ())) != width for r in before + after):
            continue
        line, _, again = shape.partition(" [#")
        lines.append(line[:70] + (f" [#{again}" if again else ""))
        for i in range(width):
            b = statistics.median(r[shape][i] for r in before)
            a = statistics.median(r[shape][i] for r in after)
            ratio = f"{a / b:.2f}x" if b else "-"
            lines.append(f"    #{i + 1}: before {b:,.4g}  after {a:,.4g}  after/before {ratio}")
    only = [s for s in shapes_after if s not in shapes_before]
    if only:
        lines.append("printed after only:")
        lines += [f"    {s[:90]}" for s in only]
    gone = [s for s in shapes_before if s not in shapes_after]
    if gone:
        lines.append("printed before only:")
        lines += [f"    {s[:90]}" for s in gone]
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rev", required=True, help="the earlier revision (any git name)")
    ap.add_argument("--rounds", type=int, default=2, help="runs of each side, alternating (default 2)")
    ap.add_argument("--renamed", action="append", default=[], metavar="OLD=NEW",
                    help="a word the earlier revision prints for the same figure (repeatable)")
    ap.add_argument("bench", nargs=argparse.REMAINDER,
                    help="-- then the benchmark's module name under tests/benchmarks and its arguments")
    args = ap.parse_args(argv)
    bench = args.bench[1:] if args.bench[:1] == ["--"] else args.bench
    if not bench or not (ROOT / "tests" / "benchmarks" / f"{bench[0]}.py").exists():
        ap.error("name a benchmark after --, e.g. -- bench_store --subjects 20000")
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    if any("=" not in r for r in args.renamed):
        ap.error("--renamed takes OLD=NEW")
    renamed = dict(r.split("=", 1) for r in args.renamed)
    with tempfile.TemporaryDirectory(prefix="memdesk-before-after-") as work:
        work_dir = Path(work)
        old = work_dir / "tree"
        made = subprocess.run(["git", "worktree", "add", "--detach", str(old), args.rev],
                              cwd=ROOT, capture_output=True, text=True)
        if made.returncode:
            raise SystemExit(f"cannot check out {args.rev}: {made.stderr.strip().splitlines()[-1]}")
        try:
            view = package_view(old, work_dir / "view")
            old_path = f"{view}{os.pathsep}{old}"
            before, after = [], []
            for n in range(args.rounds):
                for side, tree, path, into in (("before", old, old_path, before),
                                               ("after", ROOT, None, after)):
                    tmp = work_dir / f"tmp-{side}"
                    tmp.mkdir(exist_ok=True)
                    print(f"round {n + 1}/{args.rounds}: {side} ({args.rev if side == 'before' else 'this checkout'})",
                          file=sys.stderr, flush=True)
                    output = run(tree, path, tmp, bench)
                    into.append(figures(output, renamed if side == "before" else None))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(old)], cwd=ROOT,
                           capture_output=True)
            shutil.rmtree(old, ignore_errors=True)
    print(f"{' '.join(bench)}: {args.rev} (before) against this checkout (after), "
          f"{args.rounds} rounds each, alternating; medians")
    print("\n".join(table(before, after)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
