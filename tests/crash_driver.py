"""Run one memdesk command line in this process with the wall clock fixed, so
that two runs from the same store write the same rows: the crash harness
compares a killed-then-rerun store with an uninterrupted one.

    python -m tests.crash_driver --db STORE COMMAND ARGS…
"""

from __future__ import annotations

import sys
from datetime import datetime

from memdesk import clock

FIXED_NOW = datetime.fromisoformat("2026-07-01T12:00:00+00:00")


def main(argv: list[str]) -> int:
    clock.SystemClock.now = lambda self: FIXED_NOW  # type: ignore[method-assign]
    from memdesk.app.cli import main as cli

    return cli(argv)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
