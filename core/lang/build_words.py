"""Build ``data/lang/english_words.txt.gz``: the common English words, the lexicon ``core/lang/case.py`` tells
names from words by.

    python -m memdesk.lang.build_words /usr/share/dict/american-english /usr/share/dict/british-english

The inputs are SCOWL word lists as Debian ships them (packages ``wamerican`` and ``wbritish``, size 50; their
licence, which allows this use, is in ``data/lang/README.md``). A word the lists hold in lower case is a common
word; one they hold only capitalised is a name, and is left out, as are possessives ("Tom's", "dog's"). The
output is sorted and written with a fixed gzip time, so the same lists give the same bytes. Raises
FileNotFoundError for a list that is not there.
"""

from __future__ import annotations

import argparse
import gzip
import io
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "data" / "lang" / "english_words.txt.gz"


def common_words(lists: list[Path]) -> list[str]:
    """The lower-case entries of ``lists``, without possessives, sorted."""
    words: set[str] = set()
    for path in lists:
        for line in path.read_text("utf-8", errors="replace").splitlines():
            word = line.strip()
            if word and word[0].islower() and not word.endswith("'s"):
                words.add(word)
    return sorted(words)


def write(words: list[str], out: Path) -> None:
    """``words`` a line each, gzip-compressed with a fixed time (reproducible bytes)."""
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=9, mtime=0) as fh:
        fh.write(("\n".join(words) + "\n").encode("utf-8"))
    out.write_bytes(buffer.getvalue())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lists", nargs="+", type=Path, help="SCOWL word lists (one word a line)")
    parser.add_argument("--out", type=Path, default=OUT, help=f"where to write (default: {OUT})")
    args = parser.parse_args(argv)
    missing = [p for p in args.lists if not p.is_file()]
    if missing:
        print(f"build_words: no such word list: {missing[0]}", file=sys.stderr)
        return 2
    words = common_words(args.lists)
    write(words, args.out)
    print(f"{len(words)} words -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
